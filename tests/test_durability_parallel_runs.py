"""Parallel runs of one subgraph (`Send` workers that each pause at ``interrupt()``), read
from every log form: which run each line was, what paused, and what the re-timing keeps.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, judged, load, predict, real

PARALLEL = "parallel_interrupts-late-0.25s"
DOUBLE = "parallel_interrupts_double-late-0.25s"


def test_a_workers_second_effect_is_its_task_going_on_beside_a_sibling_still_open(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts, a bare log under sync: in the second invocation worker a is
    answered and logs ``ask`` then ``record`` while worker b, which logged ``ask`` beside it,
    is still open. Every task of the step had been given to an earlier line, so ``record``
    was aligned with no checkpoint and read as running again (3 lines where 1); it is the
    answered worker's task going on (`align._continue_effect`). Then the third invocation is
    the answer to b's pause, not a fresh input: b9c7's run returned before it, which said
    nothing of the sibling run that paused (`evidence._went_past`, per namespace)."""
    runs = load(PARALLEL, tmp_path)
    sync = predict(runs["sync"], "bare")["sync"]
    assert figures(sync) == real(runs["sync"], "bare") == (9, 1, 1)
    assert "3 invocations: a fresh input, a resume, a resume" in sync.used
    checks = {c.mode: c for c in judged(PARALLEL, tmp_path)}
    assert checks["sync"].wrong == []


def test_which_worker_went_on_is_read_both_ways_from_a_bare_log(tmp_path: Path) -> None:
    """The same kill: the two workers log the same lines at the same moments, so a bare log
    cannot say which was answered and which paused. Read one way, async keeps 7 and exit
    re-runs 7 lines, where the real runs kept 8 and re-ran 9; the other placement
    (`align.realigned`) gives exactly those, and the range covers both readings."""
    runs = load(PARALLEL, tmp_path)
    for given in (True, False):
        outcomes = predict(runs["sync"], "bare", given)
        for target in ("async", "exit"):
            assert holds(outcomes[target], real(runs[target], "bare")), (given, target)
    async_ = predict(runs["sync"], "bare")["async"]
    assert "read both ways" in async_.race["note"]


def test_the_last_workers_graph_ends_before_its_parent_step_is_saved(tmp_path: Path) -> None:
    """test_parallel_interrupts_double, killed in cleanup after the last answer, recorded
    under sync at 0.25 s a write. On the re-timed clock the last worker's last moment falls
    on its parent's join once the sync waits are taken out; it is still inside its own run,
    and was moved by its own wait twice (`schedule._LaneClock`). Async then
    keeps the worker's last checkpoint (its executor waits for it) and loses only the root's
    step: 8 kept, where 7 had been predicted with full logs."""
    runs = load(DOUBLE, tmp_path)
    for src in ("sync", "exit"):
        for form in ("recorder", "langgraph"):
            got = predict(runs[src], form)["async"]
            assert figures(got) == real(runs["async"], form) == (8, 1, 1), (src, form)


def test_the_campaigns_hold_with_full_logs_and_traces(tmp_path: Path) -> None:
    for name in (PARALLEL, DOUBLE):
        every_prediction_holds(load(name, tmp_path / name), ("recorder", "langgraph", "trace"))
