"""The what-if read from a trace: the task spans LangGraph's callbacks report (what LangSmith,
Langfuse and OpenTelemetry exports carry), one start and one end per task, no effect named.

A trace shows what the effects log does not: the task of a node that logs nothing (a node
that only invokes a graph, an `@entrypoint`), the run of a node that asks before its first
line, a failure the drain or a timeout causes. First contact on rounds 44 to 49 (264 kills,
`validate`'s fourth log form): 414/468 cross-mode predictions inside with the mode given,
424/468 inferred; the rules below close the classes it found.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again); each run's
figures are counted on its own trace (`corpus.traced`).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, plan, predict, real


def test_a_timed_out_attempt_whose_error_comes_after_its_retry_started(tmp_path: Path) -> None:
    """LangGraph reports a timed-out attempt's error after the retry's start (start, start,
    error, end, all one task). One task runs one attempt at a time: the first closing line is
    the first attempt's, and it had ended when the retry began. Paired as two open attempts
    the log could not tell apart, the retry read as a second invocation: from the exit
    recording sync and async re-ran flaky as well (3 kept, 2 tasks, 5 lines, where 4, 1, 1
    were measured)."""
    runs = load("timeout_then_retry-late-0s", tmp_path)
    p = plan(runs["exit"], "trace")
    flaky = [a for a in p.attempts if a.node == "flaky"]
    assert len(flaky) == 2 and not any(a.ambiguous for a in flaky)
    assert flaky[0].outcome == "failed" and flaky[0].end_ts <= flaky[1].start_ts
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace",))


def test_a_drained_task_run_to_its_end_by_the_next_invocation(tmp_path: Path) -> None:
    """A drain inside a `checkpointer=True` subgraph stops it between steps; the task that
    runs the subgraph reports an error (GraphDrained), and the next invocation runs the same
    task to its end. The database holds that task's writes, but they are the later run's: the
    failure was not handled in the task. Read as handled, the drained invocation went on
    past it, and from the sync recording exit kept the resume's `child` (1 task, 1 line,
    where 2 and 5 were measured)."""
    runs = load("drain_from_subgraph-late-0s", tmp_path)
    assert real(runs["exit"], "trace")[1:] == (2, 5)
    for given in (True, False):
        assert figures(predict(runs["sync"], "trace", given)["exit"]) == real(runs["exit"], "trace")
    every_prediction_holds(runs, forms=("trace", "recorder"))


def test_a_run_from_an_earlier_checkpoint_that_the_trace_shows_is_not_silent(
    tmp_path: Path,
) -> None:
    """A run from an earlier checkpoint whose subgraph asks before logging leaves no effect
    line, and the model puts an empty invocation there (round 45). Its trace shows the run
    (the tasks' spans, the pause): under exit the copy it began with is saved as it ends,
    just before the next invocation, and was read as a second, silent run (sync 19 kept and
    nothing again, where step_a and sub_node ran again). The copy's tasks are the logged
    run's own."""
    runs = load("stateful_subgraph_replay_then_resume-early-0.25s", tmp_path)
    for given in (True, False):
        sync = figures(predict(runs["exit"], "trace", given)["sync"])
        assert sync == real(runs["sync"], "trace"), given
    every_prediction_holds(runs, forms=("trace",))


def test_a_run_from_an_edit_of_a_subgraphs_own_checkpoint_goes_on_from_it(
    tmp_path: Path,
) -> None:
    """The innermost graph's own checkpoint edited (`update_state` there) and the thread run
    from the edit: the graph goes on from the edit, as from a copy of its checkpoint, and
    saves no new input checkpoint. A trace shows that graph's tasks in that run, and the
    model read them as a graph handed a new input (sync 15 kept, where 14 were)."""
    runs = load("three_level_first_interrupt_forked-early-0s", tmp_path)
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    # told nothing, the mode is read as sync or async or exit: the range holds it
    assert holds(predict(runs["exit"], "trace", given=False)["sync"], real(runs["sync"], "trace"))
    every_prediction_holds(runs, forms=("trace", "recorder"))


def test_a_root_start_task_in_the_trace_is_a_fresh_input(tmp_path: Path) -> None:
    """A trace can show the root `__start__` task, which LangGraph runs only to write an
    input: the invocation it begins is a fresh input, not a resume. Under exit a killed
    second input saves nothing, not even its input checkpoint, so the resume runs the first
    invocation's failed step again and none of the second's lines (read as a resume, its
    `__start__`, agent and bad were all "again": 5 tasks and 9 lines, where 2 and 4 were
    measured)."""
    runs = load("node_cancellation_async-early-0s", tmp_path)
    p = plan(runs["exit"], "trace")
    second = [a for a in p.attempts if a.pid == p.attempts[-1].pid]
    assert [a.node for a in second] == ["__start__", "agent", "bad"]
    assert not any(a.verdict in ("replays", "restart") for a in second)
    assert figures(p.what_if["exit"]) == real(runs["exit"], "trace")
    every_prediction_holds(runs, forms=("trace",))


# --------------------------------------------------------------------------- the spans of parent tasks
# A trace shows the span of every task that runs a graph (a node added as a compiled graph, a
# node that invokes graphs in its body, an `@entrypoint` and its calls), around the lines of
# that graph: the effects log never showed those tasks. The readings below were fitted to
# logs without them; each is what the 108 recorded campaigns' traces were outside for.


def test_a_stateful_agent_in_the_parents_step_one_is_a_graph_not_a_call(tmp_path: Path) -> None:
    """test_stateful_namespace_isolation: a node invokes two `checkpointer=True` agents, each
    wrapping a graph whose node is ``echo``, and the thread gets a second input. In the first
    run the agent's span (step 1) holds echo (its graph's step 1): read as an `@task` call of
    the agent, the graph lost its three checkpoints; read as an `@entrypoint` holding its
    calls, the second input lost its input checkpoint. From the exit recording sync kept 24
    where 31 were measured. The same node under the same agent logs its own step (1) under a
    parent at step 4 in the second run: a graph's node, not a call; a node of a
    `checkpointer=True` graph (no task id in its namespace) is never a call either."""
    runs = load("stateful_namespace_isolation-late-0s", tmp_path)
    assert real(runs["sync"], "trace")[0] == 31
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace",))


def test_a_stateful_agents_own_node_is_dropped_with_its_run(tmp_path: Path) -> None:
    """Killed in the veggie agent's second run before its input checkpoint landed (async, 0.25
    s): the resume re-runs the parent's task, the agent loads its last run's end, finds
    nothing due and drops the new input. Its inner echo was judged so already; the agent's own
    node, whose span a trace logs under the agent's namespace, was judged to run again (the
    recorded async resume: 2 tasks where 1 ran)."""
    runs = load("stateful_namespace_isolation-early-0.25s", tmp_path)
    p = plan(runs["async"], "trace")
    second = [a for a in p.attempts if a.pid == p.attempts[-1].pid]
    veggie = [a for a in second if a.node == "veggie_agent"]
    assert veggie and all(a.verdict == "kept" for a in veggie)
    assert figures(p.what_if["async"]) == real(runs["async"], "trace")


def test_a_subgraph_failure_handled_by_the_nodes_handler_ends_no_invocation(
    tmp_path: Path,
) -> None:
    """test_node_error_handler_handles_subgraph_internal_failure_async: the subgraph's node
    raises, the failure leaves the subgraph through the task that ran it, and that node's
    error handler takes it. A trace shows the task's span failing too; read as a raise that
    ended the invocation, exit was predicted to keep 2 and re-run 2 where 1 and 4 were
    measured. Its error writes were put as it failed (the subgraph it ran had left): sync and
    async re-run only the handler (predicted 2 tasks, 3 lines, where 1 and 1)."""
    runs = load("error_handler_subgraph_async-early-0s", tmp_path)
    assert real(runs["exit"], "trace")[1:] == (4, 7)
    assert figures(predict(runs["sync"], "trace")["exit"]) == real(runs["exit"], "trace")
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace", "recorder"))


def test_the_second_graph_a_node_invokes_is_no_call(tmp_path: Path) -> None:
    """test_multiple_subgraphs_checkpointer: a node invokes a `checkpointer=True` graph, then
    another graph, whose namespace carries a call counter (``parent_node:<id>|1``): only a
    graph's loop gets one. Its node logged step 1 inside the node's span (step 1), and was
    taken for an `@task` call, and the node for an `@entrypoint`: from the exit recording
    sync kept 13 where 17 were measured."""
    runs = load("multiple_subgraphs_checkpointer-early-0s", tmp_path)
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace",))
    late = load("multiple_subgraphs_checkpointer-early-0.25s", tmp_path)
    assert figures(predict(late["exit"], "trace")["async"]) == real(late["async"], "trace")


def test_a_parent_command_ends_the_tasks_it_leaves(tmp_path: Path) -> None:
    """test_parent_command_goto: ``Command(graph=PARENT)`` raises `ParentCommand` out of the
    subgraph's node and out of the task that ran the subgraph, whose loop applies it as that
    task's writes. LangChain reports both as chain errors; they ended, they did not fail
    (`task_end_phase`). Read as failures, exit was predicted to keep 2 and re-run 1 where 1
    and 4 were measured. And the span of the task that runs a subgraph holds its first node
    (step 1, as the task's), which is no `@task` call of it: taken for one, the subgraph lost
    its two checkpoints (sync from exit: 2 kept where 4 were)."""
    from replaylens.effects.durable import task_end_phase

    assert task_end_phase("langgraph.errors.ParentCommand") == "end"
    assert task_end_phase("GraphInterrupt") == "interrupted"
    assert task_end_phase("ValueError") == "error"
    runs = load("parent_command-late-0s", tmp_path)
    child = [a for a in plan(runs["sync"], "trace").attempts if a.node == "node_b_child"]
    assert child and all(a.outcome == "finished" for a in child)
    assert figures(predict(runs["sync"], "trace")["exit"]) == real(runs["exit"], "trace")
    every_prediction_holds(runs, forms=("trace",))
    early = load("parent_command-early-0.25s", tmp_path)
    assert figures(predict(early["exit"], "trace")["sync"]) == real(early["sync"], "trace")
    every_prediction_holds(early, forms=("trace",))


def test_send_workers_each_ran_their_own_subgraph(tmp_path: Path) -> None:
    """test_parallel_interrupts: two `Send` workers run the same subgraph and are answered one
    at a time. A worker's task ended once its own run had; the other worker's run, still
    paused, was read as its too, so its writes were never put. And its writes are put as its
    run leaves, on that run's clock: on its parent's, the waits the run made under sync were
    not taken out, and the put came after the kill. From the sync recording async re-ran both
    workers (3 tasks, 11 lines, where 1 and 1 were measured)."""
    runs = load("parallel_interrupts-late-0.25s", tmp_path)
    assert real(runs["async"], "trace")[1:] == (1, 1)
    for recorded in ("sync", "exit"):
        # (and before its loop's next step began: from exit the lanes' clocks disagreed)
        assert figures(predict(runs[recorded], "trace")["async"]) == real(runs["async"], "trace")


def test_a_stateful_subgraphs_later_run_is_its_next_steps(tmp_path: Path) -> None:
    """test_subgraph_checkpoint_true: the `checkpointer=True` graph ``inner`` runs twice, each
    run a root step of its own. The first run's step ended when its run did; the second run
    (still going at the kill) was counted in the first step too, which then never ended: from
    the exit recording sync lost the root's checkpoint after the first run (9 kept, 3 tasks
    again, where 10 and 2 were measured)."""
    runs = load("subgraph_checkpoint_true-late-0s", tmp_path)
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace", "recorder"))


def test_graphs_an_entrypoints_call_ran_hang_below_the_call(tmp_path: Path) -> None:
    """test_subgraphs_in_task_entrypoint: an `@entrypoint`'s `@task` call invokes two graphs.
    Their lines name ``parent:<id>|call:<id>``; a trace also shows the entrypoint's and the
    call's spans, logged under ``parent:<id>``, which the model then took for a loop above the
    graphs, one no resume goes on from: the graph that had finished ran again (from exit,
    sync re-ran 4 tasks where 3 ran). A call runs in its caller's loop."""
    runs = load("subgraphs_in_task_entrypoint-early-0s", tmp_path)
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace", "recorder"))


def test_a_run_inside_a_tasks_own_is_the_same_task(tmp_path: Path) -> None:
    """test_invoke_two_processes_in_out_interrupt: a raw `Pregel` whose nodes' functions have
    the nodes' names, so LangChain reports two runs per task, one inside the other (the
    recorded trace has start, start, end, end of one task id). Read as a task and its retry,
    each invocation split in two: from the sync recording exit kept 5 where 3 were
    measured. A second start of an open task within `NESTED_RUN` of its first, before any
    other line of it, is the same execution."""
    runs = load("pregel_interrupt_after-early-0s", tmp_path)
    p = plan(runs["sync"], "trace")
    assert all(sum(line.phase == "start" for line in a.lines) == 2 for a in p.attempts)
    assert figures(predict(runs["sync"], "trace")["exit"]) == real(runs["exit"], "trace")
    every_prediction_holds(runs, forms=("trace",))


def test_two_nodes_in_the_root_loop_are_no_entrypoint(tmp_path: Path) -> None:
    """test_stateless_subgraph_interrupts: ``call_inner`` runs a subgraph whose first node
    pauses, in the root's step 1 (its node at the subgraph's step 1 too), then ``deliver``
    runs; a second input does it again. The first span holding a task of the same step was
    read as an `@entrypoint` holding a call, so the second input was given no `__start__`
    step: from the exit recording sync kept 11 where 12 were measured. An entrypoint is its
    root loop's one node."""
    runs = load("stateless_subgraph_interrupts-early-0s", tmp_path)
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace", "recorder"))


def test_a_pause_ends_its_invocation_once_every_task_of_the_step_returned(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts (each worker asks twice): two `Send` workers each run a
    subgraph of two nodes that both ask. In a trace the first worker's graph pauses while the
    second worker's graph is still starting its nodes; read as the pause ending the
    invocation, the five invocations were read as seven and the answers fell in the wrong
    runs (from exit, sync kept 10 where 9 were measured). A loop gives up only after every
    task of the step returned: the workers' spans were still open."""
    runs = load("parallel_interrupts_double-late-0.25s", tmp_path)
    p = plan(runs["exit"], "trace")
    assert len({a.pid for a in p.attempts}) == 5
    assert figures(predict(runs["exit"], "trace")["sync"]) == real(runs["sync"], "trace")
    for recorded in runs.values():  # told the mode, every prediction holds
        for target, outcome in predict(recorded, "trace").items():
            assert holds(outcome, real(runs[target], "trace")), (recorded["mode"], target)


def test_an_entrypoints_calls_run_in_its_own_loop(tmp_path: Path) -> None:
    """test_multiple_subgraphs_mixed_state_graph: a node invokes the `@entrypoint` ``add``,
    whose `@task` call ``add_task`` names ``add``'s task id in its namespace. A call runs in
    its caller's loop, not in a graph of the caller's own: taken for one, ``add``'s writes
    waited for that loop's checkpoint, which had not landed, so under sync ``add`` was
    predicted to run again (from async: 2 tasks and 3 lines where 1 and 1 were measured;
    its writes were saved as it returned)."""
    runs = load("multiple_subgraphs_mixed_state_graph-early-0.25s", tmp_path)
    assert real(runs["sync"], "trace")[1:] == (1, 1)
    assert figures(predict(runs["async"], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace",), same_progress=True)


def test_a_graph_a_task_ran_on_a_thread_of_its_own_is_no_task_of_its_thread(
    tmp_path: Path,
) -> None:
    """test_child_with_own_thread_id_keeps_namespace: ``p`` invokes a child graph on a thread
    of its own. LangChain hands ``p``'s run metadata (its thread id) down to the child's
    runs, and the child's namespace starts again at the root, so a trace showed the child's
    node ``n`` as a root task of the parent's thread: from every recording, 2 tasks and 2
    lines again where 1 and 1 were measured (the resume runs ``p`` again; ``n`` runs on its
    own thread). The callbacks mark ``n``'s lines with the task that ran it, and the log
    leaves them out of the thread (`durable.own_lineage`)."""
    runs = load("child_own_thread-early-0.05s", tmp_path)
    for entry in runs.values():
        assert {a.node for a in plan(entry, "trace").attempts} == {"p", "q"}
    for recorded in ("async", "exit"):
        assert real(runs["sync"], "trace") == (6, 1, 1)
        assert figures(predict(runs[recorded], "trace")["sync"]) == real(runs["sync"], "trace")
    every_prediction_holds(runs, forms=("trace", "recorder"))


def test_a_span_open_at_a_kill_the_log_only_bounds_may_have_closed_at_its_graphs_pause(
    tmp_path: Path,
) -> None:
    """test_three_level_nested_subgraph's first interrupt, forked, at 1.4 s a write, killed
    in ``ask_2`` of the answered run: the trace's ``outer`` and ``inner`` spans are open at
    the kill. Read without its mode, the kill moment is only bounded by the log's last line,
    and up to the latest it may have come, the graphs' pause may have been saved and the
    spans closed: under sync their two end lines are lines again too (the real sync resume:
    15 3 10, where 8 lines were the range's top). A span closed at a pause widens the range
    under every mode up to that latest moment, not only under exit."""
    runs = load("three_level_first_interrupt_forked-late-1.4s", tmp_path)
    assert real(runs["sync"], "trace") == (15, 3, 10)
    for source in ("async", "exit"):
        told = predict(runs[source], "trace", given=False)["sync"]
        assert holds(told, (15, 3, 10)), (source, figures(told), told.race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def test_under_exit_a_pause_rises_through_its_graphs_one_save_at_a_time(tmp_path: Path) -> None:
    """test_3_levels_deep_time_travel_to_middle_subgraph's shape at 0.3 s a write, killed
    0.32 s after ``ask_2`` asked (`validate --kill-shift 0.3`): under exit each graph the
    pause left saved on its way out, the innermost first, and the span of the task that ran
    it closed only then. The real exit run saved the innermost graph's pause and closed
    ``inner``'s span, and the kill found ``outer``'s open: 11 3 9. Read from sync and async,
    whose spans closed at once, exit was said to write ``outer``'s end too (10 lines again),
    with the mode given and without it (`schedule._paused_out_holders`,
    `schedule._pause_saves_before`)."""
    runs = load("middle_checkpoint_replayed-early-shift+0.3u-0.3s", tmp_path)
    assert real(runs["exit"], "trace") == (11, 3, 9)
    for source in ("sync", "async"):
        told = predict(runs[source], "trace")["exit"]
        assert figures(told) == (11, 3, 9), (source, told.race)
        guessed = predict(runs[source], "trace", given=False)["exit"]
        assert holds(guessed, (11, 3, 9)), (source, figures(guessed), guessed.race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)
