"""The blast radius of a crash: every thread it touched, and what resuming all of them repeats.

One worker running fifty threads dies; each thread is left one step behind, and resuming
them all performs each in-flight side effect again, fifty at once. This module answers
for many threads what `plan_resume` answers for one, with the same verdicts:

- `times_again` of a thread counts its side-effect executions whose verdict is `replays`
  or `restart`, as `analysis.again.what_happens_again` counts them (`effect_counts`: one
  task run, however many lines or attempts the log holds of it);
- `reruns` names the tasks a resume runs again, as `what_happens_again` lists them (due at
  the checkpoint it loads, of steps whose checkpoint was lost, or shown by the log);
- the impact per (node, effect) counts those executions again, and how many threads they
  come from;
- the idempotency keys of the repeated effects say which repeats a downstream service
  could drop as duplicates, and which it cannot.

Speed. A full `load_thread` + `plan_resume` costs about 9 ms for a 50-checkpoint thread,
so 10,000 threads would take a minute and a half. Most attempts need no full load: when a
thread has one namespace and every effect line carries the task id (as `record_effect`
writes it), `plan_resume`'s verdict follows from the latest checkpoint's tasks, the
orphan writes and the step alone (`fast_verdicts`, which says "undecided" otherwise).
Every other thread goes through `plan_resume` itself. `tests/test_incident.py` checks the
two routes agree on every thread of the real-graph corpus.
"""

from __future__ import annotations

import csv
import functools
import io
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from replaylens.analysis.again import restart_tasks
from replaylens.analysis.attempts import Attempt, effect_counts, execution_of, group_attempts
from replaylens.analysis.durability import Recording
from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import _TriggerCache, checkpoint_status, load_thread
from replaylens.analysis.tasks import annotate_checkpoint
from replaylens.effects.parse import EffectLine, EffectsLog
from replaylens.model import NULL_TASK_ID, Checkpoint
from replaylens.sources import CheckpointSource, WriteRecord
from replaylens.text import csv_cell, md, md_cell, md_ticks
from replaylens.times import iso_to_epoch, utc_iso

Route = Literal["fast", "plan", "restart", "no-lines"]
"""How a thread's verdicts were reached: the shortcut, a full plan_resume, no checkpoint at
all (every attempt restarts), or no effect lines (nothing to count)."""
KeyVerdict = Literal["dedupes", "changes", "missing", "unproven"]
"""What an idempotency key does for a repeated effect:
- `dedupes`: the same key was sent by every recorded attempt of the task, so the repeat
  carries it again and a service that honours keys drops it;
- `changes`: attempts of one task sent different keys: the repeat is a new operation;
- `missing`: the effect sends no key: nothing can drop the repeat;
- `unproven`: one attempt sent a key; the repeat dedupes only if the node derives the same
  key again (from the thread id, step and a business id), which the log cannot show."""
KEY_VERDICT_WORDS: dict[str, str] = {
    "dedupes": "same key on every recorded attempt: a service that honours keys drops the repeat",
    "changes": "attempts sent different keys (or none): the repeat is a new operation",
    "missing": "no key sent: nothing can drop the repeat",
    "unproven": "one attempt with a key: the repeat dedupes only if the node derives the same key again",
}
"""Each key verdict in one sentence, for the incident page's table."""
REPLAYING = ("replays", "restart")
UNFINISHED = ("resumable", "failed", "needs_restart", "unknown")
"""`unknown` counts as unfinished: the rows cannot tell that it finished, so a crash may have left it."""
"""Statuses a crash leaves behind (interrupted threads wait for a person, not a resume)."""
DEFAULT_WINDOW = 60.0


@dataclass
class ThreadImpact:
    """One thread of the incident: its status and the attempts a resume performs again."""

    thread_id: str
    status: str
    replayed: list[Attempt]
    route: Route
    last_activity: (
        float | None
    )  # epoch seconds: the later of its latest checkpoint and its last effect line
    latest_step: int | None = None
    reruns: tuple[str, ...] = ()  # the tasks a resume runs again, by node (one per task)
    error: str | None = None
    pids: frozenset[int] = frozenset()
    last_pid: int | None = None
    lines: int = 0
    tasks_range: tuple[int, int] | None = None
    """The tasks again as a range where the evidence cannot tell (`Again.span_of`): a thread
    the effects log has no line of may not have begun the tasks due at its checkpoint."""

    @property
    def left_by_crash(self) -> bool:
        """Did a crash leave this thread behind? Its status is unfinished, or its log shows a
        task that started and never finished and runs again: a thread paused at interrupt()
        whose answer was sent in an invocation that was killed (under exit the database
        still shows the pause, the log shows the kill) waits for a resume, not a person."""
        return self.status in UNFINISHED or any(a.outcome == "in flight" for a in self.replayed)

    @property
    def executions(self) -> Counter[tuple[str, str]]:
        """(node, effect) -> executions a resume performs again (`effect_counts`)."""
        out: Counter[tuple[str, str]] = Counter()
        for node, per_label in effect_counts(self.replayed).items():
            for label, n in per_label.items():
                out[(node, label)] += n
        return out

    @property
    def times_again(self) -> int:
        return sum(self.executions.values())

    @property
    def effects_again(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for (_node, label), n in self.executions.items():
            out[label] += n
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "status": self.status,
            "times_again": self.times_again,
            "tasks_again": len(self.reruns),
            "reruns": list(self.reruns),
            "log_lines_again": sum(len(a.lines) for a in self.replayed),
            "range": {"tasks": list(self.tasks_range)} if self.tasks_range else None,
        }


@dataclass(frozen=True)
class ImpactRow:
    node: str
    effect: str
    times_again: int
    threads: int

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "effect": self.effect,
            "times_again": self.times_again,
            "threads": self.threads,
        }


@dataclass(frozen=True)
class KeyRow:
    """The idempotency keys of one repeated (node, effect), grouped by what they would do."""

    node: str
    effect: str
    verdict: KeyVerdict
    times_again: int
    threads: int
    example_key: str | None


@dataclass
class Incident:
    threads: list[ThreadImpact]
    effects_given: bool
    selection: str = "every thread of the database and the effects log"
    notes: list[str] = field(default_factory=list)

    @property
    def total_times_again(self) -> int:
        return sum(t.times_again for t in self.threads)

    def impact(self) -> list[ImpactRow]:
        """Per (node, effect): attempts run again and the threads they come from, most first."""
        counts: Counter[tuple[str, str]] = Counter()
        threads: dict[tuple[str, str], set[str]] = defaultdict(set)
        for t in self.threads:
            for key, n in t.executions.items():
                counts[key] += n
                threads[key].add(t.thread_id)
        return [
            ImpactRow(node, effect, n, len(threads[(node, effect)]))
            for (node, effect), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        ]

    def keys(self) -> list[KeyRow]:
        """What the idempotency keys of the repeated effects would do, per (node, effect),
        counted in executions as the impact rows are (`execution_of`: two attempts of one
        task, an interrupted node asked again, are one execution, not two)."""
        runs: dict[tuple[str, str, KeyVerdict], set[Any]] = defaultdict(set)
        threads: dict[tuple[str, str, KeyVerdict], set[str]] = defaultdict(set)
        example: dict[tuple[str, str, KeyVerdict], str] = {}
        for t in self.threads:
            for a, verdicts in _key_verdicts(t.replayed):
                for label, (verdict, key) in verdicts.items():
                    k = (a.node, label, verdict)
                    runs[k].add((t.thread_id, execution_of(a)))
                    threads[k].add(t.thread_id)
                    if key and k not in example:
                        example[k] = key
        return [
            KeyRow(
                node,
                effect,
                verdict,
                n,
                len(threads[(node, effect, verdict)]),
                example.get((node, effect, verdict)),
            )
            for (node, effect, verdict), n in sorted(
                ((k, len(v)) for k, v in runs.items()), key=lambda kv: (-kv[1], kv[0])
            )
        ]

    def sentence(self) -> str:
        """The combined impact in one sentence, from the same counts as the table and the JSON."""
        n = len(self.threads)
        these = "this thread" if n == 1 else f"these {n:,} threads"
        if n == 0:
            return "No thread matches this selection."
        if not self.effects_given:
            reruns = sum(len(t.reruns) for t in self.threads)
            return (
                f"Resuming {these} would re-run {reruns:,} task(s); give an effects log to see "
                "which side effects would happen again."
            )
        per_effect: Counter[str] = Counter()
        for row in self.impact():
            per_effect[row.effect] += row.times_again
        if not per_effect:
            return f"Resuming {these} would repeat no recorded side effect."
        parts = [
            f"`{name.replace('`', chr(39))}` {k:,} time{'s' if k != 1 else ''}"
            for name, k in sorted(per_effect.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
        restart = sum(1 for t in self.threads if t.status == "needs_restart")
        tail = (
            f" ({restart:,} of them have no checkpoint and can only restart from the input)"
            if restart
            else ""
        )
        return f"Resuming {these} would run {listed}{tail}."

    def to_json(self) -> dict[str, Any]:
        """The `replaylens incident --json` contract, plus the selection and the key table."""
        return {
            "threads": [t.to_json() for t in self.threads],
            "impact": [r.to_json() for r in self.impact()],
            "total_times_again": self.total_times_again,
            "effects_given": self.effects_given,
            "selection": self.selection,
            "sentence": self.sentence(),
            "idempotency": [
                {
                    "node": k.node,
                    "effect": k.effect,
                    "verdict": k.verdict,
                    "times_again": k.times_again,
                    "threads": k.threads,
                    "example_key": k.example_key,
                }
                for k in self.keys()
            ],
        }


# -- idempotency ---------------------------------------------------------------------------
def _key_verdicts(
    replayed: list[Attempt],
) -> list[tuple[Attempt, dict[str, tuple[KeyVerdict, str | None]]]]:
    """For each repeated attempt and effect label: what its key would do (see KeyVerdict).
    The attempts of one task are compared with each other: the log's only evidence of how
    the node makes its key."""
    by_task: dict[tuple[Any, ...], list[Attempt]] = defaultdict(list)
    for a in replayed:
        by_task[a.key or ("task", a.task_id, a.node, a.step)].append(a)
    out: list[tuple[Attempt, dict[str, tuple[KeyVerdict, str | None]]]] = []
    for group in by_task.values():
        sent: list[dict[str, set[str]]] = []
        for a in group:
            per_label: dict[str, set[str]] = defaultdict(set)
            for line in a.lines:
                if line.idempotency_key:
                    per_label[line.label].add(line.idempotency_key)
            sent.append(per_label)
        for a, mine_sent in zip(group, sent, strict=True):
            mine: dict[str, tuple[KeyVerdict, str | None]] = {}
            for label in a.effects:
                union = set().union(*(s.get(label, set()) for s in sent))
                if not union:
                    mine[label] = ("missing", None)
                elif len(union) > 1 or any(not s.get(label) for s in sent):
                    mine[label] = ("changes", sorted(union)[0])
                elif len(group) > 1:
                    mine[label] = ("dedupes", next(iter(union)))
                else:
                    mine[label] = ("unproven", next(iter(mine_sent[label])))
            out.append((a, mine))
    return out


# -- the shortcut -----------------------------------------------------------------------------
def fast_verdicts(
    lines: list[EffectLine], latest: Checkpoint, orphan_task_ids: set[str]
) -> list[Attempt] | None:
    """The attempts `plan_resume` would mark `replays`, without loading the thread, or None
    when this route cannot decide (then plan_resume must run).

    Valid for a thread with one namespace whose latest root checkpoint is `latest` (tasks
    annotated). For a line with a task id T, plan_resume aligns it exactly when T is a task of
    some checkpoint; its verdict then depends on that checkpoint only if it is the latest
    (replays iff the task is unfinished), and is `kept` for any earlier or forked one. T in
    an orphan write replays. T known nowhere is `kept` when its step is at or before the
    latest step (its superstep completed). Anything else (no task id, a subgraph line, a step
    after the latest for an unknown task) is left to plan_resume.
    """
    tasks = {t.task_id: t for t in latest.tasks}
    latest_step = latest.step
    # As `verdicts.judge`: in a thread that has since completed, an orphaned step ran again.
    completed = checkpoint_status(latest) == "completed"
    hot: set[str] = set()
    for line in lines:
        tid = line.task_id
        if tid is None:
            return None
        task = tasks.get(tid)
        if task is not None:
            if not task.done:
                hot.add(tid)
            continue
        if tid in orphan_task_ids:
            if not completed:
                hot.add(tid)
            continue
        if (
            line.checkpoint_ns
            or line.step is None
            or latest_step is None
            or line.step > latest_step
        ):
            return None
    if not hot:
        return []
    attempts = group_attempts([line for line in lines if line.task_id in hot])
    for a in attempts:
        task = tasks.get(a.task_id or "")
        a.verdict = "replays"
        a.reason = (
            "its writes are orphaned: the checkpoint they hang off never landed"
            if task is None
            else f"its task is {task.status} at the checkpoint a resume loads; it runs again from its first line"
        )
        if task is not None:
            a.task, a.checkpoint, a.namespace, a.alignment = task, latest, "", "exact"
    return attempts


# -- reading ---------------------------------------------------------------------------------
@dataclass
class _Latest:
    checkpoint: Checkpoint | None
    namespaces: int


def _latest_checkpoints(source: CheckpointSource) -> dict[str, _Latest]:
    """Every thread's latest root checkpoint with its tasks annotated, as summarize_threads
    derives them (two bulk queries, no values)."""
    index = source.thread_index()
    latest = source.read_latest(
        known={r.thread_id: r.latest_checkpoint_id for r in index if r.latest_checkpoint_id}
    )
    writes: dict[str, list[WriteRecord]] = defaultdict(list)
    for w in latest.writes:
        writes[w.thread_id].append(w)
    records = {rec.thread_id: rec for rec in latest.checkpoints}
    triggers = _TriggerCache()
    out: dict[str, _Latest] = {}
    for row in index:
        rec = records.get(row.thread_id)
        cp = None
        if rec is not None:
            cp = Checkpoint(
                rec,
                [w for w in writes.get(row.thread_id, ()) if w.checkpoint_id == rec.checkpoint_id],
            )
            annotate_checkpoint(cp, triggers.for_checkpoint(cp))
        out[row.thread_id] = _Latest(cp, row.namespaces)
    return out


def orphan_task_ids(source: CheckpointSource) -> dict[str, set[str]]:
    """Task ids of the writes whose checkpoint never landed, per thread (one SQL pass in the
    source's read transaction, on SQLite and Postgres alike)."""
    out: dict[str, set[str]] = defaultdict(set)
    for tid, _ns, task_id, _rows, _bytes in source.orphan_write_tasks():
        out[tid].add(task_id)
    return out


# -- assembling ------------------------------------------------------------------------------
def _full_plan(
    source: CheckpointSource,
    effects: EffectsLog | None,
    thread_id: str,
    known: bool,
    recording: Recording | None = None,
) -> tuple[str, list[Attempt], tuple[str, ...], tuple[int, int] | None]:
    """(status, the attempts a resume performs again, the tasks it runs again by node, and
    their range where the evidence cannot tell). `recording`: what a kill-test manifest
    says of the thread (its mode, and the LangGraph release whose rules the verdicts read)."""

    thread = load_thread(source, thread_id) if known else None
    plan = plan_resume(thread, effects, thread_id, recording=recording)
    replayed = [a for a in plan.attempts if a.verdict in REPLAYING]
    again = plan.again
    return plan.status, replayed, tuple(again.task_names), again.span_of("tasks")


def _restart(lines: list[EffectLine]) -> list[Attempt]:
    attempts = group_attempts(lines)
    for a in attempts:
        a.verdict = "restart"
        a.reason = "no checkpoint exists: invoke(None) raises EmptyInputError; a restart repeats everything"
    return attempts


def _lost_steps(cp: Checkpoint | None, tid: str, orphans: dict[str, set[str]] | None) -> bool:
    """Might a thread without effect lines have steps whose checkpoint was lost (orphan
    writes)? Then only a full plan names the tasks that run again. Without the orphan scan
    (Postgres) every unfinished thread is planned in full."""
    if cp is None or checkpoint_status(cp) == "completed":
        return False
    return orphans is None or bool(orphans.get(tid))


def _error_of(cp: Checkpoint | None) -> str | None:
    if cp is None:
        return None
    for t in cp.tasks:
        if t.status == "failed":
            err = t.error
            if err:
                return err
    return None


def collect(
    source: CheckpointSource,
    effects: EffectsLog | None,
    *,
    parse: Any = None,
    recording_of: Callable[[str], Recording] | None = None,
) -> Incident:
    """Every thread of the database and of the effects log, with what resuming it repeats.

    `recording_of`, when given, tells how a thread was recorded (a kill-test manifest beside
    the database, `killtest.recorded.recording_for`): the threads planned in full are planned
    with it, as the Thread page plans them.

    `parse`, when given, is a callable returning the EffectsLog: it runs while the
    database's orphan-write scan runs in a background thread (SQLite and psycopg release
    the GIL while the database works),
    so the CLI parses the log and scans the writes at the same time.
    """
    orphans_box: dict[str, Any] = {}

    def scan() -> None:
        try:
            orphans_box["value"] = orphan_task_ids(source)
        except Exception as exc:  # noqa: BLE001 - reported below, the full route still answers
            orphans_box["error"] = exc

    worker = threading.Thread(target=scan, name="replaylens-orphans", daemon=True)
    worker.start()
    try:
        if parse is not None:
            effects = parse()
        latest = _latest_checkpoints(source)
    finally:
        worker.join()
    orphans: dict[str, set[str]] | None = orphans_box.get("value")
    notes: list[str] = []
    if "error" in orphans_box:
        notes.append(
            f"The orphan-write scan failed ({orphans_box['error']}); every thread was planned in full."
        )
    by_thread = effects._index() if effects is not None else {}
    out: list[ThreadImpact] = []
    for tid in sorted(set(latest) | set(by_thread)):
        out.append(
            _impact_of(
                source,
                effects,
                tid,
                latest.get(tid),
                by_thread.get(tid, []),
                orphans,
                recording_of,
            )
        )
    return Incident(out, effects is not None, notes=notes)


def _impact_of(
    source: CheckpointSource,
    effects: EffectsLog | None,
    tid: str,
    info: _Latest | None,
    lines: list[EffectLine],
    orphans: dict[str, set[str]] | None,
    recording_of: Callable[[str], Recording] | None = None,
) -> ThreadImpact:
    cp = info.checkpoint if info else None
    # (read once: the shortcut's test and the full plan both ask for it)
    recording = functools.cache(lambda: recording_of(tid) if recording_of is not None else None)
    replayed: list[Attempt] | None
    route: Route
    reruns: tuple[str, ...] = ()
    span: tuple[int, int] | None = None
    if info is None:
        status, replayed, route = "needs_restart", _restart(lines), "restart"
        reruns = tuple(t.node for t in restart_tasks(replayed))
    elif (
        not lines
        and info.namespaces == 1
        and not _lost_steps(cp, tid, orphans)
        and not _named_by_recording(cp, recording)
    ):
        # Root tasks only: a subgraph's own due tasks are named by the full plan below.
        status, replayed, route = checkpoint_status(cp), [], "no-lines"
        reruns = tuple(t.label for t in cp.pending_tasks) if cp else ()
        # no line of the thread: whether its due tasks had begun, nothing tells (as
        # `again.what_happens_again` says it)
        span = (0, len(reruns)) if reruns else None
    else:
        replayed = None
        if (
            lines
            and cp is not None
            and not cp.unreadable
            and info.namespaces == 1
            and orphans is not None
        ):
            lost = orphans.get(tid, set()) - {NULL_TASK_ID}
            # A lost step (orphan writes) of an unfinished thread runs again: only a full plan
            # names its tasks, so the shortcut stands aside (its threads are few). So it does
            # for a task the checkpoint does not name: the plan names it from the log (an
            # entrypoint in a store that keeps no task path, LangGraph 0.6).
            unnamed = any(not t.node for t in cp.tasks)
            if (not lost or checkpoint_status(cp) == "completed") and not unnamed:
                replayed = fast_verdicts(lines, cp, lost)
        if replayed is not None and cp is not None:
            status, route = checkpoint_status(cp), "fast"
            reruns = tuple(t.label for t in cp.pending_tasks)
        else:
            status, replayed, reruns, span = _full_plan(source, effects, tid, True, recording())
            route = "plan"
    ts = [iso_to_epoch(cp.ts)] if cp is not None and cp.ts else []
    if lines:
        ts.append(max(line.ts for line in lines))
    known_ts = [t for t in ts if t is not None]
    pids = frozenset(line.pid for line in lines if line.pid is not None)
    last_pid = next((line.pid for line in reversed(lines) if line.pid is not None), None)
    return ThreadImpact(
        thread_id=tid,
        status=status,
        replayed=replayed,
        route=route,
        last_activity=max(known_ts) if known_ts else None,
        latest_step=cp.step if cp else None,
        reruns=reruns,
        error=_error_of(cp),
        pids=pids,
        last_pid=last_pid,
        lines=len(lines),
        tasks_range=span,
    )


def _named_by_recording(cp: Any, recording: Callable[[], Recording | None]) -> bool:
    """Does the checkpoint hold a task nothing names, where the thread's recording names
    nodes (`Recording.named_nodes`: the node a kill was aimed at) that may be its? Only the
    full plan tries them (`align.name_tasks_from_log`), so the shortcut stands aside, and the
    task is named as `replay` names it."""
    if cp is None or not any(not t.node for t in cp.tasks):
        return False
    told = recording()
    return told is not None and bool(told.named_nodes)


# -- choosing the crash ------------------------------------------------------------------------
def select(
    incident: Incident,
    *,
    since: float | None = None,
    until: float | None = None,
    pid: int | None = None,
    latest: bool = False,
    window: float = DEFAULT_WINDOW,
) -> Incident:
    """The threads of one crash. Filters combine: a time window on the last activity, a
    process id of the effects log, and `latest`: the newest crash, i.e. the unfinished
    (resumable, failed, needing restart) threads whose last effect line came from the same
    process as the newest unfinished thread's, or, without pids in the log, whose last
    activity lies within `window` seconds of the newest."""
    chosen = incident.threads
    words: list[str] = []
    if since is not None:
        chosen = [t for t in chosen if t.last_activity is not None and t.last_activity >= since]
        words.append(f"last active at or after {_fmt(since)}")
    if until is not None:
        chosen = [t for t in chosen if t.last_activity is not None and t.last_activity <= until]
        words.append(f"last active at or before {_fmt(until)}")
    if pid is not None:
        chosen = [t for t in chosen if pid in t.pids]
        words.append(f"touched by process {pid}")
    if latest:
        chosen, word = newest_crash(chosen, window)
        words.append(word)
    label = "; ".join(words) if words else incident.selection
    return Incident(chosen, incident.effects_given, label, list(incident.notes))


def newest_crash(
    threads: Iterable[ThreadImpact], window: float = DEFAULT_WINDOW
) -> tuple[list[ThreadImpact], str]:
    """The threads the newest crash left unfinished (see `select`) and how they were chosen."""
    left = [t for t in threads if t.left_by_crash and t.last_activity is not None]
    if not left:
        return [], "the newest crash: no thread was left resumable, failed or needing a restart"
    newest = max(left, key=lambda t: (t.last_activity or 0.0, t.thread_id))
    if newest.last_pid is not None:
        same = [t for t in left if t.last_pid == newest.last_pid]
        return (
            same,
            f"the newest crash: unfinished threads last written by process {newest.last_pid}",
        )
    top = newest.last_activity or 0.0
    near = [t for t in left if (t.last_activity or 0.0) >= top - window]
    return (
        near,
        f"the newest crash: unfinished threads last active within {window:g} s of {_fmt(top)}",
    )


def _fmt(ts: float) -> str:
    return utc_iso(ts)  # beyond the calendar it says the number


# -- exports -----------------------------------------------------------------------------------
def thread_table(incident: Incident) -> list[dict[str, Any]]:
    """One row per thread, as the page, the CSV and the Markdown show it."""
    return [
        {
            "thread_id": t.thread_id,
            "status": t.status,
            "times_again": t.times_again,
            "effects_again": ", ".join(f"{k} x{n}" for k, n in sorted(t.effects_again.items())),
            "reruns": ", ".join(t.reruns),
            "last_activity": _fmt(t.last_activity) if t.last_activity else "",
            "latest_step": t.latest_step,
            "error": (t.error or "")[:200],
            "pids": ", ".join(str(p) for p in sorted(t.pids)),
        }
        for t in incident.threads
    ]


def to_csv(incident: Incident) -> str:
    """The thread table as CSV: every cell a spreadsheet would run as a formula made text."""

    rows = thread_table(incident)
    buf = io.StringIO()
    writer = csv.DictWriter(
        buf, fieldnames=list(rows[0]) if rows else ["thread_id", "status", "times_again"]
    )
    writer.writeheader()
    for row in rows:
        writer.writerow({k: csv_cell(v) for k, v in row.items()})
    return buf.getvalue()


def to_markdown(incident: Incident) -> str:
    """The incident as Markdown: every value from the data inert (code spans, escaped pipes)."""

    out = [f"# Incident: {md(incident.selection)}", "", md_ticks(incident.sentence()), ""]
    impact = incident.impact()
    if impact:
        out += ["| node | effect | times again | threads |", "|---|---|---|---|"]
        out += [
            f"| {md_cell(r.node)} | {md_cell(r.effect)} | {r.times_again} | {r.threads} |"
            for r in impact
        ]
        out.append("")
    keys = incident.keys()
    if keys:
        out += [
            "## Idempotency keys of the repeated effects",
            "",
            "| node | effect | key | times again | threads |",
            "|---|---|---|---|---|",
        ]
        out += [
            f"| {md_cell(k.node)} | {md_cell(k.effect)} | {k.verdict} | {k.times_again} | {k.threads} |"
            for k in keys
        ]
        out.append("")
    out += [
        "## Threads",
        "",
        "| thread | status | times again | effects again | last active |",
        "|---|---|---|---|---|",
    ]
    out += [
        f"| {md_cell(r['thread_id'])} | {r['status']} | {r['times_again']} | {md_cell(r['effects_again'])} | "
        f"{r['last_activity']} |"
        for r in thread_table(incident)
    ]
    return "\n".join(out) + "\n"
