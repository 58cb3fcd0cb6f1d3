"""Kills recorded by an older LangGraph release than the one pinned here, read by this one:
the stores they wrote keep less (langgraph-checkpoint-sqlite 2.0 keeps no task path in its
writes rows), and what a resume re-runs is still measured by that release's own resume.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; a campaign with a `langgraph` release is recorded again in a
virtual environment with that release).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, judged, load, plan, real


def test_a_calls_result_a_store_kept_no_path_for_is_taken_by_a_line_that_ended(
    tmp_path: Path,
) -> None:
    """test_imp_task on LangGraph 0.6.11 at 0.25 s a write, killed while the third of three
    `@task` calls of the entrypoint was still running: the two that returned saved their
    results, but the store keeps no task path, so nothing names those writes' tasks as
    calls of the entrypoint, or as `mapper`. They were listed beside the step's tasks,
    unnamed, and a bare log's three `mapper` lines found no task: every one was read as
    running again (3 tasks and 5 lines where the real resume ran 1 and 1). A line that
    ended takes an unnamed call result of the checkpoint it started from, as a call a
    store names does (`align._next_call`)."""
    name = "imp_tasks-early-0.25s-lg0.6.11"
    runs = load(name, tmp_path)
    for mode in ("sync", "async"):
        assert real(runs[mode], "bare") == (1, 1, 1), mode
        attempts = plan(runs[mode], "bare").attempts
        assert [a.verdict for a in attempts] == ["kept", "kept", "replays"], mode
    assert all(not c.wrong for c in judged(name, tmp_path)), "bare verdict lines wrong"
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare"))


def test_an_entrypoint_a_store_does_not_name_is_named_by_the_log(tmp_path: Path) -> None:
    """The same kill read from a trace: its first span is the entrypoint's own task, `graph`,
    with its task id. The store names no node at the input checkpoint (its one derived task
    is a `StateGraph`'s `__start__`, the calls' results unnamed beside it), so `graph`'s
    span aligned with no task and was read as kept (1 1 1 where the real resume ran `graph`
    and the call in flight again, 1 2 2). The id the log gives is the one LangGraph derives
    for `graph` triggered by `__start__` there: that proves the name
    (`tasks.name_entrypoint`, from `align.align`)."""
    name = "imp_tasks-early-0.25s-lg0.6.11"
    runs = load(name, tmp_path)
    for mode in ("sync", "async"):
        assert real(runs[mode], "trace") == (1, 2, 2), mode
        told = plan(runs[mode], "trace")
        graph = next(a for a in told.attempts if a.node == "graph")
        assert graph.task is not None and graph.verdict == "replays", (mode, graph.reason)
    assert all(not c.wrong for c in judged(name, tmp_path, ("trace",))), "span lines wrong"
    every_prediction_holds(runs, forms=("trace",))
