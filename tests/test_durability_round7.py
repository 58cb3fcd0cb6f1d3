"""The what-if on the seventh held-out round: a human's ``update_state`` between invocations,
a subgraph invoked inside a node that pauses in two parent invocations, read from a bare
log, and a fan-out wider than its executor.

Each test judges the model against real SIGKILLs and real resumes recorded in
`tests/whatif_kills/` (`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them
again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, holds, load, predict, real

from replaylens.examples.langgraph_tests import form_log
from replaylens.killtest.validate import manifest_recording, plan_for

FULL = ("recorder", "langgraph")


def test_a_state_edit_is_kept_in_every_mode(tmp_path: Path) -> None:
    """breakpoint_update_state, killed in qa after the pause before it and a human's
    ``update_state``: the edit is a checkpoint of its own in every mode, the breakpoint's
    pause one too under exit (2 kept there, qa re-run with its 3 lines); under sync the
    thread keeps 6 (input, four loop steps, the edit), not a seventh for a fresh input
    (the run after the edit goes on from it, its steps one further on)."""
    runs = load("breakpoint_update_state-early-0s", tmp_path)
    assert real(runs["sync"]) == (6, 1, 3) and real(runs["exit"]) == (2, 1, 3)
    every_prediction_holds(runs)
    exit_ = predict(runs["sync"])["exit"]
    assert [r["node"] for r in exit_.reruns] == ["qa"] and exit_.checkpoints_kept == 2


def _verdicts(entry: dict, form: str) -> list[tuple[str, str]]:
    node = str(entry["kill_at"]).rpartition(":")[0]
    rec = manifest_recording(entry, float(entry["kill_delay"]), node)
    plan = plan_for(entry, str(form_log(entry["effects_at_kill"], form)), rec)
    return [
        (f"{line.line} {a.node} {line.phase}", a.verdict) for a in plan.attempts for line in a.lines
    ]


def test_bare_lines_of_a_returned_subgraph_run_are_not_put_in_it(tmp_path: Path) -> None:
    """stateless_subgraph_interrupts under exit, read from the bare log (no namespace, no
    task id): the lines of the second parent invocation's subgraph run do not belong to the
    first run, which had returned before they began (its parent task's step has a later
    checkpoint), and the first pause's lines belong to the first run, whose only checkpoint
    exit saved when it paused. Every line's verdict is the one the recorder's log gets."""
    runs = load("stateless_subgraph_interrupts-early-0s", tmp_path)
    for entry in runs.values():
        assert _verdicts(entry, "bare") == _verdicts(entry, "recorder"), entry["mode"]
    every_prediction_holds(runs, FULL)


def test_a_bare_task_s_next_effect_stays_in_its_subgraph_run(tmp_path: Path) -> None:
    """The same recordings under sync and async, bare: the answered task logs `prepare` again,
    then `process`, then `respond` runs; those lines are the one run the checkpoints put
    them in (the only run going so far), not a second run of the subgraph beside it, so
    every mode's prediction holds what the real runs measured (exit keeps 5: the root's
    three saves and each run's pause, not a sixth for a run that never was)."""
    runs = load("stateless_subgraph_interrupts-early-0s", tmp_path)
    assert real(runs["exit"]) == (5, 1, 5)
    for src in (runs["sync"], runs["async"]):
        for given in (True, False):
            outcomes = predict(src, "bare", given)
            for target, r in runs.items():
                assert holds(outcomes[target], real(r)), (src["mode"], given, target)


def test_writes_wait_behind_queued_tasks(tmp_path: Path) -> None:
    """max_concurrency_send (six workers, two at a time), killed as the fourth began: the two
    that had finished handed their writes to the same two-worker executor, behind the
    workers still queued, so under sync and async none had landed and the resume re-runs
    all four logged workers. From the exit recording, where the database holds nothing of
    the step, the model reads the queue off the log: each worker that ended was followed at
    once by another's start."""
    runs = load("max_concurrency_send-early-0s", tmp_path)
    assert real(runs["sync"]) == (2, 4, 6) and real(runs["async"]) == (2, 4, 6)
    every_prediction_holds(runs, FULL)
    assert len(predict(runs["exit"])["sync"].reruns) == 4
