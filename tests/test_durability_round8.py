"""The what-if on the eighth held-out round: a ReAct tool that pauses beside a plain one, an
entrypoint that catches a failed `@task` call, and an entrypoint that asks three times.

Each test judges the model against real SIGKILLs and real resumes recorded in
`tests/whatif_kills/` (`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them
again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, judged, load, predict, real

from replaylens.killtest.validate import measure_detail

FULL = ("recorder", "langgraph")


def test_the_answered_tool_is_the_one_that_runs_again(tmp_path: Path) -> None:
    """react_agent_tool_interrupt, killed while the answered tool refunded: the plain tool
    beside it finished in the first process with its writes saved, so the answered run's
    lines are the paused tool's, even in a bare log that names no task (a resume never
    runs a task again whose writes were saved by another process)."""
    runs = load("react_agent_tool_interrupt-early-0s", tmp_path)
    assert real(runs["sync"]) == (3, 1, 5)
    checks = judged("react_agent_tool_interrupt-early-0s", tmp_path)
    assert {c.mode for c in checks} == {"sync", "async", "exit"}
    assert [w for c in checks for w in c.wrong] == []
    every_prediction_holds(runs)


def test_a_new_call_is_not_a_repeat_of_a_finished_one(tmp_path: Path) -> None:
    """imp_exception, killed in the call that raises: the resume calls it again under its
    own id, then makes `my_task(2)`, a call the killed run never reached, under a new id.
    The measurement counts 1 task again, not `my_task(1)` as repeated by `my_task(2)`, and
    every prediction holds it."""
    runs = load("imp_exception-early-0s", tmp_path)
    again = measure_detail(runs["sync"])[1] or set()
    assert {key[0][1] for key in again} == {"task_with_exception"}
    assert real(runs["sync"]) == (1, 1, 1) and real(runs["exit"]) == (0, 2, 3)
    every_prediction_holds(runs)


def test_a_caught_call_failure_ends_no_invocation(tmp_path: Path) -> None:
    """imp_exception, killed in `report`: `task_with_exception` failed and the entrypoint
    caught it and went on in the same process, so the thread had one invocation, killed:
    under exit nothing was saved and the resume starts over (4 tasks, 7 lines), not a
    raise that exit would have saved."""
    runs = load("imp_exception-late-0s", tmp_path)
    assert real(runs["exit"]) == (0, 4, 7)
    every_prediction_holds(runs, FULL)
    exit_ = predict(runs["sync"])["exit"]
    assert exit_.checkpoints_kept == 0 and len(exit_.reruns) == 4


def test_each_answer_to_an_entrypoint_is_a_resume(tmp_path: Path) -> None:
    """multiple_interrupts_functional, killed in `double(3)` after the second answer: each
    answer re-runs the same entrypoint task (its calls log the same caller namespace; a bare
    log has the database's one input checkpoint), so no answer adds checkpoints: 1 kept in
    every mode."""
    runs = load("multiple_interrupts_functional-early-0s", tmp_path)
    assert {m: real(r)[0] for m, r in runs.items()} == {"sync": 1, "async": 1, "exit": 1}
    every_prediction_holds(runs)


def test_an_entrypoint_that_paused_in_its_own_body_put_nothing(tmp_path: Path) -> None:
    """The same shape killed after the third answer, before any line: the last logged run
    paused in the entrypoint's own body (``interrupt()`` between calls, nothing logged), so
    its step 0 never completed and put nothing; every mode keeps the one input checkpoint
    and nothing happens again."""
    runs = load("multiple_interrupts_functional-late-0s", tmp_path)
    assert {m: real(r) for m, r in runs.items()} == {m: (1, 0, 0) for m in runs}
    every_prediction_holds(runs)


def test_a_graph_whose_parent_step_never_landed_runs_again(tmp_path: Path) -> None:
    """multiple_subgraphs_mixed_state_graph on a 0.25 s store, async, killed in the second
    `add` its node invoked: the root's step-0 checkpoint (the one naming that node's task)
    had not landed, so the resume starts from the input checkpoint, the node runs under a new
    task id and the first `add`'s call runs again with it, though its own graph's checkpoint
    was saved. Every line of every run gets that verdict from the full logs."""
    runs = load("multiple_subgraphs_mixed_state_graph-early-0.25s", tmp_path)
    assert real(runs["async"])[1:] == (1, 2)  # the first add_task call, its start and end
    checks = judged("multiple_subgraphs_mixed_state_graph-early-0.25s", tmp_path, FULL)
    assert {c.mode for c in checks} == {"sync", "async", "exit"} and all(c.lines for c in checks)
    assert [w for c in checks for w in c.wrong] == []


def test_an_entrypoint_a_node_invoked_is_held_by_that_nodes_step(tmp_path: Path) -> None:
    """The `@entrypoint` a node invokes logs nothing of its own: its `@task` call's lines are
    moved into the entrypoint's loop, which no run then held. Without a parent step the
    model neither saved the root's `__start__` step nor knew where the graph's work sat: from
    the async recording sync kept 2 and re-ran add_task (1 task, 2 lines) where 3, 0 and 0
    were measured (its writes were saved); from exit, with the node invoking it twice, sync
    kept 5 where 7 were. The loop the calls make is a run of its own, held by the node's
    step."""
    early = load("multiple_subgraphs_mixed_state_graph-early-0.25s", tmp_path)
    assert real(early["sync"]) == (3, 0, 0)
    for form in ("recorder", "langgraph"):
        assert figures(predict(early["async"], form)["sync"]) == real(early["sync"], form)
    late = load("multiple_subgraphs_mixed_state_graph-late-0.25s", tmp_path)
    assert figures(predict(late["exit"])["sync"]) == real(late["sync"])
