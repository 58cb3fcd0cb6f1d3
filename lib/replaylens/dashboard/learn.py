"""A guided walk through one recorded thread, superstep by superstep.

For each superstep of the thread's root chain it says what ran in parallel, when each
task's writes and the step's checkpoint landed, and what a SIGKILL in the middle of
that step would leave under each durability mode. The "what if" is not worked out
here: it is `replaylens.analysis.durability.what_if_at`, the one model every page uses,
asked about a kill just before the step's last task finishes (its siblings are done,
their writes saved; it is not).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from replaylens.analysis.again import again_of
from replaylens.analysis.attempts import times
from replaylens.analysis.durability import (
    DEFAULT_LATENCY,
    MODES,
    WRITE_COST,
    ModeOutcome,
    what_if_at,
)
from replaylens.model import CONTROL_CHANNELS, Checkpoint, Thread, channel_label
from replaylens.times import iso_to_epoch

KILL_BEFORE_END = 0.005
"""Seconds before the step's last task finishes at which the lesson's kill lands."""

if TYPE_CHECKING:
    from replaylens.analysis.plan import ResumePlan


@dataclass
class TaskRun:
    node: str
    status: str  # what the database shows at the end of the recording
    channels: list[str]  # the writes it saved (labels)
    start: float | None = None  # from the effects log, when there is one
    end: float | None = None
    effects: list[str] = field(default_factory=list)


@dataclass
class ModeLesson:
    holds: str  # what the database holds at the kill
    resume: str  # where a resume starts
    reruns: list[str]  # tasks that run again (node names, step noted)
    reused: list[str]
    repeated_effects: list[
        str
    ]  # "p3 (once)", "charge_card (2 times)": executions again, as the sentence counts
    restart: bool = False
    sentence: str = ""
    fates: dict[tuple[int, int], str] = field(
        default_factory=dict
    )  # (step, task index) -> kept|reused|reruns|killed|not started
    checkpoints: dict[int, str] = field(default_factory=dict)  # step -> saved|lost|not yet


@dataclass
class StepLesson:
    step: int
    before: Checkpoint  # the checkpoint the step's tasks started from
    after: Checkpoint | None  # the checkpoint saved when the step completed (None: never landed)
    tasks: list[TaskRun]
    modes: dict[str, ModeLesson]

    @property
    def parallel(self) -> bool:
        return len(self.tasks) > 1


def _task_runs(
    cp: Checkpoint, attempts_by_task: dict[str, list[Any]], finished: bool
) -> list[TaskRun]:
    runs = []
    for t in cp.tasks:
        attempts = attempts_by_task.get(t.task_id, [])
        status = "finished" if finished else t.status
        channels = (
            sorted(
                {channel_label(w.channel) for w in t.writes if w.channel not in CONTROL_CHANNELS}
            )
            or ([channel_label(w.channel) for w in t.writes][:3])
        )
        runs.append(
            TaskRun(
                t.node or t.label, status, channels,
                min((a.start_ts for a in attempts), default=None),
                max((a.end_ts for a in attempts), default=None),
                sorted({e for a in attempts for e in a.effects}),
            )
        )  # fmt: skip
    return runs


def _last_to_finish(runs: list[TaskRun]) -> int:
    """Index of the task the kill lands in: the one that finishes last (by the log, else the list)."""
    ends = [(r.end if r.end is not None else float("-inf"), i) for i, r in enumerate(runs)]
    return max(ends)[1] if ends else 0


def after(step: int | None) -> str:
    """`-1` -> `the input checkpoint`; `2` -> `step 2`."""
    return "the input checkpoint" if step is None or step < 0 else f"step {step}"


def build_lesson(
    thread: Thread, plan: ResumePlan | None = None, latency: float = DEFAULT_LATENCY
) -> list[StepLesson]:
    """One lesson per superstep of the root chain that ran (or was running) a task."""
    root = thread.root
    if root is None or root.latest is None:
        return []
    chain = root.lineage(root.latest.checkpoint_id)
    attempts = list(getattr(plan, "attempts", []) or [])
    attempts_by_task: dict[str, list[Any]] = {}
    for a in attempts:
        tid = a.task.task_id if getattr(a, "task", None) is not None else a.task_id
        if tid:
            attempts_by_task.setdefault(tid, []).append(a)
    recording = getattr(plan, "recording", None)
    lessons: list[StepLesson] = []
    steps: list[list[TaskRun]] = []
    for i, cp in enumerate(chain):
        if not cp.tasks:
            continue
        after_cp = chain[i + 1] if i + 1 < len(chain) else None
        runs = _task_runs(cp, attempts_by_task, finished=after_cp is not None)
        steps.append(runs)
        step = (cp.step if cp.step is not None else i - 1) + 1
        at = _kill_moment(runs, cp, after_cp, latency)
        outcomes = (
            what_if_at(thread, current_attempts(attempts, at), latency, at, recording=recording)
            if at is not None
            else {}
        )
        lessons.append(
            StepLesson(
                step, cp, after_cp, runs, _modes(outcomes, runs, steps, chain, i, bool(attempts))
            )
        )
    return lessons


def _step_of(a: Any) -> int | None:
    """The superstep an attempt ran in: the log's, else the one after its aligned checkpoint."""
    if a.step is not None:
        return int(a.step)
    cp = a.checkpoint
    return None if cp is None or cp.step is None else cp.step + 1


def _task_of(a: Any) -> str | None:
    return a.task.task_id if a.task is not None else a.task_id


def current_attempts(attempts: list[Any], at: float) -> list[Any]:
    """The attempts a kill at `at` could repeat: without those a later process had already run
    again by then as a new task (the same node, namespace and step, another task id: the
    earlier run's checkpoint was lost). On a resumed thread that attempt is history the
    resume re-did, not a second execution a kill in the resumed run would repeat (it made
    Learn say `p3` happens again 2 times, once per process). A resume of the same task (the
    same id) stays: the model counts the two attempts as one task, and needs the first."""
    redone: set[int] = set()
    groups: dict[tuple[str, str, int], list[Any]] = {}
    for a in attempts:
        step = _step_of(a)
        if step is not None:
            ns = a.logged_ns if a.logged_ns is not None else (a.namespace or "")
            groups.setdefault((ns, a.node, step), []).append(a)
    for group in groups.values():
        for a in group:
            mine = _task_of(a)
            if mine is None:
                continue  # which task it was is unknown: the model decides, as before
            if any(
                b.pid != a.pid and a.start_ts < b.start_ts <= at and _task_of(b) not in (None, mine)
                for b in group
            ):
                redone.add(id(a))
    return [a for a in attempts if id(a) not in redone]


def _kill_moment(
    runs: list[TaskRun], cp: Checkpoint, after_cp: Checkpoint | None, latency: float
) -> float | None:
    """Just before the step's last task finishes (by the log), else just before its checkpoint.

    With no log and no checkpoint after the step (the step the recording stops in), the
    kill lands once the checkpoint its tasks started from has been written (its `ts` plus
    one write): the lesson says the tasks "started from" it, and under sync they cannot
    start before it landed. Its `ts` alone is the moment it was made, before the write."""
    victim = runs[_last_to_finish(runs)] if runs else None
    if victim is not None and victim.end is not None and victim.start is not None:
        return max(victim.start, victim.end - KILL_BEFORE_END)
    if after_cp is not None and (ts := iso_to_epoch(after_cp.ts)) is not None:
        return ts - KILL_BEFORE_END
    ts = iso_to_epoch(cp.ts)
    return None if ts is None else ts + latency + WRITE_COST + KILL_BEFORE_END


def _modes(
    outcomes: dict[str, ModeOutcome],
    runs: list[TaskRun],
    steps: list[list[TaskRun]],
    chain: list[Checkpoint],
    i: int,
    logged: bool,
) -> dict[str, ModeLesson]:
    """The model's outcome per mode (analysis.durability), in the lesson's words and fates;
    its counts are the `Again` of that outcome (`again.again_of`), as every view counts."""
    cp = chain[i]
    step = (cp.step if cp.step is not None else 0) + 1
    victim = _last_to_finish(runs)
    step_numbers = [
        (c.step if c.step is not None else j - 1) + 1 for j, c in enumerate(chain) if c.tasks
    ][: len(steps)]
    out: dict[str, ModeLesson] = {}
    for mode in MODES:
        o = outcomes.get(mode)
        if o is None:
            continue
        again = {(r["node"], r["step"]) for r in o.reruns if not r["checkpoint_ns"]}
        done = [r for j, r in enumerate(runs) if j != victim and (r.node, step) not in again]
        lesson = ModeLesson(
            holds=f"{again_of(o, logged).figure('checkpoints_kept')} checkpoint(s)"
            + (", none of this run" if o.restart else f", the newest {after(o.resume_step)}"),
            resume=(
                "nowhere: invoke(None) raises EmptyInputError; only a restart from the input is possible"
                if o.restart
                else f"from {after(o.resume_step)}"
            ),
            reruns=[f"{r['node']} (step {r['step']})" for r in o.reruns],
            reused=[f"{r.node} (step {step})" for r in done],
            repeated_effects=[
                f"{k} ({times(v)})" for k, v in (again_of(o, logged).effects or {}).items()
            ],
            restart=o.restart,
            sentence=o.sentence,
        )
        for s, rs in zip(step_numbers, steps, strict=True):
            for j, r in enumerate(rs):
                if s == step and j == victim:
                    fate = "killed"
                elif (r.node, s) in again:
                    fate = "reruns"
                else:
                    fate = "reused" if s == step else "kept"
                lesson.fates[(s, j)] = fate
            if s < step:
                saved = not o.restart and o.resume_step is not None and s <= o.resume_step
                lesson.checkpoints[s] = "saved" if saved else "lost"
            else:
                lesson.checkpoints[s] = "not yet"
        out[mode] = lesson
    return out
