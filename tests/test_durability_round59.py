"""The what-if and the verdicts on the fifty-ninth and sixtieth held-out rounds: a superstep
that raised as LangGraph applied its writes, after every task of it ended
(test_overwrite_parallel_error, test_invoke_two_processes_two_in_two_out_invalid), and a copy
of the final checkpoint edited in the same ``update_state`` call
(test_fork_and_update_task_results).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, plan, predict, real

FORMS = ("recorder", "langgraph", "bare", "trace")


def test_a_step_that_raised_applying_two_overwrites_saved_both_at_the_raise(
    tmp_path: Path,
) -> None:
    """overwrite_parallel_error at 0 s, killed in ``node_c`` of the second input. In the first,
    node_b and node_c both wrote ``Overwrite`` to `messages`: LangGraph raised applying them,
    after both ended. Exit saved the step's checkpoint at the raise with both writes, and its
    resume ran nothing (1 0 0). Read as a step_timeout (the last task cut off), exit was said
    to run node_c again (1 1 2) from the sync and async recordings."""
    runs = load("overwrite_parallel_error-late-0s", tmp_path)
    assert real(runs["exit"]) == (1, 0, 0)
    for source in ("sync", "async"):
        for form in FORMS:
            for given in (True, False):
                told = predict(runs[source], form, given)["exit"]
                assert figures(told) == (1, 0, 0) and not told.race, (source, form, given)
    attempts = plan(runs["sync"]).attempts
    first = min(a.pid or 0 for a in attempts)
    collided = [a for a in attempts if a.pid == first and a.node in ("node_b", "node_c")]
    assert len(collided) == 2
    for a in collided:
        assert a.verdict == "kept" and "Overwrite" in a.reason, (a.node, a.reason)
    every_prediction_holds(runs, forms=FORMS)


def test_two_writes_of_a_plain_key_may_have_raised_as_they_were_applied(tmp_path: Path) -> None:
    """last_value_conflict at 0 s, killed in ``one`` of the second input. In the first, one and
    two both wrote the plain key `hello`: "Can receive only one value per step", raised
    applying them after both ended; the exit save at the raise held both writes and the exit
    resume ran nothing (1 0 0). A sync or async database cannot tell that from a
    step_timeout (the last task cut off, its writes not in the save): exit is said as a
    range that holds both, where it was said to run two again (1 1 2)."""
    runs = load("last_value_conflict-early-0s", tmp_path)
    assert real(runs["exit"]) == (1, 0, 0)
    for source in ("sync", "async"):
        for form in FORMS:
            for given in (True, False):
                told = predict(runs[source], form, given)["exit"]
                assert list(told.race.get("reruns", ())) == [0, 1], (source, form, given, told.race)
                assert holds(told, real(runs["exit"], form)), (source, form, given)
    every_prediction_holds(runs, forms=FORMS)


def test_a_copy_edited_in_the_same_call_is_no_run_that_ran_nothing(tmp_path: Path) -> None:
    """copy_update_latest at 0.25 s, killed in ``three`` of the run from the edit. Under exit
    the thread kept its final checkpoint, the copy (nothing due on it) and the update on top
    of it that made two due; the run from the update saved nothing before the kill, and the
    resume ran two and three again (3 2 3). The copy was read as a replay that ran nothing
    (test_replay_from_final_checkpoint_is_noop), so the logged run was taken for a fresh input
    lost with the kill: "nothing runs again" (3 0 0)."""
    runs = load("copy_update_latest-late-0.25s", tmp_path)
    assert real(runs["exit"]) == (3, 2, 3)
    for form in FORMS:
        for given in (True, False):
            told = predict(runs["exit"], form, given)["exit"]
            assert holds(told, real(runs["exit"], form)), (form, given, figures(told))
    again = [a.node for a in plan(runs["exit"]).attempts if a.verdict == "replays"]
    assert again == ["two", "three"]
    every_prediction_holds(runs, forms=FORMS)
