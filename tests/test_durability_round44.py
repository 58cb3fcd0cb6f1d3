"""The what-if on the forty-fourth held-out round: two nodes of one superstep that both
fail, each with an error handler that crashes on its first attempt
(test_retry.py::test_error_handler_resumes_after_crash_multiple_nodes).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, judged, load, predict, real


def test_a_failure_whose_handler_the_next_invocation_ran_was_saved(tmp_path: Path) -> None:
    """Killed 0.5u into handler_a's second attempt, at 0.25 s a write. In the first
    invocation a fails, handler_a starts and crashes while b is still running: the step is
    given up, and b's failure gets no handler in that process. Under sync and async its
    writes are put anyway as it ends, and the second invocation runs both handlers, not b.
    From either recording the other mode's resume runs the two handlers again (2 tasks, 4
    lines), not b; b had been taken for a task whose failure was never saved (3 and 6)."""
    runs = load("error_handlers_both_crash-early-0.25s", tmp_path)
    assert real(runs["sync"]) == real(runs["async"]) == (2, 2, 4)
    for src, target in (("sync", "async"), ("async", "sync")):
        for form in ("recorder", "langgraph", "bare"):
            for given in (True, False):
                outcome = predict(runs[src], form, given)[target]
                assert figures(outcome) == (2, 2, 4), (src, form, given)
                nodes = sorted(r["node"] for r in outcome.reruns)
                assert nodes == ["__error_handler__a", "__error_handler__b"], (src, form, given)
    every_prediction_holds(runs)


def test_a_handler_is_due_again_with_the_node_whose_failure_was_lost(tmp_path: Path) -> None:
    """Killed 1.6u into handler_b, no write latency. Under exit the first invocation's one
    save was made as the step was given up, before b failed: b's failure was never saved,
    so the second invocation ran b again, which failed again and scheduled handler_b, where
    the kill landed. A resume does the same: handler_b's line (11) runs again. It had been
    read as a task a Command of the killed resume scheduled, which exit never saves (not
    again), and the exit figures said 2 re-run and 8 lines where 3 and 9 were measured.
    From the sync recording, exit's resume runs the same three tasks the real exit run ran
    again: b, whose failure exit did not save, and both handlers (handler_b had been left
    out as a task a Command scheduled)."""
    runs = load("error_handlers_both_crash-late-0s", tmp_path)
    assert real(runs["exit"]) == (1, 3, 9)
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            reruns = predict(runs["sync"], form, given)["exit"].reruns
            assert sorted(r["node"] for r in reruns) == [
                "__error_handler__a", "__error_handler__b", "b"
            ], (form, given)  # fmt: skip
    for form in ("recorder", "langgraph", "bare"):
        assert figures(predict(runs["exit"], form)["exit"]) == (1, 3, 9), form
    for form in ("recorder", "langgraph", "bare"):
        checks = {c.mode: c for c in judged("error_handlers_both_crash-late-0s", tmp_path, (form,))}
        assert checks["exit"].wrong == [] and checks["exit"].right == checks["exit"].lines == 11
        assert checks["sync"].wrong == []
