"""Parallel runs of one subgraph (`Send` workers that each pause at ``interrupt()``), read
from every log form: which run each line was, what paused, and what the re-timing keeps.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, judged, load, plan, predict, real

PARALLEL = "parallel_interrupts-late-0.25s"
DOUBLE = "parallel_interrupts_double-late-0.25s"


def test_a_workers_second_effect_is_its_task_going_on_beside_a_sibling_still_open(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts, a bare log under sync: in the second invocation worker a is
    answered and logs ``ask`` then ``record`` while worker b, which logged ``ask`` beside it,
    is still open. Every task of the step had been given to an earlier line, so ``record``
    was aligned with no checkpoint and read as running again (3 lines where 1); it is the
    answered worker's task going on (`align._continue_effect`). Then the third invocation is
    the answer to b's pause, not a fresh input: b9c7's run returned before it, which said
    nothing of the sibling run that paused (`evidence._went_past`, per namespace)."""
    runs = load(PARALLEL, tmp_path)
    sync = predict(runs["sync"], "bare")["sync"]
    assert figures(sync) == real(runs["sync"], "bare") == (9, 1, 1)
    assert "3 invocations: a fresh input, a resume, a resume" in sync.used
    checks = {c.mode: c for c in judged(PARALLEL, tmp_path)}
    assert checks["sync"].wrong == []


def test_which_worker_went_on_is_told_by_the_database_from_a_bare_log(tmp_path: Path) -> None:
    """The same kill: the two workers log the same lines at the same moments, so the log
    alone cannot say which was answered and which paused, and the what-if had been the range
    over both placements (`align.realigned`). The database tells: the answered worker's run
    saved its task's writes and its end, the other's did not (`align._runs_in_order`), so
    both orders place the lines alike and each mode's figures are the real runs'."""
    runs = load(PARALLEL, tmp_path)
    for given in (True, False):
        outcomes = predict(runs["sync"], "bare", given)
        for target in ("async", "exit"):
            assert holds(outcomes[target], real(runs[target], "bare")), (given, target)
            assert "read both ways" not in outcomes[target].race.get("note", ""), target
    told = predict(runs["sync"], "bare")
    assert {m: figures(told[m]) for m in ("async", "exit")} == {
        "async": real(runs["async"], "bare"),
        "exit": real(runs["exit"], "bare"),
    }


def test_the_last_workers_graph_ends_before_its_parent_step_is_saved(tmp_path: Path) -> None:
    """test_parallel_interrupts_double, killed in cleanup after the last answer, recorded
    under sync at 0.25 s a write. On the re-timed clock the last worker's last moment falls
    on its parent's join once the sync waits are taken out; it is still inside its own run,
    and was moved by its own wait twice (`schedule._LaneClock`). Async then
    keeps the worker's last checkpoint (its executor waits for it) and loses only the root's
    step: 8 kept, where 7 had been predicted with full logs."""
    runs = load(DOUBLE, tmp_path)
    for src in ("sync", "exit"):
        for form in ("recorder", "langgraph"):
            got = predict(runs[src], form)["async"]
            assert figures(got) == real(runs["async"], form) == (8, 1, 1), (src, form)


def test_the_campaigns_hold_with_full_logs_and_traces(tmp_path: Path) -> None:
    for name in (PARALLEL, DOUBLE):
        every_prediction_holds(load(name, tmp_path / name), ("recorder", "langgraph", "trace"))


def test_a_functional_graphs_unnamed_call_takes_the_bare_line_of_its_node(
    tmp_path: Path,
) -> None:
    """test_multiple_subgraphs_mixed_state_graph: a node invokes the @entrypoint `add` twice,
    each run making one @task call, `add_task`, which its checkpoints record without a name.
    A bare line of `add_task` names a node no checkpoint names, and was read as a root step
    whose checkpoint was never saved (then, under exit, as a subgraph that raised out and
    saved on its way: 1 kept where 0). The call's task id, recomputed with the line's node
    name, proves it is that call (`align._call_below`): every bare verdict of both kill
    points is now right, and sync's figures are the real run's."""
    for name, sync_real in (
        ("multiple_subgraphs_mixed_state_graph-early-0.25s", (3, 0, 0)),
        ("multiple_subgraphs_mixed_state_graph-late-0.25s", (7, 1, 1)),
    ):
        runs = load(name, tmp_path / name)
        assert figures(predict(runs["sync"], "bare")["sync"]) == sync_real
        assert real(runs["sync"], "bare") == sync_real
        assert all(not c.wrong for c in judged(name, tmp_path / name)), name


def test_a_sibling_node_that_paused_before_logging_holds_its_step_in_a_bare_log(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts_double: each worker's graph runs get_human_input and
    get_dolphin_input in one step, and both ask before they log. The answer to one runs it
    (its lines) and runs the other again, which pauses again without a line: the step did
    not complete, and put no checkpoint. The log's task ids told that; a bare log's lines
    are told apart by the tasks the alignment gave them, two nodes due at one checkpoint
    (`evidence._sibling_left_due`). Read as a step that completed, async and exit each kept
    one checkpoint too many (9 and 4, where the real runs kept 8 and 3)."""
    runs = load(DOUBLE, tmp_path)
    for src in ("sync", "async", "exit"):
        for given in (True, False):
            outcomes = predict(runs[src], "bare", given)
            for target in {"sync", "async", "exit"} - {src}:
                assert holds(outcomes[target], real(runs[target], "bare")), (src, given, target)


def test_a_failure_inside_a_subgraph_is_its_nodes_handlers_in_a_bare_log(
    tmp_path: Path,
) -> None:
    """error_handler_subgraph_async: sub_fail_node raises inside the graph subgraph_node runs,
    and subgraph_node's error handler takes the failure. A log with namespaces showed the
    failure under ``subgraph_node:<id>``; a bare log shows it only through the database,
    which names sub_fail_node under that node's namespace (`evidence.runners_of`). The
    failure had been read as a raise that ended the invocation (2 invocations, the handler a
    resume), and then the handler, which runs in the root step that held the graph, as a
    step of its own: from exit, sync and async 7 2 3 where the real runs did 6 1 1."""
    runs = load("error_handler_subgraph_async-late-0s", tmp_path)
    for given in (True, False):
        outcomes = predict(runs["exit"], "bare", given)
        for target in ("sync", "async"):
            assert holds(outcomes[target], real(runs[target], "bare")), (given, target)
    assert figures(predict(runs["exit"], "bare")["sync"]) == (6, 1, 1)
    early = load("error_handler_subgraph_async-early-0.25s", tmp_path)
    assert holds(predict(early["exit"], "bare")["async"], real(early["async"], "bare"))


def test_a_line_killed_in_flight_is_not_in_the_run_of_a_worker_that_saved_its_writes(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts_double under exit, killed in the second invocation while the
    answered worker's graph ran: the database keeps each worker's pause and, of the root,
    the task writes of the worker that finished before. By time alone the killed line went
    to the first run by name, whose root task had saved its writes, and was read as kept,
    where the real resume ran it again. A task whose writes are saved is never run again by
    a resume, so a line in flight at the kill was not in the graph it ran
    (`align._holder_done`)."""
    name = "parallel_interrupts_double-early-0s"
    runs = load(name, tmp_path)
    assert figures(predict(runs["exit"], "bare")["exit"]) == real(runs["exit"], "bare")
    checks = {c.mode: c for c in judged(name, tmp_path)}
    assert checks["exit"].wrong == []


def test_a_killed_line_filed_in_a_saved_step_may_be_another_runs_and_run_again(
    tmp_path: Path,
) -> None:
    """parallel_interrupts_double, killed under exit at 0 s in the second worker's node: the
    bare log filed the killed line under the first worker's run, whose step sync and async
    save, and said nothing runs again under either, where the real runs re-ran the killed
    worker's task (one line). No step with a task in flight completes: where a bare log
    files the line in flight in a step the mode saves, the tasks again are a range that
    holds the other run's reading (three_level_stateful_forked from sync at 0.75 s: the
    line in ``inner_step``, 1-3 tasks again under async). The invocations before the kill
    are now told apart better (an answer begins with the node that asked before its first
    line), and parallel_interrupts_double's line is filed in the run it ran in."""
    runs = load("parallel_interrupts_double-early-0s", tmp_path)
    for given in (True, False):
        predicted = predict(runs["exit"], "bare", given)
        for target in ("sync", "async"):
            assert real(runs[target], "bare") == (7, 1, 1)
            assert holds(predicted[target], real(runs[target], "bare")), predicted[target].race
    runs = load("three_level_stateful_forked-late-0.75s", tmp_path / "three")
    told = predict(runs["sync"], "bare")["async"]
    assert told.race["reruns"] == [1, 3], told.race
    assert any("line in flight at the kill (inner_step)" in x for x in told.assumed)
    assert holds(told, real(runs["async"], "bare"))


def test_a_kill_moment_bounded_by_saved_checkpoints_reads_them_on_the_recorded_clock(
    tmp_path: Path,
) -> None:
    """send_to_subgraph, killed under sync 0.2 s into ``pick_best``, read without its manifest
    (mode and kill moment inferred): the kill came after every checkpoint the database holds
    had landed, and the last of them, the root's, was taken 0.25 s before ``pick_best``
    began. Read from the re-timed schedule, where the third `Send` worker's last put lands
    0.8 s late, the kill moved to 0.77 s into ``pick_best``, and async was predicted to keep
    15 checkpoints where the real run kept 14."""
    runs = load("send_to_subgraph-late-0.25s", tmp_path)
    for form in ("recorder", "bare", "trace"):
        p = plan(runs["sync"], form, given=False)
        assert not any("0.77 s into pick_best" in x for x in p.what_if["async"].assumed)
        assert holds(p.what_if["async"], real(runs["async"], form)), form
        assert real(runs["async"], form)[0] == 14


def test_a_send_workers_span_open_only_for_its_subgraphs_puts(tmp_path: Path) -> None:
    """send_to_subgraph from async at 0.25 s a write, read from a trace: the third worker's
    subgraph had run its last task 0.6 s before the kill, but its span was still open,
    its loop waiting for four puts chained one behind the other. Under sync each put was
    waited for after its step, and the worker returned at once: the real sync run re-ran
    4 tasks, not that worker (5 had been predicted). Told no mode, sync said 5."""
    runs = load("send_to_subgraph-early-0.25s", tmp_path)
    assert real(runs["sync"], "trace") == (11, 4, 4)
    assert figures(predict(runs["async"], "trace")["sync"]) == (11, 4, 4)
    # with the mode (and its write latency) inferred, nothing says whether the span was
    # open for those puts or for more work: both, as a range, never the reassuring end alone
    o = predict(runs["async"], "trace", False)["sync"]
    assert o.race["reruns"] == [4, 5] and len(o.reruns) == 5 and holds(o, (11, 4, 4))


def test_a_node_that_works_on_after_its_subgraph_is_not_taken_as_returned(
    tmp_path: Path,
) -> None:
    """double_interrupt_subgraph from exit, read from a trace: ``invoke_sub_agent``'s graph
    had run its last task, answered, 0.2 s before the kill, and its span was still open
    though nothing was left to wait for at 0 s a write: the node's body went on after the
    graph returned. Read as returned, sync and async said nothing again (the reassuring
    answer) where the real runs re-ran it, 5 spans."""
    runs = load("double_interrupt_subgraph-late-0s", tmp_path)
    for target in ("sync", "async"):
        assert real(runs[target], "trace") == (6, 1, 5)
        assert figures(predict(runs["exit"], "trace")[target]) == (6, 1, 5), target


def test_a_recorded_sync_run_whose_writes_nothing_dates_may_have_waited_for_them(
    tmp_path: Path,
) -> None:
    """multiple_subgraphs_mixed_state_graph on a 0.25 s store, killed in call_same_subgraph,
    read without its manifest: no step of the log follows a saved checkpoint, so the mode
    inferred is sync or async and nothing dates the store's writes. Read as a sync run that
    waited for none, its waits stayed in the timeline as work, and async was given time to
    land the subgraph's put: 3 kept and nothing again, where the real async run kept 2 and
    ran add_task again. A sync run on this what-if's store (the same one) is read too, where
    the database rules exit out."""
    name = "multiple_subgraphs_mixed_state_graph-early-0.25s"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (2, 1, 2)
    for form in ("recorder", "langgraph"):
        told = predict(runs["sync"], form)
        assert figures(told["async"]) == (2, 1, 2), form
        inferred = predict(runs["sync"], form, given=False)["async"]
        assert "nothing dates the recorded store's writes" in inferred.race["note"], form
        assert holds(inferred, real(runs["async"], form)), (form, inferred.race)
        # the exit recording's database saved nothing while the run went on: exit is left,
        # and a sync run's unseen waits are not read into it (they widened, and fixed nothing)
        from_exit = predict(runs["exit"], form, given=False)
        assert not any(
            "nothing dates the recorded store's writes" in (o.race or {}).get("note", "")
            for o in from_exit.values()
        ), form
    every_prediction_holds(runs, same_progress=True)


EARLY = "parallel_interrupts_double-early-0s"


def test_a_finished_bare_line_is_the_run_whose_task_saved_its_writes(tmp_path: Path) -> None:
    """test_parallel_interrupts_double under async, killed in the last answer's get_human_input,
    a bare log: worker c37d's get_human_input was answered and its run returned (its task's
    writes saved), worker 5766's paused again. Tried in the runs' name order, that finished
    line was filed in 5766, where its task has no writes: read as a task that stopped at
    interrupt() and runs again, 3 lines again where the real resume ran 1. A finished line
    tries first a run whose task of its node saved its writes (`align._runs_in_order`)."""
    runs = load(EARLY, tmp_path)
    assert figures(predict(runs["async"], "bare")["async"]) == real(runs["async"], "bare")
    checks = {c.mode: c for c in judged(EARLY, tmp_path)}
    assert checks["async"].wrong == [] and checks["async"].figures == ""


def test_a_bare_line_of_a_task_no_earlier_line_ran_is_a_resume_not_a_fresh_input(
    tmp_path: Path,
) -> None:
    """The same graph under sync, read from a bare log: the fourth invocation began with
    get_dolphin_input, as the third had, which the node names alone read as the graph
    starting over (a fresh input). Its line is the one that saved that task's writes, a task
    of a checkpoint saved before it began: the answer to worker 872f's pause. Read as a fresh
    input, exit kept 5 and re-ran nothing where the real exit run kept 3 and re-ran 1
    (`evidence._given_before`)."""
    runs = load(EARLY, tmp_path)
    got = predict(runs["sync"], "bare")
    assert (
        "5 invocations: a fresh input, a resume, a resume, a resume, a resume" in got["exit"].used
    )
    assert figures(got["exit"]) == real(runs["exit"], "bare") == (3, 1, 1)


def test_no_line_of_the_killed_process_is_a_run_exit_saved_on_its_way_out(
    tmp_path: Path,
) -> None:
    """Recorded under exit, bare logs: a worker's run that returned shows only in its caller's
    saved writes (exit saves the root's step as an invocation ends, not the run's own end), so
    it returned in an invocation before the killed one. test_parallel_interrupts_double: the
    line of the killed process was filed in that run, read as kept, where the real resume ran
    it again (3 lines, not 1). test_parallel_interrupts: the answered worker's ``ask`` and
    ``record`` were filed in the worker that paused again (11 lines, not 9)
    (`align._runs_in_order`, `_Index.saved_on_exit`)."""
    for name, want in ((DOUBLE, (3, 2, 3)), (PARALLEL, (3, 2, 9))):
        runs = load(name, tmp_path)
        assert figures(predict(runs["exit"], "bare")["exit"]) == real(runs["exit"], "bare")
        assert real(runs["exit"], "bare") == want
        checks = {c.mode: c for c in judged(name, tmp_path)}
        assert checks["exit"].wrong == [], name


def test_a_line_told_apart_by_the_database_keeps_its_run_on_a_postgres_store(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts on Postgres, killed in the last answer's get_human_input under
    exit, a bare log: the killed line is told apart by the database (worker 66ba's run
    returned and was saved on the way out). The runs side by side were then filled in their
    order for each invocation, which put it in 66ba, and 66ba's ask in the answer before was
    read as a pause begun again, its step not done: sync and async kept 6 where the real runs
    kept 7 (`evidence._SideBySide.place`, `_other_run`)."""
    name = "parallel_interrupts-early-0.25s-postgres"
    runs = load(name, tmp_path)
    for given in (True, False):
        got = predict(runs["exit"], "bare", given)
        for target in ("sync", "async"):
            assert holds(got[target], real(runs[target], "bare")), (given, target)
    assert figures(predict(runs["exit"], "bare")["sync"]) == real(runs["sync"], "bare")
    assert all(c.wrong == [] for c in judged(name, tmp_path))


def test_a_run_whose_last_line_was_paired_by_guess_still_takes_the_line_told_to_it(
    tmp_path: Path,
) -> None:
    """send_to_subgraph under async, killed in the second generate, a bare log: three `Send`
    workers' edits start together, and their end lines were paired with them in order, a
    guess (worker 916e's edit ended last, not first). The database tells which run each
    start and the first generate were; the generate's run looked busy until the end line
    paired with its edit by that guess, so it was filed in another run, whose step then read
    as saved: sync 12 kept where the real run kept 11 (`_SideBySide._paired_by_guess`)."""
    runs = load("send_to_subgraph-early-0.25s", tmp_path)
    assert figures(predict(runs["async"], "bare")["sync"]) == real(runs["sync"], "bare")


def test_a_workers_line_before_its_pause_does_not_take_its_runs_saved_writes(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts at 0.1 s a write, killed in the last answer's
    get_human_input, bare logs under sync and async: both workers log ``ask`` before they
    pause, and log it again on each answer. The first invocation's ``ask`` lines finished,
    but their tasks paused; filed first, one of them took the saved writes of the worker
    answered later, whose own ``ask`` and ``record`` then went to the run that paused again:
    4 verdict lines wrong, 7 lines again where 5. Among runs that fit alike, a finished line
    goes to the run whose step ended as it did (the answered worker's, as its ``record``
    ended: `align._seen_after`)."""
    name = "parallel_interrupts-early-0.1s"
    runs = load(name, tmp_path)
    for mode in ("sync", "async"):
        assert figures(predict(runs[mode], "bare")[mode]) == real(runs[mode], "bare") == (7, 1, 5)
    assert all(c.wrong == [] and c.figures == "" for c in judged(name, tmp_path))


def test_a_finished_bare_line_is_the_run_whose_step_ended_as_it_did(tmp_path: Path) -> None:
    """send_to_subgraph at 0.1 s a write, killed in pick_best, a bare log under sync: three
    `Send` workers' edits, each run's checkpoint made as its edit ended. Filed in the runs'
    name order, the first edit went to the second run, and async was predicted to keep 13
    and re-run 3 lines where the real run kept 15 and re-ran 1 (`align._seen_after`)."""
    runs = load("send_to_subgraph-late-0.1s", tmp_path)
    assert figures(predict(runs["sync"], "bare")["async"]) == real(runs["async"], "bare")


def test_a_first_wave_line_goes_to_the_run_its_checkpoints_put_it_in(tmp_path: Path) -> None:
    """test_parallel_interrupts at 0.5 s a write, killed in cleanup, a bare log under sync:
    each invocation's first lines were filed in the side-by-side runs in their order, not in
    the runs the checkpoints had put them in, and both workers' first ``ask`` went to one run.
    Re-timed, async re-ran 2 tasks and 3 lines where 1 and 1, exit kept 4 and re-ran 3 lines
    where 3 and 9. A run that has no line yet in the invocation takes the line the alignment
    put there (`evidence._SideBySide.place`)."""
    runs = load("parallel_interrupts-late-0.5s", tmp_path)
    got = predict(runs["sync"], "bare")
    for target in ("async", "exit"):
        assert figures(got[target]) == real(runs[target], "bare"), target


MULTI = "multi_resume-early-0.5s"


def test_a_kill_aimed_at_a_workers_node_counts_from_its_first_start(tmp_path: Path) -> None:
    """test_multi_resume at 0.5 s a write: three `Send` workers each run a subgraph whose node
    logs ``ask``, pauses, and is answered all at once; the kill was aimed 0.6 s after the
    node's first start in the answered invocation. Walking back from the last worker's
    ``record``, the other workers' lines between stopped the walk at once, and the kill was
    dated from ``record``'s start, 0.36 s late: under sync the first worker's run then saved
    one more checkpoint (9 kept where the real runs kept 8). Another task of the node logged
    in between is skipped, not a stop (`evidence._sibling_task`)."""
    runs = load(MULTI, tmp_path)
    assert real(runs["sync"]) == (8, 2, 10)
    for src in ("async", "exit"):
        for form in ("recorder", "langgraph"):
            assert figures(predict(runs[src], form)["sync"]) == (8, 2, 10), (src, form)


def test_a_workers_span_may_close_before_a_kill_only_the_last_line_bounds(
    tmp_path: Path,
) -> None:
    """The same kill, the sync recording's trace with the mode inferred: no manifest dates the
    kill, so only the last line bounds it. The first worker's span was open at that line,
    waiting for its graph's puts; under exit it closes at once, before the kill may have come,
    and its end is one more line again (the real exit run re-ran 20, the recording holds
    19). Under exit the latest moment the kill may have come counts for that range
    (`Schedule.closed_spans`)."""
    runs = load(MULTI, tmp_path)
    exit_ = predict(runs["sync"], "trace", given=False)["exit"]
    assert real(runs["exit"], "trace") == (4, 6, 20)
    assert holds(exit_, (4, 6, 20)) and figures(exit_)[2] == 19, exit_.race


def test_a_line_the_kill_cut_short_is_no_effect_of_a_task_that_returned(
    tmp_path: Path,
) -> None:
    """The same kill, bare logs: lines of three workers of one node, paired by order. The last
    worker's ``record``, cut short by the kill, had gone on from the first worker's task,
    whose writes the database holds (it had returned): read as kept, where the real resume
    ran it again, and the run it should have been had an end line to spare. A task that
    returned had no effect the kill cut short, neither in the alignment nor in the side-by-side
    order of the runs (`align._continue_effect`,
    `evidence._SideBySide`); and a task's writes saved in a later process were saved by that
    process's line, not by its line before the pause (`align._Index.completed`)."""
    runs = load(MULTI, tmp_path)
    last = max(plan(runs["sync"], "bare").attempts, key=lambda a: a.start_ts)
    assert last.outcome == "in flight" and last.verdict == "replays"
    checks = judged(MULTI, tmp_path)
    assert all(not c.wrong for c in checks), [c.wrong for c in checks]
    for src in ("sync", "async"):
        for given in (True, False):
            sync = predict(runs[src], "bare", given)["sync"]
            assert holds(sync, real(runs["sync"], "bare")), (src, given, sync.race)


def test_a_bare_kill_aimed_at_a_workers_node_skips_the_siblings_open_beside_it(
    tmp_path: Path,
) -> None:
    """The same kill, bare logs with the mode given: no task ids or namespaces tell the
    workers apart, so the walk back to the killed task's first effect stopped at the first
    line of the node before it (another worker's, still open), and the kill was dated from
    the last worker's ``record``, 0.36 s late: sync and async then kept the first worker's
    run's next checkpoint (9 where 8). A line of the node the alignment put in another run
    is another task's (`evidence._sibling_task`)."""
    runs = load(MULTI, tmp_path)
    for src, target in (("async", "sync"), ("exit", "async")):
        o = predict(runs[src], "bare")[target]
        assert holds(o, real(runs[target], "bare")) and o.checkpoints_kept == 8, (src, o.race)


def test_an_exit_saved_runs_lines_are_placed_by_when_the_loop_made_its_checkpoint(
    tmp_path: Path,
) -> None:
    """The same kill recorded under exit, bare log: each worker's run saved its checkpoint
    on its way out, at the pause, so its `ts` comes after the run's first lines; the id keeps
    the moment the loop made it, before the run's node started. Placed by `ts`, two workers'
    first lines fell in no run, and the recorded mode's own figures counted a fourth task
    (4 4 16 where the resume re-ran 3 tasks). The alignment reads when the loop made each
    checkpoint (`align.made_at`)."""
    runs = load(MULTI, tmp_path)
    assert real(runs["exit"], "bare") == (4, 3, 16)
    for given in (True, False):
        assert figures(predict(runs["exit"], "bare", given)["exit"]) == (4, 3, 16), given
    first = [a for a in plan(runs["exit"], "bare").attempts if a.pid == min(
        x.pid for x in plan(runs["exit"], "bare").attempts)]  # fmt: skip
    assert len({a.namespace for a in first}) == 3 and all(a.checkpoint for a in first)


def test_an_end_line_several_open_starts_could_close_is_read_both_ways(tmp_path: Path) -> None:
    """The same exit recording, bare, into sync: the three answered workers each log ``ask``
    and then ``record``; an end came while one worker's ``ask`` and two ``record`` starts were
    open. Given to the oldest open start, it ended the third worker's ``ask``, and the first
    worker went on to a third effect: 12 lines again where the real sync resume ran 10 (2
    tasks: the worker that finished ``record`` is kept whichever it was). The log cannot
    tell which start the end closed; the model reads it both ways and gives the range
    (`align.paired_newest`), saying why once and its figures once."""
    runs = load(MULTI, tmp_path)
    measured = real(runs["sync"], "bare")
    assert measured == (8, 2, 10)
    for given in (True, False):
        for target in ("sync", "async"):
            o = predict(runs["exit"], "bare", given)[target]
            assert holds(o, measured), (given, target, figures(o), o.race)
            assert "which start it closed" in o.race["note"], o.race
            # the range over several readings says its figures once (`outcomes._causes`)
            assert o.race["note"].count("effect lines again") == 1, o.race["note"]


def test_workers_first_lines_written_out_of_order_each_take_a_run_of_their_own(
    tmp_path: Path,
) -> None:
    """test_multi_resume under `ainvoke` at 0.3 s a write, killed in the answered invocation,
    the bare log of the async recording: the three workers' first ``ask`` starts were
    written to the log out of order (the second line began 4 ms before the first). Aligned
    in the log's order, the first line took the run made first, the only run made before
    the second line began, and the second line was left with no task of its own: one
    worker's first-invocation lines were read as another's, and the lines again under sync
    and exit came out 2 short (8 where the real sync resume re-ran 10, 14 where exit's
    re-ran 16). Lines are aligned in the order they started (`align.align`)."""
    name = "multi_resume-early-0.3s"
    runs = load(name, tmp_path)
    first = [a for a in plan(runs["async"], "bare").attempts if a.pid == min(
        x.pid for x in plan(runs["async"], "bare").attempts)]  # fmt: skip
    assert len({a.namespace for a in first}) == 3 and all(a.task for a in first)
    for given in (True, False):
        for target in ("sync", "exit"):
            o = predict(runs["async"], "bare", given)[target]
            assert holds(o, real(runs[target], "bare")), (given, target, figures(o), o.race)
    every_prediction_holds(runs)


def test_a_line_goes_on_from_the_line_before_it_in_the_log_not_in_start_order(
    tmp_path: Path,
) -> None:
    """test_graph_with_max_concurrency on `Send` workers under `ainvoke` at 0.3 s a write,
    killed in the fourth worker, the bare log of the sync recording: the first two workers'
    starts were written out of order, and the third worker began right after the first
    one's end. Taken in start order, the line before the third start was that end, so the
    third worker was read as the first one's next effect (3 tasks again where the real
    resume re-ran 4). What a line goes on from is the line before it in the log, where the
    second worker was still open (`align.align`)."""
    name = "max_concurrency_send-early-0.3s"
    runs = load(name, tmp_path)
    attempts = plan(runs["sync"], "bare").attempts
    assert len({a.task.task_id for a in attempts if a.task}) == len(attempts) == 4
    assert real(runs["sync"], "bare") == (2, 4, 6)
    every_prediction_holds(runs)


def test_a_bare_workers_retry_is_its_task_though_a_sibling_started_between(
    tmp_path: Path,
) -> None:
    """test_graph_with_single_retry_policy on three `Send` workers at 0.5 s a write, killed in
    ``collect``: the second worker failed, its `RetryPolicy` ran it again at once, and every
    worker's writes were saved. In a bare log the third worker's start came between the
    failure and the retry in the list of attempts, so the retry was no worker's task and was
    read as running again under async (2 tasks and 3 lines where the real resume re-ran 1
    and 1). The retry is the failed task's, whatever started in between
    (`attempts.retried_in_step`, used by `align.align`)."""
    name = "send_retry_policy-late-0.5s"
    runs = load(name, tmp_path)
    assert real(runs["async"], "bare") == (2, 1, 1)
    assert figures(predict(runs["async"], "bare")["async"]) == (2, 1, 1)
    assert all(not c.wrong for c in judged(name, tmp_path))
    every_prediction_holds(runs, same_progress=True)


def test_a_failed_line_taken_first_leaves_the_saved_task_to_the_line_that_ended(
    tmp_path: Path,
) -> None:
    """test_graph_with_single_retry_policy on `Send` workers on Postgres under `ainvoke` at
    0.15 s, killed in the third worker, bare log of the async recording: the first two
    workers' starts were written out of order, so in start order the worker that failed
    (and was retried) is aligned before the one that ended. No task fits a failure (a
    `RetryPolicy` retry saves no error), and the failed line took the first task, the one
    whose writes are saved: the finished worker was read as running again (2 3 4 where the
    real resume re-ran 2 tasks). A line that did not end well takes a task with no saved
    writes first (`align.pick_task`)."""
    name = "send_retry_policy-early-0.15s-postgres"
    runs = load(name, tmp_path)
    assert real(runs["async"], "bare") == (2, 2, 4)
    assert figures(predict(runs["async"], "bare")["async"]) == (2, 2, 4)
    assert all(not c.wrong for c in judged(name, tmp_path)), "bare verdict lines wrong"
    every_prediction_holds(runs)


def test_a_task_only_asked_for_is_left_to_the_line_that_ran_it(tmp_path: Path) -> None:
    """test_send_dedupe_on_resume at 0.5 s a write, bare log from exit: the one checkpoint
    exit saved (at the pause) was made a millisecond before the first invocation's second
    ``2`` began. The ``2`` lines before it, which ran in a step that saved nothing, had
    asked for that checkpoint's ``2`` task and, read as an earlier run, let it go, but kept
    it claimed: the second ``2`` found it taken, was read as a step after the newest
    checkpoint and said to run again; its writes were saved with the pause, and the resume
    did not run it (`align._claim_task`)."""
    for name in ("send_dedupe_on_resume-early-0.5s", "send_dedupe_on_resume-late-0.5s"):
        runs = load(name, tmp_path / name)
        told = plan(runs["exit"], "bare")
        second = [a for a in told.attempts if a.node == "2"][2]
        assert second.verdict == "kept" and second.task is not None, (name, second.reason)


def test_a_resume_after_a_pause_reuses_what_an_earlier_process_finished(tmp_path: Path) -> None:
    """test_send_dedupe_on_resume at 0.5 s a write, bare log from async, killed in the
    resume's ``3``: the first process ran ``2``, ``flaky`` and ``3`` in one step and paused
    in ``flaky``; the resume ran ``flaky`` again and then ``3``, a task of the next step.
    The log cannot say which step that ``3`` was, and it was read as the first process's
    finished ``3`` (kept: 4 0 0 where the real resume re-ran it, 4 1 1). A resume after a
    pause reuses the writes every task of an earlier process saved at the paused step
    (`align.pick_task`). Then, into exit, that first ``3`` was read as a task whose step
    raised after it (no checkpoint of its step, though its invocation was over): the
    step had paused, its ``flaky`` answered later, finished now (`model.Task.paused`,
    `evidence._raised_after_lines`; 1 3 9 where the real exit resume gave 1 2 7)."""
    name = "send_dedupe_on_resume-late-0.5s"
    runs = load(name, tmp_path)
    assert real(runs["async"], "bare") == (4, 1, 1)
    assert figures(predict(runs["async"], "bare")["async"]) == (4, 1, 1)
    assert all(not c.wrong for c in judged(name, tmp_path))
    for given in (True, False):
        o = predict(runs["async"], "bare", given)["exit"]
        assert holds(o, real(runs["exit"], "bare")), (given, figures(o), o.race)


def test_a_bare_nodes_lines_one_after_another_are_also_read_as_tasks_of_their_own(
    tmp_path: Path,
) -> None:
    """test_command_goto_with_static_breakpoints at 0.5 s a write, bare log from exit,
    killed in the second ``node2``: the log cannot tell that second run (a task of the next
    step) from the first one's second effect, and read the latter. Under sync the first
    run's step was saved, and only the second ran again (3 1 1, where the model said 2 1 3;
    async 2 1 1 where 3 2 5). The what-if now reads both (`align.split_runs`)."""
    runs = load("command_goto_breakpoint-late-0.5s", tmp_path)
    for given in (True, False):
        outcomes = predict(runs["exit"], "bare", given)
        for target in ("sync", "async"):
            o = outcomes[target]
            assert holds(o, real(runs[target], "bare")), (target, given, figures(o), o.race)


def test_a_resume_after_an_invocation_that_logged_nothing_goes_on_from_its_checkpoint(
    tmp_path: Path,
) -> None:
    """The same graph on Postgres at 0.3 s a write, bare log from exit: the first input is
    held at the static breakpoint before ``node1`` and logs nothing; the `Command` that
    answers it runs ``node1`` and ``node2`` in the step after the breakpoint's checkpoint.
    Read as a resume, the answer's steps were counted from before any checkpoint (the
    invocation before had no line to date its save), so the re-timed sync and async runs
    saved one step too many (4 kept where 3, killed in the second ``node2``; 1 task again
    where 2, killed in ``node1``). A resume after an invocation that logged nothing goes on
    from the root checkpoints taken before it began (`evidence._assign_steps`)."""
    for name in ("command_goto_breakpoint-early-0.3s-postgres",
                 "command_goto_breakpoint-late-0.3s-postgres"):  # fmt: skip
        runs = load(name, tmp_path / name)
        every_prediction_holds(runs)
    late = load("command_goto_breakpoint-late-0.3s-postgres", tmp_path / "late")
    assert figures(predict(late["exit"], "bare")["sync"]) == real(late["sync"], "bare")


def test_starts_told_apart_by_no_line_are_one_class_however_the_ends_were_paired(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts on Postgres at 2 s, a bare log under async: in the second
    invocation worker b logs ``ask`` (line 5), worker a ``ask`` (6), a's ``ask`` ends (7), a
    logs ``record`` (8), then two ends (9, 10); b pauses again. Each end was paired by order
    with one of the starts then open, 7 among 5 and 6, 9 among 6 and 8, and each guess named
    only its own pair, so 5 stood in a class of its own from 8 and the verdicts were judged
    two lines wrong (b's ``ask`` re-runs, the plan had put the open start at 8). Which of
    5, 6 and 8 stays open is one guess (`attempts._close_peer_classes`); how many do is not."""
    name = "parallel_interrupts-early-2s-postgres"
    runs = load(name, tmp_path)
    attempts = plan(runs["async"], "bare").attempts
    second = [a for a in attempts if a.lines[0].line in (5, 6, 8)]
    assert [a.peers for a in second] == [(5, 6, 8)] * 3
    checks = {c.mode: c for c in judged(name, tmp_path)}
    assert checks["async"].wrong == []
    assert checks["async"].by_class >= 6
    every_prediction_holds(runs, same_progress=True)


def test_a_workers_last_writes_are_put_before_its_graph_waits_to_leave(tmp_path: Path) -> None:
    """test_send_to_subgraph's shape on Postgres under `ainvoke` at 0.3 s a write, killed in
    the second worker's `generate`: the first worker's graph had ended, its `generate` writes
    put as it returned (0.41 s into the run), and its loop then waited for its puts in
    flight before leaving (the last would land at 1.24 s, after the kill at 1.02 s). Re-timed
    from the exit recording, that wait was read as before the writes: they were taken to
    land after the kill, and the resume, re-entering the graph at its checkpoint after
    `edit`, to run `generate` again (9 3 4 where the real async resume ran 9 2 2). Writes are
    put first (`schedule.PUT_FIRST`)."""
    runs = load("send_to_subgraph-early-0.3s-postgres", tmp_path)
    assert real(runs["async"]) == (9, 2, 2)
    for form in ("recorder", "langgraph", "trace"):
        outcome = predict(runs["exit"], form)["async"]
        assert holds(outcome, real(runs["async"], form)), (form, figures(outcome), outcome.race)
    assert figures(predict(runs["exit"])["async"]) == (9, 2, 2)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_bare_workers_line_after_a_finished_one_may_be_a_worker_in_its_place(
    tmp_path: Path,
) -> None:
    """test_send_dedupe_on_resume's max_concurrency graph (four `Send` workers, two at a
    time) under `ainvoke` at 0.65 s a write, killed as the last two workers began: two had
    finished, their writes not yet saved, and two had started as they ended. A bare log
    names no effect, so each new start was read as the finished worker's next effect going
    on (`attempts.continues`) and aligned with that worker's task: 3 tasks again said, with
    no range, where the real resume re-ran 4, under sync and async alike. The tasks again
    are now a range up to the workers due at that checkpoint no line took
    (`outcomes._widen_for_joined`)."""
    runs = load("max_concurrency_sends-early-0.65s", tmp_path)
    for mode in ("sync", "async"):
        assert real(runs[mode], "bare") == (3, 4, 6)
        for given in (True, False):
            own = predict(runs[mode], "bare", given)[mode]
            assert holds(own, (3, 4, 6)), (mode, given, figures(own), own.race)
            if given:  # (told nothing, the mode's own doubt widens it further)
                assert own.race["reruns"] == [3, 4], own.race
    every_prediction_holds(runs, same_progress=True)
