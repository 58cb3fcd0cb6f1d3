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
