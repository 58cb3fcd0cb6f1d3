"""A guided walk through one recorded thread, superstep by superstep.

For each superstep of the thread's root chain it says what ran in parallel, when each
task's writes and the step's checkpoint landed, and what a SIGKILL in the middle of
that step would leave under each durability mode. The "what if" follows LangGraph's
rules (see docs/langgraph-internals.md):

- writes are saved per task as soon as the task finishes (sync and async), never under
  exit until the run ends;
- sync waits for each checkpoint before the next step, async does not (so with a slow
  store the previous step's checkpoint can still be in flight), exit saves nothing of
  the running invocation;
- a resume loads the newest checkpoint, reuses the writes saved against it and re-runs
  every other task of that step from its first line.

The kill is placed just before the step's last task finishes: its siblings are done
(their writes saved), it is not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from replaylens.model import CONTROL_CHANNELS, Checkpoint, Thread, channel_label

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
    repeated_effects: list[str]
    restart: bool = False
    fates: dict[tuple[int, int], str] = field(default_factory=dict)  # (step, task index) -> kept|reused|reruns|killed|not started
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


def _task_runs(cp: Checkpoint, attempts_by_task: dict[str, list[Any]], finished: bool) -> list[TaskRun]:
    runs = []
    for t in cp.tasks:
        attempts = attempts_by_task.get(t.task_id, [])
        status = "finished" if finished else t.status
        channels = sorted({channel_label(w.channel) for w in t.writes if w.channel not in CONTROL_CHANNELS}) or (
            [channel_label(w.channel) for w in t.writes][:3]
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


def _effects_of(runs: list[TaskRun]) -> list[str]:
    """Recorded effects of these tasks (the node name when the log has none; never __start__)."""
    out = []
    for r in runs:
        out.extend(r.effects or ([] if r.node == "__start__" else [r.node]))
    return out


def after(step: int | None) -> str:
    """`-1` -> `the input checkpoint`; `2` -> `step 2`."""
    return "the input checkpoint" if step is None or step < 0 else f"step {step}"


def _invocation_start(chain: list[Checkpoint], upto: int) -> int:
    """Index of the checkpoint the running invocation started from (exit keeps what precedes it)."""
    for i in range(upto, -1, -1):
        cp = chain[i]
        if cp.source == "input":
            return i
        if any(w.channel in ("__interrupt__", "__resume__") for w in cp.writes) and i < upto:
            return i
    return 0


def build_lesson(thread: Thread, plan: ResumePlan | None = None) -> list[StepLesson]:
    """One lesson per superstep of the root chain that ran (or was running) a task."""
    root = thread.root
    if root is None or root.latest is None:
        return []
    chain = root.lineage(root.latest.checkpoint_id)
    attempts_by_task: dict[str, list[Any]] = {}
    for a in getattr(plan, "attempts", []) or []:
        tid = a.task.task_id if getattr(a, "task", None) is not None else a.task_id
        if tid:
            attempts_by_task.setdefault(tid, []).append(a)
    lessons: list[StepLesson] = []
    steps: list[list[TaskRun]] = []
    for i, cp in enumerate(chain):
        if not cp.tasks:
            continue
        after = chain[i + 1] if i + 1 < len(chain) else None
        runs = _task_runs(cp, attempts_by_task, finished=after is not None)
        steps.append(runs)
        step = (cp.step if cp.step is not None else i - 1) + 1
        lessons.append(StepLesson(step, cp, after, runs, _modes(chain, i, runs, steps)))
    return lessons


def _modes(chain: list[Checkpoint], i: int, runs: list[TaskRun], steps: list[list[TaskRun]]) -> dict[str, ModeLesson]:
    cp = chain[i]
    victim = _last_to_finish(runs)
    done = [r for j, r in enumerate(runs) if j != victim]
    killed = runs[victim]
    step = (cp.step if cp.step is not None else 0) + 1

    def names(rs: list[TaskRun], s: int) -> list[str]:
        return [f"{r.node} (step {s})" for r in rs]

    sync = ModeLesson(
        holds=f"every checkpoint up to {after(cp.step)}, plus the saved writes of "
        + (", ".join(r.node for r in done) if done else "no task yet (none had finished)"),
        resume=f"from {after(cp.step)}: the tasks of step {step} are rebuilt with the same task ids",
        reruns=names([killed], step),
        reused=names(done, step),
        repeated_effects=_effects_of([killed]),
    )
    if i >= 1:
        prev = chain[i - 1]
        prev_runs = steps[-2] if len(steps) >= 2 else []
        async_ = ModeLesson(
            holds=f"with a fast store, the same as sync. With a slow one, {after(cp.step)}'s checkpoint may still "
            f"be on its way: the newest is then {after(prev.step)}, and the writes of step {step} hang off a "
            "checkpoint that is not there (orphan writes)",
            resume=f"from {after(cp.step)} (fast store) or from {after(prev.step)} (slow store)",
            reruns=names([killed], step) + [f"slow store: also {n}" for n in names(prev_runs, step - 1) + names(done, step)],
            reused=names(done, step),
            repeated_effects=_effects_of([killed]) + [f"slow store: {e}" for e in _effects_of(prev_runs + done)],
        )
    else:
        async_ = ModeLesson(sync.holds, sync.resume, sync.reruns, sync.reused, sync.repeated_effects)
    start = _invocation_start(chain, i)
    if chain[start].source == "input":
        before = [r for s in steps for r in s]
        exit_ = ModeLesson(
            holds="nothing from this run: exit saves only when the run returns, pauses or raises, and a "
            "SIGKILL lets it do none of these",
            resume="nowhere: invoke(None) raises EmptyInputError; only a restart from the input is possible",
            reruns=[r.node for r in before if r.node != "__start__"],
            reused=[],
            repeated_effects=_effects_of(before),
            restart=True,
        )
    else:
        kept = chain[start]
        exit_ = ModeLesson(
            holds=f"checkpoints up to {after(kept.step)} (where the run last paused); nothing of this invocation",
            resume=f"from {after(kept.step)}",
            reruns=[f"every task since step {kept.step}"],
            reused=[],
            repeated_effects=_effects_of([r for s in steps[-(i - start + 1):] for r in s]),
        )
    modes = {"sync": sync, "async": async_, "exit": exit_}
    _fill_fates(modes, chain, i, steps, victim)
    return modes


def _fill_fates(modes: dict[str, ModeLesson], chain: list[Checkpoint], i: int, steps: list[list[TaskRun]],
                victim: int) -> None:  # fmt: skip
    """Per task and per checkpoint, what each mode leaves when the kill lands in step `i`."""
    step_numbers = [(c.step if c.step is not None else j - 1) + 1 for j, c in enumerate(chain) if c.tasks][: len(steps)]
    current = step_numbers[-1]
    start = _invocation_start(chain, i)
    first_of_run = (chain[start].step if chain[start].step is not None else -1) + 1
    for mode, lesson in modes.items():
        for s, runs in zip(step_numbers, steps, strict=True):
            for j in range(len(runs)):
                if s < current:
                    fate = "kept"
                    if mode == "async" and s == current - 1:
                        fate = "reruns"
                    if mode == "exit" and (lesson.restart or s >= first_of_run):
                        fate = "reruns"
                elif j == victim:
                    fate = "killed"
                else:
                    fate = "reused" if mode == "sync" else "reruns"
                lesson.fates[(s, j)] = fate
            if s < current:
                saved = "saved"
                if mode == "async" and s == current - 1:
                    saved = "lost"
                if mode == "exit" and (lesson.restart or s >= first_of_run):
                    saved = "lost"
                lesson.checkpoints[s] = saved
            else:
                lesson.checkpoints[s] = "not yet"
