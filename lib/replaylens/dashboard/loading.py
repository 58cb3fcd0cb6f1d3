"""Loading in stages, so a page can show progress on a large database.

`load_thread` in the library is one call; here the same three steps (read the rows,
arrange the chains, derive the tasks) are run one by one with a callback between them,
which the dashboard turns into a progress bar. The result is the same `Thread`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from replaylens.analysis.joins import read_stalled_joins
from replaylens.analysis.status import reannotate_with_hints
from replaylens.analysis.tasks import annotate_thread, needs_hints
from replaylens.errors import ThreadNotFound
from replaylens.model import Thread, build_thread

if TYPE_CHECKING:
    from replaylens.analysis.durability import Recording
    from replaylens.effects.parse import EffectsLog

Progress = Callable[[float, str], None]
MAX_PLANNED_THREADS = 300
"""The Threads page computes "log lines again" for at most this many threads (each is a full load)."""


def _noop(fraction: float, message: str) -> None:
    return None


def load_thread_staged(source: Any, thread_id: str, progress: Progress | None = None) -> Thread:
    """`replaylens.analysis.status.load_thread`, reporting progress between its steps."""
    report = progress or _noop
    report(0.05, "Reading the thread's checkpoints and writes…")
    rows = source.read_thread(thread_id)
    if not rows.checkpoints and not rows.writes:
        raise ThreadNotFound(f"Thread {thread_id!r} is not in {source.label}.")
    report(
        0.55,
        f"Arranging {len(rows.checkpoints)} checkpoints and {len(rows.writes)} writes into chains…",
    )
    thread = build_thread(thread_id, rows)
    report(0.8, "Working out which tasks were due after each checkpoint…")
    annotate_thread(thread)
    if needs_hints(thread):
        report(
            0.9, "Learning the graph's edges from the other threads (checkpoint format before v3)…"
        )
        reannotate_with_hints(source, thread)
    read_stalled_joins(source, thread)
    report(1.0, "Loaded.")
    return thread


def replay_counts(
    source: Any,
    thread_ids: Iterable[str],
    known: set[str],
    effects: EffectsLog | None,
    latency: float,
    progress: Progress | None = None,
    *,
    memo: dict[Any, int] | None = None,
    versions: dict[str, Any] | None = None,
    recording: Callable[[str], Recording] | None = None,
) -> dict[str, int]:
    """Log lines again, as the Thread page's metric, per thread that has effect lines (first
    N threads), each planned with its `recording` (a kill-test manifest's, as the Thread page
    plans it). Where the evidence cannot tell and that metric is a range, the most that may
    run again: a sortable count, never the reassuring end of the range.

    With `memo` and `versions` (thread id -> its version in the thread list), a thread
    whose version is unchanged is not loaded again: on a live database only the threads
    the writer touched are re-planned."""
    from replaylens.analysis.resume import plan_resume

    if effects is None:
        return {}
    report = progress or _noop
    with_lines = set(effects.thread_ids)
    todo = [t for t in thread_ids if t in with_lines][:MAX_PLANNED_THREADS]
    out: dict[str, int] = {}
    for i, tid in enumerate(todo):
        key = (tid, (versions or {}).get(tid), round(latency, 3))
        if memo is not None and versions is not None and key in memo:
            out[tid] = memo[key]
            continue
        report(i / max(len(todo), 1), f"Planning the resume of thread {i + 1} of {len(todo)}…")
        thread = load_thread_staged(source, tid) if tid in known else None
        rec = recording(tid) if recording is not None else None
        # at the recorded latency where a manifest names it, as the Thread page's slider starts
        at = rec.latency if rec is not None and rec.known and rec.latency is not None else latency
        again = plan_resume(thread, effects, tid, latency=at, recording=rec).again
        span = again.span_of("lines")
        out[tid] = span[1] if span else again.line_count or 0
        if memo is not None and versions is not None:
            memo[key] = out[tid]
    report(1.0, "Done.")
    return out
