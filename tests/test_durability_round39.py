"""The what-if on the thirty-ninth held-out round: a subgraph with no checkpointer of its own
run again under a new task id from an edit of the root checkpoint where it was due
(test_time_travel.py::test_fork_creates_branch_in_subgraph), and an `async def` node that
fails and is retried by a second input (test_pregel_async.py::test_checkpoint_recovery_async).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, judged, load, plan, predict, real

ALL_FORMS = ("recorder", "langgraph", "bare")


def test_the_task_due_in_the_edit_belongs_to_the_run_from_it(tmp_path: Path) -> None:
    """Killed in sub_step of the run from the edit: the edit holds sub_graph due with no
    write, and that task is the run's own, not a pause of the first invocation, which had
    returned (its last root checkpoint counts). Read as a pause, the first invocation's end
    was never saved: one checkpoint short each way (sync → async 8 for 9, async → sync 10
    for 11), in every log form."""
    runs = load("fork_branch_in_subgraph-early-0.25s", tmp_path)
    assert real(runs["sync"]) == (11, 1, 1) and real(runs["async"]) == (9, 1, 1)
    for form in ALL_FORMS:
        assert figures(predict(runs["sync"], form)["async"]) == (9, 1, 1), form
        assert figures(predict(runs["async"], form)["sync"]) == (11, 1, 1), form
    every_prediction_holds(runs)


def test_a_subgraph_node_that_logs_nothing_takes_a_root_step(tmp_path: Path) -> None:
    """Killed in parent_end after the run from the edit: a bare log has sub_step's lines and
    then parent_end's, and under async the root checkpoint after the subgraph had not landed
    to number parent_end's step. sub_graph (the node that ran the subgraph) logs nothing, but
    it took a root step: parent_end ran one step later. Read as the step after the edit,
    async → sync was 12 for the 13 the sync run kept. From the async recording with the mode
    inferred (no write latency known), the root checkpoint after the subgraph is made just
    before parent_end starts (async makes it when the subgraph's task returns, after that
    loop waited for its own puts, and goes on at once); dated at the subgraph's last
    checkpoint, it had landed before the kill: async itself 13 for the 12 it kept."""
    runs = load("fork_branch_in_subgraph-late-0.25s", tmp_path)
    assert real(runs["sync"]) == (13, 1, 1) and real(runs["async"]) == (12, 1, 1)
    for form in ALL_FORMS:
        assert figures(predict(runs["async"], form)["sync"]) == (13, 1, 1), form
        inferred = predict(runs["async"], form, given=False)["async"]
        assert holds(inferred, (12, 1, 1)) and figures(inferred) == (12, 1, 1), form
    every_prediction_holds(runs)


def test_the_error_handler_of_a_silent_subgraph_node_runs_in_its_step(tmp_path: Path) -> None:
    """error_handler_subgraph_async, a bare log: subgraph_node logs nothing, so its subgraph's
    lines give it a root step of its own; the handler that took the subgraph's failure is a
    task of that same step, not the next one (read as the next, exit → sync was 7 for 5)."""
    runs = load("error_handler_subgraph_async-early-0s", tmp_path)
    assert real(runs["sync"]) == (5, 1, 1)
    assert holds(predict(runs["exit"], "bare")["sync"], real(runs["sync"]))
    every_prediction_holds(runs, forms=ALL_FORMS)


def test_a_retry_a_bare_log_cannot_tell_from_a_fresh_input_is_said_to_be_a_guess(
    tmp_path: Path,
) -> None:
    """node1 failed in the first input; the second input (attempt 2) ran it again and the
    kill came in node2. Under exit the database keeps only the first invocation's checkpoint
    with node1's failure, and a bare log names no task: the second invocation may be a fresh
    input (lost with the kill: its lines do not run again) or a resume of the failed node1
    (they do). The plan takes the resume, says in words that it is a guess, and the check
    counts those lines apart: the real run was a fresh input. With steps in the log
    (recorder, langgraph) every line is right."""
    runs = load("checkpoint_recovery_async-late-0s", tmp_path)
    assert real(runs["exit"]) == (1, 1, 2)
    for form in ("recorder", "langgraph"):
        checks = judged("checkpoint_recovery_async-late-0s", tmp_path, (form,))
        assert [(c.right, c.lines, c.wrong, c.guessed) for c in checks] == [(5, 5, [], [])] * 2
    bare = {c.mode: c for c in judged("checkpoint_recovery_async-late-0s", tmp_path)}
    assert bare["sync"].right == bare["sync"].lines == 5 and not bare["sync"].guessed
    exit_ = bare["exit"]
    assert exit_.wrong == [] and exit_.right == 2
    assert [g.split(":")[0] for g in exit_.guessed] == [
        "line 3 (node1 start)",
        "line 4 (node1 end)",
        "line 5 (node2 start)",
    ]
    assert all("fresh input or a resume" in g for g in exit_.guessed)
    # every view heads the thread with the plan's sentence: it names that guess and its lines
    assert "Whether log lines 3-5 (`node1`, `node2`) run again is a guess" in (
        plan(runs["exit"], "bare").verdict_sentence()
    )
    assert "is a guess" not in plan(runs["exit"], "recorder").verdict_sentence()
    every_prediction_holds(runs)
