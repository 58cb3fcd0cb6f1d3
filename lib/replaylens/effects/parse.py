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
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from replaylens.errors import EffectsLogError
from replaylens.times import iso_to_epoch

MAX_LINE_BYTES = 1 << 20  # 1 MiB: a line longer than this is not an effect record
KNOWN_KEYS = frozenset(
    {"thread_id", "node", "phase", "ts", "step", "task_id", "checkpoint_ns", "pid", "idempotency_key", "effect"}
)
MAX_PROBLEMS_LISTED = 200


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

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "line": self.line, "thread_id": self.thread_id, "node": self.node, "phase": self.phase,
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

    _by_thread: dict[str, list[EffectLine]] | None = field(default=None, repr=False, compare=False)

    def _index(self) -> dict[str, list[EffectLine]]:
        """Lines per thread, built once: the Threads page asks for every thread in turn."""
        if self._by_thread is None:
            index: dict[str, list[EffectLine]] = {}
            for e in self.lines:
                index.setdefault(e.thread_id, []).append(e)
            self._by_thread = index
        return self._by_thread

    def for_thread(self, thread_id: str) -> list[EffectLine]:
        return list(self._index().get(thread_id, ()))

    @property
    def thread_ids(self) -> list[str]:
        return sorted(self._index())


def parse_ts(value: Any) -> float | None:
    """Epoch seconds (int/float, or a numeric string) or ISO-8601 (naive means UTC)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
        return iso_to_epoch(value)
    return None


def _bounded_lines(fh: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """Yield (line number, bytes), or (line number, None) for a line over the limit."""
    number = 0
    while True:
        chunk = fh.readline(MAX_LINE_BYTES + 1)
        if not chunk:
            return
        number += 1
        if len(chunk) > MAX_LINE_BYTES and not chunk.endswith(b"\n"):
            while chunk and not chunk.endswith(b"\n"):  # drain the rest of the long line
                chunk = fh.readline(MAX_LINE_BYTES)
            yield number, None
            continue
        yield number, chunk


def _opt(obj: dict[str, Any], key: str, types: tuple[type, ...], where: str, problems: list[str]) -> Any:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, types):
        problems.append(f"{where}: '{key}' should be {types[0].__name__}, got {type(value).__name__}; ignored.")
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
            return None, [f"{where}: '{key}' must be a non-empty string, got {json.dumps(value)[:60]}."]
    ts = parse_ts(obj["ts"])
    if ts is None:
        return None, [f"{where}: 'ts' must be epoch seconds or an ISO-8601 time, got {json.dumps(obj['ts'])[:60]}."]
    step = _opt(obj, "step", (int,), where, problems)
    pid = _opt(obj, "pid", (int,), where, problems)
    key = obj.get("idempotency_key")
    line = EffectLine(
        line=number, thread_id=thread_id, node=node, phase=phase, ts=ts, step=step,
        task_id=_opt(obj, "task_id", (str,), where, problems),
        checkpoint_ns=_opt(obj, "checkpoint_ns", (str,), where, problems),
        pid=pid,
        idempotency_key=str(key) if key is not None and not isinstance(key, dict | list) else None,
        effect=_opt(obj, "effect", (str,), where, problems),
        extra={k: v for k, v in obj.items() if k not in KNOWN_KEYS},
    )
    return line, problems


FUTURE_SLACK = 86_400.0  # a day of clock skew is tolerated before a time counts as future


def _timestamp_problems(lines: list[EffectLine], name: str) -> list[str]:
    """Future times and times that go backwards within one task's lines: kept, but said."""
    import time as _time

    out: list[str] = []
    limit = _time.time() + FUTURE_SLACK
    last: dict[tuple[str, int | None, str, str | None], EffectLine] = {}
    for e in lines:
        if e.ts > limit:
            out.append(f"{name} line {e.line}: 'ts' is in the future ({e.ts:.0f}); kept, ordered by line number.")
        # Parallel tasks of one process interleave legitimately; one task's lines may not.
        key = (e.thread_id, e.pid, e.node, e.task_id)
        prev = last.get(key)
        if prev is not None and e.ts < prev.ts:
            out.append(
                f"{name} line {e.line}: 'ts' is earlier than line {prev.line} of the same task; "
                "kept, ordered by line number."
            )
        last[key] = e
    return out


def _fast_line(obj: Any, number: int) -> EffectLine | None:
    """The common case, checked with plain type tests in straight-line code (a million lines
    must parse in seconds); anything unusual returns None and takes parse_record."""
    if type(obj) is not dict:
        return None
    get = obj.get
    tid, node, phase, ts = get("thread_id"), get("node"), get("phase"), get("ts")
    if not (type(tid) is str and tid and type(node) is str and node and type(phase) is str and phase):
        return None
    if type(ts) is not float and type(ts) is not int:
        return None
    step, task_id, ns, pid, effect, key = (
        get("step"), get("task_id"), get("checkpoint_ns"), get("pid"), get("effect"), get("idempotency_key")
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
    known = 4 + (step is not None) + (task_id is not None) + (ns is not None) + (pid is not None) + (
        effect is not None) + (key is not None)
    extra: dict[str, Any] = {}
    if len(obj) != known:  # extra keys (or explicit nulls): the rare, slower path
        extra = {k: obj[k] for k in obj.keys() - KNOWN_KEYS}
    return EffectLine(number, tid, node, phase, float(ts), step, task_id, ns, pid, key, effect, extra)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """A million new objects would make the cyclic collector rescan the growing heap again
    and again; none of them can form a cycle, so collection waits until the log is read."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _loads(raw: bytes) -> Any:
    """orjson (several times faster on a million lines); the standard library decides the
    rare line orjson refuses (e.g. an integer beyond 64 bits), so no valid JSON is lost."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


def read_effects(path: str | os.PathLike[str]) -> EffectsLog:
    """Read the whole log; bad lines are reported by number and skipped."""
    p = Path(path)
    if not p.exists():
        raise EffectsLogError(f"{p}: no such effects log.")
    if p.is_dir():
        raise EffectsLogError(f"{p}: is a folder, not an effects log (JSON Lines file).")
    lines: list[EffectLine] = []
    problems: list[str] = []
    bad = 0
    try:
        fh = open(p, "rb")  # noqa: SIM115 - closed below; binary keeps line limits exact
    except OSError as exc:
        raise EffectsLogError(f"{p}: cannot be read ({exc.strerror}).") from exc
    with fh, _gc_paused():
        for number, raw in _bounded_lines(fh):
            if raw is None:
                bad += 1
                problems.append(f"{p.name} line {number}: longer than {MAX_LINE_BYTES // 1024} KiB; skipped.")
                continue
            try:
                obj = _loads(raw)
            except (ValueError, RecursionError):
                if raw.strip():
                    bad += 1
                    problems.append(f"{p.name} line {number}: is not valid JSON; skipped.")
                continue
            line = _fast_line(obj, number)
            if line is None:
                line, issues = parse_record(obj, number, f"{p.name} line {number}")
                problems.extend(issues)
                if line is None:
                    bad += 1
                    continue
            lines.append(line)
        problems.extend(_timestamp_problems(lines, p.name))  # still inside the GC pause
    if len(problems) > MAX_PROBLEMS_LISTED:
        hidden = len(problems) - MAX_PROBLEMS_LISTED
        problems = problems[:MAX_PROBLEMS_LISTED] + [f"... and {hidden} more problems in {p.name}."]
    return EffectsLog(str(p), lines, problems, bad)


def strip_optional(log: EffectsLog) -> EffectsLog:
    """The same log as a hand-written one: only thread_id, node, phase, ts and pid."""
    return EffectsLog(
        log.path,
        [EffectLine(e.line, e.thread_id, e.node, e.phase, e.ts, pid=e.pid) for e in log.lines],
        list(log.problems),
        log.bad_lines,
    )
