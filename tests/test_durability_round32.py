"""The what-if on the thirty-second held-out round: an `@entrypoint` whose `@task` setup runs
before `@task` calls that pause in turn (test_pregel.py::test_task_before_interrupt_resume).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_the_next_call_of_a_task_is_not_the_answered_one_begun_again(tmp_path: Path) -> None:
    """Killed in the second `ask`, after the second answer: a bare log shows `ask` logged in
    the first answer's run and `ask` starting in the next, which reads like one task begun
    again from its top (its first run paused after logging). The database tells them apart:
    each line aligns with a call of its own, and the first call's result is saved — it
    returned, it did not pause. Read as one task, exit was 1 kept and both `ask` again
    (3 lines), where the real exit run kept 1 and ran the second `ask` alone."""
    runs = load("tasks_before_interrupts-early-0s", tmp_path)
    assert real(runs["exit"]) == (1, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src], "bare")["exit"]) == (1, 1, 1), src
    every_prediction_holds(runs)
