"""The what-if on the twenty-eighth held-out round: a run from the checkpoint before an
interrupt node, which asks again before logging anything, then answered
(test_time_travel.py::test_replay_from_before_interrupt_then_resume).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_a_run_from_a_copy_that_logged_nothing_is_an_invocation(tmp_path: Path) -> None:
    """replay_before_interrupt, killed in ask_human after the last answer: the thread had run
    to its end, then again from the checkpoint where ask_human was due; that run paused at
    once, before any line, and the log shows only the answer after it. The copy it began
    with lies between two logged invocations and holds the pause: a run came between, and
    under exit it saved the copy on its way out (3 kept; read without it, 2 kept and nothing
    again). The copy and what it saved belong to that silent run, not to the run before it
    (whose steps they had been counted with: 10 kept under async from the sync recording,
    where 6 were)."""
    runs = load("replay_before_interrupt-early-0.25s", tmp_path)
    assert real(runs["exit"]) == (3, 1, 1) and real(runs["sync"]) == (6, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (3, 1, 1), src
    assert figures(predict(runs["sync"])["async"]) == (6, 1, 1)
    assert figures(predict(runs["exit"], "bare", given=False)["sync"]) == (6, 1, 1)
    every_prediction_holds(runs)
