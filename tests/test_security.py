"""Issue 27, round three of hardening: every promise of docs/security.md with the test that holds it.

The databases are written by real LangGraph graphs (hostile names and values are what a
graph, an LLM or a user put there); the bundles by `replaylens bundle`, then damaged as an
attacker would. Each section names the point of the issue it holds.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TypedDict

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as hs

REPO = Path(__file__).resolve().parents[1]


# -- 1. the code users paste ---------------------------------------------------------------
class _S(TypedDict, total=False):
    answer: Any


ATTACK = "\n__import__('os').system('echo PWNED')\n"
"""What the round-three attack put in node names and interrupt questions."""
LINE_BREAKS = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c"]
hostile = hs.lists(
    hs.characters(codec="utf-8", exclude_characters="|:", exclude_categories=["Cs"])
    | hs.sampled_from(
        [*LINE_BREAKS, "#", "'", '"', "\\", "\U0001f600", "\x00", "\x1b[31m", ATTACK]
    ),
    min_size=1,
    max_size=8,
).map("".join)


def _node_name(text: str) -> str:
    """A name LangGraph accepts for a node (it refuses its reserved names and `|`, `:`)."""
    return text if text not in ("__start__", "__end__", "answer") else text + "_"


def _hostile_thread(kind: str, db: Path, thread_id: str, node: str, value: Any, outer: str) -> None:
    """One real thread, stopped by a node called `node`: failed (raises `value`), asked
    (interrupt(value)), asked inside a subgraph run by node `outer` (its namespace), or two
    questions at once (two interrupts pending: the resume needs their ids)."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import interrupt

    def fail(_state: _S) -> _S:
        raise RuntimeError(str(value))

    def ask(_state: _S) -> _S:
        return {"answer": interrupt(value)}

    def graph_with(body: Any, name: str) -> StateGraph:
        g = StateGraph(_S)
        g.add_node(name, body)
        g.add_edge(START, name)
        return g

    with contextlib.closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        saver = SqliteSaver(conn)
        if kind == "failed":
            g = graph_with(fail, node)
        elif kind == "asked":
            g = graph_with(ask, node)
        elif kind == "nested":
            g = graph_with(graph_with(ask, node).compile(), outer)
        else:  # two questions pending in one step
            g = StateGraph(_S)
            for name in (node, node + "'2"):
                g.add_node(name, ask)
                g.add_edge(START, name)
        config = {"configurable": {"thread_id": thread_id}}
        with contextlib.suppress(RuntimeError):
            g.compile(checkpointer=saver).invoke({}, config, durability="sync")


PASTE_HARNESS = r"""
import json, sys, types
calls, events = [], []
langgraph, lg_types = types.ModuleType("langgraph"), types.ModuleType("langgraph.types")
class Command:
    def __init__(self, **kw):
        self.kw = kw
lg_types.Command = Command
sys.modules["langgraph"], sys.modules["langgraph.types"] = langgraph, lg_types
class Graph:
    def invoke(self, value, config, *args, **kw):
        resume = value.kw.get("resume", "no resume") if isinstance(value, Command) else "no command"
        resume = dict(sorted(resume.items())) if isinstance(resume, dict) else resume
        calls.append({"value": None if value is None else "Command", "args": len(args) + len(kw),
                      "resume": repr(resume), "config": config})
    def __getattr__(self, name):
        calls.append({"other": name})
        return lambda *a, **k: None
code = compile(sys.stdin.read(), "<pasted>", "exec")
sys.addaudithook(lambda event, _args: events.append(event))
exec(code, {"graph": Graph(), "__builtins__": __builtins__})
sys.stdout.write(json.dumps({"calls": calls, "events": events}))
"""


def _paste(block: str) -> dict[str, Any]:
    """Run a pasted block in a fresh Python with a stub `graph` and `Command`: the calls it
    made and the audit events it raised (os.system, open, import, subprocess... show up)."""
    done = subprocess.run([sys.executable, "-I", "-c", PASTE_HARNESS], input=block.encode(),
                          capture_output=True, timeout=30)  # fmt: skip
    assert done.returncode == 0, (block, done.stderr.decode(errors="replace")[-2000:])
    return json.loads(done.stdout)


def _cli_blocks(db: Path, thread_id: str) -> tuple[list[str], list[str]]:
    """The next-move blocks as `replay` prints them (the lines under "next move:", as a
    reader copies them from the terminal) and as `replay --json` gives them."""
    from replaylens.cli import main

    def run(*extra: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(["replay", str(db), "--thread", thread_id, "--no-effects", *extra]) == 0
        return out.getvalue()

    blocks, current = [], None
    for line in run().split("\n"):
        if line == "next move:":
            current = []
            blocks.append(current)
        elif current is not None and line.startswith("    "):
            current.append(line[4:])
        else:
            current = None
    moves = json.loads(run("--json"))["next_moves"]
    return ["\n".join(b) for b in blocks], [m["code"] for m in moves]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=hs.sampled_from(["failed", "asked", "nested", "two"]),
    thread_id=hostile,
    node=hostile.map(_node_name),
    outer=hostile.map(_node_name),
    value=hostile | hs.dictionaries(hostile, hostile, max_size=2),
)
@example(kind="failed", thread_id="t", node=f"n{ATTACK}", outer="o", value="boom")
@example(
    kind="asked", thread_id="t", node="n\u2028__import__('os').system('x')", outer="o", value="q"
)
@example(kind="asked", thread_id="t", node="n", outer="o", value=f"ok?\u2028{ATTACK}")
@example(kind="nested", thread_id="t\x85x", node="n", outer=f"o\x85{ATTACK}", value="q")
@example(kind="failed", thread_id="t-\U0001f600", node="n", outer="o", value="boom")
def test_every_pasted_next_move_makes_only_the_expected_call(
    kind: str, thread_id: str, node: str, outer: str, value: Any
) -> None:
    """The Thread page's block (next_moves), `replay`'s and `replay --json`'s, pasted into
    Python: exactly one graph.invoke, of the same thread and checkpoint, nothing else run."""
    from replaylens.analysis.again import next_moves
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    if kind == "two" and node + "'2" == outer:
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "hostile.db"
        _hostile_thread(kind, db, thread_id, node, value, outer)
        source = open_source(db)
        try:
            thread = load_thread(source, thread_id)
        finally:
            source.close()
        plan = plan_resume(thread, None, thread_id)
        assert plan.status == ("failed" if kind == "failed" else "interrupted")
        moves = next_moves(plan, thread)
        assert moves and len(moves) == (2 if kind == "two" else 1)
        printed, as_json = _cli_blocks(db, thread_id)
        assert len(printed) == len(as_json) == len(moves)
        pending = (
            sorted(i.id for _, t in plan.reruns for i in t.interrupts) if kind == "two" else []
        )
        for block in [m.code for m in moves] + printed + as_json:
            ran = _paste(block)
            assert ran["events"] == ["exec"], (block, ran["events"])
            assert len(ran["calls"]) == 1, (block, ran["calls"])
            call = ran["calls"][0]
            assert call["config"] == {"configurable": {
                "thread_id": thread_id, "checkpoint_id": plan.resume_checkpoint.checkpoint_id}}  # fmt: skip
            assert call["args"] == 0
            if kind == "failed":
                assert call["value"] is None
            elif kind == "two":  # LangGraph refuses a bare value with two pending: a map by id
                assert call["resume"] == repr(dict.fromkeys(pending, ...))
            else:
                assert call["value"] == "Command" and call["resume"] == "Ellipsis"


def test_the_pasted_block_resumes_a_thread_whose_id_is_outside_the_bmp(tmp_path: Path) -> None:
    """With real LangGraph: the failed node is fixed, the block is pasted, the thread ends.
    A JSON literal of the id (`"\\ud83d\\ude00"`) names another thread in Python."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command

    from replaylens.analysis.again import next_moves
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    thread_id, db, broken = "run-\U0001f600\u2028x", tmp_path / "emoji.db", [True]

    def step(_state: _S) -> _S:
        if broken[0]:
            raise RuntimeError("not yet")
        return {"answer": "done"}

    g = StateGraph(_S)
    g.add_node("step", step)
    g.add_edge(START, "step")
    with contextlib.closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        graph = g.compile(checkpointer=SqliteSaver(conn))
        with pytest.raises(RuntimeError):
            graph.invoke({}, {"configurable": {"thread_id": thread_id}}, durability="sync")
        source = open_source(db)
        try:
            thread = load_thread(source, thread_id)
        finally:
            source.close()
        (move,) = next_moves(plan_resume(thread, None, thread_id), thread)
        broken[0] = False
        exec(compile(move.code, "<pasted>", "exec"), {"graph": graph, "Command": Command})
        state = graph.get_state({"configurable": {"thread_id": thread_id}})
        assert state.values == {"answer": "done"} and not state.next


# -- 6. CSV downloads ------------------------------------------------------------------------
FORMULAS = ["=1+1", "\t=HYPERLINK(\"http://x\")", "\r=cmd|'/c calc'!A0", "\n+1", " \t\r\n-2", "@SUM(A1)",
            "\r\n@x", "=", "plain", "", "a=b", "'=quoted"]  # fmt: skip


def test_csv_cells_never_start_a_formula_after_blanks(tmp_path: Path) -> None:
    """The incident CSV, read back as a spreadsheet would: no cell whose first character that
    is not a space, tab, CR or LF is = + - @; every other cell exactly as it was."""
    from replaylens.analysis.incident import collect, to_csv
    from replaylens.effects.parse import read_effects
    from replaylens.sources import open_source

    log = tmp_path / "effects.jsonl"
    log.write_text("".join(json.dumps({"thread_id": f"id{i}" if not f else f, "node": f or "n", "phase": "start",
                                       "ts": 1.0 + i}) + "\n" for i, f in enumerate(FORMULAS)))  # fmt: skip
    db = tmp_path / "empty.db"
    from langgraph.checkpoint.sqlite import SqliteSaver

    with SqliteSaver.from_conn_string(str(db)) as saver:
        saver.setup()
    source = open_source(db)
    try:
        incident = collect(source, read_effects(log))
    finally:
        source.close()
    rows = list(csv.DictReader(io.StringIO(to_csv(incident))))
    ids = {r["thread_id"] for r in rows}
    for f in FORMULAS:
        if not f:
            continue
        risky = f.lstrip(" \t\r\n")[:1] in ("=", "+", "-", "@")
        assert ("'" + f if risky else f) in ids, (f, ids)
    for row in rows:
        for cell in row.values():
            assert cell.lstrip(" \t\r\n")[:1] not in ("=", "+", "-", "@"), (cell, row)


# -- 3. --out never writes over the evidence -------------------------------------------------
def _run_cli(*args: str) -> tuple[int, str, str]:
    from replaylens.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def _digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", ["bundle", "export"])
def test_out_refuses_the_evidence_and_its_sidecars(tmp_path: Path, command: str) -> None:
    from hardening_data import linear_db

    db = linear_db(tmp_path / "checkpoints.db", ["t"])
    log = db.with_suffix(".effects.jsonl")
    (tmp_path / "link.db").symlink_to(db)
    os.link(db, tmp_path / "hard.db")
    before = _digest(db), _digest(log)
    for out in [db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal"), tmp_path / "link.db",
                tmp_path / "hard.db", log, tmp_path / "sub" / ".." / "checkpoints.db"]:  # fmt: skip
        code, _, err = _run_cli(
            command, str(db), "--thread", "t", "--effects", str(log), "--out", str(out)
        )
        assert code == 2 and "refused because it is" in err and "Traceback" not in err, (out, err)
        assert (_digest(db), _digest(log)) == before
        for suffix in ("-wal", "-shm", "-journal"):
            assert not Path(f"{db}{suffix}").exists(), (out, suffix)
    code, _, err = _run_cli(command, str(db), "--thread", "t", "--out", str(tmp_path / "fine.out"))
    assert code == 0 and (tmp_path / "fine.out").stat().st_size > 0, err


# -- 5. the status cache is trusted only as far as it must be ----------------------------------
def _db_and_poisoned_cache(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a real database of two completed threads, its cache folder, its cache file holding a
    wrong status, 'failed', under the right keys: what a planted or stale file would say)."""
    from hardening_data import linear_db

    from replaylens import cache as status_cache
    from replaylens.sources import open_source

    db = linear_db(tmp_path / "evidence" / "checkpoints.db", ["t1", "t2"])
    folder = tmp_path / "cache"
    source = open_source(db)
    try:
        cache = status_cache.StatusCache(
            source.cache_identity(), folder, content=source.content_stamp
        )
        index = source.thread_index()
        keys = source.writes_keys({r.thread_id: r.latest_checkpoint_id for r in index})
        for row in index:
            cache.put(row.thread_id, row.latest_checkpoint_id, keys[row.thread_id],
                      status_cache.CachedStatus("failed", 4, None, ()))  # fmt: skip
        cache.save()
    finally:
        source.close()
    return db, folder, cache.path


def _threads(db: Path, folder: Path, *, timeout: float = 60) -> tuple[dict[str, str], str]:
    """`replaylens threads --json` in its own process (a FIFO could hang it; memory is capped
    at 1 GiB so that a file linked to /dev/zero fails fast instead of filling the machine)."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    env = {**os.environ, "PYTHONPATH": str(REPO / "lib"), "REPLAYLENS_CACHE_DIR": str(folder)}
    done = subprocess.run([sys.executable, "-m", "replaylens.cli", "threads", str(db), "--json"],
                          capture_output=True, text=True, timeout=timeout, env=env, preexec_fn=cap)  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-1500:]
    return {t["thread_id"]: t["status"] for t in json.loads(done.stdout)}, done.stderr


TRUE = {"t1": "completed", "t2": "completed"}


def test_the_poisoned_cache_is_read_when_it_is_ours(tmp_path: Path) -> None:
    """The control: a file of ours under the right keys is trusted (so the tests below, where
    the same file is ignored, show the check and not a miss)."""
    db, folder, _ = _db_and_poisoned_cache(tmp_path)
    assert _threads(db, folder)[0] == {"t1": "failed", "t2": "failed"}


@pytest.mark.parametrize("how", ["writable by others", "another user", "folder writable by others"])
def test_a_cache_file_someone_else_could_write_is_ignored_with_a_note(
    tmp_path: Path, how: str
) -> None:
    db, folder, path = _db_and_poisoned_cache(tmp_path)
    if how == "writable by others":
        path.chmod(0o666)
    elif how == "folder writable by others":
        folder.chmod(0o777)
    elif os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    else:  # not root: another user's file cannot be made here; one that others may write can
        path.chmod(0o646)
    statuses, err = _threads(db, folder)
    assert statuses == TRUE
    assert "it is ignored" in err and str(path.parent) in err, err


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "link"])
def test_a_cache_file_that_is_no_regular_file_is_ignored_without_hanging(
    tmp_path: Path, kind: str
) -> None:
    db, folder, path = _db_and_poisoned_cache(tmp_path)
    planted = tmp_path / "planted.json"
    path.rename(planted)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero" if kind == "dev-zero" else planted)
    statuses, err = _threads(db, folder, timeout=30)
    assert statuses == TRUE and "it is ignored" in err, err


def test_a_cache_of_the_wrong_types_is_discarded_with_a_note(tmp_path: Path) -> None:
    db, folder, path = _db_and_poisoned_cache(tmp_path)
    doc = json.loads(path.read_bytes())
    for entry in doc["entries"].values():
        entry[3], entry[5] = "four", [1, {"x": 2}]
    path.write_text(json.dumps(doc))
    statuses, err = _threads(db, folder)
    assert statuses == TRUE and "damaged and has been discarded" in err, err


def test_the_lock_is_never_opened_through_a_dangling_link(tmp_path: Path) -> None:
    db, folder, path = _db_and_poisoned_cache(tmp_path)
    path.unlink()
    target = db.parent / "planted-beside-the-evidence"
    path.with_suffix(".lock").unlink()
    path.with_suffix(".lock").symlink_to(target)
    statuses, err = _threads(db, folder)
    assert statuses == TRUE and "cannot be written" in err, err
    assert not target.exists() and sorted(p.name for p in db.parent.iterdir()) == [
        "checkpoints.db", "checkpoints.effects.jsonl"]  # fmt: skip


def test_a_database_replaced_in_place_is_derived_again(tmp_path: Path) -> None:
    """`cp other.db checkpoints.db`: same path, same inode, the same rowids and ids, another
    content (the latest checkpoint of t1 says b is due again). The cache holds the statuses
    it derived itself, right for the file it read; they must not be shown for the new one."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    db, folder, path = _db_and_poisoned_cache(tmp_path)
    path.unlink()
    assert _threads(db, folder)[0] == TRUE  # derived and cached, right
    other = tmp_path / "other.db"
    other.write_bytes(db.read_bytes())
    with contextlib.closing(sqlite3.connect(other, check_same_thread=False)) as conn:
        saver = SqliteSaver(conn)
        history = list(saver.list({"configurable": {"thread_id": "t1"}}))
        latest, before = history[0], history[1]
        conn.execute("UPDATE checkpoints SET checkpoint = (SELECT checkpoint FROM checkpoints WHERE "
                     "thread_id = 't1' AND checkpoint_id = ?) WHERE thread_id = 't1' AND checkpoint_id = ?",
                     (before.config["configurable"]["checkpoint_id"],
                      latest.config["configurable"]["checkpoint_id"]))  # fmt: skip
        conn.commit()
    inode = db.stat().st_ino
    subprocess.run(["cp", "-p", str(other), str(db)], check=True)
    assert db.stat().st_ino == inode
    fresh = _threads(db, tmp_path / "empty-cache")[0]
    assert fresh["t1"] != "completed"  # what the new content says
    assert _threads(db, folder)[0] == fresh


def test_a_cache_folder_inside_the_evidence_folder_is_refused(tmp_path: Path) -> None:
    db, _, _ = _db_and_poisoned_cache(tmp_path)
    inside = db.parent / "sub" / "cache"
    statuses, err = _threads(db, inside)
    assert statuses == TRUE and "inside a folder of evidence" in err, err
    assert not (db.parent / "sub").exists()


# -- 2 and 4. bundles: one reader that trusts nothing before it matched -------------------------
@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real bundle of a real `linear` thread with its effects log."""
    from hardening_data import linear_db

    from replaylens.bundle import make_bundle

    root = tmp_path_factory.mktemp("bundle")
    db = linear_db(root / "checkpoints.db", ["t"])
    out = root / "incident.zip"
    make_bundle(db, "t", db.with_suffix(".effects.jsonl"), out)
    return out


def _rezip(src: Path, dst: Path, *, manifest: Any = None, raw_manifest: bytes | None = None,
           extra: list[tuple[str, bytes]] = (), drop: tuple[str, ...] = ()) -> Path:  # fmt: skip
    """The bundle rewritten: its manifest replaced (as a dict or as raw bytes), entries added."""
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            if info.filename == "manifest.json" and (
                manifest is not None or raw_manifest is not None
            ):
                zout.writestr(
                    "manifest.json",
                    raw_manifest if raw_manifest is not None else json.dumps(manifest),
                )
            else:
                zout.writestr(info.filename, zin.read(info.filename))
        for name, data in extra:
            zinfo = zipfile.ZipInfo(name)
            zout.writestr(zinfo, data)
    return dst


def _manifest(path: Path) -> dict[str, Any]:
    import zipfile

    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("manifest.json"))


def _refused(path: Path, *words: str) -> str:
    """`replay` of a hostile bundle: exit 2, one sentence, no traceback, nothing left in the
    temporary folder (a folder of its own: another test worker may be opening bundles in the
    shared one meanwhile)."""
    private, shared = tempfile.mkdtemp(prefix="refused-"), tempfile.tempdir
    tempfile.tempdir = private
    try:
        code, out, err = _run_cli("replay", str(path), "--thread", "t")
    finally:
        tempfile.tempdir = shared
    assert code == 2 and out == "", (out, err)
    lines = err.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("replaylens: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err
    assert list(Path(private).glob("replaylens-bundle-*")) == []
    return err


def test_manifest_entries_outside_the_bundle_are_refused(bundle: Path, tmp_path: Path) -> None:
    """The snapshot and effects entries named `../` or absolute paths (read before, with no
    digest check, and allowed under serve): refused, whatever the file holds."""
    import shutil

    outside = tmp_path / "outside.db"
    shutil.copy(bundle.parent / "checkpoints.db", outside)
    for key, value in [("snapshot", "../outside.db"), ("snapshot", str(outside)), ("effects", "../x.jsonl"),
                       ("effects", "/etc/passwd"), ("snapshot", "notlisted.db")]:  # fmt: skip
        manifest = _manifest(bundle)
        manifest[key] = value
        _refused(_rezip(bundle, tmp_path / "b.zip", manifest=manifest), key)
    manifest = _manifest(bundle)
    manifest["files"]["../../escape.txt"] = {"sha256": "0" * 64, "bytes": 1}
    _refused(
        _rezip(bundle, tmp_path / "b.zip", manifest=manifest, extra=[("../../escape.txt", b"x")])
    )
    assert not (tmp_path.parent / "escape.txt").exists()


def test_odd_and_duplicate_names_are_one_sentence(bundle: Path, tmp_path: Path) -> None:
    import warnings

    cases = {
        "dot": [(".", b"x")],
        "file then folder": [("report.md/inner", b"x")],
        "nul": [("a\x00b", b"x")],
        "duplicate": [("checkpoints.db", b"not the snapshot")],
        "deep": [("/".join(["d"] * 50) + "/f", b"x")],
        "unlisted": [("extra.txt", b"x")],
    }
    for why, extra in cases.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile's "Duplicate name" warning
            path = _rezip(bundle, tmp_path / f"{why.replace(' ', '-')}.zip", extra=extra)
        _refused(path)


def test_a_manifest_nested_200000_deep_or_too_large_is_refused_before_it_is_read(
    bundle: Path, tmp_path: Path
) -> None:
    _refused(_rezip(bundle, tmp_path / "deep.zip", raw_manifest=b"[" * 200_000 + b"]" * 200_000))
    big = b'{"files": {}, "pad": "' + b" " * (64 * 2**20) + b'"}'
    _refused(_rezip(bundle, tmp_path / "big.zip", raw_manifest=big), "manifest.json")


def test_ten_thousand_entries_are_refused_by_count(bundle: Path, tmp_path: Path) -> None:
    path = _rezip(bundle, tmp_path / "many.zip", extra=[(f"e/{i}", b"") for i in range(10_000)])
    _refused(path, "10,0")


def test_a_zip_bomb_is_refused_before_it_is_inflated(bundle: Path, tmp_path: Path) -> None:
    """512 MiB of zeros in about 500 KiB, listed with its true size and digest (a consistent
    rewrite) and with the original's size: neither is inflated."""
    import hashlib
    import zipfile

    size, chunk = 512 * 2**20, bytes(2**20)
    digest = hashlib.sha256()
    for _ in range(size // len(chunk)):
        digest.update(chunk)
    for honest in (True, False):
        path = tmp_path / f"bomb-{honest}.zip"
        manifest = _manifest(bundle)
        original = manifest["files"]["history.json"]
        if honest:
            manifest["files"]["history.json"] = {"sha256": digest.hexdigest(), "bytes": size}
        _rezip(bundle, path, manifest=manifest, drop=("history.json",))
        with (
            zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as zf,
            zf.open("history.json", "w", force_zip64=True) as fh,
        ):
            for _ in range(size // len(chunk)):
                fh.write(chunk)
        assert path.stat().st_size < 2 * 2**20 and original["bytes"] < size
        _refused(path, "history.json")


def test_the_bundle_digest_is_printed_to_cite_and_a_consistent_rewrite_shows_another(
    bundle: Path, tmp_path: Path
) -> None:
    """`bundle` prints the zip's sha256 and says it is a checksum, not a signature; reading a
    bundle says its sha256 (stderr) and the report cites it. A bundle rewritten consistently
    (a file and its manifest digest together) opens, and shows another sha256."""
    import hashlib

    from hardening_data import linear_db

    db = linear_db(tmp_path / "checkpoints.db", ["t"])
    out = tmp_path / "fresh.zip"
    code, printed, _ = _run_cli("bundle", str(db), "--thread", "t", "--out", str(out))
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert (
        code == 0
        and f"bundle sha256: {digest}" in printed
        and "checksum, not a signature" in printed
    )
    code, report, err = _run_cli("report", str(out), "--thread", "t")
    assert code == 0 and digest in report and f"sha256 {digest}" in err
    manifest = _manifest(out)
    plan = json.dumps({"forged": True}).encode()
    import hashlib as h

    manifest["files"]["plan.json"] = {"sha256": h.sha256(plan).hexdigest(), "bytes": len(plan)}
    forged = _rezip(
        out,
        tmp_path / "forged.zip",
        manifest=manifest,
        drop=("plan.json",),
        extra=[("plan.json", plan)],
    )
    code, report2, err2 = _run_cli("report", str(forged), "--thread", "t")
    other = hashlib.sha256(forged.read_bytes()).hexdigest()
    assert code == 0 and other != digest and other in report2 and digest not in report2 + err2


# -- 9. round two's leftovers: terminal bytes on the Thread page ------------------------------
TERMINAL = "t\x1b[31mred\x07bell\x9b2Jcsi\x1b]0;title\x07"


def _json_strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _json_strings(k, out)
            _json_strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _json_strings(v, out)


def _strings(message: Any, out: list[str]) -> None:
    """Every string field of a protobuf message, nested ones included."""
    for _field, value in message.ListFields():
        single = isinstance(value, str | bytes | int | float) or hasattr(value, "ListFields")
        for item in [value] if single else value:  # a repeated field: its items
            if isinstance(item, str):
                out.append(item)
                if item[:1] in "{[":  # a chart's spec: its strings are what the browser draws
                    with contextlib.suppress(ValueError, RecursionError):
                        _json_strings(json.loads(item), out)
            elif hasattr(item, "ListFields"):
                _strings(item, out)


def _every_text(at: Any) -> list[str]:
    """Every string an AppTest run sent to the browser: element values, labels, options,
    help texts, and the cells of every table."""
    out: list[str] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if hasattr(proto, "ListFields"):
            _strings(proto, out)
        children = getattr(node, "children", None)
        for child in children.values() if isinstance(children, dict) else []:
            walk(child)

    walk(at._tree)
    for df in at.dataframe:
        out += [str(v) for v in df.value.astype(str).to_numpy().ravel()]
        out += [str(c) for c in df.value.columns]
    return out


@pytest.mark.usefixtures("fresh_streamlit")
@pytest.mark.parametrize("view", ["Checkpoints", "State", "Report"])
def test_terminal_bytes_of_a_thread_id_never_reach_the_thread_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, view: str
) -> None:
    from app_pages import open_page
    from hardening_data import linear_db

    db = linear_db(tmp_path / "served" / "term.db", [TERMINAL, "plain"])
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:  # one damaged row: a problem
        conn.execute("UPDATE checkpoints SET metadata = ? WHERE thread_id = ? AND checkpoint_id = "
                     "(SELECT MIN(checkpoint_id) FROM checkpoints WHERE thread_id = ?)",
                     ('{"step": ' + "9" * 5000 + "}", TERMINAL, TERMINAL))  # fmt: skip
    log = db.with_suffix(".effects.jsonl")  # and a line of the log that is not JSON
    log.write_text(log.read_text() + f'{{"thread_id": {json.dumps(TERMINAL)}, "node": \n')
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(db.parent)]))
    at = open_page("thread", timeout=120, db=str(db), thread=TERMINAL, view=view)
    assert at.selectbox(key="_sel_thread").value == TERMINAL
    texts = _every_text(at)
    assert any("red" in t and "bell" in t for t in texts), "the thread id is shown"
    found = [t for t in texts if any(c in t for c in "\x1b\x07\x9b")]
    assert not found, found[:5]


# -- 7. throw-away servers and graph children never outlive their campaign ---------------------
CAMPAIGN_CHILD = """
import sys
from replaylens.killtest.harness import ChildSpec, child_env, run_child, stop_on_signals
spec = ChildSpec(graph="replaylens.examples.graphs:linear", db=sys.argv[1], thread_id="t",
                 durability="sync", input={"visited": []})
env = child_env(effects_log=sys.argv[2], extra={"REPLAYLENS_EXAMPLE_SLEEP": "120"})
with stop_on_signals():
    run_child(spec, env=env, timeout=300)
"""
CAMPAIGN_SERVER = """
import sys
from replaylens.killtest.harness import stop_on_signals
from replaylens.killtest.pgserver import start_server
with stop_on_signals():
    server = start_server()
    try:
        print("ready", server.process.pid, server.root, flush=True)
        sys.stdin.read()  # until the test signals this process
    finally:
        server.stop()
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone_within(pid: int, seconds: float) -> bool:
    """Whether the process has ended by the deadline (its exit polled: nothing else to wait on)."""
    import time

    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


def _campaign(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib")}
    return subprocess.Popen([sys.executable, "-c", script, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)  # fmt: skip


@pytest.mark.slow  # a campaign whose graph child runs, then its parent is signalled
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_the_graph_child_dies_with_its_campaign(tmp_path: Path, sig: str) -> None:
    """Signalled once the child's node has started (its effect line, written by the child,
    names its pid), the child is gone within seconds, though its node sleeps two minutes."""
    import signal
    import time

    log = tmp_path / "effects.jsonl"
    parent = _campaign(CAMPAIGN_CHILD, str(tmp_path / "c.db"), str(log))
    try:
        deadline = time.monotonic() + 60
        while not (log.exists() and log.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)  # the event: the child's first effect line
        child = json.loads(log.read_text().splitlines()[0])["pid"]
        assert _alive(child) and child != parent.pid
        os.kill(parent.pid, getattr(signal, sig))
        parent.wait(timeout=30)
        assert _gone_within(child, 10), f"the graph child {child} outlived its campaign ({sig})"
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.usefixtures("pg_cluster")  # the server binaries are there (else the fixture says why)
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_the_throw_away_server_dies_with_its_campaign(sig: str) -> None:
    """Signalled on the server's readiness line: its postmaster ends and its folder is removed."""
    import signal

    parent = _campaign(CAMPAIGN_SERVER)
    try:
        assert parent.stdout is not None
        word, pid, root = parent.stdout.readline().split()
        assert word == "ready" and _alive(int(pid)) and Path(root).is_dir()
        os.kill(parent.pid, getattr(signal, sig))
        parent.wait(timeout=30)
        assert _gone_within(int(pid), 20), f"the server {pid} outlived its campaign ({sig})"
        import time

        end = time.monotonic() + 20
        while Path(root).exists() and time.monotonic() < end:
            time.sleep(0.05)  # the watchdog's rmtree, polled
        assert not Path(root).exists(), f"{root} was left behind ({sig})"
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.usefixtures("fresh_streamlit")
def test_the_page_cites_the_bundle_it_reads_and_ignores_a_planted_note(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib
    import shutil

    from app_pages import open_page

    from replaylens.bundle import BUNDLE_NOTE, open_bundle

    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()
    planted = tmp_path / "planted"
    planted.mkdir()
    shutil.copy(bundle.parent / "checkpoints.db", planted / "checkpoints.db")
    (planted / BUNDLE_NOTE).write_text(json.dumps({"bundle": "forged.zip", "sha256": "f" * 64}))
    opened = open_bundle(bundle)
    try:
        captions = {}
        for db in (opened.db, planted / "checkpoints.db"):
            monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(db)]))
            at = open_page("thread", timeout=120, db=str(db), thread="t")
            captions[db] = " ".join(str(c.value) for c in at.caption).replace("\\", "")
    finally:
        opened.close()
    assert digest in captions[opened.db] and "checksum, not a signature" in captions[opened.db]
    assert "f" * 64 not in captions[planted / "checkpoints.db"]
    assert "evidence bundle" not in captions[planted / "checkpoints.db"]


@pytest.mark.usefixtures("pg_cluster")
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM"])
def test_killtest_pg_ephemeral_leaves_no_server_when_killed(tmp_path: Path, sig: str) -> None:
    """The attack as the issue tried it: `replaylens killtest --pg-ephemeral`, signalled once
    its first run is recorded (the progress line; the manifest then names the server's
    port). No postgres on that port, and no graph child, is left running."""
    import re
    import signal

    out = tmp_path / "campaign"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "lib"), str(REPO)])}
    proc = subprocess.Popen([sys.executable, "-m", "replaylens.cli", "killtest", "replaylens.examples.graphs:linear",
                             "--out", str(out), "--pg-ephemeral", "--modes", "sync", "--runs", "3",
                             "--kill-at", "b", "--sleep", "0.5", "--input", '{"visited": []}'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)  # fmt: skip
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # the event: the first run's progress line
        assert line, "the campaign ended before its first run"
        port = re.search(r":(\d+)/", json.loads((out / "manifest.json").read_text())["dsn"]).group(
            1
        )
        servers = [p for p in _pids_with(f"-p\0{port}\0") if p != proc.pid]
        assert servers, "the throw-away server is running"
        children = {p for p in _pids_with(str(out)) if p != proc.pid}
        os.kill(proc.pid, getattr(signal, sig))
        proc.wait(timeout=60)
        for pid in servers:
            assert _gone_within(pid, 30), (
                f"postgres {pid} on port {port} outlived the campaign ({sig})"
            )
        # A child's end after a SIGKILL of its parent is its own (the parent-death signal):
        # its exit is polled with a deadline, as the server's is, not read at once.
        children |= {p for p in _pids_with(str(out)) if p != proc.pid}
        for pid in children:
            assert _gone_within(pid, 30), f"the graph child {pid} outlived the campaign ({sig})"
    finally:
        if proc.poll() is None:
            proc.kill()


def _pids_with(needle: str) -> list[int]:
    """Processes whose command line holds `needle` (arguments joined by NUL)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if needle.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found
