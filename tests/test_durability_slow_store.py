"""The what-if on a store that takes 1 s (or 0.5 s) a write, longer than the time to the kill: the
first contact of eight shapes of the corpus with that latency (`validate --latency 1`,
2026-12-04) put 13 of 368 cross-mode predictions outside, in two kill points; these are
their recordings.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from whatif_kills import every_prediction_holds, figures, holds, judged, load, plan, predict, real


def test_a_first_invocation_whose_input_checkpoint_never_landed_was_killed(
    tmp_path: Path,
) -> None:
    """multiple_subgraphs_functional, killed 0.8 s after the entrypoint began: at 1 s a
    write not even its input checkpoint had landed (sync does not wait for it), so the
    database holds the thread's call writes and no checkpoint. Every logged call had ended,
    and the invocation had been read as one that returned: under exit it would then have
    saved its end, and a resume would go on from it (1 kept, 1 task again). An invocation
    that returned leaves a root checkpoint in every mode: this one was killed, and a resume
    starts over (0 kept, 2 tasks again), as the real sync and async runs did."""
    runs = load("multiple_subgraphs_functional-late-1s", tmp_path)
    assert real(runs["sync"]) == real(runs["async"]) == (0, 2, 4)
    for src in ("sync", "async"):
        p = plan(runs[src])
        assert p.what_if[src].ending == "killed"
        for target in ("sync", "async"):
            assert figures(p.what_if[target]) == (0, 2, 4), (src, target)
    # a bare log reads the calls as steps of a graph: as calls, nothing had landed at all
    o = predict(runs["async"], "bare")["sync"]
    assert o.race["reruns"] == [0, 2] and holds(o, (0, 2, 4))
    every_prediction_holds(runs, same_progress=True)


def test_a_subgraph_that_raised_out_is_told_from_its_queue_of_puts(tmp_path: Path) -> None:
    """parent_command, killed in node_b_parent after the subgraph's node_b_child returned
    ``Command(graph=PARENT)``. Under async the subgraph's three puts queued up behind each
    other (1 s each), and its loop left only once they had landed: node_b_parent began 2.4 s
    after node_b_child ended. One put sooner than a normal end had been counted from that
    end, so the gap read as a normal end: a put of the subgraph's last step, sync 7 kept
    (6 real), and exit without the save a loop that raised out makes (0 kept, 1 real)."""
    runs = load("parent_command-late-1s", tmp_path)
    assert real(runs["sync"]) == (6, 1, 1) and real(runs["exit"]) == (1, 3, 5)
    o = predict(runs["async"])
    assert figures(o["sync"]) == (6, 1, 1) and figures(o["exit"]) == (1, 3, 5)


def test_a_bare_line_after_a_subgraph_that_raised_out_is_the_parents(tmp_path: Path) -> None:
    """The same kill from the exit recording with a bare log: the database holds the
    subgraph's checkpoint with node_b_child due, saved after node_b_child's last line (the
    save a loop makes as it raises out under exit). node_b_parent, a node no checkpoint
    names, had been filed as a later step of that subgraph, whose puts then queued behind
    it: async 2 kept and 3 tasks again, where the real run kept 5 and re-ran 1."""
    runs = load("parent_command-late-1s", tmp_path)
    assert real(runs["async"]) == (5, 1, 1)
    assert figures(predict(runs["exit"], "bare")["async"]) == (5, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_an_error_handler_waits_for_the_failures_writes_not_for_a_checkpoint(
    tmp_path: Path,
) -> None:
    """error_handler at 0.5 s a write, killed 0.7 s after charge began (its handler had
    started): LangGraph runs the handler once the failure's writes are durable
    (`schedule_error_handler` waits for those `put_writes`), which the recordings show 7 to
    13 ms after the failure in every mode. They had been taken to take a checkpoint's
    write latency under sync and async: async started the handler 0.5 s late, its step-0
    checkpoint had landed by then (2 kept, prepare not again), where the real async run kept
    only its input checkpoint and ran prepare, charge and the handler again."""
    runs = load("error_handler-early-0.5s", tmp_path)
    assert real(runs["async"]) == (1, 3, 5)
    for src in ("sync", "exit"):
        assert figures(predict(runs[src])["async"]) == (1, 3, 5), src
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_bare_line_in_flight_inside_the_graph_keeps_its_caller_running(
    tmp_path: Path,
) -> None:
    """stateful_subgraph_interrupt at 0.5 s a write, killed in ``respond`` inside the graph
    ``call_inner`` invokes, after the second answer. A bare log's ``respond`` line, placed in
    that graph after its ``process`` (by the database's names, or after the exit database,
    which names no ``respond``, by following the graph's own lines), had been left out of
    "the graph is still running": ``call_inner``, whose own lines had ended, was taken as
    returned and its writes as saved under sync and async (1 task again where the real runs
    re-ran 2, ``call_inner`` with it). The figures now follow the placement."""
    runs = load("stateful_subgraph_interrupt-late-0.5s", tmp_path)
    assert real(runs["sync"]) == (17, 2, 5) and real(runs["async"]) == (16, 2, 5)
    for src in ("async", "exit"):
        o = predict(runs[src], "bare")
        assert figures(o["sync"])[1:] == (2, 5) and holds(o["sync"], (17, 2, 5)), src
    o = predict(runs["exit"], "bare")["async"]
    assert figures(o)[1:] == (2, 5) and holds(o, (16, 2, 5))


def test_a_bare_retry_inside_its_step_is_the_same_task(tmp_path: Path) -> None:
    """pending_writes_resume at 0.5 s, from exit, a bare log: ``two`` failed, its
    `RetryPolicy` ran it again 3 ms later in the same process, failed again, and the
    invocation raised; the kill came in the answer's retry. The exit database's one
    checkpoint has ``two`` due, so the first attempt had been filed in an earlier step
    whose checkpoint was never saved ("a later task of its node is the one due there") and
    judged not to run again: sync 4 1 1 where the real run gave 2 1 5, and its two lines
    measured again. A failed attempt the same process started again next is the same task."""
    runs = load("pending_writes_resume-early-0.5s", tmp_path)
    assert real(runs["sync"]) == (2, 1, 5) and real(runs["async"]) == (2, 1, 5)
    bare = plan(runs["exit"], "bare")
    assert [a.verdict for a in bare.attempts if a.node == "two"] == ["replays"] * 3
    assert figures(bare.what_if["sync"]) == figures(bare.what_if["async"]) == (2, 1, 5)


def test_a_workers_span_that_under_async_closes_after_the_kill_is_no_line_again(
    tmp_path: Path,
) -> None:
    """send_to_subgraph at 0.5 s a write, killed 0.2 s into the second worker's generate,
    read from the exit recording's trace: the first worker's span closed there as its graph
    returned, before the kill. Under async the worker returns only once its run's puts land
    (the executor waits for them), after the kill: its span end was never written, and the
    real async run re-ran 7 lines where every reading had said 8 or more
    (`outcomes._drop_lines_after_return`)."""
    runs = load("send_to_subgraph-early-0.5s", tmp_path)
    async_ = predict(runs["exit"], "trace")["async"]
    assert real(runs["async"], "trace") == (8, 6, 7)
    assert holds(async_, real(runs["async"], "trace")), async_.race
    assert any("were never written" in x for x in async_.assumed)


def test_a_workers_span_open_for_its_graphs_writes_closes_before_the_kill_under_exit(
    tmp_path: Path,
) -> None:
    """The same kill read from the async recording's trace: the first worker's span was still
    open at the kill, its graph done, waiting for the graph's puts. Exit waits for none: the
    span closes at once, and its end is one more line again than the recording wrote (the
    real exit run re-ran 14, the recording holds 13), with the mode given and inferred
    (`Schedule.closed_spans`, `outcomes._widen_for_closed_spans`)."""
    runs = load("send_to_subgraph-early-0.5s", tmp_path)
    assert real(runs["exit"], "trace") == (0, 9, 14)
    for given in (True, False):
        exit_ = predict(runs["async"], "trace", given)["exit"]
        assert figures(exit_)[2] == 13, given
        assert holds(exit_, real(runs["exit"], "trace")), (given, exit_.race)


# --- The third first contact at 0.5 s a write (8 shapes, 46 kills, 2026-12-05): 310/320
# cross-mode predictions inside with the mode given, 313/320 inferred; these are the
# recordings of the 17 rows outside.


def test_a_failure_whose_puts_never_landed_was_killed_on_its_way_out(tmp_path: Path) -> None:
    """error_handler_subgraph_async, killed 0.5 s after sub_fail_node started, 0.3 s after
    it raised: the error handler had not begun, for the subgraph's loop was still waiting
    for its queued puts. The async database lacks the steps sub_work ended, which a raise
    that left the graph would have waited for; the invocation had been read as one that
    raised, and under exit one that raised saves both graphs on its way out: 2 kept, where
    the real exit run kept 0 (`evidence._raise_never_got_out`). From the exit recording
    (nothing saved: a fresh input that raised out under exit leaves a root checkpoint), the
    bare log had async at 3 1 2 where the real run re-ran 2 tasks and 4 lines."""
    runs = load("error_handler_subgraph_async-early-0.5s", tmp_path)
    assert real(runs["exit"]) == (0, 2, 4) and real(runs["async"]) == (2, 2, 4)
    for given in (True, False):
        p = plan(runs["async"], "recorder", given)
        assert p.what_if["async"].ending == "killed"
        assert holds(p.what_if["exit"], real(runs["exit"])), given
        async_ = predict(runs["exit"], "bare", given)["async"]
        assert holds(async_, real(runs["async"])), (given, async_.race)
    every_prediction_holds(runs, same_progress=True)


def test_a_bare_task_that_logs_two_effects_around_a_retry_is_one_task(tmp_path: Path) -> None:
    """retry_two_effects at 0.5 s a write, killed in notify: charge_node reserves, charges
    (which fails once; its `RetryPolicy` runs it again from the top) and returns. A bare log
    shows four attempts of charge_node, and the only write of that node the async database
    holds (its checkpoint never landed) had gone to the first of them: the others were read
    as a later step, then as a later invocation, so sync kept 5 where the real run kept 4
    and exit re-ran 4 tasks where 3. A task saves its writes as it returns: the write is the
    last attempt's, and the attempts its process logged before it are the same task
    (`align._claim_orphans`, `evidence._restarts`)."""
    runs = load("retry_two_effects-late-0.5s", tmp_path)
    assert real(runs["sync"]) == (4, 1, 1) and real(runs["exit"]) == (0, 3, 11)
    bare = plan(runs["async"], "bare")
    charges = [a for a in bare.attempts if a.node == "charge_node"]
    assert len(charges) == 4 and len({a.task_id for a in charges}) == 1
    assert charges[0].task_id is not None
    assert figures(bare.what_if["sync"]) == (4, 1, 1)
    assert figures(bare.what_if["exit"]) == (0, 3, 11)
    every_prediction_holds(runs, same_progress=True)


def test_a_bare_kill_aimed_at_a_node_counts_from_its_first_effect(tmp_path: Path) -> None:
    """retry_two_effects at 0.5 s a write, killed 0.72 s after charge_node started, in its
    retry's second effect: read from the sync recording's bare log, the kill moment had
    been counted from the last attempt's start, because two lines that name no effect
    looked like the same effect begun again. Re-timed under async, 0.47 s too late: the
    step-0 checkpoint landed in the model (2 1 7) and not in the real run (1 2 9).
    Attempts of one node and process aligned with one checkpoint are one task's effects
    (`evidence._task_head`)."""
    runs = load("retry_two_effects-early-0.5s", tmp_path)
    assert real(runs["async"]) == (1, 2, 9)
    for src in ("sync", "exit"):
        async_ = predict(runs[src], "bare")["async"]
        assert holds(async_, real(runs["async"])), (src, async_.race)
    every_prediction_holds(runs, same_progress=True)


def test_a_bare_run_from_an_earlier_checkpoint_read_as_no_input_lost_its_copy(
    tmp_path: Path,
) -> None:
    """fork_replay at 0.5 s a write: the loop ran to its end, then the thread was run from
    an earlier checkpoint and killed 0.2 s into add_one, before the run's copy landed. A
    bare log cannot tell that run from a fresh input (it begins with the same node); read
    as no fresh input it had been taken for a resume of the ended run, which has nothing
    due, and add_one was said to run again under sync. That reading is a run from an
    earlier checkpoint whose copy never landed, lost whole as a fresh input that saved
    nothing is (`evidence._lost_copy`, `outcomes.lost_inputs`): the real sync run kept 7
    checkpoints and re-ran nothing."""
    runs = load("fork_replay-early-0.5s", tmp_path)
    assert real(runs["sync"]) == (7, 0, 0)
    for given in (True, False):
        sync = predict(runs["async"], "bare", given)["sync"]
        assert holds(sync, real(runs["sync"])), (given, sync.race)
        assert sync.race["reruns"] == [0, 1]  # a fresh input's reading still re-runs it
    every_prediction_holds(runs, same_progress=True)


def test_nested_runs_end_before_the_next_task_above_them_starts(tmp_path: Path) -> None:
    """doubly_nested at 0.5 s a write, killed 0.2 s into parent_2, read from the exit log:
    parent_2 began 4 ms after grandchild_2 ended, and the child's end, placed a tick per
    level after the grandchild's, fell after parent_2's start. Re-timed under async, the
    child's wait for its last put then came after parent_2 began: that checkpoint lost at
    the kill, 10 kept where the real run kept 11. A run's end falls before the next task
    of a loop above it (`evidence._run_ended`)."""
    runs = load("doubly_nested-late-0.5s", tmp_path)
    assert real(runs["async"]) == (11, 1, 1)
    for form in ("recorder", "langgraph"):
        assert figures(predict(runs["exit"], form)["async"]) == (11, 1, 1), form
    every_prediction_holds(runs, same_progress=True)


def test_a_stable_graph_run_from_an_edit_that_branched_is_not_dropped(tmp_path: Path) -> None:
    """test_three_level_nested_subgraph_loads_state_on_fork at 0.5 s a write: two inputs ran
    to their ends, the state was edited where parent_step was due (``update_state`` on an
    older checkpoint than the newest: a branch), and the run from the edit was killed inside
    the `checkpointer=True` graphs, in mid_step (early) or inner_step (late), before their
    input checkpoints landed. The verdicts had read those lines as a run the resume drops
    (the resuming flag makes a stable graph go on from its last run's end), and the async
    recordings said they would not run again; the real resumes ran them again. A run from
    an earlier checkpoint hands its stable graphs their state as of that checkpoint, which a
    root checkpoint of source ``fork`` said, and an edit that branched says too
    (`verdicts._forked`)."""
    for name, node in (
        ("three_level_stateful_forked-early-0.5s", "mid_step"),
        ("three_level_stateful_forked-late-0.5s", "inner_step"),
    ):
        runs = load(name, tmp_path / name)
        for form in ("recorder", "langgraph"):
            p = plan(runs["async"], form)
            cut = [a for a in p.attempts if a.node == node and a.outcome == "in flight"]
            assert [a.verdict for a in cut] == ["replays"], (name, form)
            assert figures(p.what_if["async"]) == real(runs["async"]), (name, form)
        every_prediction_holds(runs, same_progress=True)


def test_a_stable_graphs_run_in_a_later_step_than_the_resumes_first_gets_a_fresh_input(
    tmp_path: Path,
) -> None:
    """test_subgraph_checkpoint_true at 0.5 s a write, killed in the `checkpointer=True`
    graph's second run, under async: the root's checkpoint after the first run had not
    landed, so the resume starts where the first run's task is done and hands its writes
    back. The verdicts had read the second run's lines as a run the resume drops (the
    resuming flag makes a stable graph go on from its last run's end); but the flag lives for
    the resume's first step only, and the second run comes a step later, with a fresh input:
    its lines ran again (`verdicts._invoked_after_first_step`). From the bare log, sync's
    range also counts the root's step that invoked the later run (`outcomes._widen_for_runs`:
    10 kept where the range reached 9)."""
    name = "subgraph_checkpoint_true-late-0.5s"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (6, 2, 3)
    for form in ("recorder", "langgraph"):
        p = plan(runs["async"], form)
        again = [
            a
            for a in p.attempts
            if a.start_ts > min(b.end_ts for b in p.attempts if b.node == "inner_2")
        ]
        assert [a.verdict for a in again] == ["replays", "replays"], form
        assert figures(p.what_if["async"]) == (6, 2, 3), form
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "langgraph", "bare")))
    assert holds(predict(runs["async"], "bare")["sync"], real(runs["sync"], "bare"))
    every_prediction_holds(runs, same_progress=True)


def test_a_kill_late_in_its_race_while_the_queued_writes_were_quick_keeps_one_more(
    tmp_path: Path,
) -> None:
    """test_in_one_fan_out_state_graph_waiting_edge_multiple at 0.5 s a write, killed in
    ``qa`` after ten steps, read from the exit recording into async: five puts queue behind
    each other, and the fifth landed 136 ms before the real kill. Re-timed, it landed 70 ms
    after: a kill 50 ms late within its race, or writes with no cost beyond the latency, each
    alone, still put it after, and the prediction said 4 kept and 7 tasks where 5 and 6. The
    two uncertainties are independent, and the range takes them together (`outcomes._race`)."""
    runs = load("waiting_edge_loop-late-0.5s", tmp_path)
    assert real(runs["async"]) == (5, 6, 11)
    for form in ("recorder", "langgraph", "trace"):
        o = predict(runs["exit"], form)["async"]
        assert holds(o, real(runs["async"], form)), (form, figures(o), o.race)
    every_prediction_holds(runs, same_progress=True)


def test_a_bare_line_of_a_run_that_saved_only_its_start_writes_is_that_runs(
    tmp_path: Path,
) -> None:
    """test_parent_command_from_nested_subgraph at 0.5 s a write: a node invokes two graphs in
    turn and was killed in the second, under async, before its input checkpoint landed. The
    database holds only that run's ``__start__`` writes (routing to ``node``) in a namespace
    with no checkpoint. A bare ``node`` line after the first run ended was read as no run's,
    and re-timed under sync the second run's input and first step were not counted (5 kept
    where 7). The line is that run's (`align._unsaved_run`)."""
    runs = load("parent_command_nested-early-0.5s", tmp_path)
    assert real(runs["sync"], "bare") == (7, 2, 3)
    p = plan(runs["async"], "bare")
    last = max(p.attempts, key=lambda a: a.start_ts)
    assert last.alignment == "next-graph" and (last.namespace or "").endswith("|1")
    for given in (True, False):
        assert figures(predict(runs["async"], "bare", given)["sync"]) == (7, 2, 3), given
    every_prediction_holds(runs, same_progress=True)


def test_a_call_that_opens_just_after_its_entrypoint_paused_is_of_that_invocation(
    tmp_path: Path,
) -> None:
    """test_interrupt_functional at 1 s a write: the entrypoint starts `foo` without waiting,
    pauses at ``interrupt()`` in its own body, and is answered; the kill lands in `bar`. In
    the trace, `foo`'s span opens a few microseconds after the entrypoint's `interrupted`
    line, and was read as a third invocation: re-timed from exit, sync and async kept 2
    checkpoints where the real runs kept 1. A call of a task that stopped, in its process,
    was made before it stopped and runs on beside it (`evidence._call_of_stopped`)."""
    runs = load("interrupt_in_entrypoint_body-early-1s", tmp_path)
    for target in ("sync", "async"):
        assert real(runs[target], "trace") == (1, 2, 4), target
        for given in (True, False):
            o = predict(runs["exit"], "trace", given)[target]
            assert figures(o) == (1, 2, 4), (target, given)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def test_tasks_queued_behind_asyncs_writes_in_flight_may_run_at_once_under_sync(
    tmp_path: Path,
) -> None:
    """test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge at 1 s a write, killed
    in the second ``retriever_two`` under async: the executor's workers were busy with puts,
    and retriever_two began only as analyzer_one, its step's other task, ended. Read as a
    queue, analyzer_one's writes wait behind retriever_two's start (`schedule.queued_writes`)
    and sync re-runs both tasks, where the real sync run, its workers free, re-ran 1. Under
    another mode the queue may not have been: the range takes both (`outcomes._race`). A bare
    log has no step to say retriever_two was one more task of that step: it reads it as the
    next step too, and as queued (`evidence.QUEUED_UNSURE`; early and late kills, 8 and 11
    kept where 7 and 10)."""
    runs = load("join_loop_cond_edge-early-1s", tmp_path)
    assert real(runs["sync"]) == (7, 1, 1)
    for form in ("recorder", "langgraph", "bare", "trace"):
        o = predict(runs["async"], form)["sync"]
        assert holds(o, real(runs["sync"], form)), (form, figures(o), o.race)
    assert "a queue in the executor" in predict(runs["async"], "recorder")["sync"].race["note"]
    late = load("join_loop_cond_edge-late-1s", tmp_path / "late")
    for given in (True, False):
        o = predict(late["async"], "bare", given)["sync"]
        assert holds(o, real(late["sync"], "bare")), (given, figures(o), o.race)
    every_prediction_holds(runs, same_progress=True)


def test_a_deferred_node_due_beside_the_step_is_still_read_as_the_next_step(
    tmp_path: Path,
) -> None:
    """test_in_one_fan_out_state_graph_defer_node at 0.5 s a write, killed in ``qa``
    (``defer=True``): qa was due beside analyzer_one (retriever_one's writes route to both)
    and began 3 ms after it ended, as a queued task would. A deferred node runs in the next
    step: read as queued alone, sync kept 4 where the real run kept 5. With the mode given
    the figures are the next step's, exactly, and the queued reading only widens the range
    (`evidence.QUEUED_UNSURE`)."""
    runs = load("defer_node-late-0.5s", tmp_path)
    assert real(runs["sync"], "bare") == (5, 1, 1)
    assert figures(predict(runs["async"], "bare")["sync"]) == (5, 1, 1)
    inferred = predict(runs["async"], "bare", False)["sync"]
    assert holds(inferred, (5, 1, 1)) and "defer" in inferred.race["note"], inferred.race
    every_prediction_holds(runs, same_progress=True)


def test_bare_lines_of_graphs_an_entrypoints_call_invoked_are_held_by_its_step(
    tmp_path: Path,
) -> None:
    """test_multiple_subgraphs_mixed_entrypoint at 1 s a write: the entrypoint's one `@task`
    call invokes `add` twice, then `multiply`. A bare log names no namespace, so the lines
    were read as a graph's nodes: the root held a ``__start__`` step of its own, one
    checkpoint more under async (5 where 4, from sync). The database's namespaces of those
    lines, under an entrypoint's input checkpoint, say they are a call's graphs
    (`evidence._graphs_of_calls_only(aligned=True)`). Killed in ``multiply`` under async,
    before its graph's input checkpoint landed, the line was read as a root step after the
    latest checkpoint; the database holds that run's ``__start__`` writes, routing to
    ``multiply``, and no saved checkpoint names the node: the line is that run's, tried
    first (`align._unsaved_run`; sync 7 kept and 3 tasks where 9 and 1)."""
    early = load("subgraphs_in_task_entrypoint-early-1s", tmp_path / "early")
    assert figures(predict(early["sync"], "bare")["async"]) == real(early["async"], "bare")
    late = load("subgraphs_in_task_entrypoint-late-1s", tmp_path / "late")
    assert real(late["sync"], "bare") == (9, 1, 1)
    for given in (True, False):
        assert figures(predict(late["async"], "bare", given)["sync"]) == (9, 1, 1), given
    every_prediction_holds(early, same_progress=True)
    every_prediction_holds(late, same_progress=True)


def test_a_resume_at_a_join_whose_saved_barrier_holds_a_later_arrival_stops_there(
    tmp_path: Path,
) -> None:
    """test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge at 0.5 s a write under
    async, on a real Postgres server, killed in the second ``retriever_two``: the checkpoint
    where ``retriever_one`` was due was put behind the one before, and serialized only when
    that one landed. By then ``retriever_one`` had arrived at the join into ``decider``, so
    the saved barrier holds it though its write is pending on that same checkpoint. The real
    resume handed the write back, the barrier changed nothing, ``decider`` never fired, and
    LangGraph ended the thread as completed: nothing ran again (4 0 0). The verdicts had read
    the lines after it as running again (4 4 7). The database shows it
    (`joins.read_stalled_joins`); the lines are work lost, not repeated, and the other modes,
    which save no such barrier, still repeat theirs (`outcomes.clamp(stalled=True)`)."""
    name = "join_loop_cond_edge-early-0.5s-postgres"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (4, 0, 0)
    for form in ("recorder", "langgraph", "bare", "trace"):
        p = plan(runs["async"], form)
        assert figures(p.what_if["async"]) == real(runs["async"], form), form
        assert all(a.verdict == "kept" for a in p.attempts), form
        assert figures(p.what_if["sync"]) == real(runs["sync"], form), form
    told = plan(runs["async"], "recorder")
    stopped = [a for a in told.attempts if a.node == "decider"]
    assert stopped and "is never triggered" in stopped[0].reason
    # the one sentence every view shows says the work is lost, not that nothing repeats
    assert told.stops_at_join == "decider" and told.to_json()["stops_at_join"] == "decider"
    assert "does not finish it" in told.verdict_sentence()
    assert told.again.task_names == [], told.again.task_names  # the lost steps are not "again"
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "langgraph", "bare")))
    # from the sync recording, async's range reaches the resume that stops at the join
    # (`outcomes._widen_for_late_barrier`): the model alone had said 4 4 7
    _sync_recording_holds_async(runs)


def _sync_recording_holds_async(runs: dict[str, dict[str, Any]]) -> None:
    """From the sync recording, in every log form, told the mode or not: async's prediction
    holds what the real async run measured."""
    for form in ("recorder", "langgraph", "bare", "trace"):
        for given in (True, False):
            o = predict(runs["sync"], form, given)["async"]
            assert holds(o, real(runs["async"], form)), (form, given, figures(o), o.race)


def test_a_resume_at_a_join_saved_full_runs_the_tasks_before_it_and_stops(tmp_path: Path) -> None:
    """The same graph on Postgres at 0.5 s a write under async, killed in ``qa``: the
    checkpoint after the second ``rewrite_query`` was put behind three others and written
    once that round's retrievers had all arrived at the join, ``decider`` prepared but not
    yet run. Its barrier holds every arrival and ``decider`` is not due. The real resume ran
    ``analyzer_one``, ``retriever_two`` and ``retriever_one`` again, changed nothing at the
    join, never ran ``decider`` or ``qa``, and LangGraph ended the thread (6 3 6). The verdicts
    had read ``decider`` and ``qa`` as running again (6 5 9), and every prediction into async
    from the sync recording said 6 5 9 (`joins.join_never_fires`,
    `outcomes._widen_for_late_barrier`)."""
    name = "join_loop_cond_edge-late-0.5s-postgres"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (6, 3, 6)
    for form in ("recorder", "langgraph", "bare", "trace"):
        p = plan(runs["async"], form)
        assert figures(p.what_if["async"]) == real(runs["async"], form), form
        stopped = [a for a in p.attempts if a.node in ("decider", "qa") and a.alignment != "none"]
        assert stopped and all(a.verdict == "kept" for a in stopped), form
    _sync_recording_holds_async(runs)
    told = plan(runs["async"], "recorder")
    again = [a.node for a in told.attempts if a.verdict == "replays"]
    assert sorted(again) == ["analyzer_one", "retriever_one", "retriever_two"], again
    assert told.stops_at_join == "decider" and not told.stops_at_once
    assert "LangGraph then stops at the join into `decider`" in told.verdict_sentence()
    assert "decider" not in told.again.task_names and "qa" not in told.again.task_names
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "langgraph", "bare")))


def test_a_join_the_log_names_reaches_the_exit_recordings_what_if(tmp_path: Path) -> None:
    """join_loop_cond_edge on Postgres at 0.5 s, recorded under exit: nothing but the input
    checkpoint is saved before the kill, so the database names no join, and into async the
    model said 4 4 7 and 6 5 9 where the real runs stopped at the join (4 0 0, 6 3 6). A log
    written with LangGraph's own values names the join in the `langgraph_triggers` of the
    join node's lines (`joins.join_channels`): from it, async holds, told the mode or not."""
    for kill in ("early", "late"):
        runs = load(f"join_loop_cond_edge-{kill}-0.5s-postgres", tmp_path / kill)
        assert real(runs["async"]) in ((4, 0, 0), (6, 3, 6))
        for given in (True, False):
            o = predict(runs["exit"], "langgraph", given)["async"]
            assert holds(o, real(runs["async"], "langgraph")), (kill, given, figures(o), o.race)


def test_a_join_nothing_names_is_a_range_in_the_exit_recordings_what_if(tmp_path: Path) -> None:
    """The same exit recordings read from a log that names no task's triggers (bare, and the
    recorder and trace forms, written before they kept them): nothing shows which node is a
    join, and into async the model said 4 4 7 and 6 5 9 where the real resumes stopped at
    the join (4 0 0, 6 3 6). Each node run after a step of several tasks may be one
    (`outcomes._possible_joins`): async's range now reaches the resume that stops there.
    Over every recorded campaign this widened 7 of 1,748 async predictions from bare and
    langgraph logs, all of loops through a fan-out on slow stores."""
    for kill in ("early", "late"):
        runs = load(f"join_loop_cond_edge-{kill}-0.5s-postgres", tmp_path / kill)
        for form in ("bare", "recorder", "trace"):
            for given in (True, False):
                o = predict(runs["exit"], form, given)["async"]
                assert holds(o, real(runs["async"], form)), (kill, form, given, o.race)
                assert "names the graph's joins" in o.race["note"], (kill, form, given)
    # a log that names triggers and names no join says there is none there: no such range
    fanout = load("waiting_edge_loop-late-0.5s", tmp_path / "loop")
    named = predict(fanout["exit"], "langgraph")["async"]
    assert "names the graph's joins" not in (named.race or {}).get("note", "")


def test_a_tasks_triggers_are_kept_in_the_recorder_and_trace_lines() -> None:
    """LangGraph's run metadata names the channels that made a task due; the recorder and the
    tracer copy them (`effects.durable.task_fields`, `effects.spans`), so their logs name a
    join the database may not (`joins.join_channels`)."""
    from replaylens.analysis.joins import join_channels
    from replaylens.effects.durable import task_fields
    from replaylens.effects.parse import parse_record

    meta = {"langgraph_node": "c", "langgraph_step": 3, "thread_id": "t",
            "langgraph_checkpoint_ns": "c:1f0e5b4a-0000-0000-0000-000000000000",
            "langgraph_triggers": ("branch:to:c", "join:a+b:c")}  # fmt: skip
    fields = task_fields(meta)
    assert fields["langgraph_triggers"] == ["branch:to:c", "join:a+b:c"]
    line = {**fields, "phase": "start", "ts": 1.0}
    parsed, _ = parse_record(line, 1, "log")
    assert parsed is not None and join_channels([], [parsed]) == [("c", {"a", "b"})]
    odd, _ = parse_record({**line, "langgraph_triggers": "join:a+b:c"}, 2, "log")
    assert odd is not None and join_channels([], [odd]) == []  # not a list: not read
    # a trace's task span carries them in its run metadata (LangSmith, OTLP, Langfuse)
    from replaylens.effects.spans import Span, metadata_from, spans_to_records

    span = Span("s1", "t1", None, "c", 1.0, 2.0, metadata=metadata_from(meta))
    (start, end) = spans_to_records([span], "otlp").records
    assert start["langgraph_triggers"] == ["branch:to:c", "join:a+b:c"] == end["langgraph_triggers"]


def test_a_checkpointer_true_graph_invoked_after_the_resumes_first_step_runs_again(
    tmp_path: Path,
) -> None:
    """test_parent_command_from_deeply_nested_subgraph under ``ainvoke`` at 1 s a write,
    async, killed in ``sub_child_3``: the root's checkpoint with ``child_2`` due had not
    landed, so the resume runs ``child_2`` in a later step than its first, without
    LangGraph's resuming flag. ``child_2`` and the graph inside it are compiled with
    ``checkpointer=True``: that run gets a fresh input and runs ``sub_child_1`` and
    ``sub_sub_child`` again (6 3 5), which the verdicts had read as kept inside a durable
    step (6 1 1; `verdicts._stable_graph_invoked_later`)."""
    name = "parent_command_deeply_nested-late-1s"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (6, 3, 5)
    for form, again in _async_replays(runs).items():
        assert {"sub_child_1", "sub_sub_child"} <= again, (form, again)


def _async_replays(runs: dict[str, dict[str, Any]]) -> dict[str, set[str]]:
    """Per log form, the nodes the async recording's verdicts say run again, once its own
    what-if is checked against the real async resume."""
    out = {}
    for form in ("recorder", "langgraph", "bare", "trace"):
        p = plan(runs["async"], form)
        assert figures(p.what_if["async"]) == real(runs["async"], form), form
        out[form] = {a.node for a in p.attempts if a.verdict == "replays"}
    return out


def test_a_checkpointer_true_graph_inside_one_the_resume_re_enters_runs_again(
    tmp_path: Path,
) -> None:
    """The same graph under ``ainvoke`` at 0.5 s a write, async, killed in ``sub_child_3``:
    here the root's checkpoint with ``child_2`` due had landed, and ``child_2``'s own
    checkpoint after ``sub_child_2`` had not. The resume re-enters ``child_2`` (due at the
    root's checkpoint) and runs ``sub_child_2`` in a later step than its first, so the graph
    inside it gets a fresh input and runs ``sub_sub_child`` again (7 2 3). The verdicts
    stopped at the first `checkpointer=True` level, which the resume re-enters, and read
    ``sub_sub_child`` as kept (7 1 1); the what-if said 7 2 3
    (`verdicts._stable_graph_invoked_later` walks down the levels)."""
    name = "parent_command_deeply_nested-late-0.5s"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (7, 2, 3)
    for form, again in _async_replays(runs).items():
        assert "sub_sub_child" in again and "sub_child_1" not in again, (form, again)
    forms = ("recorder", "bare", "trace")
    assert all(not c.wrong for c in judged(name, tmp_path, forms)), "verdict lines wrong"


def test_a_run_whose_logged_steps_went_back_is_one_from_an_earlier_checkpoint(
    tmp_path: Path,
) -> None:
    """test_stateful_subgraph_loads_state_across_ticks at 2 s a write, async: two inputs run
    to their end, then the thread runs again from its earliest checkpoint where ``node_a``
    was due, and the kill lands in that run before its copy of that checkpoint landed. The
    database shows no fork, and the run began at ``node_a`` as a fresh input does, so it was
    read as a resume going on from the second input's end: the second input's steps 6 and 7
    were taken to run again under sync (18 4 7 where the real sync resume re-ran ``node_b``
    alone, 18 1 1). The log's own root step (2, after the second input's 8) went back, which
    neither a resume nor a fresh input does (`evidence._lost_copy`)."""
    name = "stateful_subgraph_replayed_tick-early-2s"
    runs = load(name, tmp_path)
    assert real(runs["sync"]) == (18, 1, 1)
    for form in ("recorder", "langgraph", "trace"):
        o = predict(runs["async"], form)["sync"]
        assert figures(o) == real(runs["sync"], form), (form, figures(o))
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_an_input_checkpoint_held_back_by_sync_waits_begins_its_invocation(
    tmp_path: Path,
) -> None:
    """Under `ainvoke` at 1 s a write, sync: a second input's first task starts 2 s after its
    input checkpoint (the puts chained behind it waited for). That checkpoint lay nearer the
    previous invocation's end than this one's first line, so it was read as the previous
    one's save on its way out: test_checkpoint_recovery_async's retry was taken for a resume
    (into async 2 2 3 where the real run gave 2 1 2: the lost input's task counted again),
    and test_parent_command's stateful subgraph's second input lost its input and start
    checkpoints to the first (8 kept where 6). An input checkpoint taken after the previous
    invocation left begins the next (`evidence._kinds`, `evidence._bounds`)."""
    runs = load("checkpoint_recovery_async-early-1s", tmp_path / "recovery")
    assert real(runs["async"]) == (2, 1, 2) and real(runs["exit"]) == (1, 1, 2)
    for form in ("recorder", "langgraph", "bare", "trace"):
        for given in (True, False):
            outcomes = predict(runs["sync"], form, given)
            for target in ("async", "exit"):
                o = outcomes[target]
                assert holds(o, real(runs[target], form)), (form, given, target, figures(o))
    stateful = load("parent_command_stateful-early-1s", tmp_path / "stateful")
    assert real(stateful["async"]) == (6, 0, 0)
    for form in ("recorder", "langgraph", "bare", "trace"):
        for given in (True, False):
            o = predict(stateful["sync"], form, given)["async"]
            assert holds(o, real(stateful["async"], form)), (form, given, figures(o), o.race)


def test_a_runs_end_saved_past_the_halfway_mark_is_still_its_own(tmp_path: Path) -> None:
    """stateful_subgraph_interrupt at 2 s a write (a stateful subgraph whose node is a graph
    that pauses; two cycles of input and answer): a run's loops stop one after another,
    each after the puts of the loops below, so the root's last checkpoint was taken 5.6 s
    after the first cycle's last line under async (its end) and 4 s under exit (the pause
    saved on the way out). Past the halfway mark to the next invocation's first line, it was
    read as the next one's, a step of its own: one to two checkpoints too many under sync
    and async (17 kept where 16, 19 where 17), the mode given or not, and two bare verdict
    lines wrong. A checkpoint that ends a run (nothing due, or a pause or a failure in it)
    taken before the next invocation's first line is the previous one's
    (`evidence._ends_run`)."""
    for kill in ("early", "late"):
        runs = load(f"stateful_subgraph_interrupt-{kill}-2s", tmp_path / kill)
        every_prediction_holds(runs, ("recorder", "bare"), same_progress=True)
        checks = judged(f"stateful_subgraph_interrupt-{kill}-2s", tmp_path / kill)
        assert checks and all(not c.wrong for c in checks), kill


def test_an_exit_save_keeps_the_id_its_step_made_and_the_invocation_that_made_it(
    tmp_path: Path,
) -> None:
    """doubly_nested_interrupts under `ainvoke` at 2 s a write, recorded under exit: the
    first invocation paused at a static breakpoint two graphs down, and its loops saved on
    their way out one after another, the root's 4 s after the last line, 58 ms past the
    halfway mark to the resume's first line. A breakpoint writes no interrupt, so the save
    does not read as a pause; read as the resume's, it was a root step of its own (9 kept
    under sync and async where the real runs kept 8). Under exit a loop saves the checkpoint
    its last step made, its id kept: an id made by the previous invocation's last line
    places it there. Killed later, in ``parent_2`` after the resume: 12 and 11 where 11 and
    10."""
    runs = load("doubly_nested_interrupts-early-2s", tmp_path)
    assert real(runs["sync"])[0] == 8
    for target in ("sync", "async"):
        for form in ("recorder", "langgraph", "bare"):
            for given in (True, False):
                o = predict(runs["exit"], form, given)[target]
                assert holds(o, real(runs[target], form)), (target, form, given, o.race)
        assert figures(predict(runs["exit"], "recorder")[target])[0] == 8, target
    late = load("doubly_nested_interrupts-late-2s", tmp_path / "late")
    assert (real(late["sync"])[0], real(late["async"])[0]) == (11, 10)
    every_prediction_holds(late, ("recorder", "bare"), same_progress=True)


def test_the_last_worker_to_finish_ends_its_parent_step_on_one_clock(tmp_path: Path) -> None:
    """send_to_subgraph on Postgres at 2 s a write, killed in ``pick_best`` under sync:
    three `Send` workers each run a subgraph whose loop waits for its own queued puts as it
    leaves. Re-timed into async, the last worker's end and its parent step's end are one
    moment, but read on two clocks they came 2.4e-7 s apart (epoch seconds in a double), and
    the moment was taken as past the join: the slower workers' waits moved the last worker's
    final put 6 s later, past the kill (13 kept where the real async run kept 14; bare,
    9 4 7 where 14 1 1). Moments within `rules.CLOCK_EPS` are one."""
    runs = load("send_to_subgraph-late-2s-postgres", tmp_path)
    assert real(runs["async"]) == (14, 1, 1)
    for form in ("recorder", "langgraph", "bare", "trace"):
        o = predict(runs["sync"], form)["async"]
        assert figures(o) == (14, 1, 1), (form, figures(o), o.race)
    every_prediction_holds(runs, ("recorder", "bare"), same_progress=True)


def test_a_pause_asked_before_any_line_may_have_been_cut_short_at_once(tmp_path: Path) -> None:
    """test_subgraph_first_interrupt_travel's fork, the subgraph's ``ask_2`` reached from an
    edit, on Postgres under `ainvoke` at 2 s a write, killed 0.4 s into ``ask_2``, which asks
    before it logs. Read from the sync recording with the mode inferred, the earliest kill
    had been taken on the recorded clock, after the step before had been saved; but sync had
    waited those 2 s before ``ask_2`` began, a wait no log line shows, and the real async
    run asked a tick after ``ask_1`` ended and was killed with that step's checkpoint still
    being written: 10 kept where 11 was predicted, in every log form (3 of 432 predictions
    at first contact). The range now holds the kill at the pause itself
    (`outcomes._unlogged_pause_began`); told the kill moment, the prediction was right."""
    runs = load("subgraph_first_interrupt_travel-late-2s-postgres", tmp_path)
    assert real(runs["async"]) == (10, 0, 0)
    for form in ("recorder", "langgraph", "bare", "trace"):
        o = predict(runs["sync"], form, given=False)["async"]
        assert o.race["checkpoints_kept"][0] == 10, (form, o.race)
        assert "nothing dates the kill" in o.race["note"]
        assert holds(o, real(runs["async"], form)), (form, o.race)
        told = predict(runs["sync"], form)["async"]
        assert figures(told)[0] == 10 and holds(told, real(runs["async"], form)), form
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_puts_in_flight_may_hold_the_workers_a_waved_step_waits_for(tmp_path: Path) -> None:
    """test_max_concurrency's six `Send` workers, at most two at a time, at 1.5 s a write,
    killed 0.2 s into ``collect``. Under async the checkpoint puts run on the executor the
    workers queue on, each holding a worker (the second waiting there for the first): the
    real async run started no worker until the input checkpoint had landed, then ran them one
    at a time, and kept 2 checkpoints with ``collect`` alone again. Re-timed from the sync and
    exit recordings, whose workers ran two at a time, nothing had landed by the kill (0 kept,
    7 tasks and 13 lines again; 7 of 48 predictions outside at first contact). Now the range
    reaches the step that waits for every put in flight (`outcomes._widen_for_busy_workers`)."""
    runs = load("max_concurrency_send-late-1.5s", tmp_path)
    assert real(runs["async"]) == (2, 1, 1)
    for src in ("sync", "exit"):
        for form in ("recorder", "langgraph", "bare", "trace"):
            o = predict(runs[src], form)["async"]
            assert holds(o, real(runs["async"], form)), (src, form, o.race)
    o = predict(runs["sync"])["async"]
    assert figures(o) == (0, 7, 13)  # no put holds a worker: the reading of the recording
    assert o.race["checkpoints_kept"] == [0, 2] and "waves" in o.race["note"]
    assert predict(runs["sync"])["exit"].race.get("checkpoints_kept") is None  # exit puts none
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_pause_in_a_step_already_saved_puts_only_its_writes_under_exit(
    tmp_path: Path,
) -> None:
    """test_multiple_interrupts_functional under `ainvoke` at 1.5 s a write, killed 0.56 s
    into the third answer's run, as the entrypoint paused again after ``double(3)``. The run
    stays in the step its first invocation saved, so a pause makes no checkpoint: under exit
    `_put_checkpoint` skips the one already saved and the pause's save is its writes alone,
    which land at once. Read as a pause whose save the kill cut short, exit was said to run
    ``double(3)`` again (1 1 2, from sync and async, 6 of 48 at first contact); the real exit
    run kept its result (1 0 0)."""
    runs = load("multiple_interrupts_functional-late-1.5s", tmp_path)
    assert real(runs["exit"]) == (1, 0, 0)
    for src in ("sync", "async"):
        for form in ("recorder", "langgraph", "bare"):
            assert figures(predict(runs[src], form)["exit"]) == (1, 0, 0), (src, form)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_an_undated_kill_may_come_as_long_after_its_task_began_as_its_own_process_took(
    tmp_path: Path,
) -> None:
    """recursion_limit_retry on Postgres at 0.55 s a write, read with the mode inferred: the
    first input ran its loop to the recursion limit on turns of 0.02 s, the second on turns
    of 0.4 s, killed 0.2 s into its `tools`. Nothing dates the kill but the log's last line,
    `tools`' start, and it was bounded by the longest `tools` had taken, 0.03 s, all of it in
    the first input: async was said to run nothing again (27 0 0) where its run ran 2 tasks
    and 3 lines again (28 2 3). The bound counts the killed process's own tasks too."""
    runs = load("recursion_limit_retry-early-0.55s-postgres", tmp_path)
    assert real(runs["async"]) == (28, 2, 3)
    for src in ("sync", "exit"):
        for form in ("recorder", "langgraph", "bare", "trace"):
            told = predict(runs[src], form, given=False)["async"]
            assert holds(told, (28, 2, 3)), (src, form, figures(told), told.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_kill_aimed_at_an_error_handler_counts_from_the_handlers_start(
    tmp_path: Path,
) -> None:
    """error_handlers_per_node under `ainvoke` on Postgres at 0.3 s a write, killed 0.2 s after
    the second input's ``__error_handler__fail_b`` started. The handler was read as a retry
    of ``fail_b`` (it runs in the failed task's step), so the kill was dated from ``fail_b``'s
    start, 0.49 s earlier, and cut to the handler's own start: re-timed from sync and exit,
    async's checkpoint of the step that ran ``fail_b`` was said lost and ``fail_b`` to run
    again (6 2 3) where the real async run had put it and ran the handler alone again
    (7 1 1); that put lands 20 ms before the kill, a race the range now says. A kill aimed
    at the handler counts from the handler's start."""
    runs = load("error_handlers_per_node-late-0.3s-postgres", tmp_path)
    assert real(runs["async"]) == (7, 1, 1)
    for src in ("sync", "exit"):
        told = predict(runs[src])["async"]
        assert holds(told, (7, 1, 1)), (src, figures(told), told.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_bare_node_run_back_to_back_where_no_step_landed_between_may_run_again(
    tmp_path: Path,
) -> None:
    """test_fork_replay's loop on 1.2.24 under async at 0.8 s a write, a bare log: the run
    from the fork copy ran ``add_one`` twice and was killed in the third. The step after
    the copy never landed, so nothing told the second ``add_one`` from the first one's next
    effect, and it was read so: its writes (saved against the copy) reused, 2 verdict lines
    wrong and the own figures 8 1 1 where the real resume ran it again, 8 2 3. The thread
    shows ``add_one`` run back to back in steps its saved checkpoints tell apart, one line
    pair a task: the line is now said to run again, a guess
    (`verdicts.take_unsure_replays`)."""
    name = "fork_replay-late-0.8s"
    runs = load(name, tmp_path)
    assert real(runs["async"], "bare") == (8, 2, 3)
    told = plan(runs["async"], "bare")
    assert holds(told.what_if["async"], (8, 2, 3)), figures(told.what_if["async"])
    guessed = [a for a in told.attempts if a.ambiguous and a.verdict == "replays"]
    assert [a.node for a in guessed] == ["add_one"], [(a.node, a.verdict) for a in told.attempts]
    assert all(not c.wrong for c in judged(name, tmp_path))
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_kill_only_the_log_bounds_is_asked_between_the_landings_after_it(
    tmp_path: Path,
) -> None:
    """test_checkpoint_recovery's shape on 1.2.24 under `ainvoke` at 0.35 s a write: the
    first input failed in ``node1``, the second was killed 0.2 s into it. With no manifest
    the kill moment is only bounded by the log's last line (``node1``'s start), and the race
    asked moments up to the longest finished task later (0.16 s) and the latest one. Under
    async the real kill fell between two landings (the second input's checkpoint had landed,
    ``prepare``'s had not): it kept 4 and ran ``prepare`` and ``node1`` again (4 2 3), which
    neither a sooner nor a later kill gives; the range said 1 task. The race now asks a
    moment just after each landing of the last invocation too (`outcomes._race_variants`)."""
    runs = load("checkpoint_recovery-early-0.35s", tmp_path)
    assert real(runs["async"]) == (4, 2, 3)
    for src in ("sync", "exit"):
        for form in ("recorder", "langgraph", "trace"):
            told = predict(runs[src], form, False)["async"]
            assert holds(told, (4, 2, 3)), (src, form, figures(told), told.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))
