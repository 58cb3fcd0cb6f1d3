"""Which task of the checkpoint chain each attempt of the effects log ran.

Exact when lines carry `task_id` (as `record_effect` writes them), by superstep when
they carry `step`, and by node name, order and time otherwise (hand-written logs).
"""

from __future__ import annotations

from collections import defaultdict

from replaylens.analysis.attempts import TIME_SLACK, Attempt, number_attempts
from replaylens.model import Checkpoint, Task, Thread
from replaylens.times import iso_to_epoch


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
    number_attempts(attempts)
