"""The tables the pages show, built from model objects (pandas, no Streamlit).

Each function answers one question a page asks, in the words a person reading an
incident would use: special channels are named (`error`, `interrupt`, `resume answer`,
`Send`), statuses are words, and values are short text previews.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from replaylens import namespaces
from replaylens._bulk import collector_paused
from replaylens.analysis.durability import MODE_RULES
from replaylens.analysis.status import ATTENTION_ORDER, log_only_summaries
from replaylens.figures.statuses import status_word
from replaylens.model import Checkpoint, Namespace, Thread, channel_label
from replaylens.text import as_json_text, preview, visible
from replaylens.times import checkpoint_id_time, clock_ms

if TYPE_CHECKING:
    from replaylens.analysis.plan import ResumePlan
    from replaylens.analysis.status import ThreadSummary
    from replaylens.cache import CachedStatus
    from replaylens.decode import DecodeResult
    from replaylens.effects.parse import EffectsLog
    from replaylens.sources import ThreadIndexRow

TASK_STATUS_ICON = {
    "finished": "✓",
    "handled": "↪",
    "failed": "✗",
    "interrupted": "‖",
    "pending": "○",
}
"""Beside the task's status word (plain symbols of the text fonts, never emoji)."""

PAGE_ROWS = 1_000
"""Rows per page of the Threads table: the browser gets one page, never 100,000 rows."""


def status_label(status: str) -> str:
    """The Threads table's status cell: the word alone, which any font draws; the table
    colours it as a pill (`status_column`)."""
    return status_word(status)


def idle_words(seconds: float | None) -> str:
    """How long a thread has been idle, in the two largest units a reader takes in at once
    ("4 d 2 h", "12 min 5 s"): a raw count of seconds (352234) says nothing at a glance.
    "" when the time is unknown; "just now" under a second (or a clock ahead of ours)."""
    if seconds is None:
        return ""
    left = int(seconds)
    if left < 1:
        return "just now"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        if left >= size or parts:
            parts.append((left // size, unit))
            left %= size
        if len(parts) == 2:
            break
    return " ".join(f"{n} {unit}" for n, unit in parts if n or unit == parts[0][1])


def page_count(rows: int, per_page: int = PAGE_ROWS) -> int:
    """How many pages `rows` rows fill (at least one, so an empty table has a page 1)."""
    return max(1, -(-rows // per_page))


def page_slice(rows: int, page: int, per_page: int = PAGE_ROWS) -> slice:
    """The rows of page `page` (1-based; out-of-range pages are clamped, as a pasted URL may say 0 or 9999)."""
    page = min(max(page, 1), page_count(rows, per_page))
    return slice((page - 1) * per_page, min(page * per_page, rows))


class ThreadRow(NamedTuple):
    """One thread of the Threads page (a plain record, so it can be cached and tested; a
    tuple because the page makes one per thread, 100,000 on a production database)."""

    thread_id: str
    status: str
    checkpoints: int
    latest_step: int | None
    updated_at: str | None
    due_next: str
    effect_lines: int | None
    replay_lines: int | None
    checkpoint_id: str | None = None  # the time comes from it when `updated_at` is not known
    was: str | None = None  # while `deriving`: the status the cache stored, not checked yet
    as_of: float | None = None  # when the cache stored it (epoch seconds)

    @property
    def when(self) -> str | None:
        """When the thread last changed: the derived time, else the one in the checkpoint id
        (worked out here, for the rows a page shows, not for every thread of the list)."""
        return (
            self.updated_at
            if self.updated_at is not None
            else checkpoint_id_time(self.checkpoint_id)
        )


def _line_counts(effects: EffectsLog | None) -> dict[str, int]:
    return effects.line_counts() if effects is not None else {}


def _summary_row(s: ThreadSummary, lines: int | None, replay: int | None) -> ThreadRow:
    return ThreadRow(s.thread_id, s.status, s.checkpoints, s.latest_step, s.updated_at,
                     ", ".join(s.pending), lines, replay, s.latest_checkpoint_id)  # fmt: skip


def _finish_rows(
    rows: list[ThreadRow],
    seen: set[str],
    counts: dict[str, int],
    replay_counts: Mapping[str, int],
    effects: EffectsLog | None,
) -> list[ThreadRow]:
    """Add the threads known only from the effects log (no checkpoint), attention first."""
    for s in log_only_summaries(seen, effects):
        rows.append(_summary_row(s, counts.get(s.thread_id, 0), replay_counts.get(s.thread_id)))
    rows.sort(
        key=lambda r: (ATTENTION_ORDER.get(r.status, 99), -(r.replay_lines or 0), r.thread_id)
    )
    return rows


def thread_rows(
    summaries: Iterable[ThreadSummary],
    effects: EffectsLog | None,
    replay_counts: Mapping[str, int] | None = None,
) -> list[ThreadRow]:
    """Threads in the database, plus threads known only from the effects log (no checkpoint)."""
    counts = _line_counts(effects)
    replay_counts = replay_counts or {}
    rows: list[ThreadRow] = []
    seen: set[str] = set()
    for s in summaries:
        seen.add(s.thread_id)
        lines = counts.get(s.thread_id, 0) if effects is not None else None
        rows.append(_summary_row(s, lines, replay_counts.get(s.thread_id)))
    return _finish_rows(rows, seen, counts, replay_counts, effects)


DERIVING = "deriving"


def provisional_label(was: str, as_of: float | None) -> str:
    """The status cell of a stored status whose check has not landed: the stored word, when,
    and that it is being re-checked; no coloured mark, so it never reads as current."""
    when = f"as of {clock_ms(as_of)[:8]} UTC" if as_of is not None else "as stored"
    return f"{status_word(was)}? ({when}, re-checking)"


def status_cell(r: ThreadRow) -> str:
    """The Threads table's status cell of a row."""
    if r.status == DERIVING and r.was is not None:
        return provisional_label(r.was, r.as_of)
    return status_label(r.status)


def listing_rows(
    index: Iterable[ThreadIndexRow],
    found: Mapping[str, ThreadSummary],
    effects: EffectsLog | None = None,
    replay_counts: Mapping[str, int] | None = None,
    provisional: Mapping[str, CachedStatus] | None = None,
    as_of: float | None = None,
) -> list[ThreadRow]:
    """The Threads page's rows while statuses arrive: a derived summary where there is one,
    else `deriving` with the latest step and checkpoint id the SQL thread list knows (and,
    from `provisional`, the status the cache stored, shown as "as of <time>, re-checking":
    it counts as `deriving` for the tiles and the filter until its check lands).

    The same rows as `thread_rows` once every status is in; built straight from the thread
    list (no summary object per undecided thread), because this is the first screen."""
    counts = _line_counts(effects)
    replay_counts = replay_counts or {}
    rows: list[ThreadRow] = []
    seen: set[str] = set()
    has_log = effects is not None
    stored = provisional or {}
    with collector_paused():  # a row per thread, no cycles (see replaylens._bulk)
        for r in index:
            tid = r.thread_id
            seen.add(tid)
            lines = counts.get(tid, 0) if has_log else None
            s = found.get(tid)
            if s is not None:
                rows.append(_summary_row(s, lines, replay_counts.get(tid)))
            else:
                was = stored.get(tid)
                rows.append(ThreadRow(tid, DERIVING, r.checkpoints, r.latest_step, r.latest_ts, "", lines,
                                      replay_counts.get(tid), r.latest_checkpoint_id,
                                      was.status if was is not None else None, as_of))  # fmt: skip
        return _finish_rows(rows, seen, counts, replay_counts, effects)


def filter_rows(rows: list[ThreadRow], statuses: Iterable[str], query: str) -> list[ThreadRow]:
    """The rows the status filter and the thread-id search keep (none chosen keeps all)."""
    chosen = set(statuses)
    needle = query.lower()
    if not chosen and not needle:
        return rows
    return [
        r
        for r in rows
        if (not chosen or r.status in chosen) and (not needle or needle in r.thread_id.lower())
    ]


def due_next(status: str, latest_step: int | None, pending: str) -> str:
    """The "due next" cell, never blank when something will run: at step -1 the input's
    `__start__` task is finished, and the first node is not known until its writes are applied."""
    if pending:
        return pending
    if status == "needs_restart":
        return "— (restart from the input)"
    if status == "completed":
        return "— (nothing due)"
    if status == "unknown":
        return "unknown (the rows cannot tell; --graph decides)"
    if latest_step == -1:
        return "the first nodes, after the input"
    return "—"


NO_LOG = "no effects log"
"""What the effect columns say when no effects log goes with the database (never "None")."""


def threads_frame(rows: Iterable[ThreadRow], link: Any = None) -> pd.DataFrame:
    """The Threads table; `link(thread_id)` gives the URL of the Thread page for a row.

    The columns a reader acts on come first (status, thread, what is due, what a resume
    repeats, the link), so they stay on screen in a 540-pixel-wide page at 1000 px; the
    bookkeeping (checkpoints, step, time) follows. Without an effects log the effect
    columns say so in words. Built column by column (100,000 rows: a tenth of the time
    of a list of dicts)."""
    rows = list(rows)
    has_log = any(r.effect_lines is not None for r in rows)
    data: dict[str, list[Any]] = {
        "status": [status_cell(r) for r in rows],
        "thread": [visible(r.thread_id) for r in rows],
        "due next": [visible(due_next(r.status, r.latest_step, r.due_next)) for r in rows],
        "log lines again": [r.replay_lines for r in rows] if has_log else [NO_LOG] * len(rows),
        "effect lines": [r.effect_lines for r in rows] if has_log else [NO_LOG] * len(rows),
    }
    if link:
        data["open"] = [link(r.thread_id) for r in rows]
    data["checkpoints"] = [r.checkpoints for r in rows]
    data["latest step"] = ["—" if r.latest_step is None else str(r.latest_step) for r in rows]
    data["last update (UTC)"] = [_short_ts(r.when) for r in rows]
    return pd.DataFrame(data)


def table_page(rows: list[ThreadRow], page: int, link: Any = None) -> tuple[slice, pd.DataFrame]:
    """Page `page` of the Threads table: which rows it holds, and its table (only those rows
    are turned into cells: the browser gets one page, and so does pandas)."""
    part = page_slice(len(rows), page)
    return part, threads_frame(rows[part], link)


def _short_ts(ts: str | None) -> str:
    """ISO timestamps to the second: `2026-11-30 14:16:07` (UTC)."""
    if not ts:
        return ""
    return ts.replace("T", " ")[:19]


def checkpoint_label(cp: Checkpoint) -> str:
    """How a checkpoint is named in a picker: step, source, time and a short id."""
    step = "?" if cp.step is None else cp.step
    return f"step {step} · {cp.source or '?'} · {_short_ts(cp.ts)[11:] or 'no time'} · …{cp.checkpoint_id[-8:]}"


def namespace_label(name: str) -> str:
    if not name:
        return "root graph"
    return "subgraph " + " › ".join(visible(p) for p in namespaces.names(name).split("|"))


def chain_caption(ns: Namespace) -> str:
    """The sentence under a checkpoint table whose history never forked: one chain, and the
    checkpoints ``update_state`` wrote into it on its latest checkpoint (source ``update``),
    which do not branch."""
    edits = [c.step for c in ns.checkpoints if c.source in ("update", "fork")]
    if not edits:
        return (
            "One chain of checkpoints, no fork (no time travel, no update_state on an older one)."
        )
    steps = ", ".join(str(s) for s in edits)
    return (
        f"One chain of checkpoints, no fork: {len(edits)} of them written by update_state "
        f"(step {steps}), each on the latest checkpoint, so in line, not a branch. A resume "
        "goes on from the newest."
    )


def checkpoints_frame(ns: Namespace, resume_id: str | None = None) -> pd.DataFrame:
    """One row per checkpoint, oldest first, with the tasks due after it and their status."""
    rows = []
    for cp in ns.checkpoints:
        notes = []
        if cp.checkpoint_id == resume_id:
            notes.append("a resume starts here")
        if len(cp.children) > 1:
            notes.append(f"fork: {len(cp.children)} branches")
        notes.extend(visible(u.label) for u in cp.updates)
        if cp.exit_delta_writes and cp.step == -2 and not cp.source:
            notes.append("a stub LangGraph saved under exit to anchor them")
        notes.extend(
            f"{len(steps)} write(s) to DeltaChannel {visible(channel)!r} saved on exit, not tasks"
            for channel, steps in sorted(cp.exit_delta_writes.items())
        )
        if cp.unreadable:
            notes.append(f"unreadable: {cp.unreadable}")
        orphan_of = ns.parent(cp) is None and cp.parent_checkpoint_id
        if orphan_of:
            notes.append("parent missing")
        rows.append(
            {
                "step": cp.step,
                "source": cp.source or "",
                "time (UTC)": _short_ts(cp.ts),
                "next tasks": ", ".join(
                    f"{TASK_STATUS_ICON.get(t.status, '')} {visible(t.label)} ({t.status})"
                    + (
                        f" · {len(t.calls)} @task call{'s' if len(t.calls) != 1 else ''}"
                        if t.calls
                        else ""
                    )
                    for t in cp.tasks
                )
                or (
                    "unknown (the rows cannot tell; --graph decides)"
                    if cp.next_unknown
                    else "— (nothing due)"
                ),
                "writes": len(cp.writes),
                "checkpoint id": cp.checkpoint_id,
                "parent": cp.parent_checkpoint_id or "",
                "notes": "; ".join(notes),
            }
        )
    # the notes (a resume starts here, a fork, an update, a stub) right after the tasks due,
    # before the time and the long ids, so a first look sees them without scrolling the table
    # sideways on a 1000-pixel screen
    return pd.DataFrame(rows, columns=["step", "source", "next tasks", "notes", "time (UTC)",
                                       "writes", "checkpoint id", "parent"])  # fmt: skip


WRITE_COLUMNS = ["task", "task status", "channel", "idx", "type", "bytes", "value", "task id"]


def writes_frame(cp: Checkpoint) -> pd.DataFrame:
    """The writes saved against `cp`, grouped by task; special channels named in words."""
    rows = []
    for w in sorted(cp.writes, key=lambda w: (w.task_id, w.idx)):
        name, status = cp.writer_of(w)
        rows.append(
            {
                "task": visible(name),
                "task status": status,
                "channel": visible(channel_label(w.channel)),
                "idx": w.idx,
                "type": w.type or "",
                "bytes": w.size,
                "value": preview(w.value),
                "task id": w.task_id,
            }
        )
    return pd.DataFrame(rows, columns=WRITE_COLUMNS)


def orphans_frame(thread: Thread) -> pd.DataFrame:
    """Writes whose checkpoint never landed: a resume ignores them and the task runs again."""
    rows = [
        {
            "namespace": namespace_label(w.checkpoint_ns),
            "missing checkpoint": w.checkpoint_id,
            "task id": w.task_id,
            "task path": visible(w.task_path),
            "channel": visible(channel_label(w.channel)),
            "bytes": w.size,
            "value": preview(w.value),
        }
        for w in thread.orphan_writes
    ]
    return pd.DataFrame(rows, columns=["namespace", "missing checkpoint", "task id", "task path", "channel",
                                       "bytes", "value"])  # fmt: skip


def _value_text(result: DecodeResult | None) -> str:
    if result is None:
        return ""
    return as_json_text(result.value)


def state_frame(values: Mapping[str, DecodeResult]) -> pd.DataFrame:
    """Channel values at one checkpoint (internal scheduling channels last)."""
    rows = []
    for name in sorted(values, key=lambda n: (_is_internal(n), n)):
        result = values[name]
        text = _value_text(result)
        rows.append(
            {
                "channel": visible(channel_label(name)),
                "value": preview(text, 300),
                "characters": len(text),
                # A DeltaChannel's value is rebuilt, not stored: say how beside it.
                "problem": result.error
                or (f"DeltaChannel value {result.note}" if result.note else ""),
                "internal": _is_internal(name),
            }
        )
    return pd.DataFrame(rows, columns=["channel", "value", "characters", "problem", "internal"])


def _is_internal(name: str) -> bool:
    return name.startswith(("branch:to:", "join:", "__")) or name == "__start__"


def is_internal(name: str) -> bool:
    """LangGraph's scheduling channels (`branch:to:*`, `join:*`, `__*__`), hidden by default."""
    return _is_internal(name)


def diff_frame(
    parent: Mapping[str, DecodeResult] | None, current: Mapping[str, DecodeResult]
) -> pd.DataFrame:
    """What changed from the parent checkpoint: added, removed and changed channels."""
    before = {k: _value_text(v) for k, v in (parent or {}).items()}
    after = {k: _value_text(v) for k, v in current.items()}
    rows = []
    for name in sorted(set(before) | set(after), key=lambda n: (_is_internal(n), n)):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        change = "added" if old is None else "removed" if new is None else "changed"
        rows.append(
            {
                "channel": visible(channel_label(name)),
                "change": change,
                "before": preview(old or "", 200),
                "after": preview(new or "", 200),
                "internal": _is_internal(name),
            }
        )
    return pd.DataFrame(rows, columns=["channel", "change", "before", "after", "internal"])


ATTEMPT_COLUMNS = ["node", "attempt", "resume", "effects", "idempotency key", "log line no.", "pid",
                   "outcome", "after checkpoint", "why"]  # fmt: skip
"""What a reader matches against the downstream service first (the key, the log line, the
process), the long "why" sentence last: it pushed them off-screen even at 1400 px."""


def attempts_frame(plan: ResumePlan) -> pd.DataFrame:
    """Each recorded execution of a task, with what a resume does to it and why."""
    rows = []
    for a in getattr(plan, "attempts", []):
        lines = [line.line for line in a.lines]
        keys = dict.fromkeys(line.idempotency_key for line in a.lines if line.idempotency_key)
        rows.append(
            {
                "node": visible(a.node),
                "after checkpoint": _after_checkpoint(a),
                "attempt": a.attempt,
                "outcome": a.outcome_label,
                "resume": {
                    "kept": "kept",
                    "replays": "runs again",
                    "restart": "runs again (restart)",
                }.get(a.verdict, a.verdict),
                "why": a.reason,
                "effects": ", ".join(visible(e) for e in a.effects),
                "idempotency key": ", ".join(visible(k) for k in keys) or "—",
                "log line no.": ", ".join(map(str, lines)),
                "pid": "—" if a.pid is None else str(a.pid),
            }
        )
    return pd.DataFrame(rows, columns=ATTEMPT_COLUMNS)


def _after_checkpoint(a: Any) -> int | None:
    """The step of the checkpoint a task ran after, the number the timeline and the Checkpoints
    tab show (LangGraph's own `langgraph_step` of the task is one more)."""
    if a.checkpoint is not None and a.checkpoint.step is not None:
        return int(a.checkpoint.step)
    step = a.step if a.step is not None else (a.task.step if a.task else None)
    return None if step is None else int(step) - 1


def again_frames(plan: Any) -> dict[str, pd.DataFrame]:
    """The "what happens again" table, one frame per reason (resume step, lost checkpoint, restart).

    Counts are executions (tasks), the same numbers the verdict sentence says."""
    from replaylens.analysis.again import AGAIN_COLUMNS, again_rows

    out: dict[str, list[dict[str, Any]]] = {}
    for r in again_rows(plan):
        out.setdefault(r.why, []).append({
            "node": visible(r.node),
            "effect": visible(r.effect),
            "times again": r.times,
            "log line no.": ", ".join(map(str, r.lines)),
            "idempotency key": ", ".join(visible(k) for k in r.keys) or "—",
            "would the key dedupe": r.dedupe,
        })  # fmt: skip
    return {why: pd.DataFrame(rows, columns=list(AGAIN_COLUMNS)) for why, rows in out.items()}


MODE_EXPLAINED = MODE_RULES
"""The one line per mode, from `analysis.durability` (the only place that knows the modes)."""
