"""The what-if on the twenty-fifth held-out round: the state edited at an earlier checkpoint
and the thread run from the edit (test_time_travel.py::
test_sequential_interrupts_fork_from_middle).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_an_edit_on_an_earlier_checkpoint_begins_a_branch(tmp_path: Path) -> None:
    """sequential_interrupts_fork, killed in interrupt_2 after the last answer: the thread had
    run to its end (two answers), then ``update_state`` edited the checkpoint where
    interrupt_2 was due, beside the child it already had, and the run from that edit paused
    at interrupt_2 again before logging. The edit is a branch, like a run from a copy, but
    ``update_state`` saves it there and then, in every mode. Read as a checkpoint of the run
    before it (its step, 3, that run's), it was counted as that run's own step under exit
    from the async recording (7 kept predicted where exit kept 4), and from the exit recording
    it took the place of sync's step-3 checkpoint, the resume going on from the first run's
    end (6 0 0 where sync kept 7 and ran interrupt_2 again). The edit is the run's after it
    whichever invocation its time stamp lies nearer (this recording: nearer the one before)."""
    runs = load("sequential_interrupts_fork-early-0s", tmp_path)
    assert real(runs["exit"]) == (4, 1, 1) and real(runs["sync"]) == (7, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (4, 1, 1), src
    assert figures(predict(runs["exit"])["sync"]) == (7, 1, 1)
    assert figures(predict(runs["exit"], "bare", given=False)["async"]) == (7, 1, 1)
    every_prediction_holds(runs)
