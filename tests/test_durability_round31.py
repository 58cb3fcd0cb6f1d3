"""The what-if and the verdicts on the thirty-first held-out round: three levels of
``checkpointer=True`` graphs run from an earlier checkpoint and then given a new input
(test_time_travel.py::test_three_level_nested_subgraph_loads_state_on_replay); a plain copy
saved by ``update_state(as_node="__copy__")`` that asks its question again
(test_copy_fork_retriggers_interrupt); StateGraphs an `@entrypoint`'s task invokes, one of
them twice (test_pregel.py::test_multiple_subgraphs_mixed_entrypoint).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, plan, predict, real


def _verdicts(entry: dict, form: str = "recorder") -> list[tuple[int, str]]:
    """(first line, verdict) of each attempt at the recorded mode."""
    return [(a.lines[0].line, a.verdict) for a in plan(entry, form).attempts]


def test_the_copy_of_the_first_checkpoint_exit_saved_is_a_branch(tmp_path: Path) -> None:
    """Under exit the first checkpoint saved (the pause at ask_human) has no parent, and the
    `__copy__` of it, its sibling, none either: it was not read as a copy, so the run from it
    — which paused at once, before any line — was not seen, and its copy was counted with the
    answer before it. From the exit recording, sync was 5 kept and nothing again where the
    real run kept 6 and ran ask_human again."""
    runs = load("copy_fork_interrupt-early-0s", tmp_path)
    assert real(runs["sync"]) == (6, 1, 1) and real(runs["exit"]) == (3, 1, 1)
    for form in ("recorder", "bare"):
        assert figures(predict(runs["exit"], form)["sync"]) == (6, 1, 1), form
    every_prediction_holds(runs)


def test_graphs_a_task_call_invoked_go_on_from_their_own_checkpoints(tmp_path: Path) -> None:
    """Killed in the second `add` graph the entrypoint's task invoked: the resume runs the
    task again, which invokes both graphs again under the same namespaces; the first, whose
    run had ended, returns its saved result, and the second runs its due `add` again (1 task,
    1 line). The verdicts had kept that line (the resume was not seen to enter graphs below
    an `@task` call with no saved result), and from the exit recording — nothing in the
    database — the graphs were read as subgraphs of a loop under the entrypoint's task, with
    a `__start__` step (5 kept and both `add` again, then 7 and nothing again)."""
    runs = load("subgraphs_in_task_entrypoint-early-0s", tmp_path)
    for mode in ("sync", "async"):
        assert real(runs[mode]) == (6, 1, 1), mode
        assert _verdicts(runs[mode]) == [(1, "kept"), (3, "replays")], mode
    for form in ("recorder", "langgraph"):
        assert figures(predict(runs["exit"], form)["sync"]) == (6, 1, 1), form
        assert figures(predict(runs["exit"], form, given=False)["async"]) == (6, 1, 1), form
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_a_graph_two_levels_down_takes_a_fresh_input_after_its_loops_first_step(
    tmp_path: Path,
) -> None:
    """Killed in inner_step of the third input (after the run from the earlier checkpoint):
    under async, mid_node's loop resumes at its `__start__` checkpoint, finishes mid_step's
    step from its saved writes, and only then runs inner_node — without the resuming flag,
    which lives for a loop's first step — so inner_step runs again (the dropped-run rule had
    compared with the root's first step: 0 again where 1 was)."""
    runs = load("three_level_stateful_replayed-late-0.25s", tmp_path)
    assert real(runs["async"]) == (37, 1, 1)
    assert figures(predict(runs["sync"])["async"]) == (37, 1, 1)
    every_prediction_holds(runs)


def test_a_bare_log_numbers_a_stable_graphs_later_run_from_its_last(tmp_path: Path) -> None:
    """Killed in mid_step of the third input: a bare log has no steps, and mid_node's run
    was numbered from 1 as a graph that starts afresh; a `checkpointer=True` graph goes on
    from the checkpoint it loads (its input at step 7, mid_step at 9), and numbered from 1
    its steps matched none of the database's and the async recording's what-if for sync
    re-ran inner_step of the run before too (37, 2, 3 where 37, 1, 1 were)."""
    runs = load("three_level_stateful_replayed-early-0.25s", tmp_path)
    assert real(runs["sync"]) == (37, 1, 1)
    outcome = predict(runs["async"], "bare")["sync"]
    assert figures(outcome) == (37, 1, 1) and holds(outcome, real(runs["sync"]))
    every_prediction_holds(runs)
