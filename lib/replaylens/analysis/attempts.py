"""Effect-log lines grouped into task attempts: one execution of one task in one process.

An attempt is what the effects log saw of a task; `align` says which task of the
checkpoint chain it was, `verdicts` what a resume does with it, and `durability` what
another mode would have left of it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from replaylens.effects.parse import EffectLine
from replaylens.model import Checkpoint, Task

Verdict = Literal["kept", "replays", "restart", ""]
"""What a resume does with an attempt's effects ("" before it is judged)."""
Alignment = Literal["exact", "step", "time", "parent", "after-latest", "before-saved", "orphaned", "none"]
"""How an attempt was matched with the checkpoint chain."""

TERMINAL = {"end": "finished", "error": "failed", "interrupted": "interrupted"}
TIME_SLACK = 0.005  # seconds: how far back to look when a node is not due at the nearest checkpoint


@dataclass
class Attempt:
    """One execution of one task in one process, as the effects log saw it."""

    thread_id: str
    node: str
    logged_ns: str | None
    step: int | None
    task_id: str | None
    pid: int | None
    lines: list[EffectLine] = field(default_factory=list)
    attempt: int = 1
    checkpoint: Checkpoint | None = None
    namespace: str | None = None
    task: Task | None = None
    alignment: Alignment = "none"
    verdict: Verdict = ""
    reason: str = ""
    duplicate: bool = False
    won: bool | None = None

    @property
    def start_ts(self) -> float:
        return self.lines[0].ts

    @property
    def end_ts(self) -> float:
        return self.lines[-1].ts

    @property
    def outcome(self) -> str:
        for line in reversed(self.lines):
            if line.phase in TERMINAL:
                return TERMINAL[line.phase]
        return "in flight"

    @property
    def effects(self) -> list[str]:
        return sorted({line.label for line in self.lines})

    @property
    def key(self) -> tuple[str, str, str] | None:
        """The task this attempt ran: (namespace, checkpoint id, task id)."""
        if self.checkpoint is None or self.task is None:
            return None
        return (self.namespace or "", self.checkpoint.checkpoint_id, self.task.task_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "attempt": self.attempt,
            "pid": self.pid,
            "step": self.step if self.step is not None else (self.task.step if self.task else None),
            "task_id": self.task.task_id if self.task else self.task_id,
            "checkpoint_ns": self.namespace if self.namespace is not None else self.logged_ns,
            "checkpoint_id": self.checkpoint.checkpoint_id if self.checkpoint else None,
            "alignment": self.alignment,
            "outcome": self.outcome,
            "start_ts": self.start_ts,
            "end_ts": self.end_ts,
            "lines": [line.line for line in self.lines],
            "effects": self.effects,
            "verdict": self.verdict,
            "reason": self.reason,
            "duplicate": self.duplicate,
            "won": self.won,
        }


def times(n: int) -> str:
    """An execution count in words: "once", "2 times"."""
    return "once" if n == 1 else f"{n} times"


def effect_counts(attempts: list[Attempt]) -> dict[str, dict[str, int]]:
    """node -> effect -> how many executions performed it, in the order the log first saw them.

    An execution is one task run (one attempt, or one task when the log holds several
    attempts of it), never a log line: a start and an end line are one execution."""
    tasks: dict[str, dict[str, set[Any]]] = {}
    for a in sorted(attempts, key=lambda x: x.lines[0].line if x.lines else 0):
        who = a.key or ("attempt", id(a))
        for label in dict.fromkeys(line.label for line in a.lines):
            tasks.setdefault(a.node, {}).setdefault(label, set()).add(who)
    return {node: {label: len(ids) for label, ids in effects.items()} for node, effects in tasks.items()}


def effect_list(attempts: list[Attempt]) -> str:
    """ "run `charge` again (`charge_card`, once) and `p1` again (2 times)": the node first, then
    the effect it performed when the effect has a name of its own, counted in executions."""
    counts = effect_counts(attempts)
    if not counts:
        return ""

    def tick(name: str) -> str:
        return f"`{name.replace('`', chr(39))}`"

    parts = []
    for node, effects in counts.items():
        named = [(label, n) for label, n in effects.items() if label != node]
        if not named:
            parts.append(f"{tick(node)} again ({times(max(effects.values()))})")
        else:
            parts.append(f"{tick(node)} again ({', '.join(f'{tick(label)} {times(n)}' for label, n in named)})")
    return "run " + ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def group_attempts(lines: list[EffectLine]) -> list[Attempt]:
    """Split one thread's lines into attempts: a `start` opens one, other lines join it."""
    attempts: list[Attempt] = []
    open_by_key: dict[tuple[Any, ...], Attempt] = {}
    for line in sorted(lines, key=lambda e: e.line):
        key = (line.checkpoint_ns or "", line.node, line.task_id or "", line.pid, line.step)
        current = open_by_key.get(key)
        if line.phase == "start" or current is None:
            current = Attempt(line.thread_id, line.node, line.checkpoint_ns, line.step, line.task_id, line.pid)
            attempts.append(current)
            open_by_key[key] = current
        current.lines.append(line)
    return attempts


def number_attempts(attempts: list[Attempt]) -> None:
    seen: Counter[tuple[Any, ...]] = Counter()
    for a in sorted(attempts, key=lambda x: x.start_ts):
        key = a.key or ("unaligned", a.node, a.task_id, a.step)
        seen[key] += 1
        a.attempt = seen[key]
