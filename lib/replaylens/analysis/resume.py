"""The resume plan: where a resume starts, which tasks re-run, which side effects happen twice.

Effect lines are grouped into task *attempts* (one execution of one task in one
process), each attempt is aligned with the task of the checkpoint chain it belongs to,
and gets a verdict about a resume from the database as it stands:

- `kept`: its task's writes are durable under the checkpoint a resume loads; it will not
  run again.
- `replays`: its task runs again from its first line (in flight, failed, interrupted,
  writes orphaned, or its superstep's checkpoint never landed).
- `restart`: the thread has no checkpoint; `invoke(None)` raises `EmptyInputError`, so
  only a restart from the input is possible and every effect happens again.

Alignment is exact when lines carry `task_id` (as `record_effect` writes them), by
superstep when they carry `step`, and by node name, order and time otherwise.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from replaylens.analysis.status import STATUS_EXPLAINED, thread_status
from replaylens.effects.parse import EffectLine, EffectsLog
from replaylens.model import Checkpoint, Namespace, Task, Thread, WriteRecord
from replaylens.times import iso_to_epoch

MODES = ("sync", "async", "exit")
DEFAULT_LATENCY = 0.25
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
    alignment: str = "none"  # exact | step | time | parent | after-latest | orphaned | none
    verdict: str = ""
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


@dataclass
class ModeOutcome:
    """What a crash at the recorded instant would leave under one durability mode (a model)."""

    mode: str
    checkpoints_kept: int
    resume_checkpoint_id: str | None
    resume_step: int | None
    replayed_lines: list[int]
    replayed_effects: dict[str, int]
    window_start: float | None
    window_end: float | None
    restart: bool
    sentence: str
    modelled: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "checkpoints_kept": self.checkpoints_kept,
            "resume_checkpoint_id": self.resume_checkpoint_id,
            "resume_step": self.resume_step,
            "replayed_lines": self.replayed_lines,
            "replayed_line_count": len(self.replayed_lines),
            "replayed_effects": self.replayed_effects,
            "window_start": self.window_start,
            "window_end": self.window_end,
            "restart": self.restart,
            "sentence": self.sentence,
            "modelled": self.modelled,
        }


@dataclass
class ResumePlan:
    thread_id: str
    status: str
    resume_checkpoint: Checkpoint | None
    subgraph_resumes: list[Checkpoint]
    reruns: list[tuple[str, Task]]
    reused: list[tuple[str, Task]]
    orphan_writes: list[WriteRecord]
    attempts: list[Attempt]
    effects_given: bool
    duplicates: list[list[Attempt]] = field(default_factory=list)
    idempotency_findings: list[str] = field(default_factory=list)
    what_if: dict[str, ModeOutcome] = field(default_factory=dict)
    latency: float = DEFAULT_LATENCY
    crash_ts: float | None = None
    backend: dict[str, Any] = field(default_factory=dict)  # kind, label, Postgres synchronous_commit
    # Finished tasks that today's LangGraph would run again anyway: it migrates a pre-v3
    # checkpoint's channel names, hashes other task ids and so finds none of their writes.
    today_reruns: list[tuple[str, Task]] = field(default_factory=list)
    generation: dict[str, Any] | None = None

    @property
    def effects(self) -> list[dict[str, Any]]:
        rows = [
            {"line": line.line, "node": line.node, "phase": line.phase, "verdict": a.verdict,
             "effect": line.effect, "attempt": a.attempt, "ts": line.ts}
            for a in self.attempts
            for line in a.lines
        ]
        return sorted(rows, key=lambda r: r["line"])

    @property
    def replayed_lines(self) -> list[int]:
        return sorted(line.line for a in self.attempts if a.verdict in ("replays", "restart") for line in a.lines)

    def verdict_sentence(self) -> str:
        """One plain sentence for the incident channel."""
        replay = [a for a in self.attempts if a.verdict in ("replays", "restart")]
        if self.status == "needs_restart":
            what = _effect_list(replay)
            return (
                "No checkpoint exists for this thread: invoke(None) raises EmptyInputError, so only a "
                f"restart from the input is possible{', and it will ' + what + ' again' if what else ''}."
            )
        if self.status == "completed" and not replay:
            return "This thread completed; a resume would run nothing."
        if not self.effects_given:
            names = ", ".join(sorted({t.node for _, t in self.reruns})) or "nothing"
            return f"Resuming this thread re-runs {names}; give an effects log to see which side effects repeat."
        if not replay:
            return "Resuming this thread repeats no recorded side effect."
        return f"Resuming this thread will {_effect_list(replay)} again."

    def to_json(self) -> dict[str, Any]:
        cp = self.resume_checkpoint
        return {
            "thread_id": self.thread_id,
            "status": self.status,
            "status_explained": STATUS_EXPLAINED.get(self.status, ""),
            "verdict": self.verdict_sentence(),
            "resume_checkpoint": (
                {"checkpoint_id": cp.checkpoint_id, "step": cp.step, "checkpoint_ns": cp.checkpoint_ns}
                if cp else None
            ),
            "subgraph_resumes": [
                {"checkpoint_id": c.checkpoint_id, "step": c.step, "checkpoint_ns": c.checkpoint_ns}
                for c in self.subgraph_resumes
            ],
            "reruns": [_task_json(ns, t) for ns, t in self.reruns],
            "reused": [_task_json(ns, t) for ns, t in self.reused],
            "orphan_writes": [
                {"checkpoint_ns": w.checkpoint_ns, "checkpoint_id": w.checkpoint_id, "task_id": w.task_id,
                 "task_path": w.task_path, "channel": w.channel}
                for w in self.orphan_writes
            ],
            "effects": [
                {k: r[k] for k in ("line", "node", "phase", "verdict")} for r in self.effects
            ] if self.effects_given else None,
            "attempts": [a.to_json() for a in self.attempts],
            "duplicates": [[a.to_json() for a in group] for group in self.duplicates],
            "idempotency": self.idempotency_findings,
            "crash_ts": self.crash_ts,
            "backend": self.backend,
            "generation": self.generation,
            "today_reruns": [
                {**_task_json(ns, t), "today_task_id": t.today_task_id} for ns, t in self.today_reruns
            ],
            "what_if": {
                "latency_seconds": self.latency,
                "note": WHAT_IF_NOTE,
                "modes": {m: o.to_json() for m, o in self.what_if.items()},
            },
        }

    def to_markdown(self, links: dict[str, str] | None = None) -> str:
        from replaylens.report import plan_markdown

        return plan_markdown(self, links or {})


WHAT_IF_NOTE = (
    "A model, not a recording: it replays the recorded checkpoint and effect timestamps under each "
    "mode's write rule (sync: every checkpoint lands before the next step; async: each checkpoint "
    "lands after the given write latency, one after another; exit: nothing of the crashed "
    "invocation is saved)."
)


def _task_json(ns: str, t: Task) -> dict[str, Any]:
    return {"node": t.node, "task_id": t.task_id, "status": t.status, "checkpoint_ns": ns, "kind": t.kind}


def _effect_list(attempts: list[Attempt]) -> str:
    counts = Counter(label for a in attempts for label in a.effects)
    if not counts:
        return ""
    parts = [
        f"run `{name.replace('`', chr(39))}`" + (f" ({n} lines)" if n > 1 else "")
        for name, n in sorted(counts.items())
    ]
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


# -- grouping ---------------------------------------------------------------------------
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


# -- alignment --------------------------------------------------------------------------
class _Index:
    def __init__(self, thread: Thread) -> None:
        self.thread = thread
        self.by_task_id: dict[str, list[tuple[str, Checkpoint, Task]]] = defaultdict(list)
        for ns in thread.namespaces.values():
            for cp in ns.checkpoints:
                for task in cp.tasks:
                    self.by_task_id[task.task_id].append((ns.name, cp, task))
        self.orphan_task_ids = {w.task_id for w in thread.orphan_writes}
        self.calls_used: dict[str, int] = {}
        # Nodes known anywhere, and inside subgraphs only: asked for every unmatched attempt.
        self.all_nodes = _nodes_of(thread, exclude_root=False)
        self.subgraph_nodes = _nodes_of(thread, exclude_root=True)
        self.lineages: dict[str, list[Checkpoint]] = {}
        self.lineage_ids: dict[str, set[str]] = {}
        self.epochs: dict[str, float | None] = {}
        for ns in thread.namespaces.values():
            latest = ns.latest
            chain = ns.lineage(latest.checkpoint_id) if latest else []
            self.lineages[ns.name] = chain
            self.lineage_ids[ns.name] = {c.checkpoint_id for c in chain}
            for c in ns.checkpoints:
                self.epochs[c.checkpoint_id] = iso_to_epoch(c.ts)


def _parent_task_id(logged_ns: str | None) -> str | None:
    if not logged_ns:
        return None
    last = logged_ns.split("|")[-1]
    _, sep, tid = last.rpartition(":")
    return tid if sep else None


def _align_exact(a: Attempt, idx: _Index) -> bool:
    entries = idx.by_task_id.get(a.task_id or "")
    if not entries:
        return False
    preferred = [e for e in entries if a.logged_ns is None or e[0] == a.logged_ns] or entries
    a.namespace, a.checkpoint, a.task = preferred[0]
    a.alignment = "exact"
    _name_call(a.task, a.node, idx)
    return True


def _name_call(task: Task, node: str, idx: _Index) -> None:
    """A functional @task call is known from its writes only, without its name: the effect
    line that ran it names it."""
    if task.kind == "call" and task.node == "?":
        task.node = node
        idx.all_nodes.add(node)


def _call_order(task: Task) -> tuple[int, ...]:
    return tuple(int(p) for p in task.path.split(", ") if p.isdigit())


def _next_call(a: Attempt, cp: Checkpoint, idx: _Index) -> Task | None:
    """Hand-written logs of functional-API runs: the calls a checkpoint recorded, in call
    order, are matched to the attempts of nodes it does not know, in time order."""
    calls = sorted((t for t in cp.tasks if t.kind == "call" and not t.derived), key=_call_order)
    used = idx.calls_used.setdefault(cp.checkpoint_id, 0)
    if used >= len(calls):
        return None
    idx.calls_used[cp.checkpoint_id] = used + 1
    _name_call(calls[used], a.node, idx)
    return calls[used]


def _align_step(a: Attempt, idx: _Index) -> bool:
    ns_name = a.logged_ns if a.logged_ns in idx.thread.namespaces else ""
    ns = idx.thread.namespaces.get(ns_name or "")
    if ns is None or a.step is None:
        return False
    candidates = [
        (c, t) for c in ns.checkpoints if c.step is not None and c.step + 1 == a.step
        for t in c.tasks if t.node == a.node
    ]
    on_lineage = [(c, t) for c, t in candidates if c.checkpoint_id in idx.lineage_ids[ns.name]]
    chosen = (on_lineage or candidates)
    if not chosen:
        latest = ns.latest
        if latest is not None and latest.step is not None and a.step > latest.step:
            a.namespace, a.alignment = ns.name, "after-latest"
            return True
        return False
    a.namespace = ns.name
    a.checkpoint, a.task = chosen[-1]
    a.alignment = "step"
    return True


def _align_time(a: Attempt, idx: _Index) -> bool:
    """Hand-written logs: the latest checkpoint before the attempt started, per namespace."""
    order = sorted(idx.lineages, key=lambda n: (n != "", n))
    for ns_name in order:
        chain = idx.lineages[ns_name]
        # A task's first line always follows the creation of the checkpoint it started from.
        before = [c for c in chain if (idx.epochs.get(c.checkpoint_id) or 0) <= a.start_ts]
        if not before:
            if chain and chain[0].source != "input" and ns_name == "":
                # The first saved checkpoint is not the run's start (exit mode saves one
                # checkpoint when the invocation ends, stamped with the save time).
                first = chain[0]
                task = next((t for t in first.tasks if t.node == a.node), None)
                if task is not None:
                    a.namespace, a.checkpoint, a.task, a.alignment = ns_name, first, task, "time"
                else:
                    a.namespace, a.alignment = ns_name, "before-saved"
                return True
            continue
        cp = before[-1]
        task = next((t for t in cp.tasks if t.node == a.node), None)
        if task is None and ns_name == "" and a.node not in idx.all_nodes:
            task = _next_call(a, cp, idx)
        if task is None and len(before) > 1:
            prev = before[-2]
            if a.start_ts - (idx.epochs.get(cp.checkpoint_id) or 0) <= TIME_SLACK:
                task = next((t for t in prev.tasks if t.node == a.node), None)
                cp = prev if task is not None else cp
        if task is not None:
            a.namespace, a.checkpoint, a.task, a.alignment = ns_name, cp, task, "time"
            return True
        if cp is chain[-1] and ns_name == "" and a.node not in idx.subgraph_nodes:
            # It ran after the newest checkpoint landed, in a step that never got one.
            a.namespace, a.alignment = ns_name, "after-latest"
            return True
    return False


def _nodes_of(thread: Thread, *, exclude_root: bool) -> set[str]:
    return {
        t.node for ns in thread.namespaces.values() if not (exclude_root and ns.name == "")
        for c in ns.checkpoints for t in c.tasks
    }


def align(attempts: list[Attempt], thread: Thread) -> None:
    idx = _Index(thread)
    for a in attempts:
        if a.task_id and _align_exact(a, idx):
            continue
        if a.task_id and a.task_id in idx.orphan_task_ids:
            a.alignment = "orphaned"
            continue
        if a.task_id:
            parent = idx.by_task_id.get(_parent_task_id(a.logged_ns) or "")
            if parent:
                a.namespace, a.checkpoint, a.task = parent[0]
                a.alignment = "parent"
                continue
            # A task id no saved checkpoint knows: either the checkpoint it started from was
            # never saved but a later one was (exit mode), or its step never got one.
            latest = thread.root.latest if thread.root else None
            if a.step is not None and latest is not None and latest.step is not None and a.step <= latest.step:
                a.alignment = "before-saved"
            else:
                a.alignment = "after-latest"
            continue
        if a.step is not None and _align_step(a, idx):
            continue
        _align_time(a, idx)
    _number_attempts(attempts)


def _number_attempts(attempts: list[Attempt]) -> None:
    seen: Counter[tuple[Any, ...]] = Counter()
    for a in sorted(attempts, key=lambda x: x.start_ts):
        key = a.key or ("unaligned", a.node, a.task_id, a.step)
        seen[key] += 1
        a.attempt = seen[key]


# -- verdicts ---------------------------------------------------------------------------
def _resumed_namespaces(thread: Thread) -> dict[str, Checkpoint]:
    """Namespaces a resume enters, with the checkpoint it loads in each."""
    out: dict[str, Checkpoint] = {}
    root = thread.root
    if root is None or root.latest is None:
        return out
    frontier: list[Namespace] = [root]
    while frontier:
        ns = frontier.pop()
        latest = ns.latest
        if latest is None:
            continue
        out[ns.name] = latest
        for task in latest.tasks:
            if task.status == "finished":
                continue
            child = f"{ns.name}|{task.node}:{task.task_id}" if ns.name else f"{task.node}:{task.task_id}"
            if child in thread.namespaces:
                frontier.append(thread.namespaces[child])
    return out


def _judge(a: Attempt, thread: Thread, resumed: dict[str, Checkpoint], idx_lineage: dict[str, set[str]]) -> None:
    if a.alignment == "orphaned":
        a.verdict, a.reason = "replays", "its writes are orphaned: the checkpoint they hang off never landed"
        return
    if a.alignment == "after-latest":
        a.verdict, a.reason = "replays", "its superstep's checkpoint never landed, so the step runs again"
        return
    if a.alignment == "before-saved":
        a.verdict, a.reason = "kept", (
            "its superstep completed: the checkpoint it started from was not saved, but a later one holds its result"
        )
        return
    if a.checkpoint is None or a.task is None:
        replay = thread_status(thread) != "completed"
        a.verdict = "replays" if replay else "kept"
        a.reason = "not aligned with any checkpoint; " + (
            "assumed to run again (the thread is unfinished)" if replay else "the thread completed"
        )
        return
    ns = a.namespace or ""
    if ns not in resumed:
        a.verdict, a.reason = "kept", "its (sub)graph run completed inside a step that is durable"
        return
    latest = resumed[ns]
    if a.checkpoint.checkpoint_id == latest.checkpoint_id:
        status = a.task.status
        if a.alignment == "parent":
            # Finished calls have writes and align exactly; this one has no saved result.
            a.verdict = "replays"
            a.reason = "the task that called it runs again and this call has no saved result"
            return
        if status == "finished":
            a.verdict, a.reason = "kept", "its writes are saved against the checkpoint a resume loads, and reused"
        else:
            words = {"failed": "it failed", "interrupted": "it stopped at interrupt() and re-runs to get its answer",
                     "pending": "it was in flight when the process died"}[status]
            a.verdict, a.reason = "replays", f"{words}; its task runs again from its first line"
        return
    if a.checkpoint.checkpoint_id in idx_lineage.get(ns, set()):
        a.verdict, a.reason = "kept", "its superstep completed and a later checkpoint holds its result"
        return
    a.verdict, a.reason = "kept", "it ran on a branch (fork) that the resume does not follow"


def _find_duplicates(attempts: list[Attempt]) -> list[list[Attempt]]:
    groups: dict[tuple[Any, ...], list[Attempt]] = defaultdict(list)
    for a in attempts:
        key = a.key
        if key is None and a.task_id:
            key = ("task", a.task_id)
        if key is not None:
            groups[key].append(a)
    dups = []
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda x: x.start_ts)
        for a in group:
            a.duplicate = True
        finished = [a for a in group if a.outcome == "finished"]
        task = group[0].task
        if task is not None and task.output_writes and finished:
            # Ordinary writes are INSERT OR IGNORE: the first attempt to finish keeps its rows.
            for a in group:
                a.won = a is finished[0]
        dups.append(group)
    return dups


def _idempotency(attempts: list[Attempt]) -> list[str]:
    findings: list[str] = []
    by_task: dict[tuple[Any, ...], list[Attempt]] = defaultdict(list)
    for a in attempts:
        by_task[a.key or ("task", a.task_id, a.node, a.step)].append(a)
    for group in by_task.values():
        keys_per_attempt = [
            {(line.label, line.idempotency_key) for line in a.lines if line.idempotency_key} for a in group
        ]
        if len(group) > 1:
            by_effect: dict[str, set[str]] = defaultdict(set)
            for keys in keys_per_attempt:
                for effect, key in keys:
                    by_effect[effect].add(key)
            for effect, keys in sorted(by_effect.items()):
                if len(keys) > 1:
                    lines = sorted(line.line for a in group for line in a.lines if line.label == effect)
                    findings.append(
                        f"`{effect}` used {len(keys)} different idempotency keys across {len(group)} attempts "
                        f"of one task (lines {', '.join(map(str, lines))}): the key is generated inside the "
                        "node, so deduplication never engages. Derive it from the thread id, step and a "
                        "business id."
                    )
    operations: dict[str, set[tuple[Any, ...]]] = defaultdict(set)
    where: dict[str, list[int]] = defaultdict(list)
    for a in attempts:
        op_task = a.key or (a.node, a.step)
        for line in a.lines:
            if line.idempotency_key:
                operations[line.idempotency_key].add((line.label, op_task[1:] if a.key else op_task))
                where[line.idempotency_key].append(line.line)
    for key, ops in sorted(operations.items()):
        labels = {op[0] for op in ops}
        if len(ops) > 1 and (len(labels) > 1 or len({op[1] for op in ops}) > 1):
            findings.append(
                f"Idempotency key {key[:16]}… is shared by {len(ops)} different operations "
                f"({', '.join(sorted(labels))}; lines {', '.join(map(str, sorted(set(where[key]))))}): the "
                "downstream service will treat the second as a repeat and silently drop it. Add the "
                "business id to the key."
            )
    return findings


# -- what-if ----------------------------------------------------------------------------
def _invocation_boundary(chain: list[Checkpoint]) -> int:
    """Index of the checkpoint the crashed invocation started from (exit keeps what precedes)."""
    for i in range(len(chain) - 1, -1, -1):
        cp = chain[i]
        if cp.source == "input":
            return i
        if i < len(chain) - 1 and any(w.channel in ("__interrupt__", "__resume__") for w in cp.writes):
            return i
    return 0


def _exit_saves(chain: list[Checkpoint], kept: int) -> int:
    """Checkpoints exit mode would hold: one per invocation that ended (returned or paused)."""
    ends = {i - 1 for i, cp in enumerate(chain) if cp.source == "input" and i > 0}
    ends |= {
        i for i, cp in enumerate(chain[:-1])
        if any(w.channel in ("__interrupt__", "__resume__") for w in cp.writes)
    }
    return len([i for i in ends if i <= kept])


def _root_index(a: Attempt, thread: Thread, chain_pos: dict[str, int], n: int) -> int | None:
    """Position in the root lineage of the checkpoint whose step this attempt belongs to."""
    if a.alignment in ("after-latest", "orphaned"):
        return n
    if a.alignment == "before-saved":
        return -1 if n == 0 else 0
    if a.checkpoint is None:
        return None
    ns = a.namespace or ""
    if ns == "":
        return chain_pos.get(a.checkpoint.checkpoint_id)
    # A subgraph attempt belongs to the step of the root task that ran the subgraph.
    first = ns.split("|")[0]
    parent_tid = first.rpartition(":")[2]
    root = thread.root
    if root is None:
        return None
    for cp in root.checkpoints:
        if any(t.task_id == parent_tid for t in cp.tasks):
            return chain_pos.get(cp.checkpoint_id)
    return None


def what_if(thread: Thread | None, attempts: list[Attempt], latency: float) -> tuple[dict[str, ModeOutcome], float | None]:
    chain = thread.root and thread.root.latest and thread.root.lineage(thread.root.latest.checkpoint_id) or []
    stamps = [iso_to_epoch(c.ts) or 0.0 for c in chain]
    line_ts = [line.ts for a in attempts for line in a.lines]
    crash = max(line_ts + stamps) if (line_ts or stamps) else None
    chain_pos = {c.checkpoint_id: i for i, c in enumerate(chain)}
    n = len(chain)
    positions = {id(a): _root_index(a, thread, chain_pos, n) if thread else None for a in attempts}
    outcomes: dict[str, ModeOutcome] = {}
    for mode in MODES:
        if not chain or crash is None:
            kept = -1
        elif mode == "sync":
            kept = max(i for i, s in enumerate(stamps) if s <= crash + TIME_SLACK) if stamps else -1
        elif mode == "async":
            kept, landed = -1, float("-inf")
            for i, s in enumerate(stamps):
                landed = max(s, landed) + latency
                if landed <= crash:
                    kept = i
        else:
            boundary = _invocation_boundary(chain)
            kept = boundary - 1 if chain[boundary].source == "input" else boundary
        exit_cutoff = _exit_cutoff(attempts, positions, kept) if mode == "exit" else None
        replayed: list[Attempt] = []
        for a in attempts:
            pos = positions[id(a)]
            if kept < 0 or pos is None or pos > kept:
                replayed.append(a)
            elif pos == kept and _replays_at_kept(a, mode, exit_cutoff, kept == n - 1):
                replayed.append(a)
        lines = sorted(line.line for a in replayed for line in a.lines)
        effects = Counter(label for a in replayed for label in a.effects)
        window = [line.ts for a in replayed for line in a.lines]
        cp = chain[kept] if 0 <= kept < len(chain) else None
        outcomes[mode] = ModeOutcome(
            mode=mode,
            checkpoints_kept=(_exit_saves(chain, kept) if mode == "exit" else kept + 1) if kept >= 0 else 0,
            resume_checkpoint_id=cp.checkpoint_id if cp else None,
            resume_step=cp.step if cp else None,
            replayed_lines=lines,
            replayed_effects=dict(sorted(effects.items())),
            window_start=min(window) if window else None,
            window_end=crash if window else None,
            restart=kept < 0,
            sentence=_mode_sentence(mode, cp, replayed, kept < 0),
        )
    return outcomes, crash


def _exit_cutoff(attempts: list[Attempt], positions: dict[int, int | None], kept: int) -> float | None:
    """Under exit, writes at an interrupt checkpoint are those saved when the run paused."""
    paused = [a.end_ts for a in attempts if positions[id(a)] == kept and a.outcome == "interrupted"]
    return min(paused) if paused else None


def _replays_at_kept(a: Attempt, mode: str, exit_cutoff: float | None, kept_is_latest: bool) -> bool:
    """Does a task of the checkpoint a resume would load run again under `mode`?"""
    if a.outcome != "finished":
        return True  # in flight, failed or interrupted: it runs again from its first line
    if mode == "exit" and exit_cutoff is not None and a.end_ts > exit_cutoff:
        return True  # finished after the pause, in the invocation whose writes exit never saved
    # The recorded database is the ground truth where it speaks: its writes never landed.
    return kept_is_latest and a.task is not None and a.task.status != "finished"


def _mode_sentence(mode: str, cp: Checkpoint | None, replayed: list[Attempt], restart: bool) -> str:
    what = _effect_list(replayed)
    if restart:
        start = "no checkpoint would exist: only a restart from the input, which"
    else:
        start = f"a resume would start after step {cp.step if cp else '?'} and"
    if not what:
        return f"Under {mode}, {start} repeats no recorded side effect."
    return f"Under {mode}, {start} would {what} again."


# -- the plan ---------------------------------------------------------------------------
def plan_resume(
    thread: Thread | None,
    effects: EffectsLog | list[EffectLine] | None,
    thread_id: str,
    *,
    latency: float = DEFAULT_LATENCY,
) -> ResumePlan:
    """Everything a resume of `thread_id` from the database as it stands would do."""
    lines: list[EffectLine]
    if effects is None:
        lines = []
    elif isinstance(effects, EffectsLog):
        lines = effects.for_thread(thread_id)
    else:
        lines = [e for e in effects if e.thread_id == thread_id]
    attempts = group_attempts(lines)
    has_checkpoint = thread is not None and thread.root is not None and thread.root.latest is not None
    if not has_checkpoint:
        for a in attempts:
            a.verdict = "restart"
            a.reason = "no checkpoint exists: invoke(None) raises EmptyInputError; a restart repeats everything"
        _number_attempts(attempts)
        outcomes, crash = what_if(thread, attempts, latency) if thread else ({}, None)
        if not outcomes:
            outcomes, crash = what_if(Thread(thread_id, {}), attempts, latency)
        return ResumePlan(
            thread_id, "needs_restart", None, [], [], [], thread.orphan_writes if thread else [], attempts,
            effects is not None, _find_duplicates(attempts), _idempotency(attempts), outcomes, latency, crash,
        )
    assert thread is not None and thread.root is not None
    align(attempts, thread)
    resumed = _resumed_namespaces(thread)
    lineage_ids = {
        ns.name: {c.checkpoint_id for c in ns.lineage(ns.latest.checkpoint_id)} if ns.latest else set()
        for ns in thread.namespaces.values()
    }
    for a in attempts:
        _judge(a, thread, resumed, lineage_ids)
    reruns = [(ns, t) for ns, cp in resumed.items() for t in cp.tasks if t.status != "finished"]
    reused = [(ns, t) for ns, cp in resumed.items() for t in cp.tasks if t.status == "finished"]
    outcomes, crash = what_if(thread, attempts, latency)
    return ResumePlan(
        thread_id=thread_id,
        status=thread_status(thread),
        resume_checkpoint=thread.root.latest,
        subgraph_resumes=[cp for ns, cp in resumed.items() if ns],
        reruns=reruns,
        reused=reused,
        orphan_writes=thread.orphan_writes,
        attempts=attempts,
        effects_given=effects is not None,
        duplicates=_find_duplicates(attempts),
        idempotency_findings=_idempotency(attempts),
        what_if=outcomes,
        latency=latency,
        crash_ts=crash,
        today_reruns=[(ns, t) for ns, t in reused if t.today_task_id],
        generation=thread.generation.to_json() if thread.generation else None,
    )
