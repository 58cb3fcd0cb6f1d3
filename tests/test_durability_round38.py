"""The what-if on the thirty-eighth held-out round: a kill that landed while a pause was
being saved (a node that asks before it logs, killed 0.2 s after it started on a store that
takes 0.25 s a write: test_time_travel.py::test_stateful_subgraph_retains_state_on_parent
_fork's late kill), and a run from the middle graph's own checkpoint of three levels
(test_3_levels_deep_time_travel_to_middle_subgraph).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_a_kill_while_the_pause_was_being_saved(tmp_path: Path) -> None:
    """step_b asks before it logs, so the log has no line of it: the last invocation reads
    as paused. The kill-test manifest says the process died 0.2 s after step_b started. Under
    sync the pause and the step before it had landed (20 kept, nothing again); under async
    the step's put was still in flight (19); under exit nothing of that invocation was saved,
    so step_a's answered run is lost and runs again (12 kept, step_a's two lines). Read as a
    pause, exit was 13 kept and nothing again, async 20. With the mode inferred (no manifest,
    nothing dates the kill) the invocation still reads as paused: those stay outside."""
    runs = load("stateful_subgraph_forked_turns-late-0.25s", tmp_path)
    measured = {mode: real(entry) for mode, entry in runs.items()}
    assert measured == {"sync": (20, 0, 0), "async": (19, 0, 0), "exit": (12, 1, 2)}
    for src, entry in runs.items():
        for form in ("recorder", "langgraph", "bare"):
            predicted = {t: figures(o) for t, o in predict(entry, form).items()}
            assert predicted == measured, (src, form)


def test_a_run_from_the_middle_graphs_own_checkpoint(tmp_path: Path) -> None:
    """The middle graph went on from a copy of its own checkpoint (one step on, where inner
    was due); it did not begin a new run, though its last run had ended: no input checkpoint
    and `__start__` of its own before the copy (from the exit recording, sync was 18 kept
    where the real run kept 17)."""
    runs = load("middle_checkpoint_replayed-early-0s", tmp_path)
    assert real(runs["sync"]) == (17, 0, 0) and real(runs["exit"]) == (11, 0, 0)
    for form in ("recorder", "langgraph"):
        assert figures(predict(runs["exit"], form)["sync"]) == (17, 0, 0), form
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
