"""`--graph module:attribute`: the user's graph code as a second source, LangGraph's own answer.

Real parts only: the compat fixtures (written by LangGraph 0.2.28 ... 1.2.24) and kill-test
runs of the example graphs (sample_dbs/), the graph modules that wrote them, and the
LangGraph installed here asked twice: through replaylens's child process (read-only saver)
and directly in this process on a private copy. The two must agree on every checkpoint and
status; the evidence files must stay byte-identical.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from compat_truth import COMPAT_DIR, generations, load_truth

from replaylens.analysis.from_graph import (
    GRAPH_HEADER,
    GraphError,
    ask_graph,
    ask_thread,
    differences,
)
from replaylens.analysis.status import load_thread, thread_status
from replaylens.sources import open_source

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"
VERSIONS = generations()
# The default run: the oldest 0.2 and today's release; every release
# with REPLAYLENS_FULL_COMPAT=1 (`make validate`).
REDUCED = [v for v in VERSIONS if v in ("0.2.28", "1.2.24")]


def _versions() -> list[str]:
    import os

    return VERSIONS if os.environ.get("REPLAYLENS_FULL_COMPAT") == "1" else REDUCED


def _legacy(version: str) -> bool:
    return tuple(int(p) for p in version.split(".")) < (0, 3, 24)


@pytest.fixture
def in_scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The graph modules are found from the current folder, as `langgraph dev` finds them."""
    monkeypatch.chdir(SCRIPTS)


def _direct(db: Path, graph_ref: str, thread_id: str, namespaces: list[str], tmp: Path) -> dict:
    """LangGraph's own get_state_history, asked in this process on a private copy (today's
    saver's setup() may ALTER an old schema: never on the fixture)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.killtest import build_graph

    copy = tmp / f"direct-{db.parent.name}-{db.name}"
    if not copy.exists():
        shutil.copy2(db, copy)
    module, _, attr = graph_ref.partition(":")
    sys.path.insert(0, str(SCRIPTS))
    try:
        import importlib

        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    finally:
        sys.path.remove(str(SCRIPTS))
    conn = sqlite3.connect(str(copy), check_same_thread=False)
    try:
        graph = build_graph(obj, SqliteSaver(conn))
        out = {}
        for ns in namespaces:
            config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
            out[ns] = [
                (
                    s.config["configurable"]["checkpoint_id"],
                    sorted((t.name, t.id) for t in s.tasks),
                    sorted(t.id for t in s.tasks if getattr(t, "result", None) is not None),
                )
                for s in graph.get_state_history(config)
            ]
        return out
    finally:
        conn.close()


def _buildable_here() -> set[str]:
    """The compat graphs the LangGraph installed here can build."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        import compat_graphs
    finally:
        sys.path.remove(str(SCRIPTS))
    return set(compat_graphs.GRAPHS)


def _ask_untouched(db: Path, graph_ref: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every thread of `db` and the graph code's answer for it, the files (database, -wal,
    -shm) byte-identical with unchanged modification times afterwards."""
    before = _fingerprint(db)
    source = open_source(str(db))
    try:
        threads = {r.thread_id: load_thread(source, r.thread_id) for r in source.thread_index()}
        answers = ask_graph(
            source, graph_ref, {t: sorted(th.namespaces) for t, th in threads.items()}
        )
    finally:
        source.close()
    assert _fingerprint(db) == before, f"{db}: the evidence changed"
    return threads, answers


def _fingerprint(db: Path) -> dict[str, tuple[str, int]]:
    out = {}
    for suffix in ("", "-wal", "-shm"):
        f = Path(f"{db}{suffix}")
        if f.exists():
            out[suffix] = (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns)
    return out


@pytest.mark.parametrize("version", _versions())
def test_graph_answer_is_langgraphs_own_on_every_checkpoint(
    version: str, in_scripts: None, tmp_path: Path
) -> None:
    """Through the child's read-only saver, every checkpoint's tasks (names, ids, which have
    a result) and every status equal the installed LangGraph asked directly; the fixture
    files are untouched. On today's formats the rows agree with it everywhere; on pre-v3
    formats every difference is either today's resume (ids the rows predict) or a
    checkpoint the rows could not decide."""
    truth = load_truth(version)
    compared = 0
    buildable = _buildable_here()
    for graph, doc in sorted(truth["graphs"].items()):
        if graph not in buildable:  # `then=` left LangGraph with 0.3: no graph code to import
            continue
        db = COMPAT_DIR / version / f"{graph}.sqlite"
        threads, answers = _ask_untouched(db, f"compat_graphs:{graph}")
        assert set(threads) == set(doc["threads"])
        for tid, thread in threads.items():
            answer = answers[tid]
            assert not answer.errors, answer.errors
            direct = _direct(db, f"compat_graphs:{graph}", tid, sorted(thread.namespaces), tmp_path)
            for ns, snaps in direct.items():
                for cid, pairs, with_result in snaps:
                    mine = answer.at(ns, cid)
                    assert mine is not None, (version, graph, tid, ns, cid)
                    assert mine.task_pairs == pairs
                    assert sorted(t.task_id for t in mine.tasks if t.has_result) == with_result
                    compared += 1
            if not _legacy(version):
                assert answer.status == doc["threads"][tid]["status"]  # the writing release's too
                assert differences(thread, answer) == [], (version, graph, tid)
            else:
                for d in differences(thread, answer):
                    assert d.sentence.startswith(("today's resume:", "the rows cannot tell")), d
            rows = thread_status(thread)
            if rows == "unknown":  # decided by the graph code, as LangGraph says
                assert answer.status == doc["threads"][tid]["status"]
    assert compared >= 60


@pytest.mark.slow  # kills a real graph in a child process
def test_example_graph_kill_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Kill-test runs of the example graphs (sample_dbs/, one per graph and mode): the graph
    code's status and tasks equal the rows' on every checkpoint (today's format: they are the
    check on each other), and the evidence files, WAL and -shm included, stay byte-identical."""
    checked = 0
    for graph in ("fanout", "linear", "payment", "send_map_reduce"):
        for run in sorted((REPO / "sample_dbs" / graph / "runs").iterdir())[:1]:
            for name in ("checkpoints.db", "at-kill.db"):
                db = run / name
                if not db.exists():
                    continue
                threads, answers = _ask_untouched(db, f"replaylens.examples.graphs:{graph}")
                for tid, thread in threads.items():
                    assert not answers[tid].errors
                    assert answers[tid].status == thread_status(thread), (db, tid)
                    assert differences(thread, answers[tid]) == [], (db, tid)
                    checked += 1
    assert checked >= 4


def test_the_saver_refuses_every_write(tmp_path: Path) -> None:
    """The child's saver: put, put_writes and delete_thread raise, setup creates nothing."""
    from replaylens.analysis._graph_worker import WriteRefused, read_only_saver

    db = tmp_path / "copy.sqlite"
    shutil.copy2(COMPAT_DIR / VERSIONS[-1] / "linear.sqlite", db)
    source = open_source(str(db))
    conn = source.connect(mapped=False)
    try:
        saver = read_only_saver(conn)
        config = {"configurable": {"thread_id": "done", "checkpoint_ns": ""}}
        tup = saver.get_tuple(config)
        assert tup is not None
        with pytest.raises(WriteRefused):
            saver.put(tup.config, tup.checkpoint, tup.metadata, {})
        with pytest.raises(WriteRefused):
            saver.put_writes(tup.config, [("x", 1)], "task")
        with pytest.raises(WriteRefused):
            saver.delete_thread("done")
        saver.setup()
    finally:
        conn.close()
        source.close()


def test_cli_thread_and_threads_say_the_graph_answered(in_scripts: None) -> None:
    """The CLI names the source in its heading, decides an `unknown` thread, and `--json`
    carries both answers and the rows' own status."""
    db = COMPAT_DIR / "0.2.28" / "linear.sqlite"
    cli = [sys.executable, "-m", "replaylens.cli"]
    out = subprocess.run([*cli, "thread", str(db), "--thread", "done", "--graph", "compat_graphs:linear"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert out.startswith(f"{GRAPH_HEADER} (compat_graphs:linear)")
    assert "Status completed, decided by your graph code (the rows alone cannot tell)." in out
    assert "today's resume:" in out and "thread done: unknown" in out
    doc = orjson.loads(subprocess.run(
        [*cli, "threads", str(db), "--graph", "compat_graphs:linear", "--json"],
        capture_output=True, check=True).stdout)  # fmt: skip
    by_id = {r["thread_id"]: r for r in doc}
    assert by_id["done"]["status"] == "completed" and by_id["done"]["rows_status"] == "unknown"
    assert by_id["killed"]["status"] == "resumable" and by_id["killed"]["pending"] == ["c"]
    plan = orjson.loads(subprocess.run(
        [*cli, "replay", str(db), "--thread", "done", "--graph", "compat_graphs:linear", "--json"],
        capture_output=True, check=True).stdout)  # fmt: skip
    assert plan["status"] == "unknown" and plan["from_graph"]["status"] == "completed"
    assert plan["from_graph"]["rows_status"] == "unknown"
    plain = subprocess.run([*cli, "threads", str(db)], capture_output=True, text=True, check=True)
    assert "--graph module:attribute" in plain.stdout  # how to decide the unknown thread


def test_a_bad_graph_is_one_sentence(in_scripts: None) -> None:
    db = COMPAT_DIR / VERSIONS[-1] / "linear.sqlite"
    source = open_source(str(db))
    try:
        thread = load_thread(source, "done")
        for ref, words in (
            ("compat_graphs:nope", "has no attribute 'nope'"),
            ("no_such_module_here:graph", "No module named 'no_such_module_here'"),
            ("compat_graphs", "must be given as 'module:attribute'"),
            ("compat_graphs:ENV_SLEEP", "cannot build a graph from str"),
        ):
            with pytest.raises(GraphError, match=words) as info:
                ask_thread(source, ref, thread)
            assert "Traceback" not in str(info.value)
    finally:
        source.close()


def test_a_graph_file_path_as_in_langgraph_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`./path/file.py:attr`, the form langgraph.json uses, imports that file."""
    monkeypatch.chdir(tmp_path)
    db = COMPAT_DIR / VERSIONS[-1] / "fanout.sqlite"
    source = open_source(str(db))
    try:
        thread = load_thread(source, "killed")
        answer = ask_thread(source, f"{SCRIPTS / 'compat_graphs.py'}:fanout", thread)
    finally:
        source.close()
    assert answer.status == "resumable" and differences(thread, answer) == []


@pytest.mark.usefixtures("fresh_streamlit")
def test_dashboard_graph_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve --graph`: the picker offers it, the thread page says in its header that the next
    tasks come from the graph code and decides the `unknown` thread; a URL naming other code
    is not taken (only the operator's graphs are options)."""
    import json

    from app_pages import open_page, shown

    folder = COMPAT_DIR / "0.2.28"
    monkeypatch.chdir(SCRIPTS)
    monkeypatch.setenv(
        "REPLAYLENS_SERVE_ARGS", json.dumps([str(folder), "--graph", "compat_graphs:linear"])
    )
    at = open_page("thread", timeout=120, db=str(folder / "linear.sqlite"), thread="done")
    info = shown(at, "info")
    assert f"**{GRAPH_HEADER}**" in info
    assert "Status completed, decided by your graph code" in info
    assert at.selectbox(key="_sel_graph").value == "compat_graphs:linear"

    at = open_page("threads", timeout=120, db=str(folder / "linear.sqlite"), graph="os:system")
    assert at.selectbox(key="_sel_graph").value == "compat_graphs:linear"
    info = shown(at, "info")
    assert "decides the 1 thread(s) the rows cannot: done **completed**" in info


def test_serve_passes_the_graph_to_the_app() -> None:
    """`replaylens serve DB --graph M:A` reaches the app's config, in order, deduplicated."""
    from replaylens._serve import build_command
    from replaylens.cli import build_parser
    from replaylens.dashboard import config as cfg

    db = str(COMPAT_DIR / VERSIONS[-1] / "linear.sqlite")
    args = build_parser().parse_args(
        ["serve", db, "--graph", "a.b:g", "--graph", "c.py:h", "--graph", "a.b:g"]
    )
    served = build_command(args)
    served = served[served.index("--") + 1 :]
    assert cfg.parse(served).graphs == ("a.b:g", "c.py:h")
    assert cfg.parse([db]).graphs == ()


def test_postgres_graph_answer(pg_cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """On Postgres the child asks through a session that cannot write (and a saver that
    refuses to): the example graphs' threads, written by a real PostgresSaver, get LangGraph's
    own answer, equal to the rows' on every checkpoint, and no row changes."""
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from source_threads import write_threads

    dsn = pg_cluster.create_database("replaylens_graph_code")
    monkeypatch.setenv("REPLAYLENS_EXAMPLE_SLEEP", "0")
    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()  # the test's writer creates the tables; replaylens never would
        written = write_threads(saver, monkeypatch)

    def rows() -> list[int]:
        with psycopg.connect(dsn) as conn:
            return [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                    for t in ("checkpoints", "checkpoint_writes", "checkpoint_blobs")]  # fmt: skip

    before = rows()
    source = open_source(dsn)
    try:
        for graph in ("linear", "fanout", "payment", "failing"):
            ids = [t for t in written if t.startswith(graph)]
            threads = {t: load_thread(source, t) for t in ids}
            answers = ask_graph(
                source,
                f"replaylens.examples.graphs:{graph}",
                {t: sorted(th.namespaces) for t, th in threads.items()},
            )
            for tid, thread in threads.items():
                assert not answers[tid].errors, answers[tid].errors
                assert answers[tid].status == thread_status(thread), (graph, tid)
                assert differences(thread, answers[tid]) == [], (graph, tid)
    finally:
        source.close()
    assert rows() == before
