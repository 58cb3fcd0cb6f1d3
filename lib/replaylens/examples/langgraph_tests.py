"""Graph shapes modelled on LangGraph's own test suite, each logging its effects three ways.

The validation corpus of `replaylens validate --corpus langgraph-tests`: graphs this
project did not design, taken from the shapes LangGraph's tests exercise (joins, loops,
`Command(goto=...)`, `Send` workers, subgraphs, `interrupt()`, failures retried by a
later invocation, the functional API, `RetryPolicy`, `defer=True`, long chains). Each
factory's docstring names the test it mirrors (in `libs/langgraph/tests/` of
langchain-ai/langgraph); the code is written here, not copied.

Every node holds its work open for a fraction of `REPLAYLENS_EXAMPLE_SLEEP` seconds
inside `effect(...)`, which writes each phase (`start`, `end`, `error`, `interrupted`)
as one line, with one time stamp, to three logs, the three ways users write them:

* ``recorder``: `record_effect`, this project's recorder (task id and namespace parsed);
* ``langgraph``: LangGraph's own values copied verbatim from the node's `config` —
  ``checkpoint_ns`` as LangGraph hands it (``node:task_id``, and
  ``parent:id|node:id`` inside a subgraph or an ``@task`` call), ``langgraph_step`` as
  ``step``, ``langgraph_node`` as ``node``, ``langgraph_triggers``;
* ``bare``: thread, node, phase, ts and pid only.

The recorder's log is the one `REPLAYLENS_EFFECTS_LOG` names; the other two sit next to
it (`form_log`). Factories take no argument and return an uncompiled `StateGraph`,
except the functional one, which takes the checkpointer (as `examples.graphs`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import operator
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Annotated, Any, Literal

from langgraph.constants import END, START
from langgraph.graph import StateGraph
from langgraph.types import Command, RetryPolicy, Send, interrupt
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from replaylens import record_effect, settings
from replaylens.effects.recorder import ENV_LOG
from replaylens.examples.graphs import ENV_SLEEP, agent_tool_loop, chain
from replaylens.killtest import cancel_invocation, command, fork, send, state_update

LogForm = Literal["recorder", "langgraph", "bare"]
LOG_FORMS: tuple[LogForm, ...] = ("recorder", "langgraph", "bare")
_FORM_INFIX: dict[LogForm, str] = {"recorder": "", "langgraph": ".langgraph", "bare": ".bare"}


def form_log(path: str | os.PathLike[str], form: LogForm) -> Path:
    """The file the `form` log is written to, next to the recorder's `path`.

    ``effects.jsonl`` -> ``effects.langgraph.jsonl``, ``effects.bare.jsonl``; the kill-test
    campaign's ``at-kill.effects.jsonl`` -> ``at-kill.effects.langgraph.jsonl`` alike.
    """
    p = Path(path)
    infix = _FORM_INFIX[form]
    return p if not infix else p.with_name(f"{p.stem}{infix}{p.suffix}")


def _sleep(fraction: float) -> None:
    seconds = settings.get_float(ENV_SLEEP, 0.0) * fraction
    if seconds > 0:
        time.sleep(seconds)


def _add_node(builder: StateGraph, name: str, action: Any, **options: Any) -> None:
    """``builder.add_node`` with a retry policy under the keyword the installed LangGraph
    takes: ``retry_policy`` since 0.4, ``retry`` before (the shapes run on older releases)."""
    import inspect

    if (
        "retry_policy" in options
        and "retry_policy" not in inspect.signature(builder.add_node).parameters
    ):
        options["retry"] = options.pop("retry_policy")
    builder.add_node(name, action, **options)


@contextlib.contextmanager
def _appending(paths: list[Path]) -> Iterator[list[int]]:
    """Descriptors open for appending under an exclusive flock each; fsync'ed on the way out."""
    fds = [os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) for p in paths]
    try:
        for fd in fds:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield fds
        for fd in fds:
            os.fsync(fd)
    finally:
        for fd in fds:
            os.close(fd)  # closing releases the lock


def _task_config() -> tuple[dict[str, Any], dict[str, Any]]:
    from langgraph.config import get_config

    config = get_config()
    return config.get("configurable") or {}, config.get("metadata") or {}


class effect:  # noqa: N801 - used like record_effect, a verb in node code
    """`with effect("name", item=3):` writes each phase to the three logs with one time stamp."""

    def __init__(self, name: str, **keys: Any) -> None:
        self.name = name
        self.keys = keys
        self.recorder = record_effect(name, **keys)

    def write(self, phase: str, **more: Any) -> None:
        base = settings.get(ENV_LOG)
        if not base:
            self.recorder.write(phase)  # warns once that nothing is recorded
            return
        ts = time.time()
        conf, meta = _task_config()
        thread_id = str(conf.get("thread_id", ""))
        node = str(meta.get("langgraph_node", self.name))
        pid = os.getpid()
        langgraph = {
            "thread_id": thread_id, "node": node, "phase": phase, "ts": ts, "pid": pid,
            "step": meta.get("langgraph_step"), "checkpoint_ns": conf.get("checkpoint_ns", ""),
            "langgraph_triggers": list(meta.get("langgraph_triggers") or ()),
            "effect": self.name, **self.keys, **more,
        }  # fmt: skip
        bare = {"thread_id": thread_id, "node": node, "phase": phase, "ts": ts, "pid": pid}
        # The other two forms are written (not yet synced) just before the recorder's line, so
        # that a kill leaves the three logs the same length but for a window of microseconds.
        with _appending([form_log(base, "langgraph"), form_log(base, "bare")]) as fds:
            for fd, record in zip(fds, (langgraph, bare), strict=True):
                data = (json.dumps(record, default=str) + "\n").encode()
                while data:
                    data = data[os.write(fd, data) :]
            self.recorder.write(phase, ts=ts, **more)

    def __enter__(self) -> effect:
        self.write("start")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if exc is None:
            self.write("end")
        elif type(exc).__name__ in {"GraphInterrupt", "NodeInterrupt", "ParentCommand"}:
            self.write("interrupted")
        else:
            self.write("error", error=f"{type(exc).__name__}: {exc}"[:200])
        return False


class Trail(TypedDict, total=False):
    """The state most shapes share: the order nodes ran in, kept by a reducer."""

    visited: Annotated[list[str], operator.add]


def _send_each(b: StateGraph, items: str, node: str, arg: str) -> None:
    """From START, one ``Send(node, {arg: item})`` per item of the state's `items` list."""
    b.add_conditional_edges(START, lambda s: [Send(node, {arg: x}) for x in s[items]], [node])


def _workers_then(
    state: type, worker: tuple[str, StateGraph], items: tuple[str, str], then: str, key: str
) -> StateGraph:
    """START -Send-> `worker` (a compiled subgraph) once per item of the state's list
    ``items[0]``, each given ``{items[1]: item}``, then the node `then` (writing [] to `key`)."""
    name, sub = worker
    b = StateGraph(state)
    b.add_node(name, sub.compile())
    b.add_node(then, _node(then, 1.0, key, []))
    _send_each(b, items[0], name, items[1])
    b.add_edge(name, then)
    b.add_edge(then, END)
    return b


def _node(
    name: str, fraction: float = 1.0, key: str = "visited", value: Any = None
) -> Callable[..., Any]:
    """A node that holds one effect open for `fraction` of a sleep unit, then writes its name
    to `key` (a list, for the shapes' `operator.add` reducers; `value` when given)."""

    def node(state: dict[str, Any]) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
        return {key: [name] if value is None else value}

    node.__name__ = name
    return node


# --------------------------------------------------------------------------- 1 join
def _join_edges(b: StateGraph) -> StateGraph:
    """rewrite_query -> (analyzer_one -> retriever_one) | retriever_two -> qa: the fan-out
    and the join of test_in_one_fan_out_state_graph_waiting_edge and its variants."""
    b.add_edge(START, "rewrite_query")
    b.add_edge("rewrite_query", "analyzer_one")
    b.add_edge("analyzer_one", "retriever_one")
    b.add_edge("rewrite_query", "retriever_two")
    b.add_edge(["retriever_one", "retriever_two"], "qa")
    b.add_edge("qa", END)
    return b


def waiting_edge_join() -> StateGraph:
    """rewrite_query -> (analyzer_one -> retriever_one) | retriever_two -> qa (a join).

    Mirrors test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge:
    ``add_edge(["retriever_one", "retriever_two"], "qa")`` waits for both branches, which
    take a different number of supersteps.
    """
    b = StateGraph(Trail)
    for name, frac in (("rewrite_query", 0.5), ("analyzer_one", 0.5), ("retriever_one", 1.0),
                       ("retriever_two", 1.5), ("qa", 1.0)):  # fmt: skip
        b.add_node(name, _node(name, frac))
    return _join_edges(b)


# --------------------------------------------------------------------------- 2 loop
class LoopState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]
    calls: int


AGENT_TURNS = 4


def _agent(state: LoopState) -> dict[str, Any]:
    with effect("agent"):
        _sleep(0.6)
    return {"visited": ["agent"]}


def _tools(state: LoopState) -> dict[str, Any]:
    with effect("tools"):
        _sleep(0.6)
    return {"visited": ["tools"], "calls": state.get("calls", 0) + 1}


def conditional_loop() -> StateGraph:
    """agent -> tools -> agent ... (agent runs 4 times, tools 3), then END.

    Mirrors test_large_cases.py::test_conditional_state_graph: an agent whose conditional
    edge ``should_continue`` sends it to the tools node until the model stops calling tools.
    """
    b = StateGraph(LoopState)
    b.add_node("agent", _agent)
    b.add_node("tools", _tools)
    b.add_edge(START, "agent")
    b.add_conditional_edges(
        "agent", lambda s: END if s.get("calls", 0) >= AGENT_TURNS - 1 else "tools", ["tools", END]
    )
    b.add_edge("tools", "agent")
    return b


# --------------------------------------------------------------------------- 3 Command
class PlanState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]
    plan: list[str]


def _planner(state: PlanState) -> Command[Any]:
    with effect("planner"):
        _sleep(0.5)
    plan = ["step_a", "step_b", "step_c"]
    return Command(goto=plan[0], update={"plan": plan[1:], "visited": ["planner"]})


def _plan_step(name: str) -> Callable[..., Any]:
    def node(state: PlanState) -> Command[Any]:
        with effect(name):
            _sleep(1.0)
        rest = list(state.get("plan") or [])
        return Command(goto=rest[0] if rest else END, update={"plan": rest[1:], "visited": [name]})

    node.__name__ = name
    return node


def command_goto() -> StateGraph:
    """planner -Command(goto)-> step_a -Command(goto)-> step_b -> step_c -> END, no edges.

    Mirrors test_pregel.py::test_multistep_plan (and test_node_destinations): every node
    routes with ``Command(goto=..., update=...)``; the graph has no static edge after START.
    """
    b = StateGraph(PlanState)
    b.add_node("planner", _planner, destinations=("step_a",))
    for name, nxt in (("step_a", "step_b"), ("step_b", "step_c"), ("step_c", END)):
        b.add_node(name, _plan_step(name), destinations=(nxt,))
    b.add_edge(START, "planner")
    return b


# --------------------------------------------------------------------------- 4 Send
class MapState(TypedDict, total=False):
    subjects: list[str]
    jokes: Annotated[list[str], operator.add]
    best: str


WORK_FRACTIONS = {"cats": 0.3, "dogs": 0.5, "birds": 0.7, "snakes": 2.0}
"""The workers' durations (of the sleep unit): the last one stays open long after the rest."""


def _generate_topics(state: MapState) -> dict[str, Any]:
    with effect("generate_topics"):
        _sleep(0.5)
    return {"subjects": list(WORK_FRACTIONS)}


def _generate_joke(state: dict[str, Any]) -> dict[str, Any]:
    subject = state["subject"]
    with effect("generate_joke", subject=subject):
        _sleep(WORK_FRACTIONS.get(subject, 1.0))
    return {"jokes": [f"a joke about {subject}"]}


def _best_joke(state: MapState) -> dict[str, Any]:
    with effect("best_joke"):
        _sleep(1.0)
    return {"best": sorted(state.get("jokes") or [""])[0]}


def send_map_reduce_uneven() -> StateGraph:
    """generate_topics -> Send("generate_joke", {"subject": s}) x4 (unequal) -> best_joke.

    Mirrors test_large_cases.py::test_in_one_fan_out_out_one_graph_state and
    test_pregel.py::test_send_sequences: a conditional edge returns one ``Send`` per item;
    here the four workers run 0.3, 0.5, 0.7 and 2 sleep units.
    """
    b = StateGraph(MapState)
    b.add_node("generate_topics", _generate_topics)
    b.add_node("generate_joke", _generate_joke)
    b.add_node("best_joke", _best_joke)
    b.add_edge(START, "generate_topics")
    b.add_conditional_edges(
        "generate_topics",
        lambda s: [Send("generate_joke", {"subject": x}) for x in s["subjects"]],
        ["generate_joke"],
    )
    b.add_edge("generate_joke", "best_joke")
    b.add_edge("best_joke", END)
    return b


# --------------------------------------------------------------------------- 5 subgraph
class InnerState(TypedDict, total=False):
    inner_visited: Annotated[list[str], operator.add]


class OuterState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]
    inner_visited: Annotated[list[str], operator.add]


def _inner(name: str, fraction: float = 1.0) -> Callable[..., Any]:
    return _node(name, fraction, "inner_visited")


def nested_graph() -> StateGraph:
    """outer_1 -> inner (inner_1 -> inner_2, a compiled subgraph as a node) -> outer_2.

    Mirrors test_pregel.py::test_nested_graph: a compiled ``StateGraph`` added with
    ``add_node("inner", inner.compile())``; it checkpoints under ``inner:<task id>``.
    """
    inner = chain(InnerState, ("inner_1", _inner("inner_1")), ("inner_2", _inner("inner_2")))
    return chain(
        OuterState,
        ("outer_1", _node("outer_1", 0.5)),
        ("inner", inner.compile()),
        ("outer_2", _node("outer_2")),
    )


# --------------------------------------------------------------------------- 6 interrupt
class ReviewState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]
    answer: str


def _tool_two(state: ReviewState) -> dict[str, Any]:
    answer = interrupt("Is it ok to run tool_two?")  # paused here in the first invocation
    with effect("tool_two", answer=str(answer)):
        _sleep(1.0)
    return {"answer": str(answer), "visited": ["tool_two"]}


def dynamic_interrupt() -> StateGraph:
    """tool_one -> tool_two (interrupt(), resumed with Command(resume=...)) -> tool_three -> finish.

    Mirrors test_large_cases.py::test_dynamic_interrupt: a node calls ``interrupt()``;
    the thread pauses, then ``invoke(Command(resume="answer"))`` re-runs the node, which
    gets its answer and goes on. The kill lands in the second invocation.
    """
    b = StateGraph(ReviewState)
    b.add_node("tool_one", _node("tool_one", 0.5))
    b.add_node("tool_two", _tool_two)
    b.add_node("tool_three", _node("tool_three"))
    b.add_node("finish", _node("finish"))
    b.add_edge(START, "tool_one")
    b.add_edge("tool_one", "tool_two")
    b.add_edge("tool_two", "tool_three")
    b.add_edge("tool_three", "finish")
    b.add_edge("finish", END)
    return b


# --------------------------------------------------------------------------- 7 recovery
class RecoveryState(TypedDict, total=False):
    steps: Annotated[list[str], operator.add]
    attempt: int


def _failing_node(state: RecoveryState) -> dict[str, Any]:
    with effect("node1", attempt=state.get("attempt", 0)):
        _sleep(1.0 if state.get("attempt") != 1 else 0.3)
        if state.get("attempt") == 1:
            raise RuntimeError("Simulated failure")
    return {"steps": ["node1"]}


def _second_node(state: RecoveryState) -> dict[str, Any]:
    with effect("node2"):
        _sleep(1.0)
    return {"steps": ["node2"]}


def checkpoint_recovery() -> StateGraph:
    """prepare -> node1 (raises while attempt == 1) -> node2; a second input retries it.

    Mirrors test_pregel.py::test_checkpoint_recovery: the first invocation
    (``{"attempt": 1}``) raises in node1; a second invocation on the same thread with
    ``{"attempt": 2}`` runs node1 again and goes on. The kill lands in the second one.
    """
    b = StateGraph(RecoveryState)
    b.add_node("prepare", _prepare)
    b.add_node("node1", _failing_node)
    b.add_node("node2", _second_node)
    b.add_edge(START, "prepare")
    b.add_edge("prepare", "node1")
    b.add_edge("node1", "node2")
    b.add_edge("node2", END)
    return b


def _prepare(state: RecoveryState) -> dict[str, Any]:
    with effect("prepare"):
        _sleep(0.4)
    return {"steps": ["prepare"]}


# --------------------------------------------------------------------------- 8 functional
TASK_FRACTIONS = (0.3, 0.6, 1.8)


def imp_tasks(checkpointer: Any) -> Any:
    """@entrypoint `graph`: three parallel @task `mapper` calls (unequal), then @task `summarize`.

    Mirrors test_pregel.py::test_imp_task (``mapper`` called once per input, futures
    gathered) and test_multiple_tasks_before_interrupt_resume: each call's result is saved
    when it returns, the entrypoint re-runs on resume and reuses the saved ones.
    """
    from langgraph.func import entrypoint, task

    @task
    def mapper(n: int) -> str:
        with effect("mapper", n=n):
            _sleep(TASK_FRACTIONS[n % len(TASK_FRACTIONS)])
        return str(n) * 2

    @task
    def summarize(parts: list[str]) -> str:
        with effect("summarize"):
            _sleep(1.0)
        return "+".join(parts)

    @entrypoint(checkpointer=checkpointer)
    def graph(inputs: dict[str, Any]) -> dict[str, Any]:
        futures = [mapper(n) for n in range(len(TASK_FRACTIONS))]
        parts = [f.result() for f in futures]
        return {"summary": summarize(parts).result()}

    return graph


# --------------------------------------------------------------------------- 9 RetryPolicy
FLAKY_FAILURES = 2
_flaky_attempts: dict[str, int] = {}


def _flaky(state: Trail) -> dict[str, Any]:
    from langgraph.config import get_config

    tid = str(get_config().get("configurable", {}).get("thread_id"))
    _flaky_attempts[tid] = _flaky_attempts.get(tid, 0) + 1
    with effect("failing_node", attempt=_flaky_attempts[tid]):
        _sleep(0.1)
        if _flaky_attempts[tid] <= FLAKY_FAILURES:
            raise ValueError("Intentional failure")
        _sleep(1.9)  # the attempt that succeeds stays open long: the kill lands in it
    return {"visited": ["failing_node"]}


def retry_policy() -> StateGraph:
    """start_node -> failing_node (fails twice in each process, RetryPolicy(max_attempts=3)) -> other_node.

    Mirrors test_retry.py::test_graph_with_single_retry_policy: the failed attempts and
    the one that succeeds are one task in one step (LangGraph retries inside the step).
    """
    policy = RetryPolicy(max_attempts=3, initial_interval=0.02, backoff_factor=2.0, jitter=False,
                         retry_on=ValueError)  # fmt: skip
    b = StateGraph(Trail)
    b.add_node("start_node", _node("start_node", 0.5))
    _add_node(b, "failing_node", _flaky, retry_policy=policy)
    b.add_node("other_node", _node("other_node"))
    b.add_edge(START, "start_node")
    b.add_edge("start_node", "failing_node")
    b.add_edge("failing_node", "other_node")
    b.add_edge("other_node", END)
    return b


# --------------------------------------------------------------------------- 10 defer
def defer_node() -> StateGraph:
    """rewrite_query -> retriever_one -> analyzer_one | retriever_two; qa (defer=True) runs last.

    Mirrors test_pregel.py::test_in_one_fan_out_state_graph_defer_node: ``qa`` is added
    with ``defer=True`` and plain edges from both retrievers, so it runs once, after every
    other branch is done.
    """
    b = StateGraph(Trail)
    for name, frac in (("rewrite_query", 0.5), ("retriever_one", 0.5), ("analyzer_one", 1.0),
                       ("retriever_two", 1.5)):  # fmt: skip
        b.add_node(name, _node(name, frac))
    b.add_node("qa", _node("qa"), defer=True)
    b.add_edge(START, "rewrite_query")
    b.add_edge("rewrite_query", "retriever_one")
    b.add_edge("retriever_one", "analyzer_one")
    b.add_edge("rewrite_query", "retriever_two")
    b.add_edge("retriever_one", "qa")
    b.add_edge("retriever_two", "qa")
    b.add_edge("qa", END)
    return b


# --------------------------------------------------------------------------- 11 chain
CHAIN_LENGTH = 10


def long_chain() -> StateGraph:
    """node_0 -> node_1 -> ... -> node_9: ten supersteps of one task each.

    Mirrors test_pregel.py::test_invoke_many_processes_in_out (a chain of many processes)
    and test_add_sequence.
    """
    b = StateGraph(Trail)
    names = [f"node_{i}" for i in range(CHAIN_LENGTH)]
    b.add_sequence([(n, _node(n, 0.4)) for n in names])
    b.add_edge(START, names[0])
    b.add_edge(names[-1], END)
    return b


# --------------------------------------------------------------------------- 12 multi-edge
def simple_multi_edge() -> StateGraph:
    """up -> side | other; down waits on up and side (``add_edge(["up", "side"], "down")``).

    Mirrors test_pregel.py::test_simple_multi_edge: a join whose inputs finish in
    different supersteps' tasks, with a sibling (`other`) that is not waited for.
    """
    b = StateGraph(Trail)
    for name, frac in (("up", 0.5), ("side", 0.5), ("other", 1.5), ("down", 1.0)):
        b.add_node(name, _node(name, frac))
    b.add_edge(START, "up")
    b.add_edge("up", "side")
    b.add_edge("up", "other")
    b.add_edge(["up", "side"], "down")
    b.add_edge("down", END)
    return b


# --------------------------------------------------------------------------- 13 doubly nested
def doubly_nested() -> StateGraph:
    """parent_1 -> child (child_1 -> grandchild (grandchild_1 -> grandchild_2)) -> parent_2.

    Mirrors test_large_cases.py::test_doubly_nested_graph_state: a subgraph inside a
    subgraph; the grandchild checkpoints under ``child:<id>|grandchild:<id>``.
    """
    grand = chain(
        InnerState,
        ("grandchild_1", _inner("grandchild_1")),
        ("grandchild_2", _inner("grandchild_2")),
    )
    child = chain(InnerState, ("child_1", _inner("child_1", 0.5)), ("grandchild", grand.compile()))
    return chain(
        OuterState,
        ("parent_1", _node("parent_1", 0.5)),
        ("child", child.compile()),
        ("parent_2", _node("parent_2")),
    )


# --------------------------------------------------------------------------- 14 START Send
class WeatherState(TypedDict, total=False):
    locations: list[str]
    results: Annotated[list[str], operator.add]


WEATHER_FRACTIONS = {"sf": 0.5, "nyc": 1.5}


def _get_weather(state: dict[str, Any]) -> dict[str, Any]:
    loc = state["location"]
    with effect("get_weather", location=loc):
        _sleep(WEATHER_FRACTIONS.get(loc, 1.0))
    return {"results": [f"sunny in {loc}"]}


def conditional_entry_send() -> StateGraph:
    """START -conditional-> Send("get_weather", {...}) per location -> summarize.

    Mirrors test_pregel.py::test_conditional_entrypoint_to_multiple_state_graph: the
    entry point itself is a conditional edge returning ``Send`` packets, so the first
    superstep's tasks are all PUSH tasks of one node.
    """
    b = StateGraph(WeatherState)
    b.add_node("get_weather", _get_weather)
    b.add_node("summarize", _node("summarize"))
    _send_each(b, "locations", "get_weather", "location")
    b.add_edge("get_weather", "summarize")
    b.add_edge("summarize", END)
    return b


# --------------------------------------------------------------------------- 15 parent Command
class DialogState(TypedDict, total=False):
    dialog_state: Annotated[list[str], operator.add]


def _node_b_child(state: DialogState) -> Command[Any]:
    with effect("node_b_child"):
        _sleep(0.6)
    return Command(graph=Command.PARENT, goto="node_b_parent",
                   update={"dialog_state": ["b_child_state"]})  # fmt: skip


def _dialog(name: str, fraction: float = 1.0) -> Callable[..., Any]:
    return _node(name, fraction, "dialog_state")


def parent_command() -> StateGraph:
    """subgraph_node (node_a_child -> node_b_child: Command(graph=PARENT, goto=...)) -> node_b_parent.

    Mirrors test_pregel.py::test_parent_command_goto: a node inside a subgraph routes the
    parent graph with ``Command(graph=Command.PARENT, goto="node_b_parent")``.
    """
    sub = StateGraph(DialogState)
    sub.add_node("node_a_child", _dialog("node_a_child"))
    sub.add_node("node_b_child", _node_b_child)
    sub.add_edge(START, "node_a_child")
    sub.add_edge("node_a_child", "node_b_child")
    b = StateGraph(DialogState)
    b.add_node("subgraph_node", sub.compile(), destinations=("node_b_parent",))
    b.add_node("node_b_parent", _dialog("node_b_parent"))
    b.add_edge(START, "subgraph_node")
    b.add_edge("node_b_parent", END)
    return b


# --------------------------------------------------------------------------- 16 checkpointer=True
class KeyState(TypedDict, total=False):
    my_key: Annotated[str, operator.add]


def _key_node(name: str, fraction: float = 1.0) -> Callable[..., Any]:
    return _node(name, fraction, "my_key", f" {name}")


def subgraph_checkpoint_true() -> StateGraph:
    """inner (inner_1 -> inner_2, compiled with checkpointer=True) runs twice, then END.

    Mirrors test_pregel.py::test_subgraph_checkpoint_true: a subgraph compiled with
    ``checkpointer=True`` keeps its own history across its two runs, under the stable
    namespace ``inner`` (no task id).
    """
    inner = StateGraph(KeyState)
    inner.add_node("inner_1", _key_node("inner_1", 0.5))
    inner.add_node("inner_2", _key_node("inner_2"))
    inner.add_edge(START, "inner_1")
    inner.add_edge("inner_1", "inner_2")
    inner.add_edge("inner_2", END)
    b = StateGraph(KeyState)
    b.add_node("inner", inner.compile(checkpointer=True))
    b.add_edge(START, "inner")
    b.add_conditional_edges("inner", lambda s: "inner" if s["my_key"].count("inner_2") < 2 else END)
    return b


# --------------------------------------------------------------------------- 17 subgraph beside a node
def subgraph_parallel() -> StateGraph:
    """inner (inner_1 -> inner_2) runs beside outer_1; outer_2 waits for both.

    Mirrors test_pregel.py::test_stream_subgraphs_during_execution: a compiled subgraph
    and a plain node start in the same superstep, the plain node finishes first (its
    writes land while the subgraph is still running its own steps), and
    ``add_edge(["inner", "outer_1"], "outer_2")`` joins them.
    """
    inner = chain(
        InnerState, ("inner_1", _inner("inner_1", 0.5)), ("inner_2", _inner("inner_2", 1.5))
    )
    b = StateGraph(OuterState)
    b.add_node("inner", inner.compile())
    b.add_node("outer_1", _node("outer_1", 1.0))
    b.add_node("outer_2", _node("outer_2", 1.0))
    b.add_edge(START, "inner")
    b.add_edge(START, "outer_1")
    b.add_edge(["inner", "outer_1"], "outer_2")
    b.add_edge("outer_2", END)
    return b


# --------------------------------------------------------------------------- 18 join in a loop
class RoundsState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]


def _decide(state: RoundsState) -> Literal["rewrite_query", "qa"]:
    return "qa" if state.get("visited", []).count("decider") >= 2 else "rewrite_query"


def waiting_edge_loop() -> StateGraph:
    """(rewrite_query -> analyzer_one -> retriever_one | retriever_two) -> decider, twice; then qa.

    Mirrors test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_multiple: a join
    (``add_edge(["retriever_one", "retriever_two"], "decider")``) inside a loop that a
    conditional edge closes, so every node of the round runs twice with new task ids.
    """
    return _waiting_edge_loop(None)


def _waiting_edge_loop(rewrite_cache: Any) -> StateGraph:
    """waiting_edge_loop's builder; `rewrite_cache` a `CachePolicy` for rewrite_query."""
    b = StateGraph(RoundsState)
    for name, frac in (("rewrite_query", 0.5), ("analyzer_one", 0.5), ("retriever_one", 0.5),
                       ("retriever_two", 1.5), ("decider", 0.3), ("qa", 1.0)):  # fmt: skip
        policy = rewrite_cache if name == "rewrite_query" else None
        b.add_node(name, _node(name, frac), cache_policy=policy)
    b.add_edge(START, "rewrite_query")
    b.add_edge("rewrite_query", "analyzer_one")
    b.add_edge("analyzer_one", "retriever_one")
    b.add_edge("rewrite_query", "retriever_two")
    b.add_edge(["retriever_one", "retriever_two"], "decider")
    b.add_conditional_edges("decider", _decide)
    b.add_edge("qa", END)
    return b


# --------------------------------------------------------------------------- 19 functional interrupt
def interrupt_task_functional(checkpointer: Any) -> Any:
    """@entrypoint `graph`: @task foo, @task bar (calls interrupt()), then @task baz and qux.

    Mirrors test_pregel.py::test_interrupt_task_functional: a task pauses the entrypoint
    with ``interrupt()``; ``Command(resume=...)`` re-runs the entrypoint, which takes foo's
    saved result, re-runs bar with its answer and goes on. The kill lands in the answered run.
    """
    from langgraph.func import entrypoint, task

    @task
    def foo(text: str) -> str:
        with effect("foo"):
            _sleep(0.5)
        return text + "foo"

    @task
    def bar(text: str) -> str:
        answer = interrupt("Provide value for bar:")  # paused here in the first invocation
        with effect("bar", answer=str(answer)):
            _sleep(1.0)
        return text + str(answer)

    @task
    def baz(text: str) -> str:
        with effect("baz"):
            _sleep(0.5)
        return text + "baz"

    @task
    def qux(text: str) -> str:
        with effect("qux"):
            _sleep(1.0)
        return text + "qux"

    @entrypoint(checkpointer=checkpointer)
    def graph(inputs: dict[str, Any]) -> dict[str, Any]:
        text = bar(foo(inputs.get("a", "")).result()).result()
        return {"a": qux(baz(text).result()).result()}

    return graph


# --------------------------------------------------------------------------- 20 two interrupts
class ApprovalState(TypedDict, total=False):
    steps: Annotated[list[str], operator.add]


def _two_approvals(state: ApprovalState) -> dict[str, Any]:
    with effect("draft"):  # runs again every time the node is resumed
        _sleep(0.5)
    first = interrupt("First interrupt")
    second = interrupt("Second interrupt")
    with effect("apply", first=str(first), second=str(second)):
        _sleep(1.0)
    return {"steps": [f"node:{first},{second}"]}


def multiple_interrupts() -> StateGraph:
    """prepare -> node (interrupt() twice in one node) -> finish.

    Mirrors test_pregel.py::test_multiple_interrupt_state_persistence: one node pauses
    the thread twice; each ``Command(resume=...)`` re-runs the node from its top, so the
    work before the interrupts repeats in every invocation. The kill lands in the third.
    """
    return chain(
        ApprovalState,
        ("prepare", _step("prepare", 0.5)),
        ("node", _two_approvals),
        ("finish", _step("finish", 1.0)),
    )


def _step(name: str, fraction: float) -> Callable[..., Any]:
    return _node(name, fraction, "steps")


# --------------------------------------------------------------------------- 21 parallel nodes
def parallel_unequal() -> StateGraph:
    """slow | fast from START (1 and 2 units), then report, then archive.

    Mirrors test_pregel.py::test_parallel_node_execution: two nodes of one superstep run
    at once and finish apart, so the first one's writes are saved while its sibling runs.
    """
    b = StateGraph(Trail)
    for name, frac in (("slow", 1.0), ("fast", 2.0), ("report", 0.5), ("archive", 1.0)):
        b.add_node(name, _node(name, frac))
    b.add_edge(START, "slow")
    b.add_edge(START, "fast")
    b.add_edge(["slow", "fast"], "report")
    b.add_edge("report", "archive")
    b.add_edge("archive", END)
    return b


# --------------------------------------------------------------------------- 22 interrupt in a subgraph
class ReviewInnerState(TypedDict, total=False):
    inner_visited: Annotated[list[str], operator.add]


def _review(state: ReviewInnerState) -> dict[str, Any]:
    with effect("draft"):  # runs again when the answer re-runs the node
        _sleep(0.5)
    answer = interrupt("Publish the draft?")
    with effect("publish", answer=str(answer)):
        _sleep(1.0)
    return {"inner_visited": ["review"]}


def interrupt_subgraph() -> StateGraph:
    """prepare -> review_graph (a subgraph: review logs a draft, interrupt(), publishes) -> archive.

    Mirrors test_pregel.py::test_interrupt_subgraph: a node inside a compiled subgraph
    pauses the whole thread; ``Command(resume=...)`` re-enters the subgraph and re-runs the
    node from its top. The kill lands in the answered invocation.
    """
    child = StateGraph(ReviewInnerState)
    child.add_node("review", _review)
    child.add_edge(START, "review")
    child.add_edge("review", END)
    return chain(
        OuterState,
        ("prepare", _node("prepare", 0.5)),
        ("review_graph", child.compile()),
        ("archive", _node("archive", 1.0)),
    )


# --------------------------------------------------------------------------- 23 static breakpoint
def _charge_and_email(state: Trail) -> dict[str, Any]:
    with effect("charge"):
        _sleep(1.0)
    with effect("email"):
        _sleep(1.0)
    return {"visited": ["node2"]}


def static_breakpoint(checkpointer: Any) -> Any:
    """node1 -> node2 (charges, then emails) -> node3, compiled with interrupt_before=["node2"].

    Mirrors test_pregel.py::test_command_with_static_breakpoints: the thread stops before
    node2 without any node calling interrupt(); ``invoke(None)`` goes on from there. The kill
    lands in that second invocation.
    """
    b = StateGraph(Trail)
    b.add_node("node1", _node("node1", 1.0))
    b.add_node("node2", _charge_and_email)
    b.add_node("node3", _node("node3", 1.0))
    b.add_edge(START, "node1")
    b.add_edge("node1", "node2")
    b.add_edge("node2", "node3")
    b.add_edge("node3", END)
    return b.compile(checkpointer=checkpointer, interrupt_before=["node2"])


# --------------------------------------------------------------------------- 24 Send tool calls
class ReactState(TypedDict, total=False):
    rounds: Annotated[list[int], operator.add]
    results: Annotated[list[str], operator.add]


TOOL_FRACTIONS = (0.5, 1.5, 2.5)
REACT_ROUNDS = 2


def _react_agent(state: ReactState) -> dict[str, Any]:
    with effect("plan", round=len(state.get("rounds", []))):
        _sleep(1.0)
    return {"rounds": [len(state.get("rounds", []))]}


def _react_route(state: ReactState) -> Any:
    done = len(state.get("rounds", []))
    if done > REACT_ROUNDS:
        return END
    return [Send("tool", {"call": i, "round": done}) for i in range(len(TOOL_FRACTIONS))]


def _react_tool(call: dict[str, Any]) -> dict[str, Any]:
    with effect("call_tool", call=call["call"], round=call["round"]):
        _sleep(TOOL_FRACTIONS[call["call"]])
    return {"results": [f"{call['round']}:{call['call']}"]}


def send_react() -> StateGraph:
    """agent -> Send("tool", call) for each of three tool calls (unequal) -> agent, twice, then END.

    Mirrors test_large_cases.py::test_send_react_interrupt (without its breakpoint): a ReAct
    loop whose tool calls are `Send` tasks of one node, run side by side each round.
    """
    return agent_tool_loop(ReactState, _react_agent, _react_tool, _react_route)


# --------------------------------------------------------------------------- 25 retry of two effects
_payment_attempts: dict[str, int] = {}


def _reserve_and_charge(state: Trail) -> dict[str, Any]:
    from langgraph.config import get_config

    tid = str(get_config().get("configurable", {}).get("thread_id"))
    _payment_attempts[tid] = _payment_attempts.get(tid, 0) + 1
    first = _payment_attempts[tid] == 1
    with effect("reserve"):
        _sleep(0.3)
    with effect("charge", attempt=_payment_attempts[tid]):
        _sleep(0.5 if first else 1.5)
        if first:
            raise ValueError("card declined, try again")
    return {"visited": ["charge_node"]}


def retry_two_effects() -> StateGraph:
    """start -> charge_node (reserves, then charges; the first charge fails, RetryPolicy retries) -> notify.

    Mirrors test_retry.py::test_graph_with_single_retry_policy with a node that logs two
    effects: the retry runs the node from its top, so the reservation is logged twice in one
    step and one process, the second time after the failed charge.
    """
    policy = RetryPolicy(max_attempts=3, initial_interval=0.02, backoff_factor=2.0, jitter=False,
                         retry_on=ValueError)  # fmt: skip
    b = StateGraph(Trail)
    b.add_node("start", _node("start", 0.5))
    _add_node(b, "charge_node", _reserve_and_charge, retry_policy=policy)
    b.add_node("notify", _node("notify", 1.0))
    b.add_edge(START, "start")
    b.add_edge("start", "charge_node")
    b.add_edge("charge_node", "notify")
    b.add_edge("notify", END)
    return b


# --------------------------------------------------------------------------- 26 subgraph invoked in a node
class SubInvokeState(TypedDict, total=False):
    bar: str
    baz: str


def _sub_node_1(state: SubInvokeState) -> dict[str, Any]:
    with effect("prepare_question"):  # runs again when the answer re-runs the node
        _sleep(0.5)
    value = interrupt("Provide baz value")
    return {"baz": str(value)}


def _sub_node_2(state: SubInvokeState) -> dict[str, Any]:
    with effect("combine"):
        _sleep(1.0)
    return {"bar": state.get("bar", "") + state.get("baz", "")}


_SUBGRAPH_IN_NODE: Any = None


def _invoking_node(state: Trail) -> dict[str, Any]:
    global _SUBGRAPH_IN_NODE
    if _SUBGRAPH_IN_NODE is None:
        sub = StateGraph(SubInvokeState)
        sub.add_node("subgraph_node_1", _sub_node_1)
        sub.add_node("subgraph_node_2", _sub_node_2)
        sub.add_edge(START, "subgraph_node_1")
        sub.add_edge("subgraph_node_1", "subgraph_node_2")
        _SUBGRAPH_IN_NODE = sub.compile(checkpointer=True)
    with effect("node_2"):
        _sleep(0.3)
    _SUBGRAPH_IN_NODE.invoke({"bar": "hi"})
    return {"visited": ["node_2"]}


def subgraph_invoked_in_node() -> StateGraph:
    """node_1 -> node_2 (calls subgraph.invoke(); the subgraph, checkpointer=True, pauses) -> node_3.

    Mirrors test_pregel.py::test_subgraph_checkpoint_true_interrupt: a node calls a compiled
    subgraph's ``invoke`` inside its body; the subgraph's node pauses the thread, the answer
    re-runs node_2 from its top and the subgraph from its saved checkpoint. The kill lands
    in the answered invocation.
    """
    return chain(
        Trail,
        ("node_1", _node("node_1", 0.5)),
        ("node_2", _invoking_node),
        ("node_3", _node("node_3", 1.0)),
    )


# --------------------------------------------------------------------------- 27 nested tasks, a graph call
def imp_nested_interrupt(checkpointer: Any) -> Any:
    """@entrypoint: @task mapper (each calls @task submapper), interrupt(), a compiled graph's
    invoke(), then @task publish.

    Mirrors test_pregel.py::test_imp_nested: calls nested in calls, an interrupt in the
    entrypoint itself, and a plain compiled graph invoked from it; the kill lands in the
    answered invocation.
    """
    from langgraph.func import entrypoint, task

    inner = chain(Trail, ("mynode", _node("mynode", 1.0)))
    add_a = inner.compile()

    @task
    def submapper(n: int) -> str:
        with effect("submapper", n=n):
            _sleep(0.2 * (n + 1))
        return str(n)

    @task
    def mapper(n: int) -> str:
        sub = submapper(n)
        with effect("mapper", n=n):
            _sleep(0.3)
        return sub.result() * 2

    @task
    def publish(text: str) -> str:
        with effect("publish"):
            _sleep(1.0)
        return text

    @entrypoint(checkpointer=checkpointer)
    def graph(inputs: dict[str, Any]) -> dict[str, Any]:
        mapped = [f.result() for f in [mapper(n) for n in range(2)]]
        answer = interrupt("question")
        add_a.invoke({"visited": [str(answer)]})
        return {"published": publish("+".join(mapped)).result()}

    return graph


# --------------------------------------------------------------------------- 28 Command(goto=[Send])
class FanState(TypedDict, total=False):
    name: str
    done: Annotated[list[str], operator.add]


FAN_FRACTIONS = (0.5, 1.5, 2.5)


def _fan_one(state: FanState) -> Command[Any]:
    with effect("one"):
        _sleep(0.5)
    return Command(goto=[Send("two", {"i": i}) for i in range(len(FAN_FRACTIONS))],
                   update={"name": "one"})  # fmt: skip


def _fan_two(arg: dict[str, Any]) -> dict[str, Any]:
    with effect("two", i=arg["i"]):
        _sleep(FAN_FRACTIONS[arg["i"]])
    return {"done": [str(arg["i"])]}


def command_send() -> StateGraph:
    """one returns Command(goto=[Send("two", ...) x3], update=...); two (unequal) -> three.

    Mirrors test_large_cases.py::test_send_react_interrupt_control: ``Command(goto=[Send(...)])``
    from the agent; a node fans out with `Send` packets in a `Command`
    instead of a conditional edge.
    """
    b = StateGraph(FanState)
    b.add_node("one", _fan_one, destinations=("two",))
    b.add_node("two", _fan_two)
    b.add_node("three", _node("three", 1.0, "done"))
    b.add_edge(START, "one")
    b.add_edge("two", "three")
    b.add_edge("three", END)
    return b


# --------------------------------------------------------------------------- 29 interrupt in a loop
class ChatState(TypedDict, total=False):
    turns: Annotated[list[str], operator.add]


CHAT_TURNS = 2


def _chat_agent(state: ChatState) -> dict[str, Any]:
    with effect("think", turn=len(state.get("turns", []))):
        _sleep(1.0)
    return {}


def _chat_human(state: ChatState) -> dict[str, Any]:
    with effect("ask"):  # runs again when the answer re-runs the node
        _sleep(0.3)
    answer = interrupt("Your reply?")
    with effect("record", answer=str(answer)):
        _sleep(0.3)
    return {"turns": [str(answer)]}


def interrupt_loop() -> StateGraph:
    """agent -> human (logs, interrupt(), logs) -> agent, for two answers, then finish.

    Mirrors test_large_cases.py::test_dynamic_interrupt run as a chat: the interrupting node
    sits in a loop, so each answer is a new invocation and the same node pauses in a later
    step; the kill lands after the second answer.
    """
    b = StateGraph(ChatState)
    b.add_node("agent", _chat_agent)
    b.add_node("human", _chat_human)
    b.add_node("finish", _node("finish", 1.0, "turns", ["done"]))
    b.add_edge(START, "agent")
    b.add_conditional_edges(
        "agent", lambda s: "finish" if len(s.get("turns", [])) >= CHAT_TURNS else "human"
    )
    b.add_edge("human", "agent")
    b.add_edge("finish", END)
    return b


# --------------------------------------------------------------------------- 30 parallel interrupts
class AskState(TypedDict, total=False):
    prompt: str
    answers: Annotated[list[str], operator.add]


class PromptsState(TypedDict, total=False):
    prompts: list[str]
    answers: Annotated[list[str], operator.add]


_ASK_UNITS = {"a": (0.5, 1.0), "b": (1.5, 0.5)}
"""Per prompt: units logged before `interrupt()` and after the answer."""


def _asker(units: dict[str, tuple[float, float]]) -> Callable[[AskState], dict[str, Any]]:
    """A worker that logs `ask`, pauses at ``interrupt(prompt)``, then logs `record` with the
    answer, each for its prompt's units in `units`."""

    def get_human_input(state: AskState) -> dict[str, Any]:
        prompt = state["prompt"]
        before, after = units.get(prompt, (1.0, 1.0))
        with effect("ask", prompt=prompt):  # runs again each time the worker's task re-runs
            _sleep(before)
        answer = interrupt(prompt)
        with effect("record", prompt=prompt, answer=str(answer)):
            _sleep(after)
        return {"answers": [f"{prompt}:{answer}"]}

    return get_human_input


_get_human_input = _asker(_ASK_UNITS)


def parallel_interrupts() -> StateGraph:
    """START -Send-> child_graph (a subgraph whose node pauses) x2 -> cleanup.

    Mirrors test_pregel.py::test_parallel_interrupts: two `Send` workers run the same
    subgraph, both pause in one superstep, and the answers come one at a time
    (``Command(resume={interrupt_id: value})`` for the first pending interrupt), so the
    worker not answered re-runs from its top and pauses again. The kill lands in the third
    invocation, after the second answer.
    """
    child = chain(AskState, ("get_human_input", _get_human_input))
    return _workers_then(
        PromptsState, ("child_graph", child), ("prompts", "prompt"), "cleanup", "answers"
    )


# --------------------------------------------------------------------------- 31 Send to a subgraph
class JokeState(TypedDict, total=False):
    subject: str
    draft: str
    jokes: Annotated[list[str], operator.add]


class JokesState(TypedDict, total=False):
    subjects: list[str]
    jokes: Annotated[list[str], operator.add]


_JOKE_UNITS = {"cats": (0.5, 0.5), "dogs": (2.0, 1.0), "birds": (3.5, 1.0)}
"""Per subject: the units `edit` and `generate` take (the workers finish far apart)."""


def _edit(state: JokeState) -> dict[str, Any]:
    subject = state["subject"]
    with effect("edit", subject=subject):
        _sleep(_JOKE_UNITS.get(subject, (1.0, 1.0))[0])
    return {"draft": f"{subject} - hohoho"}


def _generate(state: JokeState) -> dict[str, Any]:
    subject = state["subject"]
    with effect("generate", subject=subject):
        _sleep(_JOKE_UNITS.get(subject, (1.0, 1.0))[1])
    return {"jokes": [f"Joke about {state.get('draft', subject)}"]}


def send_to_subgraph() -> StateGraph:
    """START -Send-> generate_joke (a subgraph: edit -> generate) x3, unequal -> pick_best.

    Mirrors test_large_cases.py::test_send_to_nested_graphs: each `Send` worker runs the
    compiled subgraph under a namespace of its own task, with its own supersteps, so one
    worker has finished, one is generating and one still editing when the early kill lands.
    """
    sub = chain(JokeState, ("edit", _edit), ("generate", _generate))
    return _workers_then(
        JokesState, ("generate_joke", sub), ("subjects", "subject"), "pick_best", "jokes"
    )


# --------------------------------------------------------------------------- 32 three inputs on one thread
class TurnState(TypedDict, total=False):
    turns: Annotated[list[str], operator.add]
    total: Annotated[int, operator.add]


def _respond(state: TurnState) -> dict[str, Any]:
    with effect("reply", turn=len(state.get("turns", []))):
        _sleep(1.0)
    return {"total": 1}


def _remember(state: TurnState) -> dict[str, Any]:
    with effect("save_memory", turn=len(state.get("turns", []))):
        _sleep(1.0)
    return {}


def multi_turn() -> StateGraph:
    """respond -> remember, invoked with three fresh inputs on one thread; the kill is in the third.

    Mirrors test_pregel.py::test_invoke_checkpoint_three: each invocation adds to channels
    the earlier ones filled (`total`), so the thread holds the checkpoints of two finished
    invocations before the one that dies, as a chat thread does.
    """
    return chain(TurnState, ("respond", _respond), ("remember", _remember))


# --------------------------------------------------------------------------- 33 node error handler
def _declined_charge(state: Trail) -> dict[str, Any]:
    with effect("charge"):
        _sleep(1.0)
        raise ValueError("card declined")


def _refund_handler(state: Trail) -> Command[Any]:
    with effect("refund"):
        _sleep(1.5)
    return Command(update={"visited": ["refund"]}, goto="notify")


def error_handler() -> StateGraph:
    """prepare -> charge (always raises; error_handler refunds, then Command(goto="notify")) -> notify.

    Mirrors test_retry.py::test_graph_error_handler_can_route_with_command and
    ::test_error_handler_resumes_after_crash: the handler runs in the failed task's step as a
    task of its own (``__error_handler__charge``); a resume finds the failure among the
    pending writes and runs the handler again, not the node that raised.
    """
    b = StateGraph(Trail)
    b.add_node("prepare", _node("prepare", 0.5))
    b.add_node("charge", _declined_charge, error_handler=_refund_handler)
    b.add_node("notify", _node("notify", 1.0))
    b.add_edge(START, "prepare")
    b.add_edge("prepare", "charge")
    b.add_edge("notify", END)
    return b


# --------------------------------------------------------------------------- 34 a stateful entrypoint
def _text_task(name: str, change: Callable[[str], str]) -> Any:
    """An ``@task`` named `name` that holds an effect keyed by its text open for a unit,
    then returns `change(text)`."""
    from langgraph.func import task

    def run(text: str) -> str:
        with effect(name, text=text):
            _sleep(1.0)
        return change(text)

    run.__name__ = name
    return task(run)


def entrypoint_stateful(checkpointer: Any) -> Any:
    """@entrypoint `stateful(inputs, *, previous)`: @task `reply`, then @task `memo`; three inputs.

    Mirrors test_pregel.py::test_entrypoint_stateful: each invocation reads what the last one
    returned (`previous`, saved with the thread), so the thread holds two finished functional
    invocations before the one the kill lands in.
    """
    from langgraph.func import entrypoint

    reply = _text_task("reply", str.upper)
    memo = _text_task("memo", str)

    @entrypoint(checkpointer=checkpointer)
    def stateful(inputs: dict[str, Any], *, previous: Any = None) -> dict[str, Any]:
        said = reply(str(inputs.get("text", ""))).result()
        kept = memo(said).result()
        return {"turns": [*(previous or {}).get("turns", []), kept]}

    return stateful


# --------------------------------------------------------------------------- 35 a paused subgraph beside a node
def nested_interrupts_parallel(checkpointer: Any) -> Any:
    """inner (inner_1 -> inner_2, compiled with interrupt_before=["inner_2"]) | outer_1 -> outer_2.

    Mirrors test_pregel.py::test_nested_graph_interrupts_parallel: a static breakpoint inside
    a subgraph that runs beside a plain node pauses the whole thread before inner_2;
    ``invoke(None)`` goes on from there, and the kill lands in that second invocation.
    """
    inner = chain(
        KeyState,
        ("inner_1", _node("inner_1", 0.5, "my_key", "got here")),
        ("inner_2", _node("inner_2", 1.0, "my_key", " and there")),
    )
    b = StateGraph(KeyState)
    b.add_node("inner", inner.compile(interrupt_before=["inner_2"]))
    b.add_node("outer_1", _node("outer_1", 1.5, "my_key", " and parallel"))
    b.add_node("outer_2", _node("outer_2", 1.0, "my_key", " and back again"))
    b.add_edge(START, "inner")
    b.add_edge(START, "outer_1")
    b.add_edge(["inner", "outer_1"], "outer_2")
    b.add_edge("outer_2", END)
    return b.compile(checkpointer=checkpointer)


# --------------------------------------------------------------------------- 36 a conditional edge after Send workers
class CountState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]


_SEND_UNITS = (1.0, 2.0)


def _two(arg: dict[str, Any]) -> dict[str, Any]:
    with effect("two", i=arg["i"]):
        _sleep(_SEND_UNITS[arg["i"] % len(_SEND_UNITS)])
    return {"visited": ["two"]}


def cond_edge_after_send() -> StateGraph:
    """one -Send-> two x2 (unequal) -conditional-> three.

    Mirrors test_pregel.py::test_cond_edge_after_send: the workers' own conditional edge
    routes on to `three`, which runs once though both workers wrote its branch channel.
    """
    b = StateGraph(CountState)
    b.add_node("one", _node("one", 0.5))
    b.add_node("two", _two)
    b.add_node("three", _node("three", 1.0))
    b.add_edge(START, "one")
    b.add_conditional_edges("one", lambda s: [Send("two", {"i": i}) for i in range(2)], ["two"])
    b.add_conditional_edges("two", lambda s: "three", ["three"])
    b.add_edge("three", END)
    return b


# --------------------------------------------------------------------------- 37 a parallel step that raised
class ValueState(TypedDict, total=False):
    value: Annotated[int, operator.add]
    visited: Annotated[list[str], operator.add]


_attempts_here: dict[str, int] = {}


def _thread_attempt(name: str) -> int:
    """The how-manieth attempt at `name` on this thread, counted across processes.

    The count lives in a file next to the effects log (each invocation of a kill-test run is
    a process of its own), so a node can fail in the first invocation and succeed when a
    later one, or the resume after the kill, runs it again.
    """
    from langgraph.config import get_config

    tid = str(get_config().get("configurable", {}).get("thread_id"))
    base = settings.get(ENV_LOG)
    if not base:
        _attempts_here[tid] = _attempts_here.get(tid, 0) + 1
        return _attempts_here[tid]
    counter = Path(base).with_name(f"attempts-{name}-{tid}.txt")
    with _appending([counter]) as fds:
        os.write(fds[0], b"x")
    return counter.stat().st_size


PENDING_FAILURES = 2


def _not_good(state: ValueState) -> dict[str, Any]:
    attempt = _thread_attempt("two")
    with effect("two", attempt=attempt):
        if attempt <= PENDING_FAILURES:
            _sleep(0.6)
            raise ConnectionError("I'm not good")
        _sleep(1.5)
    return {"value": 3, "visited": ["two"]}


def pending_writes_resume() -> StateGraph:
    """one | two (RetryPolicy(max_attempts=2), fails both) -> report; ``invoke(None)`` retries.

    Mirrors test_pregel.py::test_pending_writes_resume: `one` finishes in the step where
    `two` fails its two attempts, so the first invocation raises with `one`'s write saved
    as a pending write beside `two`'s error; ``invoke(None)`` re-runs `two` only, and the
    kill lands in that second invocation.
    """
    b = StateGraph(ValueState)
    b.add_node("one", _node("one", 0.5, "value", 2))
    _add_node(b, "two", _not_good,
               retry_policy=RetryPolicy(max_attempts=2, initial_interval=0, jitter=False,
                                        retry_on=ConnectionError))  # fmt: skip
    b.add_node("report", _node("report", 1.0))
    b.add_edge(START, "one")
    b.add_edge(START, "two")
    b.add_edge(["one", "two"], "report")
    b.add_edge("report", END)
    return b


# --------------------------------------------------------------------------- 38 every interrupt answered at once
_MULTI_UNITS = {"a": (0.3, 0.5), "b": (0.6, 1.5), "c": (0.9, 2.5)}
"""Per prompt: units logged before `interrupt()` and after the answer."""


def multi_resume() -> StateGraph:
    """START -Send-> child_graph (a subgraph whose node pauses) x3 -> cleanup; one answer map.

    Mirrors test_pregel.py::test_multi_resume: three `Send` workers pause in one superstep
    and a single ``Command(resume={id: value, ...})`` answers them all; each worker re-runs
    from its top, and they finish far apart. The kill lands in the answered invocation.
    """
    child = chain(AskState, ("get_human_input", _asker(_MULTI_UNITS)))
    return _workers_then(
        PromptsState, ("child_graph", child), ("prompts", "prompt"), "cleanup", "answers"
    )


# --------------------------------------------------------------------------- 39 Send packets from two nodes
_EMIT_UNITS = {1: 0.5, 2: 1.0, 3: 2.0, 4: 3.0}


def _emit_worker(n: int) -> dict[str, Any]:
    with effect("2", n=n):
        _sleep(_EMIT_UNITS.get(n, 1.0))
    return {"visited": [f"2|{n}"]}


def concurrent_emit_sends() -> StateGraph:
    """1 | 1.1 -> Send("2", n) x4 from both, with 3.1 beside them -> 3.

    Mirrors test_pregel.py::test_concurrent_emit_sends, node names and all: two nodes of one
    step each emit `Send` packets to `2` (one of them also routes to `3.1`), so four workers
    of unequal length and a plain node share the next superstep; the workers' own edge
    leads to `3`.
    """
    b = StateGraph(Trail)
    b.add_node("1", _node("1", 0.5))
    b.add_node("1.1", _node("1.1", 1.0))
    b.add_node("2", _emit_worker)
    b.add_node("3", _node("3", 1.0))
    b.add_node("3.1", _node("3.1", 0.3))
    b.add_edge(START, "1")
    b.add_edge(START, "1.1")
    b.add_conditional_edges("1", lambda s: [Send("2", 1), Send("2", 2), "3.1"])
    b.add_conditional_edges("1.1", lambda s: [Send("2", 3), Send("2", 4)])
    b.add_conditional_edges("2", lambda s: "3", ["3"])
    return b


# --------------------------------------------------------------------------- 40 two subgraphs invoked in one node
class SubCounterState(TypedDict, total=False):
    sub_counter: Annotated[int, operator.add]


class OtherCounterState(TypedDict, total=False):
    other_sub_counter: Annotated[int, operator.add]


class ParentCounterState(TypedDict, total=False):
    parent_counter: int
    visited: Annotated[list[str], operator.add]


def multiple_subgraphs_checkpointer() -> StateGraph:
    """parent_node (invokes sub_graph_1, checkpointer=True, then sub_graph_2) -> finish; two inputs.

    Mirrors test_pregel.py::test_multiple_subgraphs_checkpointer: one node calls two compiled
    graphs' `invoke()` in turn; the first keeps its history under the stable namespace
    ``parent_node`` across invocations, the second checkpoints under a namespace of its own
    call. The thread gets a second input, and the kill lands in it.
    """
    sub_graph_1 = chain(
        SubCounterState, ("subgraph_node", _node("subgraph_node", 1.0, "sub_counter", 2))
    ).compile(checkpointer=True)
    sub_graph_2 = chain(
        OtherCounterState,
        ("other_subgraph_node", _node("other_subgraph_node", 1.0, "other_sub_counter", 3)),
    ).compile()

    def parent_node(state: ParentCounterState) -> dict[str, Any]:
        result = sub_graph_1.invoke({"sub_counter": state.get("parent_counter", 0)})
        other = sub_graph_2.invoke({"other_sub_counter": result["sub_counter"]})
        return {"parent_counter": other["other_sub_counter"]}

    return chain(ParentCounterState, ("parent_node", parent_node), ("finish", _node("finish")))


# --------------------------------------------------------------------------- 41 a subgraph in a loop
class LoopKeyState(TypedDict, total=False):
    my_key: str


def subgraph_durability_inherited(checkpointer: Any) -> Any:
    """inner (inner_1 -> inner_2, compiled with the parent's checkpointer) runs twice in a loop.

    Mirrors test_pregel.py::test_subgraph_durability_inherited: the subgraph is compiled with
    the same saver as its parent, so it checkpoints under the parent's thread in a namespace
    of each run's own task, with the durability the parent was invoked with.
    """
    inner = chain(
        KeyState,
        ("inner_1", _node("inner_1", 0.5, "my_key", " got here")),
        ("inner_2", _node("inner_2", 1.0, "my_key", " and there")),
    ).compile(checkpointer=checkpointer)
    b = StateGraph(LoopKeyState)
    b.add_node("inner", inner)
    b.add_edge(START, "inner")
    b.add_conditional_edges("inner", lambda s: "inner" if s["my_key"].count("there") < 2 else END)
    return b.compile(checkpointer=checkpointer)


# --------------------------------------------------------------------------- 42 the prebuilt ReAct agent
_REACT_SCRIPT: tuple[tuple[tuple[str, dict[str, Any]], ...], ...] = (
    (("lookup_order", {"order": "A-17"}), ("charge_card", {"amount": 30})),
    (("send_receipt", {"to": "ann@example.com"}),),
    (),
)
"""The tool calls of each model turn: two side by side, then one, then the final answer."""

_TOOL_UNITS = {"lookup_order": 0.5, "charge_card": 1.5, "send_receipt": 1.0}


def _scripted_chat_model(
    script: tuple[tuple[tuple[str, dict[str, Any]], ...], ...] = _REACT_SCRIPT,
) -> Any:
    """A chat model that plays `script` (turn = AI messages so far), like the
    FakeToolCallingModel of libs/prebuilt/tests/model.py, holding an `llm_call` effect open."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class ScriptedChatModel(BaseChatModel):
        def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:  # fmt: skip
            turn = sum(1 for m in messages if isinstance(m, AIMessage))
            calls = script[min(turn, len(script) - 1)]
            with effect("llm_call", turn=turn):
                _sleep(0.5)
            tool_calls = [{"name": name, "args": args, "id": f"call_{turn}_{i}", "type": "tool_call"}
                          for i, (name, args) in enumerate(calls)]  # fmt: skip
            message = AIMessage(content=f"turn {turn}", id=f"ai-{turn}", tool_calls=tool_calls)
            return ChatResult(generations=[ChatGeneration(message=message)])

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    return ScriptedChatModel()


def _as_tool(fn: Callable[..., str]) -> Any:
    """`fn` as a LangChain tool of its own name, taking no declared arguments."""
    from langchain_core.tools import tool

    fn.__doc__ = f"The {fn.__name__.replace('_', ' ')} tool."
    return tool(fn.__name__, args_schema={"type": "object", "properties": {}})(fn)


def _effect_tool(name: str) -> Any:
    def run(**kwargs: Any) -> str:
        with effect(name, **kwargs):
            _sleep(_TOOL_UNITS[name])
        return f"{name} done"

    run.__name__ = name
    return _as_tool(run)


def _react(checkpointer: Any, script: Any, tools: Any) -> Any:
    """`create_react_agent` (version v2: each tool call a `Send`) over `tools` (a list, or a
    ToolNode), the model playing `script`."""
    import warnings

    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated in LangGraph 1.0
        return create_react_agent(_scripted_chat_model(script), tools, checkpointer=checkpointer,
                                  version="v2")  # fmt: skip


def react_agent(checkpointer: Any) -> Any:
    """`create_react_agent` (langgraph.prebuilt, version v2) with three tools and a scripted model.

    Mirrors libs/prebuilt/tests/test_react_agent.py::test_react_agent_parallel_tool_calls
    (with its FakeToolCallingModel, libs/prebuilt/tests/model.py): the model node `agent`
    calls two tools at once (each a `Send` to the `tools` node in v2, of unequal
    length), then one, then answers; every model call and tool call is an effect.
    """
    return _react(checkpointer, _REACT_SCRIPT, [_effect_tool(name) for name in _TOOL_UNITS])


# --------------------------------------------------------------------------- 43 max_concurrency
class BatchState(TypedDict, total=False):
    items: list[int]
    done: Annotated[list[int], operator.add]
    visited: Annotated[list[str], operator.add]


_BATCH_UNITS = (1.0, 0.4, 0.8, 0.3, 0.6, 0.5)


def _batch_worker(arg: dict[str, Any]) -> dict[str, Any]:
    with effect("process", item=arg["item"]):
        _sleep(_BATCH_UNITS[arg["item"]])
    return {"done": [arg["item"]]}


def max_concurrency_send(checkpointer: Any) -> Any:
    """START -Send-> worker x6 (unequal), at most two at a time (``max_concurrency=2``) -> collect.

    Mirrors test_pregel_async.py::test_max_concurrency: a fan-out wider than the executor
    lets run at once, so the step's workers start in waves, each when a slot frees.
    """
    b = StateGraph(BatchState)
    b.add_node("worker", _batch_worker)
    b.add_node("collect", _node("collect", 1.0))
    _send_each(b, "items", "worker", "item")
    b.add_edge("worker", "collect")
    b.add_edge("collect", END)
    return b.compile(checkpointer=checkpointer).with_config(max_concurrency=2)


# --------------------------------------------------------------------------- 44 a subgraph that pauses, twice
class EchoState(TypedDict, total=False):
    text: str


class CallerState(TypedDict, total=False):
    result: str
    visited: Annotated[list[str], operator.add]


def _prepare_then_ask(state: EchoState) -> dict[str, Any]:
    with effect("prepare"):
        _sleep(0.5)
    interrupt("continue?")
    with effect("process"):
        _sleep(1.0)
    return {"text": "processed"}


def stateless_subgraph_interrupts() -> StateGraph:
    """call_inner (invokes process, which pauses, -> respond) -> deliver; the thread runs twice.

    Mirrors test_subgraph_persistence.py::test_stateless_state_resets_with_interrupt: a
    subgraph compiled without a checkpointer of its own, invoked inside a node, pauses in
    each of two parent invocations and is answered each time (input, answer, input,
    answer); the kill lands in the second answer. (Its neighbour with
    ``checkpointer=False`` cannot run under sync in LangGraph 1.2.24: the subgraph inherits
    the parent's durability and waits for a checkpoint save it never started.)
    """
    inner = chain(
        EchoState,
        ("process", _prepare_then_ask),
        ("respond", _node("respond", 1.0, "text", "done")),
    ).compile()

    def call_inner(state: CallerState) -> dict[str, Any]:
        out = inner.invoke({"text": state.get("result") or "hello"})
        return {"result": out["text"], "visited": ["call_inner"]}

    return chain(CallerState, ("call_inner", call_inner), ("deliver", _node("deliver", 1.0)))


# --------------------------------------------------------------------------- 45 update_state at a breakpoint
class DocsState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]
    docs: Annotated[list[str], operator.add]


def _answer_and_notify(state: DocsState) -> dict[str, Any]:
    with effect("answer"):
        _sleep(1.0)
    with effect("notify"):
        _sleep(1.0)
    return {"visited": ["qa"]}


def breakpoint_update_state(checkpointer: Any) -> Any:
    """The join of shape 1 with ``interrupt_before=["qa"]``; ``update_state``, then ``invoke(None)``.

    Mirrors test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge (its second half):
    the thread pauses before `qa`, a human adds a document with ``update_state`` (a
    checkpoint of its own, whatever the durability), and ``invoke(None)`` goes on to `qa`
    (two effects) and `publish`. The kill lands in that third invocation.
    """
    b = StateGraph(DocsState)
    for name, frac in (("rewrite_query", 0.5), ("analyzer_one", 0.5), ("retriever_one", 1.0),
                       ("retriever_two", 1.5), ("publish", 1.0)):  # fmt: skip
        b.add_node(name, _node(name, frac))
    b.add_node("qa", _answer_and_notify)
    b.add_edge(START, "rewrite_query")
    b.add_edge("rewrite_query", "analyzer_one")
    b.add_edge("analyzer_one", "retriever_one")
    b.add_edge("rewrite_query", "retriever_two")
    b.add_edge(["retriever_one", "retriever_two"], "qa")
    b.add_edge("qa", "publish")
    b.add_edge("publish", END)
    return b.compile(checkpointer=checkpointer, interrupt_before=["qa"])


# --------------------------------------------------------------------------- 46 a tool that asks first
_HITL_SCRIPT: tuple[tuple[tuple[str, dict[str, Any]], ...], ...] = (
    (("approve_refund", {"amount": 30}), ("lookup_order", {"order": "A-17"})),
    (),
)


def react_agent_tool_interrupt(checkpointer: Any) -> Any:
    """`create_react_agent` (v2) whose `approve_refund` tool pauses at ``interrupt()`` beside a
    plain tool; answered with ``Command(resume=...)``, it refunds, and the model answers.

    Mirrors libs/prebuilt/tests/test_react_agent.py::test_tool_node_node_interrupt: in v2 the
    two tool calls are `Send` tasks of the `tools` node, so the plain one finishes (its
    writes saved) while the other pauses; the kill lands in the answered invocation.
    """

    def approve_refund(**kwargs: Any) -> str:
        with effect("check_refund"):
            _sleep(0.5)
        answer = interrupt("refund 30?")
        with effect("refund"):
            _sleep(1.5)
        return f"refunded: {answer}"

    def lookup_order(**kwargs: Any) -> str:
        with effect("lookup_order"):
            _sleep(1.0)
        return "order A-17"

    return _react(checkpointer, _HITL_SCRIPT, [_as_tool(approve_refund), _as_tool(lookup_order)])


# --------------------------------------------------------------------------- 47 a caught @task failure
def imp_exception(checkpointer: Any) -> Any:
    """@entrypoint: `my_task`, then `task_with_exception` (raises; the entrypoint catches it),
    then `my_task` again, then `report`.

    Mirrors test_pregel.py::test_imp_exception: a call's failure is the entrypoint's to
    handle, so the invocation goes on; its error is the call's result, saved like a value.
    """
    from langgraph.func import entrypoint, task

    @task
    def my_task(number: int) -> int:
        with effect("my_task", number=number):
            _sleep(0.8)
        return number * 2

    @task
    def task_with_exception(number: int) -> int:
        with effect("task_with_exception"):
            _sleep(0.5)
            raise ValueError("This is a test exception")

    @task
    def report(total: int) -> str:
        with effect("report"):
            _sleep(1.0)
        return f"total {total}"

    @entrypoint(checkpointer=checkpointer)
    def my_workflow(inputs: dict[str, Any]) -> dict[str, Any]:
        first = my_task(1).result()
        with contextlib.suppress(ValueError):
            task_with_exception(1).result()
        second = my_task(2).result()
        return {"report": report(first + second).result()}

    return my_workflow


# --------------------------------------------------------------------------- 48 an entrypoint that asks three times
def multiple_interrupts_functional(checkpointer: Any) -> Any:
    """@entrypoint: for 1, 2, 3, the @task `double`, then ``interrupt()``; each answered.

    Mirrors test_pregel.py::test_multiple_interrupts_functional: each answer re-runs the
    entrypoint from its top, reusing the saved `double` results; the early kill lands in
    the second answer's run (in `double(3)`), the late one in the third's (in `finish`).
    """
    from langgraph.func import entrypoint, task

    @task
    def double(x: int) -> int:
        with effect("double", x=x):
            _sleep(0.6)
        return 2 * x

    @entrypoint(checkpointer=checkpointer)
    def graph(state: dict[str, Any]) -> dict[str, Any]:
        values: list[Any] = []
        for idx in (1, 2, 3):
            values.extend([double(idx).result(), interrupt({"a": "boo"})])
        with effect("finish"):
            _sleep(2.0)
        return {"values": values}

    return graph


# --------------------------------------------------------------------------- 49 entrypoints a node invokes
class MixedState(TypedDict, total=False):
    a: int
    b: int
    result: int
    visited: Annotated[list[str], operator.add]


def multiple_subgraphs_mixed_state_graph() -> StateGraph:
    """call_same_subgraph (invokes the @entrypoint `add` twice, one after the other) -> finish.

    Mirrors test_pregel.py::test_multiple_subgraphs_mixed_state_graph: functional
    "subgraphs" invoked inside a StateGraph node inherit its checkpointer, each under the
    node's task namespace with LangGraph's call counter (``call_same_subgraph:<id>``, then
    ``|1``).
    """
    from langgraph.func import entrypoint, task

    @task
    def add_task(a: int, b: int) -> int:
        with effect("add_task", a=a):
            _sleep(0.8)
        return a + b

    @entrypoint()
    def add(inputs: list[int]) -> int:
        return add_task(inputs[0], inputs[1]).result()

    def call_same_subgraph(state: MixedState) -> dict[str, Any]:
        result = add.invoke([state["a"], state["b"]])
        another = add.invoke([result, 10])
        return {"result": another, "visited": ["call_same_subgraph"]}

    return chain(MixedState, ("call_same_subgraph", call_same_subgraph),
                 ("finish", _node("finish", 1.0)))  # fmt: skip


# --------------------------------------------------------------------------- 50 a tool error the ToolNode handles
_ERROR_SCRIPT: tuple[tuple[tuple[str, dict[str, Any]], ...], ...] = (
    (("charge_card", {"amount": 30}), ("lookup_order", {"order": "A-17"})),
    (("charge_card", {"amount": 30}),),
    (),
)


def react_agent_tool_error(checkpointer: Any) -> Any:
    """`create_react_agent` (v2) over ``ToolNode(tools, handle_tool_errors=True)``: the first
    `charge_card` call raises (the ToolNode turns it into an error message), the model calls
    it again in its next turn, and it goes through.

    Mirrors libs/prebuilt/tests/test_tool_node.py::test_tool_node_error_handling: a tool's
    exception is the node's to handle, so its task finishes, with an `error` line in the log.
    """
    from langgraph.prebuilt import ToolNode

    def charge_card(**kwargs: Any) -> str:
        with effect("charge_card"):
            _sleep(0.8)
            if not _charged_before():
                raise ConnectionError("payment gateway timed out")
        return "charged"

    def lookup_order(**kwargs: Any) -> str:
        with effect("lookup_order"):
            _sleep(0.4)
        return "order A-17"

    tools = [_as_tool(charge_card), _as_tool(lookup_order)]
    return _react(checkpointer, _ERROR_SCRIPT, ToolNode(tools, handle_tool_errors=True))


def _charged_before() -> bool:
    """Is this a later turn's charge? The first turn's tools run in step 2; its charge fails,
    the next one (step 4) goes through."""
    from langgraph.config import get_config

    turn = (get_config().get("metadata") or {}).get("langgraph_step")
    return isinstance(turn, int) and turn > 2


# --------------------------------------------------------------------------- 51 a step that times out
class TimeoutState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]
    attempt: int


def step_timeout(checkpointer: Any) -> Any:
    """fast | slow in one step, the graph's ``step_timeout`` between them: the first input's
    slow node overruns it and the invocation raises; a second input (attempt 2) is quicker,
    and goes on to `report`.

    Mirrors test_pregel.py::test_timeout_with_parent_command (``graph.step_timeout``): a step
    that overruns raises out of the invocation after its running tasks end; the kill lands in
    the second input.
    """

    def slow(state: TimeoutState) -> dict[str, Any]:
        with effect("slow", attempt=state.get("attempt", 1)):
            _sleep(2.0 if state.get("attempt", 1) == 1 else 1.0)
        return {"visited": ["slow"]}

    b = StateGraph(TimeoutState)
    b.add_node("fast", _node("fast", 0.5))
    b.add_node("slow", slow)
    b.add_node("report", _node("report", 1.0))
    b.add_edge(START, "fast")
    b.add_edge(START, "slow")
    b.add_edge(["fast", "slow"], "report")
    b.add_edge("report", END)
    graph = b.compile(checkpointer=checkpointer)
    graph.step_timeout = settings.get_float(ENV_SLEEP, 0.0) * 1.5 or None
    return graph


# --------------------------------------------------------------------------- 52-55 async graphs
# Run with ``graph.ainvoke`` (Shape.api): their nodes are ``async def``, as in
# test_pregel_async.py, and LangGraph's async loop runs them as asyncio tasks on one thread.
async def _asleep(fraction: float) -> None:
    import asyncio

    seconds = settings.get_float(ENV_SLEEP, 0.0) * fraction
    if seconds > 0:
        await asyncio.sleep(seconds)


def _anode(
    name: str, fraction: float = 1.0, key: str = "visited", value: Any = None
) -> Callable[..., Any]:
    """`_node` as ``async def``: one effect held open for `fraction` of a unit, awaiting."""

    async def node(state: dict[str, Any]) -> dict[str, Any]:
        with effect(name):
            await _asleep(fraction)
        return {key: [name] if value is None else value}

    node.__name__ = name
    return node


class AttemptState(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]
    attempt: int


async def _awhile(state: AttemptState) -> dict[str, Any]:
    with effect("agent", attempt=state.get("attempt", 1)):
        await _asleep(2.0)
    return {"visited": ["agent"]}


async def _iambad(state: AttemptState) -> dict[str, Any]:
    with effect("bad", attempt=state.get("attempt", 1)):
        await _asleep(0.5)
        if state.get("attempt", 1) == 1:
            raise ValueError("I am bad")
    return {"visited": ["bad"]}


def node_cancellation_async() -> StateGraph:
    """START -conditional-> agent | bad -> report; in the first input bad raises while agent
    runs, and the async loop cancels agent; a second input (attempt 2) goes through.

    Mirrors test_pregel_async.py::test_node_cancellation_on_other_node_exception: on the
    async loop a task that raises cancels its running siblings (the sync loop lets them
    finish). The kill lands in the second input.
    """
    b = StateGraph(AttemptState)
    b.add_node("agent", _anode("agent", 2.0))
    b.add_node("bad", _iambad)
    b.add_node("report", _anode("report", 1.0))
    b.add_conditional_edges(START, lambda _: ["agent", "bad"], ["agent", "bad"])
    b.add_edge(["agent", "bad"], "report")
    b.add_edge("report", END)
    return b


CANCEL_UNITS = (0.5, 2.0)


def imp_task_cancel(checkpointer: Any) -> Any:
    """@entrypoint `graph` (async): two @task `mapper` calls, the slower one cancelled after a
    unit, interrupt(), then @task `publish`; answered with Command(resume=...).

    Mirrors test_pregel_async.py::test_imp_task_cancel: a cancelled call saves nothing, so
    the resumed entrypoint calls it again (and cancels it again); the finished one is reused.
    """
    import asyncio

    from langgraph.func import entrypoint, task

    @task
    async def mapper(n: int) -> str:
        with effect("mapper", n=n):
            await _asleep(CANCEL_UNITS[n])
        return str(n) * 2

    @task
    async def publish(parts: list[str]) -> str:
        with effect("publish"):
            await _asleep(1.0)
        return "+".join(parts)

    @entrypoint(checkpointer=checkpointer)
    async def graph(inputs: dict[str, Any]) -> dict[str, Any]:
        futures = [mapper(n) for n in range(len(CANCEL_UNITS))]
        await _asleep(1.0)
        futures.pop().cancel()
        mapped = await asyncio.gather(*futures)
        answer = interrupt("question")
        return {"published": await publish([m + str(answer) for m in mapped])}

    return graph


_DEDUPE_UNITS = {"1": 0.5, "3": 1.0, "3.1": 0.3}
"""How long each node of send_dedupe_on_resume stays open (a name of its own: this module's
`_SEND_UNITS` belongs to cond_edge_after_send, and rebinding it made that shape's workers
raise `KeyError`)."""


def _send_node(name: str) -> Callable[..., Any]:
    """A node of test_send_dedupe_on_resume: it appends `name|arg` (or `name`) to the list;
    given a Command as its Send argument, it returns that Command with the update in it."""

    async def node(state: Any) -> Any:
        is_command = isinstance(state, Command)
        with effect(name):
            await _asleep(1.5 if is_command else _DEDUPE_UNITS.get(name, 0.5))
        update = [name] if isinstance(state, list) else ["|".join((name, str(state)))]
        if is_command:
            return Command(graph=state.graph, goto=state.goto, update=update)
        return update

    node.__name__ = name
    return node


async def _flaky_send(state: Any) -> list[str]:
    with effect("ask"):
        await _asleep(0.5)
    answer = interrupt("Bahh")
    with effect("record"):
        await _asleep(1.0)
    return ["|".join(("flaky", str(state), str(answer)))]


def send_dedupe_on_resume() -> StateGraph:
    """1 -> Send("2", Command(goto=Send("2", 3))) | Send("2", Command(goto=Send("flaky", 4))) |
    3.1; then 2(3) | flaky(4) (pauses) | 3; answered, flaky goes on, then 3 once more.

    Mirrors test_pregel_async.py::test_send_dedupe_on_resume (a list state, `Send` whose
    argument is a `Command` that itself sends): the resume re-runs only the task that paused,
    not the workers whose writes were saved beside it.
    """
    b = StateGraph(Annotated[list, operator.add])
    for name in ("1", "2", "3", "3.1"):
        b.add_node(name, _send_node(name))
    b.add_node("flaky", _flaky_send)
    b.add_edge(START, "1")
    b.add_conditional_edges(
        "1",
        lambda _: [Send("2", Command(goto=Send("2", 3))), Send("2", Command(goto=Send("flaky", 4))), "3.1"],
        ["2", "3.1", "flaky"],
    )  # fmt: skip
    b.add_conditional_edges("2", lambda _: "3", ["3"])
    return b


WIDE_UNITS = (3.0, 0.5, 1.0, 0.5, 2.5, 1.0, 0.5, 1.0)


def wide_fanout_async() -> StateGraph:
    """START -> n0 | n1 | ... | n7 (async, unequal) -> gather: eight tasks in one step.

    Mirrors test_pregel_async.py::test_parallel_node_execution (parallel async nodes run at
    once, the step takes as long as the slowest), widened to eight: more tasks than a sync
    loop's thread pool holds on a small machine, none of them waiting on the async loop.
    """
    b = StateGraph(Trail)
    names = [f"n{i}" for i in range(len(WIDE_UNITS))]
    for name, units in zip(names, WIDE_UNITS, strict=True):
        b.add_node(name, _anode(name, units))
        b.add_edge(START, name)
    b.add_node("gather", _anode("gather", 1.0))
    b.add_edge(names, "gather")
    b.add_edge("gather", END)
    return b


# --------------------------------------------------------------------------- 56-59 round 11
class FooState(TypedDict, total=False):
    foo: Annotated[str, operator.add]


def _foo(name: str, fraction: float) -> Callable[..., Any]:
    """A node of test_command_goto_with_static_breakpoints: it appends ``|name`` to `foo`."""

    def node(state: FooState) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
        return {"foo": f"|{name}"}

    node.__name__ = name
    return node


def command_goto_breakpoint(checkpointer: Any) -> Any:
    """node1 -> node2, compiled with interrupt_before=["node1"]; answered with
    ``Command(goto=["node2"])``: node1 and node2 run side by side, then node2 again.

    Mirrors test_pregel.py::test_command_goto_with_static_breakpoints: a `Command` sent at a
    static breakpoint adds its goto to the step the breakpoint held. The kill lands after it.
    """
    b = StateGraph(FooState)
    b.add_node("node1", _foo("node1", 1.0))
    b.add_node("node2", _foo("node2", 1.5))
    b.add_edge(START, "node1")
    b.add_edge("node1", "node2")
    return b.compile(checkpointer=checkpointer, interrupt_before=["node1"])


class PlainFoo(TypedDict, total=False):
    foo: str


def _set_foo(name: str, fraction: float) -> Callable[..., Any]:
    def node(state: PlainFoo) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
        return {"foo": name}

    node.__name__ = name
    return node


def update_as_input() -> StateGraph:
    """agent -> tool; a first input runs them, a second turn is written by update_state alone
    (as ``__input__``, ``__start__``, agent, tool), and a third input runs them again.

    Mirrors test_pregel.py::test_update_as_input: a thread's history made by
    ``bulk_update_state`` with the checkpoints a real turn makes (an input checkpoint among
    them, written by no invocation). The kill lands in the third input.
    """
    return chain(PlainFoo, ("agent", _set_foo("agent", 1.0)), ("tool", _set_foo("tool", 1.0)))


class QueryDocs(TypedDict, total=False):
    query: str
    docs: Annotated[list[str], operator.add]
    answer: str


def _doc_node(name: str, fraction: float, update: dict[str, Any]) -> Callable[..., Any]:
    def node(state: QueryDocs) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
        return update

    node.__name__ = name
    return node


def waiting_edge_via_branch(checkpointer: Any) -> Any:
    """rewrite_query -> analyzer_one -> retriever_one, and -conditional-> retriever_two; qa
    waits for both retrievers; compiled with interrupt_after=["retriever_one"], then resumed.

    Mirrors test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_via_branch: a join
    reached through a conditional edge, with a breakpoint after one side of it; ``invoke(None)``
    runs qa.
    """
    b = StateGraph(QueryDocs)
    b.add_node("rewrite_query", _doc_node("rewrite_query", 0.5, {"query": "q"}))
    b.add_node("analyzer_one", _doc_node("analyzer_one", 0.5, {"query": "analyzed"}))
    b.add_node("retriever_one", _doc_node("retriever_one", 1.0, {"docs": ["doc1", "doc2"]}))
    b.add_node("retriever_two", _doc_node("retriever_two", 2.5, {"docs": ["doc3", "doc4"]}))
    b.add_node("qa", _doc_node("qa", 1.0, {"answer": "doc1,doc2,doc3,doc4"}))
    b.add_edge(START, "rewrite_query")
    b.add_edge("rewrite_query", "analyzer_one")
    b.add_edge("analyzer_one", "retriever_one")
    b.add_conditional_edges("rewrite_query", lambda _: "retriever_two", ["retriever_two"])
    b.add_edge(["retriever_one", "retriever_two"], "qa")
    b.add_edge("qa", END)
    return b.compile(checkpointer=checkpointer, interrupt_after=["retriever_one"])


def nested_interrupts_after(checkpointer: Any) -> Any:
    """inner (inner_1 -> inner_2, interrupt_before=["inner_2"]) | outer_1 -> outer_2, the parent
    compiled with interrupt_after=["outer_1"]: two breakpoints, each passed by ``invoke(None)``.

    Mirrors test_pregel.py::test_nested_graph_interrupts_parallel ("interrupts AFTER the
    parallel node"): the parent's breakpoint after outer_1 and the subgraph's before inner_2.
    """
    graph = nested_interrupts_parallel(None)
    return graph.builder.compile(checkpointer=checkpointer, interrupt_after=["outer_1"])


# --------------------------------------------------------------------------- 60-63 round 12
def doubly_nested_interrupts(checkpointer: Any) -> Any:
    """parent_1 -> child (child_1: a grandchild graph compiled with interrupt_before=
    ["grandchild_2"]) -> parent_2; ``invoke(None)`` goes on from the breakpoint.

    Mirrors test_pregel.py::test_doubly_nested_graph_interrupts: a static breakpoint two
    subgraphs down pauses the whole thread; the kill lands after it was passed.
    """
    grand = chain(
        KeyState,
        ("grandchild_1", _node("grandchild_1", 0.5, "my_key", " here")),
        ("grandchild_2", _node("grandchild_2", 1.0, "my_key", " and there")),
    )
    child = chain(KeyState, ("child_1", grand.compile(interrupt_before=["grandchild_2"])))
    return chain(
        KeyState,
        ("parent_1", _node("parent_1", 0.5, "my_key", "hi ")),
        ("child", child.compile()),
        ("parent_2", _node("parent_2", 1.0, "my_key", " and back again")),
    ).compile(checkpointer=checkpointer)


def send_react_breakpoint(checkpointer: Any) -> Any:
    """agent -> Send("tool", call) x3 (unequal) -> agent, twice, compiled with
    interrupt_before=["tool"]: each round of tool calls waits at the breakpoint for
    ``invoke(None)``.

    Mirrors test_large_cases.py::test_send_react_interrupt (with its breakpoint): `Send`
    tasks held by a static breakpoint, then run side by side when the thread is resumed.
    """
    return send_react().compile(checkpointer=checkpointer, interrupt_before=["tool"])


class LimitState(TypedDict, total=False):
    target: int
    calls: int
    unit: float
    visited: Annotated[list[str], operator.add]


def _limit_node(name: str) -> Callable[..., Any]:
    def node(state: LimitState) -> dict[str, Any]:
        with effect(name, call=state.get("calls", 0)):
            _sleep(state.get("unit", 1.0))
        return {"calls": state.get("calls", 0) + (name == "tools"), "visited": [name]}

    node.__name__ = name
    return node


def recursion_limit_retry() -> StateGraph:
    """agent -> tools -> agent ... until `calls` reaches the input's `target`: the first input
    asks for more turns than the recursion limit allows (GraphRecursionError, raised by the
    loop, not by a node); a second input asks for two, and the kill lands in it.

    Mirrors test_pregel.py::test_invoke_two_processes_in_out (``GraphRecursionError`` with a
    ``recursion_limit``) on test_large_cases.py::test_conditional_state_graph's loop.
    """
    b = StateGraph(LimitState)
    b.add_node("agent", _limit_node("agent"))
    b.add_node("tools", _limit_node("tools"))
    b.add_edge(START, "agent")
    b.add_conditional_edges(
        "agent",
        lambda s: END if s.get("calls", 0) >= s.get("target", 0) else "tools",
        ["tools", END],
    )
    b.add_edge("tools", "agent")
    return b


def _retried_worker(arg: dict[str, Any]) -> dict[str, Any]:
    from langgraph.config import get_config

    key = f"{get_config().get('configurable', {}).get('thread_id')}:{arg['item']}"
    _flaky_attempts[key] = _flaky_attempts.get(key, 0) + 1
    with effect("work", item=arg["item"], attempt=_flaky_attempts[key]):
        _sleep((0.5, 1.0, 2.5)[arg["item"] % 3])
        if arg["item"] == 1 and _flaky_attempts[key] == 1:
            raise ConnectionError("transient")  # retried by default (a ValueError is not)
    return {"done": [arg["item"]]}


def send_retry_policy() -> StateGraph:
    """START -Send-> worker x3 (unequal; the second fails once, RetryPolicy retries it in its
    step) -> collect.

    Mirrors test_retry.py::test_graph_with_single_retry_policy on `Send` workers
    (test_pregel.py::test_send_sequences' fan-out): a retry inside a step while the step's
    other workers run on.
    """
    b = StateGraph(BatchState)
    _add_node(
        b,
        "worker",
        _retried_worker,
        retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False),
    )
    b.add_node("collect", _node("collect", 1.0))
    _send_each(b, "items", "worker", "item")
    b.add_edge("worker", "collect")
    b.add_edge("collect", END)
    return b


# --------------------------------------------------------------------------- 64-67 round 13
class TallyState(TypedDict, total=False):
    count: Annotated[int, operator.add]


def _add_one(state: TallyState) -> dict[str, Any]:
    with effect("add_one", count=state.get("count", 0)):
        _sleep(1.0)
    return {"count": 1}


def fork_replay() -> StateGraph:
    """add_one, a loop, until the count reaches 6; then the thread is replayed from an earlier
    checkpoint (``invoke(None, config with its checkpoint_id)``) and the kill lands in the
    replay.

    Mirrors test_large_cases_async.py::test_fork_always_re_runs_nodes (run with astream
    there, with ainvoke here): a fork from a past checkpoint runs its nodes again, on a branch
    of the thread's history.
    """
    b = StateGraph(TallyState)
    b.add_node("add_one", _add_one)
    b.add_edge(START, "add_one")
    b.add_conditional_edges("add_one", lambda s: "add_one" if s.get("count", 0) < 6 else END)
    return b


class JumpState(TypedDict, total=False):
    jump_from_idx: int
    visited: Annotated[list[str], operator.add]


class ChildJumpState(TypedDict, total=False):
    jump: bool


def _child_jump_node(state: ChildJumpState) -> Any:
    with effect("child_node", jump=bool(state.get("jump"))):
        _sleep(1.0)
    if state.get("jump"):
        return Command(graph=Command.PARENT, goto="parent_second")
    return state


_JUMP_CHILDREN: list[Any] = []


def _jump_children() -> list[Any]:
    if not _JUMP_CHILDREN:
        child = StateGraph(ChildJumpState)
        child.add_node("node", _child_jump_node)
        child.add_edge(START, "node")
        _JUMP_CHILDREN.extend([child.compile(), child.compile()])
    return _JUMP_CHILDREN


def _parent_first(state: JumpState) -> dict[str, Any]:
    child_0, child_1 = _jump_children()
    with effect("parent_first"):
        _sleep(0.5)
    child_0.invoke({"jump": state.get("jump_from_idx") == 1})
    if state.get("jump_from_idx") == 1:
        raise AssertionError("child_0 should have jumped")
    child_1.invoke({"jump": state.get("jump_from_idx") == 2})
    if state.get("jump_from_idx") == 2:
        raise AssertionError("child_1 should have jumped")
    return {"visited": ["parent_first"]}


def parent_command_nested() -> StateGraph:
    """parent_first (calls child_0.invoke, then child_1.invoke; child_1's node returns
    ``Command(graph=Command.PARENT, goto="parent_second")``) -> parent_second.

    Mirrors test_parent_command.py::test_parent_command_from_nested_subgraph (with a
    checkpointer): two stateless subgraphs invoked inside one node, the second of which
    leaves its parent's task with a `Command` to the parent graph.
    """
    b = StateGraph(JumpState)
    b.add_node("parent_first", _parent_first)
    b.add_node("parent_second", _node("parent_second", 1.0))
    b.add_edge(START, "parent_first")
    b.add_edge("parent_second", END)
    return b


class InputOnlyState(TypedDict, total=False):
    input: str


def _noop(name: str) -> Callable[..., Any]:
    def node(state: InputOnlyState) -> None:
        with effect(name):
            _sleep(1.0)

    node.__name__ = name
    return node


def interrupt_after_all(checkpointer: Any) -> Any:
    """step_1 -> step_2 -> step_3, compiled with interrupt_after="*", nodes that update no
    state key; ``invoke(None)`` goes on after each pause.

    Mirrors test_interruption.py::test_interruption_without_state_updates: a pause after
    every step without a channel written, one invocation per node.
    """
    steps = [(f"step_{i}", _noop(f"step_{i}")) for i in (1, 2, 3)]
    return chain(InputOnlyState, *steps).compile(checkpointer=checkpointer, interrupt_after="*")


class TopicState(TypedDict, total=False):
    result: str
    calls: int


_STATEFUL_WRAPPER: Any = None


def _stateful_wrapper() -> Any:
    """The subgraph of test_stateful_state_accumulates_with_interrupt, built once per process."""
    global _STATEFUL_WRAPPER
    if _STATEFUL_WRAPPER is None:
        from langchain_core.messages import AIMessage
        from langgraph.graph import MessagesState

        def process(state: dict[str, Any]) -> dict[str, Any]:
            interrupt("continue?")
            with effect("process"):
                _sleep(1.0)
            return {"messages": [AIMessage(content=f"Processing: {state['messages'][-1].content}")]}

        def respond(state: dict[str, Any]) -> dict[str, Any]:
            with effect("respond"):
                _sleep(1.0)
            return {"messages": [AIMessage(content="Done")]}

        inner = chain(MessagesState, ("process", process), ("respond", respond)).compile()
        _STATEFUL_WRAPPER = chain(MessagesState, ("agent", inner)).compile(checkpointer=True)
    return _STATEFUL_WRAPPER


def _call_inner(state: TopicState) -> dict[str, Any]:
    from langchain_core.messages import HumanMessage

    topic = ("apples", "bananas", "cherries")[min(state.get("calls", 0), 2)]
    with effect("call_inner", topic=topic):
        _sleep(0.3)
    out = _stateful_wrapper().invoke({"messages": [HumanMessage(content=f"tell me about {topic}")]})
    return {"result": out["messages"][-1].content, "calls": state.get("calls", 0) + 1}


def stateful_subgraph_interrupt() -> StateGraph:
    """call_inner (invokes a stateful subgraph, checkpointer=True: agent -> process, which
    pauses, -> respond); two cycles of input and answer on one thread.

    Mirrors test_subgraph_persistence.py::test_stateful_state_accumulates_with_interrupt:
    the subgraph keeps its messages across the parent's invocations, in a namespace without
    a task id; the kill lands in the second cycle's answer.
    """
    return chain(TopicState, ("call_inner", _call_inner))


# --------------------------------------------------------------------------- 68-71 round 14
def _inner_add_one(x: int) -> int:
    with effect("add_one", x=x):
        _sleep(1.0 if x % 2 == 0 else 2.0)
    return x + 1


def _add_10_each(xs: list[int]) -> list[int]:
    with effect("add_10_each"):
        _sleep(0.5)
    return [x + 10 for x in xs]


def _sum_all(x: Any) -> int:
    with effect("sum"):
        _sleep(1.0)
    return int(x) if not isinstance(x, list) else sum(x)


def pregel_map_subgraph(checkpointer: Any) -> Any:
    """A raw `Pregel` (NodeBuilder, channels): one (+10 each) -> two (runs another Pregel's
    ``map()`` over the inbox: the inner graph once per item, side by side, in one task) ->
    chain_three (sum).

    Mirrors test_pregel.py::test_invoke_join_then_call_other_pregel ("subgraph is called
    twice in the same node, but that works"): LangGraph's low-level API, no StateGraph, and
    an inner node named like an outer one.
    """
    from langgraph.channels import LastValue, Topic
    from langgraph.pregel import NodeBuilder, Pregel

    inner = Pregel(
        nodes={"one": NodeBuilder().subscribe_only("input").do(_inner_add_one).write_to("output")},
        channels={"output": LastValue(int), "input": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )
    return Pregel(
        nodes={
            "one": NodeBuilder().subscribe_only("input").do(_add_10_each).write_to("inbox_one"),
            "two": NodeBuilder().subscribe_only("inbox_one").do(inner.map()).write_to("outbox_one"),
            "chain_three": NodeBuilder()
            .subscribe_only("outbox_one")
            .do(_sum_all)
            .write_to("output"),
        },
        channels={
            "inbox_one": Topic(int),
            "outbox_one": Topic(int),
            "output": LastValue(int),
            "input": LastValue(list),
        },
        input_channels="input",
        output_channels="output",
        checkpointer=checkpointer,
    )


class ChildCount(TypedDict, total=False):
    count: int


def child_own_thread(checkpointer: Any) -> Any:
    """p (invokes a child graph with a checkpointer and a thread of its own) -> q; the parent
    runs twice, and the kill lands in the second run.

    Mirrors test_subgraph_persistence.py::test_child_with_own_thread_id_keeps_namespace: the
    child's checkpoints go to its own thread (namespace ""), not under the parent's task, so
    the parent's thread holds no trace of the child's steps.
    """

    def n(state: ChildCount) -> dict[str, Any]:
        with effect("n", count=state.get("count") or 0):
            _sleep(1.0)
        return {"count": (state.get("count") or 0) + 1}

    child = chain(ChildCount, ("n", n)).compile(checkpointer=checkpointer)

    def p(state: Trail) -> dict[str, Any]:
        from langgraph.config import get_config

        parent = str(get_config().get("configurable", {}).get("thread_id"))
        with effect("p"):
            _sleep(0.3)
            child.invoke({}, config={"configurable": {"thread_id": f"{parent}:child"}})
        return {"visited": ["p"]}

    return chain(Trail, ("p", p), ("q", _node("q", 1.0))).compile(checkpointer=checkpointer)


_ISOLATED: list[Any] = []


def _isolated_agents() -> list[Any]:
    """fruit and veggie: a `checkpointer=True` graph each, wrapping an inner ``echo`` graph."""
    if not _ISOLATED:
        from langchain_core.messages import AIMessage
        from langgraph.graph import MessagesState

        for name, fraction in (("fruit", 0.5), ("veggie", 1.0)):

            def echo(
                state: dict[str, Any], _name: str = name, _f: float = fraction
            ) -> dict[str, Any]:
                with effect("echo", agent=_name):
                    _sleep(_f)
                return {
                    "messages": [AIMessage(content=f"{_name}: {state['messages'][-1].content}")]
                }

            inner = chain(MessagesState, ("echo", echo)).compile()
            _ISOLATED.append(
                chain(MessagesState, (f"{name}_agent", inner)).compile(checkpointer=True)
            )
    return _ISOLATED


def _call_both(state: TopicState) -> dict[str, Any]:
    from langchain_core.messages import HumanMessage

    fruit, veggie = _isolated_agents()
    turn = state.get("calls", 0) + 1
    with effect("call_both", turn=turn):
        _sleep(0.3)
    f = fruit.invoke({"messages": [HumanMessage(content=f"cherries round {turn}")]})
    veggie.invoke({"messages": [HumanMessage(content=f"broccoli round {turn}")]})
    return {"result": f["messages"][-1].content, "calls": turn}


def stateful_namespace_isolation() -> StateGraph:
    """call_both (invokes two `checkpointer=True` graphs, fruit then veggie, each wrapping an
    inner graph whose node is ``echo``) -> finish; the parent runs twice.

    Mirrors test_subgraph_persistence.py::test_stateful_namespace_isolation: two stateful
    subgraphs of one node keep separate histories; their inner nodes share a name.
    """
    return chain(
        TopicState, ("call_both", _call_both), ("finish", _node("finish", 1.0, "result", "done"))
    )


class PydInner(BaseModel):
    yo: int


def _sorted_add(x: list[str], y: list[str]) -> list[str]:
    return sorted(operator.add(x, y))


class PydState(BaseModel):
    query: str
    inner: Annotated[PydInner, lambda x, y: y]
    answer: str | None = None
    docs: Annotated[list[str], _sorted_add] = Field(default_factory=list)


class PydUpdate(BaseModel):
    query: str | None = None
    answer: str | None = None
    docs: list[str] | None = None


def _pyd(name: str, fraction: float, update: Callable[[PydState], Any]) -> Callable[..., Any]:
    def node(data: PydState) -> Any:
        assert isinstance(data.inner, PydInner)
        with effect(name):
            _sleep(fraction)
        return update(data)

    node.__name__ = name
    return node


def pydantic_state_join() -> StateGraph:
    """rewrite_query -> (analyzer_one -> retriever_one) | retriever_two -> qa, on a pydantic
    `BaseModel` state (a nested model, reducers, nodes returning models or dicts).

    Mirrors
    test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_custom_state_class_pydantic2:
    the join of test 1 with the state LangGraph serializes as pydantic models.
    """
    b = StateGraph(PydState)
    b.add_node(
        "rewrite_query", _pyd("rewrite_query", 0.5, lambda d: {"query": f"query: {d.query}"})
    )
    b.add_node(
        "analyzer_one", _pyd("analyzer_one", 0.5, lambda d: PydUpdate(query=f"analyzed: {d.query}"))
    )
    b.add_node("retriever_one", _pyd("retriever_one", 1.0, lambda d: {"docs": ["doc1", "doc2"]}))
    b.add_node("retriever_two", _pyd("retriever_two", 1.5, lambda d: {"docs": ["doc3", "doc4"]}))
    b.add_node("qa", _pyd("qa", 1.0, lambda d: {"answer": ",".join(d.docs)}))
    return _join_edges(b)


# --------------------------------------------------------------------------- 72-74 round 15
def _cache_folder() -> Path:
    """Where a shape's cache file lives: beside the run's effects log (so it outlives each
    process of one run, and no other run sees it), or a temporary folder when no log is set
    (a graph built only to list its nodes writes nothing into the working directory)."""
    import tempfile

    log = settings.get(ENV_LOG)
    return Path(log).parent if log else Path(tempfile.mkdtemp(prefix="replaylens-cache-"))


def cached_waiting_edge_loop(checkpointer: Any) -> Any:
    """waiting_edge_loop with ``cache_policy=CachePolicy()`` on rewrite_query and a node cache
    kept in a SQLite file beside the run (`SqliteCache`), which outlives the process.

    Mirrors test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_multiple
    (``with_cache``): a node whose result a cache holds is not run again for the same input,
    so a resume that re-runs its step takes the cached result without its body.
    """
    from langgraph.cache.sqlite import SqliteCache
    from langgraph.types import CachePolicy

    cache = SqliteCache(path=str(_cache_folder() / "node-cache.sqlite"))
    return _waiting_edge_loop(CachePolicy()).compile(checkpointer=checkpointer, cache=cache)


class RouterState(TypedDict, total=False):
    route: str
    city: str
    visited: Annotated[list[str], operator.add]


def _weather_subgraph() -> Any:
    """model_node -> weather_node, compiled with interrupt_before=["weather_node"]."""
    return chain(
        RouterState,
        ("model_node", _node("model_node", 0.5, "city", "San Francisco")),
        ("weather_node", _node("weather_node", 1.0)),
    ).compile(interrupt_before=["weather_node"])


_WEATHER: list[Any] = []


def _weather_graph(state: RouterState) -> dict[str, Any]:
    if not _WEATHER:
        _WEATHER.append(_weather_subgraph())
    with effect("weather_graph"):
        _sleep(1.0)
    return _WEATHER[0].invoke(state)


def weather_subgraph() -> StateGraph:
    """router_node -> (weather_graph, a node that invokes a subgraph compiled with
    interrupt_before=["weather_node"] | normal_llm_node); ``invoke(None)`` goes on past the
    breakpoint.

    Mirrors test_large_cases_async.py::test_weather_subgraph: a static breakpoint inside a
    graph a node invokes in its body pauses the whole thread.
    """
    b = StateGraph(RouterState)
    b.add_node("router_node", _node("router_node", 0.5, "route", "weather"))
    b.add_node("normal_llm_node", _node("normal_llm_node", 0.5))
    b.add_node("weather_graph", _weather_graph)
    b.add_edge(START, "router_node")
    b.add_conditional_edges(
        "router_node",
        lambda s: "weather_graph" if s.get("route") == "weather" else "normal_llm_node",
        ["weather_graph", "normal_llm_node"],
    )
    b.add_edge("normal_llm_node", END)
    b.add_edge("weather_graph", END)
    return b


def _seq_node(name: str, fraction: float) -> Callable[..., Any]:
    def node(state: Any) -> Any:
        with effect(name, arg=str(state)[:40]):
            _sleep(fraction)
        update = [name] if isinstance(state, list) else ["|".join((name, str(state)))]
        if isinstance(state, Command):
            return [state, Command(update=update)]
        return update

    node.__name__ = name
    return node


def send_sequences() -> StateGraph:
    """1 -> Send("2", Command(goto=Send("2", 3))) x2 and 3.1 -> 2 (the Commands' own Sends)
    -> 3, on a list state.

    Mirrors test_pregel.py::test_send_sequences (with a checkpointer): `Send` tasks whose
    argument is a `Command` that sends again, so the same node runs in two supersteps from
    pushes alone.
    """
    b = StateGraph(Annotated[list, operator.add])
    for name, fraction in (("1", 0.5), ("2", 1.0), ("3", 1.0), ("3.1", 1.5)):
        b.add_node(name, _seq_node(name, fraction))
    b.add_edge(START, "1")
    b.add_conditional_edges(
        "1",
        lambda s: [
            Send("2", Command(goto=Send("2", 3))),
            Send("2", Command(goto=Send("2", 4))),
            "3.1",
        ],
    )
    b.add_conditional_edges("2", lambda s: "3", ["3"])
    return b


# --------------------------------------------------------------------------- 75-76 round 16
class DialogListState(TypedDict, total=False):
    dialog_state: Annotated[list[str], operator.add]


def _dialog_node(name: str, fraction: float) -> Callable[..., Any]:
    def node(state: DialogListState) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
        return {"dialog_state": [name]}

    node.__name__ = name
    return node


def _sub_sub_child(state: DialogListState) -> Command[Any]:
    with effect("sub_sub_child"):
        _sleep(1.0)
    return Command(
        graph=Command.PARENT, goto="sub_child_3", update={"dialog_state": ["sub_sub_child"]}
    )


def parent_command_deeply_nested() -> StateGraph:
    """child_1 -> child_2 (sub_child_1 -> sub_child_2 (sub_sub_child, which returns
    ``Command(graph=Command.PARENT, goto="sub_child_3")``) ... sub_child_3), the two
    subgraphs compiled with ``checkpointer=True``.

    Mirrors test_pregel.py::test_parent_command_goto_deeply_nested (``subgraph_persist``
    True): a Command to the graph one level up, from three levels down, through stateful
    subgraphs.
    """
    sub_sub = StateGraph(DialogListState)
    sub_sub.add_node("sub_sub_child", _sub_sub_child)
    sub_sub.add_edge(START, "sub_sub_child")
    sub = StateGraph(DialogListState)
    sub.add_node("sub_child_1", _dialog_node("sub_child_1", 0.5))
    sub.add_node("sub_child_2", sub_sub.compile(checkpointer=True), destinations=("sub_child_3",))
    sub.add_node("sub_child_3", _dialog_node("sub_child_3", 1.0))
    sub.add_edge(START, "sub_child_1")
    sub.add_edge("sub_child_1", "sub_child_2")
    b = StateGraph(DialogListState)
    b.add_node("child_1", _dialog_node("child_1", 0.5))
    b.add_node("child_2", sub.compile(checkpointer=True))
    b.add_edge(START, "child_1")
    b.add_edge("child_1", "child_2")
    return b


def tasks_before_interrupt(checkpointer: Any) -> Any:
    """@entrypoint workflow: @task step_a, @task step_b, @task ask (``interrupt()``), then
    @task finish; answered with ``Command(resume=...)``.

    Mirrors test_pregel.py::test_multiple_tasks_before_interrupt_resume: tasks defined in
    the entrypoint's body whose results are saved before the pause and reused by the
    answer, which re-runs the entrypoint from its top.
    """
    from langgraph.func import entrypoint, task

    @entrypoint(checkpointer=checkpointer)
    def workflow(inputs: dict[str, Any]) -> dict[str, Any]:
        @task
        def step_a(x: int) -> int:
            with effect("step_a"):
                _sleep(0.5)
            return x + 1

        @task
        def step_b(x: int) -> int:
            with effect("step_b"):
                _sleep(0.5)
            return x * 2

        @task
        def ask(question: str) -> str:
            answer = interrupt(question)
            with effect("ask"):
                _sleep(1.0)
            return str(answer)

        @task
        def finish(answer: str) -> str:
            with effect("finish"):
                _sleep(1.0)
            return answer

        a = step_a(inputs["x"]).result()
        b = step_b(a).result()
        answer = ask(f"Result so far is {b}. What next?").result()
        return {"computed": b, "answer": finish(answer).result()}

    return workflow


# --------------------------------------------------------------------------- the corpus
# --------------------------------------------------------------------------- 77-79 round 17
def _delta_state() -> type:
    """A messages state on LangGraph's `DeltaChannel` (1.2, beta): checkpoints keep a
    sentinel, the value is rebuilt from the writes along the thread's history."""
    from langgraph.channels.delta import DeltaChannel
    from langgraph.graph.message import _messages_delta_reducer

    # built by call: the module's annotations are strings, and these names are local
    return TypedDict(  # type: ignore[operator]
        "DeltaState", {"messages": Annotated[list, DeltaChannel(_messages_delta_reducer)]}
    )


def _delta_respond(state: dict[str, Any]) -> dict[str, Any]:
    n = len(state["messages"])
    with effect("reply", turn=n):
        _sleep(1.0)
    return {"messages": [{"role": "assistant", "content": f"reply-{n}", "id": f"ai-{n}"}]}


def _delta_remember(state: dict[str, Any]) -> dict[str, Any]:
    with effect("save_memory", messages=len(state["messages"])):
        _sleep(1.0)
    return {}


def delta_channel_turns() -> StateGraph:
    """respond -> remember on a `DeltaChannel` messages state, three turns on one thread;
    the kill is in the third.

    Mirrors test_pregel.py::test_delta_channel_end_to_end_inmemory: the channel's
    checkpoints hold no value (under exit LangGraph saves its writes on the way out, under
    task ids of its own), so the state of each checkpoint is replayed from the writes.
    """
    return chain(_delta_state(), ("respond", _delta_respond), ("remember", _delta_remember))


class ReenterParent(TypedDict, total=False):
    foo: str
    counter: int


class ReenterSub(TypedDict, total=False):
    foo: str
    bar: str


_REENTER: list[Any] = []


def _reenter_subgraph() -> Any:
    """subnode_1 -> subnode_2 (``interrupt()``, then work), compiled ``checkpointer=True``."""
    if not _REENTER:

        def subnode_1(state: ReenterSub) -> dict[str, Any]:
            with effect("subnode_1", bar=state.get("bar")):
                _sleep(1.0)
            return {"foo": "subgraph_1"}

        def subnode_2(state: ReenterSub) -> dict[str, Any]:
            value = interrupt("Provide value")
            with effect("subnode_2", value=value):
                _sleep(1.0)
            return {"foo": "subgraph_2", "bar": f"{value}baz"}

        _REENTER.append(
            chain(ReenterSub, ("subnode_1", subnode_1), ("subnode_2", subnode_2)).compile(
                checkpointer=True
            )
        )
    return _REENTER[0]


def _call_subgraph(state: ReenterParent) -> dict[str, Any]:
    with effect("call_subgraph"):
        _sleep(0.5)
    out = _reenter_subgraph().invoke({"foo": state.get("foo", "")})
    return {"foo": out["foo"]}


def _reenter_node(state: ReenterParent) -> Any:
    with effect("parent", counter=state.get("counter", 0)):
        _sleep(1.0)
    if state.get("counter", 0) < 1:
        return Command(goto="call_subgraph", update={"counter": state.get("counter", 0) + 1})
    return {"foo": state.get("foo", "") + "|parent"}


def subgraph_reenter_interrupt() -> StateGraph:
    """call_subgraph (invokes a ``checkpointer=True`` graph: subnode_1 -> subnode_2, which
    pauses) -> node, which sends the thread back to call_subgraph once; each pause answered.

    Mirrors test_pregel.py::test_interrupt_subgraph_reenter_checkpointer_true: the stateful
    graph is entered again after its first run ended, pauses again, and keeps its state
    across both runs; the kill lands after the second answer.
    """
    b = StateGraph(ReenterParent)
    b.add_node("call_subgraph", _call_subgraph)
    b.add_node("node", _reenter_node, destinations=("call_subgraph", END))
    b.add_edge(START, "call_subgraph")
    b.add_edge("call_subgraph", "node")
    return b


class PendingState(TypedDict, total=False):
    my_key: Annotated[str, operator.add]
    market: str


def _pending_tool_one(state: PendingState) -> dict[str, Any]:
    with effect("tool_one"):
        _sleep(1.5)
    return {"my_key": " one"}


def _pending_tool_two(state: PendingState) -> dict[str, Any]:
    with effect("tool_two_prepare"):
        _sleep(1.0)
    answer = interrupt("Just because...") if state.get("market") == "DE" else " all good"
    with effect("tool_two"):
        _sleep(1.0)
    return {"my_key": str(answer)}


def partial_pending_checkpoint() -> StateGraph:
    """A conditional entry point that returns ``["tool_two", Send("tool_one", state)]``:
    tool_two (``RetryPolicy``; works, pauses at ``interrupt()``, works) beside tool_one.

    Mirrors test_large_cases.py::test_partial_pending_checkpoint: the step pauses with
    tool_one's write pending; the answer runs tool_two again from its top and keeps
    tool_one's write (a `Send` task's and a plain edge's, from the entry point itself).
    """
    b = StateGraph(PendingState)
    _add_node(b, "tool_two", _pending_tool_two, retry_policy=RetryPolicy())
    b.add_node("tool_one", _pending_tool_one)
    b.set_conditional_entry_point(
        lambda s: ["tool_two", Send("tool_one", s)], ["tool_two", "tool_one"]
    )
    return b


# --------------------------------------------------------------------------- 80-82 round 18
def _ask_then_work(name: str, units: float) -> Callable[..., Any]:
    """A node that pauses at ``interrupt()`` first, then logs `units` of work with the answer."""

    def node(state: AskState) -> dict[str, Any]:
        answer = interrupt(state.get("prompt", ""))
        with effect(name, prompt=state.get("prompt"), answer=answer):
            _sleep(units)
        return {"answers": [f"{name}:{answer}"]}

    node.__name__ = name
    return node


def parallel_interrupts_double() -> StateGraph:
    """START -Send-> child_graph x2 (a subgraph whose two nodes, get_human_input and
    get_dolphin_input, both pause in its first step) -> cleanup.

    Mirrors test_pregel.py::test_parallel_interrupts_double: four interrupts pending at
    once across two `Send` workers, answered one at a time by interrupt id (five
    invocations); each answer re-runs every worker still paused, and a worker's subgraph
    keeps the answered node's write while the other node pauses again. The kill lands in
    the last answer's invocation.
    """
    child = StateGraph(AskState)
    child.add_node("get_human_input", _ask_then_work("get_human_input", 1.0))
    child.add_node("get_dolphin_input", _ask_then_work("get_dolphin_input", 1.0))
    child.add_edge(START, "get_human_input")
    child.add_edge(START, "get_dolphin_input")
    return _workers_then(
        PromptsState, ("child_graph", child), ("prompts", "prompt"), "cleanup", "answers"
    )


def multiple_subgraphs_functional(checkpointer: Any) -> Any:
    """@entrypoint `parent`: a @task `call_multiple_subgraphs` that invokes the entrypoint
    `add`, then the entrypoint `multiply` (whose body calls the @task `multiply_task`).

    Mirrors test_pregel.py::test_multiple_subgraphs_functional: functional graphs invoked
    one after another inside a task of another, none with a checkpointer of its own (they
    inherit the parent's, under the task's namespace and a call counter).
    """
    from langgraph.func import entrypoint, task

    @entrypoint()
    def add(inputs: list[int]) -> int:
        with effect("add"):
            _sleep(1.0)
        return inputs[0] + inputs[1]

    @task
    def multiply_task(a: int, b: int) -> int:
        with effect("multiply_task"):
            _sleep(1.0)
        return a * b

    @entrypoint()
    def multiply(inputs: list[int]) -> int:
        return multiply_task(*inputs).result()

    @task
    def call_multiple_subgraphs(a: int, b: int) -> list[int]:
        with effect("call_multiple_subgraphs"):
            _sleep(0.5)
        return [add.invoke([a, b]), multiply.invoke([a, b])]

    @entrypoint(checkpointer=checkpointer)
    def parent(inputs: list[int]) -> list[int]:
        return call_multiple_subgraphs(*inputs).result()

    return parent


class RetryKindState(TypedDict, total=False):
    foo: str
    error_type: str


_retry_kinds: dict[tuple[str, str], int] = {}


def _failing_by_kind(state: RetryKindState) -> dict[str, Any]:
    from langgraph.config import get_config

    kind = state.get("error_type", "")
    key = (str(get_config().get("configurable", {}).get("thread_id")), kind)
    _retry_kinds[key] = _retry_kinds.get(key, 0) + 1
    failures = {"value_error": 1, "key_error": 2}.get(kind, 0)
    with effect("failing_node", error_type=kind, attempt=_retry_kinds[key]):
        _sleep(1.0)
        if _retry_kinds[key] <= failures:
            raise ValueError("Value error") if kind == "value_error" else KeyError("Key error")
    return {"foo": f"recovered_from_{kind}"}


def multiple_retry_policies() -> StateGraph:
    """failing_node, with two `RetryPolicy`s (ValueError: 2 attempts; KeyError: 3), ->
    report; a first input that raises ValueError once, a second that raises KeyError twice.

    Mirrors test_retry.py::test_graph_with_multiple_retry_policies: the first policy whose
    `retry_on` matches the exception decides; the kill lands in the second input, in the
    third attempt (the one that succeeds; a retry is the same task, started once) or in
    the node after it.
    """
    b = StateGraph(RetryKindState)
    _add_node(
        b,
        "failing_node",
        _failing_by_kind,
        retry_policy=(
            RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=False, retry_on=ValueError),
            RetryPolicy(max_attempts=3, initial_interval=0.02, jitter=False, retry_on=KeyError),
        ),
    )
    b.add_node("report", _node("report", 1.0, "foo", "reported"))
    b.add_edge(START, "failing_node")
    b.add_edge("failing_node", "report")
    return b


# --------------------------------------------------------------------------- 83-84 round 19
def _logged_add_one(name: str) -> Callable[[int], int]:
    def add(x: int) -> int:
        with effect(name, x=x):
            _sleep(1.0)
        return x + 1

    add.__name__ = name
    return add


def pregel_interrupt_after(checkpointer: Any) -> Any:
    """A raw `Pregel`: one (input -> inbox) and two (inbox -> output), with
    ``interrupt_after_nodes=["one"]``; inputs 2, None, 20, then 3 while paused (a fresh input
    that drops the pause), then None.

    Mirrors test_large_cases.py::test_invoke_two_processes_in_out_interrupt: a breakpoint
    after a node of LangGraph's low-level API, passed by ``invoke(None)``, and a new input
    sent into a paused thread; the kill lands in the last two invocations.
    """
    from langgraph.channels import LastValue
    from langgraph.pregel import NodeBuilder, Pregel

    return Pregel(
        nodes={
            "one": NodeBuilder()
            .subscribe_only("input")
            .do(_logged_add_one("one"))
            .write_to("inbox"),
            "two": NodeBuilder()
            .subscribe_only("inbox")
            .do(_logged_add_one("two"))
            .write_to("output"),
        },
        channels={"inbox": LastValue(int), "output": LastValue(int), "input": LastValue(int)},
        input_channels="input",
        output_channels="output",
        checkpointer=checkpointer,
        interrupt_after_nodes=["one"],
    )


class SwitchState(TypedDict, total=False):
    myval: Annotated[int, operator.add]
    otherval: bool


def _switch_node(name: str) -> Callable[[SwitchState], dict[str, Any]]:
    def node(state: SwitchState) -> dict[str, Any]:
        switch = not state.get("otherval", False)  # the test's toggle, carried in the state
        with effect(name, myval=state.get("myval", 0)):
            _sleep(1.0)
        return {"myval": 2 if switch else 1, "otherval": switch}

    node.__name__ = name
    return node


def _switch_edge(src: str) -> Callable[[SwitchState], str]:
    swap = "node_one" if src == "node_two" else "node_two"

    def edge(state: SwitchState) -> str:
        if state.get("myval", 0) > 3:
            return END
        return swap if state.get("otherval") else src

    return edge


def fork_retains_writes() -> StateGraph:
    """node_one and node_two route to each other until ``myval`` passes 3; then the thread
    runs again from the checkpoint two entries back, where node_one is due (``invoke(None,
    config with its checkpoint_id)``), and the kill lands in that run.

    Mirrors test_pregel.py::test_run_from_checkpoint_id_retains_previous_writes: a run from an
    earlier checkpoint of a conditional loop keeps the writes that checkpoint already had.
    """
    b = StateGraph(SwitchState)
    b.add_node("node_one", _switch_node("node_one"))
    b.add_node("node_two", _switch_node("node_two"))
    b.add_edge(START, "node_one")
    b.add_conditional_edges("node_one", _switch_edge("node_one"), ["node_one", "node_two", END])
    b.add_conditional_edges("node_two", _switch_edge("node_two"), ["node_one", "node_two", END])
    return b


# --------------------------------------------------------------------------- 85-86 round 20
class MarketState(TypedDict, total=False):
    my_key: Annotated[str, operator.add]
    market: str


class MarketSubState(TypedDict, total=False):
    my_key: str
    market: str


def _market_do(state: MarketSubState) -> dict[str, Any]:
    answer = interrupt("Just because...") if state.get("market") == "DE" else " all good"
    with effect("do", market=state.get("market"), answer=answer):
        _sleep(2.0)
    return {"my_key": str(answer)}


def dynamic_interrupt_subgraph() -> StateGraph:
    """tool_two, a compiled subgraph whose one node `do` (`RetryPolicy`) calls
    ``interrupt()`` before logging, then works with the answer.

    Mirrors test_large_cases.py::test_dynamic_interrupt_subgraph: the first invocation pauses
    inside the subgraph without a line; ``Command(resume=...)`` answers it, and the kill lands
    in the answered run.
    """
    sub = StateGraph(MarketSubState)
    _add_node(sub, "do", _market_do, retry_policy=RetryPolicy())
    sub.add_edge(START, "do")
    b = StateGraph(MarketState)
    b.add_node("tool_two", sub.compile())
    b.add_edge(START, "tool_two")
    return b


def interrupt_after_all_async(checkpointer: Any) -> Any:
    """step_1 -> step_2 -> step_3 as ``async def`` nodes, compiled with interrupt_after="*",
    run by ``ainvoke``; ``ainvoke(None)`` goes on after each pause.

    Mirrors test_interruption.py::test_interruption_without_state_updates_async: the async
    loop's pause after every step, with no channel written.
    """

    def step(name: str) -> Callable[..., Any]:
        async def node(state: InputOnlyState) -> None:
            import asyncio

            with effect(name):
                await asyncio.sleep(settings.get_float(ENV_SLEEP, 0.0))

        node.__name__ = name
        return node

    steps = [(f"step_{i}", step(f"step_{i}")) for i in (1, 2, 3)]
    return chain(InputOnlyState, *steps).compile(checkpointer=checkpointer, interrupt_after="*")


# --------------------------------------------------------------------------- 87-88 round 21
class CountData(TypedDict, total=False):
    count: int
    data: str


def _prepare_count(state: CountData) -> dict[str, Any]:
    with effect("prepare"):
        _sleep(1.0)
    return {"count": state.get("count", 0) + 10}


def _multi_interrupt(state: CountData) -> dict[str, Any]:
    first = interrupt("First question?")
    second = interrupt("Second question?")
    with effect("multi_interrupt", first=first, second=second):
        _sleep(2.0)
    return {"data": f"{first},{second}"}


def interrupt_cycles_after_node() -> StateGraph:
    """prepare -> multi_interrupt, which calls ``interrupt()`` twice before logging; each pause
    answered with ``Command(resume=...)``.

    Mirrors test_pregel.py::test_node_before_multiple_interrupt_cycles_graph_api: the first
    answer re-runs the node to its second pause without a line (an invocation the log does
    not show at all), the second answer to its work; the kill lands in that work.
    """
    return chain(CountData, ("prepare", _prepare_count), ("multi_interrupt", _multi_interrupt))


class ValueAnswer(TypedDict, total=False):
    value: int
    answer: str


def _value_step(name: str, update: Callable[[int], int]) -> Callable[..., Any]:
    def node(state: ValueAnswer) -> dict[str, Any]:
        with effect(name, value=state.get("value")):
            _sleep(1.0)
        return {"value": update(state.get("value", 0))}

    node.__name__ = name
    return node


def _ask_value(state: ValueAnswer) -> dict[str, Any]:
    answer = interrupt(f"Result so far is {state.get('value')}. What next?")
    with effect("ask", answer=answer):
        _sleep(2.0)
    return {"answer": str(answer)}


def nodes_before_interrupt() -> StateGraph:
    """step_a -> step_b -> ask, which calls ``interrupt()`` before logging; answered.

    Mirrors test_pregel.py::test_multiple_nodes_before_interrupt_resume_graph_api (the graph
    API's analog of round 16's tasks_before_interrupt): the answer runs ask again from its
    top, after two saved steps; the kill lands in ask's work.
    """
    return chain(
        ValueAnswer,
        ("step_a", _value_step("step_a", lambda v: v + 1)),
        ("step_b", _value_step("step_b", lambda v: v * 2)),
        ("ask", _ask_value),
    )


# --------------------------------------------------------------------------- 89 round 22
def named_tasks(checkpointer: Any) -> Any:
    """@entrypoint `workflow` calling, one after another, @tasks given names of their own: a
    bound method twice under two names (custom_foo, other_foo), custom_bar, a partial left
    unnamed (baz), the same partial named custom_baz, a callable object named qux.

    Mirrors test_pregel.py::test_named_tasks_functional: a call's name (what its task id is
    hashed from, and what its lines carry) is the one given, not the function's.
    """
    import functools

    from langgraph.func import entrypoint, task

    def work(label: str, value: str) -> str:
        with effect(label):
            _sleep(1.0)
        return f"{value}|{label}"

    class Foo:
        def foo(self, value: str) -> str:
            return work("foo", value)

    class Qux:
        def __call__(self, value: str) -> str:
            return work("qux", value)

    f = Foo()
    foo = task(f.foo, name="custom_foo")
    other_foo = task(f.foo, name="other_foo")
    bar = task(functools.partial(work, "bar"), name="custom_bar")
    baz_task = task(functools.partial(work, "baz"))
    custom_baz_task = task(functools.partial(work, "custom_baz"), name="custom_baz")
    qux_task = task(Qux(), name="qux")

    @entrypoint(checkpointer=checkpointer)
    def workflow(inputs: dict[str, Any]) -> str:
        value = foo(inputs.get("value", "")).result()
        other_foo(value).result()
        value = bar(value).result()
        value = baz_task(value).result()
        value = custom_baz_task(value).result()
        return str(qux_task(value).result())

    return workflow


# --------------------------------------------------------------------------- 90-92 round 23
class AgentInput(TypedDict, total=False):
    input: str


def _asking(name: str) -> Callable[[AgentInput], dict[str, Any]]:
    def node(state: AgentInput) -> dict[str, Any]:
        answer = interrupt(f"interrupt {name}")
        with effect(name, answer=answer):
            _sleep(1.0)
        return {"input": str(answer)}

    node.__name__ = name
    return node


_DOUBLE_INTERRUPT_SUB: Any = None


def _invoke_sub_agent(state: AgentInput) -> dict[str, Any]:
    global _DOUBLE_INTERRUPT_SUB
    if _DOUBLE_INTERRUPT_SUB is None:
        _DOUBLE_INTERRUPT_SUB = chain(
            AgentInput, ("node_1", _asking("node_1")), ("node_2", _asking("node_2"))
        ).compile()
    out = _DOUBLE_INTERRUPT_SUB.invoke(state)
    with effect("invoke_sub_agent", input=out.get("input")):
        _sleep(1.0)
    return {"input": out.get("input", "")}


def double_interrupt_subgraph() -> StateGraph:
    """invoke_sub_agent, a node that calls ``subgraph.invoke()`` (compiled without a
    checkpointer of its own, so on the thread's), whose node_1 and node_2 each call
    ``interrupt()`` before logging; then the node logs the subgraph's answer.

    Mirrors test_pregel.py::test_double_interrupt_subgraph: two answers, each re-running the
    node from its top and the subgraph from its saved checkpoint; the kill lands after the
    second answer, in node_2's work or the calling node's own.
    """
    return chain(AgentInput, ("invoke_sub_agent", _invoke_sub_agent))


class MarketKey(TypedDict, total=False):
    my_key: Annotated[str, operator.add]
    market: str


def _ask_twice(state: MarketKey) -> dict[str, Any]:
    answer = interrupt({"value": 1})
    answer2 = interrupt({"value": 2})
    with effect("node", my_key=state.get("my_key"), answers=[answer, answer2]):
        _sleep(2.0)
    return {"my_key": f"{answer} {answer2}"}


def interrupt_update_resume() -> StateGraph:
    """node calls ``interrupt()`` twice before logging; the first pause is answered with
    ``Command(resume=..., update={"my_key": " foofoo "})``, the second with a plain resume.

    Mirrors test_pregel.py::test_interrupt_multiple (resume_style "null"): a resume that also
    edits the state — its update is a pending write of no task (LangGraph's null task id),
    folded in by the step the answered node completes; the kill lands in that node's work.
    """
    return chain(MarketKey, ("node", _ask_twice))


class ValueTrail(TypedDict, total=False):
    value: Annotated[list[str], operator.add]


def _ask_human(state: ValueTrail) -> dict[str, Any]:
    answer = interrupt("Provide input:")
    with effect("ask_human", answer=answer):
        _sleep(1.0)
    return {"value": [f"human:{answer}"]}


def subgraph_replay_then_resume() -> StateGraph:
    """router -> subgraph_node (a stateful subgraph, ``checkpointer=True``: step_a ->
    ask_human, which calls ``interrupt()`` before logging -> step_b) -> post_process. Paused,
    answered and run to its end; then run again from the root checkpoint where subgraph_node
    was due (time travel: a fork), which pauses again, and answered once more.

    Mirrors test_time_travel.py::test_subgraph_interrupt_replay_from_parent_then_resume: the
    replay re-runs step_a and asks again; the kill lands in the second answer's run.
    """
    sub = chain(
        ValueTrail,
        ("step_a", _node("step_a", 1.0, "value")),
        ("ask_human", _ask_human),
        ("step_b", _node("step_b", 1.0, "value")),
    ).compile(checkpointer=True)
    b = StateGraph(ValueTrail)
    b.add_node("router", _node("router", 1.0, "value"))
    b.add_node("subgraph_node", sub)
    b.add_node("post_process", _node("post_process", 1.0, "value"))
    b.add_edge(START, "router")
    b.add_edge("router", "subgraph_node")
    b.add_edge("subgraph_node", "post_process")
    return b


# --------------------------------------------------------------------------- 93-95 round 24
async def _awhile_once(state: Trail) -> dict[str, Any]:
    with effect("agent"):
        await _asleep(1.0)
    return {"visited": ["agent"]}


async def _iambad_asks(state: Trail) -> dict[str, Any]:
    answer = interrupt("I am bad")
    with effect("bad", answer=answer):
        await _asleep(1.0)
    return {"visited": ["bad"]}


def node_beside_interrupt_async() -> StateGraph:
    """START -conditional-> agent (``async``, works a unit) | bad (``async``, calls
    ``interrupt()`` before logging) -> report. The first invocation pauses in bad while agent
    finishes; ``ainvoke(None)`` pauses there again without running agent; then
    ``Command(resume=...)`` answers, and the kill lands in that run.

    Mirrors test_pregel_async.py::test_node_not_cancelled_on_other_node_interrupted: on the
    async loop a sibling's pause does not cancel a running task; its write is kept as a
    pending write, and neither the resume without an answer nor the answer runs it again.
    """
    b = StateGraph(Trail)
    b.add_node("agent", _awhile_once)
    b.add_node("bad", _iambad_asks)
    b.add_node("report", _anode("report", 1.0))
    b.add_conditional_edges(START, lambda _: ["agent", "bad"], ["agent", "bad"])
    b.add_edge(["agent", "bad"], "report")
    return b


class HandledFoo(TypedDict, total=False):
    foo: str
    visited: Annotated[list[str], operator.add]


async def _sub_work(state: HandledFoo) -> dict[str, Any]:
    with effect("sub_work"):
        await _asleep(1.0)
    return {"foo": "worked"}


async def _sub_fail(state: HandledFoo) -> dict[str, Any]:
    with effect("sub_fail_node"):
        await _asleep(0.5)
        raise ValueError("async subgraph boom")


async def _subgraph_handler(state: HandledFoo, error: Any) -> Command[Any]:
    with effect("handler", failed=str(getattr(error, "node", ""))):
        await _asleep(1.5)
    return Command(update={"foo": "handled_async_subgraph", "visited": ["handler"]}, goto="report")


def error_handler_subgraph_async() -> StateGraph:
    """subgraph_node, a compiled subgraph (sub_work -> sub_fail_node, which raises), added with
    an ``error_handler`` that logs, recovers and goes on to report
    (``Command(goto="report")``). ``async def`` throughout, run by ``ainvoke``.

    Mirrors test_pregel_async.py::test_node_error_handler_handles_subgraph_internal_failure_async:
    a failure inside a subgraph raises out of the parent's task, whose handler runs as a task
    of that step; the kill lands in the handler or in report.
    """
    from langgraph.errors import NodeError  # LangGraph 1.2: passed to a handler asking for it

    _subgraph_handler.__annotations__["error"] = NodeError
    sub = StateGraph(HandledFoo)
    sub.add_node("sub_work", _sub_work)
    sub.add_node("sub_fail_node", _sub_fail)
    sub.add_edge(START, "sub_work")
    sub.add_edge("sub_work", "sub_fail_node")
    b = StateGraph(HandledFoo)
    b.add_node("subgraph_node", sub.compile(), error_handler=_subgraph_handler)
    b.add_node("report", _anode("report", 1.0))
    b.add_edge(START, "subgraph_node")
    b.add_edge("subgraph_node", "report")
    return b


def interrupts_from_tasks_async(checkpointer: Any) -> Any:
    """@entrypoint `program` (``async``) awaiting @task add_participant twice; each call
    calls ``interrupt()`` before logging, then works with the answer. Answered twice.

    Mirrors test_pregel_async.py::test_handles_multiple_interrupts_from_tasks: a call that
    pauses, answered, is reused; the next call pauses in the next invocation; the kill lands
    after the second answer, in its work or after it.
    """
    from langgraph.func import entrypoint, task

    @task
    async def add_participant(name: str) -> str:
        feedback = interrupt(f"Hey do you want to add {name}?")
        with effect("add_participant", participant=name, feedback=feedback):
            await _asleep(1.0)
        return f"Added {name}!"

    @task
    async def announce(names: list[str]) -> str:
        with effect("announce"):
            await _asleep(1.0)
        return ", ".join(names)

    @entrypoint(checkpointer=checkpointer)
    async def program(_state: Any) -> str:
        first = await add_participant("James")
        second = await add_participant("Will")
        return await announce([first, second])

    return program


# --------------------------------------------------------------------------- 96-97 round 25
def sequential_interrupts_fork() -> StateGraph:
    """node_a -> interrupt_1 -> interrupt_2 -> node_b; each interrupt node calls
    ``interrupt()`` before logging. Answered twice and run to its end; then the state is
    edited at the checkpoint where interrupt_2 was due (``update_state``, a fork with a
    modified state) and the thread run from there, which pauses at interrupt_2 again, and is
    answered once more.

    Mirrors test_time_travel.py::test_sequential_interrupts_fork_from_middle: only the second
    question is asked again, the first answer kept; the kill lands in that answer's run.
    """
    return chain(
        ValueTrail,
        ("node_a", _node("node_a", 1.0, "value")),
        ("interrupt_1", _asks("interrupt_1", "First question?")),
        ("interrupt_2", _asks("interrupt_2", "Second question?")),
        ("node_b", _node("node_b", 1.0, "value")),
    )


class _Resource:
    """What test_send_with_untracked_value keeps in its untracked channel: an object no
    serializer takes (it holds a lock)."""

    def __init__(self, name: str) -> None:
        import threading

        self.name = name
        self.lock = threading.Lock()


def untracked_send() -> StateGraph:
    """setup puts an unserializable resource in an ``UntrackedValue`` channel, then a `Send`
    runs tool_node with the whole state, which uses it and replaces it.

    Mirrors test_pregel.py::test_send_with_untracked_value: an untracked channel's values are
    never saved (not in checkpoints, not in pending writes), yet a `Send` carries them to
    its task; the kill lands in setup or in the sent task.
    """
    from langgraph.channels.untracked_value import UntrackedValue

    # (the functional form: the channel class is a local import, which a string annotation
    # would not find)
    State = TypedDict(  # noqa: UP013
        "State",
        {"messages": Annotated[list[str], operator.add],
         "session_resource": Annotated[Any, UntrackedValue]},
        total=False,
    )  # fmt: skip

    def setup(state: dict[str, Any]) -> dict[str, Any]:
        with effect("setup"):
            _sleep(1.0)
        return {"messages": ["setup complete"], "session_resource": _Resource("test_session")}

    def tool_node(state: dict[str, Any]) -> dict[str, Any]:
        resource = state.get("session_resource")
        name = getattr(resource, "name", None)
        with effect("tool_node", resource=name):
            _sleep(1.0)
        return {"messages": [f"tool used resource: {name}"],
                "session_resource": _Resource("new_session")}  # fmt: skip

    b = StateGraph(State)
    b.add_node("setup", setup)
    b.add_node("tool_node", tool_node)
    b.add_edge(START, "setup")
    b.add_conditional_edges("setup", lambda s: [Send("tool_node", s)], ["tool_node"])
    return b


# --------------------------------------------------------------------------- 98 round 26
def cached_task_interrupts(checkpointer: Any) -> Any:
    """@entrypoint `graph` calling a cached @task `double` (``CachePolicy()``, a SQLite cache
    beside the run that outlives the process) for 1, 1, 2, 2, 3, 3, each call followed by
    ``interrupt()``; every pause answered. A call for a value the cache holds does not run its
    body; double(3) works two units.

    Mirrors test_pregel.py::test_multiple_interrupts_functional_cache: six answers, three
    computations; the kill lands in double(3), in the fifth invocation.
    """
    from langgraph.cache.sqlite import SqliteCache
    from langgraph.func import entrypoint, task
    from langgraph.types import CachePolicy

    folder = _cache_folder()

    @task(cache_policy=CachePolicy())
    def double(x: int) -> int:
        with effect("double", x=x):
            _sleep(2.0 if x == 3 else 1.0)
        return 2 * x

    @entrypoint(
        checkpointer=checkpointer, cache=SqliteCache(path=str(folder / "task-cache.sqlite"))
    )
    def graph(state: dict[str, Any]) -> dict[str, Any]:
        values: list[Any] = []
        for idx in [1, 1, 2, 2, 3, 3]:
            values.extend([double(idx).result(), interrupt({"a": "boo"})])
        return {"values": values}

    return graph


# --------------------------------------------------------------------------- 99-100 round 27
def multiple_forks_same_checkpoint() -> StateGraph:
    """node_a -> node_b -> node_c. Run to its end; then the state is edited twice at the same
    checkpoint, where node_b was due (two ``update_state`` calls on it, each followed by
    ``invoke(None)`` from the edit): two branches side by side; the kill lands in the
    second branch's run.

    Mirrors test_time_travel.py::test_multiple_forks_from_same_checkpoint: independent
    branches from one checkpoint, each run from its own edit.
    """
    return chain(
        ValueTrail,
        ("node_a", _node("node_a", 1.0, "value")),
        ("node_b", _node("node_b", 1.0, "value")),
        ("node_c", _node("node_c", 1.0, "value")),
    )


class ParentNameState(TypedDict, total=False):
    value: Annotated[list[str], operator.add]
    user_name: str


def _get_user_name(state: ValueTrail) -> Command[Any]:
    with effect("tool"):
        _sleep(1.0)
    return Command(update={"user_name": "Meow"}, graph=Command.PARENT)


def parent_command_stateful() -> StateGraph:
    """alice, a subgraph compiled with ``checkpointer=True`` whose one node `tool` logs, then
    returns ``Command(update={"user_name": ...}, graph=Command.PARENT)`` (a key only the
    parent has); then greet. Two inputs; the kill lands in the second.

    Mirrors test_pregel.py::test_parent_command (``subgraph_persist=True``): a parent command
    raised out of a stateful subgraph, which keeps its own history across the thread's runs.
    """
    sub = StateGraph(ValueTrail)
    sub.add_node("tool", _get_user_name)
    sub.add_edge(START, "tool")
    b = StateGraph(ParentNameState)
    b.add_node("alice", sub.compile(checkpointer=True))
    b.add_node("greet", _node("greet", 1.0, "value"))
    b.add_edge(START, "alice")
    b.add_edge("alice", "greet")
    return b


# --------------------------------------------------------------------------- 101 round 28
def replay_before_interrupt() -> StateGraph:
    """node_a -> ask_human (calls ``interrupt()`` before logging) -> node_b. Paused, answered,
    run to its end; then run again from the checkpoint where ask_human was due
    (``invoke(None)`` with its id: a copy, a branch), which asks again; answered once more.

    Mirrors test_time_travel.py::test_replay_from_before_interrupt_then_resume: the replay
    does not run node_a again, asks the question again, and the new answer's run ends the new
    branch; the kill lands in that run.
    """
    return chain(
        ValueTrail,
        ("node_a", _node("node_a", 1.0, "value")),
        ("ask_human", _ask_human),
        ("node_b", _node("node_b", 1.0, "value")),
    )


# --------------------------------------------------------------------------- 102 round 29
class ResultsState(TypedDict, total=False):
    results: Annotated[list[str], operator.add]


def _one_node(state: type, name: str, units: float, key: str) -> StateGraph:
    """A graph of one node, `name`, holding its effect open for `units` and writing `key`."""
    g = StateGraph(state)
    g.add_node(name, _node(name, units, key))
    g.add_edge(START, name)
    return g


def stateful_subgraph_replayed_tick() -> StateGraph:
    """node_a -> node_b -> sub_node, a subgraph compiled with ``checkpointer=True`` (one node,
    sub_step). Two inputs, each run to its end; then the thread is run again from the oldest
    checkpoint where node_a was due, and the kill lands in that run.

    Mirrors test_time_travel.py::test_stateful_subgraph_loads_state_across_ticks: in a run
    from an earlier checkpoint, a stateful subgraph that runs in a later tick than the copy
    loads its state from its own history.
    """
    sub = _one_node(ValueTrail, "sub_step", 1.0, "value")
    return chain(
        ResultsState,
        ("node_a", _node("node_a", 1.0, "results")),
        ("node_b", _node("node_b", 1.0, "results")),
        ("sub_node", sub.compile(checkpointer=True)),
    )


# --------------------------------------------------------------------------- 103-104 round 30


class SubTrailA(TypedDict, total=False):
    a_trail: Annotated[list[str], operator.add]


class SubTrailB(TypedDict, total=False):
    b_trail: Annotated[list[str], operator.add]


def parallel_stateful_subgraphs_replayed() -> StateGraph:
    """parent_step, then two sibling subgraphs compiled with ``checkpointer=True`` in one
    step (sub_a_node's sub_a_step, one sleep unit; sub_b_node's sub_b_step, two). Two inputs,
    each run to its end; then the thread is run again from the newest checkpoint where
    parent_step was due (the second input's), and the kill lands in that run.

    Mirrors test_time_travel.py::test_parallel_subgraph_nodes_load_correct_state_on_replay:
    on a run from an earlier checkpoint each sibling loads its own history.
    """
    sub_a = _one_node(SubTrailA, "sub_a_step", 1.0, "a_trail")
    sub_b = _one_node(SubTrailB, "sub_b_step", 2.0, "b_trail")
    b = StateGraph(ResultsState)
    b.add_node("parent_step", _node("parent_step", 1.0, "results"))
    b.add_node("sub_a_node", sub_a.compile(checkpointer=True))
    b.add_node("sub_b_node", sub_b.compile(checkpointer=True))
    b.add_edge(START, "parent_step")
    b.add_edge("parent_step", "sub_a_node")
    b.add_edge("parent_step", "sub_b_node")
    return b


class LoopCounterState(TypedDict, total=False):
    counter: int
    results: Annotated[list[str], operator.add]


def _inc(state: LoopCounterState) -> dict[str, Any]:
    with effect("inc", counter=state.get("counter", 0)):
        _sleep(1.0)
    n = state.get("counter", 0)
    return {"counter": n + 1, "results": [f"inc:{n}"]}


def stateful_subgraph_loop_replayed() -> StateGraph:
    """inc -> sub_node (a subgraph compiled with ``checkpointer=True``: sub_step) -> inc again
    until the counter reaches 2. Two inputs, each run to its end; then the thread is run
    again from the newest checkpoint where inc was due (mid-loop in the second input: one
    round left), and the kill lands in that run.

    Mirrors test_time_travel.py::test_subgraph_called_in_loop_loads_state_on_replay: the
    subgraph called in a loop loads, on the run from mid-loop, the state its first round of
    that invocation left.
    """
    sub = _one_node(ValueTrail, "sub_step", 1.0, "value")
    b = StateGraph(LoopCounterState)
    b.add_node("inc", _inc)
    b.add_node("sub_node", sub.compile(checkpointer=True))
    b.add_edge(START, "inc")
    b.add_edge("inc", "sub_node")
    b.add_conditional_edges(
        "sub_node", lambda s: "inc" if s.get("counter", 0) < 2 else END, ["inc", END]
    )
    return b


# --------------------------------------------------------------------------- 105-107 round 31


class InnerTrail(TypedDict, total=False):
    inner_trail: Annotated[list[str], operator.add]


class MidTrail(TypedDict, total=False):
    mid_trail: Annotated[list[str], operator.add]


def three_level_stateful_replayed() -> StateGraph:
    """parent_step -> mid_node, a subgraph compiled with ``checkpointer=True`` (mid_step ->
    inner_node, itself a ``checkpointer=True`` subgraph: inner_step). Two inputs run to their
    ends, the thread run again from the newest checkpoint where parent_step was due, then a
    third input; the kill lands in that last one.

    Mirrors test_time_travel.py::test_three_level_nested_subgraph_loads_state_on_replay: on
    the run from the earlier checkpoint both nested levels load their own history, and the
    input after it sees the state that run left.
    """
    inner = _one_node(InnerTrail, "inner_step", 1.0, "inner_trail")
    mid = StateGraph(MidTrail)
    mid.add_node("mid_step", _node("mid_step", 1.0, "mid_trail"))
    mid.add_node("inner_node", inner.compile(checkpointer=True))
    mid.add_edge(START, "mid_step")
    mid.add_edge("mid_step", "inner_node")
    return chain(
        ResultsState,
        ("parent_step", _node("parent_step", 1.0, "results")),
        ("mid_node", mid.compile(checkpointer=True)),
    )


def copy_fork_interrupt() -> StateGraph:
    """node_a -> ask_human (calls ``interrupt()`` before logging) -> node_b. Paused, answered,
    run to its end; then ``update_state(config, None, as_node="__copy__")`` at the checkpoint
    where ask_human was due saves a plain copy (source ``fork``), the thread runs from it and
    asks again, and the answer's run is killed.

    Mirrors test_time_travel.py::test_copy_fork_retriggers_interrupt: the copy holds no
    cached answer, so the question is asked again. The graph is round 28's; only the fork
    differs.
    """
    return replay_before_interrupt()


class SumState(TypedDict, total=False):
    a: int
    b: int
    result: int


def _sum_step(name: str, op: Callable[[int, int], int]) -> Callable[..., Any]:
    def step(state: SumState) -> dict[str, Any]:
        with effect(name):
            _sleep(1.0)
        return {"result": op(state["a"], state["b"])}

    step.__name__ = name
    return step


def subgraphs_in_task_entrypoint(checkpointer: Any) -> Any:
    """@entrypoint `parent`: one @task, `call_subgraphs`, that invokes the StateGraph `add`
    twice (the second time on the first result) and then the StateGraph `multiply`; neither
    has a checkpointer of its own (they inherit the parent's, under the task's namespace).

    Mirrors test_pregel.py::test_multiple_subgraphs_mixed_entrypoint: StateGraph subgraphs
    called from a task of a functional graph, the same one twice.
    """
    from langgraph.func import entrypoint, task

    add = StateGraph(SumState)
    add.add_node("add", _sum_step("add", operator.add))
    add.add_edge(START, "add")
    add_graph = add.compile()
    mul = StateGraph(SumState)
    mul.add_node("multiply", _sum_step("multiply", operator.mul))
    mul.add_edge(START, "multiply")
    mul_graph = mul.compile()

    @task
    def call_subgraphs(a: int, b: int) -> list[int]:
        first = add_graph.invoke({"a": a, "b": b})["result"]
        again = add_graph.invoke({"a": first, "b": 10})["result"]
        return [again, mul_graph.invoke({"a": a, "b": b})["result"]]

    @entrypoint(checkpointer=checkpointer)
    def parent(inputs: list[int]) -> list[int]:
        return call_subgraphs(*inputs).result()

    return parent


# --------------------------------------------------------------------------- 108 round 32
def tasks_before_interrupts(checkpointer: Any) -> Any:
    """@entrypoint `workflow`: the @task `setup`, then the @task `ask` once per topic (two),
    each calling ``interrupt()`` before logging and then working with the answer, then the
    @task `report`. Answered twice; the kill lands after the second answer.

    Mirrors test_pregel.py::test_task_before_interrupt_resume: a task that ran before the
    pausing ones (its result saved mid-step) is reused by every answer's run, and each
    answer is consumed once, by the call that asked.
    """
    from langgraph.func import entrypoint, task

    @task
    def setup(n: int) -> int:
        with effect("setup", topics=n):
            _sleep(0.5)
        return n

    @task
    def ask(question: str) -> str:
        answer = interrupt(question)
        with effect("ask", question=question, answer=answer):
            _sleep(1.0)
        return str(answer)

    @task
    def report(answers: list[str]) -> dict[str, Any]:
        with effect("report", answers=len(answers)):
            _sleep(1.0)
        return {"answers": answers}

    @entrypoint(checkpointer=checkpointer)
    def workflow(number_of_topics: int) -> dict[str, Any]:
        n = setup(number_of_topics).result()
        answers = [ask(f"Whats the answer for topic {i + 1}?").result() for i in range(n)]
        return report(answers).result()

    return workflow


# --------------------------------------------------------------------------- 109 round 33
def interrupt_in_entrypoint_body(checkpointer: Any) -> Any:
    """@entrypoint `graph`: starts the @task `foo` without waiting for it, calls
    ``interrupt()`` in its own body, then hands foo's result and the answer to the @task
    `bar`. Answered once; the kill lands in bar, after the answer.

    Mirrors test_pregel.py::test_interrupt_functional: the entrypoint itself pauses while a
    call it made runs beside it; the answer's run reuses that call's result.
    """
    from langgraph.func import entrypoint, task

    @task
    def foo(state: dict[str, Any]) -> dict[str, Any]:
        with effect("foo"):
            _sleep(1.0)
        return {"a": state["a"] + "foo"}

    @task
    def bar(state: dict[str, Any]) -> dict[str, Any]:
        with effect("bar", b=state["b"]):
            _sleep(2.0)
        return {"a": state["a"] + "bar", "b": state["b"]}

    @entrypoint(checkpointer=checkpointer)
    def graph(inputs: dict[str, Any]) -> dict[str, Any]:
        fut_foo = foo(inputs)
        value = interrupt("Provide value for bar:")
        return bar({**fut_foo.result(), "b": value}).result()

    return graph


# --------------------------------------------------------------------------- 110-112 round 34
def subgraph_checkpoint_replayed() -> StateGraph:
    """Round 23's graph (router -> subgraph_node, ``checkpointer=True``: step_a -> ask_human,
    which calls ``interrupt()`` before logging -> step_b -> post_process), paused, answered and
    run to its end; then run again from the subgraph's own checkpoint where ask_human was due
    (``checkpoint_ns`` and ``checkpoint_map`` in the config, no ``update_state``), which asks
    again; the answer's run is killed.

    Mirrors test_time_travel.py::test_subgraph_replay_from_subgraph_checkpoint: the replay
    from inside the subgraph does not run router or step_a again.
    """
    return subgraph_replay_then_resume()


def _asks(name: str, *questions: str, units: float = 1.0) -> Callable[..., Any]:
    """A node that calls ``interrupt()`` once per question, then holds its effect open for
    `units`."""

    def node(state: ValueTrail) -> dict[str, Any]:
        answers = [interrupt(question) for question in questions]
        with effect(name, answers=answers):
            _sleep(units)
        return {"value": [f"{name}:{answer}" for answer in answers]}

    node.__name__ = name
    return node


def three_level_middle_interrupts() -> StateGraph:
    """outer, a subgraph compiled with ``checkpointer=True`` (pre, which asks before logging ->
    inner, itself a ``checkpointer=True`` subgraph: step_a -> ask_1, which asks too). Both
    questions answered and the run ended; then the middle graph's own checkpoint where pre was
    due is edited (``update_state``) and the thread run from it, which asks pre's question
    again; the answer's run (pre, then the inner graph from its ended state) is killed.

    Mirrors test_time_travel.py::test_3_levels_deep_middle_has_interrupts: a fork from the
    middle level of three re-fires the middle's interrupt and leaves the level above alone.
    """
    inner = chain(
        ValueTrail,
        ("step_a", _node("step_a", 1.0, "value")),
        ("ask_1", _asks("ask_1", "Question 1?")),
    )
    middle = chain(
        ValueTrail,
        ("pre", _asks("pre", "Pre-question?")),
        ("inner", inner.compile(checkpointer=True)),
    )
    return chain(ValueTrail, ("outer", middle.compile(checkpointer=True)))


def two_interrupts_replayed() -> StateGraph:
    """ask (two ``interrupt()`` calls, then its effect) -> after. Both questions answered and
    the run ended; then the thread is run again from the checkpoint where ask was due, which
    asks the first question again, and both are answered once more; the kill lands in the
    last answer's run.

    Mirrors test_time_travel.py::test_multiple_interrupts_in_one_node: each answer re-runs the
    node from its top, and the replay re-fires the first question.
    """
    return chain(
        ValueTrail,
        ("ask", _asks("ask", "First question?", "Second question?")),
        ("after", _node("after", 1.0, "value")),
    )


# --------------------------------------------------------------------------- 113-115 round 35
class SumTrail(TypedDict, total=False):
    value: Annotated[int, operator.add]


def fork_as_due_node() -> StateGraph:
    """node_a -> node_b -> node_c, run to its end; then ``update_state`` at the checkpoint
    where node_a was due, written as node_a (``as_node="node_a"``: the edit stands for node_a's
    result), and the thread run from the edit: node_b and node_c run, node_a does not; the
    kill lands in that run.

    Mirrors test_pregel.py::test_fork_does_not_apply_pending_writes: the fork takes the edit
    in place of node_a's result and none of the writes the first run saved at that checkpoint.
    """
    return chain(
        SumTrail,
        ("node_a", _node("node_a", 1.0, "value", value=10)),
        ("node_b", _node("node_b", 1.0, "value", value=100)),
        ("node_c", _node("node_c", 1.0, "value", value=1000)),
    )


class NumText(TypedDict, total=False):
    num: int
    text: str


def _doubles(name: str) -> Callable[..., Any]:
    def node(state: NumText) -> dict[str, Any]:
        with effect(name):
            _sleep(1.0)
        return {"num": state.get("num", 0) * 2, "text": state.get("text", "") * 2}

    node.__name__ = name
    return node


def supersteps_then_run() -> StateGraph:
    """double -> again. The thread's first two checkpoints are written by ``update_state``, not
    by a run (an empty input as ``__input__``, then the values as ``__start__``: the steps
    ``bulk_update_state`` takes one superstep each), and only then is it run, with no input;
    the kill lands in that run.

    Mirrors test_pregel.py::test_supersteps_populate_task_results: a thread built by state
    updates holds the same tasks as one an input started, and runs from them.
    """
    return chain(NumText, ("double", _doubles("double")), ("again", _doubles("again")))


async def _asks_beside(state: Trail) -> dict[str, Any]:
    answer = interrupt("need human input")
    with effect("node_a", answer=answer):
        await _asleep(1.0)
    return {"visited": [f"node_a:{answer}"]}


def interrupt_beside_handler_async() -> StateGraph:
    """node_a (``async def``, with an error handler; asks before logging) and node_b from
    START, then finish. The question pauses the run while node_b ends beside it; the answer's
    run (node_a, then finish) is killed.

    Mirrors test_pregel_async.py::test_graph_error_handler_does_not_swallow_interrupt_concurrent:
    a node's error handler does not take its ``interrupt()`` for a failure, so the thread
    pauses with node_b's write saved.
    """
    b = StateGraph(Trail)
    b.add_node("node_a", _asks_beside, error_handler=_anode("handler", 0.5, value=["handled"]))
    b.add_node("node_b", _anode("node_b"))
    b.add_node("finish", _anode("finish"))
    b.add_edge(START, "node_a")
    b.add_edge(START, "node_b")
    b.add_edge(["node_a", "node_b"], "finish")
    return b


# --------------------------------------------------------------------------- 116-118 round 36
def inner_checkpoint_replayed() -> StateGraph:
    """outer, a ``checkpointer=True`` subgraph whose one node inner is another (step_a ->
    ask_1 -> ask_2, each asking before logging). Both questions answered and the run ended;
    then the thread is run from the innermost graph's own checkpoint where ask_2 was due (its
    namespace two levels down, the checkpoint map naming each level's), which asks ask_2's
    question again; the answer's run is killed.

    Mirrors test_time_travel.py::test_3_levels_deep_time_travel_to_second_interrupt: the
    replay from two levels down runs neither step_a nor ask_1 again.
    """
    inner = chain(
        ValueTrail,
        ("step_a", _node("step_a", 1.0, "value")),
        ("ask_1", _asks("ask_1", "Question 1?")),
        ("ask_2", _asks("ask_2", "Question 2?", units=2.0)),
    )
    middle = chain(ValueTrail, ("inner", inner.compile(checkpointer=True)))
    return chain(ValueTrail, ("outer", middle.compile(checkpointer=True)))


def explicit_head_resume() -> StateGraph:
    """subgraph_node, a ``checkpointer=True`` subgraph (step_a -> ask_human, asking before
    logging -> step_b). Paused; the answer is sent with the head checkpoint's id in the
    config (``invoke(Command(resume=...), {..., "checkpoint_id": head})``: a resume that
    reads like time travel), and that run is killed.

    Mirrors test_time_travel.py::test_subgraph_interrupt_resume_with_explicit_head_checkpoint_id:
    the subgraph goes on from the node that paused, it does not start over.
    """
    sub = chain(
        ValueTrail,
        ("step_a", _node("step_a", 1.0, "value")),
        ("ask_human", _ask_human),
        ("step_b", _node("step_b", 1.0, "value")),
    )
    return chain(ValueTrail, ("subgraph_node", sub.compile(checkpointer=True)))


def subgraph_fork_no_checkpointer() -> StateGraph:
    """router -> subgraph_node (a subgraph compiled with ``checkpointer=None``: its
    namespace names its task; step_a -> ask_human, asking before logging -> step_b) ->
    post_process. Paused, answered, run to its end; then an edit of the root checkpoint where
    subgraph_node was due, and a run from it, which runs the subgraph afresh and asks again;
    the answer's run is killed.

    Mirrors test_time_travel.py::test_subgraph_interrupt_full_flow_no_sub_checkpointer.
    """
    sub = chain(
        ValueTrail,
        ("step_a", _node("step_a", 1.0, "value")),
        ("ask_human", _ask_human),
        ("step_b", _node("step_b", 1.0, "value")),
    )
    return chain(
        ValueTrail,
        ("router", _node("router", 1.0, "value")),
        ("subgraph_node", sub.compile(checkpointer=None)),
        ("post_process", _node("post_process", 1.0, "value")),
    )


# --------------------------------------------------------------------------- 119-121 round 37
def first_invocation_replayed() -> StateGraph:
    """parent_node -> sub_node, a ``checkpointer=True`` subgraph (sub_step, holding its effect
    for two units). Two inputs run to their ends; then the thread is run from the oldest
    checkpoint where sub_node was due (the first input's), and that run is killed.

    Mirrors test_time_travel.py::test_replay_from_first_invocation_checkpoint: the replay
    runs the subgraph again from the first input's point of view.
    """
    sub = _one_node(ValueTrail, "sub_step", 2.0, "value")
    return chain(
        ResultsState,
        ("parent_node", _node("parent_node", 1.0, "results")),
        ("sub_node", sub.compile(checkpointer=True)),
    )


def _asking_subgraph_graph(checkpointer: bool | None) -> StateGraph:
    """parent_node -> sub_node, a subgraph (step_a -> step_b, each asking before logging)
    compiled with `checkpointer` (True: it keeps its own history; None: its namespace names
    its task and each run starts afresh)."""
    sub = chain(
        ValueTrail,
        ("step_a", _asks("step_a", "question_step_a")),
        ("step_b", _asks("step_b", "question_step_b")),
    )
    return chain(
        ResultsState,
        ("parent_node", _node("parent_node", 1.0, "results")),
        ("sub_node", sub.compile(checkpointer=checkpointer)),
    )


def stateful_subgraph_forked_turns() -> StateGraph:
    """parent_node -> sub_node, a ``checkpointer=True`` subgraph (step_a -> step_b, each
    asking before logging). Two inputs, each answered twice; then the root checkpoint where
    sub_node was due in the second input is edited and run from, which asks step_a's
    question again; both answered, and the answers' runs are killed.

    Mirrors test_time_travel.py::test_stateful_subgraph_retains_state_on_parent_fork: the
    fork's subgraph loads what its runs before saved.
    """
    return _asking_subgraph_graph(checkpointer=True)


def entrypoint_update_state(checkpointer: Any) -> Any:
    """@entrypoint `foo(inputs, *, previous)`, its one effect held for two units. The thread
    begins with ``update_state`` (no run), then three inputs, another ``update_state``, and a
    fourth input, which is killed.

    Mirrors test_pregel.py::test_entrypoint_stateful_update_state: each input reads what
    the edit or the last run saved as `previous`.
    """
    from langgraph.func import entrypoint

    @entrypoint(checkpointer=checkpointer)
    def foo(inputs: dict[str, Any], *, previous: Any = None) -> dict[str, Any]:
        with effect("foo", a=inputs.get("a")):
            _sleep(2.0)
        return {"previous": previous, "current": inputs}

    return foo


# --------------------------------------------------------------------------- 122-124 round 38
def stateless_subgraph_parent_replay() -> StateGraph:
    """parent_node -> sub_node, a subgraph compiled without a checkpointer of its own (its
    namespace names its task; step_a -> step_b, each asking before logging). Two inputs,
    each answered twice; then the thread is run again from the checkpoint where sub_node was
    due in the second, which starts the subgraph afresh and asks again; both answered, and
    the answers' runs are killed.

    Mirrors test_time_travel.py::test_stateless_subgraph_starts_fresh_on_parent_replay.
    """
    return _asking_subgraph_graph(checkpointer=None)


def middle_checkpoint_replayed() -> StateGraph:
    """Round 36's three levels (outer -> inner: step_a -> ask_1 -> ask_2, each asking before
    logging), both questions answered and the run ended; then the thread is run from the
    middle graph's own checkpoint where inner was due (the checkpoint map hands the inner
    graph its state as of then), which asks ask_2's question again; answered, and killed.

    Mirrors test_time_travel.py::test_3_levels_deep_time_travel_to_middle_subgraph.
    """
    return inner_checkpoint_replayed()


def _asks_until_valid(state: Trail) -> dict[str, Any]:
    question = "How old are you?"
    value = None
    for _ in range(10):
        value = interrupt(question)
        if str(value).isdigit() and int(value) >= 18:
            break
        question, value = "invalid response", None
    with effect("node", age=value):
        _sleep(2.0)
    return {"visited": [f"age:{value}"]}


def interrupt_validation_loop() -> StateGraph:
    """One node that asks again until the answer is valid (two invalid answers, then a
    valid one), then logs its effect; the valid answer's run is killed.

    Mirrors test_pregel.py::test_interrupt_loop: each answer re-runs the node from its top,
    replaying the earlier answers, and a new question is asked until one is valid.
    """
    return chain(Trail, ("node", _asks_until_valid))


# --------------------------------------------------------------------------- 125-126 round 39
async def _afailing_node(state: RecoveryState) -> dict[str, Any]:
    with effect("node1", attempt=state.get("attempt", 0)):
        await _asleep(1.0 if state.get("attempt") != 1 else 0.3)
        if state.get("attempt") == 1:
            raise RuntimeError("Simulated failure")
    return {"steps": ["node1"]}


def checkpoint_recovery_async() -> StateGraph:
    """node1 (``async def``; raises while attempt == 1) -> node2, run by ``ainvoke``; a
    second input retries it, and is killed.

    Mirrors test_pregel_async.py::test_checkpoint_recovery_async: the failed first input
    leaves its input checkpoint with node1 due; the second input runs node1 again.
    """
    return chain(RecoveryState, ("node1", _afailing_node), ("node2", _anode("node2", 1.0, "steps")))


class ForkSubState(TypedDict, total=False):
    sub_value: Annotated[list[str], operator.add]


class ForkParentState(TypedDict, total=False):
    value: Annotated[list[str], operator.add]
    sub_value: Annotated[list[str], operator.add]


def fork_branch_in_subgraph() -> StateGraph:
    """parent_start -> sub_graph (a compiled subgraph without a checkpointer of its own:
    sub_step) -> parent_end, run to its end; then the checkpoint where sub_graph was due is
    edited and the thread run from it: the subgraph runs again under a new task id, on the
    new branch, and that run is killed.

    Mirrors test_time_travel.py::test_fork_creates_branch_in_subgraph.
    """
    sub = _one_node(ForkSubState, "sub_step", 1.0, "sub_value")
    return chain(
        ForkParentState,
        ("parent_start", _node("parent_start", 1.0, "value")),
        ("sub_graph", sub.compile()),
        ("parent_end", _node("parent_end", 1.0, "value")),
    )


# --------------------------------------------------------------------------- round 40
def waiting_edge_plus_regular() -> StateGraph:
    """rewrite_query -> (analyzer_one -> retriever_one) | retriever_two -> qa (a join), and a
    plain edge rewrite_query -> qa as well: qa runs in step 2 beside analyzer_one and
    retriever_two, then again once the join is met (step 4).

    Mirrors test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_plus_regular: having
    been triggered before does not break the named barrier's semantics.
    """
    b = StateGraph(Trail)
    for name, frac in (("rewrite_query", 0.5), ("analyzer_one", 0.5), ("retriever_one", 1.0),
                       ("retriever_two", 2.0), ("qa", 1.0)):  # fmt: skip
        b.add_node(name, _node(name, frac))
    b.add_edge("rewrite_query", "qa")
    return _join_edges(b)


def fork_interrupt_refires() -> StateGraph:
    """node_a -> ask_human (asks before it logs) -> node_b, answered and run to its end; then
    the state is edited at the checkpoint where ask_human paused (``update_state``: the fork
    drops the pause's cached answer), the thread run from there asks again, and the new
    answer's run is killed.

    Mirrors test_time_travel.py::test_fork_from_interrupt_checkpoint_refires.
    """
    return chain(
        ValueTrail,
        ("node_a", _node("node_a", 1.0, "value")),
        ("ask_human", _asks("ask_human", "What is your input?")),
        ("node_b", _node("node_b", 1.0, "value")),
    )


def subgraph_second_interrupt_travel() -> StateGraph:
    """executor, a ``checkpointer=True`` subgraph (step_a -> ask_1 -> ask_2, each asking
    before it logs), both questions answered and the run ended; then the thread is run from
    the subgraph's own checkpoint where ask_2 was due, which asks ask_2's question again; the
    new answer's run is killed.

    Mirrors test_time_travel.py::test_subgraph_time_travel_resume_from_second_interrupt: the
    time travel runs neither step_a nor ask_1 again, and ask_1's first answer is kept.
    """
    executor = chain(
        ValueTrail,
        ("step_a", _node("step_a", 1.0, "value")),
        ("ask_1", _asks("ask_1", "Question 1?")),
        ("ask_2", _asks("ask_2", "Question 2?", units=2.0)),
    )
    return chain(ValueTrail, ("executor", executor.compile(checkpointer=True)))


# --------------------------------------------------------------------------- round 41
_STATEFUL_WRAPPER_ASYNC: Any = None


def _stateful_wrapper_async() -> Any:
    """`_stateful_wrapper` with ``async def`` nodes (process pauses before it logs), built
    once per process."""
    global _STATEFUL_WRAPPER_ASYNC
    if _STATEFUL_WRAPPER_ASYNC is None:
        from langchain_core.messages import AIMessage
        from langgraph.graph import MessagesState

        async def process(state: dict[str, Any]) -> dict[str, Any]:
            interrupt("continue?")
            with effect("process"):
                await _asleep(1.0)
            return {"messages": [AIMessage(content=f"Processing: {state['messages'][-1].content}")]}

        async def respond(state: dict[str, Any]) -> dict[str, Any]:
            with effect("respond"):
                await _asleep(1.0)
            return {"messages": [AIMessage(content="Done")]}

        inner = chain(MessagesState, ("process", process), ("respond", respond)).compile()
        _STATEFUL_WRAPPER_ASYNC = chain(MessagesState, ("agent", inner)).compile(checkpointer=True)
    return _STATEFUL_WRAPPER_ASYNC


def _acall(graph: Callable[[], Any], units: float) -> Callable[..., Any]:
    """call_inner as ``async def``: logs its topic for `units`, then awaits `graph()` with it
    (the graph is built once per process) and returns its last message."""

    async def call_inner(state: TopicState) -> dict[str, Any]:
        from langchain_core.messages import HumanMessage

        topic = ("apples", "bananas", "cherries")[min(state.get("calls", 0), 2)]
        with effect("call_inner", topic=topic):
            await _asleep(units)
        message = HumanMessage(content=f"tell me about {topic}")
        out = await graph().ainvoke({"messages": [message]})
        return {"result": out["messages"][-1].content, "calls": state.get("calls", 0) + 1}

    return call_inner


def stateful_subgraph_interrupt_async() -> StateGraph:
    """call_inner (``async def``: awaits a ``checkpointer=True`` graph whose node agent is
    another graph: process, which pauses before it logs, -> respond), run by ``ainvoke``;
    two cycles of input and answer on one thread.

    Mirrors test_subgraph_persistence_async.py::test_stateful_interrupt_resume_async: the
    stateful graph keeps its messages across the parent's invocations; the kill lands in
    the second cycle's answer.
    """
    return chain(TopicState, ("call_inner", _acall(_stateful_wrapper_async, 0.3)))


_UNSAVED_ECHO: Any = None


def _unsaved_echo() -> Any:
    """An ``echo`` graph compiled with ``checkpointer=False``: no persistence at all, not even
    the parent's for a pause (built once per process)."""
    global _UNSAVED_ECHO
    if _UNSAVED_ECHO is None:
        from langchain_core.messages import AIMessage
        from langgraph.graph import MessagesState

        async def echo(state: dict[str, Any]) -> dict[str, Any]:
            with effect("echo"):
                await _asleep(1.0)
            return {"messages": [AIMessage(content=f"Processed: {state['messages'][-1].content}")]}

        _UNSAVED_ECHO = chain(MessagesState, ("echo", echo)).compile(checkpointer=False)
    return _UNSAVED_ECHO


def unsaved_subgraph_async() -> StateGraph:
    """call_inner (``async def``: logs, then awaits an ``echo`` graph compiled with
    ``checkpointer=False``), run by ``ainvoke``; two fresh inputs on one thread, the second
    killed.

    Mirrors test_subgraph_persistence_async.py::test_checkpointer_false_no_persistence_async:
    the graph saves nothing of its own and starts fresh in every call. Under sync durability
    LangGraph 1.2.24 fails it: the graph inherits ``durability="sync"`` from the parent's
    config and waits for a checkpoint put it never made (``AttributeError: 'AsyncPregelLoop'
    object has no attribute '_put_checkpoint_fut'``, ``pregel/main.py``), so call_inner
    raises, in both invocations, before echo runs. The late kill lands 0.5u into echo
    (1.5u after call_inner started): a kill point named echo is refused, since the first
    run, under sync, never starts it.
    """
    return chain(TopicState, ("call_inner", _acall(_unsaved_echo, 1.0)))


# --------------------------------------------------------------------------- round 42
class StepTrail(TypedDict, total=False):
    value: Annotated[list[str], operator.add]


def replay_branch_in_subgraph() -> StateGraph:
    """Round 39's graph (parent_start -> sub_graph, no checkpointer of its own: sub_step ->
    parent_end), run to its end; then run again from the checkpoint where sub_graph was due,
    with no edit (a replay): the subgraph runs again under a new task id on the new branch,
    and that run is killed.

    Mirrors test_time_travel.py::test_replay_creates_branch_in_subgraph.
    """
    return fork_branch_in_subgraph()


def stateful_subgraph_latest_after_replay() -> StateGraph:
    """parent_node -> sub_node, a ``checkpointer=True`` subgraph of one node (sub_step). Two
    inputs run to their end; the thread is run again from the newest checkpoint where
    parent_node was due; then a third input, which is killed.

    Mirrors test_time_travel.py::test_stateful_subgraph_loads_latest_after_replay: the third
    input's subgraph loads the state the replay left, not the replayed checkpoint's.
    """
    sub = _one_node(StepTrail, "sub_step", 1.0, "value").compile(checkpointer=True)
    return chain(
        ResultsState, ("parent_node", _node("parent_node", 1.0, "results")), ("sub_node", sub)
    )


# --------------------------------------------------------------------------- round 43
def three_level_stateful_forked() -> StateGraph:
    """Round 31's three stateful levels (parent_step -> mid_node: mid_step -> inner_node:
    inner_step, both nested graphs ``checkpointer=True``). Two inputs run to their ends; then
    the state is edited at the newest checkpoint where parent_step was due (``update_state``,
    a fork) and the thread run from the edit, which is killed.

    Mirrors test_time_travel.py::test_three_level_nested_subgraph_loads_state_on_fork: both
    nested levels load the state the first input left.
    """
    return three_level_stateful_replayed()


# --------------------------------------------------------------------------- round 44
def _raises(name: str, fraction: float) -> Callable[..., Any]:
    """A node that holds its effect open for `fraction` of a sleep unit, then raises."""

    def node(state: dict[str, Any]) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
            raise RuntimeError(f"{name} failed")

    node.__name__ = name
    return node


def _handler_crashing_once(name: str, failed: str, fraction: float) -> Callable[..., Any]:
    """An error handler of `failed` that raises on its first attempt on the thread (counted
    across processes) and recovers on the next one."""

    def handler(state: ResultsState) -> dict[str, Any]:
        attempt = _thread_attempt(name)
        with effect(name, attempt=attempt):
            _sleep(fraction)
            if attempt == 1:
                raise RuntimeError(f"{name} crash")
        return {"results": [f"recovered:{failed}"]}

    handler.__name__ = name
    return handler


def error_handlers_both_crash() -> StateGraph:
    """a | b from START; both raise (a at once, b 1.5u in), each with an error handler that
    crashes on its first attempt, so the first invocation raises; ``invoke(None)`` runs both
    handlers again, not a or b, and is killed.

    Mirrors test_retry.py::test_error_handler_resumes_after_crash_multiple_nodes: handler_a
    starts while b is still in flight in the same superstep; the resume re-schedules each
    handler from the failures saved as pending writes.
    """
    b = StateGraph(ResultsState)
    b.add_node("a", _raises("a", 0.3), error_handler=_handler_crashing_once("handler_a", "a", 1.0))
    b.add_node("b", _raises("b", 1.5), error_handler=_handler_crashing_once("handler_b", "b", 2.2))
    b.add_edge(START, "a")
    b.add_edge(START, "b")
    return b


def _handled_then(target: str) -> Callable[..., Any]:
    def handler(state: Trail) -> Command[Any]:
        with effect("handle"):
            _sleep(1.0)
        return Command(update={"visited": ["handled"]}, goto=target)

    handler.__name__ = "handle"
    return handler


def retry_then_error_handler() -> StateGraph:
    """prepare -> always_failing (RetryPolicy(max_attempts=2); both attempts raise) -> its
    error handler (Command(goto="after_handler")) -> after_handler.

    Mirrors test_retry.py::test_graph_error_handler_runs_after_retry_exhaustion: the handler
    runs only once the retries are spent, in the failed task's superstep.
    """
    b = StateGraph(Trail)
    b.add_node("prepare", _node("prepare", 0.5))
    _add_node(b, "always_failing", _raises("always_failing", 1.0),
               retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=False,
                                        retry_on=RuntimeError),
               error_handler=_handled_then("after_handler"))  # fmt: skip
    b.add_node("after_handler", _node("after_handler", 1.0))
    b.add_edge(START, "prepare")
    b.add_edge("prepare", "always_failing")
    b.add_edge("after_handler", END)
    return b


def subgraph_fork_from_before() -> StateGraph:
    """parent_node -> subgraph (no checkpointer of its own: step_a -> step_b) -> post_process,
    run to its end; then the state is edited at the checkpoint where subgraph was due
    (``update_state``, a fork) and the thread run from the edit, which is killed.

    Mirrors test_time_travel.py::test_subgraph_fork_from_before: the subgraph runs again
    with the forked state.
    """
    sub = chain(StepTrail, ("step_a", _node("step_a", 1.0, "value")),
                ("step_b", _node("step_b", 1.0, "value")))  # fmt: skip
    return chain(StepTrail, ("parent_node", _node("parent_node", 0.5, "value")),
                 ("subgraph", sub.compile()), ("post_process", _node("post_process", 1.0, "value")))  # fmt: skip


class DocsLoopState(TypedDict, total=False):
    query: str
    docs: Annotated[list[str], operator.add]
    visited: Annotated[list[str], operator.add]


def _rewrite(state: DocsLoopState) -> dict[str, Any]:
    with effect("rewrite_query"):
        _sleep(0.5)
    return {"query": f"query: {state.get('query', '')}", "visited": ["rewrite_query"]}


def _analyze(state: DocsLoopState) -> dict[str, Any]:
    with effect("analyzer_one"):
        _sleep(0.5)
    return {"query": f"analyzed: {state.get('query', '')}", "visited": ["analyzer_one"]}


def _decider(state: DocsLoopState) -> None:
    """Writes nothing: the join's node that only routes."""
    with effect("decider"):
        _sleep(0.3)


def join_loop_cond_edge() -> StateGraph:
    """rewrite_query -cond-> analyzer_one -> retriever_one | retriever_two; both join into
    decider (writes nothing), whose conditional edge goes back to rewrite_query once, then
    to qa.

    Mirrors test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge:
    a waiting edge inside a loop, so the join fires twice, and a node that returns None.
    """
    b = StateGraph(DocsLoopState)
    b.add_node("rewrite_query", _rewrite)
    b.add_node("analyzer_one", _analyze)
    b.add_node("retriever_one", _node("retriever_one", 1.0, "docs", ["doc1", "doc2"]))
    b.add_node("retriever_two", _node("retriever_two", 1.8, "docs", ["doc3", "doc4"]))
    b.add_node("decider", _decider)
    b.add_node("qa", _node("qa", 1.0))
    b.add_edge(START, "rewrite_query")
    b.add_conditional_edges("rewrite_query", lambda s: ["analyzer_one", "retriever_two"],
                            ["analyzer_one", "retriever_two"])  # fmt: skip
    b.add_edge("analyzer_one", "retriever_one")
    b.add_edge(["retriever_one", "retriever_two"], "decider")
    b.add_conditional_edges(
        "decider",
        lambda s: "qa" if s.get("query", "").count("analyzed") > 1 else "rewrite_query",
        ["qa", "rewrite_query"],
    )
    b.add_edge("qa", END)
    return b


# --------------------------------------------------------------------------- round 45
class RouteState(TypedDict, total=False):
    route: str
    foo: Annotated[list[str], operator.add]


def _route_by_command(state: RouteState) -> Command[Any]:
    with effect("route_node"):
        _sleep(0.5)
    return Command(goto=state["route"])


def _default_handler(state: RouteState) -> Command[Any]:
    with effect("default_handler"):
        _sleep(1.0)
    return Command(update={"foo": ["handled"]}, goto="report")


def default_error_handler() -> StateGraph:
    """route_node (Command(goto=state["route"])) -> fail_a | fail_b, both raising; the
    builder's defaults give every node ``RetryPolicy(max_attempts=2)`` and one error handler
    (``set_node_defaults``), which routes to report. Two fresh inputs on one thread (fail_a,
    then fail_b), the second killed.

    Mirrors test_retry.py::test_set_node_defaults_error_handler_catches_all_nodes and
    ::test_set_node_defaults_combined_retry_and_error_handler: the retries are spent first,
    then the one handler node, ``__default_error_handler__``, takes the failure of any node.
    """
    b = StateGraph(RouteState)
    b.set_node_defaults(
        retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=False,
                                 retry_on=RuntimeError),
        error_handler=_default_handler,
    )  # fmt: skip
    b.add_node("route_node", _route_by_command, destinations=("fail_a", "fail_b"))
    b.add_node("fail_a", _raises("fail_a", 0.6))
    b.add_node("fail_b", _raises("fail_b", 1.0))
    b.add_node("report", _node("report", 1.0, "foo"))
    b.add_edge(START, "route_node")
    b.add_edge("report", END)
    return b


def subgraph_first_interrupt_travel() -> StateGraph:
    """Round 40's graph (executor, a ``checkpointer=True`` subgraph: step_a -> ask_1 ->
    ask_2, each asking before it logs), both questions answered and the run ended; then the
    thread is run from the subgraph's own checkpoint where ask_1 was due, which asks ask_1's
    question again; its answer's run (ask_1, then ask_2 asking again) and the next answer's
    are where the kills land.

    Mirrors test_time_travel.py::test_subgraph_time_travel_to_first_interrupt: step_a does
    not run again; both questions are asked again.
    """
    return subgraph_second_interrupt_travel()


def stateful_subgraph_replay_then_resume() -> StateGraph:
    """parent_node -> sub_node (a ``checkpointer=True`` subgraph whose one node, step_a, asks
    before it logs) -> parent_end. Two inputs, each answered; then the thread is run again from
    the newest checkpoint where sub_node was due, which asks again, and the answer's run is
    killed.

    Mirrors test_time_travel.py::test_subgraph_replay_loads_accumulated_state_then_resume:
    the replayed subgraph loads the state its run in that input began with, asks again, and
    resumes to its end.
    """
    sub = chain(ValueTrail, ("step_a", _asks("step_a", "question_a")))
    return chain(
        ResultsState,
        ("parent_node", _node("parent_node", 0.5, "results")),
        ("sub_node", sub.compile(checkpointer=True)),
        ("parent_end", _node("parent_end", 1.0, "results")),
    )


def _handler_of(name: str) -> Callable[..., Any]:
    def handler(state: RouteState) -> dict[str, Any]:
        with effect(name):
            _sleep(1.0)
        return {"foo": [name]}

    handler.__name__ = name
    return handler


def error_handlers_per_node() -> StateGraph:
    """route_node -> (conditional edge on state["route"]) fail_a | fail_b, each raising, each
    with its own error handler. Two fresh inputs on one thread (fail_a, then fail_b), the
    second killed.

    Mirrors test_retry.py::test_node_error_handlers_route_to_matching_handler: each failure
    goes to its own node's handler.
    """
    b = StateGraph(RouteState)
    b.add_node("route_node", _node("route_node", 0.5, "foo", []))
    b.add_node("fail_a", _raises("fail_a", 0.6), error_handler=_handler_of("handler_a"))
    b.add_node("fail_b", _raises("fail_b", 1.2), error_handler=_handler_of("handler_b"))
    b.add_edge(START, "route_node")
    b.add_conditional_edges("route_node", lambda s: s["route"], ["fail_a", "fail_b"])
    return b


# --------------------------------------------------------------------------- round 46
def three_level_first_interrupt_forked() -> StateGraph:
    """Round 36's three levels (outer, a ``checkpointer=True`` subgraph whose one node inner is
    another: step_a -> ask_1 -> ask_2, each asking before it logs), both questions answered
    and the run ended; then the innermost graph's own checkpoint where ask_1 was due is
    edited (``update_state``, a fork) and the thread run from the edit, which asks ask_1's
    question again; its answer's run and the next answer's are where the kills land.

    Mirrors test_time_travel.py::test_3_levels_deep_time_travel_to_first_interrupt (its
    second scenario, the fork): step_a does not run again; both questions are asked again.
    """
    return inner_checkpoint_replayed()


def _adds(name: str, op: Callable[[int, int], int]) -> Any:
    """A compiled graph of one node `name` that logs, then writes ``op(a, b)`` to result."""

    def node(state: MixedState) -> dict[str, Any]:
        with effect(name):
            _sleep(0.8)
        return {"result": op(state["a"], state["b"])}

    node.__name__ = name
    return chain(MixedState, (name, node)).compile()


def multiple_subgraphs_same() -> StateGraph:
    """call_same_subgraph (invokes the graph `add` twice, one after the other) ->
    call_multiple_subgraphs (invokes `add`, then `multiply`), each graph one node that logs.

    Mirrors test_pregel.py::test_multiple_subgraphs: StateGraphs with no checkpointer of
    their own invoked inside a node inherit the thread's, each run under the node's task
    namespace with LangGraph's call counter after the first (``call_same_subgraph:<id>``,
    then ``|1``).
    """
    add = _adds("add", operator.add)
    multiply = _adds("multiply", operator.mul)

    def call_same_subgraph(state: MixedState) -> dict[str, Any]:
        first = add.invoke({"a": state["a"], "b": state["b"]})["result"]
        second = add.invoke({"a": first, "b": 10})["result"]
        return {"result": second, "visited": ["call_same_subgraph"]}

    def call_multiple_subgraphs(state: MixedState) -> dict[str, Any]:
        added = add.invoke({"a": state["a"], "b": state["b"]})["result"]
        multiplied = multiply.invoke({"a": state["a"], "b": state["b"]})["result"]
        return {"result": added + multiplied, "visited": ["call_multiple_subgraphs"]}

    return chain(MixedState, ("call_same_subgraph", call_same_subgraph),
                 ("call_multiple_subgraphs", call_multiple_subgraphs))  # fmt: skip


# --------------------------------------------------------------------------- round 47
def _add_then_check(state: dict[str, Any]) -> int:
    """The test's add_one then raise_if_above_10: a total above 4 fails once with a
    ConnectionError (RetryPolicy retries it), a total above 10 raises ValueError."""
    total = state["total"] + state["input"]
    attempt = _thread_attempt("one") if total > 4 else 0
    with effect("one", total=total, attempt=attempt):
        _sleep(1.0)
        if attempt == 1:
            raise ConnectionError("I will be retried")
        if total > 10:
            raise ValueError("Input is too large")
    return total


def pregel_retry_turns(checkpointer: Any) -> Any:
    """A raw `Pregel` node one (reads input and total, writes output and total), with the
    graph's ``RetryPolicy``; inputs 2, then 3, whose first attempt fails and is retried: the
    kills land in the first attempt and in the retry (the inputs 7, whose total passes 10 and
    raises, and 1 follow when a run is not killed).

    Mirrors test_pregel.py::test_invoke_checkpoint_two: a `BinaryOperatorAggregate` total
    kept across turns, a retry inside a step, and a turn whose failure saves nothing of it.
    """
    from langgraph.channels import BinaryOperatorAggregate, LastValue
    from langgraph.pregel import NodeBuilder, Pregel

    one = (
        NodeBuilder()
        .subscribe_to("input")
        .read_from("total")
        .do(_add_then_check)
        .write_to("output", "total")
    )
    return Pregel(
        nodes={"one": one},
        channels={
            "total": BinaryOperatorAggregate(int, operator.add),
            "input": LastValue(int),
            "output": LastValue(int),
        },
        input_channels="input",
        output_channels="output",
        checkpointer=checkpointer,
        retry_policy=RetryPolicy(initial_interval=0.01, jitter=False),
    )


# --------------------------------------------------------------------------- round 48
def _draining(name: str, fraction: float = 1.0) -> Callable[..., Any]:
    """A node that, on its first attempt on the thread, asks the run to drain as a worker's
    SIGTERM handler would (``runtime.control.request_drain``): the loop stops before the
    next step and the invoke raises ``GraphDrained``; the next ``invoke(None)`` goes on."""

    def node(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
        if _thread_attempt(name) == 1:
            runtime.control.request_drain("sigterm")
        return {"visited": [name]}

    node.__name__ = name
    return node


def drain_then_resume() -> StateGraph:
    """first (asks to drain) -> second -> third; the drained run stops before second, and
    ``invoke(None)`` goes on from there.

    Mirrors test_runtime.py::test_drain_with_exit_durability_persists_resume_checkpoint: a
    drained run is an invocation that ends between steps without a raise from any node, and
    under exit it saves the checkpoint the next invocation resumes from.
    """
    return chain(OuterState, ("first", _draining("first", 0.5)), ("second", _node("second")),
                 ("third", _node("third")))  # fmt: skip


def drain_from_subgraph() -> StateGraph:
    """child (child_first asks to drain -> child_second; ``checkpointer=True``) ->
    parent_second.

    Mirrors test_runtime.py::test_drain_from_subgraph_can_resume_parent: the drain stops the
    subgraph between its steps, GraphDrained bubbles out through the parent's task, and
    ``invoke(None)`` re-enters the subgraph at child_second.
    """
    child = chain(OuterState, ("child_first", _draining("child_first", 0.5)),
                  ("child_second", _node("child_second")))  # fmt: skip
    b = StateGraph(OuterState)
    b.add_node("child", child.compile(checkpointer=True))
    b.add_node("parent_second", _node("parent_second"))
    b.add_edge(START, "child")
    b.add_edge("child", "parent_second")
    b.add_edge("parent_second", END)
    return b


# --------------------------------------------------------------------------- round 49
def _timing_out_once(name: str, fraction: float) -> Callable[..., Any]:
    """An ``async def`` node whose first attempt on the thread hangs (four units, past the
    two-unit idle timeout its ``TimeoutPolicy`` sets), so LangGraph cancels it; the retry
    holds its effect open for `fraction` of a unit and returns."""

    async def node(state: dict[str, Any]) -> dict[str, Any]:
        attempt = _thread_attempt(name)
        with effect(name, attempt=attempt):
            await _asleep(4.0 if attempt == 1 else fraction)
        return {"visited": [name]}

    node.__name__ = name
    return node


def timeout_then_retry() -> StateGraph:
    """prepare -> flaky (``timeout=TimeoutPolicy(idle_timeout=2u)``, ``RetryPolicy`` on
    ``NodeTimeoutError``: its first attempt hangs and is cancelled, the second runs) ->
    finish; run with ``ainvoke``.

    Mirrors test_retry.py::test_state_graph_add_node_timeout_composes_with_retry: a timed-out
    attempt is cancelled mid-effect (its line ends in an error), and the retry is the same
    task in the same superstep.
    """
    from langgraph.errors import NodeTimeoutError
    from langgraph.types import TimeoutPolicy

    idle = 2 * (settings.get_float(ENV_SLEEP, 0.0) or 0.05)
    b = StateGraph(Trail)
    b.add_node("prepare", _anode("prepare", 0.5))
    _add_node(b, "flaky", _timing_out_once("flaky", 1.0), timeout=TimeoutPolicy(idle_timeout=idle),
               retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False,
                                        retry_on=NodeTimeoutError))  # fmt: skip
    b.add_node("finish", _anode("finish", 1.0))
    b.add_edge(START, "prepare")
    b.add_edge("prepare", "flaky")
    b.add_edge("flaky", "finish")
    b.add_edge("finish", END)
    return b


async def _work(payload: dict[str, Any]) -> dict[str, Any]:
    """A `Send` worker: item 1 hangs on its first attempt on the thread (four units, past
    the two-unit idle timeout its `Send` carries) and is cancelled, then retried; the others
    hold their effect open for one unit."""
    item = payload["item"]
    attempt = _thread_attempt(f"work{item}") if item == 1 else 1
    with effect("work", item=item, attempt=attempt):
        await _asleep(4.0 if (item == 1 and attempt == 1) else 1.0)
    return {"visited": [f"work{item}"]}


def send_timeout_retry() -> StateGraph:
    """START -> Send("work", {"item": i}) x3, item 1's Send with ``timeout=TimeoutPolicy(
    idle_timeout=2u)`` -> reduce; ``work`` retries ``NodeTimeoutError``; run with ``ainvoke``.

    Mirrors test_retry.py::test_send_timeout_overrides_target_node_timeout: the timeout a
    `Send` carries holds for its worker alone; here the cancelled worker is retried while
    its siblings' writes are already saved against the step.
    """
    from langgraph.errors import NodeTimeoutError
    from langgraph.types import TimeoutPolicy

    idle = 2 * (settings.get_float(ENV_SLEEP, 0.0) or 0.05)

    def fan_out(state: dict[str, Any]) -> list[Send]:
        return [Send("work", {"item": i}, timeout=TimeoutPolicy(idle_timeout=idle) if i == 1 else None)
                for i in range(3)]  # fmt: skip

    b = StateGraph(Trail)
    _add_node(b, "work", _work, retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0,
               jitter=False, retry_on=NodeTimeoutError))  # fmt: skip
    b.add_node("reduce", _anode("reduce", 1.0))
    b.add_conditional_edges(START, fan_out, ["work"])
    b.add_edge("work", "reduce")
    b.add_edge("reduce", END)
    return b


# --------------------------------------------------------------------------- round 50
class Messages(TypedDict, total=False):
    messages: Annotated[list[str], operator.add]


def _overwrite_b(state: Messages) -> dict[str, Any]:
    from langgraph.types import Overwrite

    with effect("node_b"):
        _sleep(0.5)
    return {"messages": Overwrite(["b"])}


def overwrite_parallel() -> StateGraph:
    """node_a -> node_b (writes ``Overwrite(["b"])``, half a unit) | node_c (two units) ->
    node_d.

    Mirrors test_pregel.py::test_overwrite_parallel: one of two parallel nodes bypasses the
    reducer; its pending write (an ``Overwrite``, a type of LangGraph's own) is saved while
    its sibling still runs, and a resume must apply it, not run node_b again.
    """
    b = StateGraph(Messages)
    b.add_node("node_a", _node("node_a", 0.5, "messages"))
    b.add_node("node_b", _overwrite_b)
    b.add_node("node_c", _node("node_c", 2.0, "messages"))
    b.add_node("node_d", _node("node_d", 1.0, "messages"))
    b.add_edge(START, "node_a")
    b.add_edge("node_a", "node_b")
    b.add_edge("node_a", "node_c")
    b.add_edge(["node_b", "node_c"], "node_d")
    b.add_edge("node_d", END)
    return b


class Hello(TypedDict, total=False):
    hello: str
    visited: Annotated[list[str], operator.add]


async def _iambad(state: Hello) -> dict[str, Any]:
    attempt = _thread_attempt("bad")
    with effect("bad", attempt=attempt):
        await _asleep(0.5)
        if attempt == 1:
            raise ValueError("I am bad")
    return {"visited": ["bad"]}


def sibling_error_cancels() -> StateGraph:
    """A conditional entry to agent (two units) | bad (half a unit; raises on its first
    attempt on the thread) -> finish; run with ``ainvoke`` and answered by ``invoke(None)``.

    Mirrors test_pregel_async.py::test_node_cancellation_on_other_node_exception_two: bad's
    error cancels agent mid-effect (its line ends in an error, not a kill); the next
    invocation runs the failed step again, and the kill lands in it.
    """
    b = StateGraph(Hello)
    b.add_node("agent", _anode("agent", 2.0))
    b.add_node("bad", _iambad)
    b.add_node("finish", _anode("finish", 1.0))
    b.add_conditional_edges(START, lambda _: ["agent", "bad"], ["agent", "bad"])
    b.add_edge(["agent", "bad"], "finish")
    b.add_edge("finish", END)
    return b


def falsy_task_interrupt(checkpointer: Any) -> Any:
    """@entrypoint `graph`: @task falsy_task (returns ``False``), ``interrupt()``, then
    @task notify and @task finish.

    Mirrors test_pregel.py::test_falsy_return_from_task: a call whose saved result is falsy
    is still a result; the answered invocation re-runs the entrypoint, which takes it rather
    than calling again, and goes on. The kill lands in the answered run.
    """
    from langgraph.func import entrypoint, task

    @task
    def falsy_task() -> bool:
        with effect("falsy_task"):
            _sleep(1.0)
        return False

    @task
    def notify(answer: str) -> str:
        with effect("notify", answer=answer):
            _sleep(1.0)
        return answer

    @task
    def finish(text: str) -> str:
        with effect("finish"):
            _sleep(1.0)
        return text + "!"

    @entrypoint(checkpointer=checkpointer)
    def graph(state: dict[str, Any]) -> dict[str, Any]:
        flag = falsy_task().result()
        answer = interrupt("test")
        said = notify(f"{answer}:{flag}").result()
        return {"done": finish(said).result()}

    return graph


def entrypoint_final_save(checkpointer: Any) -> Any:
    """@entrypoint `foo(msg, *, previous)` returning ``entrypoint.final(value=len(previous),
    save=previous + [msg])`` after @task greet and @task log_msg; three inputs.

    Mirrors test_pregel.py::test_entrypoint_with_return_and_save: what an invocation
    returns and what the next one reads as `previous` differ; the thread holds two finished
    invocations before the one the kill lands in.
    """
    from langgraph.func import entrypoint

    greet = _text_task("greet", str.upper)
    log_msg = _text_task("log_msg", str)

    @entrypoint(checkpointer=checkpointer)
    def foo(msg: str, *, previous: Any = None) -> Any:
        previous = list(previous or [])
        said = log_msg(greet(msg).result()).result()
        return entrypoint.final(value=len(previous), save=[*previous, said])

    return foo


class InnerKeys(TypedDict, total=False):
    my_key: str
    my_other_key: str


class OuterKeys(TypedDict, total=False):
    my_key: str
    other_parent_key: str


def _keyed(name: str, fraction: float, suffix: str, other: bool = False) -> Callable[..., Any]:
    def node(state: dict[str, Any]) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
        out = {"my_key": state.get("my_key", "") + suffix}
        return {**out, "my_other_key": state.get("my_key", "")} if other else out

    node.__name__ = name
    return node


def subgraph_breakpoint_state() -> StateGraph:
    """outer_1 -> inner (inner_1 -> inner_2, compiled ``interrupt_before=["inner_2"]``) ->
    outer_2; paused at the inner breakpoint, then ``invoke(None)``.

    Mirrors test_large_cases.py::test_nested_graph_state: a static breakpoint inside a
    subgraph pauses the parent with the subgraph's task due; the next invocation goes on
    inside the subgraph. The kill lands in it.
    """
    inner = StateGraph(InnerKeys)
    inner.add_node("inner_1", _keyed("inner_1", 1.0, " here", other=True))
    inner.add_node("inner_2", _keyed("inner_2", 1.0, " and there", other=True))
    inner.add_edge(START, "inner_1")
    inner.add_edge("inner_1", "inner_2")
    inner.add_edge("inner_2", END)
    b = StateGraph(OuterKeys)
    b.add_node("outer_1", _keyed("outer_1", 0.5, " hi"))
    b.add_node("inner", inner.compile(interrupt_before=["inner_2"]))
    b.add_node("outer_2", _keyed("outer_2", 1.0, " and back again"))
    b.add_edge(START, "outer_1")
    b.add_edge("outer_1", "inner")
    b.add_edge("inner", "outer_2")
    b.add_edge("outer_2", END)
    return b


# --------------------------------------------------------------------------- round 51
class Foo(TypedDict, total=False):
    foo: Annotated[str, operator.add]
    visited: Annotated[list[str], operator.add]


def _two_commands(state: Foo) -> list[Command[Any]]:
    with effect("node_a"):
        _sleep(0.5)
    return [Command(update={"foo": "a1"}), Command(update={"foo": "a2"})]


def multiple_updates_commands() -> StateGraph:
    """node_a (returns two ``Command(update=...)``, half a unit) | slow (two units) -> node_b.

    Mirrors test_pregel.py::test_multiple_updates: one node's result is a list of Commands,
    each an update of its own; saved as the node's pending writes while its sibling runs, both
    must come back on a resume (the state reads "a1a2" before node_b's "b").
    """
    b = StateGraph(Foo)
    b.add_node("node_a", _two_commands)
    b.add_node("slow", _node("slow", 2.0))
    b.add_node("node_b", _node("node_b", 1.0, "foo", "b"))
    b.add_edge(START, "node_a")
    b.add_edge(START, "slow")
    b.add_edge(["node_a", "slow"], "node_b")
    b.add_edge("node_b", END)
    return b


def list_edge_to_end() -> StateGraph:
    """START -> A (one unit) | B (2.5 units); ``add_edge(["A", "B"], END)``; two inputs.

    Mirrors test_pregel.py::test_conditional_state_graph_with_list_edge_inputs: a join whose
    target is END, so the invocation ends when both have written; the kill lands in the
    second input's run, after the first's join has fired.
    """
    b = StateGraph(Trail)
    b.add_node("A", _node("A", 1.0))
    b.add_node("B", _node("B", 2.5))
    b.add_edge(START, "A")
    b.add_edge(START, "B")
    b.add_edge(["A", "B"], END)
    return b


class Routed(TypedDict, total=False):
    sender: str
    visited: Annotated[list[str], operator.add]


def _routed(name: str, fraction: float, sender: bool) -> Callable[..., Any]:
    def node(state: Routed) -> dict[str, Any]:
        with effect(name):
            _sleep(fraction)
        out: dict[str, Any] = {"visited": [name]}
        return {**out, "sender": name} if sender else out

    node.__name__ = name.replace(" ", "_")
    return node


def _route_after(name: str) -> Callable[[Routed], str]:
    """Researcher: call a tool, then continue to the chart; Chart Generator: call a tool,
    then end. Counted by the node's own visits (the state's trail)."""

    def router(state: Routed) -> str:
        seen = state.get("visited", []).count(name)
        return "call_tool" if seen == 1 else ("continue" if name == "Researcher" else "end")

    return router


def repeat_condition_route() -> StateGraph:
    """Researcher -> Call Tool -> (back to the sender) Researcher -> Chart Generator ->
    Call Tool -> Chart Generator -> END: node names with spaces, a tool node routed back by
    a state field.

    Mirrors test_pregel.py::test_repeat_condition: conditional edges with a path map out of
    two agents and a shared tool node that routes back to whichever agent called it
    (``x["sender"]``).
    """
    b = StateGraph(Routed)
    b.add_node("Researcher", _routed("Researcher", 0.5, True))
    b.add_node("Chart Generator", _routed("Chart Generator", 1.0, True))
    b.add_node("Call Tool", _routed("Call Tool", 1.0, False))
    b.add_conditional_edges(
        "Researcher",
        _route_after("Researcher"),
        {"redo": "Researcher", "continue": "Chart Generator", "call_tool": "Call Tool", "end": END},
    )
    b.add_conditional_edges(
        "Chart Generator",
        _route_after("Chart Generator"),
        {"continue": "Researcher", "call_tool": "Call Tool", "end": END},
    )
    b.add_conditional_edges(
        "Call Tool",
        lambda x: x["sender"],
        {"Researcher": "Researcher", "Chart Generator": "Chart Generator"},
    )
    b.add_edge(START, "Researcher")
    return b


class Packets(TypedDict, total=False):
    calls: Annotated[list[Any], operator.add]
    results: Annotated[list[str], operator.add]


_PACKET_ROUNDS: tuple[tuple[dict[str, Any], ...], ...] = (
    ({"id": "call_1", "query": "query", "idx": 0},),
    (
        {"id": "call_2", "query": "another", "idx": 0},
        {"id": "call_3", "query": "a third one", "idx": 1},
    ),
    (),
)


def _packet_agent(state: Packets) -> dict[str, Any]:
    turn = len([c for c in state.get("calls", []) if c.get("kind") == "turn"])
    with effect("agent", turn=turn):
        _sleep(1.0)
    calls = _PACKET_ROUNDS[min(turn, len(_PACKET_ROUNDS) - 1)]
    return {"calls": [{"kind": "turn", "tool_calls": list(calls)}]}


def _packet_tools(call: dict[str, Any]) -> dict[str, Any]:
    with effect("tools", call=call["id"]):
        _sleep(0.5 + 1.5 * call["idx"])
    return {"results": [f"result for {call['query']}"]}


def _packet_route(state: Packets) -> Any:
    last = [c for c in state.get("calls", []) if c.get("kind") == "turn"][-1]
    return [Send("tools", call) for call in last["tool_calls"]] or END


def state_graph_packets(checkpointer: Any) -> Any:
    """agent -> one ``Send("tools", call)`` per tool call of its turn -> agent ...; compiled
    with ``interrupt_after=["agent"]``, every pause answered with ``invoke(None)``. Turn 1
    calls one tool, turn 2 two (unequal), turn 3 answers.

    Mirrors test_large_cases.py::test_state_graph_packets: a react agent whose tool calls
    are `Send` packets, stopped after each agent step for review; the kill lands in the
    second turn's tools, the short call's writes saved while the long one runs.
    """
    b = StateGraph(Packets)
    b.add_node("agent", _packet_agent)
    b.add_node("tools", _packet_tools)
    b.add_edge(START, "agent")
    b.add_conditional_edges("agent", _packet_route, ["tools", END])
    b.add_edge("tools", "agent")
    return b.compile(checkpointer=checkpointer, interrupt_after=["agent"])


# --------------------------------------------------------------------------- round 52
async def _dispatch(state: list[Any]) -> Command[Any]:
    with effect("dispatch"):
        await _asleep(0.5)
    return Command(update=["1"], goto=[Send("work_item", idx) for idx in range(6)])


async def _work_item(idx: int) -> Command[Any]:
    with effect("work_item", item=idx):
        await _asleep(1.0)
    return Command(update=[f"item{idx}"], goto="collect")


async def _collect(state: list[Any]) -> list[str]:
    with effect("collect"):
        await _asleep(1.0)
    return ["3"]


def max_concurrency_sends(checkpointer: Any) -> Any:
    """dispatch -> ``Command(goto=[Send("work_item", i) for i in range(6)])`` -> each
    ``Command(goto="collect")``; the state a bare ``list`` with ``operator.add``; the graph
    configured ``max_concurrency=2``; run with ``ainvoke``.

    Mirrors test_pregel_async.py::test_max_concurrency_control: six `Send` workers of one
    step run two at a time, so the step's workers start in waves, each wave's writes saved
    while the next runs; the kill lands in the second wave.
    """
    b = StateGraph(Annotated[list, operator.add])
    b.add_node("dispatch", _dispatch)
    b.add_node("work_item", _work_item)
    b.add_node("collect", _collect)
    b.add_edge(START, "dispatch")
    return b.compile(checkpointer=checkpointer).with_config(max_concurrency=2)


def imp_sync_from_async(checkpointer: Any) -> Any:
    """@entrypoint `graph` (a plain ``def``) chaining @task foo -> bar -> baz, each a plain
    ``def``; run with ``ainvoke``.

    Mirrors test_pregel_async.py::test_imp_sync_from_async: sync tasks called from a sync
    entrypoint on LangGraph's async loop (each call runs in a thread of its own); each call's
    result is saved as it returns, and a resume takes the saved ones.
    """
    from langgraph.func import entrypoint, task

    @task
    def foo(state: dict[str, Any]) -> dict[str, Any]:
        with effect("foo"):
            _sleep(1.0)
        return {"a": state["a"] + "foo", "b": "bar"}

    @task
    def bar(a: str, b: str) -> dict[str, Any]:
        with effect("bar"):
            _sleep(1.0)
        return {"a": a + b, "c": "bark"}

    @task
    def baz(state: dict[str, Any]) -> dict[str, Any]:
        with effect("baz"):
            _sleep(1.0)
        return {"a": state["a"] + "baz", "c": "something else"}

    @entrypoint(checkpointer=checkpointer)
    def graph(state: dict[str, Any]) -> dict[str, Any]:
        foo_result = foo(state).result()
        return baz(bar(foo_result["a"], foo_result["b"]).result()).result()

    return graph


class XState(TypedDict, total=False):
    x: str
    visited: Annotated[list[str], operator.add]


def _update_x(state: XState) -> Command[Any]:
    with effect("update_x"):
        _sleep(1.0)
    return Command(goto=END, update={"x": state.get("x", "") + "!", "visited": ["update_x"]})


def subgraph_command_to_end() -> StateGraph:
    """prepare -> subgraph_node (a subgraph whose update_x returns ``Command(goto=END)``,
    then check) -> report.

    Mirrors test_large_cases.py::test_subgraph_to_end_does_not_warn: a node inside a
    subgraph ends that subgraph's run with ``Command(goto=END)`` (its static edge to check
    is not taken); the parent goes on after it.
    """
    sub = StateGraph(XState)
    sub.add_node("update_x", _update_x)
    sub.add_node("check", _node("check", 1.0))
    sub.add_edge(START, "update_x")
    sub.add_edge("update_x", "check")
    sub.add_edge("check", END)
    b = StateGraph(XState)
    b.add_node("prepare", _node("prepare", 0.5))
    b.add_node("subgraph_node", sub.compile())
    b.add_node("report", _node("report", 1.0))
    b.add_edge(START, "prepare")
    b.add_edge("prepare", "subgraph_node")
    b.add_edge("subgraph_node", "report")
    b.add_edge("report", END)
    return b


# --------------------------------------------------------------------------- round 53
async def _cancelled_agent(state: Trail) -> dict[str, Any]:
    """Half a unit into its effect, on its first attempt on the thread, the invocation it
    runs in is cancelled from outside (a caller's ``asyncio.wait_for`` timing out)."""
    attempt = _thread_attempt("agent")
    with effect("agent", attempt=attempt):
        await _asleep(0.5)
        if attempt == 1:
            cancel_invocation()
        await _asleep(1.5)
    return {"visited": ["agent"]}


def cancelled_invocation_resumed() -> StateGraph:
    """prepare -> agent (its first invocation is cancelled from outside mid-effect) ->
    finish; run with ``ainvoke``, then ``ainvoke(None)``.

    Mirrors test_pregel_async.py::test_checkpoint_put_after_cancellation: a cancelled
    ``ainvoke`` (a caller's timeout, a client gone) ends the invocation without a raise from
    any node; under exit the loop still saves as it ends. The next invocation goes on from
    what was saved, and the kill lands in it.
    """
    return chain(Trail, ("prepare", _anode("prepare", 0.5)), ("agent", _cancelled_agent),
                 ("finish", _anode("finish", 1.0)))  # fmt: skip


async def _boom(state: Trail) -> dict[str, Any]:
    import asyncio

    attempt = _thread_attempt("boom")
    with effect("boom", attempt=attempt):
        await _asleep(0.5)
        if attempt == 1:
            raise asyncio.CancelledError("user-raised in node body")
    return {"visited": ["boom"]}


def user_cancelled_branch() -> StateGraph:
    """ok (a quarter unit) -> finish | boom (raises ``asyncio.CancelledError`` itself on its
    first attempt on the thread); run with ``ainvoke``, then ``ainvoke(None)``.

    Mirrors test_retry.py::test_pregel_user_raised_cancellederror_fails_run: from 1.2 a
    node's own ``CancelledError`` fails the run (``NodeCancelledError``): ok's write is kept
    and the next invocation runs boom again, then finish. Before, LangGraph saved boom's
    error and went on as if boom had returned nothing (the partial success the test guards
    against): finish runs in the same invocation. The kill lands in finish either way.
    """
    b = StateGraph(Trail)
    b.add_node("ok", _anode("ok", 0.25))
    b.add_node("boom", _boom)
    b.add_node("finish", _anode("finish", 1.0))
    b.add_edge(START, "ok")
    b.add_edge(START, "boom")
    b.add_edge("ok", "finish")
    b.add_edge("boom", END)
    b.add_edge("finish", END)
    return b


class JoinedFoo(TypedDict, total=False):
    foo: Annotated[str, lambda a, b: ", ".join([x for x in [a, b] if x])]
    visited: Annotated[list[str], operator.add]


def _one_writes_twice(state: JoinedFoo) -> Command:
    with effect("one"):
        _sleep(1.0)
    return Command(update=[("foo", "one.0"), ("foo", "one.1"), ("visited", ["one"])])


def same_channel_writes() -> StateGraph:
    """one (two writes to ``foo`` in one ``Command``) -> two.

    Mirrors test_pregel.py::test_multiple_writes_same_channel_from_same_node: one task's
    pending writes hold the same channel twice, in order; a resume applies both, once.
    """
    return chain(JoinedFoo, ("one", _one_writes_twice), ("two", _node("two", 1.0)))


# --------------------------------------------------------------------------- round 54
def root_messages_remove() -> StateGraph:
    """chatbot (adds two AI messages) -> delete_messages (a ``RemoveMessage`` of the first),
    on a state that is the root channel itself: a list of messages under ``add_messages``.

    Mirrors test_pregel.py::test_remove_message_from_node: the checkpoints hold one channel,
    ``__root__``, of LangChain messages; a node's write removes one by id.
    """
    from langchain_core.messages import AIMessage, AnyMessage, RemoveMessage
    from langgraph.graph.message import add_messages

    def chatbot(state: list[Any]) -> list[Any]:
        with effect("chatbot"):
            _sleep(1.0)
        return [AIMessage(content="Hello!"), AIMessage(content="How can I help you?")]

    def delete_messages(state: list[Any]) -> list[Any]:
        with effect("delete_messages"):
            _sleep(1.0)
        return [RemoveMessage(id=state[-2].id)]

    root = Annotated[list[AnyMessage], add_messages]
    return chain(root, ("chatbot", chatbot), ("delete_messages", delete_messages))  # type: ignore[arg-type]


@dataclass
class FooRecord:
    foo: str


def _foo_then_b(state: FooRecord) -> Command[Any]:
    with effect("node_a"):
        _sleep(1.0)
    return Command(update=FooRecord(foo="foo"), goto="node_b")


def _foo_bar(state: FooRecord) -> dict[str, Any]:
    with effect("node_b"):
        _sleep(1.0)
    return {"foo": state.foo + "bar"}


def dataclass_command_update() -> StateGraph:
    """node_a (``Command(update=FooRecord(...), goto="node_b")``) -> node_b, on a dataclass
    state.

    Mirrors test_pregel.py::test_command_pydantic_dataclass (its dataclass half): a
    ``Command`` whose update is the state's own class, with no static edge out of node_a.
    """
    b = StateGraph(FooRecord)
    b.add_node("node_a", _foo_then_b, destinations=("node_b",))
    b.add_node("node_b", _foo_bar)
    b.add_edge(START, "node_a")
    b.add_edge("node_b", END)
    return b


# --------------------------------------------------------------------------- round 55
class OverallFoo(TypedDict):
    foo: Annotated[int, operator.add]
    bar: str


class RouterBaz(TypedDict):
    baz: str


class Node2Baz(TypedDict):
    foo: Annotated[int, operator.add]
    baz: str


def _private_node_1(state: OverallFoo) -> dict[str, Any]:
    with effect("node_1"):
        _sleep(1.0)
    return {"foo": 1, "baz": "meow"}


def _private_node_2(state: Node2Baz) -> dict[str, Any]:
    with effect("node_2"):
        _sleep(1.0)
    return {"foo": 1, "bar": state["baz"]}


def _baz_router(state: RouterBaz) -> str:
    return "node_2" if state["baz"] == "meow" else END


def private_channel_router() -> StateGraph:
    """node_1 (writes ``baz``, a channel the graph's state does not declare) -> a router that
    reads only ``baz`` -> node_2 (its input schema declares ``baz``).

    Mirrors test_state.py::test_private_input_schema_conditional_edge: the checkpoints hold a
    private channel beside the state's own, and a conditional edge with an input schema of
    its own decides the next step.
    """
    b = StateGraph(OverallFoo)
    b.add_node("node_1", _private_node_1)
    b.add_node("node_2", _private_node_2)
    b.add_edge(START, "node_1")
    b.add_conditional_edges("node_1", _baz_router, ["node_2", END])
    b.add_edge("node_2", END)
    return b


def replay_final_noop() -> StateGraph:
    """node_a -> node_b; an input runs them, ``invoke(None)`` from the final checkpoint runs
    nothing, then a second input runs them again, killed.

    Mirrors test_time_travel.py::test_replay_from_final_checkpoint_is_noop: a replay from a
    checkpoint with nothing due is a no-op that saves nothing and logs nothing; the next
    input goes on from the same final checkpoint.
    """
    return chain(Trail, ("node_a", _node("node_a", 1.0)), ("node_b", _node("node_b", 1.0)))


class EntryAgent(TypedDict, total=False):
    input: str
    output: str
    steps: Annotated[list[str], operator.add]


def _entry_side(name: str) -> Callable[..., Any]:
    def node(data: EntryAgent) -> dict[str, Any]:
        with effect(name):
            _sleep(2.0)
        return {"output": f"{data['input']}->{name}"}

    node.__name__ = name
    return node


def conditional_entry_map() -> StateGraph:
    """A conditional entry point with a path map (``go-left``/``go-right``) to left or right
    (two units each); left leaves through a conditional edge to END. A long input goes right,
    then a short one on the same thread goes left, killed.

    Mirrors test_pregel.py::test_conditional_entrypoint_graph_state: the first step's task is
    chosen by a branch out of START that maps labels to nodes, once per input.
    """
    b = StateGraph(EntryAgent)
    b.add_node("left", _entry_side("left"))
    b.add_node("right", _entry_side("right"))
    b.set_conditional_entry_point(
        lambda data: "go-right" if len(data["input"]) > 10 else "go-left",
        {"go-left": "left", "go-right": "right"},
    )
    b.add_conditional_edges("left", lambda data: END, {END: END})
    b.add_edge("right", END)
    return b


# --------------------------------------------------------------------------- round 56
def replays_refire_interrupt() -> StateGraph:
    """node_a -> ask_human (asks before it logs) -> node_b, answered and run to its end; then
    three runs from the checkpoint before ask_human, each of which asks again before logging
    anything; the last question is answered, and that run is killed.

    Mirrors test_time_travel.py::test_replay_interrupt_stable_across_replays: every replay
    of one checkpoint makes a copy of its own and re-fires the interrupt (under a new id);
    the answer goes on along the newest branch.
    """
    return chain(
        ValueTrail,
        ("node_a", _node("node_a", 1.0, "value")),
        ("ask_human", _asks("ask_human", "What is your input?")),
        ("node_b", _node("node_b", 1.0, "value")),
    )


def _chat_pushing(state: dict[str, Any]) -> None:
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph.message import push_message

    with effect("chat"):
        _sleep(0.5)
        push_message(AIMessage(content="First", id="1"))
        push_message(HumanMessage(content="Second", id="2"))
        _sleep(0.5)
        push_message(AIMessage(content="Third", id="3"))


def pushed_messages() -> StateGraph:
    """chat (returns nothing; its writes are three ``push_message`` calls, the last half a
    unit after the first two) -> finish, on a messages state.

    Mirrors test_messages_state.py::test_push_messages_in_graph: messages a node pushes
    while it runs are its writes, saved when it ends, not as it pushes them.
    """
    from langgraph.graph import MessagesState

    return chain(
        MessagesState, ("chat", _chat_pushing), ("finish", _node("finish", 1.0, "messages", []))
    )


# --------------------------------------------------------------------------- round 57
async def _drained_then_cancelled(state: Trail, runtime: Any) -> dict[str, Any]:
    """On its first attempt on the thread: half a unit in, asks the run to drain (a worker's
    SIGTERM handler); still running a unit later, the invocation is cancelled (the graceful
    period over). Every later attempt runs its 1.5 units to the end."""
    attempt = _thread_attempt("first")
    with effect("first", attempt=attempt):
        await _asleep(0.5)
        if attempt == 1:
            runtime.control.request_drain("sigterm")
            await _asleep(1.0)
            cancel_invocation()
        await _asleep(1.0)
    return {"visited": ["first"]}


def drain_then_cancel() -> StateGraph:
    """first (drain requested mid-effect, then, still running, the ``ainvoke`` cancelled) ->
    second -> third; run with ``ainvoke``, then ``ainvoke(None)``.

    Mirrors test_runtime.py::test_drain_then_cancel_after_graceful_timeout: a server's
    shutdown asks running graphs to drain, and cancels those still running when its graceful
    period ends; the drain stops nothing that is running, the cancel does, and the next
    invocation runs the cancelled node again.
    """
    return chain(Trail, ("first", _drained_then_cancelled), ("second", _anode("second", 1.0)),
                 ("third", _anode("third", 1.0)))  # fmt: skip


# --------------------------------------------------------------------------- round 58
def stateful_subgraph_replayed_turns() -> StateGraph:
    """The graph of stateful_subgraph_forked_turns (parent_node -> a ``checkpointer=True``
    sub_node whose step_a and step_b ask before logging): two inputs, each answered twice;
    then a run from the root checkpoint where sub_node was due in the second input, not
    edited, which asks step_a's question again; both answered, and the answers' runs killed.

    Mirrors test_time_travel.py::test_stateful_subgraph_retains_state_on_parent_replay: a
    replay (no edit) of the parent keeps what the stateful subgraph's runs before saved.
    """
    return _asking_subgraph_graph(checkpointer=True)


def _clear_and_greet(state: dict[str, Any]) -> dict[str, Any]:
    from langchain_core.messages import HumanMessage, RemoveMessage
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    with effect("reset"):
        _sleep(1.0)
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("Updated hello")]}


def remove_all_messages() -> StateGraph:
    """chat (adds a message) -> reset (``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` then a new
    message: the list overwritten) -> reply, on ``MessagesState``; two inputs on one thread,
    the kill in the second.

    Mirrors test_messages_state.py::test_remove_all_messages: one write that empties the
    messages channel and refills it, applied once on a resume.
    """
    from langgraph.graph import MessagesState

    return chain(MessagesState, ("chat", _node("chat", 1.0, "messages", [{"role": "ai", "content": "hi"}])),
                 ("reset", _clear_and_greet),
                 ("reply", _node("reply", 1.0, "messages", [{"role": "ai", "content": "ok"}])))  # fmt: skip


# --------------------------------------------------------------------------- round 59
class Overwrites(TypedDict, total=False):
    messages: Annotated[list[str], operator.add]
    fixed: bool


def _overwrite(name: str, fraction: float) -> Callable[..., Any]:
    """A node that writes ``Overwrite([name])`` to messages (bypassing the reducer) unless
    the state says `fixed`, then it appends as the others do."""

    def node(state: Overwrites) -> dict[str, Any]:
        from langgraph.types import Overwrite

        with effect(name):
            _sleep(fraction)
        return {"messages": [name] if state.get("fixed") else Overwrite([name])}

    node.__name__ = name
    return node


def overwrite_parallel_error() -> StateGraph:
    """node_a -> node_b | node_c, both writing ``Overwrite`` to one channel: the superstep
    fails after both ran (``InvalidUpdateError``, raised while their writes are applied, with
    no error write of any task). A second input, marked fixed, runs all three again.

    Mirrors test_pregel.py::test_overwrite_parallel_error: a failure of the superstep itself,
    not of a node; the kill lands in the second input's run.
    """
    b = StateGraph(Overwrites)
    b.add_node("node_a", _node("node_a", 1.0, "messages"))
    b.add_node("node_b", _overwrite("node_b", 0.5))
    b.add_node("node_c", _overwrite("node_c", 1.5))
    b.add_edge(START, "node_a")
    b.add_edge("node_a", "node_b")
    b.add_edge("node_a", "node_c")
    b.add_edge("node_b", END)
    b.add_edge("node_c", END)
    return b


class JoinedName(TypedDict, total=False):
    name: Annotated[str, lambda a, b: " > ".join([a, b]) if a else b]


def _one_sends_two(state: JoinedName) -> Command[Any]:
    with effect("one"):
        _sleep(0.5)
    return Command(goto=[Send("two", {})], update={"name": "one"})


def _one_sends_two_graph() -> StateGraph:
    """one (``Command(goto=[Send("two", {})])`` and an edge to two: two runs twice at once)
    -> three, on a state whose reducer joins the names."""
    b = StateGraph(JoinedName)
    b.add_node("one", _one_sends_two, destinations=("two",))
    b.add_node("two", _node("two", 1.0, "name", "two"))
    b.add_node("three", _node("three", 1.0, "name", "three"))
    b.add_edge(START, "one")
    b.add_edge("one", "two")
    b.add_edge("two", "three")
    return b


def fork_update_task_result(checkpointer: Any) -> Any:
    """one (``Command(goto=[Send("two", {})])`` and an edge to two: two runs twice at once)
    -> three, compiled with ``interrupt_before=["one"]`` so that the checkpoint where one is
    due exists under every durability mode (exit saves it at the pause). Answered with
    ``None`` and run to its end; then that checkpoint is copied and one's result written
    there in one call (``update_state(config, [(values, "one")], as_node="__copy__")``: a
    copy, then an update that reuses one's task id), and the thread run from it: two once
    (no Send: one never ran), then three; the kill lands in that run.

    Mirrors test_pregel.py::test_fork_and_update_task_results.
    """
    return _one_sends_two_graph().compile(checkpointer=checkpointer, interrupt_before=["one"])


def copy_update_latest() -> StateGraph:
    """fork_update_task_result's graph without the breakpoint: run to its end, then its final
    checkpoint copied and one's result written there in one call (``update_state(config,
    [(values, "one")], as_node="__copy__")``: a copy with nothing due, then the update, which
    makes two due), and the thread run from it: two, then three; the kill lands in that run.

    Mirrors test_pregel.py::test_fork_and_update_task_results, forking the thread's latest
    checkpoint (the one every durability mode saves).
    """
    return _one_sends_two_graph()


# --------------------------------------------------------------------------- round 60
class FixedHello(TypedDict, total=False):
    hello: str
    fixed: bool


def last_value_conflict() -> StateGraph:
    """A conditional entry point to one | two, both writing the plain key `hello` (a
    ``LastValue`` channel) -> report after one: the superstep fails after both ran
    (``InvalidUpdateError``, "At key 'hello': Can receive only one value per step", raised
    while their writes are applied). A second input, marked fixed, routes to one alone.

    Mirrors test_pregel.py::test_invoke_two_processes_two_in_two_out_invalid (its
    StateGraph half): LangGraph's INVALID_CONCURRENT_GRAPH_UPDATE; the kill lands in the
    second input's run.
    """
    b = StateGraph(FixedHello)
    b.add_node("one", _node("one", 1.0, "hello", "one"))
    b.add_node("two", _node("two", 1.5, "hello", "two"))
    b.add_node("report", _node("report", 1.0, "hello", "report"))
    b.add_conditional_edges(START, lambda s: ["one"] if s.get("fixed") else ["one", "two"])
    b.add_edge("one", "report")
    b.add_edge("two", END)
    b.add_edge("report", END)
    return b


# --------------------------------------------------------------------------- round 61
def _cancelled_sync_first(state: Trail) -> dict[str, Any]:
    """A plain (sync) node under ``ainvoke``: half a unit into its effect, on its first
    attempt on the thread, the invocation is cancelled from outside; the worker thread it
    runs on goes on to its end (a cancel only disconnects the loop from it)."""
    attempt = _thread_attempt("first")
    with effect("first", attempt=attempt):
        _sleep(0.5)
        if attempt == 1:
            cancel_invocation()
        _sleep(1.0)
    return {"visited": ["first"]}


def cancelled_sync_node() -> StateGraph:
    """first (a sync node; its first invocation is cancelled from outside mid-effect, and
    its thread runs on to the end) -> second; run with ``ainvoke``, then ``ainvoke(None)``.

    Mirrors test_runtime.py::test_cancel_ainvoke_with_sync_node: the node's lines end after
    the cancel, but the loop that would put its writes has gone; the kill lands in the next
    invocation.
    """
    return chain(Trail, ("first", _cancelled_sync_first), ("second", _node("second", 1.0)))


# --------------------------------------------------------------------------- round 62
def subgraph_noop_replay_then_input() -> StateGraph:
    """executor, a ``checkpointer=True`` subgraph (step_a -> ask_1 -> ask_2, each ask calling
    ``interrupt()`` before logging) as the root's one node. One input, answered twice and run
    to its end; then a replay from the final root checkpoint (nothing due: it runs nothing),
    then a second input, whose step_a and first answer are killed.

    Mirrors test_time_travel.py::test_subgraph_time_travel_after_completion: a replay from
    after both interrupts were resolved is a no-op, in a thread whose subgraph keeps its
    own history.
    """
    executor = chain(
        ValueTrail,
        ("step_a", _node("step_a", 1.0, "value")),
        ("ask_1", _asks("ask_1", "Question 1?")),
        ("ask_2", _asks("ask_2", "Question 2?")),
    )
    return chain(ValueTrail, ("executor", executor.compile(checkpointer=True)))


# --------------------------------------------------------------------------- round 63
def update_none_refires_interrupt() -> StateGraph:
    """node_a -> ask_human (``interrupt()`` before logging) -> node_b. Answered and run to its
    end; then ``update_state`` with no values on the checkpoint where ask_human was due, as
    node_a (the node LangGraph infers for it): a new checkpoint of source "update" that makes
    ask_human due again; run from it, the question is asked again, answered, and that run
    is killed.

    Mirrors test_time_travel.py::test_update_state_with_none_values (fork_interrupt_refires's
    graph; the shapes differ in the edit and where it is made).
    """
    return fork_interrupt_refires()


# --------------------------------------------------------------------------- round 64
def entrypoint_timeout(checkpointer: Any) -> Any:
    """@entrypoint `workflow` (async, ``timeout=TimeoutPolicy(idle_timeout=2u)``): @task
    `fetch` (one unit), then the entrypoint's own effect (four units on its first attempt on
    the thread, past the idle timeout, so LangGraph cancels the entrypoint and raises
    ``NodeTimeoutError`` out of the run; one unit after), then @task `store`. Run with
    ``ainvoke``; ``ainvoke(None)`` then runs the entrypoint again, and the kill lands there.

    Mirrors test_retry.py::test_entrypoint_timeout_e2e: a workflow's own timeout, with no
    retry, fails the run; `fetch`'s saved result is reused by the run after it.
    """
    from langgraph.func import entrypoint, task
    from langgraph.types import TimeoutPolicy

    idle = 2 * (settings.get_float(ENV_SLEEP, 0.0) or 0.05)

    @task
    async def fetch(text: str) -> str:
        with effect("fetch", text=text):
            await _asleep(1.0)
        return text.upper()

    @task
    async def store(text: str) -> str:
        with effect("store", text=text):
            await _asleep(1.0)
        return text

    @entrypoint(checkpointer=checkpointer, timeout=TimeoutPolicy(idle_timeout=idle))
    async def workflow(inputs: dict[str, Any]) -> dict[str, Any]:
        fetched = await fetch(str(inputs.get("text", "")))
        attempt = _thread_attempt("workflow")
        with effect("workflow", attempt=attempt):
            await _asleep(4.0 if attempt == 1 else 1.0)
        return {"stored": await store(fetched)}

    return workflow


# --------------------------------------------------------------------------- round 65
def fork_refires_interrupt() -> StateGraph:
    """update_none_refires_interrupt's graph (node_a -> ask_human, ``interrupt()`` before
    logging -> node_b), answered and run to its end; then ``update_state`` with a value on the
    checkpoint where ask_human was due (a fork; LangGraph infers node_a as its writer); run
    from it, the question is asked again, answered, and that run is killed.

    Mirrors test_time_travel.py::test_fork_from_before_interrupt_refires: a fork carries no
    cached answer, so the interrupt fires again and takes the new one.
    """
    return fork_interrupt_refires()


# --------------------------------------------------------------------------- round 66
def delta_time_travel_input() -> StateGraph:
    """delta_channel_turns's graph (respond -> remember on a `DeltaChannel` messages state):
    two turns, then a third input sent from the checkpoint the first turn ended at, not the
    thread's newest; that run is killed.

    Mirrors test_pregel.py::test_delta_channel_time_travel: a fresh input on an earlier
    checkpoint begins a branch from it (its input checkpoint is that checkpoint's child),
    and the second turn's messages are not in the run's state.
    """
    return delta_channel_turns()


# --------------------------------------------------------------------------- round 67
class BatchTasks(TypedDict, total=False):
    foo: str
    tasks: Annotated[list[int], operator.add]


def _batch_map(state: BatchTasks) -> Command:
    with effect("map"):
        _sleep(1.0)
    return Command(goto=[Send("task", {"index": i}) for i in range(3)], update={"foo": "map"})


def _batch_task(state: dict[str, Any]) -> dict[str, Any]:
    index = int(state["index"])
    with effect("task", index=index):
        _sleep(1.0 + index)  # unequal: the workers end one sleep unit apart
    return {"tasks": [index]}


def batch_update_sends() -> StateGraph:
    """agent -> map (``Command(goto=[Send("task", {"index": i}) for i in 0..2])``), three
    `Send` workers of unequal length. The thread is written by ``update_state`` alone, one
    superstep each, as ``bulk_update_state`` writes it: the input as ``__input__``, then
    ``__start__``, agent's values, and map's Command, whose Sends make three task workers
    due; only then is it run, with no input, and that run is killed in a worker.

    Mirrors test_pregel.py::test_batch_update_as_input: a Command with Sends written as a
    node's update leaves the same tasks due as the node's own run would.
    """
    b = StateGraph(BatchTasks)
    b.add_node("agent", _set_foo("agent", 1.0))
    b.add_node("map", _batch_map, destinations=("task",))
    b.add_node("task", _batch_task)
    b.add_edge(START, "agent")
    b.add_edge("agent", "map")
    return b


# --------------------------------------------------------------------------- round 68
def handler_breakpoint(checkpointer: Any) -> Any:
    """error_handler's graph: prepare -> charge (always raises; error_handler refunds, then ``Command(goto="notify")``)
    -> notify, compiled with ``interrupt_before=["__error_handler__charge"]``.

    Mirrors test_retry.py::test_graph_error_handler_error_context_survives_checkpoint_resume,
    whose breakpoint names the handler's node. LangGraph 1.2.24 runs the handler in the
    failed task's step, as a task pushed there (``__error_handler__charge``), and no
    breakpoint stops it: the run goes on through the handler to notify, and the test's
    ``invoke(None)`` has nothing left to run. The kill lands in the handler or after it; the
    resume finds the failure among the step's pending writes and runs the handler again.
    """
    return error_handler().compile(
        checkpointer=checkpointer, interrupt_before=["__error_handler__charge"]
    )


# --------------------------------------------------------------------------- round 69
def delta_async_turns() -> StateGraph:
    """delta_channel_turns's graph (respond -> remember on a `DeltaChannel` messages state,
    three turns on one thread, the kill in the third), run by ``ainvoke``.

    Mirrors test_pregel.py::test_delta_channel_async_write_ordering: in LangGraph's async
    loop a checkpoint whose `DeltaChannel` took writes in the step is put only once those
    writes' ``aput_writes`` completed (``_delta_write_futs``), the value being rebuilt from
    them along the thread's history.
    """
    return delta_channel_turns()


@dataclass(frozen=True)
class Shape:
    """One graph of the corpus: how to start it, drive it to the kill, and where to kill it."""

    name: str
    mirrors: str
    """The LangGraph test it is modelled on."""
    input: Any
    kills: tuple[tuple[str, int, float], ...]
    """(node, Nth start of it in the child, delay in sleep units): an early and a late point."""
    resume_value: Any = None
    has_resume_value: bool = False
    """Answer every interrupt with ``Command(resume=resume_value)`` (before and after the kill)."""
    then: tuple[Any, ...] = field(default_factory=tuple)
    """Inputs of further invocations on the same thread, each sent once the previous one
    ended without being killed (the second input that retries a failed node)."""
    kill_from: int = 0
    """The invocation the kill is aimed in (1: after the pause or the failure)."""
    resume_all: bool = False
    """Answer every pending interrupt at once (test_multi_resume), not the first one only."""
    api: Literal["invoke", "ainvoke"] = "invoke"
    """How the child runs it: ``ainvoke`` for the shapes whose nodes are ``async def``."""

    @property
    def graph(self) -> str:
        return f"{__name__}:{self.name}"


CORPUS: tuple[Shape, ...] = (
    Shape("waiting_edge_join", "test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge",
          {"visited": []}, (("retriever_two", 1, 1.0), ("qa", 1, 0.5))),
    Shape("conditional_loop", "test_large_cases.py::test_conditional_state_graph",
          {"visited": [], "calls": 0}, (("tools", 1, 0.3), ("agent", 4, 0.3))),
    Shape("command_goto", "test_pregel.py::test_multistep_plan",
          {"visited": []}, (("step_a", 1, 0.5), ("step_c", 1, 0.5))),
    Shape("send_map_reduce_uneven", "test_large_cases.py::test_in_one_fan_out_out_one_graph_state",
          {"subjects": []}, (("generate_joke", 1, 1.2), ("best_joke", 1, 0.5))),
    Shape("nested_graph", "test_pregel.py::test_nested_graph",
          {"visited": []}, (("inner_2", 1, 0.5), ("outer_2", 1, 0.5))),
    Shape("dynamic_interrupt", "test_large_cases.py::test_dynamic_interrupt",
          {"visited": []}, (("tool_two", 1, 0.5), ("finish", 1, 0.5)),
          resume_value="yes", has_resume_value=True, kill_from=1),
    Shape("checkpoint_recovery", "test_pregel.py::test_checkpoint_recovery",
          {"steps": [], "attempt": 1}, (("node1", 1, 0.5), ("node2", 1, 0.5)),
          then=({"steps": [], "attempt": 2},), kill_from=1),
    Shape("imp_tasks", "test_pregel.py::test_imp_task",
          {"n": 3}, (("graph", 1, 1.0), ("graph", 1, 2.3))),
    Shape("retry_policy", "test_retry.py::test_graph_with_single_retry_policy",
          {"visited": []}, (("failing_node", 1, 1.2), ("other_node", 1, 0.5))),
    Shape("defer_node", "test_pregel.py::test_in_one_fan_out_state_graph_defer_node",
          {"visited": []}, (("retriever_two", 1, 1.0), ("qa", 1, 0.5))),
    Shape("long_chain", "test_pregel.py::test_invoke_many_processes_in_out",
          {"visited": []}, (("node_2", 1, 0.2), ("node_8", 1, 0.2))),
    Shape("simple_multi_edge", "test_pregel.py::test_simple_multi_edge",
          {"visited": []}, (("other", 1, 1.0), ("down", 1, 0.5))),
    Shape("doubly_nested", "test_large_cases.py::test_doubly_nested_graph_state",
          {"visited": []}, (("grandchild_1", 1, 0.5), ("parent_2", 1, 0.5))),
    Shape("conditional_entry_send", "test_pregel.py::test_conditional_entrypoint_to_multiple_state_graph",
          {"locations": ["sf", "nyc"]}, (("get_weather", 1, 1.0), ("summarize", 1, 0.5))),
    Shape("parent_command", "test_pregel.py::test_parent_command_goto",
          {"dialog_state": []}, (("node_a_child", 1, 0.5), ("node_b_parent", 1, 0.5))),
    Shape("subgraph_checkpoint_true", "test_pregel.py::test_subgraph_checkpoint_true",
          {"my_key": ""}, (("inner_2", 1, 0.5), ("inner_2", 2, 0.5))),
    # Held out: added after the model's rules were written, to check them on shapes
    # they were not fitted to (docs/validation.md, "Held-out shapes").
    Shape("subgraph_parallel", "test_pregel.py::test_stream_subgraphs_during_execution",
          {"visited": []}, (("inner_2", 1, 1.0), ("outer_2", 1, 0.5))),
    Shape("waiting_edge_loop", "test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_multiple",
          {"visited": []}, (("retriever_two", 1, 1.0), ("qa", 1, 0.5))),
    Shape("interrupt_task_functional", "test_pregel.py::test_interrupt_task_functional",
          {"a": ""}, (("graph", 1, 0.5), ("graph", 1, 2.0)),
          resume_value="bar", has_resume_value=True, kill_from=1),
    Shape("multiple_interrupts", "test_pregel.py::test_multiple_interrupt_state_persistence",
          {"steps": []}, (("node", 1, 1.0), ("finish", 1, 0.5)),
          resume_value="ok", has_resume_value=True, kill_from=2),
    Shape("parallel_unequal", "test_pregel.py::test_parallel_node_execution",
          {"visited": []}, (("fast", 1, 1.5), ("archive", 1, 0.5))),
    # Held out, second round: added after the rules the first five led to.
    Shape("interrupt_subgraph", "test_pregel.py::test_interrupt_subgraph",
          {"visited": []}, (("review", 1, 1.0), ("archive", 1, 0.5)),
          resume_value="ok", has_resume_value=True, kill_from=1),
    Shape("static_breakpoint", "test_pregel.py::test_command_with_static_breakpoints",
          {"visited": []}, (("node2", 1, 1.5), ("node3", 1, 0.5)),
          then=(None,), kill_from=1),
    Shape("send_react", "test_large_cases.py::test_send_react_interrupt",
          {"rounds": [], "results": []}, (("tool", 4, 1.0), ("agent", 3, 0.5))),
    Shape("retry_two_effects", "test_retry.py::test_graph_with_single_retry_policy",
          {"visited": []}, (("charge_node", 1, 1.8), ("notify", 1, 0.5))),
    # Held out, third round: added after the rules the second round led to.
    Shape("subgraph_invoked_in_node", "test_pregel.py::test_subgraph_checkpoint_true_interrupt",
          {"visited": []}, (("node_2", 1, 1.3), ("node_3", 1, 0.5)),
          resume_value="baz", has_resume_value=True, kill_from=1),
    Shape("imp_nested_interrupt", "test_pregel.py::test_imp_nested",
          {"n": 2}, (("graph", 1, 0.5), ("graph", 1, 1.5)),
          resume_value="a", has_resume_value=True, kill_from=1),
    Shape("command_send", "test_large_cases.py::test_send_react_interrupt_control",
          {"done": []}, (("two", 1, 1.0), ("three", 1, 0.5))),
    Shape("interrupt_loop", "test_large_cases.py::test_dynamic_interrupt",
          {"turns": []}, (("agent", 1, 0.5), ("finish", 1, 0.5)),
          resume_value="ok", has_resume_value=True, kill_from=2),
    # Held out, fourth round: added after the rules the third round led to.
    Shape("parallel_interrupts", "test_pregel.py::test_parallel_interrupts",
          {"prompts": ["a", "b"]}, (("get_human_input", 1, 1.0), ("cleanup", 1, 0.5)),
          resume_value="yes", has_resume_value=True, kill_from=2),
    Shape("send_to_subgraph", "test_large_cases.py::test_send_to_nested_graphs",
          {"subjects": ["cats", "dogs", "birds"]}, (("generate", 2, 0.5), ("pick_best", 1, 0.5))),
    Shape("multi_turn", "test_pregel.py::test_invoke_checkpoint_three",
          {"turns": ["hi"]}, (("respond", 1, 0.5), ("remember", 1, 0.5)),
          then=({"turns": ["again"]}, {"turns": ["bye"]}), kill_from=2),
    Shape("error_handler", "test_retry.py::test_error_handler_resumes_after_crash",
          {"visited": []}, (("charge", 1, 1.75), ("notify", 1, 0.5))),
    # Held out, fifth round: added after the rules the fourth round led to.
    Shape("entrypoint_stateful", "test_pregel.py::test_entrypoint_stateful",
          {"text": "hi"}, (("stateful", 1, 0.5), ("stateful", 1, 1.5)),
          then=({"text": "again"}, {"text": "bye"}), kill_from=2),
    Shape("nested_interrupts_parallel", "test_pregel.py::test_nested_graph_interrupts_parallel",
          {"my_key": ""}, (("inner_2", 1, 0.5), ("outer_2", 1, 0.5)),
          then=(None,), kill_from=1),
    Shape("cond_edge_after_send", "test_pregel.py::test_cond_edge_after_send",
          {"visited": []}, (("two", 1, 1.5), ("three", 1, 0.5))),
    # Held out, sixth round: added after the rules the fifth round led to.
    Shape("pending_writes_resume", "test_pregel.py::test_pending_writes_resume",
          {"value": 1}, (("two", 1, 0.75), ("report", 1, 0.5)), then=(None,), kill_from=1),
    Shape("multi_resume", "test_pregel.py::test_multi_resume",
          {"prompts": ["a", "b", "c"]}, (("get_human_input", 1, 1.5), ("cleanup", 1, 0.5)),
          resume_value="yes", has_resume_value=True, kill_from=1, resume_all=True),
    Shape("concurrent_emit_sends", "test_pregel.py::test_concurrent_emit_sends",
          {"visited": []}, (("2", 1, 1.5), ("3", 1, 0.5))),
    Shape("multiple_subgraphs_checkpointer", "test_pregel.py::test_multiple_subgraphs_checkpointer",
          {"parent_counter": 0}, (("parent_node", 1, 1.5), ("finish", 1, 0.5)),
          then=({"parent_counter": 0},), kill_from=1),
    Shape("subgraph_durability_inherited", "test_pregel.py::test_subgraph_durability_inherited",
          {"my_key": ""}, (("inner_2", 1, 0.5), ("inner_2", 2, 0.5))),
    # Held out, seventh round: added after the rules the sixth round led to.
    Shape("react_agent", "test_react_agent.py::test_react_agent_parallel_tool_calls",
          {"messages": [{"role": "user", "content": "refund order A-17"}]},
          (("tools", 1, 0.75), ("agent", 3, 0.25))),
    Shape("max_concurrency_send", "test_pregel_async.py::test_max_concurrency",
          {"items": [0, 1, 2, 3, 4, 5]}, (("worker", 4, 0.15), ("collect", 1, 0.5))),
    Shape("stateless_subgraph_interrupts",
          "test_subgraph_persistence.py::test_stateless_state_resets_with_interrupt",
          {"result": ""}, (("process", 1, 1.0), ("deliver", 1, 0.5)), resume_value=True,
          has_resume_value=True, then=({"result": ""},), kill_from=3),
    Shape("breakpoint_update_state", "test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge",
          {"visited": []}, (("qa", 1, 1.5), ("publish", 1, 0.5)),
          then=(state_update({"docs": ["doc5"]}, as_node="retriever_one"), None), kill_from=2),
    # Held out, eighth round: added after the rules the seventh round led to.
    Shape("react_agent_tool_interrupt", "test_react_agent.py::test_tool_node_node_interrupt",
          {"messages": [{"role": "user", "content": "refund order A-17"}]},
          (("tools", 1, 1.0), ("agent", 1, 0.25)),
          resume_value="yes", has_resume_value=True, kill_from=1),
    Shape("imp_exception", "test_pregel.py::test_imp_exception",
          {"n": 1}, (("my_workflow", 1, 1.05), ("my_workflow", 1, 2.6))),
    Shape("multiple_interrupts_functional", "test_pregel.py::test_multiple_interrupts_functional",
          {}, (("graph", 1, 0.3), ("graph", 1, 1.4)),
          resume_value="a", has_resume_value=True, kill_from=2),
    Shape("multiple_subgraphs_mixed_state_graph",
          "test_pregel.py::test_multiple_subgraphs_mixed_state_graph",
          {"a": 2, "b": 3}, (("call_same_subgraph", 1, 1.2), ("finish", 1, 0.5))),
    # Held out, ninth round: added after the rules the eighth round led to.
    Shape("react_agent_tool_error", "test_tool_node.py::test_tool_node_error_handling",
          {"messages": [{"role": "user", "content": "charge order A-17"}]},
          (("tools", 3, 0.4), ("agent", 3, 0.25))),
    Shape("step_timeout", "test_pregel.py::test_timeout_with_parent_command",
          {"visited": [], "attempt": 1}, (("slow", 1, 0.5), ("report", 1, 0.5)),
          then=({"visited": [], "attempt": 2},), kill_from=1),
    # Held out, tenth round: async graphs (test_pregel_async.py), run with graph.ainvoke.
    Shape("node_cancellation_async", "test_pregel_async.py::test_node_cancellation_on_other_node_exception",
          {"visited": [], "attempt": 1}, (("agent", 1, 1.0), ("report", 1, 0.5)),
          then=({"visited": [], "attempt": 2},), kill_from=1, api="ainvoke"),
    Shape("imp_task_cancel", "test_pregel_async.py::test_imp_task_cancel",
          {}, (("graph", 1, 0.25), ("publish", 1, 0.5)),
          resume_value="!", has_resume_value=True, api="ainvoke"),
    Shape("send_dedupe_on_resume", "test_pregel_async.py::test_send_dedupe_on_resume",
          ["0"], (("flaky", 1, 0.75), ("3", 1, 0.5)),
          resume_value="yes", has_resume_value=True, kill_from=1, api="ainvoke"),
    Shape("wide_fanout_async", "test_pregel_async.py::test_parallel_node_execution",
          {"visited": []}, (("n4", 1, 1.75), ("gather", 1, 0.5)), api="ainvoke"),
    # Held out, eleventh round: added after the rules the tenth round led to.
    Shape("command_goto_breakpoint", "test_pregel.py::test_command_goto_with_static_breakpoints",
          {"foo": "abc"}, (("node1", 1, 0.5), ("node2", 2, 0.5)),
          then=(command(goto=["node2"]),), kill_from=1),
    Shape("update_as_input", "test_pregel.py::test_update_as_input",
          {"foo": "input"}, (("agent", 1, 0.5), ("tool", 1, 0.5)),
          then=(state_update({"foo": "input"}, "__input__"), state_update({"foo": "input"}, "__start__"),
                state_update({"foo": "agent"}, "agent"), state_update({"foo": "tool"}, "tool"),
                {"foo": "input"}), kill_from=5),
    Shape("waiting_edge_via_branch", "test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_via_branch",
          {"query": "what is weather in sf", "docs": []}, (("retriever_two", 1, 1.5), ("qa", 1, 0.5)),
          then=(None,)),
    Shape("nested_interrupts_after", "test_pregel.py::test_nested_graph_interrupts_parallel",
          {"my_key": ""}, (("inner_2", 1, 0.5), ("outer_2", 1, 0.5)),
          then=(None, None), kill_from=1),
    # Held out, twelfth round: added after the rules the eleventh round led to.
    Shape("doubly_nested_interrupts", "test_pregel.py::test_doubly_nested_graph_interrupts",
          {"my_key": "my value"}, (("grandchild_2", 1, 0.5), ("parent_2", 1, 0.5)),
          then=(None,), kill_from=1),
    Shape("send_react_breakpoint", "test_large_cases.py::test_send_react_interrupt",
          {"rounds": []}, (("tool", 3, 1.0), ("agent", 1, 0.5)),
          then=(None, None, None), kill_from=1),
    Shape("recursion_limit_retry", "test_pregel.py::test_invoke_two_processes_in_out",
          {"target": 30, "unit": 0.05}, (("tools", 1, 0.5), ("agent", 3, 0.5)),
          then=({"target": 2, "calls": 0, "unit": 1.0},), kill_from=1),
    Shape("send_retry_policy", "test_retry.py::test_graph_with_single_retry_policy",
          {"items": [0, 1, 2]}, (("worker", 3, 1.5), ("collect", 1, 0.5))),
    # Held out, thirteenth round: added after the rules the twelfth round led to.
    Shape("fork_replay", "test_large_cases_async.py::test_fork_always_re_runs_nodes",
          {"count": 1}, (("add_one", 1, 0.5), ("add_one", 3, 0.5)),
          then=(fork(back=4),), kill_from=1, api="ainvoke"),
    Shape("parent_command_nested", "test_parent_command.py::test_parent_command_from_nested_subgraph",
          {"jump_from_idx": 2}, (("node", 2, 0.5), ("parent_second", 1, 0.5))),
    Shape("interrupt_after_all", "test_interruption.py::test_interruption_without_state_updates",
          {"input": "hello world"}, (("step_2", 1, 0.5), ("step_3", 1, 0.5)),
          then=(None, None), kill_from=1),
    Shape("stateful_subgraph_interrupt",
          "test_subgraph_persistence.py::test_stateful_state_accumulates_with_interrupt",
          {"result": ""}, (("process", 1, 0.5), ("respond", 1, 0.5)), resume_value=True,
          has_resume_value=True, then=({"result": ""},), kill_from=3),
    # Held out, fourteenth round: added after the rules the thirteenth round led to.
    Shape("pregel_map_subgraph", "test_pregel.py::test_invoke_join_then_call_other_pregel",
          [2, 3], (("one", 2, 0.5), ("chain_three", 1, 0.5))),
    Shape("child_own_thread", "test_subgraph_persistence.py::test_child_with_own_thread_id_keeps_namespace",
          {"visited": []}, (("n", 1, 0.5), ("q", 1, 0.5)), then=({"visited": []},), kill_from=1),
    Shape("stateful_namespace_isolation", "test_subgraph_persistence.py::test_stateful_namespace_isolation",
          {"result": ""}, (("echo", 2, 0.5), ("finish", 1, 0.5)), then=({"result": ""},), kill_from=1),
    Shape("pydantic_state_join",
          "test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_custom_state_class_pydantic2",
          {"query": "what is weather in sf", "inner": {"yo": 1}}, (("retriever_two", 1, 1.0), ("qa", 1, 0.5))),
    # Held out, fifteenth round: added after the rules the fourteenth round led to.
    Shape("cached_waiting_edge_loop", "test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_multiple",
          {"visited": []}, (("retriever_two", 1, 1.0), ("qa", 1, 0.5))),
    Shape("weather_subgraph", "test_large_cases_async.py::test_weather_subgraph",
          {"visited": []}, (("weather_graph", 1, 0.5), ("weather_node", 1, 0.5)), then=(None,), kill_from=1),
    Shape("send_sequences", "test_pregel.py::test_send_sequences",
          ["0"], (("2", 2, 0.5), ("3", 1, 0.5))),
    # Held out, sixteenth round: added after the rules the fifteenth round led to.
    Shape("parent_command_deeply_nested", "test_pregel.py::test_parent_command_goto_deeply_nested",
          {"dialog_state": ["init"]}, (("sub_sub_child", 1, 0.5), ("sub_child_3", 1, 0.5))),
    Shape("tasks_before_interrupt", "test_pregel.py::test_multiple_tasks_before_interrupt_resume",
          {"x": 5}, (("ask", 1, 0.5), ("finish", 1, 0.5)),
          resume_value="continue", has_resume_value=True, kill_from=1),
    # Held out, seventeenth round: added after the rules the sixteenth round led to.
    Shape("delta_channel_turns", "test_pregel.py::test_delta_channel_end_to_end_inmemory",
          {"messages": [{"role": "user", "content": "hello", "id": "h1"}]},
          (("respond", 1, 0.5), ("remember", 1, 0.5)),
          then=({"messages": [{"role": "user", "content": "world", "id": "h2"}]},
                {"messages": [{"role": "user", "content": "bye", "id": "h3"}]}), kill_from=2),
    Shape("subgraph_reenter_interrupt",
          "test_pregel.py::test_interrupt_subgraph_reenter_checkpointer_true",
          {"foo": "", "counter": 0}, (("subnode_2", 1, 0.5), ("node", 1, 0.5)),
          resume_value="qux", has_resume_value=True, kill_from=2),
    Shape("partial_pending_checkpoint", "test_large_cases.py::test_partial_pending_checkpoint",
          {"my_key": "value", "market": "DE"}, (("tool_two", 1, 0.5), ("tool_two", 1, 1.5)),
          resume_value=" my answer", has_resume_value=True, kill_from=1),
    # Held out, eighteenth round: added after the rules the seventeenth round led to.
    Shape("parallel_interrupts_double", "test_pregel.py::test_parallel_interrupts_double",
          {"prompts": ["a", "b"]}, (("child_graph", 1, 0.5), ("cleanup", 1, 0.5)),
          resume_value="yes", has_resume_value=True, kill_from=4),
    Shape("multiple_subgraphs_functional", "test_pregel.py::test_multiple_subgraphs_functional",
          [2, 3], (("parent", 1, 1.0), ("parent", 1, 2.0))),
    Shape("multiple_retry_policies", "test_retry.py::test_graph_with_multiple_retry_policies",
          {"foo": "", "error_type": "value_error"}, (("failing_node", 1, 2.65), ("report", 1, 0.5)),
          then=({"foo": "", "error_type": "key_error"},), kill_from=1),
    # Held out, nineteenth round: added after the rules the eighteenth round led to.
    Shape("pregel_interrupt_after", "test_large_cases.py::test_invoke_two_processes_in_out_interrupt",
          2, (("one", 1, 0.5), ("two", 1, 0.5)), then=(None, 20, 3, None), kill_from=3),
    Shape("fork_retains_writes", "test_pregel.py::test_run_from_checkpoint_id_retains_previous_writes",
          {"myval": 1}, (("node_one", 1, 0.5), ("node_two", 1, 0.5)),
          then=(fork(back=2),), kill_from=1),
    # Held out, twentieth round: added after the rules the nineteenth round led to.
    Shape("dynamic_interrupt_subgraph", "test_large_cases.py::test_dynamic_interrupt_subgraph",
          {"my_key": "value", "market": "DE"}, (("do", 1, 0.5), ("do", 1, 1.5)),
          resume_value=" my answer", has_resume_value=True, kill_from=1),
    Shape("interrupt_after_all_async",
          "test_interruption.py::test_interruption_without_state_updates_async",
          {"input": "hello world"}, (("step_2", 1, 0.5), ("step_3", 1, 0.5)),
          then=(None, None), kill_from=1, api="ainvoke"),
    # Held out, twenty-first round: added after the rules the twentieth round led to.
    Shape("interrupt_cycles_after_node",
          "test_pregel.py::test_node_before_multiple_interrupt_cycles_graph_api",
          {"count": 0, "data": ""}, (("multi_interrupt", 1, 0.5), ("multi_interrupt", 1, 1.5)),
          resume_value="an answer", has_resume_value=True, kill_from=2),
    Shape("nodes_before_interrupt",
          "test_pregel.py::test_multiple_nodes_before_interrupt_resume_graph_api",
          {"value": 5, "answer": ""}, (("ask", 1, 0.5), ("ask", 1, 1.5)),
          resume_value="continue", has_resume_value=True, kill_from=1),
    # Held out, twenty-second round: added after the rules the twenty-first round led to.
    Shape("named_tasks", "test_pregel.py::test_named_tasks_functional",
          {"value": ""}, (("workflow", 1, 1.5), ("workflow", 1, 4.5))),
    # Held out, twenty-third round: added after the rules the twenty-second round led to.
    Shape("double_interrupt_subgraph", "test_pregel.py::test_double_interrupt_subgraph",
          {"input": "test"}, (("node_2", 1, 0.5), ("invoke_sub_agent", 1, 1.5)),
          resume_value="123", has_resume_value=True, kill_from=2),
    Shape("interrupt_update_resume", "test_pregel.py::test_interrupt_multiple",
          {"my_key": "DE", "market": "DE"}, (("node", 1, 0.5), ("node", 1, 1.5)),
          then=(command(resume="answer 1", update={"my_key": " foofoo "}),
                command(resume="answer 2")), kill_from=2),
    Shape("subgraph_replay_then_resume",
          "test_time_travel.py::test_subgraph_interrupt_replay_from_parent_then_resume",
          {"value": []}, (("ask_human", 1, 0.5), ("post_process", 1, 0.5)),
          resume_value="new_answer", has_resume_value=True, then=(fork(back=2),), kill_from=3),
    # Held out, twenty-fourth round: added after the rules the twenty-third round led to.
    Shape("node_beside_interrupt_async",
          "test_pregel_async.py::test_node_not_cancelled_on_other_node_interrupted",
          {"visited": []}, (("bad", 1, 0.5), ("report", 1, 0.5)),
          then=(None, command(resume=" okay")), kill_from=2, api="ainvoke"),
    Shape("error_handler_subgraph_async",
          "test_pregel_async.py::test_node_error_handler_handles_subgraph_internal_failure_async",
          {"foo": ""}, (("sub_fail_node", 1, 1.25), ("report", 1, 0.5)), api="ainvoke"),
    Shape("interrupts_from_tasks_async", "test_pregel_async.py::test_handles_multiple_interrupts_from_tasks",
          "this is ignored", (("program", 1, 0.5), ("program", 1, 1.5)),
          resume_value=True, has_resume_value=True, kill_from=2, api="ainvoke"),
    # Held out, twenty-fifth round: added after the rules the twenty-fourth round led to.
    Shape("sequential_interrupts_fork",
          "test_time_travel.py::test_sequential_interrupts_fork_from_middle",
          {"value": []}, (("interrupt_2", 1, 0.5), ("node_b", 1, 0.5)),
          resume_value="ans", has_resume_value=True,
          then=(fork(next="interrupt_2", update={"value": ["mid_fork"]}),), kill_from=4),
    Shape("untracked_send", "test_pregel.py::test_send_with_untracked_value",
          {}, (("setup", 1, 0.5), ("tool_node", 1, 0.5))),
    # Held out, twenty-sixth round: added after the rules the twenty-fifth round led to.
    Shape("cached_task_interrupts", "test_pregel.py::test_multiple_interrupts_functional_cache",
          {}, (("graph", 1, 0.5), ("graph", 1, 1.5)),
          resume_value="a", has_resume_value=True, kill_from=4),
    # Held out, twenty-seventh round: added after the rules the twenty-sixth round led to.
    Shape("multiple_forks_same_checkpoint",
          "test_time_travel.py::test_multiple_forks_from_same_checkpoint",
          {"value": []}, (("node_b", 1, 0.5), ("node_c", 1, 0.5)),
          then=(fork(next="node_b", update={"value": ["fork1"]}),
                fork(next="node_b", update={"value": ["fork2"]})), kill_from=2),
    Shape("parent_command_stateful", "test_pregel.py::test_parent_command",
          {"value": []}, (("tool", 1, 0.5), ("greet", 1, 0.5)),
          then=({"value": []},), kill_from=1),
    # Held out, twenty-eighth round: added after the rules the twenty-seventh round led to.
    Shape("replay_before_interrupt",
          "test_time_travel.py::test_replay_from_before_interrupt_then_resume",
          {"value": []}, (("ask_human", 1, 0.5), ("node_b", 1, 0.5)),
          resume_value="new_answer", has_resume_value=True,
          then=(fork(next="ask_human"),), kill_from=3),
    # Held out, twenty-ninth round: added after the rules the twenty-eighth round led to.
    Shape("stateful_subgraph_replayed_tick",
          "test_time_travel.py::test_stateful_subgraph_loads_state_across_ticks",
          {"results": []}, (("node_b", 1, 0.5), ("sub_step", 1, 0.5)),
          then=({"results": []}, fork(next="node_a")), kill_from=2),
    # round 30
    Shape("parallel_stateful_subgraphs_replayed",
          "test_time_travel.py::test_parallel_subgraph_nodes_load_correct_state_on_replay",
          {"results": []}, (("parent_step", 1, 0.5), ("sub_b_step", 1, 1.5)),
          then=({"results": []}, fork(next="parent_step", newest=True)), kill_from=2),
    Shape("stateful_subgraph_loop_replayed",
          "test_time_travel.py::test_subgraph_called_in_loop_loads_state_on_replay",
          {"counter": 0, "results": []}, (("inc", 1, 0.5), ("sub_step", 1, 0.5)),
          then=({"counter": 0, "results": []}, fork(next="inc", newest=True)), kill_from=2),
    # round 31
    Shape("three_level_stateful_replayed",
          "test_time_travel.py::test_three_level_nested_subgraph_loads_state_on_replay",
          {"results": []}, (("mid_step", 1, 0.5), ("inner_step", 1, 0.5)),
          then=({"results": []}, fork(next="parent_step", newest=True), {"results": []}),
          kill_from=3),
    Shape("copy_fork_interrupt", "test_time_travel.py::test_copy_fork_retriggers_interrupt",
          {"value": []}, (("ask_human", 1, 0.5), ("node_b", 1, 0.5)),
          resume_value="new_answer", has_resume_value=True,
          then=(fork(next="ask_human", as_node="__copy__"),), kill_from=3),
    Shape("subgraphs_in_task_entrypoint",
          "test_pregel.py::test_multiple_subgraphs_mixed_entrypoint",
          [2, 3], (("add", 2, 0.5), ("multiply", 1, 0.5))),
    # round 32
    Shape("tasks_before_interrupts", "test_pregel.py::test_task_before_interrupt_resume",
          2, (("workflow", 1, 0.5), ("workflow", 1, 1.5)),
          resume_value="ans", has_resume_value=True, kill_from=2),
    # round 33
    Shape("interrupt_in_entrypoint_body", "test_pregel.py::test_interrupt_functional",
          {"a": ""}, (("graph", 1, 0.5), ("graph", 1, 1.5)),
          resume_value="bar", has_resume_value=True, kill_from=1),
    # round 34
    Shape("subgraph_checkpoint_replayed",
          "test_time_travel.py::test_subgraph_replay_from_subgraph_checkpoint",
          {"value": []}, (("step_b", 1, 0.5), ("post_process", 1, 0.5)),
          resume_value="replayed_answer", has_resume_value=True,
          then=(fork(ns="subgraph_node", next="ask_human"),), kill_from=3),
    Shape("three_level_middle_interrupts",
          "test_time_travel.py::test_3_levels_deep_middle_has_interrupts",
          {"value": []}, (("pre", 1, 0.5), ("step_a", 1, 0.5)),
          resume_value="an answer", has_resume_value=True,
          then=(fork(ns="outer", next="pre", update={"value": ["forked"]}),), kill_from=4),
    Shape("two_interrupts_replayed", "test_time_travel.py::test_multiple_interrupts_in_one_node",
          {"value": []}, (("ask", 1, 0.5), ("after", 1, 0.5)),
          resume_value="ans", has_resume_value=True, then=(fork(next="ask"),), kill_from=5),
    # round 35
    Shape("fork_as_due_node", "test_pregel.py::test_fork_does_not_apply_pending_writes",
          {"value": 1}, (("node_b", 1, 0.5), ("node_c", 1, 0.5)),
          then=(fork(next="node_a", update={"value": 20}, as_node="node_a"),), kill_from=1),
    Shape("supersteps_then_run", "test_pregel.py::test_supersteps_populate_task_results",
          state_update({}, as_node="__input__"), (("double", 1, 0.5), ("again", 1, 0.5)),
          then=(state_update({"num": 1, "text": "one"}, as_node="__start__"), None),
          kill_from=2),
    Shape("interrupt_beside_handler_async",
          "test_pregel_async.py::test_graph_error_handler_does_not_swallow_interrupt_concurrent",
          {"visited": []}, (("node_a", 1, 0.5), ("finish", 1, 0.5)),
          resume_value="yes", has_resume_value=True, kill_from=1, api="ainvoke"),
    # round 36
    Shape("inner_checkpoint_replayed",
          "test_time_travel.py::test_3_levels_deep_time_travel_to_second_interrupt",
          {"value": []}, (("ask_2", 1, 0.5), ("ask_2", 1, 1.5)),
          resume_value="an answer", has_resume_value=True,
          then=(fork(ns="outer|inner", next="ask_2"),), kill_from=4),
    Shape("explicit_head_resume",
          "test_time_travel.py::test_subgraph_interrupt_resume_with_explicit_head_checkpoint_id",
          {"value": []}, (("ask_human", 1, 0.5), ("step_b", 1, 0.5)),
          then=(fork(input=command(resume="answer")),), kill_from=1),
    Shape("subgraph_fork_no_checkpointer",
          "test_time_travel.py::test_subgraph_interrupt_full_flow_no_sub_checkpointer",
          {"value": []}, (("step_b", 1, 0.5), ("post_process", 1, 0.5)),
          resume_value="new_answer", has_resume_value=True,
          then=(fork(next="subgraph_node", update={"value": ["forked"]}),), kill_from=3),
    # round 37
    Shape("first_invocation_replayed",
          "test_time_travel.py::test_replay_from_first_invocation_checkpoint",
          {"results": []}, (("sub_step", 1, 0.5), ("sub_step", 1, 1.5)),
          then=({"results": []}, fork(next="sub_node")), kill_from=2),
    Shape("stateful_subgraph_forked_turns",
          "test_time_travel.py::test_stateful_subgraph_retains_state_on_parent_fork",
          {"results": []}, (("step_a", 1, 0.5), ("step_b", 1, 0.5)),
          resume_value="an answer", has_resume_value=True,
          then=({"results": []},
                fork(next="sub_node", newest=True, update={"results": ["forked"]})),
          kill_from=7),
    Shape("entrypoint_update_state", "test_pregel.py::test_entrypoint_stateful_update_state",
          state_update({"a": "-1"}), (("foo", 1, 0.5), ("foo", 1, 1.5)),
          then=({"a": "1"}, {"a": "2"}, {"a": "3"}, state_update({"a": "3"}), {"a": "1"}),
          kill_from=5),
    # round 38
    Shape("stateless_subgraph_parent_replay",
          "test_time_travel.py::test_stateless_subgraph_starts_fresh_on_parent_replay",
          {"results": []}, (("step_a", 1, 0.5), ("step_b", 1, 0.5)),
          resume_value="an answer", has_resume_value=True,
          then=({"results": []}, fork(next="sub_node", newest=True)), kill_from=7),
    Shape("middle_checkpoint_replayed",
          "test_time_travel.py::test_3_levels_deep_time_travel_to_middle_subgraph",
          {"value": []}, (("ask_2", 1, 0.5), ("ask_2", 1, 1.5)),
          resume_value="an answer", has_resume_value=True,
          then=(fork(ns="outer", next="inner", newest=True),), kill_from=4),
    Shape("interrupt_validation_loop", "test_pregel.py::test_interrupt_loop",
          {"visited": []}, (("node", 1, 0.5), ("node", 1, 1.5)),
          then=(command(resume="13"), command(resume="15"), command(resume="42")),
          kill_from=3),
    # round 39
    Shape("checkpoint_recovery_async", "test_pregel_async.py::test_checkpoint_recovery_async",
          {"steps": ["start"], "attempt": 1}, (("node1", 1, 0.5), ("node2", 1, 0.5)),
          then=({"steps": [], "attempt": 2},), kill_from=1, api="ainvoke"),
    Shape("fork_branch_in_subgraph", "test_time_travel.py::test_fork_creates_branch_in_subgraph",
          {"value": [], "sub_value": []}, (("sub_step", 1, 0.5), ("parent_end", 1, 0.5)),
          then=(fork(next="sub_graph", update={"value": ["extra"]}),), kill_from=1),
    # round 40
    Shape("waiting_edge_plus_regular",
          "test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_plus_regular",
          {"visited": []}, (("retriever_two", 1, 1.5), ("qa", 2, 0.5))),
    Shape("fork_interrupt_refires", "test_time_travel.py::test_fork_from_interrupt_checkpoint_refires",
          {"value": []}, (("ask_human", 1, 0.5), ("node_b", 1, 0.5)),
          then=(command(resume="hello"), fork(next="ask_human", update={"value": ["forked"]}),
                command(resume="different")),
          kill_from=3),
    Shape("subgraph_second_interrupt_travel",
          "test_time_travel.py::test_subgraph_time_travel_resume_from_second_interrupt",
          {"value": []}, (("ask_2", 1, 0.5), ("ask_2", 1, 1.5)),
          resume_value="an answer", has_resume_value=True,
          then=(fork(ns="executor", next="ask_2"),), kill_from=4),
    # round 41
    Shape("stateful_subgraph_interrupt_async",
          "test_subgraph_persistence_async.py::test_stateful_interrupt_resume_async",
          {"result": ""}, (("process", 1, 0.5), ("respond", 1, 0.5)), resume_value=True,
          has_resume_value=True, then=({"result": ""},), kill_from=3, api="ainvoke"),
    Shape("unsaved_subgraph_async",
          "test_subgraph_persistence_async.py::test_checkpointer_false_no_persistence_async",
          {"result": ""}, (("call_inner", 1, 0.5), ("call_inner", 1, 1.5)),
          then=({"result": ""},), kill_from=1, api="ainvoke"),
    # round 42
    Shape("replay_branch_in_subgraph", "test_time_travel.py::test_replay_creates_branch_in_subgraph",
          {"value": [], "sub_value": []}, (("sub_step", 1, 0.5), ("parent_end", 1, 0.5)),
          then=(fork(next="sub_graph"),), kill_from=1),
    Shape("stateful_subgraph_latest_after_replay",
          "test_time_travel.py::test_stateful_subgraph_loads_latest_after_replay",
          {"results": []}, (("parent_node", 1, 0.5), ("sub_step", 1, 0.5)),
          then=({"results": []}, fork(next="parent_node", newest=True), {"results": []}),
          kill_from=3),
    # round 43
    Shape("three_level_stateful_forked",
          "test_time_travel.py::test_three_level_nested_subgraph_loads_state_on_fork",
          {"results": []}, (("mid_step", 1, 0.5), ("inner_step", 1, 0.5)),
          then=({"results": []},
                fork(next="parent_step", newest=True, update={"results": ["forked"]})),
          kill_from=2),
    # round 44
    Shape("error_handlers_both_crash",
          "test_retry.py::test_error_handler_resumes_after_crash_multiple_nodes",
          {"results": []}, (("__error_handler__a", 1, 0.5), ("__error_handler__b", 1, 1.6)),
          then=(None,), kill_from=1),
    Shape("retry_then_error_handler",
          "test_retry.py::test_graph_error_handler_runs_after_retry_exhaustion",
          {"visited": []}, (("always_failing", 1, 1.5), ("after_handler", 1, 0.5))),
    Shape("subgraph_fork_from_before", "test_time_travel.py::test_subgraph_fork_from_before",
          {"value": []}, (("step_a", 1, 0.5), ("post_process", 1, 0.5)),
          then=(fork(next="subgraph", update={"value": ["forked"]}),), kill_from=1),
    Shape("join_loop_cond_edge",
          "test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge",
          {"query": "what is weather in sf"}, (("retriever_two", 2, 1.0), ("qa", 1, 0.5))),
    # round 45
    Shape("default_error_handler",
          "test_retry.py::test_set_node_defaults_error_handler_catches_all_nodes",
          {"route": "fail_a", "foo": []}, (("fail_b", 1, 1.5), ("report", 1, 0.5)),
          then=({"route": "fail_b", "foo": []},), kill_from=1),
    Shape("subgraph_first_interrupt_travel",
          "test_time_travel.py::test_subgraph_time_travel_to_first_interrupt",
          {"value": []}, (("ask_1", 1, 0.5), ("ask_2", 1, 1.0)),
          resume_value="an answer", has_resume_value=True,
          then=(fork(ns="executor", next="ask_1"),), kill_from=4),
    Shape("stateful_subgraph_replay_then_resume",
          "test_time_travel.py::test_subgraph_replay_loads_accumulated_state_then_resume",
          {"results": []}, (("step_a", 1, 0.5), ("parent_end", 1, 0.5)),
          resume_value="a", has_resume_value=True,
          then=({"results": []}, fork(next="sub_node", newest=True)), kill_from=5),
    Shape("error_handlers_per_node",
          "test_retry.py::test_node_error_handlers_route_to_matching_handler",
          {"route": "fail_a", "foo": []}, (("fail_b", 1, 0.5), ("__error_handler__fail_b", 1, 0.5)),
          then=({"route": "fail_b", "foo": []},), kill_from=1),
    # round 46
    Shape("three_level_first_interrupt_forked",
          "test_time_travel.py::test_3_levels_deep_time_travel_to_first_interrupt",
          {"value": []}, (("ask_1", 1, 0.5), ("ask_2", 1, 1.0)),
          resume_value="an answer", has_resume_value=True,
          then=(fork(ns="outer|inner", next="ask_1", update={"value": ["forked"]}),), kill_from=4),
    Shape("multiple_subgraphs_same", "test_pregel.py::test_multiple_subgraphs",
          {"a": 2, "b": 3}, (("call_same_subgraph", 1, 1.2), ("call_multiple_subgraphs", 1, 1.2))),
    # round 47
    Shape("pregel_retry_turns", "test_pregel.py::test_invoke_checkpoint_two",
          2, (("one", 1, 0.5), ("one", 1, 1.5)), then=(3, 7, 1), kill_from=1),
    Shape("drain_then_resume",
          "test_runtime.py::test_drain_with_exit_durability_persists_resume_checkpoint",
          {"visited": []}, (("second", 1, 0.5), ("third", 1, 0.5)), then=(None,), kill_from=1),
    Shape("drain_from_subgraph", "test_runtime.py::test_drain_from_subgraph_can_resume_parent",
          {"visited": []}, (("child_second", 1, 0.5), ("parent_second", 1, 0.5)),
          then=(None,), kill_from=1),
    Shape("timeout_then_retry", "test_retry.py::test_state_graph_add_node_timeout_composes_with_retry",
          {"visited": []}, (("flaky", 1, 2.5), ("finish", 1, 0.5)), api="ainvoke"),
    Shape("send_timeout_retry", "test_retry.py::test_send_timeout_overrides_target_node_timeout",
          {"visited": []}, (("work", 2, 2.5), ("reduce", 1, 0.5)), api="ainvoke"),
    # round 50
    Shape("overwrite_parallel", "test_pregel.py::test_overwrite_parallel",
          {"messages": ["START"]}, (("node_c", 1, 1.5), ("node_d", 1, 0.5))),
    Shape("sibling_error_cancels",
          "test_pregel_async.py::test_node_cancellation_on_other_node_exception_two",
          {"hello": "world", "visited": []}, (("agent", 1, 1.5), ("finish", 1, 0.5)),
          then=(None,), kill_from=1, api="ainvoke"),
    Shape("falsy_task_interrupt", "test_pregel.py::test_falsy_return_from_task",
          {"a": 5}, (("notify", 1, 0.5), ("finish", 1, 0.5)),
          resume_value="yes", has_resume_value=True, kill_from=1),
    Shape("entrypoint_final_save", "test_pregel.py::test_entrypoint_with_return_and_save",
          "hello", (("greet", 1, 0.5), ("log_msg", 1, 0.5)),
          then=("goodbye", "definitely"), kill_from=2),
    Shape("subgraph_breakpoint_state", "test_large_cases.py::test_nested_graph_state",
          {"my_key": "my value"}, (("inner_2", 1, 0.5), ("outer_2", 1, 0.5)),
          then=(None,), kill_from=1),
    # round 51
    Shape("multiple_updates_commands", "test_pregel.py::test_multiple_updates",
          {"foo": ""}, (("slow", 1, 1.5), ("node_b", 1, 0.5))),
    Shape("list_edge_to_end", "test_pregel.py::test_conditional_state_graph_with_list_edge_inputs",
          {"visited": []}, (("B", 1, 1.5), ("A", 1, 0.5)), then=({"visited": []},), kill_from=1),
    Shape("repeat_condition_route", "test_pregel.py::test_repeat_condition",
          {"visited": []}, (("Call Tool", 2, 0.5), ("Chart Generator", 2, 0.5))),
    Shape("state_graph_packets", "test_large_cases.py::test_state_graph_packets",
          {"calls": [], "results": []}, (("tools", 2, 1.0), ("agent", 1, 0.5)),
          then=(None, None, None), kill_from=2),
    # round 52
    Shape("max_concurrency_sends", "test_pregel_async.py::test_max_concurrency_control",
          [], (("work_item", 3, 0.5), ("collect", 1, 0.5)), api="ainvoke"),
    Shape("imp_sync_from_async", "test_pregel_async.py::test_imp_sync_from_async",
          {"a": "0"}, (("bar", 1, 0.5), ("baz", 1, 0.5)), api="ainvoke"),
    Shape("subgraph_command_to_end", "test_large_cases.py::test_subgraph_to_end_does_not_warn",
          {"x": "hello", "visited": []}, (("update_x", 1, 0.5), ("report", 1, 0.5))),
    # round 53
    Shape("cancelled_invocation_resumed",
          "test_pregel_async.py::test_checkpoint_put_after_cancellation",
          {"visited": []}, (("agent", 1, 0.5), ("finish", 1, 0.5)),
          then=(None,), kill_from=1, api="ainvoke"),
    Shape("user_cancelled_branch", "test_retry.py::test_pregel_user_raised_cancellederror_fails_run",
          {"visited": []}, (("finish", 1, 0.25), ("finish", 1, 0.75)),
          then=(None,), api="ainvoke"),
    Shape("same_channel_writes",
          "test_pregel.py::test_multiple_writes_same_channel_from_same_node",
          {"foo": "input", "visited": []}, (("one", 1, 0.5), ("two", 1, 0.5))),
    # round 54
    Shape("root_messages_remove", "test_pregel.py::test_remove_message_from_node",
          [{"role": "user", "content": "Hi"}], (("chatbot", 1, 0.5), ("delete_messages", 1, 0.5))),
    Shape("dataclass_command_update", "test_pregel.py::test_command_pydantic_dataclass",
          {"foo": ""}, (("node_a", 1, 0.5), ("node_b", 1, 0.5))),
    # round 55
    Shape("private_channel_router", "test_state.py::test_private_input_schema_conditional_edge",
          {"foo": 0}, (("node_1", 1, 0.5), ("node_2", 1, 0.5))),
    Shape("replay_final_noop", "test_time_travel.py::test_replay_from_final_checkpoint_is_noop",
          {"visited": []}, (("node_a", 1, 0.5), ("node_b", 1, 0.5)),
          then=(fork(), {"visited": []}), kill_from=2),
    Shape("conditional_entry_map", "test_pregel.py::test_conditional_entrypoint_graph_state",
          {"input": "what is weather in sf"}, (("left", 1, 0.5), ("left", 1, 1.5)),
          then=({"input": "hi"},), kill_from=1),
    # round 56
    Shape("replays_refire_interrupt",
          "test_time_travel.py::test_replay_interrupt_stable_across_replays",
          {"value": []}, (("ask_human", 1, 0.5), ("node_b", 1, 0.5)),
          then=(command(resume="cached_answer"), *(fork(next="ask_human"),) * 3,
                command(resume="final_answer")),
          kill_from=5),
    Shape("pushed_messages", "test_messages_state.py::test_push_messages_in_graph",
          {"messages": []}, (("chat", 1, 0.75), ("finish", 1, 0.5))),
    # round 57
    Shape("drain_then_cancel", "test_runtime.py::test_drain_then_cancel_after_graceful_timeout",
          {"visited": []}, (("first", 1, 0.5), ("third", 1, 0.5)),
          then=(None,), kill_from=1, api="ainvoke"),
    # round 58
    Shape("stateful_subgraph_replayed_turns",
          "test_time_travel.py::test_stateful_subgraph_retains_state_on_parent_replay",
          {"results": []}, (("step_a", 1, 0.5), ("step_b", 1, 0.5)),
          resume_value="an answer", has_resume_value=True,
          then=({"results": []}, fork(next="sub_node", newest=True)), kill_from=7),
    Shape("remove_all_messages", "test_messages_state.py::test_remove_all_messages",
          {"messages": [{"role": "user", "content": "Hello"}]}, (("reset", 1, 0.5), ("reply", 1, 0.5)),
          then=({"messages": [{"role": "user", "content": "again"}]},), kill_from=1),
    # round 59
    Shape("overwrite_parallel_error", "test_pregel.py::test_overwrite_parallel_error",
          {"messages": ["START"]}, (("node_a", 1, 0.5), ("node_c", 1, 1.0)),
          then=({"messages": ["again"], "fixed": True},), kill_from=1),
    Shape("fork_update_task_result", "test_pregel.py::test_fork_and_update_task_results",
          {"name": "start"}, (("two", 1, 0.5), ("three", 1, 0.5)),
          then=(None, fork(next="one", update=[[{"name": "one*"}, "one"]], as_node="__copy__")),
          kill_from=2),
    Shape("copy_update_latest", "test_pregel.py::test_fork_and_update_task_results",
          {"name": "start"}, (("two", 1, 0.5), ("three", 1, 0.5)),
          then=(fork(update=[[{"name": "one*"}, "one"]], as_node="__copy__"),), kill_from=1),
    # round 60
    Shape("last_value_conflict",
          "test_pregel.py::test_invoke_two_processes_two_in_two_out_invalid",
          {"hello": "there"}, (("one", 1, 0.5), ("report", 1, 0.5)),
          then=({"hello": "again", "fixed": True},), kill_from=1),
    # round 61
    Shape("cancelled_sync_node", "test_runtime.py::test_cancel_ainvoke_with_sync_node",
          {"visited": []}, (("first", 1, 0.5), ("second", 1, 0.5)),
          then=(None,), kill_from=1, api="ainvoke"),
    # round 62
    Shape("subgraph_noop_replay_then_input",
          "test_time_travel.py::test_subgraph_time_travel_after_completion",
          {"value": []}, (("step_a", 1, 0.5), ("ask_1", 1, 0.5)),
          resume_value="an answer", has_resume_value=True,
          then=(fork(), {"value": []}), kill_from=4),
    # round 63
    Shape("update_none_refires_interrupt",
          "test_time_travel.py::test_update_state_with_none_values",
          {"value": []}, (("ask_human", 1, 0.5), ("node_b", 1, 0.5)),
          resume_value="hello", has_resume_value=True,
          then=(fork(next="ask_human", as_node="node_a"),), kill_from=3),
    # round 64
    Shape("entrypoint_timeout", "test_retry.py::test_entrypoint_timeout_e2e",
          {"text": "hello"}, (("workflow", 1, 0.5), ("store", 1, 0.5)),
          then=(None,), kill_from=1, api="ainvoke"),
    # round 65
    Shape("fork_refires_interrupt", "test_time_travel.py::test_fork_from_before_interrupt_refires",
          {"value": []}, (("ask_human", 1, 0.5), ("node_b", 1, 0.5)),
          resume_value="hello", has_resume_value=True,
          then=(fork(next="ask_human", update={"value": ["forked"]}),), kill_from=3),
    # round 66
    Shape("delta_time_travel_input", "test_pregel.py::test_delta_channel_time_travel",
          {"messages": [{"role": "user", "content": "h1", "id": "h1"}]},
          (("respond", 1, 0.5), ("remember", 1, 0.5)),
          then=({"messages": [{"role": "user", "content": "h2", "id": "h2"}]},
                fork(next=END,
                     input={"messages": [{"role": "user", "content": "h3", "id": "h3"}]})),
          kill_from=2),
    # round 67
    Shape("batch_update_sends", "test_pregel.py::test_batch_update_as_input",
          state_update({"foo": "input"}, as_node="__input__"),
          (("task", 1, 0.5), ("task", 1, 1.5)),
          then=(state_update({"foo": "input"}, as_node="__start__"),
                state_update({"foo": "agent", "tasks": []}, as_node="agent"),
                state_update(command(goto=[send("task", {"index": i}) for i in range(3)],
                                     update={"foo": "map"}), as_node="map"),
                None),
          kill_from=4),
    # round 68
    Shape("handler_breakpoint",
          "test_retry.py::test_graph_error_handler_error_context_survives_checkpoint_resume",
          {"visited": []}, (("charge", 1, 1.5), ("notify", 1, 0.5))),
    # round 69
    Shape("delta_async_turns", "test_pregel.py::test_delta_channel_async_write_ordering",
          {"messages": [{"role": "user", "content": "h0", "id": "h0"}]},
          (("respond", 1, 0.5), ("remember", 1, 0.5)),
          then=({"messages": [{"role": "user", "content": "h1", "id": "h1"}]},
                {"messages": [{"role": "user", "content": "h2", "id": "h2"}]}),
          kill_from=2, api="ainvoke"),
)  # fmt: skip
"""One hundred and eighty-seven shapes (the last one hundred and seventy-one in sixty-nine
rounds, all held out but copy_update_latest); every kill point is a node start the child
announces, plus a delay that lands half a sleep unit or more away from any other task's
start or end (a kill between the three appends of one line would leave the three logs one
line apart)."""

SHAPES: dict[str, Shape] = {s.name: s for s in CORPUS}
