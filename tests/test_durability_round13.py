"""The what-if on the thirteenth held-out round: graphs a node invokes in its body (one
after another, and a stateful one across invocations) and a run from an earlier checkpoint
(LangGraph's time travel).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_the_second_graph_a_node_invokes_keeps_its_task_running(tmp_path: Path) -> None:
    """parent_command_nested, killed in child_1's node: parent_first logged its line, then
    invoked child_0 and child_1 (``parent_first:<id>`` and ``parent_first:<id>|1``). Its task
    was still running, so a resume runs it again with child_1's node (2 tasks, 3 lines) while
    child_0 returns its saved result; under exit nothing was saved and all three run (3, 5).
    From the exit recording, with no checkpoint to tell, the model must hold both graphs
    under parent_first's one step and keep that step open; from a bare log, the second
    `node` start is child_1's (the database has it due there), not child_0's task going on."""
    runs = load("parent_command_nested-early-0s", tmp_path)
    assert real(runs["sync"]) == (7, 2, 3) and real(runs["exit"]) == (0, 3, 5)
    # (an exit database holds nothing: a bare log alone reads the two `node` starts of one
    # process as one task going on, docs/validation.md)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    assert figures(predict(runs["exit"])["sync"]) == (7, 2, 3)
    assert figures(predict(runs["sync"], "bare")["async"]) == (7, 2, 3)
    assert {r["node"] for r in predict(runs["exit"])["sync"].reruns} == {"parent_first", "node"}


def test_a_stateful_graph_invoked_in_a_node_saves_at_every_invocation_under_exit(
    tmp_path: Path,
) -> None:
    """stateful_subgraph_interrupt: call_inner invokes a `checkpointer=True` graph whose only
    node is a graph that pauses before its first line, twice (input, answer, input, answer),
    killed in the second answer. Under exit each loop on the way up from a pause saved on its
    way out, and the stateful one also when its run returned: 8 checkpoints (3 + 2 + 3); the
    sync and async databases say so with no line of the stateful loop's own, and a bare log
    must not read the second input's call_inner as the first answer's task paused again (its
    input checkpoint tells: a fresh input drops a pause)."""
    runs = load("stateful_subgraph_interrupt-early-0s", tmp_path)
    assert real(runs["exit"]) == (8, 2, 5) and real(runs["sync"]) == (16, 2, 5)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    assert figures(predict(runs["sync"])["exit"]) == (8, 2, 5)
    assert figures(predict(runs["sync"], "bare")["exit"]) == (8, 2, 5)
    assert figures(predict(runs["exit"])["sync"]) == (16, 2, 5)


def test_a_run_from_an_earlier_checkpoint_goes_on_along_its_branch(tmp_path: Path) -> None:
    """fork_replay on a 0.25 s store: after six rounds of add_one the thread was run again
    from the checkpoint four back, and killed in the third add_one of that branch. The
    branch began with a copy of that checkpoint (source ``fork``), saved by the loop like an
    input checkpoint, so not an edit kept in every mode; a resume goes on from the newest
    branch, never re-running the rounds of the first run whose steps it went back over,
    and under async the second round's writes, saved against the checkpoint the resume
    loads, are reused (1 task again). Exit would have lost the branch whole, so its repeats
    are not ordered against the other modes'."""
    runs = load("fork_replay-late-0.25s", tmp_path)
    assert real(runs["sync"]) == (10, 1, 1) and real(runs["async"]) == (9, 1, 1)
    every_prediction_holds(runs)
    from_sync = predict(runs["sync"])
    assert figures(from_sync["async"]) == (9, 1, 1)
    assert figures(from_sync["exit"]) == (1, 0, 0)
    assert "never run that branch's tasks" in from_sync["exit"].sentence
    assert from_sync["exit"].lost_branch and not from_sync["async"].lost_branch
    assert "branch" not in from_sync["async"].sentence  # the copy landed under async
    assert figures(predict(runs["async"], "bare")["sync"]) == (10, 1, 1)


def test_a_mode_that_loses_a_branch_is_never_shown_in_green(tmp_path: Path) -> None:
    """Nothing repeats under exit for fork_replay's kill, but only because the run from the
    earlier checkpoint would have been lost whole: the box the pages draw for that mode is
    a warning, not the reassuring green of "nothing happens again"."""
    from whatif_kills import plan as plan_of

    from replaylens.analysis.again import outcome_tone

    entry = load("fork_replay-late-0.25s", tmp_path)["sync"]
    plan = plan_of(entry)  # the recorder's log, told the manifest's mode and kill moment
    assert figures(plan.what_if["exit"]) == (1, 0, 0)
    assert outcome_tone(plan, "exit") == "warning"


def test_a_node_the_database_shows_in_two_graph_calls_of_one_task_is_theirs(
    tmp_path: Path,
) -> None:
    """multiple_subgraphs_mixed_state_graph (round 8) on a 0.25 s store, killed in `finish`:
    call_same_subgraph invoked one subgraph twice (``call_same_subgraph:<id>`` and
    ``...|1``), so the database names its nodes in two loops. A bare log names nodes only:
    they are the subgraph's (the first call's loop), not root tasks of their own, and under
    async the kill kept 6 checkpoints, of which the sync recording must not count the
    subgraph's puts as the root's."""
    runs = load("multiple_subgraphs_mixed_state_graph-late-0.25s", tmp_path)
    assert real(runs["async"]) == (6, 1, 1)
    assert figures(predict(runs["sync"], "bare")["async"]) == (6, 1, 1)
