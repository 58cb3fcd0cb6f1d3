"""Thread status as a resume would see it, and the thread list."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any, Literal

from replaylens.analysis.tasks import (
    LegacyHints,
    TriggerMap,
    annotate_checkpoint,
    annotate_thread,
    gather_hints,
    hints_by_start,
    needs_hints,
)
from replaylens.model import Checkpoint, Namespace, Thread, build_thread
from replaylens.sources import CheckpointSource, ThreadRows, WriteRecord

ThreadStatus = Literal["failed", "interrupted", "resumable", "needs_restart", "completed", "unreadable"]
"""A thread's state as a resume would see it (see the README's status table)."""
STATUSES: tuple[ThreadStatus, ...] = typing.get_args(ThreadStatus)
# What needs attention first: a failed run before a paused one before a finished one.
ATTENTION_ORDER = {s: i for i, s in enumerate(STATUSES)}

STATUS_EXPLAINED = {
    "completed": "nothing is due: the run finished",
    "resumable": "the run stopped mid-step; invoke(None) re-runs the unfinished tasks",
    "interrupted": "waiting for an answer to interrupt(); resume with Command(resume=...)",
    "failed": "a due task's last attempt raised; a resume runs it again",
    "needs_restart": "no checkpoint exists: invoke(None) raises EmptyInputError, only a restart from the input is possible",
    "unreadable": "the latest checkpoint cannot be decoded",
}


def checkpoint_status(cp: Checkpoint | None) -> str:
    """The status of a thread whose resume would load `cp`."""
    if cp is None:
        return "needs_restart"
    if cp.unreadable:
        return "unreadable"
    statuses = [t.status for t in cp.tasks]
    if "failed" in statuses:
        return "failed"
    if "interrupted" in statuses:
        return "interrupted"
    if cp.next_unknown:
        return "resumable"  # a channel nobody is known to read was written: never "completed"
    if not statuses:
        return "completed"
    return "resumable"


def thread_status(thread: Thread) -> ThreadStatus:
    root = thread.root
    return checkpoint_status(root.latest if root else None)


def load_thread(source: CheckpointSource, thread_id: str) -> Thread:
    """Read, arrange and annotate one thread (tasks and statuses on every checkpoint)."""
    from replaylens.errors import ThreadNotFound

    rows = source.read_thread(thread_id)
    if not rows.checkpoints and not rows.writes:
        raise ThreadNotFound(f"Thread {thread_id!r} is not in {source.label}.")
    thread = annotate_thread(build_thread(thread_id, rows))
    return reannotate_with_hints(source, thread)


HINT_THREADS = 20
"""At most this many other threads are read to learn a pre-v3 graph's edges."""
HINT_MAX_CHECKPOINTS = 500
"""Threads longer than this are not read for hints (their edges are in shorter ones too)."""


def hint_threads(source: CheckpointSource, exclude: str | None = None) -> list[Thread]:
    """Up to HINT_THREADS short threads of the database, arranged (not annotated)."""
    ids = [r.thread_id for r in source.thread_index() if r.thread_id != exclude and r.checkpoints <= HINT_MAX_CHECKPOINTS]
    return [build_thread(tid, source.read_thread(tid)) for tid in ids[:HINT_THREADS]]


def reannotate_with_hints(
    source: CheckpointSource, thread: Thread, pool: list[Thread] | None = None
) -> Thread:
    """A pre-v3 thread (`needs_hints`): learn the graph's edges from
    the other threads of the same database and derive again. Current formats need none."""
    if not needs_hints(thread):
        return thread
    loaded = pool if pool is not None else hint_threads(source, thread.thread_id)
    hints = gather_hints(thread, loaded)
    if not hints.threads:
        return thread
    return annotate_thread(thread, hints)


@dataclass(frozen=True)
class ThreadSummary:
    thread_id: str
    checkpoints: int
    namespaces: int
    latest_checkpoint_id: str | None
    latest_step: int | None
    status: ThreadStatus
    updated_at: str | None
    pending: tuple[str, ...] = ()
    next_unknown: bool = False  # the rows cannot tell the next task (pre-v3 formats)

    def to_json(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "checkpoints": self.checkpoints,
            "namespaces": self.namespaces,
            "latest_checkpoint_id": self.latest_checkpoint_id,
            "latest_step": self.latest_step,
            "status": self.status,
            "updated_at": self.updated_at,
            "pending": list(self.pending),
            "next_unknown": self.next_unknown,
        }


class _TriggerCache:
    """Threads of one graph share their trigger map: build it once per distinct shape.

    Pre-v3 checkpoints also get the edges the other threads' latest checkpoints prove
    (`hints`, pooled by start edges), as `load_thread` gets them, so that the list and
    the thread page agree."""

    def __init__(self, hints: dict[frozenset[str], LegacyHints] | None = None) -> None:
        self._maps: dict[tuple[Any, ...], TriggerMap] = {}
        self._hints = hints or {}

    def for_checkpoint(self, cp: Checkpoint) -> TriggerMap:
        rec = cp.record
        shape = (
            frozenset(rec.channel_versions),
            frozenset((node, frozenset(seen)) for node, seen in rec.versions_seen.items()),
            frozenset(w.task_path for w in cp.writes),
        )
        found = self._maps.get(shape)
        if found is None:
            starts = frozenset(ch for ch in rec.channel_versions if ch.startswith("start:"))
            found = self._maps[shape] = TriggerMap(Namespace("", [cp], {cp.checkpoint_id: cp}), self._hints.get(starts))
        return found


def summarize_threads(source: CheckpointSource) -> tuple[list[ThreadSummary], list[str]]:
    """Every thread's status from its latest root checkpoint: two bulk queries, no values."""
    index = source.thread_index()
    latest = source.read_latest(known={r.thread_id: r.latest_checkpoint_id for r in index if r.latest_checkpoint_id})
    writes_by_thread: dict[str, list[WriteRecord]] = {}
    for w in latest.writes:
        writes_by_thread.setdefault(w.thread_id, []).append(w)
    latest_by_thread = {rec.thread_id: rec for rec in latest.checkpoints}
    legacy = [rec for rec in latest.checkpoints if rec.v is not None and rec.v < 3]
    hints = hints_by_start([build_thread(rec.thread_id, ThreadRows([rec], [])) for rec in legacy]) if legacy else None
    triggers = _TriggerCache(hints)
    out: list[ThreadSummary] = []
    pool: list[Thread] | None = None
    for row in index:
        rec = latest_by_thread.get(row.thread_id)
        cp: Checkpoint | None = None
        if rec is not None:
            # One checkpoint per thread: no chain to arrange, so no build_thread.
            cp = Checkpoint(rec, [w for w in writes_by_thread.get(row.thread_id, ()) if w.checkpoint_id == rec.checkpoint_id])
            annotate_checkpoint(cp, triggers.for_checkpoint(cp))
            if cp.next_unknown:
                # Pre-v3: only the whole chain (and its siblings) can prove the edge leads
                # nowhere; read it as the thread page does, so both say the same.
                pool = pool if pool is not None else hint_threads(source)
                full = annotate_thread(build_thread(row.thread_id, source.read_thread(row.thread_id)))
                full = reannotate_with_hints(source, full, pool)
                cp = full.root.latest if full.root else cp
        out.append(
            ThreadSummary(
                thread_id=row.thread_id,
                checkpoints=row.checkpoints,
                namespaces=row.namespaces,
                latest_checkpoint_id=row.latest_checkpoint_id,
                latest_step=cp.step if cp else None,
                status=checkpoint_status(cp),
                updated_at=cp.ts if cp else None,
                pending=tuple(t.node or t.label for t in cp.pending_tasks) if cp else (),
                next_unknown=bool(cp and cp.next_unknown),
            )
        )
    return out, list(latest.problems)
