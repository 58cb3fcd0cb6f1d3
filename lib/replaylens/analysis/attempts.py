"""Effect-log lines grouped into task attempts: one execution of one task in one process.

An attempt is what the effects log saw of a task; `align` says which task of the
checkpoint chain it was, `verdicts` what a resume does with it, and `durability` what
another mode would have left of it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from replaylens.effects.parse import DESCRIBES, EffectLine
from replaylens.effects.repeats import line_place
from replaylens.model import Checkpoint, Task

Verdict = Literal["kept", "replays", "restart", ""]
"""What a resume does with an attempt's effects ("" before it is judged)."""
Alignment = Literal[
    "exact",
    "step",
    "time",
    "parent",
    "after-latest",
    "before-saved",
    "orphaned",
    "call-unsaved",
    "next-graph",
    "none",
]
"""How an attempt was matched with the checkpoint chain."""
LOST_STEP: tuple[Alignment, ...] = ("after-latest", "orphaned", "next-graph")
"""Alignments of an attempt whose step's checkpoint never landed: after the latest one, on
orphan writes, or in a new run of its graph that saved nothing (`align._next_graph`)."""
Pairing = Literal["task_id", "single", "key", "order", "unpaired"]
"""How an attempt's later lines were paired with its `start` line: by task id; as the only
open start of that node in that process; by a shared key (`item`, `invoice_id`); by order
alone, among several open starts the log cannot tell apart (ambiguous); or not at all."""
PAIRING_KEYS_IGNORED = frozenset(
    {"error", "message", "result", "duration", "elapsed", "source", "inferred", "inferred_from"}
    | {"span_id", "parent_span_id", "trace_id", "run_id", DESCRIBES}
)
"""Extra keys that are no business key: a trace's span ids (and a callback's run ids) differ between a task's own
lines and its tools' lines, and say nothing about which start a line belongs to."""
RUN_KEY = "trace_id"
"""The extra key of trace lines that tells one invocation from another (a killed run and its
resume), as `pid` does for `record_effect` lines."""

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
    pairing: Pairing = "single"
    ambiguous: bool = (
        False  # pairing or alignment was chosen among candidates the log cannot tell apart
    )
    ambiguity: str = ""  # why, in words
    task_id_inferred: bool = False
    """`task_id` was not in the log: `align` took it from the orphan write of its node."""
    peers: tuple[int, ...] = ()
    """Start lines of the open attempts of its node the log could not tell apart when a
    later line was paired by order (itself included): which of them is still open, or
    failed, is a guess; how many are is not."""
    run_told: bool = False
    """Its line has no task id, and the database told which of the side-by-side runs of its
    subgraph it ran in (`align._runs_in_order`), not the time alone."""
    superseded_at: float | None = None
    """When the next attempt of the same task started while this one's own closing line had
    not come yet (a trace reports a timed-out attempt's error after its retry's start): the
    attempt had ended by then, since one task runs one attempt at a time."""
    raised_after: str = ""
    """Why its step raised after its lines ended, when the database shows it did
    (`evidence._raised_after_lines`: a `step_timeout`): its task did not complete."""
    may_be_dropped: bool = False
    """It ran in a ``checkpointer=True`` graph whose newest checkpoint is an earlier run's
    end, in a thread run from an earlier checkpoint: whether a resume hands that graph's run
    its input or drops it the database does not tell (`verdicts.judge`); read as running
    again, a guess, and the what-if's range reaches down to it dropped."""
    may_be_cached: bool = False
    """Its node's result is in a node cache that outlives the process, but the resume reaches
    its task only after steps of its own, whose outputs may give it another input
    (`node_cache.CACHE_UNSURE`): read as running again, a guess, and the what-if's range
    reaches down to it served."""
    alone: bool = False
    """Read as a task of its own, never the next effect of the attempt before it: the other
    reading of a log that names no effect (`continues`, `align.split_runs`)."""

    def flag(self, why: str) -> None:
        """Record that a choice about this attempt was a guess, and why."""
        self.ambiguous = True
        self.ambiguity = f"{self.ambiguity}; {why}" if self.ambiguity else why

    @property
    def keys(self) -> dict[str, Any]:
        """Business keys of its start line (any extra key, the effect name, the idempotency key)."""
        first = self.lines[0]
        out = {
            k: v for k, v in first.extra.items() if k not in PAIRING_KEYS_IGNORED and _hashable(v)
        }
        if first.effect is not None:
            out["effect"] = first.effect
        if first.idempotency_key is not None:
            out["idempotency_key"] = first.idempotency_key
        return out

    @property
    def start_ts(self) -> float:
        return self.lines[0].ts

    @property
    def end_ts(self) -> float:
        last = self.lines[-1].ts
        return last if self.superseded_at is None else min(last, self.superseded_at)

    @property
    def outcome(self) -> str:
        """How the task ended, from its own lines when the log has them (a tool's `end`
        inside a killed task is not the task's end), else from the effect's lines."""
        own = [line for line in self.lines if line.describes_task] or self.lines
        for line in reversed(own):
            if line.phase in TERMINAL:
                ended = TERMINAL[line.phase]
                return "failed" if ended == "finished" and self.raised_after else ended
        return "in flight"

    @property
    def outcome_label(self) -> str:
        """The outcome in words for a table: a task whose step raised after its lines ended
        says so, since its log shows it ending."""
        if self.raised_after and self.outcome == "failed":
            return "failed (its lines ended; its step raised after it)"
        return self.outcome

    @property
    def effects(self) -> list[str]:
        """The effects it performed: lines that describe the task itself name none."""
        return sorted({line.label for line in effect_lines(self.lines)})

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
            "pairing": self.pairing,
            "ambiguous": self.ambiguous,
            "ambiguity": self.ambiguity,
            **({"raised_after": self.raised_after} if self.raised_after else {}),
        }


def continues(prev: Attempt | None, a: Attempt) -> bool:
    """Is `a` the next effect of the task `prev` ran (the attempt of its node just before it)?

    One task often logs several effects, one after the other (``draft``, then ``apply``):
    the same node and process, `prev` finished before `a` began, another effect. The same
    effect again is the node run again (a loop, the answer to an interrupt), not the same
    task going on. A log that names no effect (a bare log) cannot tell those apart: lines
    of one process are read as the task going on (a new process is a new invocation)."""
    if prev is None or not (prev.lines and a.lines) or a.alone:
        return False
    named = prev.lines[0].effect is not None or a.lines[0].effect is not None
    return (
        prev.node == a.node
        and prev.pid == a.pid
        and prev.outcome == "finished"
        and prev.end_ts <= a.start_ts
        and prev.task_id == a.task_id
        and (prev.lines[0].effect != a.lines[0].effect if named else prev.pid is not None)
    )


def retries(prev: Attempt | None, a: Attempt) -> bool:
    """Is `a` a `RetryPolicy` retry of the task `prev` ran (the attempt just before it)? The
    same node and process start again right after `prev` failed: `run_with_retry` runs the
    task from its top in the same step (a failure that ends the invocation has no next start
    in its process before another task's)."""
    return (
        prev is not None
        and prev.node == a.node
        and prev.pid == a.pid
        and prev.outcome == "failed"
        and prev.end_ts <= a.start_ts
        and prev.task_id == a.task_id
    )


def effect_lines(lines: list[EffectLine]) -> list[EffectLine]:
    """The lines about an effect a task performed, without the task's own start and end
    lines (a trace's or callbacks' task lines): a task is not an effect of its own name."""
    return [line for line in lines if not line.describes_task]


def times(n: int) -> str:
    """An execution count in words: "once", "2 times"."""
    return "once" if n == 1 else f"{n} times"


def execution_of(a: Attempt) -> Any:
    """What makes attempts one execution: the task they ran (several attempts of one task in
    the log, an interrupted node asked again, are one), else the attempt itself."""
    return a.key or (
        ("task", a.namespace or a.logged_ns or "", a.task_id) if a.task_id else ("attempt", id(a))
    )


def effect_counts(attempts: list[Attempt]) -> dict[str, dict[str, int]]:
    """node -> effect -> how many executions performed it, in the order the log first saw them.

    An execution is one task run (one attempt, or one task when the log holds several
    attempts of it), never a log line: a start and an end line are one execution."""
    tasks: dict[str, dict[str, set[Any]]] = {}
    for a in sorted(attempts, key=lambda x: x.lines[0].line if x.lines else 0):
        who = execution_of(a)
        for label in dict.fromkeys(line.label for line in effect_lines(a.lines)):
            tasks.setdefault(a.node, {}).setdefault(label, set()).add(who)
    return {
        node: {label: len(ids) for label, ids in effects.items()} for node, effects in tasks.items()
    }


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
            parts.append(
                f"{tick(node)} again ({', '.join(f'{tick(label)} {times(n)}' for label, n in named)})"
            )
    return "run " + ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def _hashable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) or value is None


def _line_keys(line: EffectLine) -> dict[str, Any]:
    out = {k: v for k, v in line.extra.items() if k not in PAIRING_KEYS_IGNORED and _hashable(v)}
    if line.effect is not None:
        out["effect"] = line.effect
    if line.idempotency_key is not None:
        out["idempotency_key"] = line.idempotency_key
    return out


def _fits(a: Attempt, keys: dict[str, Any]) -> tuple[bool, bool]:
    """(no shared key disagrees, some shared key agrees) between a line and an attempt."""
    mine = a.keys
    shared = [k for k in keys if k in mine]
    return all(mine[k] == keys[k] for k in shared), bool(shared)


def group_attempts(lines: list[EffectLine], *, newest: bool = False) -> list[Attempt]:
    """Split one thread's lines into attempts: a `start` opens one, other lines join one.

    Parallel tasks of one node (a `Send` fan-out, parallel @task calls) log several
    `start` lines before any `end`; each start is its own attempt. A later line joins an
    open attempt of the same node, namespace, task id, step and process: the only one,
    else the one whose start shares its business keys (`item`, `invoice_id`, ...), else
    the oldest (the newest with `newest`, the other reading the durability model weighs:
    `align.paired_newest`), and then the pairing is marked ambiguous.
    """
    attempts: list[Attempt] = []
    open_by_key: dict[tuple[Any, ...], list[Attempt]] = {}
    last_by_key: dict[tuple[Any, ...], Attempt] = {}
    for line in sorted(lines, key=lambda e: e.line):
        # A namespace logged as LangGraph hands it to the node (`node:<task id>`) or as the
        # recorder writes it (stripped): the attempt keeps the stripped one and the task id.
        place = line_place(line)
        logged_ns = place.checkpoint_ns if line.checkpoint_ns is not None else None
        key = (logged_ns or "", line.node, place.task_id or "", line.pid, line.step,
               line.extra.get(RUN_KEY))  # fmt: skip
        if line.phase == "start" and not line.describes_task:
            # A tool's start inside a task whose own start is in the log: the same execution.
            inside = [a for a in open_by_key.get(key, []) if a.lines[0].describes_task]
            if inside:
                inside[-1].lines.append(line)
                continue
        if line.phase == "start" and (
            twin := _outer_run(line, place.task_id, open_by_key.get(key, []))
        ):
            twin.lines.append(line)  # the same task's run inside its own: one execution
            continue
        if line.phase == "start":
            for before in _own_spans_open(line, place.task_id, open_by_key.get(key, [])):
                if before.superseded_at is None:
                    before.superseded_at = line.ts
            current = Attempt(
                line.thread_id, line.node, logged_ns, line.step, place.task_id, line.pid
            )
            current.pairing = "task_id" if place.task_id else "single"
            current.lines.append(line)
            attempts.append(current)
            open_by_key.setdefault(key, []).append(current)
            last_by_key[key] = current
            continue
        late = [a for a in _own_spans_open(line, place.task_id, open_by_key.get(key, []))
                if a.superseded_at is not None]  # fmt: skip
        current = late[0] if late else _pair(line, open_by_key.get(key, []), newest)
        if current is None and key in last_by_key and _fits(last_by_key[key], _line_keys(line))[0]:
            current = last_by_key[key]
        if current is None:
            current = Attempt(
                line.thread_id, line.node, logged_ns, line.step, place.task_id, line.pid
            )
            current.pairing = "unpaired"
            attempts.append(current)
            last_by_key[key] = current
        current.lines.append(line)
        if line.phase in TERMINAL and current in open_by_key.get(key, []):
            # A tool's end inside a task leaves the task open; the task's own end closes it.
            if line.describes_task or not current.lines[0].describes_task:
                open_by_key[key].remove(current)
    _close_peer_classes(attempts)
    return attempts


def _close_peer_classes(attempts: list[Attempt]) -> None:
    """Give every attempt the whole class of starts it cannot be told from. Pairing by order
    is a guess each time two or more starts are open, and the sets those guesses span overlap
    as starts close and open (5 and 6 open, then 6 and 8): an end line paired with 6 might be
    5's, and 8's with 6's, so which of 5, 6 and 8 is still open is one guess, not two."""
    by_start = {a.lines[0].line: a for a in attempts if a.peers}
    for a in by_start.values():
        todo, seen = list(a.peers), set(a.peers)
        while todo:
            other = by_start.get(todo.pop())
            for line in other.peers if other is not None else ():
                if line not in seen:
                    seen.add(line)
                    todo.append(line)
        a.peers = tuple(sorted(seen))


NESTED_RUN = 0.05
"""Seconds: how soon after a task span's start a second start of the same task is a run inside
it, not a retry (a retry begins once an attempt failed or timed out)."""


def _outer_run(line: EffectLine, task_id: str | None, open_: list[Attempt]) -> Attempt | None:
    """The open attempt whose span this task span start is nested in: a node whose function
    has the node's name (a raw `Pregel` node built with ``NodeBuilder().do(one)``) reports a
    run for the task and one inside it for the function, at once, both closing at its end
    (start, start, end, end). Written so by a trace writer that does not drop the inner run."""
    if not (task_id and line.describes_task):
        return None
    fresh = [
        a
        for a in open_
        if a.lines[0].describes_task
        and len(a.lines) == 1
        and 0 <= line.ts - a.start_ts < NESTED_RUN
    ]
    return fresh[-1] if fresh else None


def _own_spans_open(line: EffectLine, task_id: str | None, open_: list[Attempt]) -> list[Attempt]:
    """The open attempts `line` (a task's own span line, with its task id) may close or
    supersede, oldest first. One task runs one attempt at a time, so a second start of a task
    whose first attempt is still open in a trace is its retry, and the first closing line
    that comes next is the first attempt's (LangGraph reports a timed-out attempt's error
    after the retry's start): paired in order, no guess. Effect lines nest (an effect inside
    another of the same task), so only task span lines are paired this way."""
    if not (task_id and line.describes_task):
        return []
    return [a for a in open_ if a.lines[0].describes_task]


def _pair(line: EffectLine, candidates: list[Attempt], newest: bool = False) -> Attempt | None:
    """The open attempt a non-start line belongs to (see `group_attempts`)."""
    keys = _line_keys(line)
    fitting = [(a, agrees) for a in candidates for ok, agrees in [_fits(a, keys)] if ok]
    if not fitting:
        return None  # no open start of this node carries its keys: its start line is not in the log
    if len(fitting) == 1:
        return fitting[0][0]
    agreeing = [a for a, agrees in fitting if agrees]
    if len(agreeing) == 1:
        agreeing[0].pairing = "key"
        return agreeing[0]
    pool = agreeing or [a for a, _ in fitting]
    chosen = pool[-1] if newest else pool[0]
    if len(pool) > 1:
        chosen.pairing = "order"
        starts = ", ".join(str(a.lines[0].line) for a in pool)
        peers = tuple(sorted({*(a.lines[0].line for a in pool), *chosen.peers}))
        for a in pool:  # the ones left open are as much a guess as the one chosen
            a.peers = tuple(sorted({*a.peers, *peers}))
            a.flag(
                f"line {line.line} ({line.phase}) was paired with the {'newest' if newest else 'oldest'} of the open `{line.node}` starts "
                f"(lines {starts}): the log has no key that tells them apart"
            )
    return chosen


def number_attempts(attempts: list[Attempt]) -> None:
    seen: Counter[tuple[Any, ...]] = Counter()
    for a in sorted(attempts, key=lambda x: x.start_ts):
        key = a.key or ("unaligned", a.node, a.task_id, a.step)
        seen[key] += 1
        a.attempt = seen[key]


def same_task(a: Attempt, b: Attempt) -> bool:
    """Could `b` be `a` started again (the same node, loop and task, where the log says)?"""
    return (
        a.node == b.node
        and a.logged_ns == b.logged_ns
        and (a.task_id is None or b.task_id is None or a.task_id == b.task_id)
        and (a.step is None or b.step is None or a.step == b.step)
    )


def retried_in_step(attempts: list[Attempt]) -> dict[int, Attempt]:
    """Failed attempts LangGraph retried inside their step (`RetryPolicy`), each mapped to
    the attempt that retried it.

    `run_with_retry` (`pregel/_retry.py`) runs the task again in the same process, in the
    same superstep, before the step ends: the retry is the same task started again by the
    same pid after the failure and before any task of a later step of that process. A
    failure that ends the invocation (no policy, or the attempts exhausted) has no such
    successor: the next start of that task is in a later invocation, most often a new
    process."""
    ordered = sorted(attempts, key=lambda x: x.start_ts)
    out: dict[int, Attempt] = {}
    for i, a in enumerate(ordered):
        if a.outcome != "failed":
            continue
        for b in ordered[i + 1 :]:
            if b.pid != a.pid:
                continue
            if b.start_ts < a.end_ts - 1e-6:
                continue  # a sibling running alongside
            if same_task(a, b):
                out[id(a)] = b
            break  # the next start of this process after the failure decides
    return out
