"""Verdicts computed from the database at the kill equal what a real resume re-executed.

For every SIGKILLed run of the corpus the plan is computed from the snapshot taken at the
kill; then the effects log written by the real resume (a fresh process, same thread id)
tells, line by line, which task (node, superstep) actually ran again.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from corpus import Corpus, CorpusEntry, replay_json
from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread
from replaylens.effects.parse import EffectsLog, read_effects, strip_optional
from replaylens.errors import ThreadNotFound
from replaylens.sources import open_source

REPO = Path(__file__).resolve().parents[1]


def killed_pairs(corpus: Corpus) -> list[tuple[CorpusEntry, CorpusEntry]]:
    resumed = {e.name.removesuffix("-resumed"): e for e in corpus.of_kind("resumed_after_kill")}
    pairs = []
    for e in corpus.of_kind("killed") + corpus.of_kind("killed_slow_put"):
        stem = e.name.removesuffix("-killed")
        if stem in resumed:
            pairs.append((e, resumed[stem]))
    return pairs


def truth(
    at_kill: EffectsLog, after: EffectsLog
) -> tuple[set[tuple[str, int | None, str | None]], int | None]:
    """(node, step, task id) of the tasks that started again after the kill, and the step
    where a resume paused again at interrupt() (tasks beyond it were not reached by that
    resume). The task id tells parallel tasks of one node and step apart (a Send fan-out)."""
    n = len(at_kill.lines)
    new = [line for line in after.lines if line.line > n]
    parallel = Counter((line.node, line.step) for line in at_kill.lines if line.phase == "start")
    # A task re-run after the kill has a new id when the checkpoint it started from never
    # landed; only parallel tasks of one node and step need the id to be told apart.
    rerun = {
        (line.node, line.step, line.task_id if parallel[(line.node, line.step)] > 1 else None)
        for line in new
        if line.phase == "start"
    }
    paused = [line.step for line in new if line.phase == "interrupted" and line.step is not None]
    return rerun, min(paused) if paused else None


@pytest.mark.parametrize("stripped", [False, True], ids=["with-task-ids", "hand-written-style"])
def test_verdicts_match_the_real_resume(corpus: Corpus, stripped: bool) -> None:
    pairs = killed_pairs(corpus)
    assert len(pairs) >= 15
    checked = Counter()
    wrong: list[str] = []
    for killed, resumed in pairs:
        at_kill = read_effects(killed.effects_log)
        after = read_effects(resumed.effects_log)
        tid = killed.thread_ids[0]
        rerun, paused_at = truth(at_kill, after)
        source = open_source(killed.db)
        try:
            thread = load_thread(source, tid)
        except ThreadNotFound:
            thread = None
        # Hand-written logs as the seed articles write them: with a business key when there is one.
        log = strip_optional(at_kill, ("item", "invoice_id")) if stripped else at_kill
        plan = plan_resume(thread, log, tid)
        resume_error = resumed.resume.error if resumed.resume else None
        if thread is None:
            assert plan.status == "needs_restart"
            assert resume_error and "EmptyInputError" in resume_error
        by_line = {line.line: line for line in at_kill.lines}
        for attempt in plan.attempts:
            first = by_line[attempt.lines[0].line]  # the full line knows its real step
            if plan.status == "needs_restart":
                want = "restart"
            elif paused_at is not None and first.step is not None and first.step > paused_at:
                continue  # not reached: the resume stopped at interrupt() again
            else:
                parallel = sum(
                    1
                    for x in at_kill.lines
                    if (x.node, x.step, x.phase) == (first.node, first.step, "start")
                )
                key = (first.node, first.step, first.task_id if parallel > 1 else None)
                want = "replays" if key in rerun else "kept"
            checked[want] += len(attempt.lines)
            if attempt.verdict != want:
                wrong.append(
                    f"{killed.name} line {first.line} {first.node}: {attempt.verdict} != {want} "
                    f"({attempt.alignment}: {attempt.reason})"
                )
    assert not wrong, "\n".join(wrong)
    assert checked["replays"] > 0 and checked["kept"] > 0 and checked["restart"] > 0, checked


def test_replay_cli_contract(corpus: Corpus) -> None:
    killed = corpus.get("linear-sync-killed")
    doc = replay_json(killed)
    assert doc["status"] == "resumable"
    assert doc["resume_checkpoint"]["checkpoint_id"]
    assert [t["node"] for t in doc["reruns"]] == ["c"]
    lines = read_effects(killed.effects_log).lines
    assert [e["line"] for e in doc["effects"]] == [line.line for line in lines]
    assert {e["verdict"] for e in doc["effects"] if e["node"] == "c"} == {"replays"}
    assert {e["verdict"] for e in doc["effects"] if e["node"] in ("a", "b")} == {"kept"}
    assert set(doc["what_if"]["modes"]) == {"sync", "async", "exit"}
    assert doc["what_if"]["modes"]["exit"]["restart"] is True


def test_thread_only_in_effects_log_needs_restart(corpus: Corpus) -> None:
    killed = corpus.get("linear-exit-killed")
    doc = replay_json(killed)
    assert doc["status"] == "needs_restart" and doc["resume_checkpoint"] is None
    assert doc["effects"] and {e["verdict"] for e in doc["effects"]} == {"restart"}


def test_async_what_if_loses_more_with_higher_latency(corpus: Corpus) -> None:
    killed = corpus.get("fanout-sync-slowput-killed")
    tid = killed.thread_ids[0]
    thread = load_thread(open_source(killed.db), tid)
    log = read_effects(killed.effects_log)
    fast = plan_resume(thread, log, tid, latency=0.0).what_if
    slow = plan_resume(thread, log, tid, latency=5.0).what_if
    assert fast["async"].checkpoints_kept == fast["sync"].checkpoints_kept
    assert slow["async"].checkpoints_kept < fast["async"].checkpoints_kept
    assert len(slow["async"].replayed_lines) > len(fast["async"].replayed_lines)
    assert fast["exit"].restart and len(fast["exit"].replayed_lines) == len(log.for_thread(tid))


def test_exit_what_if_counts_one_checkpoint_per_finished_invocation(corpus: Corpus) -> None:
    """Under exit, a run paused at interrupt() then resumed and killed keeps exactly the one
    checkpoint saved at the pause, as the real exit-mode kill of the same graph shows."""
    sync_run = corpus.get("payment-sync-killed")
    exit_run = corpus.get("payment-exit-killed")
    tid = sync_run.thread_ids[0]
    plan = plan_resume(
        load_thread(open_source(sync_run.db), tid), read_effects(sync_run.effects_log), tid
    )
    real_exit = load_thread(open_source(exit_run.db), exit_run.thread_ids[0])
    assert plan.what_if["exit"].checkpoints_kept == real_exit.checkpoint_count == 1
    assert plan.what_if["exit"].resume_step == real_exit.root.latest.step
