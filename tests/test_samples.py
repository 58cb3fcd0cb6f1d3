"""The bundled campaigns in sample_dbs/ cover the shapes the dashboard must draw.

Issue 29 point 11: a subgraph graph and a failing-node graph, made by the real
`replaylens killtest` (scripts/make_samples.py), so the Kill-test runs page, the timeline
and the README's screenshots show checkpoint namespaces and an exception, not only chains.
The checks compare with LangGraph's own reading of the same files (get_state), on copies:
the evidence in sample_dbs/ is never opened for writing.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from replaylens.analysis.status import load_thread
from replaylens.killtest.manifest import load_manifest
from replaylens.sources import open_source

SAMPLES = Path(__file__).resolve().parents[1] / "sample_dbs"


def _run(name: str, mode: str, latency: float = 0.0):  # noqa: ANN202 - a manifest record
    manifest = load_manifest(SAMPLES / name)
    (run,) = [r for r in manifest.runs if r.mode == mode and r.put_latency == latency]
    return manifest, run


def _langgraph_state(graph_name: str, db: Path, thread_id: str, tmp: Path, **kw: object):  # noqa: ANN202
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples import graphs

    copy = tmp / db.name
    shutil.copy(db, copy)
    for suffix in ("-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            shutil.copy(f"{db}{suffix}", f"{copy}{suffix}")
    conn = sqlite3.connect(copy, check_same_thread=False)
    try:
        graph = getattr(graphs, graph_name)().compile(checkpointer=SqliteSaver(conn))
        return graph.get_state({"configurable": {"thread_id": thread_id}}, **kw)
    finally:
        conn.close()


@pytest.mark.parametrize("graph_name", ["subgraph", "failing"])
def test_the_campaign_was_made_by_killtest_and_stays_small(graph_name: str) -> None:
    manifest = load_manifest(SAMPLES / graph_name)
    assert manifest.graph.endswith(f"graphs:{graph_name}")
    assert {r.mode for r in manifest.runs} == {"sync", "async", "exit"}
    assert all(r.killed for r in manifest.runs)
    size = sum(f.stat().st_size for f in (SAMPLES / graph_name).rglob("*") if f.is_file())
    assert size < 2_000_000, size


def test_the_subgraph_campaign_holds_a_subgraph_namespace(tmp_path: Path) -> None:
    """Killed in s2 under sync: the subgraph's own checkpoints are in the evidence, and
    LangGraph's get_state(subgraphs=True) sees the subgraph task waiting too."""
    _, run = _run("subgraph", "sync")
    db = Path(run.db_at_kill)
    source = open_source(db)
    try:
        thread = load_thread(source, run.thread_id)
    finally:
        source.close()
    inner = [ns for ns in thread.namespaces if ns.startswith("sub:")]
    assert inner and thread.namespaces[inner[0]].checkpoints
    state = _langgraph_state("subgraph", db, run.thread_id, tmp_path, subgraphs=True)
    assert state.next == ("sub",)
    assert state.tasks[0].state is not None  # the subgraph's own state, under its namespace


def test_the_failing_campaign_ends_failed_with_the_exception(tmp_path: Path) -> None:
    """Killed in b, resumed: b raises again, so the thread after the resume holds b's error
    beside b2's writes, as LangGraph's get_state reports it."""
    _, run = _run("failing", "sync")
    assert run.resume.get("ok") is False and "RuntimeError" in run.resume.get("error", "")
    db = Path(run.db_after_resume)
    state = _langgraph_state("failing", db, run.thread_id, tmp_path)
    errors = [t for t in state.tasks if t.error is not None]
    assert [t.name for t in errors] == ["b"]
    source = open_source(db)
    try:
        thread = load_thread(source, run.thread_id)
    finally:
        source.close()
    latest = thread.root.checkpoints[-1]
    assert any(w.channel == "__error__" for w in latest.writes)
