"""`replaylens.channels` reads the trigger channels LangGraph itself names: checked here on
a graph compiled by the installed LangGraph, not on names typed by hand."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from langgraph.graph import START, StateGraph

from replaylens import channels


class _State(TypedDict):
    seen: Annotated[list[str], operator.add]


def _node(name: str) -> Callable[[_State], dict[str, list[str]]]:
    return lambda state: {"seen": [name]}


def _compiled() -> Any:
    b = StateGraph(_State)
    for name in ("plan", "left", "right", "merge"):
        b.add_node(name, _node(name))
    b.add_edge(START, "plan")
    b.add_edge("plan", "left")
    b.add_edge("plan", "right")
    b.add_edge(["left", "right"], "merge")
    return b.compile()


def test_the_join_and_the_edges_of_a_compiled_graph_are_read_back() -> None:
    names = set(_compiled().channels)
    joins = [ch for ch in names if ch.startswith(channels.JOIN_PREFIX)]
    assert len(joins) == 1
    assert channels.join_node(joins[0]) == "merge"
    assert sorted(channels.join_sources(joins[0])) == ["left", "right"]
    assert channels.makes_due(joins[0])
    edges = {channels.edge_to(ch) for ch in names} - {None}
    assert edges == {"plan", "left", "right", "merge"}  # each node has its own edge channel
    assert {channels.routed_to(ch) for ch in names} - {None} == edges
    assert not any(channels.makes_due(ch) for ch in names if ch == "seen")


def test_other_channels_name_no_node() -> None:
    assert channels.join_node("seen") is None and channels.join_sources("seen") == []
    assert channels.edge_to("start:plan") is None
    assert channels.routed_to("start:plan") == "plan"  # LangGraph before 0.3
    assert channels.makes_due(channels.TASKS)
