"""One conformance suite, run unchanged against every checkpoint source (SQLite, Postgres),
as LangGraph's checkpoint libraries run one suite against every saver.

Each backend gets the same threads written by LangGraph's own saver for it (SqliteSaver,
PostgresSaver on a throw-away server), and every test compares what the replaylens source
reads with what that saver itself answers (`get_state`, `get_tuple`) on the same data, and
checks that reading changed nothing. Cross-backend equality (the two backends telling the
same story) is in test_postgres.py.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from source_threads import (
    GRAPHS,
    ORPHAN_CHECKPOINT,
    ORPHAN_THREAD,
    compile_graph,
    expected_status,
    write_threads,
)

from replaylens.analysis.status import load_thread, summarize_threads
from replaylens.decode import to_jsonable
from replaylens.sources import CheckpointSource, open_source


@dataclass
class Backend:
    """One backend with the threads written into it, its saver, and a way to fingerprint it."""

    name: str
    source: CheckpointSource
    saver: Any
    threads: list[str]
    checkpoint_rows: Callable[[], int]
    fingerprint: Callable[[], Any]
    effects_log: Path | None = None

    def graph(self, thread_id: str) -> Any:
        return compile_graph(next(g for g in sorted(GRAPHS, key=len, reverse=True) if thread_id.startswith(g)),
                             self.saver)  # fmt: skip


def _file_fingerprint(db: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in db.parent.glob(db.name + "*")}


def _sqlite_backend(stack: ExitStack, tmp: Path, mp: pytest.MonkeyPatch) -> Backend:
    db = tmp / "conformance.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    stack.callback(conn.close)
    saver = SqliteSaver(conn)
    threads = write_threads(saver, mp)
    source = open_source(db)
    stack.callback(source.close)

    def rows() -> int:
        return conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0]

    return Backend("sqlite", source, saver, threads, rows, lambda: _file_fingerprint(db))


def _postgres_backend(
    stack: ExitStack, request: pytest.FixtureRequest, mp: pytest.MonkeyPatch
) -> Backend:
    from langgraph.checkpoint.postgres import PostgresSaver
    from pg_server import database_fingerprint

    cluster = request.getfixturevalue("pg_cluster")
    dsn = cluster.create_database("replaylens_conformance")
    saver = stack.enter_context(PostgresSaver.from_conn_string(dsn))
    saver.setup()  # the test's writer creates the tables; replaylens never would
    threads = write_threads(saver, mp)
    source = open_source(dsn)
    stack.callback(source.close)

    def rows() -> int:
        with saver.conn.cursor() as cur:
            return cur.execute("SELECT COUNT(*) AS n FROM checkpoints").fetchone()["n"]

    return Backend("postgres", source, saver, threads, rows, lambda: database_fingerprint(dsn))


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    tmp = tmp_path_factory.mktemp(f"conformance-{request.param}")
    with pytest.MonkeyPatch.context() as mp, ExitStack() as stack:
        mp.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp / "effects.jsonl"))
        mp.setenv("REPLAYLENS_EXAMPLE_SLEEP", "0")
        if request.param == "sqlite":
            made = _sqlite_backend(stack, tmp, mp)
        else:
            made = _postgres_backend(stack, request, mp)
        made.effects_log = tmp / "effects.jsonl"
        yield made


def test_thread_list_names_every_thread_with_its_status(backend: Backend) -> None:
    summaries, problems = summarize_threads(backend.source)
    assert not problems
    assert [s.thread_id for s in summaries] == sorted(backend.threads)
    status = {s.thread_id: s.status for s in summaries}
    assert status["payment-interrupted"] == "interrupted" and status["failing-failed"] == "failed"
    assert status["linear"] == "completed"


def test_derived_tasks_equal_get_state_on_every_checkpoint(backend: Backend) -> None:
    compared, mismatches = 0, []
    for tid in backend.threads:
        graph = backend.graph(tid)
        for ns in load_thread(backend.source, tid).namespaces.values():
            for cp in ns.checkpoints:
                config = {"configurable": {"thread_id": tid, "checkpoint_ns": ns.name,
                                           "checkpoint_id": cp.checkpoint_id}}  # fmt: skip
                want = sorted(
                    (t.name, t.id, expected_status(t)) for t in graph.get_state(config).tasks
                )
                got = sorted((t.node, t.task_id, t.status) for t in cp.tasks if t.derived)
                compared += 1
                if want != got:
                    mismatches.append(f"{tid} ns={ns.name!r} step={cp.step}: {want} != {got}")
    assert not mismatches, "\n".join(mismatches[:10])
    assert compared == backend.checkpoint_rows(), "every checkpoint row must be compared"


def test_channel_values_equal_the_savers_own(backend: Backend) -> None:
    compared = 0
    for tid in ("send_map_reduce", "subgraph", "payment-interrupted", "loop"):
        for ns in load_thread(backend.source, tid).namespaces.values():
            for cp in ns.checkpoints:
                config = {"configurable": {"thread_id": tid, "checkpoint_ns": ns.name,
                                           "checkpoint_id": cp.checkpoint_id}}  # fmt: skip
                want = backend.saver.get_tuple(config).checkpoint["channel_values"]
                got = backend.source.read_channel_values(tid, ns.name, cp.checkpoint_id)
                # Compared as data: replaylens rebuilds Send/Interrupt as plain records.
                assert to_jsonable({k: r.value for k, r in got.items()}) == to_jsonable(want), (
                    tid,
                    ns.name,
                    cp.step,
                )
                assert not any(r.error for r in got.values())
                assert set(got) == cp.record.present_channels
                compared += 1
    assert compared > 20
    assert backend.source.read_channel_values(ORPHAN_THREAD, "", ORPHAN_CHECKPOINT) == {}


def test_read_latest_can_be_limited_to_some_threads(backend: Backend) -> None:
    rows = backend.source.read_latest(["linear", "payment-interrupted"])
    assert sorted(r.thread_id for r in rows.checkpoints) == ["linear", "payment-interrupted"]
    assert {w.thread_id for w in rows.writes} <= {"linear", "payment-interrupted"}
    assert any(w.channel == "__interrupt__" for w in rows.writes)


def test_orphan_writes_are_seen_and_not_applied(backend: Backend) -> None:
    thread = load_thread(backend.source, ORPHAN_THREAD)
    assert [(w.checkpoint_id, w.channel) for w in thread.orphan_writes] == [
        (ORPHAN_CHECKPOINT, "visited")
    ]
    assert thread.root is not None and all(
        cp.checkpoint_id != ORPHAN_CHECKPOINT for cp in thread.root.checkpoints
    )


def test_reading_everything_changes_nothing(backend: Backend) -> None:
    before = backend.fingerprint()
    summarize_threads(backend.source)
    for tid in backend.threads:
        thread = load_thread(backend.source, tid)
        for ns in thread.namespaces.values():
            if ns.latest is not None:
                backend.source.read_channel_values(tid, ns.name, ns.latest.checkpoint_id)
    backend.source.identity()
    assert backend.fingerprint() == before


def test_a_status_cache_sees_every_change(backend: Backend, tmp_path: Path) -> None:
    """The status cache's fast path: a source's change marks name exactly the threads that
    gained rows since they were taken (or the source says it cannot tell, and every key is
    checked), and statuses from a cache after the change equal freshly derived ones.
    Writes: runs last for each backend."""
    from source_threads import run_sync

    from replaylens.cache import StatusCache
    from replaylens.examples.graphs import DEFAULT_INPUTS

    key = backend.source.cache_identity()
    before = {
        s.thread_id: s
        for s in summarize_threads(backend.source, cache=StatusCache(key, tmp_path))[0]
    }
    marks = backend.source.change_marks()
    assert (marks is None) == (backend.name == "postgres"), (
        "SQLite has rowids to mark, Postgres none"
    )
    if marks is None:
        assert backend.source.changed_since({}) is None
    run_sync(
        backend.graph("linear"), DEFAULT_INPUTS["linear"], "linear"
    )  # new checkpoints and writes
    if marks is not None:
        assert backend.source.changed_since(marks) == {"linear"}
    cached = summarize_threads(backend.source, cache=StatusCache(key, tmp_path))[0]
    fresh = summarize_threads(backend.source)[0]
    assert [s.to_json() for s in cached] == [s.to_json() for s in fresh]
    after = {s.thread_id: s for s in cached}
    assert after["linear"].checkpoints > before["linear"].checkpoints
    assert after["linear"].latest_checkpoint_id != before["linear"].latest_checkpoint_id


def test_orphan_write_scan_names_the_writes_load_thread_calls_orphans(backend: Backend) -> None:
    scanned = sorted((t, ns, task, n) for t, ns, task, n, _b in backend.source.orphan_write_tasks())
    seen: dict[tuple[str, str, str], int] = {}
    for tid in backend.threads:
        for w in load_thread(backend.source, tid).orphan_writes:
            key = (tid, w.checkpoint_ns, w.task_id)
            seen[key] = seen.get(key, 0) + 1
    assert scanned == sorted((*k, n) for k, n in seen.items()) and scanned


def test_incident_fast_path_gives_the_full_plans_answers(backend: Backend) -> None:
    """The incident view's shortcut (latest checkpoints, orphan scan) on this backend: the same
    status and times-again as load_thread + plan_resume on every thread, and it is taken."""
    from replaylens.analysis.incident import collect
    from replaylens.analysis.resume import plan_resume
    from replaylens.effects.parse import read_effects

    assert backend.effects_log is not None
    log = read_effects(backend.effects_log)
    incident = collect(backend.source, log)
    routes = {t.route for t in incident.threads}
    assert "fast" in routes, routes
    for t in incident.threads:
        thread = (
            load_thread(backend.source, t.thread_id) if t.thread_id in backend.threads else None
        )
        plan = plan_resume(thread, log, t.thread_id)
        again = sum(1 for a in plan.attempts if a.verdict in ("replays", "restart"))
        assert (t.status, t.times_again) == (plan.status, again), (t.thread_id, t.route)
