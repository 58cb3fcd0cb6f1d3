"""Every invocation of a thread, as the durability model reads it from real runs.

Real graphs of the validation corpus (modelled on LangGraph's tests, see
`examples/langgraph_tests.py`) run by real LangGraph on a real SQLite checkpointer,
each effect logged in the three forms users write. No kill here (the kills are in
`replaylens validate --corpus langgraph-tests`); what is checked is how the evidence is
split into invocations, how each began and ended, and what `RetryPolicy` retries are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaylens.analysis.durability import MODES, Recording, what_if
from replaylens.analysis.durability.evidence import gather
from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread
from replaylens.effects.parse import read_effects
from replaylens.examples.langgraph_tests import LOG_FORMS, SHAPES, form_log
from replaylens.killtest.harness import scoped_environ
from replaylens.sources import open_source


def _run(tmp_path: Path, name: str, durability: str) -> tuple[Path, Path, str]:
    """Run one corpus shape to its end as a user would (raise, answer, second input), on a
    thread of its own (the flaky node counts its failures per thread)."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.types import Command

    from replaylens.killtest.harness import build_graph, load_target

    shape = SHAPES[name]
    db, log = tmp_path / f"{name}-{durability}.db", tmp_path / f"{name}-{durability}.jsonl"
    with (
        scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0.05"),
        SqliteSaver.from_conn_string(str(db)) as saver,
    ):
        graph = build_graph(load_target(shape.graph), saver)
        thread_id = f"{name}-{tmp_path.name}"
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id}}
        try:
            graph.invoke(shape.input, config, durability=durability)
        except RuntimeError:
            assert shape.then, name  # only the recovery shape raises on its first input
        for nxt in shape.then:
            graph.invoke(nxt, config, durability=durability)
        if shape.has_resume_value:
            graph.invoke(Command(resume=shape.resume_value), config, durability=durability)
    return db, log, thread_id


def _evidence(db: Path, log: Path, name: str, form: str) -> tuple[Any, Any, Any]:
    source = open_source(db)
    try:
        thread = load_thread(source, name)
    finally:
        source.close()
    plan = plan_resume(thread, read_effects(form_log(log, form)), name, latency=0.25)
    ev = gather(thread, plan.attempts, plan.status, Recording())
    return thread, plan, ev


@pytest.mark.parametrize("form", LOG_FORMS)
def test_retry_policy_retries_are_one_task_in_one_step(tmp_path: Path, form: str) -> None:
    """`RetryPolicy(max_attempts=3)`, two failures then success, in one process: one
    invocation that returned, the two failed attempts retried in their step, nothing again
    in any mode (the issue: 0 of 32 right, the failures taken for invocations that raised)."""
    db, log, tid = _run(tmp_path, "retry_policy", "sync")
    _thread, plan, ev = _evidence(db, log, tid, form)
    failed = [a for a in plan.attempts if a.outcome == "failed"]
    assert len(failed) == 2
    assert ev.invocations == 1 and ev.ending == "returned"
    assert {id(a) for a in failed} == ev.retried
    retried_steps = {ev.step_of[id(a)][2] for a in plan.attempts if a.node == "failing_node"}
    assert len(retried_steps) == 1  # the three attempts are one superstep
    for mode in MODES:
        o = plan.what_if[mode]
        assert o.reruns == [] and o.replayed_lines == [], (form, mode)


@pytest.mark.parametrize("form", LOG_FORMS)
def test_raise_then_a_second_input_are_two_invocations(tmp_path: Path, form: str) -> None:
    """`test_checkpoint_recovery`: node1 raises in the first invocation, a second input on
    the same thread runs it again. Two invocations, the first raised, the second a fresh
    input that returned; under exit the first saved its last checkpoint when it raised."""
    db, log, tid = _run(tmp_path, "checkpoint_recovery", "exit")
    thread, plan, ev = _evidence(db, log, tid, form)
    assert ev.invocations == 2
    assert ev.endings == ["raised", "returned"]
    assert ev.kinds == ["input", "input"]
    # exit: one checkpoint per invocation that ended (the raise and the return)
    assert thread.root is not None and len(thread.root.checkpoints) == 2
    outcomes, _crash = what_if(thread, plan.attempts, 0.25, status=plan.status)
    assert outcomes["exit"].checkpoints_kept == 2


@pytest.mark.parametrize("form", LOG_FORMS)
def test_interrupt_then_resume_is_a_resume(tmp_path: Path, form: str) -> None:
    """`test_dynamic_interrupt`: the node pauses at `interrupt()` before it logs anything,
    `Command(resume=...)` answers it. The second invocation is a resume of the paused step,
    not a fresh input: no input checkpoint and no `__start__` step of its own."""
    db, log, tid = _run(tmp_path, "dynamic_interrupt", "sync")
    _thread, plan, ev = _evidence(db, log, tid, form)
    assert ev.invocations == 2
    assert ev.kinds == ["input", "resume"]
    assert ev.endings[-1] == "returned"
    steps = sorted({ev.step_of[id(a)][2] for a in plan.attempts if a.node != "tool_one"})
    first = min(ev.step_of[id(a)][2] for a in plan.attempts if a.node == "tool_one")
    assert steps[0] == first + 1, (form, steps, first)
