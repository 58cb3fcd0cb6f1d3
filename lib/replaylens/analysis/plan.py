"""The resume plan: where a resume starts, which tasks re-run, which side effects happen twice.

`replaylens.analysis.resume.plan_resume` builds it; this module holds its types and its
JSON and sentence forms, which the CLI, the report and the dashboard all print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from replaylens.analysis.again import (
    LOST_SEND_TASK,
    Again,
    again_rows,
    again_under,
    outcome_tag,
    tasks_again,
    what_happens_again,
)
from replaylens.analysis.attempts import Attempt, effect_list
from replaylens.analysis.durability import (
    DEFAULT_LATENCY,
    KIND_UNSURE,
    WHAT_IF_NOTE,
    ModeOutcome,
    Recording,
    release_assumption,
)
from replaylens.analysis.status import STATUS_EXPLAINED, ThreadStatus, unknown_reason
from replaylens.analysis.verdicts import LOST_INPUT
from replaylens.model import Checkpoint, Generation, Task, WriteRecord

ANSWERED_BELOW = (
    "LangGraph still lists a question (the paused task's interrupt write stays until the task "
    "ends), but the graph below it saved its own paused task's output: the answer was given "
    "and the run went past it; invoke(None) goes on without a new answer"
)


def status_sentence(status: str, answered_below: bool = False) -> str:
    """What a thread's status means, said after it on every view: a question answered below
    the paused task (`ResumePlan.answered_below`) is no longer waiting."""
    if status == "interrupted" and answered_below:
        return ANSWERED_BELOW
    return STATUS_EXPLAINED.get(status, "")


@dataclass
class ResumePlan:
    thread_id: str
    status: ThreadStatus
    resume_checkpoint: Checkpoint | None
    subgraph_resumes: list[Checkpoint]
    reruns: list[tuple[str, Task]]
    reused: list[tuple[str, Task]]
    orphan_writes: list[WriteRecord]
    attempts: list[Attempt]
    effects_given: bool
    duplicates: list[list[Attempt]] = field(default_factory=list)
    idempotency_findings: list[str] = field(default_factory=list)
    what_if: dict[str, ModeOutcome] = field(default_factory=dict)
    latency: float = DEFAULT_LATENCY
    crash_ts: float | None = None
    backend: dict[str, Any] = field(
        default_factory=dict
    )  # kind, label, Postgres synchronous_commit
    recording: Recording = field(default_factory=Recording)
    recorded_outcome: ModeOutcome | None = None
    """The recorded mode's outcome at the recorded write latency, where the what-if was asked
    at another one: the answer for the database as it stands (`what_happens_again`) never
    moves with the latency a reader tries."""
    # Finished tasks that today's LangGraph would run again anyway: it migrates a pre-v3
    # checkpoint's channel names, hashes other task ids and so finds none of their writes.
    today_reruns: list[tuple[str, Task]] = field(default_factory=list)
    generation: Generation | None = None
    unmatched_reruns: list[str] = field(default_factory=list)
    """Sentences: a task the resume re-runs, of a node the log shows started, with no log line given to it."""
    answered_below: bool = False
    """Interrupted as LangGraph lists it, but the graph below the paused task saved its own
    paused task's output: the answer was given and the run went past it
    (`durability.evidence.answered_below`); `invoke(None)` goes on without a new one."""
    evidence_source: str = ""
    """What the effects evidence is ("effects log", or the trace format and setup)."""
    evidence_limits: list[str] = field(default_factory=list)
    """What that evidence cannot show, in sentences (a trace cannot show a killed task)."""
    stops_at_join: str | None = None
    """The node a resume will never reach: the checkpoint it loads saved the join into it
    already holding arrivals the resume makes again (`joins.join_never_fires`)."""
    stops_at_once: bool = False
    """The resume does nothing before that join: it repeats nothing at all
    (`joins.resume_stops_at_join`)."""

    @property
    def release_note(self) -> str | None:
        """Which LangGraph release's rule the plan follows for a re-entered subgraph's saved
        writes, in words; None where no re-entered subgraph holds any (the rule moves nothing)."""
        if not any(t.done for cp in self.subgraph_resumes for t in cp.tasks):
            return None
        return release_assumption(self.recording)

    @property
    def ambiguities(self) -> list[str]:
        """What the plan could not tell from the log, in words (pairing and alignment guesses)."""
        return [
            f"lines {', '.join(str(line.line) for line in a.lines)} ({a.node}): {a.ambiguity}"
            for a in self.attempts
            if a.ambiguous
        ] + self.unmatched_reruns

    @property
    def effects(self) -> list[dict[str, Any]]:
        rows = [
            {
                "line": line.line,
                "node": line.node,
                "phase": line.phase,
                "verdict": a.verdict,
                "effect": line.effect,
                "attempt": a.attempt,
                "ts": line.ts,
            }
            for a in self.attempts
            for line in a.lines
        ]
        return sorted(rows, key=lambda r: r["line"])

    @property
    def again(self) -> Again:
        """What a resume performs again: tasks, executions and log lines (`what_happens_again`)."""
        return what_happens_again(self)

    def again_under(self, mode: str) -> Again:
        """The same three counts under `mode` at the plan's latency (`again.again_under`)."""
        return again_under(self, mode)

    @property
    def replayed_lines(self) -> list[int]:
        return sorted(
            line.line
            for a in self.attempts
            if a.verdict in ("replays", "restart")
            for line in a.lines
        )

    @property
    def input_lost(self) -> bool:
        """Did the log's last invocation run for a fresh input nothing of which was saved?"""
        last = max(self.attempts, key=lambda a: a.start_ts, default=None)
        return last is not None and last.reason == LOST_INPUT

    def verdict_sentence(self) -> str:
        """One plain sentence for the incident channel: node, the effect it performed, how many
        times; and where the resume runs until a join it never fires, that it stops there."""
        said = self._repeats_sentence()
        if self.stops_at_join is None or self.stops_at_once:
            return said
        return (
            f"{said} LangGraph then stops at the join into `{self.stops_at_join}`, whose saved "
            "barrier already holds the arrivals the resume makes again (an async checkpoint "
            f"written late), so `{self.stops_at_join}` and everything after it never run and the "
            "thread reads as completed: that work is lost, not repeated."
        )

    def _repeats_sentence(self) -> str:
        replay = [a for a in self.attempts if a.verdict in ("replays", "restart")]
        if self.status == "needs_restart":
            what = effect_list(replay)
            return (
                "No checkpoint exists for this thread: invoke(None) raises EmptyInputError, so only a "
                f"restart from the input is possible{', and it will ' + what if what else ''}."
            )
        if self.status == "completed" and not replay and self.input_lost:
            return (
                "The run killed here was a fresh input of which nothing was saved (not even its "
                "input checkpoint): the database holds the turn before it, completed, so a resume "
                "would run nothing and that input's work is lost; sending it again would run it."
            )
        if self.stops_at_once and self.stops_at_join is not None and not replay:
            return (
                f"Resuming this thread repeats nothing, and does not finish it: LangGraph stops "
                f"at the join into `{self.stops_at_join}`, whose saved barrier already holds an "
                "arrival that the checkpoint's own pending write makes, so "
                f"`{self.stops_at_join}` and everything after it never run and the thread reads "
                "as completed. That work is lost, not repeated."
            )
        if self.status == "completed" and not replay:
            return "This thread completed; a resume would run nothing."
        if self.status == "unknown":
            return self.unknown_reason
        if not self.effects_given or not self.attempts:
            rerun = sorted({t.label for _, t in self.reruns} | self.lost_step_nodes)
            names = ", ".join(f"`{n}`" for n in rerun)
            runs = f"re-runs {names}" if names else "re-runs no task of the step it resumes"
            if self.effects_given:
                return (
                    f"Resuming this thread {runs}; the {self._evidence_word()} has no usable line for this "
                    "thread, so it cannot tell which side effects repeat." + self._limits()
                )
            return f"Resuming this thread {runs}; give an effects log to see which side effects repeat."
        doubt = self._doubt()
        what = effect_list(replay)
        bare = sorted({a.node for a in replay if not a.effects})
        if not what and bare:
            names = ", ".join(f"`{n}`" for n in bare)
            return (
                f"Resuming this thread re-runs {names}; the {self._evidence_word()} records no side "
                "effect of it (a call not traced as a tool, such as a raw HTTP request, cannot be "
                "seen)." + doubt + self._limits()
            )
        if not what:
            if self.unmatched_reruns:
                return f"Resuming this thread may repeat a recorded side effect: {' '.join(self.unmatched_reruns)}"
            if self.evidence_limits and self.status != "completed":
                rerun = sorted({t.label for _, t in self.reruns} | self.lost_step_nodes)
                runs = (
                    f"Resuming this thread re-runs {', '.join(f'`{n}`' for n in rerun)}; the"
                    if rerun
                    else "The"
                )
                return (
                    f"{runs} {self._evidence_word()} shows no side effect that repeats, but it cannot "
                    f"show everything: {self.evidence_limits[0]}" + doubt
                )
            return "Resuming this thread repeats no recorded side effect." + doubt
        return f"Resuming this thread will {what}." + doubt + self._limits()

    def _evidence_word(self) -> str:
        """What the sentence calls the evidence: a trace, unless it is an effects log."""
        source = self.evidence_source
        return "effects log" if not source or source.startswith("effects log") else "trace"

    def _limits(self) -> str:
        """The first thing the evidence cannot show, when the thread did not complete."""
        if not self.evidence_limits or self.status == "completed":
            return ""
        return f" {self.evidence_limits[0]}"

    @property
    def unknown_reason(self) -> str:
        """Why the status is `unknown`, in one sentence ("" for any other status)."""
        return unknown_reason(self.resume_checkpoint)

    @property
    def lost_step_nodes(self) -> set[str]:
        """Nodes whose finished writes are orphaned (their superstep's checkpoint never landed,
        and the thread has not moved past it): a resume runs them again even without an
        effects log to show it (`again.tasks_again`, the one rule)."""
        return {
            t.node
            for t in tasks_again(self)
            if t.why == "step whose checkpoint was lost" and t.task_id is not None
            and t.node != LOST_SEND_TASK and not t.node.startswith("__")
        }  # fmt: skip

    def _doubt(self) -> str:
        guessed = [a for a in self.attempts if a.ambiguous]
        if not guessed and not self.unmatched_reruns:
            return ""
        either = [a for a in guessed if KIND_UNSURE in a.ambiguity]
        apart = [a for a in guessed if a not in either]
        parts = []
        if either:
            parts.append(
                f"Whether {_lines_of(either)} run again is a guess: the log cannot tell whether "
                "their invocation was a fresh input (lost with the crash: they would not) or a "
                "resume (they would); they are counted as running again."
            )
        if apart:
            nodes = ", ".join(f"`{n}`" for n in sorted({a.node for a in apart}))
            parts.append(
                f"The log cannot tell some lines of {nodes} apart, so which of them repeat is a guess "
                f"({len(apart)} attempt{'s' if len(apart) > 1 else ''} marked ambiguous)."
            )
        parts += self.unmatched_reruns
        return " " + " ".join(parts)

    @property
    def status_explained(self) -> str:
        """The sentence every view puts after the status (the one home of that choice)."""
        return status_sentence(self.status, self.answered_below)

    def to_json(self) -> dict[str, Any]:
        cp = self.resume_checkpoint
        due = {t.task_id: task_json(ns, t) for ns, t in self.reruns}
        return {
            "thread_id": self.thread_id,
            "status": self.status,
            "status_explained": self.status_explained,
            "answered_below": self.answered_below,
            "verdict": self.verdict_sentence(),
            "input_lost": self.input_lost,
            "stops_at_join": self.stops_at_join,
            "stops_at_once": self.stops_at_once,
            "resume_checkpoint": (
                {
                    "checkpoint_id": cp.checkpoint_id,
                    "step": cp.step,
                    "checkpoint_ns": cp.checkpoint_ns,
                }
                if cp
                else None
            ),
            "subgraph_resumes": [
                {"checkpoint_id": c.checkpoint_id, "step": c.step, "checkpoint_ns": c.checkpoint_ns}
                for c in self.subgraph_resumes
            ],
            # Every task a resume runs again, each with why: due at the checkpoint it loads,
            # of a step whose checkpoint was lost, or a restart (`again.tasks_again`).
            "reruns": [
                {
                    **due.get(
                        t.task_id,
                        {
                            "node": t.node,
                            "label": t.node,
                            "task_id": t.task_id,
                            "status": None,
                            "checkpoint_ns": t.checkpoint_ns,
                            "kind": None,
                        },
                    ),
                    "why": t.why,
                }
                for t in tasks_again(self)
            ],  # fmt: skip
            "what_happens_again": self.again.to_json(),
            "reused": [task_json(ns, t) for ns, t in self.reused],
            "release_rule": self.release_note,
            "orphan_writes": [
                {
                    "checkpoint_ns": w.checkpoint_ns,
                    "checkpoint_id": w.checkpoint_id,
                    "task_id": w.task_id,
                    "task_path": w.task_path,
                    "channel": w.channel,
                }
                for w in self.orphan_writes
            ],
            "effects": [
                {k: r[k] for k in ("line", "node", "phase", "verdict")} for r in self.effects
            ]
            if self.effects_given
            else None,
            "attempts": [a.to_json() for a in self.attempts],
            "again": [r.to_json() for r in again_rows(self)] if self.effects_given else None,
            "duplicates": [[a.to_json() for a in group] for group in self.duplicates],
            "idempotency": self.idempotency_findings,
            "ambiguities": self.ambiguities,
            "evidence": {"source": self.evidence_source, "limits": self.evidence_limits}
            if self.effects_given
            else None,
            "crash_ts": self.crash_ts,
            "backend": self.backend,
            "generation": self.generation.to_json() if self.generation else None,
            "unknown_reason": self.unknown_reason or None,
            "today_reruns": [
                {**task_json(ns, t), "today_task_id": t.today_task_id}
                for ns, t in self.today_reruns
            ],
            "what_if": {
                "latency_seconds": self.latency,
                "note": WHAT_IF_NOTE,
                "recorded": {
                    "mode": self.recording.mode,
                    "latency_seconds": self.recording.latency,
                    "kill_offset_seconds": self.recording.kill_offset,
                    "origin": self.recording.origin or None,
                },
                "modes": {m: self._mode_json(m, o) for m, o in self.what_if.items()},
            },
        }

    def _mode_json(self, mode: str, o: ModeOutcome) -> dict[str, Any]:
        """One mode's what-if. Its `reruns` is the one answer's task list (`again.tasks`,
        which names a subgraph's parent task beside the tasks inside it; None when the model
        cannot tell), so the block never lists other tasks than the views count."""
        again = again_under(self, mode)
        doc = {
            **o.to_json(),
            "outcome": outcome_tag(self, mode),
            "as_recorded": o.as_recorded and self.recording.mode == mode,
            "again": again.to_json(),
        }
        doc["reruns"] = doc["again"]["tasks"]
        return doc


def task_json(ns: str, t: Task) -> dict[str, Any]:
    out: dict[str, Any] = {
        "node": t.node,
        "label": t.label,
        "task_id": t.task_id,
        "status": t.status,
        "checkpoint_ns": ns,
        "kind": t.kind,
    }
    if t.calls:
        out["calls"] = [c.call_json() for c in t.calls]
    return out


def _lines_of(attempts: list[Attempt]) -> str:
    """ "lines 3-5 (`node1`, `node2`)": the log lines of some attempts, for a sentence."""
    numbers = sorted(line.line for a in attempts for line in a.lines)
    nodes = ", ".join(f"`{n}`" for n in sorted({a.node for a in attempts}))
    contiguous = numbers == list(range(numbers[0], numbers[-1] + 1))
    span = (
        f"{numbers[0]}-{numbers[-1]}"
        if contiguous and len(numbers) > 1
        else ", ".join(str(n) for n in numbers)
    )
    return f"log line{'s' if len(numbers) > 1 else ''} {span} ({nodes})"
