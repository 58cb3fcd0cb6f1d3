"""What a bare log (thread, node, phase, time, process) and an exit database (the last
checkpoint of each invocation that ended) still tell together.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, plan, predict, real


def test_a_graph_whose_input_skips_the_start_channel_runs_its_first_node_in_step_0(
    tmp_path: Path,
) -> None:
    """pregel_interrupt_after, a raw `Pregel` whose input goes to a channel of its own: no
    `__start__` step comes before its first node, which runs in step 0. An exit database
    keeps no input checkpoint to show it (the sign `_no_start_step` read), but no root
    checkpoint names the ``__start__`` channel a graph's input goes to: read with a
    `__start__` step, every step was one late, and sync kept 8 where the real run kept 6."""
    runs = load("pregel_interrupt_after-early-0s", tmp_path)
    first = min(plan(runs["exit"], "bare").attempts, key=lambda a: a.start_ts)
    assert first.node == "one"
    assert real(runs["sync"], "bare") == (6, 1, 1)
    assert figures(predict(runs["exit"], "bare")["sync"]) == (6, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare"))


def test_the_steps_each_invocation_saved_tell_a_fresh_input_from_a_resume(tmp_path: Path) -> None:
    """test_invoke_two_processes_in_out_interrupt at 0.5 s a write, bare log: a raw Pregel
    with a breakpoint after `one`, inputs 2, None, 20, 3 (into the pause), None, killed in
    the last `two`. Under exit the database keeps only what each invocation saved as it
    ended (steps 0, 1, 3, 5) and the node names alone read the third invocation as a
    resume: 8 checkpoints kept under sync and async where the real runs kept 7. A resume
    goes on one step per step it runs, a fresh input adds its input checkpoint first
    (`evidence._kinds_from_saved_ends`); the next invocation's input checkpoint, taken
    just before it, is not the end of the one before (read so, the second invocation of
    the early kill's async recording had become a fresh input: 6 kept where 5)."""
    late = load("pregel_interrupt_after-late-0.5s", tmp_path / "late")
    for given in (True, False):
        outcomes = predict(late["exit"], "bare", given)
        for target in ("sync", "async"):
            o = outcomes[target]
            assert holds(o, real(late[target], "bare")), (target, given, figures(o), o.race)
    assert figures(predict(late["exit"], "bare")["sync"]) == (7, 1, 1)
    early = load("pregel_interrupt_after-early-0.5s", tmp_path / "early")
    every_prediction_holds(early, same_progress=True)
    every_prediction_holds(late, same_progress=True)


def test_a_fresh_input_goes_on_from_the_root_step_the_answers_before_it_saved(
    tmp_path: Path,
) -> None:
    """test_stateless_subgraph_starts_fresh_on_parent_replay at 0.1 s a write, bare log from
    exit: two inputs, each answered twice inside the subgraph, whose lines alone said how
    far the answers went; the root's own line was the first input's. The second input's
    `parent_node` went on from that line's step, one short of the step the second answer
    had saved (the run's end, step 2), and was read into a step of its own: 20 kept under
    sync and async where 19. The root checkpoints saved before an invocation's last line
    tell where the next one goes on (`evidence._saved_by`)."""
    runs = load("stateless_subgraph_parent_replay-early-0.1s", tmp_path)
    for target in ("sync", "async"):
        assert real(runs[target], "bare") == (19, 1, 1)
        assert figures(predict(runs["exit"], "bare")[target]) == (19, 1, 1), target
    every_prediction_holds(runs, same_progress=True)


def test_a_fresh_inputs_task_is_not_due_at_an_earlier_invocations_checkpoint(
    tmp_path: Path,
) -> None:
    """test_parent_command with a `checkpointer=True` subgraph under `ainvoke` at 1 s a
    write, bare log from async and from exit: the second input's `tool` was matched by time
    to the first run's subgraph checkpoint where `tool` was due, so read as a fresh input
    (the database keeps no input checkpoint to tell) it still took that run's step and was
    the first run's task: nothing again where the real sync resume ran it (10 1 1). A fresh
    input's tasks are due at checkpoints of its own; the stable graph's later run goes on
    numbering its steps (`evidence._made_before`). Not where the thread was run from an
    earlier checkpoint, whose copies the alignment dates: first written without that, it
    moved seven replay shapes outside."""
    runs = load("parent_command_stateful-early-1s", tmp_path)
    assert real(runs["sync"], "bare") == (10, 1, 1)
    for src in ("async", "exit"):
        for given in (True, False):
            o = predict(runs[src], "bare", given)["sync"]
            assert holds(o, real(runs["sync"], "bare")), (src, given, figures(o), o.race)
    replayed = load("first_invocation_replayed-early-0.25s", tmp_path / "replayed")
    every_prediction_holds(replayed, same_progress=True)
