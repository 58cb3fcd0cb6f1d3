"""A root step that raised after every task of it ended: no line of any node says so, the
database does (test_pregel.py::test_timeout_with_parent_command, ``graph.step_timeout``).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import (
    every_prediction_holds,
    figures,
    holds,
    judged,
    load,
    plan,
    predict,
    real,
)


def test_a_step_that_overran_its_timeout_raised_after_its_tasks_ended(tmp_path: Path) -> None:
    """step_timeout: ``fast`` and ``slow`` in one step; the first input's ``slow`` overruns
    ``graph.step_timeout`` and the runner raises after it ends; a second input is killed.
    Both tasks log ``end``, so the step was read as complete: from the async recording sync
    was predicted to keep 5 where 4 were kept, and exit to re-run nothing where the resume
    ran ``slow`` again (under exit the save at the raise comes before ``slow`` ends, so its
    writes are lost; under sync and async they were put as it returned). The database holds
    no checkpoint of that step though its invocation was over: ``slow``, the last to end,
    did not complete (`evidence._raised_after_lines`)."""
    runs = load("step_timeout-early-0.15s", tmp_path)
    for form in ("recorder", "bare", "trace"):
        late = [a for a in plan(runs["sync"], form).attempts if a.raised_after]
        assert [a.node for a in late] == ["slow"], form
        # every reading says so, not only the first (the mark stays on the attempt)
        for outcome in predict(runs["sync"], form).values():
            assert any("step_timeout" in line for line in outcome.used), form
    assert real(runs["exit"]) == (1, 1, 2) and real(runs["sync"]) == (4, 2, 2)
    for recorded in runs:
        for target in runs.keys() - {recorded}:
            for form in ("recorder", "bare"):
                outcome = predict(runs[recorded], form)[target]
                if target != "async":  # (under async the second input's put races the kill)
                    assert figures(outcome) == real(runs[target]), (recorded, target, form)
                assert holds(outcome, real(runs[target])), (recorded, target, form)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))
    # the attempts table says why a task whose log shows it ending reads as failed
    from replaylens.dashboard.views import attempts_frame

    frame = attempts_frame(plan(runs["sync"]))
    assert set(frame[frame["node"] == "slow"]["outcome"]) == {
        "failed (its lines ended; its step raised after it)",
        "in flight",
    }
    # where the tasks again range down to none, so do the executions again, in every view
    # (the Resume simulator's async card read "2" executions beside "0–2" tasks)
    under = plan(runs["sync"]).again_under("async")
    assert under.figure("tasks") == "0–2" and under.figure("executions") == "0–2"
    assert under.to_json()["range"]["executions"] == [0, 2]
    # the second input's tasks start right after its input checkpoint: they are not tasks of
    # the checkpoint before it (a bare log's time alignment had taken them for the first
    # input's, whose step the database shows done: "kept", where both ran again)
    assert all(not c.wrong for c in judged("step_timeout-early-0.15s", tmp_path))


def test_the_writes_of_a_task_whose_step_raised_were_put_under_sync_and_async(
    tmp_path: Path,
) -> None:
    """step_timeout at 0.25 s per put: the second input's checkpoint had not landed under
    async, so its resume went on from the first input's step, whose two tasks' writes were
    put as they returned: nothing ran again (2 kept, 0 again). Read as failed there too,
    ``slow`` was predicted to run again; under exit its writes were lost, and it did."""
    runs = load("step_timeout-early-0.25s", tmp_path)
    assert real(runs["async"]) == (2, 0, 0) and real(runs["exit"]) == (1, 1, 2)
    # every reading says the same: the first, before the marks, and those after them (a
    # marked task saves no error: it is no task killed while waiting for its retry)
    first = predict(runs["async"])["sync"]
    again = predict(runs["async"])["sync"]
    assert (first.used, first.assumed) == (again.used, again.assumed)
    assert not any("waited to retry" in line for line in again.assumed)
    for recorded in ("sync", "exit"):
        assert figures(predict(runs[recorded])["async"]) == (2, 0, 0)
    assert figures(predict(runs["async"])["exit"]) == (1, 1, 2)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_task_ainvoke_cancelled_at_its_steps_timeout_saved_nothing(tmp_path: Path) -> None:
    """step_timeout under `ainvoke` on Postgres at 0.5 s a write: at the timeout the async
    loop cancels ``slow`` and saves its error (``__error__``); its thread runs on and logs its
    end after the invocation raised. Under sync and async the database holds that error.
    That write had been read as a pause, and ``slow``'s start after the checkpoint as its
    answer: a third invocation, and async was predicted to keep 3 and re-run nothing where
    the real run kept 2 and re-ran ``slow`` (`evidence._invocations`: a start while its
    siblings still run is no answer). Then ``slow``'s writes were taken as put when its lines
    ended, as `invoke`, which waits for it, puts them; `ainvoke` never does
    (`evidence.cancelled_at_raise`). The exit recording holds no write of ``slow``: which it
    was the database cannot say, and async's figures are the range over both readings."""
    runs = load("step_timeout-early-0.5s-postgres", tmp_path)
    assert real(runs["async"]) == (2, 1, 2) and real(runs["sync"]) == (4, 2, 2)
    for form in ("recorder", "bare"):
        async_ = predict(runs["sync"], form)["async"]
        assert "2 invocations: a fresh input, a fresh input" in async_.used, form
        assert figures(async_) == (2, 1, 2), form
    unsure = predict(runs["exit"])["async"]
    assert holds(unsure, (2, 1, 2)) and holds(unsure, (2, 0, 0)), unsure.race
    assert "cancelled it" in unsure.race["note"]
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))
    # killed in the second input's `report`, after both its tasks: the same two readings
    late = load("step_timeout-late-0.5s-postgres", tmp_path / "late")
    every_prediction_holds(late, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_step_that_paused_inside_a_subgraph_did_not_raise(tmp_path: Path) -> None:
    """nested_interrupts_parallel: ``outer_1`` ended and the subgraph ``inner`` beside it
    paused; the resume finished the step, whose checkpoint had not landed at the kill. The
    subgraph's task logs no line of its own at the root: not every task due there ended, so
    the step did not raise (read as raised, exit re-ran 3 tasks where 2 ran)."""
    runs = load("nested_interrupts_parallel-late-0.25s", tmp_path)
    assert not any(a.raised_after for a in plan(runs["async"]).attempts)
    assert figures(predict(runs["async"])["exit"]) == real(runs["exit"])


def test_a_send_worker_that_paused_and_was_answered_did_not_raise(tmp_path: Path) -> None:
    """react_agent_tool_interrupt under ``ainvoke`` at 0.1 s: two `Send` tool workers, one
    finished and one paused at ``interrupt()`` after its lines ended; the answer ran the
    paused one to its end, and the kill came in the agent after it, before the async put of
    that step landed. Every task due there had ended and the step had no checkpoint: read
    as a step that raised, the finished worker was taken to have lost its writes, and exit
    was predicted to re-run 3 tasks and 9 lines where 2 and 7 ran again. A later invocation
    ran one of those tasks again: the step paused there; it did not raise."""
    runs = load("react_agent_tool_interrupt-late-0.1s", tmp_path)
    assert not any(a.raised_after for a in plan(runs["async"]).attempts)
    assert real(runs["exit"]) == (1, 2, 7)
    assert figures(predict(runs["async"])["exit"]) == (1, 2, 7)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_the_kill_counts_from_the_node_it_was_aimed_at(tmp_path: Path) -> None:
    """step_timeout on Postgres at 0.1 s: the kill was aimed 0.2 s after the second input's
    ``slow`` started; ``fast``, its step's other task, started a moment after it. Counted
    from ``fast`` (the last task to start), the aim did not match, the kill moment was read
    as the log's last line, and async was predicted to lose the second input's checkpoints
    (2 kept and nothing again, where 4 kept and 2 tasks again were measured)."""
    runs = load("step_timeout-early-0.1s-postgres", tmp_path)
    outcome = predict(runs["sync"])["async"]
    assert "kill moment: 0.2 s into slow (kill-test manifest)" in outcome.used
    assert holds(outcome, real(runs["async"])) and real(runs["async"]) == (4, 2, 2)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_kill_aimed_at_a_node_that_runs_graphs_stays_the_logs(tmp_path: Path) -> None:
    """multiple_subgraphs_checkpointer at 0.05 s, read from a trace: the kill was aimed 0.6 s
    after ``parent_node`` started, and what was in flight last was a node of a graph it ran.
    Counted from ``parent_node``'s span, the kill moment left out how long the graph's steps
    took to save under async (16 kept where 17); the moment stays the log's last line, with
    its range, unless the aimed task runs beside the last to start, in its loop."""
    runs = load("multiple_subgraphs_checkpointer-early-0.05s", tmp_path)
    outcome = predict(runs["exit"], "trace")["async"]
    assert not any("into parent_node" in line for line in outcome.used)
    assert holds(outcome, real(runs["async"], "trace"))
    # (as `validate` judges: only between kills that came at the same point of progress)
    every_prediction_holds(runs, forms=("recorder", "trace"), same_progress=True)
