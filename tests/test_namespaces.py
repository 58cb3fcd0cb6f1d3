"""Checkpoint namespaces and task ids, in both logged forms, against what LangGraph hands a node.

The graph is real and run by LangGraph: a root node, a subgraph added as a node, `Send`
workers and a functional `@task` call (shapes of `test_pregel.py`'s
`test_send_sequences`, `test_nested_graph` and `test_imp_task`). Every node records what
it sees in `config["configurable"]["checkpoint_ns"]`, and the checkpointer says where
the task's writes really live.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Send

from replaylens import namespaces
from replaylens.analysis.attempts import group_attempts
from replaylens.effects.parse import EffectLine


class _S(TypedDict):
    x: Annotated[list, operator.add]


def _seen(out: list[dict[str, Any]]) -> None:
    conf = get_config()
    out.append(
        {
            "node": conf["metadata"]["langgraph_node"],
            "ns": conf["configurable"]["checkpoint_ns"],
            "meta_ns": conf["metadata"]["langgraph_checkpoint_ns"],
        }
    )


@pytest.fixture(scope="module")
def real_run() -> dict[str, Any]:
    """One graph run: what each node saw, and the (namespace, task id) of every saved write."""
    seen: list[dict[str, Any]] = []

    def a(_s: _S) -> dict[str, list[str]]:
        _seen(seen)
        return {"x": ["a"]}

    def inner(_s: _S) -> dict[str, list[str]]:
        _seen(seen)
        return {"x": ["inner"]}

    def work(_s: _S) -> dict[str, list[str]]:
        _seen(seen)
        return {"x": ["w"]}

    sub = StateGraph(_S)
    sub.add_node("inner", inner)
    sub.add_edge(START, "inner")
    g = StateGraph(_S)
    g.add_node("a", a)
    g.add_node("sub", sub.compile())
    g.add_node("work", work)
    g.add_edge(START, "a")
    g.add_edge("a", "sub")
    g.add_conditional_edges("sub", lambda _s: [Send("work", {"x": [i]}) for i in range(2)])
    saver = InMemorySaver()
    g.compile(checkpointer=saver).invoke({"x": []}, {"configurable": {"thread_id": "t"}})
    writes = {(key[1], tid) for key, d in saver.writes.items() for (tid, *_rest) in d.values()}

    @task
    def call(i: int) -> int:
        _seen(seen)
        return i

    @entrypoint(checkpointer=InMemorySaver())
    def flow(i: int) -> int:
        _seen(seen)
        return call(i).result()

    flow.invoke(1, {"configurable": {"thread_id": "f"}})
    fsaver = flow.checkpointer
    assert isinstance(fsaver, InMemorySaver)
    writes |= {(key[1], tid) for key, d in fsaver.writes.items() for (tid, *_rest) in d.values()}
    return {"seen": seen, "writes": writes}


def test_langgraph_hands_nodes_their_own_namespace(real_run: dict[str, Any]) -> None:
    """The installed LangGraph gives a node `node:<task id>` (below `sub:<id>` in a subgraph),
    the same in config and in the callbacks' metadata: the form this module reads."""
    by_node = {s["node"]: s for s in real_run["seen"]}
    assert set(by_node) == {"a", "inner", "work", "flow", "call"}
    for s in real_run["seen"]:
        assert s["ns"] == s["meta_ns"]
        assert namespaces.segments(s["ns"])[-1][0] == s["node"]
    assert len(namespaces.segments(by_node["inner"]["ns"])) == 2
    assert namespaces.segments(by_node["inner"]["ns"])[0][0] == "sub"


def test_task_form_gives_where_the_writes_live(real_run: dict[str, Any]) -> None:
    """Read in the task's own form, every node's namespace names the namespace its writes
    were saved in and its task id: the checkpointer holds exactly that pair."""
    for s in real_run["seen"]:
        place = namespaces.task_namespace(s["ns"], s["node"], None)
        assert place.form == "task"
        if s["node"] == "call":
            # a functional @task call runs inside its caller's task: its writes live in the
            # caller's loop, one level up from what the call is handed
            assert (namespaces.parent(place.checkpoint_ns), place.task_id) in real_run["writes"]
            assert namespaces.runner(place.checkpoint_ns)[0] == "flow"
        else:
            assert (place.checkpoint_ns, place.task_id) in real_run["writes"], s
        # the line's own task_id, when given, agrees
        assert namespaces.task_namespace(s["ns"], s["node"], place.task_id) == place


def test_stripped_form_is_kept_as_is(real_run: dict[str, Any]) -> None:
    """The recorder's form (the namespace the writes live in, task id apart) is unchanged."""
    for s in real_run["seen"]:
        own = namespaces.own_namespace(s["ns"])
        again = namespaces.task_namespace(own.checkpoint_ns, s["node"], own.task_id)
        assert (again.checkpoint_ns, again.task_id) == (own.checkpoint_ns, own.task_id)
        assert again.form in ("stripped", "root")


def test_a_subgraph_node_named_like_its_parent_is_not_taken_for_the_task_form() -> None:
    """`sub:<id>` logged by node `sub` of subgraph `sub` with its own task id is stripped."""
    place = namespaces.task_namespace("sub:p1", "sub", "t9")
    assert (place.checkpoint_ns, place.task_id, place.form) == ("sub:p1", "t9", "stripped")
    place = namespaces.task_namespace("sub:t9", "sub", "t9")
    assert (place.checkpoint_ns, place.task_id, place.form) == ("", "t9", "task")


def test_names_labels_and_runners() -> None:
    assert namespaces.names("sub:1|inner:2") == "sub|inner"
    assert namespaces.names("") == "" and namespaces.names(None) == ""
    assert namespaces.names("sub") == "sub"  # a namespace written with names only
    assert namespaces.label("sub:1|inner:2") == "sub › inner"
    assert namespaces.parent("sub:1|inner:2") == "sub:1"
    assert namespaces.parent("sub:1") == ""
    assert namespaces.runner("sub:1|inner:2") == ("inner", "2")
    assert namespaces.root_runner("sub:1|inner:2") == ("sub", "1")
    assert namespaces.runner("sub") == ("sub", None)
    assert namespaces.is_below("sub:1|inner:2", "sub:1")
    assert namespaces.is_below("sub:1", "")
    assert not namespaces.is_below("sub:1", "sub:1")
    assert not namespaces.is_below("subx:1", "sub")


def test_attempts_read_both_forms_alike(real_run: dict[str, Any]) -> None:
    """Effect lines with LangGraph's namespace and lines in the recorder's form group into
    attempts with the same namespace and task id."""
    lines_task, lines_stripped = [], []
    n = 0
    for s in real_run["seen"]:
        own = namespaces.own_namespace(s["ns"])
        for phase in ("start", "end"):
            n += 1
            lines_task.append(EffectLine(n, "t", s["node"], phase, float(n), checkpoint_ns=s["ns"]))
            lines_stripped.append(
                EffectLine(
                    n,
                    "t",
                    s["node"],
                    phase,
                    float(n),
                    checkpoint_ns=own.checkpoint_ns,
                    task_id=own.task_id,
                )
            )
    one = [(a.node, a.logged_ns, a.task_id, len(a.lines)) for a in group_attempts(lines_task)]
    two = [(a.node, a.logged_ns, a.task_id, len(a.lines)) for a in group_attempts(lines_stripped)]
    assert one == two
    assert len(one) == len(real_run["seen"])
    assert all(tid for _n, _ns, tid, _c in one)


def test_an_error_handler_runs_in_its_failed_tasks_loop_not_below_it() -> None:
    """LangGraph hands an error handler ``charge:<id>|__error_handler__charge:<hid>``: the
    segment named after the failed node is not a subgraph (the handler is a task of the
    failed task's loop). Either logged form places it there; another node's is untouched."""
    handler = "__error_handler__charge"
    own = namespaces.task_namespace(f"charge:1f|{handler}:ab", handler, None)
    assert (own.checkpoint_ns, own.task_id) == ("", "ab")
    stripped = namespaces.task_namespace("sub:9|charge:1f", handler, "ab")
    assert (stripped.checkpoint_ns, stripped.task_id) == ("sub:9", "ab")
    assert (
        namespaces.task_namespace("sub:9|charge:1f", "charge_more", "ab").checkpoint_ns
        == "sub:9|charge:1f"
    )


def test_the_builders_default_error_handler_runs_in_the_failed_tasks_loop() -> None:
    """``set_node_defaults(error_handler=...)`` adds one handler node,
    ``__default_error_handler__``, for every node; LangGraph hands it
    ``fail_a:<id>|__default_error_handler__:<hid>``, whatever node failed. The failed task's
    segment is not a subgraph; a handler's own segment below another handler's is."""
    default = namespaces.DEFAULT_ERROR_HANDLER
    own = namespaces.task_namespace(f"fail_a:1f|{default}:ab", default, None)
    assert (own.checkpoint_ns, own.task_id) == ("", "ab")
    stripped = namespaces.task_namespace("sub:9|fail_b:2e", default, "ab")
    assert (stripped.checkpoint_ns, stripped.task_id) == ("sub:9", "ab")
    assert namespaces.handles(default, "fail_a") and namespaces.handles(default, "fail_b")
    assert not namespaces.handles(default, "__error_handler__fail_a")
    assert not namespaces.handles("__error_handler__fail_a", "fail_b")
    below = namespaces.task_namespace(f"__error_handler__x:1f|{default}:ab", default, None)
    assert below.checkpoint_ns == "__error_handler__x:1f"


def test_a_second_graph_invoked_by_one_task_is_a_loop_beside_the_first() -> None:
    """LangGraph appends a call counter when one task starts a second graph
    (``pregel/_loop.py``: ``subgraph_counter``): read from a real run, that namespace is run
    by the same root task, beside the first graph's, not inside it."""

    def step(_s: _S) -> dict[str, list[str]]:
        return {"x": ["s"]}

    first = StateGraph(_S)
    first.add_node("one", step)
    first.add_edge(START, "one")
    second = StateGraph(_S)
    second.add_node("two", step)
    second.add_edge(START, "two")
    graphs = (first.compile(), second.compile())

    def parent_node(s: _S) -> dict[str, list[str]]:
        for g in graphs:
            g.invoke({"x": []})
        return {"x": ["p"]}

    g = StateGraph(_S)
    g.add_node("parent_node", parent_node)
    g.add_edge(START, "parent_node")
    saver = InMemorySaver()
    g.compile(checkpointer=saver).invoke({"x": []}, {"configurable": {"thread_id": "t"}})
    spaces = {c.config["configurable"]["checkpoint_ns"] for c in saver.list(None)} - {""}
    [one, two] = sorted(spaces)
    task = one.partition(":")[2]
    assert two == f"{one}|1"  # what LangGraph wrote
    assert namespaces.levels(two) == [two] and namespaces.depth(two) == 1
    assert namespaces.parent(two) == "" and namespaces.runner(two) == ("parent_node", task)
    assert namespaces.segments(two) == [("parent_node", task)]
    assert not namespaces.is_below(two, one) and namespaces.is_below(f"{two}|inner:9", two)
    assert namespaces.names(one) == "parent_node" and namespaces.names(two) == "parent_node~1"
    assert namespaces.label(two) == "parent_node (graph 2)"
    assert namespaces.call_siblings(one, spaces) == [two]
    assert namespaces.levels("p|1") == ["p|1"]  # a checkpointer=True graph's stable form
