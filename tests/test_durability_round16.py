"""The what-if on the sixteenth held-out round and the async re-timing of graphs nested in
stateful ones: a Command to the parent from three stateful levels down, and two
`checkpointer=True` graphs a node invokes one after the other, on a 0.25 s store.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_a_stateful_graph_still_running_a_graph_below_had_not_returned(tmp_path: Path) -> None:
    """parent_command_deeply_nested (child_2 and its sub_child_2 both `checkpointer=True`),
    killed 0.5 units into sub_sub_child. child_2's step that runs sub_child_2 logs no line of
    its own, so no run was recorded for it: the step after sub_child_1 was read as the last
    of child_2's run, and async re-timed as if child_2 had returned and waited for its
    puts (6 checkpoints kept, 1 task again). It was still running: under async at 0.25 s
    only the root's input and first step and child_2's input had landed, so sub_child_1
    runs again with sub_sub_child (3 kept, 2 tasks, 3 lines), as measured."""
    runs = load("parent_command_deeply_nested-early-0.25s", tmp_path)
    assert real(runs["async"]) == (3, 2, 3) and real(runs["sync"]) == (8, 1, 1)
    for form in ("recorder", "bare"):
        assert figures(predict(runs["sync"], form)["async"]) == (3, 2, 3), form
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_graphs_one_node_invokes_wait_one_after_another(tmp_path: Path) -> None:
    """stateful_namespace_isolation on a 0.25 s store, killed 0.5 units into `finish` of the
    second invocation. Under sync the waits of the graphs call_both invoked (fruit, then
    veggie, each wrapping an inner graph) and the root's own wait after call_both lie on one
    timeline, one after the other: counted once each (they had been counted twice, and the
    async re-timing put the kill 7 s early: 19 checkpoints, 3 tasks, 5 lines). veggie runs
    after fruit, never beside it, so its exit waits add to fruit's, and call_both's step
    holds both graphs (the node logged there before invoking them): the root's put after it
    is submitted only once veggie's last put landed, and had not landed 0.2 s into
    `finish` (30 kept of sync's 31, `finish` alone again), as measured."""
    runs = load("stateful_namespace_isolation-late-0.25s", tmp_path)
    assert real(runs["async"]) == (30, 1, 1) and real(runs["sync"]) == (31, 1, 1)
    for form in ("recorder", "langgraph", "bare"):
        assert figures(predict(runs["sync"], form)["async"]) == (30, 1, 1), form
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
