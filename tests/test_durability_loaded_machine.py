"""Recordings made on a loaded machine: the loop of a mode that waits for nothing between
steps (exit, async) paused all the same, because the machine was busy. A run of another mode
need not pause there, and its kill, aimed at the same moment into the same node, comes that
much sooner after the writes before it (`outcomes._stall_before_kill`).

The campaign is the one CI's reduced corpus (`test_validation_corpus.py`) recorded when it
failed on stop 51's first fresh-clone run: dynamic_interrupt killed 0.2 s into ``finish``,
at 0.25 s a write, one run per mode, kept as it was written.
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, predict, real

NAME = "dynamic_interrupt-late-0.25s"


def test_a_pause_no_wait_of_exit_explains_may_not_repeat_under_another_mode(
    tmp_path: Path,
) -> None:
    """In the exit run ``finish`` started 0.32 s after ``tool_three`` ended: exit waits for
    nothing there. Re-timed as recorded, async's put of the step before ``finish`` landed
    before the kill (5 kept); the real async run, which did not pause, was killed before it
    landed (4 kept). Both readings make the range, with the mode told and inferred, in every
    log form; the sync prediction, which either reading leaves at 5, stays one value."""
    runs = load(NAME, tmp_path)
    assert real(runs["async"]) == (4, 1, 1) and real(runs["sync"]) == (5, 1, 1)
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            async_ = predict(runs["exit"], form, given)["async"]
            # a bare log's range reaches higher for reasons of its own (fresh input or resume)
            assert async_.race["checkpoints_kept"][0] == 4, (form, given, async_.race)
            if form != "bare":
                assert async_.race["checkpoints_kept"] == [4, 5], (form, given, async_.race)
            assert "a pause no wait of exit explains" in async_.race["note"], (form, given)
            assert holds(async_, real(runs["async"], form)), (form, given)
    assert figures(predict(runs["exit"])["sync"]) == (5, 1, 1)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"))
