"""The what-if on the forty-sixth held-out round: a node that invokes a graph twice, then
another node that invokes two graphs (test_pregel.py::test_multiple_subgraphs), neither
logging a line of its own.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_another_nodes_run_after_the_first_ended_is_the_next_steps_task(
    tmp_path: Path,
) -> None:
    """Killed in multiply, the second graph call_multiple_subgraphs invokes. Under exit the
    database is empty: only the graphs' lines say where the root's steps were. The runs of
    call_multiple_subgraphs began after every run of call_same_subgraph had ended: the tasks
    of one step start together, so it is the next step's task, and under sync the root
    saved a checkpoint between them. Both had been put in one root step (sync 13 kept, where
    the real run kept 14). The second graph of the same task stays in that task's step."""
    runs = load("multiple_subgraphs_same-late-0s", tmp_path)
    assert real(runs["sync"]) == (14, 1, 1)
    for form in ("recorder", "langgraph"):
        for given in (True, False):
            assert figures(predict(runs["exit"], form, given)["sync"]) == (14, 1, 1), form
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
