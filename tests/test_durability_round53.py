"""The what-if and the verdicts on the fifty-third to fifty-fifth held-out rounds: a node
that raises ``asyncio.CancelledError`` itself (test_pregel_user_raised_cancellederror_fails_run),
on a LangGraph release that saves it as the task's error and goes on; a replay from the final
checkpoint that runs nothing (test_replay_from_final_checkpoint_is_noop).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, plan, predict, real


def test_a_cancelled_tasks_saved_error_is_no_raise_when_the_run_went_on(tmp_path: Path) -> None:
    """user_cancelled_branch on LangGraph 1.1.10 under `ainvoke` at 0.65 s a write, killed a
    quarter unit into ``finish``. ``boom`` raised ``CancelledError``; up to 1.1 the runner
    saves it as the task's ``__error__`` write "so loop can finish super-step", and the run
    went on to ``finish`` in the same process (1.2 raises ``NodeCancelledError`` instead).
    The sync recording's database holds that error and the next step's checkpoint; read as a
    raise, async and exit were said to keep checkpoints of a first invocation and re-run 2
    tasks (2 2 3, 1 2 3) where the one invocation was killed before anything landed and
    all three tasks ran again (0 3 5)."""
    runs = load("user_cancelled_branch-early-0.65s-lg1.1.10", tmp_path)
    for target in ("async", "exit"):
        assert real(runs[target]) == (0, 3, 5)
    for form in ("recorder", "langgraph", "bare", "trace"):
        for given in (True, False):
            told = predict(runs["sync"], form, given)
            for target in ("async", "exit"):
                assert holds(told[target], real(runs[target], form)), (
                    form, given, target, figures(told[target]),
                )  # fmt: skip
    boom = next(a for a in plan(runs["sync"]).attempts if a.node == "boom")
    assert boom.outcome == "failed" and boom.task is not None
    assert str(boom.task.error).startswith("CancelledError")
    assert boom.verdict == "kept" and "without it" in boom.reason
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_run_that_went_on_past_a_cancelled_task_to_nodes_that_log_nothing(
    tmp_path: Path,
) -> None:
    """The same sync recording, its log cut after ``boom``'s failure (``finish`` a node that
    logs nothing), read against the database after the resume: the thread completed, and its
    root checkpoints after ``boom``'s step were saved by the loop after the failure, with no
    input between and no task begun. The run went on past the failure: under every mode it
    completes, and nothing runs again (read as a raise, sync and async said ``boom`` would
    run again)."""
    import json

    runs = load("user_cancelled_branch-early-0.65s-lg1.1.10", tmp_path)
    entry = dict(runs["sync"], db_at_kill=runs["sync"]["db_after_resume"])
    lines = Path(entry["effects_at_kill"]).read_text().splitlines()
    cut = [line for line in lines if json.loads(line)["node"] in ("ok", "boom")]
    assert len(cut) == 4 and json.loads(cut[-1])["phase"] == "error"
    log = tmp_path / "cut.effects.jsonl"
    log.write_text("\n".join(cut) + "\n")
    from replaylens.analysis.durability import Recording
    from replaylens.killtest.validate import plan_for

    for rec in (Recording(mode="sync", langgraph="1.1.10"), Recording(langgraph="1.1.10")):
        what_if = plan_for(entry, str(log), rec).what_if
        for mode in ("sync", "async", "exit"):
            o = what_if[mode]
            assert o.reruns == [] and o.replayed_lines == [], (rec.mode, mode, figures(o))
            assert not o.race or all(low == high == 0 for low, high in (
                o.race.get("reruns", (0, 0)), o.race.get("replayed_lines", (0, 0))
            )), (rec.mode, mode, o.race)  # fmt: skip


def test_a_replay_that_ran_nothing_saved_its_copy_and_the_next_input_is_fresh(
    tmp_path: Path,
) -> None:
    """replay_final_noop (round 55) at 0 s, killed in ``node_a`` of the third invocation: the
    first ran node_a and node_b to the end, the second ran from that final checkpoint (nothing
    due: it ran and logged nothing, and LangGraph saved its copy, a ``fork`` checkpoint, in
    every mode, exit too), the third is a fresh input. Without the silent run, exit was said to
    keep 1 checkpoint where it kept 2; read as a resume of it, the third was said to run
    ``node_a`` again under exit, where the exit run's input was lost with the kill and the
    resume, from the copy with nothing due, ran nothing (2 0 0)."""
    runs = load("replay_final_noop-early-0s", tmp_path)
    assert real(runs["exit"]) == (2, 0, 0)
    for source in ("sync", "async"):
        for form in ("recorder", "bare"):
            for given in (True, False):
                told = predict(runs[source], form, given)["exit"]
                assert holds(told, (2, 0, 0)), (source, form, given, figures(told))
    used = " ".join(plan(runs["sync"]).what_if["exit"].used)
    assert "ran nothing and logged nothing" in used
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_the_input_after_a_replay_that_ran_nothing_owns_its_checkpoints(tmp_path: Path) -> None:
    """The same at 0.25 s a write. Under sync the third invocation's input checkpoint is taken
    half a second before ``node_a`` starts (the first task waits behind the puts chained
    after it); with the run that ran nothing read as ending just before that task, the input
    and start checkpoints were filed as the silent run's, and the fresh input got none of its
    own: from sync, async was said to keep 7 where it kept 5 (the input's puts still in
    flight at the kill, 2 0 0 then 5 0 0 measured)."""
    runs = load("replay_final_noop-early-0.25s", tmp_path)
    assert real(runs["async"]) == (5, 0, 0)
    for form in ("recorder", "langgraph", "bare", "trace"):
        for given in (True, False):
            told = predict(runs["sync"], form, given)["async"]
            assert holds(told, (5, 0, 0)), (form, given, figures(told), told.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_three_replays_that_paused_before_logging_are_three_silent_runs(tmp_path: Path) -> None:
    """replays_refire_interrupt (round 56) at 0 s, killed in ``ask_human`` after the last
    answer: the thread ran to its end, then three runs from the checkpoint before
    ``ask_human`` each made a copy and asked again before logging anything. Read as one
    silent run, two of the copies were nobody's: exit was said to keep 3 checkpoints where it
    kept 5 (the first pause, the end, and the three copies), sync and async from exit 6
    where 8."""
    runs = load("replays_refire_interrupt-early-0s", tmp_path)
    assert real(runs["exit"])[0] == 5 and real(runs["sync"])[0] == 8
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            told = predict(runs["sync"], form, given)["exit"]
            assert holds(told, real(runs["exit"], form)), (form, given, figures(told))
    for given in (True, False):
        told = predict(runs["exit"], "recorder", given)
        for target in ("sync", "async"):
            assert holds(told[target], real(runs[target])), (target, given, figures(told[target]))
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))
