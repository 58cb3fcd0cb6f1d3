"""What a bare log (thread, node, phase, time, process) cannot place, said as a range wide
enough to hold what real runs did; and what the database still places.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from whatif_kills import every_prediction_holds, figures, holds, judged, load, plan, predict, real


def sync_from_exit_holds(runs: dict[str, Any], kept: int) -> None:
    """The real sync run kept `kept` checkpoints, and sync's prediction from the exit
    recording's bare log holds it, with the mode given and inferred."""
    assert real(runs["sync"], "bare")[0] == kept
    for given in (True, False):
        sync = predict(runs["exit"], "bare", given)["sync"]
        assert holds(sync, real(runs["sync"], "bare")), sync.race


def test_each_attempt_of_an_unplaced_node_may_be_a_subgraph_run_of_its_own(
    tmp_path: Path,
) -> None:
    """multiple_subgraphs_same, killed under exit in its first invocation: one node invokes
    the same graph three times in turn, and the bare log shows ``add`` three times. The exit
    database is empty, so nothing places ``add``: each of its runs is a subgraph run of its
    own (its input, `__start__` and step checkpoints). Counted once per node, sync's range
    reached 9 where the real sync run kept 14."""
    runs = load("multiple_subgraphs_same-late-0s", tmp_path)
    assert real(runs["sync"], "bare")[0] == 14
    sync = predict(runs["exit"], "bare")["sync"]
    assert sync.race["checkpoints_kept"][0] <= 14 <= sync.race["checkpoints_kept"][1]
    assert holds(sync, real(runs["sync"], "bare"))


def test_a_node_below_a_saved_subgraph_may_sit_one_level_deeper(tmp_path: Path) -> None:
    """stateful_namespace_isolation, killed under exit in its second invocation: ``echo``
    runs in a graph with no checkpointer of its own inside each of two `checkpointer=True`
    graphs. The exit database shows the two saved graphs (one level down) and nothing of
    the inner ones; each ``echo`` run adds checkpoints at both levels under sync. Counted
    at one level, sync's range reached 28 where the real run kept 31."""
    sync_from_exit_holds(load("stateful_namespace_isolation-late-0s", tmp_path), kept=31)


def test_a_stronger_mode_keeps_its_own_checkpoints_where_only_its_repeats_broke_the_order(
    tmp_path: Path,
) -> None:
    """stateless_subgraph_interrupts, killed under exit: the bare reading of sync repeats
    more than the exit recording does, so sync takes exit's repeats (a mode never repeats
    more than a weaker one); it took exit's 5 checkpoints with them, where the real sync
    run kept 12 and sync's own reading said 7 to 13. What a mode saves is bounded below by
    the weaker mode, not replaced by it."""
    runs = load("stateless_subgraph_interrupts-early-0s", tmp_path)
    exit_ = predict(runs["exit"], "bare")
    assert figures(exit_["exit"]) == (5, 1, 5)
    assert real(runs["sync"], "bare") == (12, 1, 5)
    sync = exit_["sync"]
    assert (len(sync.reruns), len(sync.replayed_lines)) == (1, 5)
    assert sync.checkpoints_kept > 5
    assert holds(sync, real(runs["sync"], "bare"))


def test_a_root_task_the_loop_went_past_did_not_pause(tmp_path: Path) -> None:
    """recursion_limit_retry, killed under exit in the invocation after the recursion limit
    raised: the exit database has ``tools`` due with no write (as a static breakpoint leaves
    it), and the bare log shows ``tools`` again in the next invocation. That was read as the
    last ``tools`` of the first invocation paused (its step never completed), though
    ``agent`` ran after it in a later step of the root: every step after it was one short,
    and sync was predicted 27 checkpoints kept where the real run kept 30."""
    runs = load("recursion_limit_retry-early-0.25s", tmp_path)
    attempts = sorted(plan(runs["exit"], "bare").attempts, key=lambda a: a.start_ts)
    first_run = [a for a in attempts if a.pid == attempts[0].pid]
    assert [a.node for a in first_run[-2:]] == ["tools", "agent"]
    predicted = predict(runs["exit"], "bare")
    for target in ("sync", "async"):
        assert holds(predicted[target], real(runs[target], "bare")), predicted[target].race
    # agent and tools are nodes of the root (its checkpoint's `versions_seen`): no range for
    # their runs as subgraph runs of their own
    assert predicted["sync"].race["checkpoints_kept"][1] <= real(runs["sync"], "bare")[0]


def test_a_line_after_a_run_that_ended_belongs_to_the_next_graph_that_ran_its_node(
    tmp_path: Path,
) -> None:
    """stateful_namespace_isolation, killed under async in ``echo`` of the veggie agent in
    the second invocation. One ``echo`` runs in a fruit agent, then in a veggie agent, each
    inside a `checkpointer=True` graph; the bare log shows ``echo`` twice in that
    invocation. The database has the fruit agent's run ended (nothing due at its last
    checkpoint) before the second ``echo`` began, so that line is no later step of it: it
    is the veggie agent's. Filed under the fruit agent, the line's verdict said it runs
    again (its veggie graph drops the new input on a resume: it does not), and sync was
    predicted 24 checkpoints kept and nothing again, where the real sync run kept 28 and
    ran ``call_both`` and ``echo`` again (3 lines)."""
    runs = load("stateful_namespace_isolation-early-0.25s", tmp_path)
    p = plan(runs["async"], "bare")
    last = max(p.attempts, key=lambda a: a.start_ts)
    assert last.node == "echo" and last.alignment == "next-graph"
    assert "veggie_agent" in (last.namespace or "") and last.verdict == "kept"
    assert real(runs["sync"], "bare") == (28, 2, 3)
    for given in (True, False):
        predicted = predict(runs["async"], "bare", given)
        assert figures(predicted["sync"]) == (28, 2, 3), predicted["sync"].race
        assert figures(predicted["async"]) == real(runs["async"], "bare")


def test_the_campaigns_behind_these_readings_hold_in_every_form(tmp_path: Path) -> None:
    for name in ("multiple_subgraphs_same-late-0s", "subgraphs_in_task_entrypoint-early-0s"):
        every_prediction_holds(load(name, tmp_path), same_progress=True)


def test_a_root_node_after_nested_runs_that_ended_runs_in_the_root_a_step_later(
    tmp_path: Path,
) -> None:
    """doubly_nested_interrupts, killed under async in ``parent_2``, the root's node after a
    graph two levels deep that paused and was answered. The bare log shows ``parent_2`` right
    after ``grandchild_2``; no saved root checkpoint names it. Both nested runs had saved
    their ends (nothing due) before it began, so it is no step of theirs: it was filed under
    the inner graph, and sync was predicted 10 checkpoints kept and nothing again, where the
    real sync run kept 11 and ran ``parent_2`` again. Filed in the root, it runs one step
    after the silent ``child`` that held the answered graphs (the resume goes on in that
    step), not in it: in that step, exit was predicted 1 1 2 where the real run gave 3 2 3."""
    runs = load("doubly_nested_interrupts-late-0.25s", tmp_path)
    assert real(runs["sync"], "bare") == (11, 1, 1)
    for given in (True, False):
        predicted = predict(runs["async"], "bare", given)
        assert figures(predicted["sync"]) == (11, 1, 1), predicted["sync"].race
        assert holds(predicted["exit"], real(runs["exit"], "bare")), predicted["exit"].race


def test_a_run_from_a_copy_saved_on_exit_is_the_run_that_logged_before_it(
    tmp_path: Path,
) -> None:
    """subgraph_replay_then_resume, killed under exit after a run from an earlier checkpoint
    of the root: exit saves that run's copy on its way out, after its own ``step_a`` line. A
    bare log read the copy as a second run that paused before logging anything (an invocation
    too many), and numbered the stateful subgraph's steps in the run from the copy from 0
    (they go on from its newest checkpoint, 3): sync was predicted 19 to 22 checkpoints kept
    where the real run kept 14 and 17."""
    for name in ("subgraph_replay_then_resume-late-0s", "subgraph_replay_then_resume-early-0s"):
        runs = load(name, tmp_path / name)
        p = plan(runs["exit"], "bare")
        assert (
            "4 invocations: a fresh input, a resume, a resume, a resume" in p.what_if["sync"].used
        )
        for given in (True, False):
            predicted = predict(runs["exit"], "bare", given)
            for target in ("sync", "async"):
                assert figures(predicted[target]) == real(runs[target], "bare"), target
    # (three levels, the middle graph's checkpoint replayed: 19 where 17 before)
    runs = load("middle_checkpoint_replayed-early-0s", tmp_path)
    for target in ("sync", "async"):
        assert figures(predict(runs["exit"], "bare")[target]) == real(runs[target], "bare")


def test_a_resume_goes_on_in_the_root_step_its_saved_checkpoint_has_due(
    tmp_path: Path,
) -> None:
    """stateful_subgraph_replay_then_resume, killed under exit: the resume's lines of the
    stateful subgraph run in the root step after the root's newest checkpoint, whose task
    (the silent node that runs the subgraph) is due there; the root's next node runs a step
    later. Numbered from the last root step a line showed, sync was predicted 22 checkpoints
    kept where the real run kept 19."""
    sync_from_exit_holds(load("stateful_subgraph_replay_then_resume-early-0.25s", tmp_path), 19)


def test_a_node_no_checkpoint_names_after_a_subgraphs_input_is_that_subgraphs(
    tmp_path: Path,
) -> None:
    """parent_command_deeply_nested, killed under async two levels down: the database holds
    the root's first checkpoints and the input checkpoint of the stateful ``child_2``, and
    nothing names ``sub_child_1`` or ``sub_sub_child``. The bare log's ``sub_child_1`` began
    right after that input landed: it is ``child_2``'s, and ``sub_sub_child``, in flight
    while that run went on, too. Filed as root steps, ``child_2``'s last step read as left
    by raising, which under exit saves on the way out: exit was predicted 1 checkpoint kept
    where the real run kept none."""
    runs = load("parent_command_deeply_nested-early-0.25s", tmp_path)
    assert real(runs["exit"], "bare") == (0, 3, 5)
    for given in (True, False):
        predicted = predict(runs["async"], "bare", given)
        assert figures(predicted["exit"]) == (0, 3, 5), predicted["exit"].race
        assert holds(predicted["sync"], real(runs["sync"], "bare")), predicted["sync"].race


def test_a_traced_holders_span_end_is_where_its_step_ended(tmp_path: Path) -> None:
    """doubly_nested_interrupts from exit at 0.25 s, read from a trace: the answered
    ``child_1`` and ``child`` spans closed as their tasks returned, 1 ms apart, and
    ``parent_2`` began right after. The step of ``child`` had been dated a tick per level
    after its graph's last line, later than the root's next step: under async ``child``'s
    last put then fell after the root step it waits in, ``parent_2`` started before it
    landed, and the kill 0.2 s in lost it (9 kept, where the real async run kept 10)."""
    runs = load("doubly_nested_interrupts-late-0.25s", tmp_path)
    assert real(runs["async"], "trace") == (10, 1, 1)
    assert figures(predict(runs["exit"], "trace")["async"]) == (10, 1, 1)
    assert figures(predict(runs["exit"])["async"]) == (10, 1, 1)


def test_a_bare_line_a_stateful_graph_saved_on_its_way_out_is_not_run_again(
    tmp_path: Path,
) -> None:
    """test_subgraph_checkpoint_true_interrupt at 0.1 s a write under exit, killed in
    ``node_3`` after the answered graph returned, a bare log: the ``checkpointer=True`` graph
    ``node_2`` invokes saved its own end as it returned (step 2, ``subgraph_node_2`` in its
    ``versions_seen``), and no root checkpoint names ``subgraph_node_2``. Its line was filed
    in the root after the newest checkpoint and read as run again: 7 lines and 3 tasks where
    the real resume ran 5 and 2 (`align._seen_run_after`). The same reading settles two lines
    of subgraph_replay_then_resume from exit that had been said to be a guess."""
    name = "subgraph_invoked_in_node-late-0.1s"
    runs = load(name, tmp_path)
    assert figures(predict(runs["exit"], "bare")["exit"]) == real(runs["exit"], "bare") == (3, 2, 5)
    assert all(c.wrong == [] for c in judged(name, tmp_path))
    replayed = "subgraph_replay_then_resume-early-0s"
    load(replayed, tmp_path)
    exit_check = next(c for c in judged(replayed, tmp_path) if c.mode == "exit")
    assert exit_check.wrong == [] and exit_check.guessed == []


def test_a_saved_subgraph_is_not_read_as_returned_from_nodes_that_may_be_its_own(
    tmp_path: Path,
) -> None:
    """subgraph_checkpoint_true under `ainvoke` on Postgres at 0.25 s, killed under async in
    the first run of ``inner`` (compiled with checkpointer=True): the database holds the
    root's and ``inner``'s input checkpoints, and the bare log ``inner_1`` and ``inner_2``,
    which no checkpoint names. Read as root nodes run after ``inner``, they made ``inner``
    a run that had returned, which exit saves on its way out: 1 kept where the real exit run
    kept none. They may be ``inner``'s own, still running: 0-1, given and inferred."""
    runs = load("subgraph_checkpoint_true-early-0.25s-postgres", tmp_path)
    assert real(runs["exit"], "bare") == (0, 2, 3)
    for given in (True, False):
        exit_ = predict(runs["async"], "bare", given)["exit"]
        assert exit_.race["checkpoints_kept"][0] == 0, (given, exit_.race)
        assert holds(exit_, real(runs["exit"], "bare")), (given, exit_.race)
    # the recorder's log places them in ``inner``: nothing to widen, exactly none kept
    told = predict(runs["async"], "recorder")["exit"]
    assert figures(told)[0] == 0 and "checkpointer=True" not in (told.race or {}).get("note", "")
