"""The durability what-if: what a crash at the same point of progress would leave under each mode.

This module is the only place that knows the rules of LangGraph's three durability modes.
The CLI's ``what_if`` block, the Thread page timeline, the Resume simulator, the Learn
page and the Kill-test runs page all take their numbers and sentences from here.

The rules, read from the installed LangGraph (langgraph 1.2.x; line numbers drift):

* **The mode.** ``Pregel.stream`` takes ``durability`` (default ``"async"``, from
  ``config["configurable"]["__pregel_durability"]``) and hands it to every subgraph
  through the config (``pregel/main.py``, ``stream``: ``durability = config.get(CONF,
  {}).get(CONFIG_KEY_DURABILITY, "async")`` and "set durability mode for subgraphs").
* **Checkpoints (`put`).** After every superstep ``PregelLoop.after_tick`` calls
  ``_put_checkpoint({"source": "loop"})`` (``pregel/_loop.py``, ``after_tick``); a fresh
  input does the same with ``{"source": "input"}`` in ``_first``. Under ``sync`` and
  ``async`` the checkpoint is submitted to the loop's ``BackgroundExecutor`` through
  ``_checkpointer_put_after_previous``, which first waits for the previous put's future
  (``prev.result()``): **puts of one loop run one after another, in order**, in the
  background (``_put_checkpoint``: "if there's a previous checkpoint save in progress,
  wait for it"). Under ``exit`` ``do_checkpoint`` is false and nothing is submitted.
* **What sync waits for.** Only ``sync`` blocks: after ``after_tick`` the run loop does
  ``if durability_ == "sync": loop._put_checkpoint_fut.result()`` (``pregel/main.py``,
  ``stream``, inside ``while loop.tick()``), so the next superstep starts only once this
  step's checkpoint (and, chained, every earlier one) has landed. The input checkpoint is
  *not* waited for before the first step (the wait follows ``after_tick`` only); the
  first step's checkpoint, chained behind it, is. ``async`` starts the next step at once.
* **Writes (`put_writes`).** ``PregelLoop.put_writes`` (``pregel/_loop.py``) submits
  ``checkpointer.put_writes`` when a task finishes (``_runner.py``, ``commit``), under
  ``sync`` and ``async`` alike (``if self.durability != "exit"``), keyed by the id of the
  checkpoint the step started from. They are *not* chained behind the checkpoint puts and
  no mode waits for them, so a task's writes can land while the checkpoint they hang off
  never does (an orphan write). Under ``exit`` they are only kept in memory.
* **What exit saves.** ``_suppress_interrupt`` (``pregel/_loop.py``), pushed on the
  loop's exit stack, runs when the invocation returns, raises or stops at
  ``interrupt()``; under ``exit`` it calls ``_put_checkpoint(self.checkpoint_metadata)``
  (the last checkpoint the loop built, skipped when it is the one it loaded,
  ``checkpoint_id_saved``) and ``_put_pending_writes`` (the unfinished step's writes:
  ``__error__``, ``__interrupt__``, finished siblings' outputs). A subgraph saves there
  only when it raised or was interrupted, or was compiled with ``checkpointer=True``.
  A SIGKILL runs none of it: nothing of the killed invocation is saved.
* **The end of an invocation.** ``BackgroundExecutor.__exit__`` (``pregel/_executor.py``)
  waits for every submitted future, so when an invocation returns, raises or pauses
  every put it submitted has landed, in every mode. An earlier invocation of the same
  thread (a run that paused at ``interrupt()``, then answered) therefore left all its
  checkpoints (``sync``/``async``) or its one exit checkpoint (``exit``). A subgraph
  invocation has an executor of its own: its puts chain separately from the parent's,
  and its end waits for them.
* **What a resume loads.** The checkpoint with the highest id in the root namespace; it
  re-runs the tasks due there that have no saved writes, and re-enters a subgraph at the
  subgraph's own latest checkpoint when the task that runs it is the same task (the
  parent checkpoint that scheduled it landed). With no checkpoint, ``invoke(None)``
  raises ``EmptyInputError`` and only a restart from the input is possible.

The counterfactual (`what_if`) respects time. The recording is evidence of when tasks ran
(effects-log ``start``/``end`` per attempt), when checkpoints were made (their ``ts``, and
the uuid6 time of the ids that orphan writes name) and which writes landed; it is not
evidence of another mode's schedule. So: the recorded mode's own waits are removed
(under ``sync`` with latency L, each step waited for its put); the steps are re-timed
under the target mode's rule; the crash is mapped to the same point of progress (the
same task attempt, the same time into it, which is how a kill test aims its kill); then
the puts and writes that would have landed by then are counted, and the resume those
leave is worked out task by task. The recorded mode at the recorded latency is the
recording itself. Which inputs were used and which had to be assumed is listed in each
outcome's ``assumptions``.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from replaylens.analysis.attempts import Attempt, effect_counts, effect_list
from replaylens.model import Checkpoint, Namespace, Thread
from replaylens.times import iso_to_epoch

Mode = Literal["sync", "async", "exit"]
MODES: tuple[Mode, ...] = ("sync", "async", "exit")
DEFAULT_LATENCY = 0.25
Ending = Literal["killed", "returned", "raised", "paused"]
TICK = 0.004
"""Seconds between one step's end and the next step's start when nothing is waited for
(apply writes, prepare tasks), as async recordings of the example graphs show."""
WRITE_COST = 0.01
RACE = 0.05
"""Seconds either side of the kill within which a landing write is a race the recording
cannot decide (the kill's own latency: the parent sees the task start, sleeps, signals)."""
"""Seconds a checkpoint write takes beyond the latency (serializing, SQLite's commit): a put
that lands at the very moment of the kill is taken as lost, as the kill tests measure."""

MODE_RULES: dict[Mode, str] = {
    "sync": "each checkpoint is written before the next step starts",
    "async": "checkpoints are written in the background, one after another, while the next step runs",
    "exit": "nothing is written until the invocation returns, raises or pauses at interrupt()",
}
"""One line per mode, for captions, tables and the Learn page."""

MODE_EXPLAINED: dict[Mode, str] = {
    "sync": (
        "LangGraph waits for each step's checkpoint to be written before it starts the next "
        "step. A crash loses at most the step that was running; a slow store slows every step."
    ),
    "async": (
        "Checkpoints are written in the background, one after another, while the next step "
        "already runs (LangGraph's default). On a slow store the newest checkpoints may not have "
        "landed when the process dies, so more steps run again."
    ),
    "exit": (
        "Nothing is written while the invocation runs; the last checkpoint and the pending "
        "writes are saved when it returns, raises or pauses at interrupt(). A kill loses the "
        "whole invocation."
    ),
}
"""A paragraph per mode, for the glossary and the Learn page."""

WHAT_IF_NOTE = (
    "The recorded mode at the recorded latency is the recording; the other modes are a model: "
    "the recorded task timings re-timed under each mode's rule (sync waits for every checkpoint, "
    "async writes them one after another in the background, exit writes nothing until the "
    "invocation ends), with the crash at the same point of progress. Each outcome lists the "
    "inputs it used and what it had to assume."
)

ENDING_WORDS: dict[str, str] = {
    "killed": "crash",
    "returned": "completed",
    "raised": "failed here",
    "paused": "paused for an answer",
}
"""How the end of the last invocation is named on the timeline and in sentences."""


# --------------------------------------------------------------------------- types
@dataclass(frozen=True)
class Recording:
    """What is known of how the evidence was made; a kill-test manifest knows all three."""

    mode: Mode | None = None
    latency: float | None = None
    kill_offset: float | None = None  # seconds into the killed task attempt (kill_delay)
    origin: str = ""
    kill_node: str | None = None  # the node the kill was aimed at; the offset counts from its start

    @property
    def known(self) -> bool:
        return self.mode is not None


@dataclass
class ModeOutcome:
    """What a crash at the recorded point of progress would leave under one durability mode."""

    mode: Mode
    latency: float
    checkpoints_kept: int
    resume_checkpoint_id: str | None
    resume_step: int | None
    reruns: list[dict[str, Any]]
    replayed_lines: list[int]
    replayed_effects: dict[str, int]
    window_start: float | None
    window_end: float | None
    restart: bool
    sentence: str
    as_recorded: bool
    ending: Ending = "killed"
    kept_checkpoint_ids: list[str] = field(default_factory=list)
    lost_checkpoint_ids: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    race: dict[str, Any] = field(
        default_factory=dict
    )  # min/max of each count when the race decides

    @property
    def assumptions(self) -> dict[str, list[str]]:
        return {"used": self.used, "assumed": self.assumed}

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "latency_seconds": self.latency,
            "as_recorded": self.as_recorded,
            "ending": self.ending,
            "checkpoints_kept": self.checkpoints_kept,
            "resume_checkpoint": (
                None
                if self.restart
                else {"checkpoint_id": self.resume_checkpoint_id, "step": self.resume_step}
            ),
            "resume_checkpoint_id": self.resume_checkpoint_id,
            "resume_step": self.resume_step,
            "reruns": self.reruns,
            "replayed_lines": self.replayed_lines,
            "replayed_line_count": len(self.replayed_lines),
            "replayed_effects": self.replayed_effects,
            "window_start": self.window_start,
            "window_end": self.window_end,
            "restart": self.restart,
            "sentence": self.sentence,
            "kept_checkpoint_ids": self.kept_checkpoint_ids,
            "lost_checkpoint_ids": self.lost_checkpoint_ids,
            "assumptions": self.assumptions,
            "race": self.race or None,
        }


@dataclass
class _Step:
    """One superstep of one loop (namespace) in one invocation, on the recorded clock."""

    ns: str  # the namespace with task ids stripped ("sub", not "sub:<id>")
    inv: int
    step: int
    start: float
    end: float | None  # None: still running when the process died
    attempts: list[Attempt] = field(default_factory=list)
    checkpoint: Checkpoint | None = None  # the saved checkpoint made after this step


@dataclass
class _Put:
    ns: str
    inv: int
    step: int
    submit: float  # recorded clock
    checkpoint: Checkpoint | None


@dataclass
class _Evidence:
    """The recording arranged as invocations, steps and puts; built once per thread."""

    steps: list[_Step]
    puts: list[_Put]
    attempts: list[Attempt]
    invocations: int
    ending: Ending
    kill_attempt: Attempt | None
    crash_ts: float | None
    kill_offset: float | None
    used: list[str]
    assumed: list[str]
    db_checkpoints: list[Checkpoint]
    step_of: dict[int, tuple[str, int, int]]  # id(attempt) -> (ns, inv, step)
    container: dict[tuple[str, int], int]  # (nested ns, inv) -> root step that ran it
    killed_earlier: set[int] = field(default_factory=set)  # invocations killed before the last one
    kill_time: float | None = None  # a chosen kill moment on the recorded clock (what_if_at)


# --------------------------------------------------------------------------- evidence
def _strip_ns(ns: str | None) -> str:
    """`sub:1f2e|inner:ab` -> `sub|inner`: task ids change when a step re-runs, names do not."""
    if not ns:
        return ""
    return "|".join(part.split(":")[0] for part in ns.split("|"))


def uuid6_time(checkpoint_id: str) -> float | None:
    """The creation time LangGraph's uuid6 checkpoint ids carry (`checkpoint/base/id.py`)."""
    hexa = checkpoint_id.replace("-", "")
    if len(hexa) != 32 or hexa[12] != "6":
        return None
    try:
        stamp = (int(hexa[:12], 16) << 12) | int(hexa[13:16], 16)
    except ValueError:
        return None
    return (stamp - 0x01B21DD213814000) / 1e7


def _ending(last: list[Attempt], status: str) -> Ending:
    """How the last invocation ended: a task in flight means the process died under it."""
    if any(a.outcome == "in flight" for a in last):
        return "killed"
    if any(a.outcome == "failed" for a in last) or status == "failed":
        return "raised"
    if any(a.outcome == "interrupted" for a in last) or status == "interrupted":
        return "paused"
    if status == "resumable" and not last:
        return "killed"
    return "returned"


def _invocations(attempts: list[Attempt]) -> list[list[Attempt]]:
    """Attempts split into invocations: a new process (the recorder's pid), or a task that
    starts after a pause or a raise has ended the previous invocation."""
    groups: list[list[Attempt]] = []
    current_pid: object = object()
    stopped_at: float | None = None
    for a in sorted(attempts, key=lambda x: x.start_ts):
        new = not groups or (a.pid is not None and a.pid != current_pid)
        if stopped_at is not None and a.start_ts > stopped_at:
            new = True
        if new:
            groups.append([])
            stopped_at = None
        current_pid = a.pid
        groups[-1].append(a)
        if a.outcome in ("interrupted", "failed"):
            stopped_at = a.end_ts if stopped_at is None else min(stopped_at, a.end_ts)
    return groups


def gather(
    thread: Thread | None, attempts: list[Attempt], status: str, recording: Recording
) -> _Evidence:
    """Arrange the recording into invocations, supersteps and checkpoint puts."""
    used: list[str] = []
    assumed: list[str] = []
    db_cps = [c for ns in (thread.namespaces.values() if thread else []) for c in ns.checkpoints]
    groups = _invocations(attempts)
    if attempts:
        used.append(
            f"effects log: {sum(len(a.lines) for a in attempts)} lines in {len(attempts)} task attempts"
        )
    else:
        assumed.append("no effects log lines: task timings come from checkpoint times only")
    if db_cps:
        used.append(f"database: {len(db_cps)} checkpoints with their ts")
    if not groups:
        groups = [[]]
    # The window of each invocation on the clock: from the end of the previous one.
    bounds: list[float] = []
    for i, g in enumerate(groups):
        if i == 0 or not g:
            bounds.append(float("-inf"))
        else:
            prev_end = max(x.end_ts for x in groups[i - 1]) if groups[i - 1] else float("-inf")
            bounds.append(min(prev_end + 0.05, g[0].start_ts))
    stamps = {
        c.checkpoint_id: iso_to_epoch(c.ts) or uuid6_time(c.checkpoint_id) or 0.0 for c in db_cps
    }

    def inv_of(ts: float) -> int:
        return max(i for i, b in enumerate(bounds) if ts >= b) if bounds else 0

    # Known step times per (ns, inv, step): attempts, saved checkpoints, orphan ids.
    step_att: dict[tuple[str, int, int], list[Attempt]] = {}
    step_of: dict[int, tuple[str, int, int]] = {}
    for inv, g in enumerate(groups):
        last_step: dict[str, int] = {}
        for a in g:
            # The recorder's namespace is what the task ran in; alignment may file an attempt
            # whose checkpoint never landed under a namespace of its choosing.
            ns = _strip_ns(a.logged_ns if a.logged_ns is not None else a.namespace)
            step = a.step
            if step is None and a.task is not None:
                step = a.task.step
            if step is None and a.checkpoint is not None and a.checkpoint.step is not None:
                step = a.checkpoint.step + 1
            if step is None:
                step = last_step.get(ns, -1) + 1
                if "steps" not in " ".join(assumed):
                    assumed.append(
                        "some effect lines carry no step: taken as the next step in log order"
                    )
            last_step[ns] = max(step, last_step.get(ns, step))
            key = (ns, inv, step)
            step_att.setdefault(key, []).append(a)
            step_of[id(a)] = key
    cp_at: dict[tuple[str, int, int], Checkpoint] = {}
    for c in db_cps:
        if c.step is None:
            continue
        cp_at[(_strip_ns(c.checkpoint_ns), inv_of(stamps[c.checkpoint_id]), c.step)] = c
    orphan_times: dict[tuple[str, int, int], float] = {}
    orphans = thread.orphan_writes if thread else []
    if orphans:
        used.append(
            f"{len(orphans)} orphan writes: their checkpoint ids date steps whose checkpoints never landed"
        )
    for w in orphans:
        t = uuid6_time(w.checkpoint_id)
        owner = next((a for a in attempts if a.task_id and a.task_id == w.task_id), None)
        if t is None or owner is None or id(owner) not in step_of:
            continue
        ns, inv, step = step_of[id(owner)]
        orphan_times.setdefault((ns, inv, step - 1), t)

    containers = _place_nested(
        step_att, step_of, cp_at, stamps, {_strip_ns(c.checkpoint_ns) for c in db_cps}
    )
    namespaces = sorted(
        {k[0] for k in step_att} | {k[0] for k in cp_at} | {""}, key=lambda n: (n.count("|"), n)
    )
    steps: list[_Step] = []
    puts: list[_Put] = []
    container: dict[tuple[str, int], int] = {}
    for inv in range(len(groups)):
        for ns in namespaces:
            keys = [
                k
                for k in set(step_att) | set(cp_at) | set(orphan_times) | containers
                if k[0] == ns and k[1] == inv
            ]
            if not keys:
                continue
            lo, hi = min(k[2] for k in keys), max(k[2] for k in keys)
            # A loop's first invocation starts from its input checkpoint (step -1); a later
            # one resumes from a checkpoint it loads and puts nothing before its first step.
            fresh = not any(st.ns == ns for st in steps)
            first = -1 if fresh else lo
            prev_end: float | None = None
            for s in range(first, hi + 1):
                key = (ns, inv, s)
                atts = step_att.get(key, [])
                cp = cp_at.get(key)
                known_end = stamps[cp.checkpoint_id] if cp else orphan_times.get(key)
                if atts:
                    start = min(a.start_ts for a in atts)
                    # A step with a failed, paused or killed task never completes: no put follows it.
                    end = (
                        max(a.end_ts for a in atts)
                        if all(a.outcome == "finished" for a in atts)
                        else None
                    )
                    if end is not None and known_end is not None:
                        end = max(end, min(known_end, end + 0.05))
                elif known_end is not None:
                    start, end = (prev_end if prev_end is not None else known_end), known_end
                    inner = _nested_starts(step_att, cp_at, stamps, ns, inv, start, end, namespaces)
                    if inner:  # a step that ran a subgraph starts when the subgraph does
                        start = max(start, min(inner) - TICK)
                else:
                    nxt = [
                        a.start_ts
                        for k, v in step_att.items()
                        if k[0] == ns and k[1] == inv and k[2] > s
                        for a in v
                    ]
                    base = prev_end if prev_end is not None else (min(nxt) if nxt else 0.0)
                    start = base
                    if (
                        s == -1
                        or s == 0
                        and ns == ""
                        or not _has_nested(step_att, ns, inv, base, nxt)
                    ):
                        end = base  # a step without effects, e.g. __start__: it ends at once
                    else:  # a step that ran a subgraph: it starts when the subgraph does
                        end = min(nxt) if nxt else None
                        inner = [
                            a.start_ts
                            for k, v in step_att.items()
                            if k[0].startswith(ns + "|" if ns else "")
                            and k[0] != ns
                            and k[1] == inv
                            for a in v
                            if a.start_ts >= base
                        ]
                        inner += [
                            stamps[c.checkpoint_id]
                            for k, c in cp_at.items()
                            if k[0] != ns
                            and k[0].startswith(ns)
                            and k[1] == inv
                            and stamps[c.checkpoint_id] >= base
                        ]
                        if inner:
                            start = max(base, min(inner) - TICK)
                if s == -1 and atts == []:
                    first_att = [
                        a.start_ts
                        for k, v in step_att.items()
                        if k[0] == ns and k[1] == inv
                        for a in v
                    ]
                    if cp is None and first_att:
                        start = end = min(first_att) - _recorded_lead(recording, hi)
                steps.append(_Step(ns, inv, s, start, end, atts, cp))
                if end is not None:
                    puts.append(_Put(ns, inv, s, end, cp))
                    prev_end = end
                else:
                    break
    # The root step whose time span holds each nested namespace's activity.
    roots = [s for s in steps if s.ns == ""]
    for s in steps:
        if s.ns and (s.ns, s.inv) not in container:
            holder = [
                r
                for r in roots
                if r.inv == s.inv
                and r.start <= s.start + 1e-6
                and (r.end is None or s.start <= r.end + 1e-6)
                and not r.attempts
            ]
            if holder:
                container[(s.ns, s.inv)] = holder[-1].step
    last = groups[-1]
    ending = _ending(last, status)
    in_flight = [a for a in last if a.outcome == "in flight"]
    kill_attempt = max(in_flight, key=lambda a: a.start_ts) if in_flight else None
    line_ts = [line.ts for a in attempts for line in a.lines]
    crash = max(line_ts + list(stamps.values())) if (line_ts or stamps) else None
    kill_offset: float | None = None
    if ending == "killed" and kill_attempt is not None:
        if recording.kill_offset is not None and recording.kill_node not in (
            None,
            kill_attempt.node,
        ):
            assumed.append(
                f"the kill was aimed {recording.kill_offset:g} s after {recording.kill_node} started, "
                f"which logs no effect; the kill moment is taken from the log instead"
            )
        if recording.kill_offset is not None and recording.kill_node in (None, kill_attempt.node):
            kill_offset = recording.kill_offset
            used.append(
                f"kill moment: {kill_offset:g} s into {kill_attempt.node} ({recording.origin or 'given'})"
            )
            crash = max(crash or 0.0, kill_attempt.start_ts + kill_offset)
        else:
            kill_offset = (crash or kill_attempt.start_ts) - kill_attempt.start_ts
            assumed.append(
                f"kill moment: the last recorded line, {kill_offset:.2f} s into {kill_attempt.node} "
                "(the real kill can only be later)"
            )
    if recording.mode is not None:
        used.append(
            f"recorded mode: {recording.mode}"
            + (
                f" at {recording.latency:g} s per checkpoint write"
                if recording.latency is not None
                else ""
            )
            + (f" ({recording.origin})" if recording.origin else "")
        )
    else:
        assumed.append(
            "recorded mode unknown: the gaps between steps are taken as recorded (no write waits removed)"
        )
    assumed.append(
        "put_writes land as soon as a task ends (they are not delayed, chained or waited for)"
    )
    assumed.append(f"a checkpoint write takes {WRITE_COST * 1000:g} ms beyond the latency")
    killed_earlier = {
        i for i, g in enumerate(groups[:-1]) if any(a.outcome == "in flight" for a in g)
    }
    if killed_earlier:
        assumed.append(
            "an earlier invocation was killed: what it left is taken from the database as it stands"
        )
    return _Evidence(
        steps,
        puts,
        attempts,
        len(groups),
        ending,
        kill_attempt,
        crash,
        kill_offset,
        used,
        assumed,
        db_cps,
        step_of,
        container,
        killed_earlier,
    )


def _nested_starts(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
    ns: str,
    inv: int,
    lo: float,
    hi: float,
    namespaces: list[str],
) -> list[float]:
    """When work of namespaces below `ns` began between `lo` and `hi` (attempts, checkpoints).

    Asked once per step: a thread without namespaces below `ns` (most) answers at once
    instead of walking every step again (30,000 steps took a minute)."""
    below = (ns + "|") if ns else ""
    if not any(n != ns and n.startswith(below) for n in namespaces):
        return []
    out = [
        a.start_ts
        for k, v in step_att.items()
        if k[0] != ns and k[0].startswith(below) and k[1] == inv
        for a in v
        if lo <= a.start_ts <= hi
    ]
    out += [
        stamps[c.checkpoint_id]
        for k, c in cp_at.items()
        if k[0] != ns
        and k[0].startswith(below)
        and k[1] == inv
        and lo <= stamps[c.checkpoint_id] <= hi
    ]
    return out


def _place_nested(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    step_of: dict[int, tuple[str, int, int]],
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
    db_namespaces: set[str],
) -> set[tuple[str, int, int]]:
    """The root steps that ran nested work, and functional `@task` calls moved to their loop.

    A line logged under `parent:<id>` is either a subgraph's node (its own loop, steps
    from 1 after the subgraph's `__start__`) or a functional call of the parent task (the
    parent's own step, saved in the parent's namespace). A namespace the database holds
    is a subgraph; otherwise calls carry the step of the root step they ran in.
    """
    containers: set[tuple[str, int, int]] = set()
    groups: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    for key in step_att:
        if key[0]:
            groups.setdefault((key[0], key[1]), []).append(key)
    for (ns, inv), keys in groups.items():
        first = min(a.start_ts for k in keys for a in step_att[k])
        parent = ns.rpartition("|")[0]
        done = [
            k[2]
            for k, v in step_att.items()
            if k[0] == parent
            and k[1] == inv
            and all(a.outcome == "finished" and a.end_ts <= first for a in v)
        ]
        done += [
            k[2]
            for k, c in cp_at.items()
            if k[0] == parent and k[1] == inv and stamps.get(c.checkpoint_id, float("inf")) <= first
        ]
        holder = max(done, default=-1) + 1
        if ns not in db_namespaces and all(k[2] == holder for k in keys):
            for k in keys:  # calls of the parent task: they belong to the parent's step
                moved = (parent, inv, holder)
                for a in step_att.pop(k):
                    step_att.setdefault(moved, []).append(a)
                    step_of[id(a)] = moved
            continue
        containers.add((parent, inv, holder))
    return containers


def _has_nested(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    ns: str,
    inv: int,
    lo: float,
    nxt: list[float],
) -> bool:
    hi = min(nxt) if nxt else float("inf")
    return any(
        k[0].startswith(ns + "|" if ns else "")
        and k[0] != ns
        and k[1] == inv
        and any(lo - 1e-6 <= a.start_ts <= hi for a in v)
        for k, v in step_att.items()
    )


def _recorded_lead(recording: Recording, _hi: int) -> float:
    """Before the first task of a fresh run under recorded sync: input and `__start__` puts."""
    if recording.mode == "sync" and recording.latency:
        return 2 * recording.latency
    return 0.0


# --------------------------------------------------------------------------- re-timing
@dataclass
class _Schedule:
    landed: set[tuple[str, int, int]]
    written: set[int]  # id(attempt) whose writes landed
    crash: float | None


def _gaps(ev: _Evidence) -> list[tuple[float, float, _Put]]:
    """(time the put is submitted, time the next step of that loop starts, the put)."""
    starts = {(s.ns, s.inv, s.step): s.start for s in ev.steps}
    ends = {(s.ns, s.inv, s.step): s.end for s in ev.steps}
    every = sorted(s.start for s in ev.steps)
    out: list[tuple[float, float, _Put]] = []
    for p in ev.puts:
        nxt = starts.get((p.ns, p.inv, p.step + 1))
        if nxt is None and _ends_nested(ev, p):
            # A subgraph's last put: its executor's exit waits for it before the parent's step
            # ends, so the gap runs to the parent step's end (else whatever starts next).
            parent = p.ns.rpartition("|")[0]
            holder = ev.container.get((p.ns, p.inv))
            nxt = ends.get((parent, p.inv, holder)) if holder is not None else None
            if nxt is None:
                later = every[bisect.bisect_right(every, p.submit) :]
                nxt = later[0] if later else None
        out.append((p.submit, nxt if nxt is not None else float("inf"), p))
    return sorted(out, key=lambda g: g[0])


def _ends_nested(ev: _Evidence, p: _Put) -> bool:
    """Is `p` the last put of a subgraph invocation that returned (its parent step went on)?"""
    if not p.ns:
        return False
    mine = [s for s in ev.steps if s.ns == p.ns and s.inv == p.inv]
    return (
        bool(mine) and max(s.step for s in mine) == p.step and all(s.end is not None for s in mine)
    )


def _waited(mode: Mode | None, p: _Put, nxt: float, ev: _Evidence) -> bool:
    """Does the loop wait for this put? sync after every step (not the input); a subgraph's
    end, under sync and async alike, for its last put (BackgroundExecutor.__exit__)."""
    if nxt == float("inf") or mode not in ("sync", "async"):
        return False
    if _ends_nested(ev, p):
        return True
    return mode == "sync" and p.step >= 0


class _Clock:
    """A clock with waits inserted (or removed) at given moments, read in O(log n).

    Waits sit between a step's end and its loop's next step; they never overlap on one
    process's timeline, so a moment is shifted by every wait before it, the last one
    only as far as the moment reaches into it.
    """

    def __init__(self, partial: bool) -> None:
        self.partial = partial
        self.at: list[float] = []
        self.size: list[float] = []
        self.total: list[float] = [0.0]

    def add(self, at: float, size: float) -> None:
        if size <= 0:
            return
        self.at.append(at)
        self.size.append(size)
        self.total.append(self.total[-1] + size)

    def shift(self, t: float) -> float:
        i = bisect.bisect_right(self.at, t)
        if i == 0:
            return 0.0
        if not self.partial:
            return self.total[i]  # a wait inserted at `at` moves everything after it in full
        return self.total[i - 1] + min(self.size[i - 1], t - self.at[i - 1])


def _schedule(
    ev: _Evidence, mode: Mode, latency: float, recording: Recording, slack: float = 0.0
) -> _Schedule:
    """Re-time the recording under `mode` and say what had landed at the same point of progress."""
    gaps = _gaps(ev)
    # 1. Remove the recorded mode's own waits: under sync each put delayed its loop's next
    #    step until it landed (chained behind the previous put), capped by the gap seen.
    removed = _Clock(partial=True)
    if recording.mode in ("sync", "async") and (recording.latency or 0.0) > 0:
        land_rec: dict[tuple[str, int], float] = {}
        for sub, nxt, p in gaps:
            lands = max(sub, land_rec.get((p.ns, p.inv), float("-inf"))) + float(
                recording.latency or 0.0
            )
            land_rec[(p.ns, p.inv)] = lands
            if lands > sub and _waited(recording.mode, p, nxt, ev):
                # The loop waited for this put: all of the gap but the loop's own tick was the wait
                # (the write itself, the thread hand-over), not only the latency.
                removed.add(sub, max(0.0, nxt - sub - TICK))

    def compute(t: float) -> float:
        return t - removed.shift(t)

    # 2. Re-time under the target rule: a sync wait shifts everything after it.
    added = _Clock(partial=False)

    def target(t: float) -> float:
        c = compute(t)
        return c + added.shift(c)

    land: dict[tuple[str, int], float] = {}
    landing: dict[tuple[str, int, int], float] = {}
    if mode != "exit":
        for sub, nxt, p in gaps:
            t = target(sub)
            lands = max(t, land.get((p.ns, p.inv), float("-inf"))) + latency + WRITE_COST
            land[(p.ns, p.inv)] = lands
            landing[(p.ns, p.inv, p.step)] = lands
            if _waited(mode, p, nxt, ev):
                # sync waits after a step, never for the input checkpoint (main.py waits after
                # after_tick only); the first step's put, chained behind it, carries its latency.
                added.add(compute(sub), max(0.0, lands - t))
    # 3. The crash at the same point of progress: the same attempt, the same time into it.
    last_inv = ev.invocations - 1
    crash: float | None = None
    if ev.ending == "killed" and ev.kill_attempt is not None and ev.kill_offset is not None:
        crash = target(ev.kill_attempt.start_ts) + ev.kill_offset + slack
    elif ev.ending == "killed" and ev.kill_time is not None:
        crash = (
            target(ev.kill_time) + slack
        )  # no task in flight is known: the moment itself, re-timed
    landed: set[tuple[str, int, int]] = set()
    written: set[int] = set()
    if mode == "exit":
        landed = _exit_saves(ev)
    else:
        for p in ev.puts:
            key = (p.ns, p.inv, p.step)
            ended = p.inv < last_inv or ev.ending != "killed"
            if p.inv in ev.killed_earlier:
                if (
                    p.checkpoint is not None
                ):  # an earlier kill: what landed is what the database holds
                    landed.add(key)
            elif ended or (crash is not None and landing.get(key, float("inf")) <= crash + 1e-9):
                landed.add(key)
    for a in ev.attempts:
        if a.outcome != "finished":
            continue
        inv = ev.step_of[id(a)][1]
        ended = (inv < last_inv or ev.ending != "killed") and inv not in ev.killed_earlier
        if (
            inv in ev.killed_earlier
            and mode != "exit"
            and a.task is not None
            and a.task.status == "finished"
        ):
            written.add(id(a))
        elif ended or (mode != "exit" and crash is not None and target(a.end_ts) <= crash + 1e-9):
            written.add(id(a))
    return _Schedule(landed, written, crash)


def _exit_saves(ev: _Evidence) -> set[tuple[str, int, int]]:
    """Under exit, each invocation that ended saved its last root checkpoint (if it moved on)."""
    saves: set[tuple[str, int, int]] = set()
    last_inv = ev.invocations - 1
    for inv in range(ev.invocations):
        if (inv == last_inv and ev.ending == "killed") or inv in ev.killed_earlier:
            continue
        done = [p for p in ev.puts if p.ns == "" and p.inv == inv]
        if done:
            saves.add(("", inv, max(p.step for p in done)))
    return saves


# --------------------------------------------------------------------------- resume
def _resume_steps(landed: set[tuple[str, int, int]]) -> dict[str, int]:
    """The step of the latest landed checkpoint per namespace (what a resume loads)."""
    out: dict[str, tuple[int, int]] = {}
    for ns, inv, step in landed:
        if ns not in out or (inv, step) > out[ns]:
            out[ns] = (inv, step)
    return {ns: v[1] for ns, v in out.items()}


def _reruns(ev: _Evidence, sched: _Schedule) -> list[Attempt]:
    """The attempts whose task a resume from what landed would run again."""
    resume = _resume_steps(sched.landed)
    if "" not in resume:
        return list(ev.attempts)
    r = resume[""]
    # Writes belong to the task, not to one attempt of it: a task paused at interrupt() and
    # answered in a later invocation is finished once the answered attempt's writes landed.
    again = {id(a): _runs_again(ev, sched, resume, a, *ev.step_of[id(a)], r) for a in ev.attempts}
    done = {_task_key(a, ev) for a in ev.attempts if not again[id(a)]}
    return [a for a in ev.attempts if again[id(a)] and _task_key(a, ev) not in done]


def _runs_again(
    ev: _Evidence,
    sched: _Schedule,
    resume: dict[str, int],
    a: Attempt,
    ns: str,
    inv: int,
    step: int,
    r: int,
) -> bool:
    if ns == "":
        return step > r + 1 or (step == r + 1 and id(a) not in sched.written)
    holder = ev.container.get((ns, inv))
    if holder is None:
        return True  # its parent step is unknown: assume it runs again
    if holder <= r:
        return False
    if holder > r + 1 or ns not in resume:
        return True  # the subgraph starts over: its parent task is new, or nothing of it landed
    inner = resume[ns]
    return step > inner + 1 or (step == inner + 1 and id(a) not in sched.written)


# --------------------------------------------------------------------------- outcomes
def _task_key(a: Attempt, ev: _Evidence) -> tuple[str, str, int, str]:
    ns, _inv, step = ev.step_of[id(a)]
    return (ns, a.node, step, a.task_id or (a.task.task_id if a.task else ""))


def _rerun_list(replayed: Iterable[Attempt], ev: _Evidence) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str, int, str], dict[str, Any]] = {}
    for a in sorted(replayed, key=lambda x: x.start_ts):
        key = _task_key(a, ev)
        if key not in seen:
            seen[key] = {
                "node": a.node,
                "step": key[2],
                "checkpoint_ns": key[0],
                "task_id": key[3] or None,
            }
    return list(seen.values())


def _outcome(
    mode: Mode,
    latency: float,
    ev: _Evidence,
    replayed: list[Attempt],
    kept_ids: list[str],
    count: int,
    resume_cp: Checkpoint | None,
    resume_step: int | None,
    restart: bool,
    as_recorded: bool,
    used: list[str],
    assumed: list[str],
) -> ModeOutcome:
    lines = sorted(line.line for a in replayed for line in a.lines)
    # Executions, as the sentence counts them (`effect_counts`): two attempts of one task in
    # the log (an interrupted node asked again) are one execution, not two.
    effects: Counter[str] = Counter()
    for per_node in effect_counts(replayed).values():
        effects.update(per_node)
    kept_set = set(kept_ids)
    window = [line.ts for a in replayed for line in a.lines]
    all_ids = [c.checkpoint_id for c in ev.db_checkpoints]
    return ModeOutcome(
        mode=mode,
        latency=latency,
        checkpoints_kept=count,
        resume_checkpoint_id=resume_cp.checkpoint_id if resume_cp else None,
        resume_step=resume_step,
        reruns=_rerun_list(replayed, ev),
        replayed_lines=lines,
        replayed_effects=dict(sorted(effects.items())),
        window_start=min(window) if window and ev.ending == "killed" else None,
        window_end=(ev.crash_ts if window and ev.ending == "killed" else None),
        restart=restart,
        sentence=mode_sentence(
            mode, resume_step, replayed, restart, ev.ending, logged=bool(ev.attempts)
        ),
        as_recorded=as_recorded,
        ending=ev.ending,
        kept_checkpoint_ids=kept_ids,
        lost_checkpoint_ids=[i for i in all_ids if i not in kept_set],
        used=list(used),
        assumed=list(assumed),
    )


def _modelled(
    mode: Mode, latency: float, ev: _Evidence, recording: Recording
) -> tuple[ModeOutcome, _Schedule]:
    sched = _schedule(ev, mode, latency, recording)
    replayed = _reruns(ev, sched)
    resume = _resume_steps(sched.landed)
    restart = "" not in resume
    step = resume.get("")
    cps = {(_strip_ns(c.checkpoint_ns), c.step): c for c in ev.db_checkpoints}
    kept_ids = [
        p.checkpoint.checkpoint_id
        for p in ev.puts
        if (p.ns, p.inv, p.step) in sched.landed and p.checkpoint is not None
    ]
    resume_cp = None if restart else cps.get(("", step))
    assumed = list(ev.assumed)
    if mode != "exit" and latency > 0:
        assumed.append(f"every checkpoint write takes {latency:g} s")
    used = list(ev.used)
    out = _outcome(
        mode,
        latency,
        ev,
        replayed,
        kept_ids,
        len(sched.landed),
        resume_cp,
        step,
        restart,
        False,
        used,
        assumed,
    )
    out.race = _race(ev, mode, latency, recording, out)
    if out.race:
        out.assumed.append(out.race["note"])
    return out, sched


def _race(
    ev: _Evidence, mode: Mode, latency: float, recording: Recording, nominal: ModeOutcome
) -> dict[str, Any]:
    """When a write lands within RACE seconds of the kill, the race decides: say both outcomes."""
    if mode == "exit" or ev.ending != "killed":
        return {}
    seen = [(nominal.checkpoints_kept, len(nominal.reruns), len(nominal.replayed_lines))]
    for slack in (-RACE, RACE):
        sched = _schedule(ev, mode, latency, recording, slack)
        again = _reruns(ev, sched)
        seen.append(
            (len(sched.landed), len(_rerun_list(again, ev)), sum(len(a.lines) for a in again))
        )
    if len(set(seen)) == 1:
        return {}
    spans = {
        key: [min(v[i] for v in seen), max(v[i] for v in seen)]
        for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines"))
    }
    return {
        **spans,
        "note": (
            f"a write lands within {RACE * 1000:g} ms of the kill: the race decides between "
            f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept and "
            f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
        ),
    }


def _recorded(
    mode: Mode, latency: float, ev: _Evidence, thread: Thread | None, attempts: list[Attempt]
) -> ModeOutcome:
    """The recorded mode at the recorded latency: the database and the verdicts as they are."""
    replayed = [a for a in attempts if a.verdict in ("replays", "restart")]
    root = thread.root if thread else None
    latest = root.latest if root else None
    ids = [c.checkpoint_id for c in ev.db_checkpoints]
    return _outcome(
        mode,
        latency,
        ev,
        replayed,
        ids,
        len(ids),
        latest,
        latest.step if latest else None,
        latest is None,
        True,
        ev.used + ["the recorded database and the verdicts, as they stand"],
        [],
    )


def _clamp(outcomes: dict[str, ModeOutcome]) -> None:
    """Enforce what the rules imply at one point of progress: sync keeps at least what async
    keeps, async at least what exit keeps, and each repeats no more than the next one.

    A race in a real recording (a put that happened to land early) can make the recorded
    mode look better than the model of a stricter mode; the stricter mode then takes the
    recorded one's numbers, and says so.
    """
    for stronger, weaker in (("async", "exit"), ("sync", "async"), ("async", "exit")):
        s, w = outcomes[stronger], outcomes[weaker]
        if (
            s.checkpoints_kept >= w.checkpoints_kept
            and len(s.replayed_lines) <= len(w.replayed_lines)
            and len(s.reruns) <= len(w.reruns)
        ):
            continue
        note = (
            f"{stronger} never keeps less than {weaker} at the same point of progress: "
            f"the {{src}} outcome is taken for {{dst}}"
        )
        if s.as_recorded:  # the recording wins over the model of the other mode
            outcomes[weaker] = _copy_as(s, w.mode, w.latency, note.format(src=stronger, dst=weaker))
        else:
            outcomes[stronger] = _copy_as(
                w, s.mode, s.latency, note.format(src=weaker, dst=stronger)
            )


def _copy_as(src: ModeOutcome, mode: Mode, latency: float, note: str) -> ModeOutcome:
    return ModeOutcome(
        mode=mode,
        latency=latency,
        checkpoints_kept=src.checkpoints_kept,
        resume_checkpoint_id=src.resume_checkpoint_id,
        resume_step=src.resume_step,
        reruns=list(src.reruns),
        replayed_lines=list(src.replayed_lines),
        replayed_effects=dict(src.replayed_effects),
        window_start=src.window_start,
        window_end=src.window_end,
        restart=src.restart,
        sentence=src.sentence.replace(f"Under {src.mode},", f"Under {mode},", 1),
        as_recorded=False,
        ending=src.ending,
        kept_checkpoint_ids=list(src.kept_checkpoint_ids),
        lost_checkpoint_ids=list(src.lost_checkpoint_ids),
        used=list(src.used),
        assumed=[*src.assumed, note],
        race=dict(src.race),
    )


def is_recorded(recording: Recording, mode: Mode, latency: float) -> bool:
    """Is (mode, latency) the way the evidence was made? Latency does not matter to exit."""
    if recording.mode != mode:
        return False
    if mode == "exit":
        return True
    return recording.latency is not None and abs(recording.latency - latency) < 1e-9


def what_if(
    thread: Thread | None,
    attempts: list[Attempt],
    latency: float,
    *,
    status: str = "resumable",
    recording: Recording | None = None,
) -> tuple[dict[str, ModeOutcome], float | None]:
    """Each durability mode's outcome at `latency` for the crash (or end) the recording shows."""
    if latency < 0:
        raise ValueError("the checkpoint write latency cannot be negative")
    rec = recording or Recording()
    ev = gather(thread, attempts, status, rec)
    outcomes: dict[str, ModeOutcome] = {}
    for mode in MODES:
        if is_recorded(rec, mode, latency) or (
            latency == 0
            and mode in ("sync", "async")
            and rec.mode in ("sync", "async")
            and is_recorded(rec, rec.mode, 0.0)
        ):
            outcomes[mode] = _recorded(mode, latency, ev, thread, attempts)
        else:
            outcomes[mode] = _modelled(mode, latency, ev, rec)[0]
    if latency == 0 and not outcomes["sync"].as_recorded and not outcomes["async"].as_recorded:
        outcomes["async"] = _copy_as(
            outcomes["sync"], "async", 0.0, "with writes taking no time async is sync"
        )
    if latency == 0 and outcomes["sync"].as_recorded != outcomes["async"].as_recorded:
        src = "sync" if outcomes["sync"].as_recorded else "async"
        other: Mode = "async" if src == "sync" else "sync"
        outcomes[other] = _copy_as(
            outcomes[src], other, 0.0, "with writes taking no time async is sync"
        )
    _clamp(outcomes)
    return outcomes, ev.crash_ts


def what_if_at(
    thread: Thread | None,
    attempts: list[Attempt],
    latency: float,
    at: float,
    *,
    recording: Recording | None = None,
) -> dict[str, ModeOutcome]:
    """Each mode's outcome for a kill at recorded moment `at` (the Learn page's "what if a
    SIGKILL hit here"): the recording is cut at `at`, the task running then is the one killed."""
    if latency < 0:
        raise ValueError("the checkpoint write latency cannot be negative")
    rec = recording or Recording()
    cut: list[Attempt] = []
    for a in attempts:
        lines = [line for line in a.lines if line.ts <= at]
        if lines:
            cut.append(dataclasses.replace(a, lines=lines))
    cut_thread = None
    if thread is not None:
        spaces = {}
        for name, ns in thread.namespaces.items():
            kept = [c for c in ns.checkpoints if (iso_to_epoch(c.ts) or 0.0) <= at]
            spaces[name] = Namespace(name, kept, {c.checkpoint_id: c for c in kept})
        cut_thread = Thread(thread.thread_id, spaces)
    ev = gather(
        cut_thread,
        cut,
        "resumable",
        Recording(rec.mode, rec.latency, None, rec.origin, rec.kill_node),
    )
    ev.kill_time = at
    ev.ending = "killed"
    if ev.kill_attempt is not None:
        ev.kill_offset = at - ev.kill_attempt.start_ts
        ev.crash_ts = at
        ev.assumed = [x for x in ev.assumed if not x.startswith("kill moment")]
        ev.used.append(f"kill moment: chosen, {ev.kill_offset:.2f} s into {ev.kill_attempt.node}")
    outcomes: dict[str, ModeOutcome] = {m: _modelled(m, latency, ev, rec)[0] for m in MODES}
    if latency == 0:
        outcomes["async"] = _copy_as(
            outcomes["sync"], "async", 0.0, "with writes taking no time async is sync"
        )
    _clamp(outcomes)
    return outcomes


def mode_sentence(
    mode: str,
    resume_step: int | None,
    replayed: list[Attempt],
    restart: bool,
    ending: Ending = "killed",
    *,
    logged: bool = True,
) -> str:
    """The one sentence per mode that every page prints.

    `logged`: the effects log has lines for this thread. Without them the sentence says
    that which side effects repeat is unknown, never that none repeats."""
    what = effect_list(replayed)
    if ending == "returned" and not replayed:
        return f"Under {mode}, the run completed: a resume would run nothing."
    if restart:
        start = "no checkpoint would exist: only a restart from the input, which"
    else:
        start = (
            f"a resume would start after step {resume_step if resume_step is not None else '?'} and"
        )
    if not what and not logged:
        return f"Under {mode}, {start} may repeat side effects: no effects-log line of this thread shows which."
    if not what:
        return f"Under {mode}, {start} repeats no recorded side effect."
    return f"Under {mode}, {start} would {what}."
