"""The reader's derivations agree with LangGraph's own answer on every checkpoint.

For each corpus database (real graphs, every shape and durability mode, interrupted,
failed, killed with SIGKILL, forked, legacy schema, rollback journal) the tasks derived
without graph code are compared, id by id, with `graph.get_state(config).tasks` for the
same checkpoint. LangGraph reads a private copy: its saver runs `setup()`, which writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from evidence_files import private_copy
from langgraph.checkpoint.sqlite import SqliteSaver
from source_threads import expected_status

from corpus import Corpus, CorpusEntry
from replaylens.analysis.status import load_thread, summarize_threads, thread_status
from replaylens.examples.graphs import ALL
from replaylens.killtest.harness import build_graph
from replaylens.sources import open_source


@contextmanager
def langgraph_on_copy(entry: CorpusEntry, tmp_path: Path) -> Iterator[Any]:
    copy = private_copy(entry.db, tmp_path / f"lg-{entry.name}.db")
    conn = sqlite3.connect(copy, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        yield build_graph(ALL[entry.graph], saver)
    finally:
        conn.close()


def comparable_entries(corpus: Corpus) -> list[CorpusEntry]:
    return [e for e in corpus if e.kind != "resumed_after_kill" or e.variant == "plain"]


def rows_in(db: Path, thread_id: str, tmp_path: Path) -> int:
    """Checkpoint rows of a thread, counted by SQLite itself on a private copy."""
    with sqlite3.connect(private_copy(db, tmp_path / "count.db")) as conn:
        return conn.execute(
            "SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (thread_id,)
        ).fetchone()[0]


def test_next_tasks_match_get_state_on_every_checkpoint(corpus: Corpus, tmp_path: Path) -> None:
    compared = namespaces_seen = rows = 0
    kinds_seen: set[str] = set()
    mismatches: list[str] = []
    for entry in comparable_entries(corpus):
        source = open_source(entry.db)
        with langgraph_on_copy(entry, tmp_path) as graph:
            for tid in entry.thread_ids:
                summary = {s.thread_id for s in summarize_threads(source)[0]}
                if tid not in summary:
                    continue  # an exit-mode kill: no checkpoint at all
                thread = load_thread(source, tid)
                rows += rows_in(entry.db, tid, tmp_path)
                for ns in thread.namespaces.values():
                    namespaces_seen += bool(ns.name)
                    for cp in ns.checkpoints:
                        config = {
                            "configurable": {
                                "thread_id": tid,
                                "checkpoint_ns": ns.name,
                                "checkpoint_id": cp.checkpoint_id,
                            }
                        }
                        state = graph.get_state(config)
                        want = sorted((t.name, t.id, expected_status(t)) for t in state.tasks)
                        got = sorted(
                            (t.node, t.task_id, t.status) for t in cp.tasks
                        )  # derived or not
                        compared += 1
                        kinds_seen.add(entry.kind)
                        if want != got:
                            mismatches.append(
                                f"{entry.name} {tid} ns={ns.name!r} step={cp.step}: {want} != {got}"
                            )
        source.close()
    assert not mismatches, "\n".join(mismatches[:10])
    assert compared == rows, "every checkpoint row of every thread must be compared"
    assert namespaces_seen > 0, "subgraph namespaces must be compared too"
    assert {"completed", "interrupted", "failed", "killed"} <= kinds_seen


def test_thread_index_matches_plain_sql_aggregates(corpus: Corpus, tmp_path: Path) -> None:
    """The index's seeks give what the obvious aggregate query gives, subgraphs included."""
    compared = nested = 0
    for entry in corpus:
        with sqlite3.connect(private_copy(entry.db, tmp_path / "index.db")) as conn:
            want = conn.execute(
                "SELECT thread_id, COUNT(*), COUNT(DISTINCT checkpoint_ns), "
                "MAX(CASE WHEN checkpoint_ns = '' THEN checkpoint_id END) FROM checkpoints "
                "GROUP BY thread_id ORDER BY thread_id"
            ).fetchall()
        source = open_source(entry.db)
        got = [
            (r.thread_id, r.checkpoints, r.namespaces, r.latest_checkpoint_id)
            for r in source.thread_index()
        ]
        source.close()
        assert got == want, entry.name
        compared += len(got)
        nested += sum(1 for row in got if row[2] > 1)
    assert compared > 100 and nested > 0, (compared, nested)


def test_first_screen_step_time_and_writes_key_agree_with_the_rows(
    corpus: Corpus, tmp_path: Path
) -> None:
    """The SQL thread list reads the latest step and time from the checkpoint id (no row is
    read): they must equal the metadata's step and the blob's ts the derivation reads, and
    the writes key must count the latest checkpoint's writes."""
    from replaylens.times import iso_to_epoch

    compared = 0
    for entry in corpus:
        source = open_source(entry.db)
        index = {r.thread_id: r for r in source.thread_index()}
        keys = source.writes_keys(
            {t: r.latest_checkpoint_id for t, r in index.items() if r.latest_checkpoint_id}
        )
        summaries = summarize_threads(source)[0]
        latest = {rec.thread_id: rec for rec in source.read_latest().checkpoints}
        writes = source.read_latest().writes
        source.close()
        for s in summaries:
            row = index[s.thread_id]
            if row.latest_checkpoint_id is None:
                continue
            assert row.latest_step == s.latest_step == latest[s.thread_id].step, (
                entry.name,
                s.thread_id,
            )
            ts, id_ts = iso_to_epoch(s.updated_at), iso_to_epoch(row.updated_at)
            assert ts is not None and id_ts is not None and abs(ts - id_ts) < 0.5, (
                entry.name,
                s.updated_at,
                row.updated_at,
            )
            n = sum(
                1
                for w in writes
                if w.thread_id == s.thread_id and w.checkpoint_id == row.latest_checkpoint_id
            )
            assert row.writes_key is None, "the SQLite list leaves the writes key to writes_keys"
            assert keys[s.thread_id].split(":")[0] == str(n), (
                entry.name,
                s.thread_id,
                keys[s.thread_id],
                n,
            )
            compared += 1
    assert compared > 100, compared


def test_the_time_in_a_checkpoint_id_is_written_as_datetime_writes_it() -> None:
    """The thread list's times come from the ids, put together from integers for speed: they
    must be the very text `datetime.isoformat()` gives (whole seconds drop the fraction)."""
    import datetime as dt
    import random

    from langgraph.checkpoint.base.id import uuid6

    from replaylens.times import checkpoint_id_time

    rng = random.Random(7)
    ids = [str(uuid6(clock_seq=rng.randrange(16384))) for _ in range(500)]
    for _ in range(500):  # across the whole range of a v6 id, a third on whole seconds
        digits = f"{rng.getrandbits(60):015x}"
        ids.append(f"{digits[:8]}-{digits[8:12]}-6{digits[12:15]}-8000-000000000000")
    whole = dt.datetime(2026, 12, 1, 12, 0, 0, tzinfo=dt.UTC) - dt.datetime(
        1582, 10, 15, tzinfo=dt.UTC
    )
    stamp = f"{int(whole.total_seconds()) * 10_000_000:015x}"
    ids.append(f"{stamp[:8]}-{stamp[8:12]}-6{stamp[12:15]}-8000-000000000000")
    for cid in ids:
        h = cid.replace("-", "")
        ticks = int(h[:12] + h[13:16], 16)  # 100 ns since the Gregorian epoch
        when = dt.datetime(1582, 10, 15, tzinfo=dt.UTC) + dt.timedelta(microseconds=ticks // 10)
        want = when.isoformat() if when.year >= 1970 else None
        assert checkpoint_id_time(cid) == want, cid
    assert checkpoint_id_time(ids[-1]) == "2026-12-01T12:00:00+00:00"


def test_thread_status_agrees_with_get_state(corpus: Corpus, tmp_path: Path) -> None:
    checked: dict[str, int] = {}
    for entry in comparable_entries(corpus):
        source = open_source(entry.db)
        summaries = {s.thread_id: s for s in summarize_threads(source)[0]}
        with langgraph_on_copy(entry, tmp_path) as graph:
            for tid in entry.thread_ids:
                state = graph.get_state({"configurable": {"thread_id": tid}})
                if tid not in summaries:
                    assert not state.tasks and state.values in ({}, None)
                    continue
                status = thread_status(load_thread(source, tid))
                assert summaries[tid].status == status, (
                    f"{entry.name} {tid}: list and detail disagree"
                )
                statuses = {expected_status(t) for t in state.tasks}
                if not state.tasks:
                    want = "completed"
                elif "failed" in statuses:
                    want = "failed"
                elif "interrupted" in statuses:
                    want = "interrupted"
                else:
                    want = "resumable"
                assert status == want, f"{entry.name} {tid}"
                checked[status] = checked.get(status, 0) + 1
        source.close()
    assert {"completed", "interrupted", "failed", "resumable"} <= set(checked), checked


def test_functional_api_tasks_come_from_writes(corpus: Corpus) -> None:
    entry = next(e for e in corpus if e.graph == "functional" and e.kind == "completed")
    source = open_source(entry.db)
    thread = load_thread(source, entry.thread_ids[0])
    calls = [c for ns in thread.namespaces.values() for cp in ns.checkpoints for c in cp.calls]
    assert calls, "the @task calls must appear from their writes rows"
    # under the entrypoint that made them, not as tasks of `next` (get_state lists only it)
    assert all(t.kind == "call" and not t.derived and t.parent_task_id for t in calls)
    assert not any(
        t.kind == "call"
        for ns in thread.namespaces.values()
        for cp in ns.checkpoints
        for t in cp.tasks
    )
    assert all(t.status == "finished" and t.reused_on_resume for t in calls)
    assert all(any(w.channel == "__return__" for w in t.writes) for t in calls)


def test_forks_and_special_channels_are_reconstructed(corpus: Corpus) -> None:
    fork = next(e for e in corpus if e.variant == "fork")
    thread = load_thread(open_source(fork.db), fork.thread_ids[0])
    assert thread.root is not None and thread.root.forks, "time travel must show as a fork"
    assert any(c.source == "update" for c in thread.root.checkpoints)
    payment = next(e for e in corpus if e.graph == "payment" and e.kind == "interrupted")
    source = open_source(payment.db)
    channels = {
        w.channel
        for tid in payment.thread_ids
        for ns in load_thread(source, tid).namespaces.values()
        for cp in ns.checkpoints
        for w in cp.writes
    }
    assert {"__interrupt__"} <= channels


def test_orphan_writes_are_flagged_in_the_async_slow_put_kill(corpus: Corpus) -> None:
    entry = corpus.get("linear-async-orphan-killed")
    thread = load_thread(open_source(entry.db), entry.thread_ids[0])
    orphans = thread.orphan_writes
    assert orphans, "writes whose checkpoint never landed must be flagged"
    landed = {cp.checkpoint_id for ns in thread.namespaces.values() for cp in ns.checkpoints}
    assert all(w.checkpoint_id not in landed for w in orphans)


def test_legacy_and_rollback_databases_open(corpus: Corpus) -> None:
    for variant in ("legacy_no_task_path", "rollback_journal"):
        entry = next(e for e in corpus if e.variant == variant)
        source = open_source(entry.db)
        summaries, problems = summarize_threads(source)
        assert summaries and not problems
        thread = load_thread(source, summaries[0].thread_id)
        assert thread.checkpoint_count == summaries[0].checkpoints
        if variant == "legacy_no_task_path":
            assert any("task_path" in n for n in source.notes)
            assert all(
                w.task_path == ""
                for ns in thread.namespaces.values()
                for c in ns.checkpoints
                for w in c.writes
            )


@pytest.mark.parametrize("bad", ["missing", "folder", "empty", "text", "other_app"])
def test_unopenable_files_get_one_sentence(bad: str, tmp_path: Path) -> None:
    from replaylens.errors import SourceError

    path = tmp_path / "x.db"
    if bad == "folder":
        path.mkdir()
    elif bad == "empty":
        path.write_bytes(b"")
    elif bad == "text":
        path.write_text("hello, I am not a database\n")
    elif bad == "other_app":
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE notes (body TEXT)")
    with pytest.raises(SourceError) as info:
        open_source(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message and message.endswith(".")
