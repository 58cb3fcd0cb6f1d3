"""The what-if, the verdicts and the kill test's own measure on the twenty-ninth held-out
round: a subgraph compiled with ``checkpointer=True`` that runs in a later step of a run
from an earlier checkpoint (test_time_travel.py::test_stateful_subgraph_loads_state_across_ticks).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, plan, predict, real


def _verdicts(entry: dict, form: str, node: str) -> list[str]:
    """The verdict of each attempt of `node` at the recorded mode, in log order."""
    return [a.verdict for a in plan(entry, form).attempts if a.node == node]


def test_a_task_an_earlier_invocation_finished_is_not_measured_again(tmp_path: Path) -> None:
    """Killed in node_b of the run from the checkpoint where node_a was due: the resume runs
    node_b again and then, for the first time on this branch, the subgraph's sub_step. That
    start is under the subgraph's stable namespace, like the second input's sub_step, which a
    process that had ended finished: it is new work, not a repeat of that one (measured 2
    tasks and 3 lines before, where every view says 1 and 1); and the verdict keeps both of
    the earlier runs' sub_step lines."""
    runs = load("stateful_subgraph_replayed_tick-early-0s", tmp_path)
    for mode in ("sync", "async"):
        assert real(runs[mode]) == (18, 1, 1), mode
        for form in ("recorder", "langgraph", "bare"):
            assert _verdicts(runs[mode], form, "sub_step") == ["kept", "kept"], (mode, form)
    every_prediction_holds(runs)


def test_a_stable_graph_whose_task_runs_after_the_first_step_takes_a_fresh_input(
    tmp_path: Path,
) -> None:
    """Killed in the subgraph's sub_step on that branch: under async the checkpoint after
    node_b had not landed, so the resume first finishes node_b's step from its saved writes,
    and only then runs the node that invokes the subgraph — without LangGraph's resuming
    flag, which lives for the resume's first step. The subgraph takes the input afresh and
    sub_step runs again (1 task, 1 line), where the dropped-run rule had said the input was
    dropped (0 again); and the line that started it is not held by the subgraph's checkpoint
    from the earlier input, which is older than it."""
    runs = load("stateful_subgraph_replayed_tick-late-0.25s", tmp_path)
    assert real(runs["async"]) == (18, 1, 1) and real(runs["sync"]) == (21, 1, 1)
    assert figures(predict(runs["sync"])["async"]) == (18, 1, 1)
    assert figures(predict(runs["sync"], "bare", given=False)["async"]) == (18, 1, 1)
    for form in ("recorder", "langgraph", "bare"):
        assert _verdicts(runs["async"], form, "sub_step")[-1] == "replays", form
    every_prediction_holds(runs)
