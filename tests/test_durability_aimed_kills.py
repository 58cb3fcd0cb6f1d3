"""A kill aimed a time after a node started, where that node logs nothing of its own.

A kill test (and the manifest a user keeps of one) names the node it aimed at and how long
after its start; a crash at the same point of progress under another mode comes that long
after the same node started there. When the node logs nothing itself (an `@entrypoint`
whose work is a `@task` call that invokes graphs), the moment was dated from the lines of
what it ran, and re-timed as if it came after them: another mode's waits once those lines
ended pushed it later. And where a trace shows that node's span around the task in flight,
the kill was taken from the log's last line instead, too early.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(test_pregel.py::test_multiple_subgraphs_functional's shape, LangGraph 1.2.15 under
`ainvoke`, 0.3 s a write: `parent` -> @task `call_multiple_subgraphs` -> the entrypoints
`add`, then `multiply`).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, plan, real

from replaylens.analysis.durability.evidence import RAISE_UNSURE


def test_a_kill_after_a_silent_node_started_comes_as_long_after_it_in_every_mode(
    tmp_path: Path,
) -> None:
    """Killed 0.8 s after `parent` started, 0.19 s after `add` ended: under sync `add`'s
    checkpoint, whose put takes 0.3 s, had not landed, and the real resume ran `add` again
    (2 2 4). Read from the async recording, the kill was placed 0.19 s after `add` ended *and*
    after the 0.3 s sync waits for that put, so the put landed first (3 1 2). The kill comes
    0.8 s after `parent` started in the sync clock too (`Evidence.kill_anchor`)."""
    runs = load("multiple_subgraphs_functional-late-0.3s-lg1.2.15", tmp_path)
    assert real(runs["sync"]) == (2, 2, 4)
    for form in ("recorder", "langgraph"):
        assert figures(plan(runs["async"], form).what_if["sync"]) == (2, 2, 4), form
    # A bare log dates the kill the same way (the root runs `parent` alone). It names no task
    # id, but the database files `add`'s return write under `call_multiple_subgraphs`'s
    # namespace, and holds no write of that task 0.6 s after its last line: it ran on after
    # its lines, holding `add` (`schedule._runs_under_node`), and runs again (2 1 2 before).
    assert figures(plan(runs["async"], "bare").what_if["sync"]) == (2, 2, 4)
    every_prediction_holds(
        runs,
        forms=("recorder", "langgraph", "bare", "trace"),
        same_progress=True,
        cross_mode_only=True,
    )


def test_a_span_around_the_task_in_flight_dates_the_kill_it_was_aimed_at(
    tmp_path: Path,
) -> None:
    """Killed 0.4 s after `parent` started, in `add`, read from a trace: `parent`'s span is
    open around `call_multiple_subgraphs`'s and `add`'s. The kill was aimed at `parent`, which
    is not the last task to start, so it was taken at the last line instead (`add`'s start,
    0.23 s in), before the input checkpoint's 0.3 s put landed: 0 kept under async, where the
    real async run kept it (1 3 3). The kill now counts from the span of the node it was
    aimed at (`evidence._aimed_holder`)."""
    runs = load("multiple_subgraphs_functional-early-0.3s-lg1.2.15", tmp_path)
    assert real(runs["async"], "trace") == (1, 3, 3)
    for src in ("sync", "exit"):
        assert figures(plan(runs[src], "trace").what_if["async"]) == (1, 3, 3), src
    every_prediction_holds(
        runs,
        forms=("recorder", "langgraph", "bare", "trace"),
        same_progress=True,
        cross_mode_only=True,
    )


def test_a_failure_nothing_dates_the_kill_after_is_read_as_raised_or_killed_leaving(
    tmp_path: Path,
) -> None:
    """test_retry.py::test_graph_error_handler_can_route_with_command's graph on LangGraph
    0.6.11 (no node error handlers there: `charge` raises out), at 0.5 s a write, killed
    0.2 s after `charge` failed, while the raise waited for the puts in flight. The sync
    database keeps what a run that raised out keeps, so without a kill-test manifest (the
    mode inferred, or given alone) the plan read a raise: under async every put landed first,
    3 kept and `charge` alone again, where the real async run kept 1 and ran `prepare` and
    `charge` again (1 2 4). Nothing dates the kill, so the what-if reads both endings
    (`RAISE_UNSURE`); with the manifest, the kill moment says which."""
    runs = load("error_handler-early-0.5s-lg0.6.11", tmp_path)
    assert real(runs["async"]) == (1, 2, 4)
    for form in ("recorder", "langgraph", "bare", "trace"):
        unsure = plan(runs["sync"], form, given=False).what_if["async"]
        assert holds(unsure, real(runs["async"], form)), (form, unsure.race)
        assert RAISE_UNSURE in unsure.race.get("note", ""), form
    assert figures(plan(runs["sync"]).what_if["async"]) == (1, 2, 4)  # the manifest dates it
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_kill_between_tasks_with_no_store_latency_known_spans_its_window(
    tmp_path: Path,
) -> None:
    """test_stateless_subgraph_parent_replay's shape under `ainvoke` at 0.4 s a write, killed
    under async between tasks (`step_b` logs nothing): only the last line bounds the kill,
    and how much later it may have come (the puts still in flight) hangs on the store's
    latency. Told the recording, the sync what-if spans 19-20 checkpoints; inferred, with no
    latency for an async reading, it said 19 where the real sync run kept 20. The async
    reading is made at the what-if's latency too (the same store)."""
    runs = load("stateless_subgraph_parent_replay-late-0.4s", tmp_path)
    assert real(runs["sync"])[0] == 20
    for form in ("recorder", "langgraph"):
        unsure = plan(runs["async"], form, given=False).what_if["sync"]
        assert holds(unsure, real(runs["sync"], form)), (form, unsure.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_an_exit_run_killed_past_the_failure_its_database_shows_had_not_raised_again(
    tmp_path: Path,
) -> None:
    """Killed a moment after the aimed node ended (`validate --kill-shift 0.6`: 0.44 s after
    `finish` started, 0.04 s after it ended; 0.34 s after `agent` started, 0.14 s after it
    ended), LangGraph 1.2.24 under `ainvoke` on Postgres at 0.15 s a write. The exit run's
    second invocation ran every task the first had failed in (or paused at) to its end and
    died before its save: its database holds the first invocation's failure (pause) alone.
    Read as raised (paused) again, sync and async were said to run `finish` (`agent`) again
    and lose a checkpoint, 2 1 2 and 3 1 2, where each real run kept its last step's writes
    and ran nothing again (`evidence._outran`)."""
    for shape, measured in (("sibling_error_cancels", (3, 0, 0)),
                            ("react_agent_tool_interrupt", (4, 0, 0))):  # fmt: skip
        runs = load(f"{shape}-late-shift+0.6u-0.15s-postgres", tmp_path)
        for target in ("sync", "async"):
            assert real(runs[target]) == measured, (shape, target)
            for form in ("recorder", "langgraph", "bare", "trace"):
                told = plan(runs["exit"], form).what_if[target]
                assert holds(told, measured), (shape, target, form, figures(told), told.race)
        every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"))


def test_a_kill_aimed_after_a_node_that_ended_comes_that_long_after_its_start(
    tmp_path: Path,
) -> None:
    """test_dynamic_interrupt_subgraph's shape, LangGraph 1.2.24 under `ainvoke` on Postgres
    at 0.15 s a write, killed 0.84 s after `do` started, 0.04 s after it ended
    (`validate --kill-shift 0.6`). Nothing was in flight in the exit trace, whose last line
    is the end of `tool_two`'s span; dated from it, sync was said to keep the subgraph's last
    put, which under sync `tool_two` waits for before its span ends (5-6 kept where the real
    sync run kept 4). Dated from `do`'s start, it comes before that put lands
    (`evidence._kill_after_aimed_end`)."""
    runs = load("dynamic_interrupt_subgraph-late-shift+0.6u-0.15s-postgres", tmp_path)
    for target in ("sync", "async"):
        assert real(runs[target], "trace") == (4, 1, 3), target
        told = plan(runs["exit"], "trace").what_if[target]
        assert holds(told, (4, 1, 3)), (target, figures(told), told.race)


def test_under_exit_a_kill_races_the_lines_written_just_before_it(tmp_path: Path) -> None:
    """test_batch_update_as_input's shape, LangGraph 1.2.24 under `ainvoke` on Postgres at
    0.15 s a write, killed 0.44 s after the first `Send` worker started (`validate
    --kill-shift 0.6`). In the sync and async traces that worker's span closed 14 ms and
    16 ms before the dated kill; the real exit run's worker took 24 ms longer, and the kill
    came before its span closed: 3 span lines again, where exit was said to run all 4 again.
    Under exit no write races the kill, but the kill lands within `RACE` of its aim: a line
    written that close before it is said as a range (`outcomes._widen_exit_for_kill_race`)."""
    runs = load("batch_update_sends-early-shift+0.6u-0.15s-postgres", tmp_path)
    assert real(runs["exit"], "trace") == (4, 3, 3)
    for src in ("sync", "async"):
        told = plan(runs[src], "trace").what_if["exit"]
        assert figures(told) == (4, 3, 4), src  # (the recording's own progress)
        assert told.race["replayed_lines"] == [3, 4], (src, told.race)
        assert "within 50 ms of its aim" in told.race["note"], src
        assert holds(told, real(runs["exit"], "trace")), src
    # the recorder's end line came 32 ms before the kill: the exit run wrote it too
    assert holds(plan(runs["sync"]).what_if["exit"], real(runs["exit"]))


def test_a_trace_is_judged_against_runs_whose_node_spans_got_as_far(tmp_path: Path) -> None:
    """The same campaign: the recorder logs of the three runs got equally far (the first
    worker's end line written in each), their traces did not (its span closed in two). A
    leaf node's span closes once it returned, in every mode alike, so the trace's progress
    counts its spans (`corpus.run_progress`); the span of a node that runs a graph closes
    when the mode lets its loop leave, which the what-if says, so it is not counted
    (test_dynamic_interrupt_subgraph's shape: `tool_two`'s span closed before the kill in
    the exit run alone, its subgraph's `do` as far in each)."""
    from replaylens.killtest.corpus import run_progress

    runs = load("batch_update_sends-early-shift+0.6u-0.15s-postgres", tmp_path)
    assert run_progress(runs["sync"]) == run_progress(runs["exit"])
    assert run_progress(runs["sync"], "trace") == run_progress(runs["async"], "trace")
    assert run_progress(runs["sync"], "trace") != run_progress(runs["exit"], "trace")
    held = load("dynamic_interrupt_subgraph-late-shift+0.6u-0.15s-postgres", tmp_path)
    assert run_progress(held["sync"], "trace") == run_progress(held["exit"], "trace")


def test_a_kill_the_log_bounds_after_a_spans_end_may_come_before_its_graphs_puts(
    tmp_path: Path,
) -> None:
    """The same dynamic_interrupt_subgraph kill read from the exit trace without its
    manifest: nothing dates the kill but the log's last line, the end of `tool_two`'s span,
    1 ms after its subgraph's `do` ended. Under sync that span closes only once the
    subgraph's last put landed, so the line does not say the put had landed; the real sync
    run, killed 0.04 s after `do` ended, kept 4 where sync was said to keep 5-6
    (`outcomes._before_held_puts`)."""
    runs = load("dynamic_interrupt_subgraph-late-shift+0.6u-0.15s-postgres", tmp_path)
    told = plan(runs["exit"], "trace", False).what_if["sync"]
    assert holds(told, real(runs["sync"], "trace")), (figures(told), told.race)
    assert told.race["checkpoints_kept"] == [4, 6], told.race


def test_under_exit_a_subgraph_that_raised_out_before_may_have_been_saving_its_raise(
    tmp_path: Path,
) -> None:
    """test_parent_command's stateful subgraph on LangGraph 1.1.10 at 0.45 s a write, nodes
    0.25 s long (`validate --sleep 0.25 --kill-shift 0.7`): killed 0.05 s after `tool`
    returned its `Command(graph=PARENT)` in the second input. Under exit the subgraph saves
    on its way out only when it raised, and that save (0.45 s) was in flight: the database
    shows no raise, and the step was read as a normal end, whose put sync waits for before
    `alice`'s writes, so `tool` ran again (10 1 2). The real sync run kept `alice`'s writes
    and ran nothing again. Where the same node raised out of that graph in an earlier
    invocation (the first input's save says so), both readings are said
    (`evidence._raised_before`, `_exit_save_in_flight`)."""
    runs = load("parent_command_stateful-early-shift+0.7u-sleep0.25-0.45s-lg1.1.10", tmp_path)
    assert real(runs["sync"]) == (10, 0, 0)
    for form in ("recorder", "langgraph", "bare"):
        told = plan(runs["exit"], form).what_if["sync"]
        assert holds(told, (10, 0, 0)), (form, figures(told), told.race)
        assert "raised out" in told.race["note"], form
    # The trace shows `alice`'s span open at the kill, waiting for that save: a stable
    # graph's run, or one that raised out, saves on its way out under exit, and under sync
    # the span returned as soon as its graph left (`schedule._went_on_after_runs`; the
    # graph named after the node, a stable graph's namespace naming no task: `_runs_of`)
    for given in (True, False):
        told = plan(runs["exit"], "trace", given).what_if["sync"]
        assert holds(told, real(runs["sync"], "trace")), (given, figures(told), told.race)
    # a graph whose node never raised out before returned normally: no second reading
    # (test_interrupt_subgraph on 1.1.10, killed 0.2 s after its subgraph's last node ended)
    other = load("interrupt_subgraph-late-0.25s-lg1.1.10", tmp_path)
    told = plan(other["exit"]).what_if["sync"]
    assert figures(told) == real(other["sync"]) and "checkpoints_kept" not in told.race


def test_an_entrypoint_that_ran_past_its_answered_pause_had_not_paused_again(
    tmp_path: Path,
) -> None:
    """test_handles_multiple_interrupts_from_tasks's `@entrypoint` on LangGraph 1.1.10 under
    `ainvoke` at 0.45 s a write, nodes 0.25 s long, killed 0.55 s after `program` started
    in the second answer's invocation: the answered call and `announce` had both ended,
    `program` was returning. An entrypoint saves its root once, as it ends, so the database
    still showed the first pause under every mode, and the last invocation was read as
    paused again: from sync every other mode was said to run nothing again, where exit ran
    the call and `announce` again (2 4) and async `announce` (1 2), killed 10 ms after it
    ended, its writes still in flight (`evidence._outran` for an entrypoint; the race asks a
    kill just before the last task's writes landed)."""
    runs = load("interrupts_from_tasks_async-late-shift+0.7u-sleep0.25-0.45s-lg1.1.10", tmp_path)
    assert (real(runs["async"]), real(runs["exit"])) == ((1, 1, 2), (1, 2, 4))
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            told = plan(runs["sync"], form, given).what_if
            assert figures(told["exit"]) == (1, 2, 4), (form, given, figures(told["exit"]))
            assert holds(told["async"], (1, 1, 2)), (form, given, told["async"].race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)
