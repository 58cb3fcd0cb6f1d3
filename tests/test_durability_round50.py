"""The what-if and the verdicts on the fiftieth held-out round: a parallel node cancelled by
its sibling's raise (test_node_cancellation_on_other_node_exception_two).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, plan, predict, real


def test_a_failure_cancelled_by_its_siblings_raise_was_not_handled_in_its_task(
    tmp_path: Path,
) -> None:
    """sibling_error_cancels, killed in ``finish`` of the second invocation: in the first,
    ``bad`` raised and cancelled ``agent`` mid-effect (its line an error, not a kill); the
    second ran both again and went on. The database holds ``agent``'s writes, the second
    run's. A bare log names no task, and those writes were read as the first run's own: a
    failure the task handled (a ToolNode's error message), not a raise. Under exit, whose
    database keeps only the first invocation's error checkpoint, ``agent`` was said to keep
    its writes (1 2 5 where the real resume ran it again: 1 3 9)."""
    runs = load("sibling_error_cancels-late-0s", tmp_path)
    assert real(runs["exit"], "bare") == (1, 3, 9)
    for source in ("sync", "async"):
        for given in (True, False):
            told = predict(runs[source], "bare", given)["exit"]
            assert holds(told, real(runs["exit"], "bare")), (source, given, figures(told))
        first = sorted(plan(runs[source], "bare").attempts, key=lambda a: a.start_ts)[0]
        assert (first.node, first.outcome) == ("agent", "failed")
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_an_entrypoints_pause_a_bare_log_hides_keeps_no_step_of_its_own(tmp_path: Path) -> None:
    """falsy_task_interrupt on Postgres under `ainvoke` at 0.8 s a write, killed in ``finish``
    of the answering invocation. The entrypoint logs nothing; a bare log shows ``falsy_task``,
    then, in the next process, ``notify`` and ``finish``. The database holds one checkpoint,
    the input's, with the entrypoint's pause: the first invocation paused, and its answer goes
    on in the paused step. Read as an invocation that returned (its input and its step kept),
    sync was said to keep 2 to 12 checkpoints where it kept 1, and ``notify`` and ``finish``
    were filed in a step after the newest checkpoint, not as calls of the entrypoint
    (`evidence._unlogged_stops`'s `entry`, `align._open_caller`)."""
    runs = load("falsy_task_interrupt-late-0.8s-postgres", tmp_path)
    assert real(runs["sync"], "bare") == real(runs["async"], "bare") == (1, 1, 1)
    for given in (True, False):
        told = predict(runs["exit"], "bare", given)
        for target in ("sync", "async"):
            assert holds(told[target], real(runs[target], "bare")), (target, told[target].race)
    calls = [a for a in plan(runs["exit"], "bare").attempts if a.node in ("notify", "finish")]
    assert [a.alignment for a in calls] == ["call-unsaved", "call-unsaved"]
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_an_input_checkpoint_an_exit_recording_cannot_date_may_land_before_the_kill(
    tmp_path: Path,
) -> None:
    """imp_sync_from_async (round 52) on LangGraph 1.1.10 under `ainvoke` at 0.65 s a write,
    killed 0.2 s into ``bar``, the second call of a plain-``def`` entrypoint. Under sync the
    input checkpoint was made 56 ms before ``foo`` started (the loop's set-up) and landed
    9 ms before the kill: one checkpoint kept, ``bar`` alone run again. Exit saved no input
    checkpoint to date, and its recording put the input's put at the first call's start:
    landing 54 ms after the kill, none kept, and ``foo`` and ``bar`` run again (0 2 3).
    An undated input checkpoint is now a race over that set-up (`outcomes.INPUT_SETUP`)."""
    runs = load("imp_sync_from_async-early-0.65s-lg1.1.10", tmp_path)
    assert real(runs["sync"]) == (1, 1, 1)
    for form in ("recorder", "langgraph"):
        told = predict(runs["exit"], form)["sync"]
        assert holds(told, real(runs["sync"], form)), (form, figures(told), told.race)
        assert "no moment of the input checkpoint" in told.race["note"]
