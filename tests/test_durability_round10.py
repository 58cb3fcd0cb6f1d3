"""The what-if on the tenth held-out round (async graphs run by ``graph.ainvoke``) and on the
1 s store the held-out shapes were killed on again.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, holds, load, plan, predict, real


def test_a_parent_step_is_saved_after_the_subgraph_it_ran(tmp_path: Path) -> None:
    """subgraph_parallel on a 1 s store, killed 0.2 s into outer_2: under async the subgraph
    beside outer_1 saved four checkpoints one after another (1 s each) and its executor waited
    for the last before the parent's task returned; only then was the parent's step put, and
    the kill came 0.2 s into its 1 s. Six checkpoints were kept, not seven; the sync recording
    (each put waited for) must say so though the log puts both puts at one moment."""
    runs = load("subgraph_parallel-late-1s", tmp_path)
    assert real(runs["async"])[0] == 6 and real(runs["sync"])[0] == 7
    every_prediction_holds(runs)
    assert predict(runs["sync"])["async"].checkpoints_kept == 6


def test_a_cancelled_task_call_runs_again_and_an_exit_save_is_no_input(tmp_path: Path) -> None:
    """imp_task_cancel (an async entrypoint) killed in `publish` after the answer: the call its
    entrypoint cancelled saved an error (CancelledError), which LangGraph never restores on a
    resume, so under sync the resume runs it again with `publish`: 2 tasks, 5 lines, as under
    exit. The exit recording's one checkpoint, stamped as its first invocation paused, lies
    between the two invocations but is that invocation's save, not a second input's: the
    second is the answer (a resume)."""
    runs = load("imp_task_cancel-late-0s", tmp_path)
    assert real(runs["sync"]) == real(runs["exit"]) == (1, 2, 5)
    every_prediction_holds(runs)
    sync_ = predict(runs["exit"])["sync"]
    assert (sync_.checkpoints_kept, len(sync_.reruns)) == (1, 2)
    assert {r["node"] for r in sync_.reruns} == {"mapper", "publish"}


def test_an_input_checkpoint_tells_a_fresh_input_and_exit_keeps_both_readings(
    tmp_path: Path,
) -> None:
    """node_cancellation_async killed in `agent` of the second input (the first raised: `bad`
    failed and the async loop cancelled `agent`). A bare log names nodes only, and the second
    invocation's tasks are the same nodes the first left unfinished; the sync database holds
    the input checkpoint taken just before them, so it was a fresh input, which exit loses
    whole: its resume runs the first input's two tasks again (2 tasks, 4 lines). The exit
    database keeps no such checkpoint: from it the bare log cannot tell, and the prediction
    is the range over both readings, its attempts flagged as a guess."""
    runs = load("node_cancellation_async-early-0s", tmp_path)
    assert real(runs["exit"]) == (1, 2, 4) and real(runs["sync"]) == (4, 1, 1)
    every_prediction_holds(runs)
    from_sync = predict(runs["sync"], "bare")["exit"]
    assert (from_sync.checkpoints_kept, len(from_sync.reruns), len(from_sync.replayed_lines)) == (
        1,
        2,
        4,
    )
    from_exit = predict(runs["exit"], "bare")["sync"]
    assert from_exit.race["checkpoints_kept"][0] <= 4 <= from_exit.race["checkpoints_kept"][1]
    assert "fresh input" in from_exit.race["note"]


def test_a_command_sent_at_a_breakpoint_is_lost_with_the_killed_resume(tmp_path: Path) -> None:
    """command_goto_breakpoint (round 11) killed in node1 after the `Command(goto=["node2"])`
    that answered the breakpoint before node1: the first invocation logged nothing (it stopped
    before any node ran), yet under exit it saved the checkpoint the resume went on from (1
    kept). The Command's goto made node2 due beside node1; under sync its write hangs off
    that checkpoint and a resume runs both (2 tasks), under exit it was lost with the killed
    invocation and only node1 runs again (1 task, 1 line): the model says so from every
    recording, and the exit verdict keeps node2's line."""
    runs = load("command_goto_breakpoint-early-0.25s", tmp_path)
    assert real(runs["exit"]) == (1, 1, 1) and real(runs["sync"]) == (2, 2, 2)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    exit_ = predict(runs["sync"])["exit"]
    assert [r["node"] for r in exit_.reruns] == ["node1"]


def test_a_turn_written_by_update_state_is_kept_in_every_mode(tmp_path: Path) -> None:
    """update_as_input (round 11): a first input ran agent and tool, four update_state calls
    wrote a second turn (as __input__, __start__, agent, tool: the first of them an input
    checkpoint no invocation made), and a third input was killed in agent on a 0.25 s store.
    Under exit the third input is lost whole and the resume has nothing to run (5 kept: the
    first turn's save and the four edits); under async its input checkpoint had not landed
    either (8 kept, nothing again); under sync it had (10 kept, agent again)."""
    runs = load("update_as_input-early-0.25s", tmp_path)
    assert real(runs["exit"]) == (5, 0, 0) and real(runs["async"]) == (8, 0, 0)
    every_prediction_holds(runs)


def test_a_kill_the_log_only_bounds_may_come_after_every_put_landed(tmp_path: Path) -> None:
    """waiting_edge_via_branch (round 11) on a 0.25 s store, killed 0.6 s into retriever_two,
    0.4 s after the log's last line. With nothing telling the kill moment, it may have come
    any time after that line, up to when every put submitted before it had landed (the task
    in flight ran on far longer than any finished one took): the async range reaches the 3
    checkpoints the real async run kept, where the kill taken within a finished task's length
    of the last line would keep 1 or 2."""
    runs = load("waiting_edge_via_branch-early-0.25s", tmp_path)
    assert real(runs["async"]) == (3, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    async_ = predict(runs["sync"], given=False)["async"]
    assert async_.race["checkpoints_kept"] == [1, 3]


def test_a_breakpoint_two_subgraphs_down_pauses_and_saves_every_loop(tmp_path: Path) -> None:
    """doubly_nested_interrupts (round 12): a static breakpoint in a grandchild graph pauses
    the thread; the pause raises through the child and the root, and under exit each of the
    three loops saved its last checkpoint on the way out (3 kept). Killed in grandchild_2
    after `invoke(None)`, every mode runs grandchild_2 again: the grandchild's task is held
    by the child's step, which is compared with where the child (not the root) resumes."""
    runs = load("doubly_nested_interrupts-early-0.25s", tmp_path)
    assert real(runs["exit"]) == (3, 1, 1) and real(runs["sync"]) == (8, 1, 1)
    every_prediction_holds(runs)


def test_the_late_kill_holds_when_no_finished_task_was_long(tmp_path: Path) -> None:
    """recursion_limit_retry (round 12): the first input hit the recursion limit with 20 ms
    tasks, the second was killed 0.2 s into tools on a 0.25 s store. Without a manifest the kill
    moment is bounded by the log alone, however short the finished tasks were: the async range
    reaches the 29 checkpoints the real async run kept (every put submitted before the last
    line landed)."""
    runs = load("recursion_limit_retry-early-0.25s", tmp_path)
    assert real(runs["async"]) == (29, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    span = predict(runs["sync"], given=False)["async"].race["checkpoints_kept"]
    assert span[0] < 29 <= span[1]


def test_a_loops_node_is_not_the_task_due_at_a_checkpoint_saved_after_it_ran_again(
    tmp_path: Path,
) -> None:
    """recursion_limit_retry from the exit recording, a bare log: the database holds one
    checkpoint of the first input, saved as it raised, with ``tools`` due again. The first
    ``tools`` (step 2) was matched to that task by time and filed at step 26, and every task
    after it 24 steps late: sync was predicted to keep 50 where the real run kept 30. Twelve
    later ``tools`` started before that checkpoint was saved; the due task is the last's."""
    runs = load("recursion_limit_retry-early-0.25s", tmp_path)
    assert real(runs["sync"], "bare") == (30, 1, 1)
    attempts = sorted(plan(runs["exit"], "bare").attempts, key=lambda a: a.start_ts)
    assert attempts[1].node == "tools" and attempts[1].task is None
    # nor the last `tools` of that input: `agent` ran after it, before the checkpoint was
    # made (`align._ran_before_step`); the resume did not run it again
    first_run = [a for a in attempts if a.pid == attempts[0].pid]
    last_tools = [a for a in first_run if a.node == "tools"][-1]
    assert last_tools.task is None and last_tools.verdict == "kept", last_tools.reason
    for given in (True, False):
        # (a fresh input or a resume, the bare log cannot tell: the range holds both)
        outcome = predict(runs["exit"], "bare", given)["sync"]
        assert holds(outcome, (30, 1, 1)) and outcome.race["checkpoints_kept"][1] < 50


def test_a_subgraph_that_logs_nothing_is_held_by_its_parents_step(tmp_path: Path) -> None:
    """doubly_nested_interrupts killed in parent_2 after the resume: the child graph has no
    line of its own (its only node is the grandchild graph), and in the resumed invocation
    the root logged nothing before parent_2. The root step that ran the child still ended
    when the grandchild did, and under sync its put landed before parent_2 began (11 kept);
    from the async recording, where it had not landed yet, the model must still count it."""
    runs = load("doubly_nested_interrupts-late-0.25s", tmp_path)
    assert real(runs["sync"]) == (11, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    assert predict(runs["async"])["sync"].checkpoints_kept == 11
