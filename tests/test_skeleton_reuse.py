"""Skipping what the previous checkpoint already held gives the same skeleton as a full walk.

A real agent-shaped graph grows its message list by one message a step (the list is a
byte-for-byte prefix of the next checkpoint's) and overwrites a second large list with
fresh content every step (never a prefix), so both the reuse and the fallback run. The
skeletons are compared field by field with a walk that reuses nothing, and the tasks
with LangGraph's own `get_state` on every checkpoint.
"""

from __future__ import annotations

import contextlib
import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from replaylens.analysis.status import load_thread
from replaylens.sources import CheckpointRecord, open_source
from replaylens.sources._skeleton import REUSE_MIN_BYTES, PrefixMemo, fill_skeleton

STEPS = 40
TEXT = 4_000  # characters per message: the list passes REUSE_MIN_BYTES after ~16 steps


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], operator.add]
    scratch: list[str]  # no reducer: replaced whole every step
    turns: int


def _agent(state: AgentState) -> dict[str, Any]:
    turn = state.get("turns", 0) + 1
    return {
        "messages": [AIMessage(content=f"turn {turn} " + "x" * TEXT, id=f"m{turn}")],
        "scratch": [f"{turn}-{i}-" + "y" * 200 for i in range(400)],  # ~80 KB, new bytes each time
        "turns": turn,
    }


def _again(state: AgentState) -> str:
    return "agent" if state["turns"] < STEPS else END


@pytest.fixture(scope="module")
def agent_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    db = tmp_path_factory.mktemp("reuse") / "agent.db"
    builder = StateGraph(AgentState)
    builder.add_node("agent", _agent)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", _again, ["agent", END])
    conn = sqlite3.connect(db, check_same_thread=False)
    graph = builder.compile(checkpointer=SqliteSaver(conn))
    graph.invoke(
        {"messages": [], "turns": 0},
        {"configurable": {"thread_id": "t"}, "recursion_limit": 200},
        durability="sync",
    )
    return db, graph


def _skeletons(db: Path, memo: PrefixMemo | None) -> list[CheckpointRecord]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT checkpoint_id, type, checkpoint FROM checkpoints WHERE thread_id = 't' "
            "ORDER BY checkpoint_ns, checkpoint_id"
        ).fetchall()
    finally:
        conn.close()
    out = []
    for cid, type_, blob in rows:
        rec = CheckpointRecord("t", "", cid, None, {})
        fill_skeleton(rec, type_, blob, None, memo)
        out.append(rec)
    return out


def test_reused_prefixes_give_the_same_skeleton_as_a_full_walk(agent_db: tuple[Path, Any]) -> None:
    db, _ = agent_db
    memo = PrefixMemo()
    reused = _skeletons(db, memo)
    plain = _skeletons(db, None)
    assert len(reused) == len(plain) == STEPS + 2  # the input checkpoint, __start__, one per turn
    fields = (
        "v",
        "ts",
        "channel_versions",
        "versions_seen",
        "updated_channels",
        "present_channels",
        "scheduling_values",
        "error",
    )
    for a, b in zip(reused, plain, strict=True):
        assert {f: getattr(a, f) for f in fields} == {f: getattr(b, f) for f in fields}, (
            a.checkpoint_id
        )
        assert a.error is None
    assert all("messages" in r.present_channels for r in reused[1:])  # all but the input checkpoint
    # The message list was skipped by reuse once it passed the threshold; the replaced
    # scratch list never matched and was walked in full every time.
    assert memo.reused >= STEPS - 20, memo.reused
    assert memo.walked >= STEPS, memo.walked
    assert REUSE_MIN_BYTES < 64 * 4_000  # the fixture's lists really pass the threshold


def test_a_prefix_that_differs_by_one_byte_is_not_reused() -> None:
    """Same length, same count, one changed byte: the walk must not trust the memo."""
    import ormsgpack

    def blob(items: list[str], extra: list[str]) -> bytes:
        return ormsgpack.packb(
            {
                "v": 4,
                "ts": "2026-01-01T00:00:00+00:00",
                "id": "x",
                "channel_values": {"big": items, "branch:to:n": None},
                "channel_versions": {"big": "1", "branch:to:n": "1"},
                "versions_seen": {},
                "updated_channels": extra,
            }
        )

    first = ["a" * 1000] * 100
    changed = list(first)
    changed[50] = "b" + "a" * 999
    memo = PrefixMemo()
    for items in (first, changed + ["c"]):
        rec = CheckpointRecord("t", "", "x", None, {})
        fill_skeleton(rec, "msgpack", blob(items, ["big"]), None, memo)
        assert rec.error is None
        assert rec.present_channels == {"big", "branch:to:n"} and rec.updated_channels == ["big"]
    assert memo.reused == 0 and memo.walked == 2


def test_thread_tasks_match_get_state_with_reuse(agent_db: tuple[Path, Any]) -> None:
    db, graph = agent_db
    source = open_source(db)
    try:
        thread = load_thread(source, "t")
    finally:
        source.close()
    checkpoints = thread.namespaces[""].checkpoints
    assert len(checkpoints) == STEPS + 2
    for cp in checkpoints:
        state = graph.get_state(
            {
                "configurable": {
                    "thread_id": "t",
                    "checkpoint_ns": "",
                    "checkpoint_id": cp.checkpoint_id,
                }
            }
        )
        assert sorted((t.name, t.id) for t in state.tasks) == sorted(
            (t.node, t.task_id) for t in cp.tasks if t.derived
        ), cp.step


def test_a_without_rowid_table_reads_the_same(agent_db: tuple[Path, Any], tmp_path: Path) -> None:
    """Blobs are read by rowid when the table has one; a WITHOUT ROWID copy of the same rows
    (not what LangGraph makes, but a valid schema) must load to the same thread."""
    db, _ = agent_db
    copy = tmp_path / "without-rowid.db"
    with sqlite3.connect(copy) as conn:
        conn.execute(f"ATTACH DATABASE 'file:{db}?mode=ro' AS src")
        conn.execute(
            "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', "
            "checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB, "
            "PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)) WITHOUT ROWID"
        )
        conn.execute("INSERT INTO checkpoints SELECT * FROM src.checkpoints")
        conn.execute("CREATE TABLE writes AS SELECT * FROM src.writes")
    sources = [open_source(db), open_source(copy)]
    try:
        assert [s.has_rowid for s in sources] == [True, False]
        threads = [load_thread(s, "t") for s in sources]
    finally:
        for s in sources:
            s.close()

    def shape(thread: Any) -> list[tuple[Any, ...]]:
        return [
            (
                cp.checkpoint_id,
                cp.step,
                cp.record.channel_versions,
                sorted(cp.record.present_channels),
                [(t.node, t.task_id, t.status) for t in cp.tasks],
            )
            for cp in thread.namespaces[""].checkpoints
        ]

    assert shape(threads[0]) == shape(threads[1]) and len(shape(threads[0])) == STEPS + 2


def test_memory_mapping_can_be_turned_off_and_reads_the_same(
    agent_db: tuple[Path, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """REPLAYLENS_SQLITE_MMAP_MB=0 (for memory limits that count mapped file pages) reads
    through read() instead of mmap, with the same result."""
    db, _ = agent_db
    loaded = {}
    for setting, want_mapped in (("", True), ("0", False)):
        monkeypatch.setenv("REPLAYLENS_SQLITE_MMAP_MB", setting)
        source = open_source(db)
        try:
            with contextlib.closing(source.connect()) as conn:
                assert (conn.execute("PRAGMA mmap_size").fetchone()[0] > 0) is want_mapped
            thread = load_thread(source, "t")
        finally:
            source.close()
        loaded[setting] = [
            (cp.checkpoint_id, [(t.node, t.task_id, t.status) for t in cp.tasks])
            for cp in thread.namespaces[""].checkpoints
        ]
    assert loaded[""] == loaded["0"] and len(loaded[""]) == STEPS + 2
