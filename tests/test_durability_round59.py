"""The what-if and the verdicts on the fifty-ninth to sixty-second held-out rounds: a superstep
that raised as LangGraph applied its writes, after every task of it ended
(test_overwrite_parallel_error, test_invoke_two_processes_two_in_two_out_invalid), a copy
of the final checkpoint edited in the same ``update_state`` call
(test_fork_and_update_task_results), a cancelled ``ainvoke`` whose plain node ran on
to its end (test_cancel_ainvoke_with_sync_node), and a trace whose last invocation paused
in a stateful subgraph (test_subgraph_time_travel_after_completion); then the same thread
on LangGraph 1.0.10, whose second input began as a copy-less run from an earlier checkpoint
would have; round 64, an ``@entrypoint`` killed in a call it made after its own lines
(test_entrypoint_timeout_e2e); and round 66, an input sent to an older checkpoint than the
newest (test_delta_channel_time_travel).

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


def test_a_copys_update_writes_are_no_entrypoints_calls(tmp_path: Path) -> None:
    """copy_update_latest on LangGraph 1.1.10 at 0.65 s, recorded under exit, read from a bare
    log: the copy of the final checkpoint holds the update's writes (one's result, under a
    task no checkpoint has due), which read as an `@entrypoint`'s `@task` results, and the
    update's due node `two` as the entrypoint. ``three`` was then filed as a call in two's
    step, and sync was said to keep 6 checkpoints and run two and three again (6 2 3) where
    the real sync run kept 8 and ran three alone again (8 1 1)."""
    runs = load("copy_update_latest-late-0.65s-lg1.1.10", tmp_path)
    assert real(runs["sync"], "bare") == (8, 1, 1)
    for given in (True, False):
        told = predict(runs["exit"], "bare", given)
        for target in ("sync", "async"):
            assert holds(told[target], real(runs[target], "bare")), (
                given, target, figures(told[target]), told[target].race,
            )  # fmt: skip
    every_prediction_holds(runs, forms=FORMS)


def test_a_plain_node_that_ran_on_past_a_cancel_runs_again_on_the_resume(tmp_path: Path) -> None:
    """cancelled_sync_node under ``ainvoke`` at 0.25 s, killed in ``second`` of the second
    invocation (``ainvoke(None)``). The first was cancelled from outside while ``first`` ran
    on its worker thread, which went on to log its end: its writes were never put. With a
    bare log the node names alone read the second invocation as a fresh input and the
    cancelled ``first`` as finished, so exit was said to run nothing again (1 0 0) where the
    real exit resume ran first and second again (1 2 5), and async to keep 3 or 6
    checkpoints where it kept 2: the sync database saved the second invocation's steps as it
    ran, with no input checkpoint before them (a resume), and it ran the task the database
    aligns with the cancelled attempt again."""
    runs = load("cancelled_sync_node-late-0.25s", tmp_path)
    assert real(runs["exit"], "bare") == (1, 2, 5)
    assert real(runs["async"], "bare") == (2, 1, 1)
    for given in (True, False):
        told = predict(runs["sync"], "bare", given)
        for target in ("async", "exit"):
            assert holds(told[target], real(runs[target], "bare")), (
                given, target, figures(told[target]), told[target].race,
            )  # fmt: skip
    again = [r["node"] for r in told["exit"].reruns]
    assert again == ["first", "second"], again
    every_prediction_holds(runs, forms=FORMS)


def test_exit_saves_a_pause_on_its_way_out_not_step_by_step(tmp_path: Path) -> None:
    """subgraph_noop_replay_then_input at 0 s, killed in ``ask_1`` of the answer after the
    second input; the trace shows nothing of that killed invocation (its spans never ended),
    so its last invocation is the second input, which paused in the subgraph. Exit saves such
    a pause once, on each loop's way out, and never the steps before it; read as puts that had
    not landed, the pause was taken for one the kill cut short under exit, and the span of
    the task that ran the subgraph for one never closed: 3 lines again where the real exit
    run's trace had 4 (8 2 3 where 8 2 4), from the sync and async recordings."""
    runs = load("subgraph_noop_replay_then_input-late-0s", tmp_path)
    assert real(runs["exit"], "trace") == (8, 2, 4)
    for source in ("sync", "async"):
        for given in (True, False):
            told = predict(runs[source], "trace", given)["exit"]
            assert holds(told, real(runs["exit"], "trace")), (source, given, figures(told))
    every_prediction_holds(runs, forms=FORMS)


def test_a_fresh_input_and_a_copyless_replay_begin_alike(tmp_path: Path) -> None:
    """subgraph_noop_replay_then_input on LangGraph 1.0.10 at 0.3 s, killed in ``step_a`` of
    the second input, after a replay from the final checkpoint that ran nothing. Under async
    and exit nothing of that input landed, and 1.0.10 saves no copy of a checkpoint a run
    starts from: the run could as well have been one from the first input's checkpoint,
    where ``executor`` was due, and the step the log gives is the subgraph's own. Read as
    that run only, sync was said to keep 10 checkpoints and run nothing again, where the
    real sync run kept the input's 12 and ran ``step_a`` again (12 1 1). Both readings are
    now said; a sync database, where a fresh input's checkpoints land before its first
    node, tells them apart."""
    runs = load("subgraph_noop_replay_then_input-early-0.3s-lg1.0.10", tmp_path)
    assert (real(runs["sync"]), real(runs["async"]), real(runs["exit"])) == (
        (12, 1, 1),
        (8, 0, 0),
        (5, 0, 0),
    )
    for source in ("async", "exit"):
        for form in ("recorder", "langgraph"):
            for given in (True, False):
                told = predict(runs[source], form, given)["sync"]
                assert holds(told, (12, 1, 1)), (source, form, given, figures(told))
                assert any("begin alike" in x for x in told.assumed), (source, form, given)
            told = predict(runs[source], form)["sync"]
            assert list(told.race.get("reruns", ())) == [0, 1], (source, form, told.race)
    for form in ("recorder", "langgraph"):
        told = predict(runs["sync"], form)
        assert figures(told["async"]) == (8, 0, 0) and not told["async"].race, form
        assert figures(told["exit"]) == (5, 0, 0) and not told["exit"].race, form
    # a bare log's async -> exit stays outside (limits.md): its first answer and the input
    # are both read by node names alone
    every_prediction_holds(runs, forms=("recorder", "langgraph", "trace"))


def test_a_database_that_keeps_the_runs_own_checkpoints_tells_the_two_apart(
    tmp_path: Path,
) -> None:
    """The same question where the evidence answers it. parallel_stateful_subgraphs_replayed
    at 0.25 s, killed 0.2 s into a run from an earlier checkpoint: the log's root step (6)
    is the one after that checkpoint's copy, where a fresh input after the thread's end
    would have begun three steps on (9); said as measured (20 0 0), not a range up to the
    input's 22 1 1. stateless_subgraph_interrupts under exit: the second input's pause,
    saved on its way out, holds the step a fresh input reaches, so sync and async are said
    as measured (12 1 5), not a range down to 10. entrypoint_stateful at 0.25 s, killed in
    the third input's first call: the step its calls log (4) is one a fresh input reaches,
    and one no run from the checkpoints where the entrypoint was due (steps -1 and 1) would
    (4 0 0 said from async as measured, where it was read both ways: 10 1 1)."""
    runs = load("parallel_stateful_subgraphs_replayed-early-0.25s", tmp_path)
    for form in ("recorder", "langgraph"):
        told = predict(runs["sync"], form)["sync"]
        assert figures(told) == real(runs["sync"]) == (20, 0, 0), form
        assert not told.race, (form, told.race)
    runs = load("stateless_subgraph_interrupts-early-0s", tmp_path / "exit")
    for form in ("recorder", "langgraph"):
        for target in ("sync", "async"):
            told = predict(runs["exit"], form)[target]
            assert figures(told) == real(runs[target]) == (12, 1, 5), (form, target)
            assert not told.race, (form, target, told.race)
    runs = load("entrypoint_stateful-early-0.25s", tmp_path / "entry")
    for form in ("recorder", "langgraph"):
        told = predict(runs["async"], form)["sync"]
        assert figures(told) == real(runs["sync"]) == (4, 0, 0), form
        assert not any("begin alike" in x for x in told.assumed), form


def test_an_entrypoint_returns_only_after_the_calls_it_makes_after_its_lines(
    tmp_path: Path,
) -> None:
    """entrypoint_timeout at 0.25 s (round 64): the workflow's own timeout failed the first
    run; the run after it reused `fetch`, logged its own effect, and was killed in `store`,
    a call its body made after those lines. The entrypoint had not returned, so every mode's
    resume ran it again from its top (1 2 5). From the exit recording, whose database holds
    nothing of that run, sync and async were said to run `store` alone again (1 1 1): the
    entrypoint's lines had ended, and were read as its task's end."""
    runs = load("entrypoint_timeout-late-0.25s", tmp_path)
    for mode in ("sync", "async", "exit"):
        assert real(runs[mode]) == (1, 2, 5), mode
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            told = predict(runs["exit"], form, given)
            for target in ("sync", "async"):
                assert holds(told[target], (1, 2, 5)), (form, given, target, figures(told[target]))
    every_prediction_holds(runs, forms=FORMS)


def test_an_input_sent_to_an_older_checkpoint_is_a_branch_the_resume_follows(
    tmp_path: Path,
) -> None:
    """delta_time_travel_input (round 66, test_delta_channel_time_travel): two turns, then a
    third input sent to the checkpoint the first ended at, killed in ``respond``. A resume
    goes on along that branch: sync and async ran respond alone again and kept the ten
    checkpoints of both branches (10 1 1); exit, which saved nothing of the third run, ran
    nothing. Taken for an input on the newest checkpoint, sync was said from exit to run the
    second turn's ``remember`` again as well (10 2 3), and the 0 s sync database, read from
    a bare log with the mode inferred, was taken for async (a step 9 whose checkpoint 8 was
    missing), 14 kept. At 0.25 s, where the async run's input checkpoint never landed, its
    first task's step (5, the second turn's respond's too) was read as a run from the
    checkpoint where respond was due; on 1.2 such a run begins two steps past it, past the
    copy it saves, so sync was said to run nothing again (8 0 0)."""
    zero = load("delta_time_travel_input-early-0s", tmp_path / "zero")
    late = load("delta_time_travel_input-early-0.25s", tmp_path / "late")
    for runs in (zero, late):
        assert real(runs["sync"]) == (10, 1, 1)
        assert real(runs["exit"]) == (3, 0, 0)
        for form in ("recorder", "langgraph", "trace"):
            for given in (True, False):
                told = predict(runs["exit"], form, given)["sync"]
                assert figures(told) == (10, 1, 1), (form, given, figures(told))
    assert figures(predict(zero["sync"], "bare", False)["async"]) == real(zero["async"])
    for form in ("recorder", "langgraph", "trace"):
        assert figures(predict(late["async"], form)["sync"]) == (10, 1, 1), form
    every_prediction_holds(zero, forms=FORMS)
    every_prediction_holds(late, forms=FORMS)


def test_an_undated_pause_kill_is_asked_at_moments_while_its_puts_flew(tmp_path: Path) -> None:
    """subgraph_noop_replay_then_input at 0.25 s, killed 0.2 s after the second input's
    ``ask_1`` asked (it asks before it logs), read from sync's trace with the mode inferred:
    nothing dates the kill, and async's figures were the range between a kill at once after
    the pause (3 tasks, 5 lines again) and a clean pause (2 tasks, 4 lines). The real async
    run, killed while its puts were still in flight, ran 2 tasks and 3 lines again: the span
    around the subgraph had not closed, and the lines again are not monotonic in the moment.
    The moments while the queued puts flew are asked too."""
    runs = load("subgraph_noop_replay_then_input-late-0.25s", tmp_path)
    assert real(runs["async"], "trace") == (13, 2, 3)
    told = predict(runs["sync"], "trace", given=False)["async"]
    assert holds(told, (13, 2, 3)), (figures(told), told.race)
    every_prediction_holds(runs, forms=FORMS)
