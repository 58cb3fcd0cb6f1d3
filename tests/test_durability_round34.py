"""The what-if and the verdicts on the thirty-fourth held-out round: a run from a
``checkpointer=True`` subgraph's own checkpoint (test_time_travel.py::
test_subgraph_replay_from_subgraph_checkpoint); an edit of the middle graph of three, run
from, that asks again (test_3_levels_deep_middle_has_interrupts); a node that asks twice, run
again from before it (test_multiple_interrupts_in_one_node).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, plan, predict, real


def _verdicts(entry: dict, form: str = "recorder") -> list[tuple[int, str]]:
    """(first line, verdict) of each attempt at the recorded mode."""
    return [(a.lines[0].line, a.verdict) for a in plan(entry, form).attempts]


def test_a_run_from_a_subgraphs_own_checkpoint_that_pauses_at_once(tmp_path: Path) -> None:
    """Killed in step_b of the answer to the replay from the subgraph's checkpoint where
    ask_human was due. The replay paused before any line; the root's copy holds the pause of
    subgraph_node, the task that runs the subgraph, not of ask_human, so the run was not
    seen: its copy was counted with the answer, and under exit (nothing of the answer saved)
    the resume was put on the first run's branch — 5 kept and nothing again, where the real
    exit run kept 6 and ran ask_human and step_b again. The exit recording's verdicts took
    the first branch's step_b (lines 7-8) for work the resume repeats: a checkpoint of that
    branch holds its step's end, though not the newest one's lineage."""
    runs = load("subgraph_checkpoint_replayed-early-0s", tmp_path)
    assert real(runs["exit"]) == (6, 2, 3)
    for src in ("sync", "async"):
        assert real(runs[src]) == (13, 1, 1), src
        for form in ("recorder", "bare"):
            assert figures(predict(runs[src], form)["exit"]) == (6, 2, 3), (src, form)
    for form in ("recorder", "langgraph"):
        assert _verdicts(runs["exit"], form)[3] == (7, "kept"), form
    every_prediction_holds(runs)


def test_a_replay_of_the_middle_graph_pauses_in_it_at_once(tmp_path: Path) -> None:
    """Killed in pre, answered, after an edit of the middle graph's checkpoint where pre was
    due and a run from it that paused at once: that run's copy holds outer's pause (the root
    task that runs the middle graph), not pre's. Unseen, exit was 8 kept where the real exit
    run kept 9."""
    runs = load("three_level_middle_interrupts-early-0s", tmp_path)
    assert real(runs["exit"]) == (9, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (9, 1, 1), src
    every_prediction_holds(runs)


def test_an_ended_stable_graph_takes_a_new_input_after_its_loops_first_step(
    tmp_path: Path,
) -> None:
    """Killed in the inner graph's step_a, in the answer to pre's question asked again: the
    resume goes on from the middle graph's checkpoint the replay saved, runs pre in its first
    step (under exit its answer was lost with the kill) and the inner graph in the next, so
    the inner graph — whose last run had ended — takes a fresh input and step_a runs again.
    The rule that a resume drops such a run compared the middle graph's checkpoint with the
    killed invocation only (exit: 9 kept, pre alone again); and from the exit recording the
    inner graph's new run (its input checkpoint and `__start__`) was not counted (sync: 14
    kept and nothing again, real 16 and step_a again)."""
    runs = load("three_level_middle_interrupts-late-0s", tmp_path)
    assert real(runs["exit"]) == (9, 2, 3)
    for src in ("sync", "async"):
        assert real(runs[src]) == (16, 1, 1), src
        assert figures(predict(runs[src])["exit"]) == (9, 2, 3), src
    assert figures(predict(runs["exit"])["sync"]) == (16, 1, 1)
    every_prediction_holds(runs)


def test_a_silent_run_begins_with_its_edit_not_at_the_last_line(tmp_path: Path) -> None:
    """The same kill with 0.25 s a checkpoint write: the previous run's end-of-run
    checkpoints land 0.26 and 0.51 s after its last line, and were given to the run from the
    edit that came after (which logged nothing), so that run seemed to end the thread's
    second branch and the answer's run lost its place: exit was 8 kept and nothing again."""
    runs = load("three_level_middle_interrupts-late-0.25s", tmp_path)
    assert real(runs["exit"]) == (9, 2, 3)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (9, 2, 3), src
    every_prediction_holds(runs)


def test_a_bare_logs_first_node_was_answered_though_it_starts_again_later(
    tmp_path: Path,
) -> None:
    """ask asks twice before logging; the log's first lines are the second answer's run
    (ask, then after, in one process), and ask starts again in the last run, after the
    replay. A bare log's node seen twice had read as one that logged and then paused (so no
    earlier invocation), though its process went on to `after`: exit was 2 kept, real 3."""
    runs = load("two_interrupts_replayed-early-0s", tmp_path)
    assert real(runs["exit"]) == (3, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src], "bare")["exit"]) == (3, 1, 1), src
    every_prediction_holds(runs)


def test_a_task_id_subgraph_run_again_from_an_edit_in_a_bare_log(tmp_path: Path) -> None:
    """Round 36's subgraph_fork_no_checkpointer (test_subgraph_interrupt_full_flow_no_sub
    _checkpointer): the subgraph has no checkpointer of its own, so each run is a loop under
    its task's id; after an edit of the root checkpoint where it was due, it runs again under
    a new id, asks again, and the answer's run is killed in step_b. Under exit the first
    run saved only its pause: a bare log's later step_a — a node no root checkpoint names,
    and none of the first run's saved checkpoints has due — was read as the root's, run after
    its newest checkpoint (again), though the new run's first checkpoint, saved when it
    paused after step_a, shows it ran. And the new run's lines went to the first run, which
    the root's next checkpoint shows had returned: from the exit recording, sync was 14 kept
    and nothing again, where the real run kept 15 and ran step_b again."""
    runs = load("subgraph_fork_no_checkpointer-early-0s", tmp_path)
    assert real(runs["exit"]) == (5, 2, 3) and real(runs["sync"]) == (15, 1, 1)
    assert _verdicts(runs["exit"], "bare")[5:] == [(11, "kept"), (13, "replays"), (15, "replays")]
    for target in ("sync", "async"):
        assert holds(predict(runs["exit"], "bare")[target], real(runs[target])), target
    every_prediction_holds(runs)
