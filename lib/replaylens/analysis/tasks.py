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
  (`_algo._xxhash_str`), so they equal the ids of the crashed run's writes.

Functional-API `@task` calls and error-handler tasks are created at run time and cannot be
foreseen: they appear from their writes rows only (`Task.derived == False`); calls are
listed under the task that made them and `update_state` writes as state updates
(`replaylens.analysis.runtime`), so `next` holds what `get_state` holds.
"""

from __future__ import annotations

import binascii
from hashlib import sha1
from typing import Any

from xxhash import xxh3_128_hexdigest

from replaylens.analysis.runtime import arrange, call_path, name_updates
from replaylens.model import NULL_TASK_ID, Checkpoint, Namespace, Task, TaskKind, Thread

PUSH = "__pregel_push"
PULL = "__pregel_pull"
START = "__start__"


def _as_uuid(hexstr: str) -> str:
    return f"{hexstr[:8]}-{hexstr[8:12]}-{hexstr[12:16]}-{hexstr[16:20]}-{hexstr[20:32]}"


def task_id(version: int | None, checkpoint_id: str, *parts: str) -> str:
    """LangGraph's deterministic task id for one task of the step after `checkpoint_id`."""
    namespace = binascii.unhexlify(checkpoint_id.replace("-", ""))
    payload = b"".join(p.encode() for p in parts)
    if version is not None and version > 1:
        return _as_uuid(xxh3_128_hexdigest(namespace + payload))
    digest = sha1(namespace, usedforsecurity=False)
    digest.update(payload)
    return _as_uuid(digest.hexdigest())


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
    return True


class TriggerMap:
    """Node -> its trigger channels, learnt from every channel name the thread ever used."""

    def __init__(self, namespace: Namespace) -> None:
        channels: set[str] = set()
        seen_by_node: dict[str, set[str]] = {}
        for cp in namespace.checkpoints:
            channels.update(cp.record.channel_versions)
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
        for w in [*(w for cp in namespace.checkpoints for w in cp.writes), *namespace.orphan_writes]:
            parts = w.task_path.split(", ")
            if parts[0] == f"~{PULL}" and len(parts) == 2:
                pulled.add(parts[1])  # a node's own writes
            elif parts[0] == f"~{PUSH}" and len(parts) > 2 and parts[1] == f"~{PULL}":
                pulled.add(parts[2])  # a functional @task call names the entrypoint that made it
        state_graph = (
            START in seen_by_node
            or START in pulled
            or any(ch.startswith("branch:to:") for ch in channels)
            or not (seen_by_node or pulled)  # no evidence either way: the common case
        )
        if not state_graph and START in channels and not any(START in t for t in seen_by_node.values()):
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
        if state_graph:
            if START in channels:
                self.triggers.setdefault(START, set()).add(START)
            # Every StateGraph node is subscribed to its own branch channel (attach_node).
            for node, trig in self.triggers.items():
                if node != START:
                    trig.add(f"branch:to:{node}")
        self.by_channel: dict[str, list[str]] = {}
        for node, trig in self.triggers.items():
            for ch in trig:
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


def derive_tasks(cp: Checkpoint, triggers: TriggerMap) -> list[Task]:
    """The tasks due after `cp`, in LangGraph's order (Sends first, then nodes by name)."""
    rec = cp.record
    if rec.error or rec.step is None:
        return []
    step = rec.step + 1
    ns = rec.checkpoint_ns
    tasks: list[Task] = []
    sends = rec.scheduling_values.get("__pregel_tasks")
    if "__pregel_tasks" in rec.present_channels and isinstance(sends, list | tuple):
        for idx, packet in enumerate(sends):
            node = getattr(packet, "node", None)
            if not isinstance(node, str):
                continue
            task_ns = f"{ns}|{node}" if ns else node
            tid = task_id(rec.v, rec.checkpoint_id, task_ns, str(step), node, PUSH, str(idx))
            # The written path is (PUSH, idx, False): False prints as 0000000000.
            path = f"~{PUSH}, {idx:010d}, {0:010d}"
            tasks.append(Task(node, tid, "push", step, path, send_index=idx))
    null_version = _null_version(cp)
    if null_version is None:
        return tasks
    if rec.updated_channels is not None:
        candidates = sorted({n for ch in rec.updated_channels for n in triggers.by_channel.get(ch, [])})
    else:
        candidates = sorted(triggers.triggers)
    for node in candidates:
        node_triggers = triggers.triggers.get(node, set())
        seen = rec.versions_seen.get(node)
        due = False
        for ch in node_triggers:
            if not channel_available(cp, ch):
                continue
            if seen is None or _versions_newer(
                rec.channel_versions.get(ch, null_version), seen.get(ch, null_version)
            ):
                due = True
                break
        if not due:
            continue
        task_ns = f"{ns}|{node}" if ns else node
        tid = task_id(rec.v, rec.checkpoint_id, task_ns, str(step), node, PULL, *sorted(node_triggers))
        tasks.append(Task(node, tid, "pull", step, f"~{PULL}, {node}"))
    return tasks


def _node_from_path(path: str) -> tuple[TaskKind, str]:
    """(kind, node) from a writes row's task_path; node "" where the path names none."""
    parts = [p.strip() for p in path.lstrip("~").split(",")]
    if len(parts) >= 2 and parts[0] == PULL:
        return "pull", parts[1]
    if parts and parts[0] == PUSH:
        return ("call" if call_path(path) is not None else "push"), ""
    return "run-time", ""


def attach_writes(cp: Checkpoint, derived: list[Task]) -> list[Task]:
    """Give each task its writes; tasks seen only in writes become `derived=False` tasks."""
    by_id = {t.task_id: t for t in derived}
    by_path = {t.path: t for t in derived if t.path}
    extra: dict[str, Task] = {}
    for w in cp.writes:
        if w.task_id == NULL_TASK_ID:
            continue
        task = by_id.get(w.task_id)
        if task is None and w.task_path and w.task_path in by_path and not by_path[w.task_path].writes:
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
                task = Task(node, w.task_id, kind, (cp.step or 0) + 1, w.task_path, derived=False,
                            note="known from its writes only (functional @task call or run-time task)")
                extra[w.task_id] = task
        task.writes.append(w)
    return arrange(cp, derived, list(extra.values()))


def annotate_thread(thread: Thread) -> Thread:
    """Fill `Checkpoint.tasks` for every checkpoint of every namespace of `thread`."""
    for ns in thread.namespaces.values():
        triggers = TriggerMap(ns)
        for cp in ns.checkpoints:
            cp.tasks = attach_writes(cp, derive_tasks(cp, triggers))
    name_updates(thread)
    return thread


def annotate_checkpoint(cp: Checkpoint, triggers: TriggerMap) -> Checkpoint:
    cp.tasks = attach_writes(cp, derive_tasks(cp, triggers))
    return cp
