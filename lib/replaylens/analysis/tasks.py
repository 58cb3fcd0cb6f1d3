"""Which tasks are due after each checkpoint, derived without the graph's code.

This mirrors `langgraph.pregel._algo.prepare_next_tasks` for StateGraph graphs:

- PULL tasks: node N is triggered by `branch:to:N` and by every `join:A+B:N` barrier
  (`graph/state.py`); it is due when a trigger channel is available and its version is
  newer than what N has seen (`versions_seen[N]`). When the checkpoint records
  `updated_channels`, only nodes triggered by those channels are candidates, as in
  LangGraph.
- PUSH tasks: one per `Send` packet in `channel_values["__pregel_tasks"]`.
- Task ids: xxh3-128 (checkpoint format v2+) or SHA-1 (v1) over the checkpoint id, the
  task namespace, the step, the node and the task path, printed as a UUID
  (`_algo._xxhash_str`), so they equal the ids of the crashed run's writes
  (`replaylens.analysis.ids`).

Older generations (LangGraph 0.2 to 0.4, checkpoint `v` 1 to 3) differ, each point read in
that release's `pregel/algo.py` and `graph/state.py` (see `replaylens.analysis.compat`):
SHA-1 ids in all of 0.2 whatever `v` says, ids over only the triggers that fired (0.2),
`Send` packets in a top-level `pending_sends` list (v1 to v3), and before v3 an edge a->b
triggers b through a channel named `a`, the start edge through `start:b` and a conditional
edge through `branch:a:cond:b`. The id rule of a thread is the one that reproduces the ids
already in its writes table (`choose_id_rule`).

Functional-API `@task` calls and error-handler tasks are created at run time and cannot be
foreseen: they appear from their writes rows only (`Task.derived == False`); calls are
listed under the task that made them and `update_state` writes as state updates
(`replaylens.analysis.runtime`), so `next` holds what `get_state` holds.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from replaylens import namespaces
from replaylens.analysis.compat import describe_generation
from replaylens.analysis.delta import delta_channels, exit_delta_step, thread_delta_channels
from replaylens.analysis.ids import (
    CURRENT_RULE,
    ID_RULES,
    PULL,
    PUSH,
    IdRule,
    default_rule,
    hash_id,
    is_legacy,
    legacy_target,
    task_id,
)
from replaylens.analysis.runtime import arrange, call_path, name_updates
from replaylens.channels import LEGACY_START_PREFIX, TASKS
from replaylens.model import NULL_TASK_ID, Checkpoint, Namespace, Task, TaskKind, Thread

START = "__start__"


def _barrier_names(channel: str) -> tuple[frozenset[str], str] | None:
    """`join:a+b:c` -> ({a, b}, c)."""
    body = channel[len("join:") :]
    starts, sep, end = body.rpartition(":")
    if not sep:
        return None
    return frozenset(starts.split("+")), end


def _after_finish(value: Any) -> tuple[Any, bool] | None:
    """Deferred channels checkpoint as (value, finished)."""
    if isinstance(value, list | tuple) and len(value) == 2 and isinstance(value[1], bool):
        return value[0], value[1]
    return None


def channel_available(cp: Checkpoint, channel: str) -> bool:
    """Would LangGraph's channel object for `channel` report `is_available()`?"""
    rec = cp.record
    if channel not in rec.present_channels:
        return False
    value = rec.scheduling_values.get(channel)
    if channel.startswith("join:"):
        parsed = _barrier_names(channel)
        if parsed is None:
            return False
        names, _ = parsed
        finished = True
        after = _after_finish(value)
        if after is not None and not isinstance(value, set | frozenset):
            value, finished = after
        seen = set(value) if isinstance(value, list | tuple | set | frozenset) else set()
        return finished and seen == set(names)
    if channel.startswith("branch:to:"):
        after = _after_finish(value)
        return after[1] if after is not None else True
    if is_then_barrier(channel):
        return then_barrier_complete(value)
    return True


def is_then_barrier(channel: str) -> bool:
    """`branch:a:cond::then`: the barrier before a conditional edge's `then` node (0.2 releases,
    a DynamicBarrierValue); its name does not say which node it leads to."""
    return channel.startswith("branch:") and channel.endswith("::then")


def then_barrier_complete(value: Any) -> bool:
    """A DynamicBarrierValue checkpoints as (names, seen): available once every name the
    branch waits for has been seen (`get()` raises EmptyChannelError until then)."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return False
    names, seen = value
    if names is None or not isinstance(names, list | tuple | set | frozenset):
        return False
    return isinstance(seen, list | tuple | set | frozenset) and set(seen) == set(names)


def namespace_key(name: str) -> str:
    """`sub:<task id>|inner:<task id>` -> `sub|inner`: the same subgraph in every thread."""
    return namespaces.names(name)


@dataclass
class LegacyHints:
    """Which channels triggered which node, seen in other threads of the same database.

    Before format v3 an edge's channel is named after its source, so a thread killed
    before node c ever ran holds no trace of the edge b->c; a finished thread of the same
    graph does (`versions_seen["c"]["b"]`). Only threads that start the same way
    (`start:*` channels) are asked, so that two graphs sharing a file do not mix."""

    seen: dict[str, dict[str, set[str]]]  # namespace key -> node -> trigger channels
    threads: int  # how many threads contributed
    unread: dict[str, set[str]] = field(
        default_factory=dict
    )  # namespace key -> channels proven unread


def _start_channels(thread: Thread) -> frozenset[str]:
    root = thread.root
    if root is None:
        return frozenset()
    return frozenset(
        ch
        for cp in root.checkpoints
        for ch in cp.record.channel_versions
        if ch.startswith(LEGACY_START_PREFIX)
    )


def hints_by_start(threads: list[Thread]) -> dict[frozenset[str], LegacyHints]:
    """The edges `threads` prove, pooled per way of starting (their `start:*` channels)."""
    out: dict[frozenset[str], LegacyHints] = {}
    for other in threads:
        hints = out.setdefault(_start_channels(other), LegacyHints({}, 0))
        hints.threads += 1
        for ns in other.namespaces.values():
            key = namespace_key(ns.name)
            hints.unread.setdefault(key, set()).update(proven_unread(ns.checkpoints, ns))
            for cp in ns.checkpoints:
                for node, chans in cp.record.versions_seen.items():
                    if node.startswith("__"):
                        continue
                    hints.seen.setdefault(key, {}).setdefault(node, set()).update(
                        ch for ch in chans if not ch.startswith("__")
                    )
    return out


def next_step_ran(ns: Namespace, cp: Checkpoint) -> Checkpoint | None:
    """The checkpoint that proves a pre-v3 checkpoint's step ran: its first "loop" child at the
    next step. None when `cp` is not pre-v3, has no step, or no such child was saved."""
    if not is_legacy(cp) or cp.step is None:
        return None
    step = cp.step + 1
    return next(
        (
            c
            for c in (ns.by_id.get(i) for i in cp.children)
            if c is not None and c.source == "loop" and c.step == step
        ),
        None,
    )


def proven_unread(checkpoints: list[Checkpoint], ns: Namespace) -> set[str]:
    """Pre-v3 channels that no node reads, proven by a step that ran after they were written.

    A node subscribed to channel X is due whenever X has just been written, so it runs in
    the next step and records X's version in `versions_seen`. When X was written at
    checkpoint C, the next step ran (C has a "loop" child) and no node of that child
    recorded the version, nothing reads X: an edge to END."""
    out: set[str] = set()
    for cp in checkpoints:
        child = next_step_ran(ns, cp)
        if child is None:
            continue
        for ch in cp.record.present_channels:
            version = cp.record.channel_versions.get(ch)
            if version is None or ch.startswith("__") or ch in out:
                continue
            if not any(seen.get(ch) == version for seen in child.record.versions_seen.values()):
                out.add(ch)
    return out


def gather_hints(thread: Thread, others: list[Thread]) -> LegacyHints:
    """The edges `others` prove, for `thread` (only those with the same start edges)."""
    pool = hints_by_start([o for o in others if o.thread_id != thread.thread_id])
    return pool.get(_start_channels(thread), LegacyHints({}, 0))


def needs_hints(thread: Thread) -> bool:
    """A pre-v3 thread: a node that never ran in it may still be due (an edge channel
    that one known node reads can lead to others too, as a fan-out does)."""
    return any(is_legacy(cp) for ns in thread.namespaces.values() for cp in ns.checkpoints)


class TriggerMap:
    """Node -> its trigger channels, learnt from every channel name the thread ever used.

    Before checkpoint format v3 an edge a->b subscribes b to the channel `a` that node a
    writes its own name to: nothing in the name says where it leads, so only a node's
    `versions_seen` (it records the triggers that fired when it ran) tells it. `nodes` are
    the node names the thread knows of, `legacy` whether its checkpoints use the old names.
    """

    def __init__(self, namespace: Namespace, hints: LegacyHints | None = None) -> None:
        channels: set[str] = set()
        seen_by_node: dict[str, set[str]] = {}
        self.legacy = any(is_legacy(cp) for cp in namespace.checkpoints)
        self.nodes: set[str] = set()
        # Channels proven to lead nowhere (`proven_unread`), here or in the hint threads.
        self.unread: set[str] = (
            proven_unread(namespace.checkpoints, namespace) if self.legacy else set()
        )
        if self.legacy and hints is not None:
            self.unread |= hints.unread.get(namespace_key(namespace.name), set())
        if self.legacy and hints is not None:
            # Edges the other threads of the same graph prove (a node they saw run).
            for node, chans in hints.seen.get(namespace_key(namespace.name), {}).items():
                seen_by_node.setdefault(node, set()).update(chans)
        for cp in namespace.checkpoints:
            channels.update(cp.record.channel_versions)
            writes_meta = cp.record.metadata.get("writes")
            if isinstance(writes_meta, dict):  # 0.2 to 0.4 name the nodes of the step before
                self.nodes.update(str(k) for k in writes_meta if not str(k).startswith("__"))
            for node, seen in cp.record.versions_seen.items():
                if node.startswith("__") and node != START:
                    continue  # bookkeeping entries such as __interrupt__, not nodes
                # LangGraph records exactly a node's trigger channels when it runs.
                seen_by_node.setdefault(node, set()).update(
                    ch for ch in seen if not ch.startswith("__pregel_") and ch != "__input__"
                )
        # StateGraph threads follow graph/state.py's naming; functional-API entrypoints are
        # triggered by __start__ itself and have no branch channels.
        pulled: set[str] = set()
        for w in [
            *(w for cp in namespace.checkpoints for w in cp.writes),
            *namespace.orphan_writes,
        ]:
            parts = w.task_path.split(", ")
            if parts[0] == f"~{PULL}" and len(parts) == 2:
                pulled.add(parts[1])  # a node's own writes
            elif parts[0] == f"~{PUSH}" and len(parts) > 2 and parts[1] == f"~{PULL}":
                pulled.add(parts[2])  # a functional @task call names the entrypoint that made it
        state_graph = self.state_graph = (
            START in seen_by_node
            or START in pulled
            or any(ch.startswith("branch:to:") for ch in channels)
            or not (seen_by_node or pulled)  # no evidence either way: the common case
        )
        if (
            not state_graph
            and START in channels
            and not any(START in t for t in seen_by_node.values())
        ):
            for node in pulled:  # a functional entrypoint that wrote before any checkpoint saw it
                seen_by_node.setdefault(node, set()).add(START)
        self.triggers: dict[str, set[str]] = {n: set(t) for n, t in seen_by_node.items() if t}
        for ch in channels:
            if ch.startswith("branch:to:"):
                self.triggers.setdefault(ch[len("branch:to:") :], set()).add(ch)
            elif ch.startswith("join:"):
                parsed = _barrier_names(ch)
                if parsed:
                    self.triggers.setdefault(parsed[1], set()).add(ch)
            elif (target := legacy_target(ch)) is not None:
                self.triggers.setdefault(target, set()).add(ch)
        if state_graph or self.legacy:
            if START in channels:
                self.triggers.setdefault(START, set()).add(START)
        if state_graph:
            # Every StateGraph node is subscribed to its own branch channel (attach_node),
            # also in 0.3 releases that still wrote v2 with the old edge channels beside it
            # (it is never written there, but the all-triggers id rule hashes it). 0.2
            # hashes only the triggers that fired, so the extra name changes no 0.2 id.
            for node, trig in self.triggers.items():
                if node != START:
                    trig.add(f"branch:to:{node}")
        self.nodes.update(n for n in self.triggers if n != START)
        self.nodes.update(n for n in seen_by_node if n != START)
        self.by_channel: dict[str, list[str]] = {}
        for node, trig in self.triggers.items():
            for ch in trig:
                self.by_channel.setdefault(ch, []).append(node)

    def learn(self, node: str, channels: list[str]) -> None:
        """Record that `channels` trigger `node` (found by reproducing a written task id)."""
        self.nodes.add(node)
        trig = self.triggers.setdefault(node, set())
        for ch in channels:
            if ch not in trig:
                trig.add(ch)
                self.by_channel.setdefault(ch, []).append(node)


def _versions_newer(a: Any, b: Any) -> bool:
    try:
        return bool(a > b)
    except TypeError:
        return str(a) > str(b)


def _null_version(cp: Checkpoint) -> Any:
    for version in cp.record.channel_versions.values():
        return type(version)()
    return None


def _send_packets(cp: Checkpoint) -> tuple[list[Any], bool]:
    """The `Send` packets due after `cp` and whether they are the pre-v4 `pending_sends`."""
    rec = cp.record
    sends = rec.scheduling_values.get(TASKS)
    if TASKS in rec.present_channels and isinstance(sends, list | tuple):
        return list(sends), False
    if rec.pending_sends:
        return list(rec.pending_sends), True
    return [], False


def today_triggers(node: str, node_triggers: set[str]) -> list[str]:
    """A node's triggers after today's `_migrate_checkpoint` renamed the pre-v3 channels:
    its own `branch:to:<node>` and its `join:` barriers (graph/state.py `attach_node`)."""
    return sorted({f"branch:to:{node}", *(ch for ch in node_triggers if ch.startswith("join:"))})


def derive_tasks(cp: Checkpoint, triggers: TriggerMap, rule: IdRule | None = None) -> list[Task]:
    """The tasks due after `cp`, in LangGraph's order (Sends first, then nodes by name).

    `rule` is the thread's id rule (`choose_id_rule`); without it, the rule the
    checkpoint's format implies. On a pre-v3 checkpoint each PULL task also gets the id
    today's LangGraph would give it after migrating the channel names (`today_task_id`),
    and `cp.next_unknown` says so when an edge channel was written that no known node reads.
    """
    rec = cp.record
    if rec.error or rec.step is None:
        return []
    rule = rule or default_rule(rec.v)
    step = rec.step + 1
    ns = rec.checkpoint_ns
    tasks: list[Task] = []
    sends, pending = _send_packets(cp)
    for idx, packet in enumerate(sends):
        node = getattr(packet, "node", None)
        if not isinstance(node, str):
            continue
        task_ns = f"{ns}|{node}" if ns else node
        tid = hash_id(rule.hash, rec.checkpoint_id, task_ns, str(step), node, PUSH, str(idx))
        # The written path is (PUSH, idx) for pending_sends, (PUSH, idx, False) after:
        # False prints as 0000000000.
        path = f"~{PUSH}, {idx:010d}" if pending else f"~{PUSH}, {idx:010d}, {0:010d}"
        task = Task(node, tid, "push", step, path, send_index=idx)
        if is_legacy(cp):  # today's hash over the same parts (xxh3 for v2, where 0.2 used SHA-1)
            today = task_id(rec.v, rec.checkpoint_id, task_ns, str(step), node, PUSH, str(idx))
            task.today_task_id = today if today != tid else None
        tasks.append(task)
    null_version = _null_version(cp)
    if null_version is None:
        return tasks
    if rec.updated_channels is not None:
        candidates = sorted(
            {n for ch in rec.updated_channels for n in triggers.by_channel.get(ch, [])}
        )
    else:
        candidates = sorted(triggers.triggers)
    legacy = is_legacy(cp)
    for node in candidates:
        node_triggers = triggers.triggers.get(node, set())
        seen = rec.versions_seen.get(node)
        fired = sorted(
            ch
            for ch in node_triggers
            if channel_available(cp, ch)
            and (
                seen is None
                or _versions_newer(
                    rec.channel_versions.get(ch, null_version), seen.get(ch, null_version)
                )
            )
        )
        if not fired:
            continue
        task_ns = f"{ns}|{node}" if ns else node
        hashed = fired if rule.triggers == "fired" else sorted(node_triggers)
        tid = hash_id(rule.hash, rec.checkpoint_id, task_ns, str(step), node, PULL, *hashed)
        task = Task(node, tid, "pull", step, f"~{PULL}, {node}")
        if legacy and any(is_then_barrier(ch) for ch in node_triggers):
            task.today_id_unknown = True
            task.note = (
                "triggered by a `then=` barrier, which today's LangGraph no longer has: the graph must be "
                "rewritten to run there, so the id its resume would give this task cannot be foreseen"
            )
        elif legacy:
            # Today's `_migrate_checkpoint` renames the channels; __start__ keeps its one trigger.
            after = [START] if node == START else today_triggers(node, node_triggers)
            today = task_id(rec.v, rec.checkpoint_id, task_ns, str(step), node, PULL, *after)
            task.today_task_id = today if today != tid else None
        tasks.append(task)
    if legacy:
        cp.next_unknown = _dangling_channels_sentence(cp, triggers)
    elif not tasks:
        cp.next_unknown = _unread_channels_sentence(cp, triggers)
    return tasks


def _unread_channels_sentence(cp: Checkpoint, triggers: TriggerMap) -> str | None:
    """A graph built on `Pregel` itself (NodeBuilder, channels it names) has no edge channels
    to read: a node subscribes to whatever channel it was built with, which only its running
    (`versions_seen`) shows. When nothing is known to be due but the step just wrote a
    channel no node of this thread is known to read, a node that never ran may be subscribed
    to it: the next task is unknown, and the checkpoint is not called completed."""
    updated = cp.record.updated_channels
    if triggers.state_graph or not updated:
        return None
    unread = sorted(
        ch for ch in updated if not ch.startswith("__") and ch not in triggers.by_channel
    )
    if not unread:
        return None
    names = ", ".join(f"'{ch}'" for ch in unread)
    return (
        f"The last step wrote {names}, which no node of this thread is known to read, and the "
        "graph does not use StateGraph's channel names (a Pregel built on its own channels): a "
        "node that never ran may be subscribed to it, so the next task is unknown."
    )


def _dangling_channels_sentence(cp: Checkpoint, triggers: TriggerMap) -> str | None:
    """Before v3 node a writes its own name to channel `a`, which triggers the nodes its
    edges lead to; the name does not say which. When `a` was just written, no node of this
    thread (or of the hint threads) ever read it, and no step is known to have run after it
    without reading it (`proven_unread`), the next task cannot be known: an edge to END and
    an edge to a node that never ran look the same."""
    rec = cp.record
    dangling = sorted(
        ch
        for ch in rec.present_channels
        if ch in triggers.nodes
        and ch not in triggers.by_channel
        and ch in rec.channel_versions
        and ch not in triggers.unread
    )
    barriers = sorted(
        ch
        for ch in rec.present_channels
        if is_then_barrier(ch) and ch not in triggers.by_channel and channel_available(cp, ch)
    )
    if barriers:
        names = ", ".join(f"'{ch}'" for ch in barriers)
        return (
            f"The barrier {names} is complete, so the `then` node of that conditional edge is due, but it "
            "never ran in this thread and the barrier's name does not say which node it is: the next task "
            "is unknown."
        )
    if not dangling:
        return None
    names = ", ".join(f"'{ch}'" for ch in dangling)
    return (
        f"Node(s) {names} finished and wrote their edge channel, but no node of this thread is known to "
        "read it (checkpoint format before v3 names the channel after its source, not its target): "
        "the next task is unknown, so this checkpoint is not called completed."
    )


def _node_from_path(path: str) -> tuple[TaskKind, str]:
    """(kind, node) from a writes row's task_path; node "" where the path names none."""
    parts = [p.strip() for p in path.lstrip("~").split(",")]
    if len(parts) >= 3 and parts[2] == HANDLER_PATH:
        return "push", f"{namespaces.ERROR_HANDLER}{parts[1]}"
    if len(parts) >= 2 and parts[0] == PULL:
        return "pull", parts[1]
    if parts and parts[0] == PUSH:
        return ("call" if call_path(path) is not None else "push"), ""
    return "run-time", ""


HANDLER_PATH = "node_error_handler"
"""The third element of an error handler's task path (``prepare_node_error_handler_task``:
``(*failed_task.path[:3], "node_error_handler", False)``)."""


def _error_handlers(cp: Checkpoint, tasks: list[Task]) -> list[Task]:
    """The error-handler tasks a resume from `cp` runs for its handled failures.

    LangGraph 1.2 runs a node's ``error_handler`` as a task of its own in the failed task's
    step, and a resume from this checkpoint schedules it again
    (``_resume_error_handlers_if_applicable``): its id hashes the failed task's own
    namespace with the handler's name, the step, `PUSH`, ``node_error_handler`` and the
    failed task's id. A handler whose writes landed is already a task (named from its path
    in `_node_from_path`); one that had not written is added, due."""
    rec = cp.record
    if rec.step is None:
        return []
    by_id = {t.task_id: t for t in tasks}
    out: list[Task] = []
    step = rec.step + 1

    def handler_id(failed: Task, name: str) -> str:
        own = f"{failed.node}:{failed.task_id}"
        home = f"{rec.checkpoint_ns}|{own}" if rec.checkpoint_ns else own
        return task_id(rec.v, rec.checkpoint_id, f"{home}|{name}", str(step), name, PUSH,
                       HANDLER_PATH, failed.task_id)  # fmt: skip

    handled = [t for t in tasks if t.status == "handled" and t.node]
    # The node's own handler, or the builder's default one (`set_node_defaults`): the id a
    # saved handler's writes carry tells which; a thread where one is the default is taken to
    # hand every failure to it.
    default = any(handler_id(t, namespaces.DEFAULT_ERROR_HANDLER) in by_id for t in handled)
    for failed in handled:
        own_name = f"{namespaces.ERROR_HANDLER}{failed.node}"
        names = (namespaces.DEFAULT_ERROR_HANDLER, own_name) if default else (own_name,)
        ids = {n: handler_id(failed, n) for n in names}
        found = next((n for n in names if ids[n] in by_id), None)
        if found is not None:
            by_id[ids[found]].node = found
            continue
        name = names[0]
        tid = ids[name]
        path = f"~{PULL}, {failed.node}, {HANDLER_PATH}, {0:010d}"  # False prints as 0000000000
        out.append(Task(name, tid, "push", step, path,
                        note=f"the error handler of {failed.node}: a resume runs it for the saved failure"))  # fmt: skip
    return out


def attach_writes(cp: Checkpoint, derived: list[Task], delta: set[str] | None = None) -> list[Task]:
    """Give each task its writes; tasks seen only in writes become `derived=False` tasks.
    `delta`: the thread's `DeltaChannel`s, whose writes saved on exit are no task's."""
    by_id = {t.task_id: t for t in derived}
    by_path = {t.path: t for t in derived if t.path}
    extra: dict[str, Task] = {}
    exit_steps = cp.exit_delta_writes = {}
    for w in cp.writes:
        if w.task_id == NULL_TASK_ID:
            continue
        step = exit_delta_step(w.task_id, w.task_path, w.channel, delta or set())
        if step is not None and w.task_id not in by_id:
            exit_steps.setdefault(w.channel, []).append(step)
            continue
        task = by_id.get(w.task_id)
        if (
            task is None
            and w.task_path
            and w.task_path in by_path
            and not by_path[w.task_path].writes
        ):
            # The rule produced another id for the same task path (a trigger channel that
            # this thread never wrote): trust the crashed run's own id.
            task = by_path[w.task_path]
            cp.task_notes.append(
                f"Task {task.node}: id taken from its writes ({w.task_id}); derived id was {task.task_id}."
            )
            del by_id[task.task_id]
            task.task_id = w.task_id
            by_id[w.task_id] = task
        if task is None:
            task = extra.get(w.task_id)
            if task is None:
                kind, node = _node_from_path(w.task_path)
                task = Task(
                    node,
                    w.task_id,
                    kind,
                    (cp.step or 0) + 1,
                    w.task_path,
                    derived=False,
                    note="known from its writes only (functional @task call or run-time task)",
                )
                extra[w.task_id] = task
        task.writes.append(w)
    for channel, steps in sorted(exit_steps.items()):
        span = (
            f"superstep {min(steps)}"
            if min(steps) == max(steps)
            else (f"supersteps {min(steps)} to {max(steps)}")
        )
        cp.task_notes.append(
            f"{len(steps)} write(s) to the DeltaChannel '{channel}' ({span}) that a run under "
            "durability exit saved on its way out, anchored on this checkpoint under LangGraph's "
            "own synthetic task ids: the channel's values, not tasks."
        )
    handlers = _error_handlers(cp, [*derived, *extra.values()])
    return arrange(cp, derived, [*extra.values(), *handlers])


Evidence = dict[str, dict[str, str | None]]
"""checkpoint id -> {task id that ran after it: the node name when something says it}."""


def task_evidence(thread: Thread, delta: set[str] | None = None) -> Evidence:
    """Task ids known to have run after each checkpoint: its writes' task ids, and the
    task ids that name a subgraph namespace (`sub:<task id>` under its parent checkpoint),
    which also name the node. Checkpoints of formats v1 to v3 lack `task_path`, so these
    ids are the only trace of a task that started and did not finish."""
    out: Evidence = {}
    if delta is None:
        delta = thread_delta_channels(thread)
    for ns in thread.namespaces.values():
        for cp in ns.checkpoints:
            ids = out.setdefault(cp.checkpoint_id, {})
            for w in cp.writes:
                if (
                    w.task_id != NULL_TASK_ID
                    and exit_delta_step(w.task_id, w.task_path, w.channel, delta) is None
                ):
                    ids.setdefault(w.task_id, None)
        if not ns.name or not ns.checkpoints:
            continue
        parent_ns = namespaces.parent(ns.name)
        node, tid = namespaces.runner(ns.name)
        parents = ns.checkpoints[0].record.metadata.get("parents")
        parent_id = parents.get(parent_ns) if isinstance(parents, dict) else None
        if tid and node and isinstance(parent_id, str):
            out.setdefault(parent_id, {})[tid] = node
    return out


def _candidate_names(
    cp: Checkpoint, triggers: TriggerMap, tid: str, hint: str | None, extra: Collection[str] = ()
) -> list[str]:
    names = (
        set(triggers.nodes)
        | set(extra)
        | {ch for ch in cp.record.present_channels if not ch.startswith("__")}
    )
    names |= {w.channel for w in cp.writes if w.task_id == tid and not w.channel.startswith("__")}
    if hint:
        return [hint, *sorted(names - {hint})]
    return sorted(names)


def identify_task(
    cp: Checkpoint,
    triggers: TriggerMap,
    rule: IdRule,
    tid: str,
    hint: str | None,
    extra: Collection[str] = (),
) -> tuple[str, list[str]] | None:
    """(node, triggers) whose id under `rule` is `tid`, tried over the names and channels
    this checkpoint knows (and `extra` names, given from beside the database); None when
    nothing reproduces it. A match is proof: the id is a 128-bit hash of exactly these parts."""
    rec = cp.record
    if rec.step is None:
        return None
    step = str(rec.step + 1)
    channels = sorted(
        ch for ch in rec.present_channels if ch in rec.channel_versions and not ch.startswith("__")
    )
    for node in _candidate_names(cp, triggers, tid, hint, extra):
        task_ns = f"{rec.checkpoint_ns}|{node}" if rec.checkpoint_ns else node
        known = triggers.triggers.get(node, set())
        for ch in channels:
            trig = [ch] if rule.triggers == "fired" else sorted(known | {ch, f"branch:to:{node}"})
            if hash_id(rule.hash, rec.checkpoint_id, task_ns, step, node, PULL, *trig) == tid:
                return node, trig
    return None


def learn_from_evidence(
    pairs: list[tuple[Checkpoint, TriggerMap]], rule: IdRule, evidence: Evidence
) -> int:
    """Teach each pre-v3 namespace's TriggerMap the edges its written task ids prove;
    returns how many ids were explained that way."""
    learned = 0
    for cp, triggers in pairs:
        if not is_legacy(cp):
            continue
        known = {t.task_id for t in derive_tasks(cp, triggers, rule)}
        for tid, hint in evidence.get(cp.checkpoint_id, {}).items():
            if tid in known:
                continue
            found = identify_task(cp, triggers, rule, tid, hint)
            if found is not None:
                triggers.learn(*found)
                learned += 1
    return learned


def _id_matches(cps: list[tuple[Checkpoint, TriggerMap]], rule: IdRule, evidence: Evidence) -> int:
    """How many of the evidence's task ids `rule` reproduces over these checkpoints."""
    hits = 0
    for cp, triggers in cps:
        ids = {t.task_id for t in derive_tasks(cp, triggers, rule)}
        hits += len(ids & set(evidence.get(cp.checkpoint_id, {})))
    return hits


def _fresh(pairs: list[tuple[Checkpoint, TriggerMap]]) -> list[tuple[Checkpoint, TriggerMap]]:
    """The same checkpoints with copies of their TriggerMaps, to try a rule without side effects."""
    copies: dict[int, TriggerMap] = {}
    out = []
    for cp, tm in pairs:
        if id(tm) not in copies:
            clone = copy.copy(tm)
            clone.triggers = {n: set(t) for n, t in tm.triggers.items()}
            clone.by_channel = {c: list(n) for c, n in tm.by_channel.items()}
            clone.nodes = set(tm.nodes)
            clone.unread = set(tm.unread)
            copies[id(tm)] = clone
        out.append((cp, copies[id(tm)]))
    return out


def choose_id_rule(
    cps: list[tuple[Checkpoint, TriggerMap]], evidence: Evidence | None = None
) -> tuple[IdRule, int, int]:
    """The id rule that reproduces most task ids already in the writes table (and in the
    subgraph namespaces): (rule, ids reproduced, ids known). Format v4 has one rule; older
    formats are decided by their writes, and by the format when no write can tell. The
    winning rule's learnt edges are kept in the TriggerMaps."""
    if evidence is None:
        evidence = {
            cp.checkpoint_id: {w.task_id: None for w in cp.writes if w.task_id != NULL_TASK_ID}
            for cp, _ in cps
        }
    written = sum(len(evidence.get(cp.checkpoint_id, {})) for cp, _ in cps)
    if not any(cp.record.pending_sends is not None or is_legacy(cp) for cp, _ in cps):
        return CURRENT_RULE, 0, written  # format v4: one rule, nothing to decide
    versions = [cp.record.v for cp, _ in cps if cp.record.v is not None]
    default = default_rule(min(versions) if versions else None)
    if not any(is_legacy(cp) for cp, _ in cps):
        return default, _id_matches(cps, default, evidence), written
    scores: dict[IdRule, int] = {}
    for rule in ID_RULES:
        trial = _fresh(cps)
        learn_from_evidence(trial, rule, evidence)
        scores[rule] = _id_matches(trial, rule, evidence)
    best = max(scores.values())
    rule = default if scores[default] == best else next(r for r in ID_RULES if scores[r] == best)
    learn_from_evidence(cps, rule, evidence)
    return rule, _id_matches(cps, rule, evidence), written


def annotate_thread(thread: Thread, hints: LegacyHints | None = None) -> Thread:
    """Fill `Checkpoint.tasks` for every checkpoint of every namespace of `thread`, with
    the id rule that reproduces the thread's own writes, and note its generation.
    `hints`: edges other threads of the database prove (pre-v3 formats only)."""
    pairs: list[tuple[Checkpoint, TriggerMap]] = []
    maps: dict[str, TriggerMap] = {}
    for ns in thread.namespaces.values():
        triggers = maps[ns.name] = TriggerMap(ns, hints)
        pairs.extend((cp, triggers) for cp in ns.checkpoints)
    _nodes_named_by_graphs_below(thread, maps)
    for cp, _ in pairs:  # annotating again (with hints) starts from the rows alone
        cp.task_notes = []
        cp.next_unknown = None
    delta = thread_delta_channels(thread)
    evidence = task_evidence(thread, delta)
    rule, _, written = choose_id_rule(pairs, evidence)
    for cp, triggers in pairs:
        cp.tasks = attach_writes(cp, derive_tasks(cp, triggers, rule), delta)
        _flag_unexplained(cp)
    _name_entrypoint_from_below(thread, rule)
    for ns in thread.namespaces.values():
        for cp in ns.checkpoints:
            _ran_without_writes(ns, cp)
    matched, today = _ids_listed(pairs, evidence)
    thread.generation = describe_generation(
        [cp for cp, _ in pairs], rule, matched, written, hints.threads if hints else 0, today
    )
    name_updates(thread)
    return thread


def _nodes_named_by_graphs_below(thread: Thread, maps: dict[str, TriggerMap]) -> None:
    """A node that ran a graph is named by that graph's namespace one level down (``node``,
    or ``node:<task id>``), also where the node never wrote: a checkpoint before format v3
    has no channel named after it then, and its task id is reproduced from that name only
    (LangGraph 0.2.76, a node that invoked a ``checkpointer=True`` graph which paused: its
    interrupt write's task was unnamed, and a resume was read as starting that graph
    afresh)."""
    for name in thread.namespaces:
        if not name:
            continue
        node = namespaces.runner(name)[0]
        above = maps.get(namespaces.parent(name))
        if node and above is not None:
            above.nodes.add(node)


def _name_entrypoint_from_below(thread: Thread, rule: IdRule) -> None:
    """An `@entrypoint` paused or killed before any write of its own: its input checkpoint
    names no node, and read as a `StateGraph`'s (the common case) it has `__start__` due.
    The graphs its `@task` calls invoked carry its task in their namespaces
    (``parent:<id>|call:<id>``): where that id is the one LangGraph derives for `parent`
    triggered by `__start__` at that checkpoint, the due task is `parent`, under that id
    (test_multiple_subgraphs_mixed_entrypoint, killed inside the second graph)."""
    heads = {
        name.split("|")[0].partition(":")[::2]
        for name in thread.namespaces
        if name and ":" in name.split("|")[0]
    }
    name_entrypoint(thread, heads, rule)


def name_entrypoint(thread: Thread, heads: set[tuple[str, str]], rule: IdRule) -> bool:
    """Name the `@entrypoint` due at a root checkpoint read as a `StateGraph`'s input (its one
    derived task `__start__`, with no writes) from `heads`, (node, task id) pairs something
    else names (the namespaces below it, `_name_entrypoint_from_below`; a log's lines,
    `align.align`): the one whose id LangGraph derives for that node triggered by
    `__start__` there. Beside it may stand the unnamed results of its `@task` calls, where
    the store keeps no task path (LangGraph 0.6). Whether any was named."""
    root = thread.root
    named = False
    for cp in root.checkpoints if root is not None else ():
        rec = cp.record
        derived = [t for t in cp.tasks if t.derived]
        if rec.step is None or len(derived) != 1 or derived[0].node != START or derived[0].writes:
            continue
        step = rec.step + 1
        for node, tid in heads:
            if hash_id(rule.hash, rec.checkpoint_id, node, str(step), node, PULL, START) == tid:
                # its own writes (its pause, the answers to it) stood beside, unnamed, under
                # the same id: they are the entrypoint's (LangGraph 0.6's store)
                same = [t for t in cp.tasks if t.task_id == tid and not t.derived]
                entry = Task(node, tid, "pull", step, f"~{PULL}, {node}")
                entry.writes = [w for t in same for w in t.writes]
                cp.tasks = [entry if t is derived[0] else t for t in cp.tasks if t not in same]
                named = True
                break
    return named


def name_from_log(thread: Thread, names: Collection[str]) -> bool:
    """Name the unnamed tasks of checkpoints before format v3 (a written id no node the
    database names reproduces: a node that never finished wrote no channel of its name)
    from `names`, the nodes a log's lines name (`align.name_tasks_from_log`): the one whose
    id LangGraph derives from it at that checkpoint over a channel the checkpoint holds,
    under any id rule (a match is proof). LangGraph 0.2.76's multiple_interrupts: the node
    paused three times and never wrote, and its pause and answers stood unnamed beside a
    bare log's lines, which were then read as lost with their invocations. Whether any was
    named."""
    named = False
    for ns in thread.namespaces.values():
        triggers: TriggerMap | None = None
        for cp in ns.checkpoints:
            unnamed = [t for t in cp.tasks if not t.derived and t.kind == "run-time" and not t.node]
            if not unnamed or not is_legacy(cp):
                continue
            triggers = triggers or TriggerMap(ns)
            for old in unnamed:
                found = next(
                    (
                        f
                        for r in ID_RULES
                        if (f := identify_task(cp, triggers, r, old.task_id, None, names))
                    ),
                    None,
                )
                if found is None:
                    continue
                node = found[0]
                task = Task(node, old.task_id, "pull", old.step, f"~{PULL}, {node}")
                task.writes, task.name_source = (
                    old.writes,
                    "its task id, with the name the effects log gives",
                )
                cp.tasks = [task if t is old else t for t in cp.tasks]
                named = True
            if named and not any(not t.node for t in cp.tasks if t.kind == "run-time"):
                if (cp.next_unknown or "").startswith(_UNEXPLAINED):
                    cp.next_unknown = None  # every id is named now (`_flag_unexplained`)
    return named


def _ids_listed(pairs: list[tuple[Checkpoint, TriggerMap]], evidence: Evidence) -> tuple[int, int]:
    """(written ids a derived task has, written ids today's LangGraph lists), over every
    checkpoint: the writing release's ids are the derived ones (`attach_writes` keeps the
    writes' own id where the path proves it), today's are those `today_task_id` leaves alone."""
    matched = today = 0
    for cp, _ in pairs:
        written = set(evidence.get(cp.checkpoint_id, {}))
        if not written:
            continue
        derived = {t.task_id for t in cp.tasks if t.derived}
        listed_today = {
            t.task_id
            for t in cp.tasks
            if t.derived and not t.today_task_id and not t.today_id_unknown
        }
        matched += len(derived & written)
        today += len(listed_today & written)
    return matched, today


def _ran_without_writes(ns: Namespace, cp: Checkpoint) -> None:
    """A pre-v3 task with no writes row whose step has a next checkpoint in the chain (source
    "loop", step + 1) ran: LangGraph 0.2 releases saved no writes for the last task to finish
    in a step (0.2.28: every single-task step). It stays pending, as that release's own
    get_state lists it (no result), and as a resume from this checkpoint would run it again
    (nothing saved of it here); the note says the next step shows it ran."""
    nxt = next_step_ran(ns, cp)
    if nxt is None:
        return
    for task in cp.tasks:
        if not task.writes and task.status == "pending":
            task.note = task.note or (
                f"ran (the next step's checkpoint {nxt.checkpoint_id} exists) but saved no writes row "
                "(this LangGraph release saved none for the last task of a step): a resume from this "
                "checkpoint runs it again"
            )


_UNEXPLAINED = "The writes hold task id(s)"


def _flag_unexplained(cp: Checkpoint) -> None:
    """A pre-v3 checkpoint whose writes hold a task id no known node reproduces: a node
    this thread never names ran there, so the list of next tasks may be incomplete."""
    if not is_legacy(cp) or cp.next_unknown:
        return
    unexplained = [t for t in cp.tasks if not t.derived and t.kind == "run-time" and not t.node]
    if unexplained:
        ids = ", ".join(t.task_id for t in unexplained)
        cp.next_unknown = (
            f"{_UNEXPLAINED} {ids} that no node known to this thread reproduces "
            "(format before v3, no task_path): which node ran is unknown, and so is the list of next tasks."
        )


def annotate_checkpoint(cp: Checkpoint, triggers: TriggerMap) -> Checkpoint:
    """One checkpoint on its own (the thread list): its own writes choose the id rule."""
    rule, _, _ = choose_id_rule([(cp, triggers)])
    cp.tasks = attach_writes(cp, derive_tasks(cp, triggers, rule), delta_channels(cp))
    _flag_unexplained(cp)
    return cp
