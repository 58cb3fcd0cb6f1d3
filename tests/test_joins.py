"""`analysis.joins` on databases written by the installed LangGraph: a barrier saved full is
a resume that never fires its join only when LangGraph would not fire it either."""

from __future__ import annotations

import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph

from replaylens.analysis.joins import join_never_fires
from replaylens.analysis.status import load_thread
from replaylens.sources import open_source


class _State(TypedDict):
    seen: Annotated[list[str], operator.add]


def _node(name: str) -> Any:
    return lambda state: {"seen": [name]}


def test_a_full_join_into_a_deferred_node_still_fires(tmp_path: Path) -> None:
    """``add_edge(["a", "b"], "c")`` with ``c`` added ``defer=True``: after a and b ran the
    barrier holds both, but ``c`` waits until nothing else is due (b's own next node ``d``,
    paused before). The saved barrier is full and ``c`` not due, yet LangGraph fires it once
    the run goes on: not a join that never fires."""
    b = StateGraph(_State)
    for name in ("a", "b", "d"):
        b.add_node(name, _node(name))
    b.add_node("c", _node("c"), defer=True)
    b.add_edge(START, "a")
    b.add_edge(START, "b")
    b.add_edge("b", "d")
    b.add_edge(["a", "b"], "c")
    db = tmp_path / "deferred.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    graph = b.compile(checkpointer=SqliteSaver(conn), interrupt_before=["d"])
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"seen": []}, config)
    assert graph.get_state(config).next == ("d",)
    conn.close()

    source = open_source(db)
    try:
        thread = load_thread(source, "t")
    finally:
        source.close()
    assert thread.full_joins == {} and join_never_fires(thread) is None

    conn = sqlite3.connect(db, check_same_thread=False)
    graph = b.compile(checkpointer=SqliteSaver(conn), interrupt_before=["d"])
    assert "c" in graph.invoke(None, config)["seen"]  # LangGraph's own answer: c runs
    conn.close()
