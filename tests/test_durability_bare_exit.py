"""What a bare log (thread, node, phase, time, process) and an exit database (the last
checkpoint of each invocation that ended) still tell together.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, plan, predict, real


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
