"""Parallel tasks of one node, with hand-written logs: verdicts equal what the real resume re-ran.

A `Send` map-reduce (`send_uneven`) and a functional entrypoint with four parallel @task
calls (`functional_parallel`) are SIGKILLed while item 4's task runs and items 1 to 3
have finished. The log is stripped to the keys a hand-written log has (thread_id, node,
phase, ts, pid, and the business key `item`). The truth is task by task: the full log
line knows its task id, and the resume's own log says which task ids started again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import Corpus, CorpusEntry
from replaylens.analysis.plan import ResumePlan
from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread
from replaylens.effects.parse import EffectsLog, read_effects, strip_optional
from replaylens.sources import open_source

pytestmark = pytest.mark.slow


def parallel_pairs(corpus: Corpus) -> list[tuple[CorpusEntry, CorpusEntry]]:
    resumed = {e.name.removesuffix("-resumed"): e for e in corpus.of_kind("resumed_after_kill")}
    return [
        (e, resumed[e.name.removesuffix("-killed")])
        for e in corpus.of_kind("killed")
        if e.variant == "parallel"
    ]


def rerun_task_ids(at_kill: EffectsLog, after: EffectsLog) -> set[str]:
    """Task ids that started again in the resume (lines past the ones at the kill)."""
    n = len(at_kill.lines)
    return {
        line.task_id
        for line in after.lines
        if line.line > n and line.phase == "start" and line.task_id
    }


def judge_against_truth(
    killed: CorpusEntry, resumed: CorpusEntry, keep: tuple[str, ...]
) -> tuple[ResumePlan, list[str], int]:
    """(plan from the stripped log, mismatching lines in words, lines compared)."""
    at_kill = read_effects(killed.effects_log)
    rerun = rerun_task_ids(at_kill, read_effects(resumed.effects_log))
    tid = killed.thread_ids[0]
    source = open_source(killed.db)
    try:
        plan = plan_resume(load_thread(source, tid), strip_optional(at_kill, keep), tid)
    finally:
        source.close()
    by_line = {line.line: line for line in at_kill.lines}
    wrong: list[str] = []
    compared = 0
    for attempt in plan.attempts:
        for line in attempt.lines:
            full = by_line[line.line]
            want = "replays" if full.task_id in rerun else "kept"
            compared += 1
            if attempt.verdict != want:
                wrong.append(
                    f"{killed.name} line {line.line} {full.node} item={full.extra.get('item')}: "
                    f"{attempt.verdict} != {want} ({attempt.alignment}: {attempt.reason})"
                )
    return plan, wrong, compared


def test_the_kill_left_one_of_four_tasks_running(corpus: Corpus) -> None:
    pairs = parallel_pairs(corpus)
    assert {k.graph for k, _ in pairs} == {"send_uneven", "functional_parallel"}
    for killed, resumed in pairs:
        at_kill = read_effects(killed.effects_log)
        rerun = rerun_task_ids(at_kill, read_effects(resumed.effects_log))
        open_items = {
            e.extra.get("item") for e in at_kill.lines if e.node == "work" and e.phase == "start"
        } - {e.extra.get("item") for e in at_kill.lines if e.node == "work" and e.phase == "end"}
        assert open_items == {4}, killed.name
        started = {e.task_id for e in at_kill.lines if e.node == "work" and e.phase == "start"}
        assert len(started) == 4 and len(rerun & started) == 1, (killed.name, rerun)


def test_hand_written_verdicts_equal_the_real_resume(corpus: Corpus) -> None:
    total = 0
    wrong: list[str] = []
    for killed, resumed in parallel_pairs(corpus):
        plan, bad, compared = judge_against_truth(killed, resumed, ("item",))
        wrong += bad
        total += compared
        assert "repeats no recorded side effect" not in plan.verdict_sentence(), killed.name
        assert "`work`" in plan.verdict_sentence(), (killed.name, plan.verdict_sentence())
        replayed = [a for a in plan.attempts if a.verdict == "replays"]
        assert [a.lines[0].extra.get("item") for a in replayed] == [4], killed.name
        assert not any(a.ambiguous for a in plan.attempts), killed.name  # `item` tells them apart
    assert not wrong, "\n".join(wrong)
    assert total >= 4 * (2 + 4 + 3), (
        total
    )  # 4 kills x (plan or load: 2 lines; work: 4 starts, 3 ends)


def test_without_a_business_key_the_pairing_says_it_is_a_guess(corpus: Corpus) -> None:
    """No `item`: four `work` starts, three ends, one process. The plan must still name the
    effect that repeats, and every guess it made must be marked as one."""
    for killed, resumed in parallel_pairs(corpus):
        plan, wrong, _ = judge_against_truth(killed, resumed, ())
        assert "`work`" in plan.verdict_sentence(), killed.name
        assert any(a.ambiguous for a in plan.attempts), killed.name
        assert "cannot tell" in plan.verdict_sentence() or "guess" in plan.verdict_sentence(), (
            plan.verdict_sentence()
        )
        flagged = {line.line for a in plan.attempts if a.ambiguous for line in a.lines}
        for message in wrong:  # a wrong line is always one the plan said it could not tell
            line_no = int(message.split(" line ")[1].split()[0])
            assert line_no in flagged, message


def test_functional_next_is_the_entrypoint_and_calls_hang_under_it(
    corpus: Corpus, tmp_path: Path
) -> None:
    killed = next(
        k
        for k, _ in parallel_pairs(corpus)
        if k.graph == "functional_parallel" and k.mode == "sync"
    )
    tid = killed.thread_ids[0]
    source = open_source(killed.db)
    thread = load_thread(source, tid)
    latest = thread.root.latest
    assert [t.node for t in latest.tasks] == ["batch"]
    calls = latest.tasks[0].calls
    assert [c.status for c in calls] == [
        "finished"
    ] * 4  # load and items 1 to 3; item 4 never returned
    assert all(c.reused_on_resume and not c.node for c in calls)  # no log given yet: names unknown
    plan = plan_resume(thread, strip_optional(read_effects(killed.effects_log), ("item",)), tid)
    source.close()
    assert [c.node for c in calls] == ["load", "work", "work", "work"]
    assert all(c.name_source.startswith("its task id") for c in calls)
    doc = plan.to_json()
    assert [r["node"] for r in doc["reruns"]] == ["batch"]
    assert [c["name"] for c in doc["reruns"][0]["calls"]] == ["load", "work", "work", "work"]


def test_a_rerun_the_log_cannot_place_is_never_called_safe(corpus: Corpus) -> None:
    """The safety net behind the sentence: were the in-flight `work` start given no task
    (say its start time fell before the checkpoint it ran from), the plan would list a
    `work` task to re-run beside `work` starts all judged kept. It must then say it may
    repeat an effect, never "repeats no recorded side effect"."""
    from replaylens.analysis.resume import unmatched_reruns

    killed, resumed = next((k, r) for k, r in parallel_pairs(corpus) if k.graph == "send_uneven")
    plan, wrong, _ = judge_against_truth(killed, resumed, ("item",))
    assert not wrong
    in_flight = next(a for a in plan.attempts if a.verdict == "replays")
    in_flight.task, in_flight.verdict = None, "kept"
    plan.unmatched_reruns = unmatched_reruns(plan.reruns, plan.attempts)
    assert plan.unmatched_reruns and "`work` runs again" in plan.unmatched_reruns[0]
    sentence = plan.verdict_sentence()
    assert sentence.startswith("Resuming this thread may repeat a recorded side effect"), sentence
