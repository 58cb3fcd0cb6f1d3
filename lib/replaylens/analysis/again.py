"""What happens again, row by row, and the reader's next move: the answer under the verdict.

The verdict sentence says it in one line; `again_rows` says it as a table (one row per
node and the effect it performed: how many executions happen again, the log lines, the
idempotency key and whether that key would stop the repeat), and `next_move` gives a
failed thread's exception or an interrupted thread's question with the code to run next.
The CLI, the report and the dashboard all print these, so they never disagree.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from replaylens.analysis.attempts import Attempt

if TYPE_CHECKING:
    from replaylens.analysis.plan import ResumePlan
    from replaylens.model import Thread

Why = Literal[
    "re-run in the resume step", "step whose checkpoint was lost", "restart from the input"
]
"""Why an execution happens again: its task is due at the checkpoint a resume loads, its
superstep finished but the checkpoint after it never landed, or no checkpoint exists."""
WHY_ORDER: tuple[Why, ...] = (
    "re-run in the resume step",
    "step whose checkpoint was lost",
    "restart from the input",
)


AGAIN_COLUMNS = (
    "node",
    "effect",
    "times again",
    "log lines",
    "idempotency key",
    "would the key dedupe",
)
"""The headings of the "what happens again" table (an AgainRow without its reason), in the
dashboard and the terminal alike."""


@dataclass(frozen=True)
class AgainRow:
    """One node and one effect it performed, as a resume would repeat it."""

    why: Why
    node: str
    effect: str
    times: int  # executions a resume performs again (tasks, not log lines)
    lines: tuple[int, ...]
    keys: tuple[str, ...]
    dedupe: str  # would the idempotency key deduplicate the repeat, in words

    def to_json(self) -> dict[str, Any]:
        return {
            "why": self.why,
            "node": self.node,
            "effect": self.effect,
            "times_again": self.times,
            "lines": list(self.lines),
            "idempotency_keys": list(self.keys),
            "key_dedupes": self.dedupe,
        }


def why_again(a: Attempt) -> Why:
    if a.verdict == "restart":
        return "restart from the input"
    if a.alignment in ("after-latest", "orphaned"):
        return "step whose checkpoint was lost"
    return "re-run in the resume step"


def _task(a: Attempt) -> Any:
    return a.key or ("attempt", id(a))


def _dedupe(effect: str, again: list[Attempt], every: list[Attempt]) -> tuple[tuple[str, ...], str]:
    """The keys sent for `effect` by the tasks that run again, and whether they would dedupe.

    One recorded attempt cannot show whether the node makes the same key on a re-run;
    several attempts of one task can (same key every time, or a new key each time)."""
    tasks = {_task(a) for a in again}
    keys_by_task: dict[Any, list[str | None]] = defaultdict(list)
    for a in every:
        if _task(a) in tasks:
            keys = [line.idempotency_key for line in a.lines if line.label == effect]
            keys_by_task[_task(a)].append(next((k for k in keys if k), None))
    keys = tuple(dict.fromkeys(k for ks in keys_by_task.values() for k in ks if k))
    if not keys:
        return keys, "no: no idempotency key was logged"
    runs = [ks for ks in keys_by_task.values() if len(ks) > 1]
    if any(len(set(ks)) > 1 for ks in runs):
        return keys, "no: each attempt sent a different key"
    if any(None in ks for ks in keys_by_task.values()):
        return keys, "partly: some executions logged no key"
    if runs:
        return keys, "yes, if the service dedupes on it: every attempt sent the same key"
    return keys, "cannot tell from one attempt; yes if the key comes from stable inputs"


def again_rows(plan: ResumePlan) -> list[AgainRow]:
    """One row per (why, node, effect) of the executions a resume repeats, in log-line order."""
    groups: dict[tuple[Why, str, str], list[Attempt]] = defaultdict(list)
    replay = sorted((a for a in plan.attempts if a.verdict in ("replays", "restart")),
                    key=lambda a: a.lines[0].line if a.lines else 0)  # fmt: skip
    for a in replay:
        for label in dict.fromkeys(line.label for line in a.lines):
            groups[(why_again(a), a.node, label)].append(a)
    rows = []
    for (why, node, effect), group in groups.items():
        lines = tuple(sorted(line.line for a in group for line in a.lines if line.label == effect))
        keys, dedupe = _dedupe(effect, group, plan.attempts)
        rows.append(
            AgainRow(why, node, effect, len({_task(a) for a in group}), lines, keys, dedupe)
        )
    return sorted(rows, key=lambda r: (WHY_ORDER.index(r.why), r.lines[0] if r.lines else 0))


def effects_again(plan: ResumePlan) -> int:
    """Side-effect executions a resume repeats: the sum of the counts the verdict names."""
    return sum(r.times for r in again_rows(plan))


def tasks_again(plan: ResumePlan) -> int:
    """Tasks a resume runs again: those due at the checkpoint it loads that have no saved
    output, those whose writes are orphaned (their step's checkpoint never landed), and those
    the effects log shows running again. A metric beside the verdict shows this, never a
    count that leaves out the lost steps."""
    from replaylens.model import NULL_TASK_ID

    ids: set[Any] = {t.task_id for _, t in plan.reruns}
    ids |= {w.task_id for w in plan.orphan_writes if w.task_id and w.task_id != NULL_TASK_ID}
    for a in plan.attempts:
        if a.verdict in ("replays", "restart"):
            ids.add(a.task.task_id if a.task is not None else (a.task_id or ("attempt", id(a))))
    return len(ids)


NextKind = Literal["failed", "interrupted"]


@dataclass(frozen=True)
class NextMove:
    """What stopped the thread and the code that continues it."""

    kind: NextKind
    node: str
    detail: str  # the exception text, or the interrupt's payload as JSON
    code: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "node": self.node, "detail": self.detail, "code": self.code}


def _payload(value: Any) -> Any:
    from replaylens.decode import to_jsonable

    return to_jsonable(getattr(value, "value", value))


def _interrupt_id(value: Any) -> str | None:
    """The id LangGraph gave an interrupt (the key of a resume map), when the row kept it."""
    found = value.get("id") if isinstance(value, dict) else getattr(value, "id", None)
    return found if isinstance(found, str) and found else None


def _config_code(thread_id: str, checkpoint_id: str | None) -> str:
    """`config = {...}` naming the thread and the checkpoint this plan read.

    Built from values, never from text: each one goes through repr(), which writes any
    string (quotes, new lines, U+2028, NEL, characters outside the BMP) as a Python literal
    that reads back as the same string, and nothing from the data is ever in a comment."""
    configurable = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return f"config = {{'configurable': {configurable!r}}}"


def _resume_code(ids: list[str | None]) -> str:
    """The Command that answers the pending interrupts: `resume=...` for a single one, else a
    map from each interrupt's id to its answer (LangGraph refuses a bare value then)."""
    if len(ids) <= 1 or any(i is None for i in ids):
        return "Command(resume=...)"
    return "Command(resume={" + ", ".join(f"{i!r}: ..." for i in ids) + "})"


def next_moves(plan: ResumePlan, thread: Thread | None) -> list[NextMove]:
    """A failed task's exception and an interrupted task's question, with the call that continues.

    `graph.invoke(None, config)` re-runs a failed task from its first line after the bug is
    fixed; `graph.invoke(Command(resume=...), config)` answers an interrupt() (LangGraph
    passes the value back as interrupt()'s return value). The code names the thread and
    the checkpoint the plan read, as literals; lines end with `\\n` only."""
    if thread is None or plan.status not in ("failed", "interrupted"):
        return []
    cp = plan.resume_checkpoint
    config = _config_code(plan.thread_id, cp.checkpoint_id if cp is not None else None)
    asked: dict[Any, tuple[str, Any]] = {}  # one question once: a subgraph's interrupt is
    for ns, task in plan.reruns:  # also its parent task's, the deeper namespace asked it
        if task.status == "interrupted":
            for question in task.interrupts or [None]:
                key = _interrupt_id(question) or ("unnamed", len(asked))
                if key not in asked or len(ns) > len(asked[key][0]):
                    asked[key] = (task.node if not ns else f"{ns} / {task.node}", question)
    resume = _resume_code([_interrupt_id(q) for _, q in asked.values()])
    moves: list[NextMove] = []
    for ns, task in plan.reruns:
        if task.status == "failed":
            code = (
                f"{config}\n"
                "# after fixing the cause: re-runs the failed task from its first line\n"
                "graph.invoke(None, config)"
            )
            where = task.node if not ns else f"{ns} / {task.node}"
            moves.append(NextMove("failed", where, task.error or "", code))
    code = (
        f"from langgraph.types import Command\n\n{config}\n"
        "# replace ... with your answer: it becomes interrupt()'s return value\n"
        f"graph.invoke({resume}, config)"
    )
    for where, question in asked.values():
        payload = json.dumps(_payload(question), ensure_ascii=False, indent=None, default=str)
        moves.append(NextMove("interrupted", where, payload, code))
    return moves
