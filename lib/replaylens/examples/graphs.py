"""Small graphs whose every node records its side effect, one per shape a resume treats differently.

Each factory takes no arguments and returns an *uncompiled* `StateGraph`, so the caller
chooses the checkpointer (the kill-test child compiles it with its own `SqliteSaver`).
The functional-API example cannot be uncompiled: `functional(checkpointer)` returns the
`@entrypoint` already bound to the checkpointer it is given.

Every node wraps its work in `record_effect(...)` and sleeps `REPLAYLENS_EXAMPLE_SLEEP`
seconds inside it, so a test can SIGKILL the process while a node is half done: the
effects log then holds a `start` line with no `end`, which is exactly what a real crash
in the middle of a payment call leaves behind.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable
from typing import Annotated, Any

from langgraph.constants import END, START
from langgraph.graph import StateGraph
from langgraph.types import Send, interrupt
from typing_extensions import TypedDict

from replaylens import record_effect, settings

ENV_SLEEP = "REPLAYLENS_EXAMPLE_SLEEP"
ENV_FAIL = "REPLAYLENS_EXAMPLE_FAIL"


def _sleep(fraction: float = 1.0) -> None:
    """Hold the node open so that a kill can land between an effect's start and its end."""
    seconds = settings.get_float(ENV_SLEEP, 0.0) * fraction
    if seconds > 0:
        time.sleep(seconds)


def _visit(name: str, effect: str | None = None, fraction: float = 1.0) -> Callable[..., Any]:
    """A node that records one effect and appends its own name to `visited`."""

    def node(state: dict[str, Any]) -> dict[str, Any]:
        with record_effect(effect or name):
            _sleep(fraction)
        return {"visited": [name]}

    node.__name__ = name
    return node


class Visited(TypedDict, total=False):
    """State shared by the simple shapes: the reducer makes the visit order visible."""

    visited: Annotated[list[str], operator.add]


# --------------------------------------------------------------------------- linear
def linear() -> StateGraph:
    """a -> b -> c -> d: one task per superstep.

    Teaches the basic contract: after a crash in `c`, a resume re-runs `c` from its first
    line (its `start` line appears twice) but not `a` or `b`, provided their checkpoints
    landed; under `durability="exit"` nothing landed and there is nothing to resume.
    """
    builder = StateGraph(Visited)
    previous = START
    for name in ("a", "b", "c", "d"):
        builder.add_node(name, _visit(name))
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder


# --------------------------------------------------------------------------- fanout
def fanout() -> StateGraph:
    """start -> p1 / p2 / p3 (one superstep) -> join (a barrier on all three).

    Teaches that the unit of replay is the task, inside a superstep: a crash while `p3`
    runs keeps the writes of `p1` and `p2` if they already landed, and only the tasks
    without writes run again. To make that visible, p1 and p2 sleep 1/10 and 2/10 of the
    configured time and p3 the whole of it, so a kill in p3 finds its siblings finished.
    """
    builder = StateGraph(Visited)
    builder.add_node("start", _visit("start"))
    builder.add_edge(START, "start")
    for name, fraction in (("p1", 0.1), ("p2", 0.2), ("p3", 1.0)):
        builder.add_node(name, _visit(name, fraction=fraction))
        builder.add_edge("start", name)
    builder.add_node("join", _visit("join"))
    builder.add_edge(["p1", "p2", "p3"], "join")
    builder.add_edge("join", END)
    return builder


# --------------------------------------------------------------------------- loop
class LoopState(TypedDict, total=False):
    """A counter the tool increments; the agent stops once it reaches `LOOP_LIMIT`."""

    visited: Annotated[list[str], operator.add]
    calls: int


LOOP_LIMIT = 3


def _agent(state: LoopState) -> dict[str, Any]:
    with record_effect("call_model"):
        _sleep()
    return {"visited": ["agent"]}


def _tool(state: LoopState) -> dict[str, Any]:
    with record_effect("call_tool"):
        _sleep()
    return {"visited": ["tool"], "calls": state.get("calls", 0) + 1}


def _agent_route(state: LoopState) -> str:
    return END if state.get("calls", 0) >= LOOP_LIMIT else "tool"


def loop() -> StateGraph:
    """agent -> tool -> agent -> ... until `calls` reaches 3, then END.

    Teaches that the same node runs at several steps: "c re-ran" is not enough, a report
    has to say which step's `agent` task re-runs (the task id includes the step).
    """
    return agent_tool_loop(LoopState, _agent, _tool, _agent_route)


def agent_tool_loop(
    state: type, agent: Callable[..., Any], tool: Callable[..., Any], route: Callable[..., str]
) -> StateGraph:
    """START -> agent -> (route: "tool" or END); tool -> agent: the wiring of every agent loop
    here and in the benchmark fixtures, whatever its nodes do and whenever `route` stops it."""
    builder = StateGraph(state)
    builder.add_node("agent", agent)
    builder.add_node("tool", tool)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tool", END])
    builder.add_edge("tool", "agent")
    return builder


# --------------------------------------------------------------------------- send
class MapState(TypedDict, total=False):
    """Items to process, one result per item (reducer), and the reduced total."""

    items: list[int]
    results: Annotated[list[int], operator.add]
    total: int


class WorkItem(TypedDict):
    """The private input of one `work` task, carried by its `Send` packet."""

    item: int


def _plan(state: MapState) -> dict[str, Any]:
    with record_effect("plan_batch"):
        _sleep()
    return {"items": [1, 2, 3]}


def _fan_out(state: MapState) -> list[Send]:
    return [Send("work", {"item": i}) for i in state["items"]]


def _work(state: WorkItem) -> dict[str, Any]:
    with record_effect("process_item", item=state["item"]):
        _sleep()
    return {"results": [state["item"] * 10]}


def _reduce(state: MapState) -> dict[str, Any]:
    with record_effect("publish_total"):
        _sleep()
    return {"total": sum(state.get("results", []))}


def _map_reduce(plan: Callable[..., Any], work: Callable[..., Any]) -> StateGraph:
    """START -> plan -> one `work` per item (Send) -> reduce -> END: both Send examples' wiring."""
    builder = StateGraph(MapState)
    builder.add_node("plan", plan)
    builder.add_node("work", work)
    builder.add_node("reduce", _reduce)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", _fan_out, ["work"])
    builder.add_edge("work", "reduce")
    builder.add_edge("reduce", END)
    return builder


def send_map_reduce() -> StateGraph:
    """plan -> Send("work", {"item": i}) x3 -> reduce.

    Teaches PUSH tasks: the three `work` tasks are not triggered by channels but by the
    `Send` packets stored in `__pregel_tasks`; their ids come from the packet index, and
    their writes carry a `task_path` like `~__pregel_push, 0, ...`.
    """
    return _map_reduce(_plan, _work)


# --------------------------------------------------------------------------- send, uneven
UNEVEN_ITEMS = (1, 2, 3, 4)
UNEVEN_FRACTIONS = {1: 0.1, 2: 0.15, 3: 0.2, 4: 3.0}
"""Item 4's task stays open 15 to 30 times longer than the others, so a kill while it runs
finds the other three finished."""


def _plan_uneven(state: MapState) -> dict[str, Any]:
    with record_effect("plan_batch"):
        _sleep(0.2)
    return {"items": list(UNEVEN_ITEMS)}


def _work_uneven(state: WorkItem) -> dict[str, Any]:
    with record_effect("process_item", item=state["item"]):
        _sleep(UNEVEN_FRACTIONS.get(state["item"], 1.0))
    return {"results": [state["item"] * 10]}


def send_uneven() -> StateGraph:
    """plan -> Send("work", {"item": i}) x4 -> reduce, item 4 much slower than the rest.

    Teaches that parallel tasks of one node are separate tasks: a kill while item 4 runs
    keeps the saved writes of items 1 to 3, and a resume re-runs only item 4's task. A
    hand-written log shows four `start` lines of `work` and three `end` lines; only the
    `item` key tells which start is still open.
    """
    return _map_reduce(_plan_uneven, _work_uneven)


# --------------------------------------------------------------------------- subgraph
class SubState(TypedDict, total=False):
    """The subgraph's own trail. A separate key from the parent's `visited` on purpose:
    a subgraph returns its whole state, so sharing an `operator.add` list with the parent
    would append the parent's entries a second time."""

    sub_visited: Annotated[list[str], operator.add]


class OuterState(TypedDict, total=False):
    """The parent's trail plus the subgraph's, which comes back as the `sub` node's output."""

    visited: Annotated[list[str], operator.add]
    sub_visited: Annotated[list[str], operator.add]


def _sub_step(name: str) -> Callable[..., Any]:
    def node(state: SubState) -> dict[str, Any]:
        with record_effect(name):
            _sleep()
        return {"sub_visited": [name]}

    node.__name__ = name
    return node


def chain(state: type, *nodes: tuple[str, Any]) -> StateGraph:
    """START -> each (name, node) in turn -> END: the shape of every level of the subgraph
    examples, so each reads as the list of its steps."""
    builder = StateGraph(state)
    for name, node in nodes:
        builder.add_node(name, node)
    names = [name for name, _ in nodes]
    for before, after in zip([START, *names], [*names, END], strict=True):
        builder.add_edge(before, after)
    return builder


def subgraph() -> StateGraph:
    """prepare -> sub (a compiled subgraph s1 -> s2) -> finish.

    Teaches checkpoint namespaces: the subgraph's checkpoints live under
    `checkpoint_ns = "sub:<task id>"`, and a resume re-enters the subgraph at its own
    latest checkpoint, so a crash in `s2` re-runs `s2` but not `s1`.
    """
    inner = chain(SubState, ("s1", _sub_step("s1")), ("s2", _sub_step("s2")))
    # Compiled without a checkpointer: it inherits the parent's and checkpoints under
    # its own namespace.
    return chain(
        OuterState,
        ("prepare", _visit("prepare")),
        ("sub", inner.compile()),
        ("finish", _visit("finish")),
    )


def nested_subgraph() -> StateGraph:
    """prepare -> outer (subgraph: o1 -> inner (subgraph: i1 -> i2)) -> finish.

    Teaches nested namespaces: the inner subgraph checkpoints under
    `outer:<task id>|inner:<task id>`, and a resume re-enters both levels at their own
    latest checkpoints, so a crash in `i2` re-runs `i2` only.
    """
    inner = chain(SubState, ("i1", _sub_step("i1")), ("i2", _sub_step("i2")))
    outer = chain(SubState, ("o1", _sub_step("o1")), ("inner", inner.compile()))
    return chain(
        OuterState,
        ("prepare", _visit("prepare")),
        ("outer", outer.compile()),
        ("finish", _visit("finish")),
    )


# --------------------------------------------------------------------------- payment
class PaymentState(TypedDict, total=False):
    """An invoice going from quote to approval to charge to receipt."""

    invoice_id: str
    amount: float
    approved: bool
    charge_id: str
    notified: bool
    visited: Annotated[list[str], operator.add]


def _quote(state: PaymentState) -> dict[str, Any]:
    invoice_id = state.get("invoice_id") or "inv-0001"
    with record_effect("price_quote", invoice_id=invoice_id):
        _sleep()
    return {"invoice_id": invoice_id, "amount": 42.5, "visited": ["quote"]}


def _approve(state: PaymentState) -> dict[str, Any]:
    # interrupt() raises GraphInterrupt the first time: the recorder writes
    # "interrupted", and on resume the whole node runs again from its first line.
    with record_effect("request_approval", invoice_id=state["invoice_id"]):
        _sleep()
        answer = interrupt({"amount": state["amount"], "invoice_id": state["invoice_id"]})
    return {"approved": bool(answer), "visited": ["approve"]}


def _approve_route(state: PaymentState) -> str:
    return "charge" if state.get("approved") else END


def _idempotency_key(invoice_id: str) -> str:
    """thread id + invoice id: the same charge retried by a resume carries the same key."""
    from langgraph.config import get_config

    thread_id = get_config().get("configurable", {}).get("thread_id", "?")
    return f"{thread_id}:{invoice_id}"


def _charge(state: PaymentState) -> dict[str, Any]:
    key = _idempotency_key(state["invoice_id"])
    with record_effect("charge_card", idempotency_key=key, amount=state["amount"]):
        _sleep()
    return {"charge_id": f"ch_{key}", "visited": ["charge"]}


def _charge_without_key(state: PaymentState) -> dict[str, Any]:
    with record_effect("charge_card", amount=state["amount"]):
        _sleep()
    return {"charge_id": f"ch_{state['invoice_id']}", "visited": ["charge"]}


def _notify_customer(state: PaymentState) -> dict[str, Any]:
    with record_effect("send_email", invoice_id=state["invoice_id"]):
        _sleep()
    return {"notified": True, "visited": ["notify_customer"]}


def payment() -> StateGraph:
    """quote -> approve (interrupt for a human) -> charge -> notify_customer.

    Teaches the difference between a pause and a crash: `approve` stops at `interrupt()`
    and re-runs from its first line when resumed with `Command(resume=True)`; a crash in
    `charge` re-runs `charge_card`, which is why it carries an idempotency key derived
    from the thread id and the invoice id. A refusal (`resume=False`) ends the graph.
    """
    return _payment_graph(_charge)


def payment_without_key() -> StateGraph:
    """`payment` whose `charge` sends no idempotency key: the mistake a resume-safety test
    (`replaylens.testing.assert_resume_safe`) exists to catch, since a kill in `charge`
    charges the card again on resume."""
    return _payment_graph(_charge_without_key)


def _payment_graph(charge: Callable[..., Any]) -> StateGraph:
    builder = StateGraph(PaymentState)
    builder.add_node("quote", _quote)
    builder.add_node("approve", _approve)
    builder.add_node("charge", charge)
    builder.add_node("notify_customer", _notify_customer)
    builder.add_edge(START, "quote")
    builder.add_edge("quote", "approve")
    builder.add_conditional_edges("approve", _approve_route, ["charge", END])
    builder.add_edge("charge", "notify_customer")
    builder.add_edge("notify_customer", END)
    return builder


# --------------------------------------------------------------------------- failing
FAIL_MARGIN = 0.1


def _b(state: dict[str, Any]) -> dict[str, Any]:
    with record_effect("b"):
        _sleep()
        if settings.get(ENV_FAIL) != "0":
            # LangGraph stops the step's other tasks once one fails; waiting a little
            # lets the sibling b2 finish first, so the step has one success, one error.
            time.sleep(FAIL_MARGIN)
            raise RuntimeError("b failed on purpose (REPLAYLENS_EXAMPLE_FAIL)")
    return {"visited": ["b"]}


def failing() -> StateGraph:
    """a -> (b, b2) in one superstep; b raises RuntimeError unless REPLAYLENS_EXAMPLE_FAIL=0.

    Teaches what an exception leaves: an `__error__` write for `b` next to the real
    writes of `b2` under the same checkpoint. A resume re-runs `b` (an error is not a
    result) and reuses `b2`'s writes.
    """
    builder = StateGraph(Visited)
    builder.add_node("a", _visit("a"))
    builder.add_node("b", _b)
    builder.add_node("b2", _visit("b2"))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "b2")
    builder.add_edge("b", END)
    builder.add_edge("b2", END)
    return builder


# --------------------------------------------------------------------------- functional
def functional(checkpointer: Any) -> Any:
    """@entrypoint `pipeline` calling @task `fetch_record` then @task `store_record`.

    Teaches the functional API: the tasks are not nodes of a graph, they are PUSH tasks
    created at run time, whose results are saved as `__return__` writes. Nothing
    in the checkpoint predicts them, so only the writes and their `task_path` tell a
    reader which calls already finished (those are not run again on resume).
    """
    from langgraph.func import entrypoint, task

    @task
    def fetch_record(n: int) -> int:
        with record_effect("fetch_record"):
            _sleep()
        return n + 1

    @task
    def store_record(n: int) -> int:
        with record_effect("store_record"):
            _sleep()
        return n * 2

    @entrypoint(checkpointer=checkpointer)
    def pipeline(inputs: dict[str, Any]) -> dict[str, Any]:
        fetched = fetch_record(int(inputs.get("n", 1))).result()
        stored = store_record(fetched).result()
        return {"fetched": fetched, "stored": stored}

    return pipeline


# --------------------------------------------------------------------------- no recorder
def _quiet(name: str) -> Callable[..., Any]:
    """A node that only sleeps and appends its name: it writes no effects-log line."""

    def node(state: dict[str, Any]) -> dict[str, Any]:
        _sleep()
        return {"visited": [name]}

    node.__name__ = name
    return node


def quiet_linear() -> StateGraph:
    """a -> b -> c like `linear`, but no node calls `record_effect`.

    Teaches what a kill test can measure on a graph that was never instrumented: the
    task starts and ends LangGraph's callbacks report (`--effects-source callbacks`).
    """
    builder = StateGraph(Visited)
    previous = START
    for name in ("a", "b", "c"):
        builder.add_node(name, _quiet(name))
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder


def functional_parallel(checkpointer: Any) -> Any:
    """@entrypoint `batch`: @task `load` then four parallel @task `work` calls, item 4 slow.

    Teaches that a functional run's calls are not tasks of `next`: `get_state` lists only
    the entrypoint; each call's result is saved when it returns and reused when the
    entrypoint re-runs on resume, so a kill while item 4 runs re-runs that call only.
    """
    from langgraph.func import entrypoint, task

    @task
    def load(n: int) -> list[int]:
        with record_effect("load_batch"):
            _sleep(0.2)
        return list(UNEVEN_ITEMS)[:n]

    @task
    def work(item: int) -> int:
        with record_effect("process_item", item=item):
            _sleep(UNEVEN_FRACTIONS.get(item, 1.0))
        return item * 10

    @entrypoint(checkpointer=checkpointer)
    def batch(inputs: dict[str, Any]) -> dict[str, Any]:
        items = load(int(inputs.get("n", len(UNEVEN_ITEMS)))).result()
        futures = [work(i) for i in items]
        return {"results": [f.result() for f in futures]}

    return batch


ALL: dict[str, Callable[..., Any]] = {
    "linear": linear,
    "fanout": fanout,
    "loop": loop,
    "send_map_reduce": send_map_reduce,
    "subgraph": subgraph,
    "payment": payment,
    "failing": failing,
    "functional": functional,
    "send_uneven": send_uneven,
    "functional_parallel": functional_parallel,
    "nested_subgraph": nested_subgraph,
}
"""Name -> factory. All take no argument except `functional` and `functional_parallel`,
which take the checkpointer."""

DEFAULT_INPUTS: dict[str, Any] = {
    "linear": {"visited": []},
    "fanout": {"visited": []},
    "loop": {"visited": [], "calls": 0},
    "send_map_reduce": {"items": []},
    "subgraph": {"visited": []},
    "payment": {"invoice_id": "inv-0001", "visited": []},
    "failing": {"visited": []},
    "functional": {"n": 1},
    "send_uneven": {"items": []},
    "functional_parallel": {"n": 4},
    "nested_subgraph": {"visited": []},
}
"""A valid first input for each graph in `ALL`."""
