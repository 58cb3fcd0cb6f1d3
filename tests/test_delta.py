"""DeltaChannel (LangGraph 1.2, beta) values are folded from the ancestors' writes and equal
LangGraph's own `get_state` value on every checkpoint.

A real graph with two delta channels (a message list through `add_messages`, a plain list
concatenated), five turns, snapshots every four updates on one of them, and a stored
value rebuilt on every checkpoint of the thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from evidence_files import private_copy
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from replaylens.analysis.delta import delta_channels, state_values
from replaylens.analysis.status import load_thread
from replaylens.sources import open_source


def concat(state: list[Any], writes: list[list[Any]]) -> list[Any]:
    out = list(state)
    for w in writes:
        out.extend(w)
    return out


def messages(state: list[Any], writes: list[list[Any]]) -> list[Any]:
    out = state
    for w in writes:
        out = add_messages(out, w)
    return out


class Chat(TypedDict, total=False):
    log: Annotated[list, DeltaChannel(concat, snapshot_frequency=4)]
    messages: Annotated[list, DeltaChannel(messages)]


def talk(state: Chat) -> dict[str, Any]:
    n = len(state.get("messages", []))
    return {"log": [f"turn{n}"], "messages": [AIMessage(content=f"reply {n}", id=f"ai-{n}")]}


def chat() -> StateGraph:
    builder = StateGraph(Chat)
    builder.add_node("talk", talk)
    builder.add_edge(START, "talk")
    builder.add_edge("talk", END)
    return builder


TURNS = 5


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("delta") / "delta.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    graph = chat().compile(checkpointer=SqliteSaver(conn))
    cfg = {"configurable": {"thread_id": "chat"}}
    for i in range(TURNS):
        # the second turn re-sends an earlier message id: add_messages replaces it in place
        mid = "h-0" if i == 1 else f"h-{i}"
        graph.invoke(
            {"messages": [HumanMessage(content=f"hi {i}", id=mid)], "log": [f"in{i}"]}, cfg
        )
    conn.close()
    yield path


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "id") and hasattr(value, "content"):
        return (type(value).__name__, value.id, value.content)
    return value


def _langgraph_values(graph: Any, checkpoint_id: str) -> dict[str, Any]:
    """LangGraph's own `get_state` values at one checkpoint of the "chat" thread."""
    config = {
        "configurable": {"thread_id": "chat", "checkpoint_ns": "", "checkpoint_id": checkpoint_id}
    }
    return graph.get_state(config).values


def test_folded_values_equal_get_state_on_every_checkpoint(db: Path, tmp_path: Path) -> None:
    conn = sqlite3.connect(private_copy(db, tmp_path / "lg.db"), check_same_thread=False)
    graph = chat().compile(checkpointer=SqliteSaver(conn))
    source = open_source(db)
    thread = load_thread(source, "chat")
    compared = folded_messages = 0
    wrong = []
    for cp in thread.root.checkpoints:
        if not delta_channels(cp):
            continue
        want = _langgraph_values(graph, cp.checkpoint_id)
        got = state_values(source, thread, cp)
        for channel in ("log", "messages"):
            if channel not in want and channel not in got:
                continue
            result = got.get(channel)
            assert result is not None and result.note and result.note.startswith("folded"), (
                cp.step,
                channel,
            )
            compared += 1
            folded_messages += channel == "messages" and "message id" in result.note
            if _plain(result.value) != _plain(want.get(channel, [])):
                wrong.append(
                    f"step {cp.step} {channel}: {_plain(result.value)} != {_plain(want.get(channel))}"
                )
    source.close()
    conn.close()
    assert not wrong, "\n".join(wrong)
    assert compared >= 2 * 3 * TURNS - 2 and folded_messages >= TURNS, (compared, folded_messages)


def test_latest_value_is_the_whole_conversation(db: Path) -> None:
    source = open_source(db)
    thread = load_thread(source, "chat")
    values = state_values(source, thread, thread.root.latest)
    source.close()
    msgs = _plain(values["messages"].value)
    assert len(msgs) == 2 * TURNS - 1  # h-0 was sent twice and replaced, not appended
    assert msgs[0] == ("HumanMessage", "h-0", "hi 1")


@pytest.fixture(scope="module")
def exit_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The same chat run under durability exit: each turn keeps its delta writes on its way
    out, anchored on the checkpoint it loaded (the first turn on a stub, step -2)."""
    path = tmp_path_factory.mktemp("delta-exit") / "delta.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    graph = chat().compile(checkpointer=SqliteSaver(conn))
    cfg = {"configurable": {"thread_id": "chat"}}
    for i in range(3):
        graph.invoke(
            {"messages": [HumanMessage(content=f"hi {i}", id=f"h-{i}")], "log": [f"in{i}"]},
            cfg,
            durability="exit",
        )
    conn.close()
    yield path


def test_writes_saved_on_exit_are_values_not_tasks(exit_db: Path, tmp_path: Path) -> None:
    """Under exit LangGraph saves a run's DeltaChannel writes under synthetic task ids
    (`00000001-…` for the anchor's own superstep, `ffffffff-…` with a `~~<step>~` path for
    later ones). They had been read as tasks of the checkpoint they hang off ("✓ __start__",
    "unnamed run-time task"): a stub and two finished turns with work due. Each checkpoint
    now has nothing due, the writes are named for what they are, and the folded values still
    equal LangGraph's own `get_state` on every checkpoint."""
    from replaylens.analysis.status import thread_status
    from replaylens.dashboard.views import checkpoints_frame

    conn = sqlite3.connect(private_copy(exit_db, tmp_path / "lg.db"), check_same_thread=False)
    graph = chat().compile(checkpointer=SqliteSaver(conn))
    source = open_source(exit_db)
    thread = load_thread(source, "chat")
    cps = thread.root.checkpoints
    assert [cp.step for cp in cps][0] == -2 and len(cps) == 4  # the stub and three turns
    assert all(cp.tasks == [] for cp in cps), [[t.label for t in cp.tasks] for cp in cps]
    assert thread_status(thread) == "completed"
    anchored = [cp for cp in cps if cp.exit_delta_writes]
    assert len(anchored) == 3 and set(anchored[0].exit_delta_writes) == {"log", "messages"}
    notes = list(checkpoints_frame(thread.root)["notes"])
    assert notes[0].startswith("a stub LangGraph saved under exit") and "not tasks" in notes[1]
    for cp in cps[1:]:
        want = _langgraph_values(graph, cp.checkpoint_id)
        got = state_values(source, thread, cp)
        for channel in ("log", "messages"):
            assert _plain(got[channel].value) == _plain(want.get(channel, [])), (cp.step, channel)
    source.close()
    conn.close()
