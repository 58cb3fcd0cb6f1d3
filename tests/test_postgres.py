"""The Postgres reader tells the same story as the SQLite reader, and never writes.

The same graphs run with the same inputs and thread ids through `PostgresSaver` (on a
throw-away server, see tests/pg_server.py) and through `SqliteSaver`. Checkpoint and task
ids differ between the two (checkpoint ids are uuid6 timestamps), so the comparison is
by (step, source) for checkpoints and (step, node, status) for tasks. LangGraph's own
answer (`get_state`, `get_tuple`) is read through the PostgresSaver as a second check.
Only the test's writer calls `setup()`; replaylens never does.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from pg_server import PgServer, _free_port, database_fingerprint
from source_threads import GRAPHS, compile_graph, run_sync, write_threads

from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread, summarize_threads
from replaylens.errors import SourceError
from replaylens.examples.graphs import ALL, DEFAULT_INPUTS
from replaylens.model import Thread
from replaylens.sources import _postgres as pg_module
from replaylens.sources import open_source
from replaylens.sources._postgres import PostgresSource, redact_dsn


@contextmanager
def own_database(
    cluster: PgServer, name: str, tmp_path: Path
) -> Iterator[tuple[str, PostgresSaver]]:
    """A fresh database with the saver's tables, for a test that writes threads of its own."""
    dsn = cluster.create_database(name)
    with pytest.MonkeyPatch.context() as mp, PostgresSaver.from_conn_string(dsn) as saver:
        mp.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp_path / "effects.jsonl"))
        mp.setenv("REPLAYLENS_EXAMPLE_SLEEP", "0")
        saver.setup()
        yield dsn, saver


@dataclass
class Pair:
    """The same threads in both backends, and LangGraph's PostgresSaver to ask."""

    dsn: str
    sqlite_db: Path
    threads: list[str]
    saver: PostgresSaver
    pg: PostgresSource
    lite: Any

    def graph(self, name: str) -> Any:
        return compile_graph(name, self.saver)


@pytest.fixture(scope="module")
def pair(pg_dsn: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    tmp = tmp_path_factory.mktemp("pg-conformance")
    with pytest.MonkeyPatch.context() as mp, ExitStack() as stack:
        # each backend's run logs its own effects, as one deployment's log goes with its store
        mp.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp / "pg.effects.jsonl"))
        mp.setenv("REPLAYLENS_EXAMPLE_SLEEP", "0")
        saver = stack.enter_context(PostgresSaver.from_conn_string(pg_dsn))
        saver.setup()  # the test's writer creates the tables; replaylens never would
        threads = write_threads(saver, mp)
        mp.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp / "effects.jsonl"))
        conn = sqlite3.connect(tmp / "same.db", check_same_thread=False)
        stack.callback(conn.close)
        assert write_threads(SqliteSaver(conn), mp) == threads
        pg, lite = open_source(pg_dsn), open_source(tmp / "same.db")
        stack.callback(pg.close)
        stack.callback(lite.close)
        assert isinstance(pg, PostgresSource)
        yield Pair(pg_dsn, tmp / "same.db", threads, saver, pg, lite)


def graph_of(thread_id: str) -> str:
    return next(g for g in sorted(GRAPHS, key=len, reverse=True) if thread_id.startswith(g))


# --------------------------------------------------------------------------- conformance
def summary_view(source: Any) -> list[tuple[Any, ...]]:
    summaries, problems = summarize_threads(source)
    assert not problems
    return [
        (s.thread_id, s.checkpoints, s.namespaces, s.latest_step, s.status, s.pending)
        for s in summaries
    ]


def thread_view(thread: Thread) -> dict[str, Any]:
    """What must not depend on the backend: namespaces by kind, steps, sources, tasks, verdict."""
    namespaces = sorted(
        (
            ns.name.split(":", 1)[0],
            [
                (
                    cp.step,
                    cp.source,
                    sorted(cp.record.present_channels),
                    sorted((t.step, t.node, t.status) for t in cp.tasks),
                )
                for cp in ns.checkpoints
            ],
        )
        for ns in thread.namespaces.values()
    )
    return {
        "namespaces": namespaces,
        "orphans": len(thread.orphan_writes),
        "plan": plan_resume(thread, None, thread.thread_id).status,
        "problems": thread.problems,
    }


def test_thread_list_matches_sqlite(pair: Pair) -> None:
    pg, lite = summary_view(pair.pg), summary_view(pair.lite)
    assert pg == lite
    assert [row[0] for row in pg] == sorted(pair.threads)
    assert {row[4] for row in pg} == {"completed", "interrupted", "failed"}


def test_thread_list_pages_by_keyset_and_agrees_with_sqlite(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of 2 threads (keyset on thread_id) give the list one page gives, and the
    first screen's step, the writes counts and cache identity agree across backends."""
    from replaylens.sources import _postgres

    whole = pair.pg.thread_index()
    monkeypatch.setattr(_postgres, "THREAD_PAGE", 2)
    paged = pair.pg.thread_index()
    assert paged == whole and len(whole) > 4, "several pages"
    lite = pair.lite.thread_index()
    lite_keys = pair.lite.writes_keys(
        {r.thread_id: r.latest_checkpoint_id for r in lite if r.latest_checkpoint_id}
    )
    pg_keys = pair.pg.writes_keys(
        {r.thread_id: r.latest_checkpoint_id for r in paged if r.latest_checkpoint_id}
    )
    # Both lists are index-only: the writes keys are asked apart, batch by batch.
    assert all(r.writes_key is None for r in paged if r.latest_checkpoint_id)
    assert [
        (r.thread_id, r.checkpoints, r.latest_step, pg_keys.get(r.thread_id, "")) for r in paged
    ] == [
        (r.thread_id, r.checkpoints, r.latest_step, lite_keys.get(r.thread_id, "").split(":")[0])
        for r in lite
    ]
    assert all(r.updated_at for r in paged if r.latest_checkpoint_id), "the time from the id"
    assert pair.pg.cache_identity() != pair.lite.cache_identity()
    secret = _postgres.dsn_password(pair.dsn)
    assert secret and secret not in pair.pg.cache_identity(), (
        "the password never reaches the cache key"
    )


def test_every_thread_matches_sqlite(pair: Pair) -> None:
    seen_orphans = 0
    for tid in pair.threads:
        pg, lite = thread_view(load_thread(pair.pg, tid)), thread_view(load_thread(pair.lite, tid))
        assert pg == lite, tid
        seen_orphans += pg["orphans"]
    assert seen_orphans == 1, "the orphan write must be seen by both readers"


def test_big_values_stay_on_the_server_until_asked_for(
    pg_cluster: PgServer, tmp_path: Path
) -> None:
    """A 2 MB inline string and a 2 MB blob: the skeleton rows stay small, the values load on demand."""
    with (
        own_database(pg_cluster, "replaylens_big", tmp_path) as (dsn, saver),
        PostgresSource(dsn) as source,
    ):
        _check_big_values(dsn, saver, source)


def _check_big_values(dsn: str, saver: PostgresSaver, source: PostgresSource) -> None:
    big = "x" * 2_000_000
    payload = {"invoice_id": big, "visited": [big]}  # str: inline in the JSONB; list: a blob
    run_sync(compile_graph("payment", saver), payload, "big-payment")
    with psycopg.connect(dsn) as conn, conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        cur.execute(f"{pg_module.SKELETON_SELECT} WHERE c.thread_id = %s", ("big-payment",))
        rows = cur.fetchall()
    # Only the input checkpoint carries the input itself: `__start__` is a scheduling channel.
    with_input = [r for r in rows if "__start__" in (r["sched_channels"] or [])]
    assert len(with_input) == 1 and len(rows) > 1
    assert max(len(repr(r)) for r in rows if r not in with_input) < 10_000
    thread = load_thread(source, "big-payment")
    latest = thread.root.latest
    assert latest is not None and {"invoice_id", "visited"} <= latest.record.present_channels
    assert latest.record.blob_size > 2_000_000 // 100  # the sizes are counted (compressed)
    values = source.read_channel_values("big-payment", "", latest.checkpoint_id)
    assert values["invoice_id"].value == big and values["visited"].value[0] == big
    config = {
        "configurable": {
            "thread_id": "big-payment",
            "checkpoint_ns": "",
            "checkpoint_id": latest.checkpoint_id,
        }
    }
    assert {k: r.value for k, r in values.items()} == saver.get_tuple(config).checkpoint[
        "channel_values"
    ]


def test_a_dropped_connection_is_reopened(pair: Pair) -> None:
    source = PostgresSource(pair.dsn)
    with psycopg.connect(pair.dsn, autocommit=True) as admin:
        pid = source._conn.info.backend_pid
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    assert summary_view(source) == summary_view(pair.pg)
    assert source._conn.info.backend_pid != pid
    source.close()


# --------------------------------------------------------------------------- read-only
def test_replaylens_never_writes(pair: Pair) -> None:
    before = database_fingerprint(pair.dsn)
    source = open_source(pair.dsn)
    try:
        summarize_threads(source)
        for tid in pair.threads:
            thread = load_thread(source, tid)
            latest = thread.root.latest if thread.root else None
            if latest is not None:
                source.read_channel_values(tid, "", latest.checkpoint_id)
        source.identity()
        source.server_settings()
        with source._transaction() as cur:
            cur.execute("SHOW transaction_read_only")
            assert cur.fetchone()["transaction_read_only"] == "on"
            cur.execute(
                "SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()"
            )
            assert cur.fetchone()["application_name"] == "replaylens"
        with pytest.raises(SourceError, match="read-only transaction"):
            with source._transaction() as cur:
                cur.execute("DELETE FROM checkpoint_writes")
        summarize_threads(source)  # the connection is usable after the refused write
    finally:
        source.close()
    assert database_fingerprint(pair.dsn) == before


def test_server_settings_and_identity(pg_cluster: PgServer, tmp_path: Path) -> None:
    with (
        own_database(pg_cluster, "replaylens_identity", tmp_path) as (dsn, saver),
        PostgresSource(dsn) as source,
    ):
        settings = source.server_settings()
        assert settings["synchronous_commit"] == "on"
        assert settings["server_version"][:2].isdigit()
        before = source.identity()
        summarize_threads(source)
        assert source.identity() == before, "reading must not change the identity"
        run_sync(compile_graph("linear", saver), DEFAULT_INPUTS["linear"], "identity-probe")
        assert source.identity() != before, "a committed write must change it at once"


def test_statement_timeout_gives_a_sentence(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_module, "STATEMENT_TIMEOUT_MS", 300)
    source = PostgresSource(pair.dsn)
    with psycopg.connect(pair.dsn) as locker:
        locker.execute("LOCK TABLE checkpoints IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        with pytest.raises(SourceError) as info:
            source.thread_index()
        assert time.monotonic() - started < 5
    assert "took longer than" in str(info.value)
    assert source.thread_index(), "the source recovers once the lock is gone"
    source.close()


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "bad",
    ["wrong_password", "refused", "no_database", "no_user", "no_tables", "other_app", "not_jsonb"],
)
def test_unopenable_databases_get_one_sentence(bad: str, pg_cluster: PgServer) -> None:
    secret = "s3cret-NOT-the-password"
    dsn = pg_cluster.dsn("replaylens_test")
    if bad == "wrong_password":
        dsn = pg_cluster.dsn("replaylens_test", password=secret)
    elif bad == "refused":
        dsn = pg_cluster.dsn("replaylens_test", port=_free_port())
    elif bad == "no_database":
        dsn = pg_cluster.dsn("no_such_db")
    elif bad == "no_user":
        dsn = dsn.replace("postgresql://postgres:", "postgresql://nobody_here:")
    else:
        dsn = pg_cluster.create_database(f"replaylens_{bad}")
        with psycopg.connect(dsn) as conn:
            if bad == "other_app":
                conn.execute("CREATE TABLE notes (body TEXT)")
                conn.execute("CREATE TABLE checkpoints (id INT)")
            elif bad == "not_jsonb":  # the saver's columns, but the checkpoint is a blob
                conn.execute(
                    "CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
                    "parent_checkpoint_id TEXT, checkpoint BYTEA, metadata JSONB)"
                )
                conn.execute(
                    "CREATE TABLE checkpoint_blobs (thread_id TEXT, checkpoint_ns TEXT, channel TEXT, "
                    "version TEXT, type TEXT, blob BYTEA)"
                )
                conn.execute(
                    "CREATE TABLE checkpoint_writes (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
                    "task_id TEXT, idx INT, channel TEXT, type TEXT, blob BYTEA)"
                )
    started = time.monotonic()
    with pytest.raises(SourceError) as info:
        open_source(dsn)
    message = str(info.value)
    assert time.monotonic() - started < 5
    assert message.startswith(redact_dsn(dsn)) and message.endswith(".") and "\n" not in message
    assert secret not in message and pg_cluster.password not in message
    expected = {
        "wrong_password": "user name or password",
        "refused": "connection refused",
        "no_database": "the database 'no_such_db' does not exist",
        "no_user": "user name or password",  # scram does not say which of the two
        "no_tables": "not a LangGraph checkpoint database",
        "other_app": "no checkpoint_blobs or checkpoint_writes table",
        "not_jsonb": "checkpoints.checkpoint is bytea, not jsonb",
    }[bad]
    assert expected in message


def test_a_database_without_task_path_opens(
    pg_cluster: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before migration 9 checkpoint_writes had no task_path: read it, say so, leave paths blank."""
    dsn = pg_cluster.create_database("replaylens_legacy")
    monkeypatch.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp_path / "e.jsonl"))
    monkeypatch.setenv("REPLAYLENS_EXAMPLE_SLEEP", "0")
    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        run_sync(ALL["linear"]().compile(checkpointer=saver), DEFAULT_INPUTS["linear"], "old")
        saver.conn.execute("ALTER TABLE checkpoint_writes DROP COLUMN task_path")
    with PostgresSource(dsn) as source:
        assert any("task_path" in note for note in source.notes)
        summaries, problems = summarize_threads(source)
        assert [(s.thread_id, s.status) for s in summaries] == [
            ("old", "completed")
        ] and not problems
        thread = load_thread(source, "old")
        writes = [
            w for ns in thread.namespaces.values() for cp in ns.checkpoints for w in cp.writes
        ]
        assert writes and all(w.task_path == "" for w in writes)


def test_a_missing_psycopg_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` now raises ImportError
    with pytest.raises(SourceError) as info:
        open_source("postgresql://u:hunter2@db.example/lg")
    assert str(info.value) == (
        "postgresql://u@db.example/lg: reading a PostgreSQL checkpoint database needs psycopg 3, "
        "which is not installed (pip install 'psycopg[binary]>=3.2')."
    )


@pytest.mark.parametrize(
    ("dsn", "label"),
    [
        ("postgresql://u:p%40ss@db.example:5432/lg", "postgresql://u@db.example:5432/lg"),
        ("postgres://u:p@ss@h/lg?sslmode=require&password=x", "postgres://u@h/lg?sslmode=require"),
        ("postgresql://h1:5432,h2:5433/lg?password=x", "postgresql://h1:5432,h2:5433/lg"),
        ("postgresql:///lg", "postgresql:///lg"),
    ],
)
def test_labels_never_carry_the_password(dsn: str, label: str) -> None:
    assert redact_dsn(dsn) == label


def test_psycopg_is_imported_only_for_a_postgres_dsn(pair: Pair) -> None:
    code = (
        "import sys; from replaylens.sources import open_source; import replaylens.cli; "
        f"open_source({str(pair.sqlite_db)!r}).thread_index(); print('psycopg' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "lib"), str(root)])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "False"


def test_cli_over_postgres_shows_synchronous_commit_and_never_the_password(
    pair: Pair, capsys: pytest.CaptureFixture[str]
) -> None:
    from urllib.parse import urlsplit

    from replaylens.cli import main

    password = urlsplit(pair.dsn).password
    assert password, "the test server must use a password for this check to mean anything"
    thread = next(t for t in pair.threads if t.startswith("linear"))
    outputs = []
    for argv in (
        ["threads", pair.dsn],
        ["replay", pair.dsn, "--thread", thread],
        ["replay", pair.dsn, "--thread", thread, "--json"],
        ["report", pair.dsn, "--thread", thread],
        ["thread", pair.dsn, "--thread", "no-such-thread"],
    ):
        main(argv)
        captured = capsys.readouterr()
        outputs.append(captured.out + captured.err)
    assert all(password not in text for text in outputs)
    assert "synchronous_commit = on" in outputs[1]
    assert json.loads(outputs[2])["backend"]["synchronous_commit"] == "on"
    assert "synchronous_commit" in outputs[3]


def test_dashboard_opens_a_postgres_source_and_never_shows_the_password(
    pair: Pair, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`replaylens serve postgresql://…` in the app: the DSN arrives through the environment,
    the Threads page lists the same threads as SQLite, and no element shows the password."""
    from urllib.parse import urlsplit

    import streamlit as st
    from app_pages import open_page

    from replaylens._serve import build_command
    from replaylens.cli import build_parser

    password = urlsplit(pair.dsn).password
    assert password
    args = build_parser().parse_args(["serve", pair.dsn, "--port", "9999"])
    assert all(password not in part for part in build_command(args)), (
        "a password on argv shows in ps"
    )
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(tmp_path)]))
    monkeypatch.setenv("REPLAYLENS_SERVE_DSNS", json.dumps([pair.dsn]))
    monkeypatch.setenv("REPLAYLENS_UPLOAD_DIR", str(tmp_path / "uploads"))
    st.cache_data.clear()
    st.cache_resource.clear()
    try:
        at = open_page("threads")
        listed = set(at.dataframe[0].value["thread"])
        assert listed == {s.thread_id for s in summarize_threads(pair.lite)[0]}
        shown = " ".join(
            str(e.value)
            for kind in ("markdown", "caption", "info", "error", "warning", "selectbox")
            for e in getattr(at, kind)
        )
        assert password not in shown and password not in json.dumps(dict(at.query_params))
    finally:
        st.cache_data.clear()
        st.cache_resource.clear()


def test_incident_over_postgres_equals_its_sqlite_twin(pair: Pair) -> None:
    """The incident view on Postgres (the shortcut, with its orphan-write scan) gives the
    statuses, counts and routes it gives on the same threads in SQLite."""
    from replaylens.analysis.incident import collect
    from replaylens.effects.parse import read_effects

    # Each run with its own log: one log holding both runs' lines under the same thread ids
    # would show each database the other run's tasks, which ran after its own checkpoints.
    folder = pair.sqlite_db.parent
    pg = collect(pair.pg, read_effects(folder / "pg.effects.jsonl"))
    lite = collect(pair.lite, read_effects(folder / "effects.jsonl"))
    assert "fast" in {t.route for t in pg.threads}

    def view(inc: Any) -> list[tuple[Any, ...]]:
        # The two runs' parallel tasks (b and b2 of the failing graph) log in whichever order
        # their threads ran, and a rerun found in the log is listed in log order: compare the
        # tasks that run again, not the order the two recordings happened to give them.
        return [
            (t.thread_id, t.status, t.times_again, sorted(t.reruns), t.route) for t in inc.threads
        ]

    assert view(pg) == view(lite) and len(pg.threads) == len(pair.threads)
    assert pg.total_times_again > 0
