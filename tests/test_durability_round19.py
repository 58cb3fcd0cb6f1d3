"""The what-if on the nineteenth held-out round: a graph built on `Pregel` itself with a
breakpoint after a node, passed by ``invoke(None)``, and fresh inputs sent into the paused
thread (test_invoke_two_processes_in_out_interrupt).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_a_pregel_loop_adds_one_checkpoint_per_fresh_input(tmp_path: Path) -> None:
    """pregel_interrupt_after, killed in `one` of the fourth invocation (inputs 2, None, 20,
    then 3 sent into the paused thread). A graph built on `Pregel` has no `__start__` step:
    each fresh input saves its input checkpoint and its first node runs in the next step.
    Read as a StateGraph's (input, then `__start__`), every fresh input counted one
    checkpoint more: 8 kept under sync from the exit recording, where 6 were. The input
    checkpoint with `one` due (what a bare log, without steps, has), or a root task that logs
    step 0, tells."""
    runs = load("pregel_interrupt_after-early-0s", tmp_path)
    assert real(runs["sync"]) == (6, 1, 1) and real(runs["exit"]) == (3, 0, 0)
    assert figures(predict(runs["exit"])["sync"]) == (6, 1, 1)
    assert figures(predict(runs["exit"], "langgraph")["async"]) == (6, 1, 1)
    # a bare log names no step: the sync database's input checkpoint with `one` due tells
    assert figures(predict(runs["sync"], "bare", given=False)["async"]) == (6, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_a_pause_inside_a_subgraph_before_any_line_is_an_invocation_first(
    tmp_path: Path,
) -> None:
    """dynamic_interrupt_subgraph (round 20): the subgraph's node `do` calls ``interrupt()``
    before logging, so the first invocation left no line; the kill lands in `do` after the
    answer, before its answer was saved (no `__resume__` write yet). Under exit that first
    invocation's pause saved the root's and the subgraph's checkpoints (2 kept); read as the
    log's only invocation, exit had been predicted to keep none. `do` ran past its pause in
    the log (killed in it): it had been answered, so an invocation came first."""
    runs = load("dynamic_interrupt_subgraph-early-0s", tmp_path)
    assert real(runs["exit"]) == (2, 1, 1) and real(runs["sync"]) == (4, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (2, 1, 1), src
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
