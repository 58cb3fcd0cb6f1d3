"""Parse an effects log: JSON Lines, one side effect event per line.

Required keys: `thread_id`, `node`, `phase` (`start`, `end`, `error`, or any word), `ts`
(epoch seconds or ISO-8601). Optional: `step`, `task_id`, `checkpoint_ns`, `pid`,
`idempotency_key`, `effect`; any other key is kept in `extra`. A bad line is reported
with its number and skipped; the good lines still load. Lines longer than
`MAX_LINE_BYTES` are skipped without being held in memory.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice, repeat
from operator import attrgetter, le
from pathlib import Path
from typing import IO, Any

import orjson

from replaylens.effects import traces
from replaylens.effects.durable import DESCRIBES, OWN_THREAD_UNDER
from replaylens.errors import EffectsLogError
from replaylens.times import parse_ts

MAX_LINE_BYTES = 1 << 20  # 1 MiB: a line longer than this is not an effect record
MAX_PROBLEMS_LISTED = 200
SOURCE_SAMPLE = 1000  # lines at each end whose `source` tells a log converted from a trace
READ_BYTES = 1 << 17  # the file is read in blocks this big: a batch of lines stays in the CPU cache


@dataclass(slots=True)
class EffectLine:
    line: int  # 1-based line number in the file
    thread_id: str
    node: str
    phase: str
    ts: float  # epoch seconds
    step: int | None = None
    task_id: str | None = None
    checkpoint_ns: str | None = None
    pid: int | None = None
    idempotency_key: str | None = None
    effect: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """What the line did, in the user's words: the effect name, else the node."""
        return self.effect or self.node

    @property
    def describes_task(self) -> bool:
        """A line about the task itself (its start, end, error or interrupt, as traces and
        callbacks see it), not about an effect it performed: it names no effect of its own."""
        return self.effect is None and self.extra.get(DESCRIBES) == "task"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "line": self.line,
            "thread_id": self.thread_id,
            "node": self.node,
            "phase": self.phase,
            "ts": self.ts,
        }
        for key in ("step", "task_id", "checkpoint_ns", "pid", "idempotency_key", "effect"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out.update(self.extra)
        return out


@dataclass
class EffectsLog:
    path: str
    lines: list[EffectLine]
    problems: list[str] = field(default_factory=list)
    bad_lines: int = 0
    source: str = "effects log"
    """What the file is, in words: "effects log", or the trace format and setup it came from."""
    notes: list[str] = field(default_factory=list)
    """Sentences about how the file was read (the trace format sniffed, spans mapped)."""
    limits: list[str] = field(default_factory=list)
    """What this evidence cannot show, in sentences (a trace cannot show a killed task)."""

    _by_thread: dict[str, list[EffectLine]] | None = field(default=None, repr=False, compare=False)
    _last_by_pid: dict[int, float] | None = field(default=None, repr=False, compare=False)

    def last_ts_of(self, pid: int) -> float | None:
        """When process `pid` wrote its last line of the file (any thread's), or None."""
        if self._last_by_pid is None:
            last: dict[int, float] = {}
            for e in self.lines:
                if e.pid is not None and e.ts > last.get(e.pid, float("-inf")):
                    last[e.pid] = e.ts
            self._last_by_pid = last
        return self._last_by_pid.get(pid)

    def _index(self) -> dict[str, list[EffectLine]]:
        """Lines per thread, built once: the Threads page asks for every thread in turn.

        A line of a graph a task ran on a thread of its own (`OWN_THREAD_UNDER`) names the
        caller's thread but is none of its lines: a resume of that thread never runs it."""
        if self._by_thread is None:
            index: dict[str, list[EffectLine]] = {}
            for e in self.lines:
                if e.extra and OWN_THREAD_UNDER in e.extra:
                    continue
                index.setdefault(e.thread_id, []).append(e)
            self._by_thread = index
        return self._by_thread

    def for_thread(self, thread_id: str) -> list[EffectLine]:
        return list(self._index().get(thread_id, ()))

    def line_counts(self) -> dict[str, int]:
        """How many lines each thread has (as `for_thread` gives them)."""
        return {tid: len(lines) for tid, lines in self._index().items()}

    @property
    def thread_ids(self) -> list[str]:
        return sorted(self._index())


def _line_batches(fh: IO[bytes]) -> Iterator[tuple[int, list[bytes] | None]]:
    """Yield (number of the first line, the lines as read, newline included) per block read;
    the lines are None for one line over MAX_LINE_BYTES. BytesIO.readlines splits a block
    with memchr, far faster than a readline per line. The limit still holds: a line is
    dropped once it outgrows it, so no more than MAX_LINE_BYTES and two blocks are held."""
    number = 1
    pending = b""  # the start of a line that the blocks read so far do not finish
    while block := fh.read(READ_BYTES):
        lines = io.BytesIO(pending + block).readlines()
        pending = b"" if lines[-1].endswith(b"\n") else lines.pop()
        yield from _within_limit(number, lines)
        number += len(lines)
        if len(pending) > MAX_LINE_BYTES:
            yield number, None
            number += 1
            pending = _rest_after_line(fh)
    # Lines left after a long one was skipped, and a last line without a newline.
    yield from _within_limit(number, io.BytesIO(pending).readlines())


def _within_limit(number: int, lines: list[bytes]) -> Iterator[tuple[int, list[bytes] | None]]:
    """The lines as one batch, or, when some are over MAX_LINE_BYTES, cut around those."""
    if not lines:
        return
    if max(map(len, lines)) <= MAX_LINE_BYTES:
        yield number, lines
        return
    start = 0
    for i, raw in enumerate(lines):
        if len(raw) - raw.endswith(b"\n") > MAX_LINE_BYTES:
            if start < i:
                yield number + start, lines[start:i]
            yield number + i, None
            start = i + 1
    if start < len(lines):
        yield number + start, lines[start:]


def _rest_after_line(fh: IO[bytes]) -> bytes:
    """Read to the end of the current line without keeping it; return what follows it."""
    while block := fh.read(READ_BYTES):
        end = block.find(b"\n")
        if end >= 0:
            return block[end + 1 :]
    return b""


def _opt(
    obj: dict[str, Any], key: str, types: tuple[type, ...], where: str, problems: list[str]
) -> Any:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, types):
        problems.append(
            f"{where}: '{key}' should be {types[0].__name__}, got {type(value).__name__}; ignored."
        )
        return None
    return value


def parse_record(obj: Any, number: int, where: str) -> tuple[EffectLine | None, list[str]]:
    """One decoded JSON value -> an EffectLine, or the reasons it is not one."""
    problems: list[str] = []
    if not isinstance(obj, dict):
        return None, [f"{where}: is not a JSON object."]
    missing = [k for k in ("thread_id", "node", "phase", "ts") if k not in obj]
    if missing:
        return None, [f"{where}: missing required key(s) {', '.join(missing)}."]
    thread_id, node, phase = obj["thread_id"], obj["node"], obj["phase"]
    if isinstance(thread_id, int) and not isinstance(thread_id, bool):
        thread_id = str(thread_id)
    for key, value in (("thread_id", thread_id), ("node", node), ("phase", phase)):
        if not isinstance(value, str) or not value:
            return None, [
                f"{where}: '{key}' must be a non-empty string, got {json.dumps(value)[:60]}."
            ]
    ts = parse_ts(obj["ts"])
    if ts is None:
        return None, [
            f"{where}: 'ts' must be epoch seconds or an ISO-8601 time, got {json.dumps(obj['ts'])[:60]}."
        ]
    step = _opt(obj, "step", (int,), where, problems)
    pid = _opt(obj, "pid", (int,), where, problems)
    key = obj.get("idempotency_key")
    line = EffectLine(
        line=number,
        thread_id=thread_id,
        node=node,
        phase=phase,
        ts=ts,
        step=step,
        task_id=_opt(obj, "task_id", (str,), where, problems),
        checkpoint_ns=_opt(obj, "checkpoint_ns", (str,), where, problems),
        pid=pid,
        idempotency_key=str(key) if key is not None and not isinstance(key, dict | list) else None,
        effect=_opt(obj, "effect", (str,), where, problems),
        extra={k: v for k, v in obj.items() if k not in KNOWN_KEYS},
    )
    return line, problems


FUTURE_SLACK = 86_400.0  # a day of clock skew is tolerated before a time counts as future


_TS = attrgetter("ts")
_TASK = attrgetter("thread_id", "pid", "node", "task_id")


def _timestamp_problems(lines: list[EffectLine], name: str) -> list[str]:
    """Future times and times that go backwards within one task's lines: kept, but said."""
    import time as _time

    limit = _time.time() + FUTURE_SLACK
    start = _first_suspect(list(map(_TS, lines)), limit)
    if start is None:
        return []
    out: list[str] = []
    # Parallel tasks of one process interleave legitimately; one task's lines may not.
    last = dict(zip(map(_TASK, islice(lines, start)), islice(lines, start), strict=True))
    rest = lines[start:]
    for e, key in zip(rest, map(_TASK, rest), strict=True):
        if e.ts > limit:
            out.append(
                f"{name} line {e.line}: 'ts' is in the future ({e.ts:.0f}); kept, ordered by line number."
            )
        prev = last.get(key)
        if prev is not None and e.ts < prev.ts:
            out.append(
                f"{name} line {e.line}: 'ts' is earlier than line {prev.line} of the same task; "
                "kept, ordered by line number."
            )
        last[key] = e
    return out


def _first_suspect(times: list[float], limit: float) -> int | None:
    """Index of the first line the per-task check must look at, None when none: the first
    time not at or after the one before it (NaN included), or, before that, the first in
    the future. Up to there times never go back, so no task's can, and being sorted they
    let bisect find the future ones: a log written in time order costs no loop per line."""
    in_order = list(map(le, times, islice(times, 1, None)))
    try:
        sorted_up_to = in_order.index(False) + 1
    except ValueError:
        sorted_up_to = len(times)
    start = bisect_right(times, limit, 0, sorted_up_to)
    return start if start < len(times) else None


def _fast_line(obj: Any, number: int) -> EffectLine | None:
    """The common case, checked with plain type tests in straight-line code (a million lines
    must parse in seconds); anything unusual returns None and takes parse_record."""
    if type(obj) is not dict:
        return None
    get = obj.get
    tid, node, phase, ts = get("thread_id"), get("node"), get("phase"), get("ts")
    if not (
        type(tid) is str and tid and type(node) is str and node and type(phase) is str and phase
    ):
        return None
    if type(ts) is not float and type(ts) is not int:
        return None
    step, task_id, ns, pid, effect, key = (
        get("step"),
        get("task_id"),
        get("checkpoint_ns"),
        get("pid"),
        get("effect"),
        get("idempotency_key"),
    )
    if (
        (step is not None and type(step) is not int)
        or (task_id is not None and type(task_id) is not str)
        or (ns is not None and type(ns) is not str)
        or (pid is not None and type(pid) is not int)
        or (effect is not None and type(effect) is not str)
        or (key is not None and type(key) is not str)
    ):
        return None
    known = (
        4
        + (step is not None)
        + (task_id is not None)
        + (ns is not None)
        + (pid is not None)
        + (effect is not None)
        + (key is not None)
    )
    extra: dict[str, Any] = {}
    if len(obj) != known:  # extra keys (or explicit nulls), in file order as parse_record has them
        extra = {k: v for k, v in obj.items() if k not in KNOWN_KEYS}
    try:
        when = float(ts)
    except OverflowError:
        return None  # parse_record names the line
    return EffectLine(number, tid, node, phase, when, step, task_id, ns, pid, key, effect, extra)


# The fields of EffectLine after `line`, and the types the fast path takes for each.
_FIELDS = (
    "thread_id",
    "node",
    "phase",
    "ts",
    "step",
    "task_id",
    "checkpoint_ns",
    "pid",
    "idempotency_key",
    "effect",
)
KNOWN_KEYS = frozenset(_FIELDS)
"""The keys an effect line may carry besides extras: the fields of EffectLine."""
_STR, _OPT_STR, _OPT_INT = (
    frozenset({str}),
    frozenset({str, type(None)}),
    frozenset({int, type(None)}),
)
_TYPES = (
    _STR,
    _STR,
    _STR,
    frozenset({float, int}),
    _OPT_INT,
    _OPT_STR,
    _OPT_STR,
    _OPT_INT,
    _OPT_STR,
    _OPT_STR,
)
_DICT = frozenset({dict})


def _fast_batch(numbers: Sequence[int], objs: list[Any]) -> list[EffectLine] | None:
    """A (non-empty) batch of decoded lines, checked and built a column at a time: each
    step is one C-level pass (map, set) over the batch, not Python code per line, which is
    what lets a million lines load in seconds. The fields are popped out of the dicts, so
    what is left in each is its `extra`, in file order. None when any line is unusual (not
    an object, a field missing or of another type); the dicts are spoilt by then."""
    if not _DICT.issuperset(map(type, objs)):
        return None
    # orjson gives every dict the same str object for a key name; popping by that object
    # matches by identity, where the module's own "thread_id" would be compared as text.
    names = {k: k for k in objs[0]}
    columns = [list(map(dict.pop, objs, repeat(names.get(k, k)), repeat(None))) for k in _FIELDS]
    for column, types in zip(columns, _TYPES, strict=True):
        if not _all_of(types, column):
            return None
    if not (all(columns[0]) and all(columns[1]) and all(columns[2])):  # empty strings
        return None
    try:
        columns[3] = list(map(float, columns[3]))  # an int time is a float one, as parse_ts has it
    except OverflowError:
        return None  # an integer too large for a float: line by line names it
    extras = map(dict.copy, objs)  # a compact copy: the popped dict keeps its full-size table
    return list(map(EffectLine, numbers, *columns, extras))


def _all_of(types: frozenset[type], column: list[Any]) -> bool:
    """Whether every value in the column is of one of the types. "".join checks that all
    are str in C several times faster than a type() call per value, so it goes first."""
    if str in types:
        try:
            "".join(column)
        except TypeError:
            pass
        else:
            return True
    return types.issuperset(map(type, column))


def _read_batch(
    number: int, raws: list[bytes], name: str, lines: list[EffectLine], problems: list[str]
) -> int:
    """Decode and build one batch of lines onto `lines`; return how many were bad. One
    orjson call per line, all from map (C), then _fast_batch. When a line fails either, the
    batch goes line by line, so that the bad line is named and the others still load."""
    numbers: Sequence[int] = range(number, number + len(raws))
    if b"\n" in raws:  # blank lines are skipped without a word, as line by line
        numbers = [n for n, raw in zip(numbers, raws, strict=True) if raw != b"\n"]
        raws = [raw for raw in raws if raw != b"\n"]
        if not raws:
            return 0
    try:
        objs = list(map(orjson.loads, raws))
    except (ValueError, RecursionError):
        return sum(
            _read_one(raw, n, name, lines, problems) for n, raw in zip(numbers, raws, strict=True)
        )
    built = _fast_batch(numbers, objs)
    if built is None:
        objs = list(map(orjson.loads, raws))  # afresh: _fast_batch has taken the dicts apart
        return sum(
            _build_one(obj, n, name, lines, problems) for n, obj in zip(numbers, objs, strict=True)
        )
    lines.extend(built)
    return 0


def _read_one(
    raw: bytes, number: int, name: str, lines: list[EffectLine], problems: list[str]
) -> int:
    """One line, exactly as read (newline included), onto `lines`: 1 if it is bad, else 0."""
    try:
        obj = _loads(raw)
    except (ValueError, RecursionError):
        if raw.strip():
            problems.append(f"{name} line {number}: is not valid JSON; skipped.")
            return 1
        return 0
    return _build_one(obj, number, name, lines, problems)


def _build_one(
    obj: Any, number: int, name: str, lines: list[EffectLine], problems: list[str]
) -> int:
    """One decoded line onto `lines`: 1 if it is not an effect record, else 0."""
    line = _fast_line(obj, number)
    if line is None:
        line, issues = parse_record(obj, number, f"{name} line {number}")
        problems.extend(issues)
        if line is None:
            return 1
    lines.append(line)
    return 0


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """A million new objects would make the cyclic collector rescan the growing heap again
    and again; none of them can form a cycle, so collection waits until the log is read.
    Then all tracked objects move to the oldest generation (freeze, then unfreeze: two list
    splices): else the next young collections would each traverse the million lines, some
    0.3 s each. Full collections still see them, and any other young garbage, as before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:  # never unfreeze what the application froze
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


def _loads(raw: bytes) -> Any:
    """orjson (several times faster on a million lines); the standard library decides the
    rare line orjson refuses (e.g. an integer beyond 64 bits), so no valid JSON is lost."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


READ_AHEAD_BYTES = 512 << 20


def _read_ahead(fh: IO[bytes]) -> None:
    """Ask the kernel to start reading the file now, in the background, while the first
    blocks are parsed (0.3 s of a cold 1M-line log). A hint only: nothing is written, and
    a platform or file that does not take it is read as before."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return
    with contextlib.suppress(OSError, ValueError):
        advise(fh.fileno(), 0, READ_AHEAD_BYTES, os.POSIX_FADV_WILLNEED)


def read_effects(path: str | os.PathLike[str]) -> EffectsLog:
    """Read the whole log; bad lines are reported by number and skipped.

    A trace (OTLP, LangSmith, Langfuse, gzip or zstd compressed; see
    `replaylens.effects.traces`) is recognised and read as the effects-log lines it gives;
    the log's `source`, `notes` and `limits` say what it was and what it cannot show."""
    p = Path(path)
    if not p.exists():
        raise EffectsLogError(f"{p}: no such effects log.")
    if p.is_dir():
        raise EffectsLogError(f"{p}: is a folder, not an effects log (JSON Lines file).")
    try:
        fh = open(p, "rb")  # noqa: SIM115 - closed below; binary keeps line limits exact
    except OSError as exc:
        raise EffectsLogError(f"{p}: cannot be read ({exc.strerror}).") from exc
    with fh:
        try:
            sniffed = traces.sniff(fh, p.name)
            if sniffed.format != "effects":
                return _from_trace(p, traces.read_trace(sniffed, p.name))
        except traces.TraceError as exc:
            raise EffectsLogError(str(exc)) from None
        except OSError as exc:
            raise EffectsLogError(f"{p}: cannot be read ({exc.strerror or exc}).") from exc
        if sniffed.data is not None:  # a compressed effects log
            log = _read_stream(io.BytesIO(sniffed.data), p)
            log.source = f"effects log, {sniffed.compression}-compressed"
            return log
        fh.seek(0)
        return _read_stream(fh, p)


def _read_stream(fh: IO[bytes], p: Path) -> EffectsLog:
    lines: list[EffectLine] = []
    problems: list[str] = []
    bad = 0
    with _gc_paused():
        _read_ahead(fh)
        for number, raws in _line_batches(fh):
            if raws is None:
                bad += 1
                problems.append(
                    f"{p.name} line {number}: longer than {MAX_LINE_BYTES // 1024} KiB; skipped."
                )
                continue
            bad += _read_batch(number, raws, p.name, lines, problems)
        problems.extend(_timestamp_problems(lines, p.name))  # still inside the GC pause
    log = EffectsLog(str(p), lines, _capped(problems, p.name), bad)
    log.notes.extend(_own_thread_notes(lines))
    # A log converted from a trace cannot show what the trace could not: its lines say so.
    sampled = lines[:SOURCE_SAMPLE] + lines[-SOURCE_SAMPLE:]
    sources = {e.extra.get("source") for e in sampled if e.extra}
    if sources - {None}:
        log.limits = traces.limits_of(sources)
    return log


def _capped(problems: list[str], name: str) -> list[str]:
    if len(problems) > MAX_PROBLEMS_LISTED:
        hidden = len(problems) - MAX_PROBLEMS_LISTED
        problems = problems[:MAX_PROBLEMS_LISTED] + [f"... and {hidden} more problems in {name}."]
    return problems


def _from_trace(p: Path, trace: Any) -> EffectsLog:
    """The effects log a trace gives: its records numbered in time order, checked as lines."""
    lines: list[EffectLine] = []
    problems = list(trace.problems)
    for number, record in enumerate(trace.records, 1):
        line, issues = parse_record(record, number, f"{p.name} (trace) line {number}")
        problems.extend(issues)
        if line is not None:
            lines.append(line)
    notes = [*trace.notes, *_own_thread_notes(lines)]
    return EffectsLog(
        str(p), lines, _capped(problems, p.name), trace.bad, trace.source, notes, trace.limits
    )


def _own_thread_notes(lines: list[EffectLine]) -> list[str]:
    """A sentence on the lines left out of their thread (`OWN_THREAD_UNDER`), if any."""
    marked = [e for e in lines if e.extra and OWN_THREAD_UNDER in e.extra]
    if not marked:
        return []
    nodes = sorted({e.node for e in marked})
    shown = ", ".join(nodes[:5]) + (f" and {len(nodes) - 5} more" if len(nodes) > 5 else "")
    return [
        f"{len(marked)} line(s) (nodes {shown}) are of a graph that a task ran on a thread of "
        "its own: the trace names the calling task's thread for them (LangChain hands its run "
        "metadata down), but a resume of that thread never runs them, so they are not counted "
        "as its lines. The graph's own thread keeps its checkpoints."
    ]


def strip_optional(log: EffectsLog, keep: tuple[str, ...] = ()) -> EffectsLog:
    """The same log as a hand-written one: only thread_id, node, phase, ts and pid, plus
    the extra keys named in `keep` (a business key such as `item` or `invoice_id`)."""
    return EffectsLog(
        log.path,
        [
            EffectLine(
                e.line,
                e.thread_id,
                e.node,
                e.phase,
                e.ts,
                pid=e.pid,
                extra={k: e.extra[k] for k in keep if k in e.extra},
            )
            for e in log.lines
        ],
        list(log.problems),
        log.bad_lines,
    )
