"""Writes of things that are not tasks of `next`: functional @task calls and state updates.

LangGraph's `get_state` lists, after a checkpoint, only the tasks `prepare_next_tasks`
foresees. Two kinds of writes rows carry other task ids:

- a functional-API `@task` call (path `~__pregel_push, <parent path>, <i>, 1`) is a PUSH
  task its parent (the entrypoint) made while it ran; it belongs under that parent's
  `calls`, and its saved result is reused when the parent runs again on resume;
- `update_state` / `bulk_update_state` (path `~__interrupt__, <i>`) runs a node's writers
  over the given values and saves those writes on the checkpoint the update builds on
  (LangGraph 1.2 `_store_or_fork_delta_writes`); no task ran, none will.

Neither is shown as a task of `next`. A call's name is not stored; it is known only when
a candidate name (from the effects log) reproduces the call's task id, which is a hash of
the name, the parent's namespace and path and the call's index (`_algo.py`
`prepare_push_task_functional`).
"""

from __future__ import annotations

import uuid

from replaylens.analysis.ids import task_id
from replaylens.model import CONTROL_CHANNELS, UPDATE_PATH, Checkpoint, StateUpdate, Task, Thread

PUSH = "__pregel_push"


def call_path(path: str) -> tuple[str, int] | None:
    """`~__pregel_push, ~__pregel_pull, pipeline, 0000000002, 0000000001` -> ("~__pregel_pull, pipeline", 2).

    A functional call's path is (PUSH, parent path, write index, True), flattened by
    `task_path_str`; a `Send`'s is (PUSH, index, False), whose second part is a number.
    """
    parts = [p.strip() for p in path.split(",")]
    if len(parts) < 4 or parts[0] != f"~{PUSH}" or not parts[1].startswith("~"):
        return None
    try:
        index = int(parts[-2])
    except ValueError:
        return None
    return ", ".join(parts[1:-2]), index


def update_index(path: str) -> int | None:
    """`~__interrupt__, 0000000001` -> 1: the i-th update of one `bulk_update_state` superstep."""
    if not path.startswith(UPDATE_PATH):
        return None
    tail = path[len(UPDATE_PATH) :].lstrip(", ").strip()
    try:
        return int(tail) if tail else 0
    except ValueError:
        return 0


def generated_update_id(checkpoint_id: str, index: int) -> str | None:
    """The id `update_state` gives an update with no due task to reuse (`_update_task_id`)."""
    try:
        base = uuid.UUID(checkpoint_id)
    except ValueError:
        return None
    return str(uuid.uuid5(base, "__interrupt__" if index == 0 else f"__interrupt__:{index}"))


def arrange(cp: Checkpoint, derived: list[Task], extra: list[Task]) -> list[Task]:
    """`next` as LangGraph lists it: calls go under their parent task, updates to `cp.updates`."""
    cp.updates = []
    for task in derived:
        idx = next(
            (
                update_index(w.task_path)
                for w in task.writes
                if update_index(w.task_path) is not None
            ),
            None,
        )
        if idx is not None:
            # update_state reused the id of the task due for this node, as LangGraph does to
            # show the update as that task's result in the state history.
            cp.updates.append(
                StateUpdate(
                    task.task_id,
                    idx,
                    list(task.writes),
                    task.node,
                    f"its id is the one of the task due for {task.node}",
                )
            )
            task.note = (
                f"its writes are a state update applied as {task.node} (update_state), not a run"
            )
    by_path = {t.path: t for t in [*derived, *extra] if t.path}
    tasks = list(derived)
    for task in extra:
        idx = update_index(task.path)
        if idx is not None:
            generated = generated_update_id(cp.checkpoint_id, idx) == task.task_id
            how = (
                "update_state gave it a generated id (uuid5 of the checkpoint id), which does not name the node"
                if generated
                else "update_state saved it under an id that names no due task"
            )
            cp.updates.append(StateUpdate(task.task_id, idx, list(task.writes), None, how))
            continue
        parsed = call_path(task.path)
        if parsed is not None:
            parent_path, index = parsed
            task.call_index = index
            parent = by_path.get(parent_path)
            if parent is not None and parent is not task:
                task.parent_task_id = parent.task_id
                parent.calls.append(task)
                parent.calls.sort(key=lambda c: c.call_index if c.call_index is not None else -1)
                task.note = f"an @task call made by {parent.node or 'its parent task'}"
                continue
            task.note = "an @task call whose parent task is not among this checkpoint's tasks"
        tasks.append(task)
    return tasks


def _run_channels(thread: Thread) -> dict[str, dict[str, set[frozenset[str]]]]:
    """Namespace -> node -> the channel sets its real runs wrote (updates excluded)."""
    out: dict[str, dict[str, set[frozenset[str]]]] = {}
    update_ids = {
        u.task_id for ns in thread.namespaces.values() for cp in ns.checkpoints for u in cp.updates
    }
    for ns in thread.namespaces.values():
        per_node = out.setdefault(ns.name, {})
        for cp in ns.checkpoints:
            for task in cp.tasks:
                if task.task_id in update_ids or not task.node or task.kind == "call":
                    continue
                chans = frozenset(
                    w.channel for w in task.writes if w.channel not in CONTROL_CHANNELS
                )
                if chans:
                    per_node.setdefault(task.node, set()).add(chans)
    return out


def name_updates(thread: Thread) -> None:
    """Say which node each state update was applied as, where the database tells it.

    Exact when the update reused a due task's id, or when LangGraph before 1.0 named the
    node in the update checkpoint's `metadata.writes`; otherwise inferred when exactly one
    node's real runs wrote the same channels (a node's writers always write the same
    channels: its state keys and the edge channels after it); else left unknown.
    """
    runs = _run_channels(thread)
    for ns in thread.namespaces.values():
        for cp in ns.checkpoints:
            for update in cp.updates:
                if update.as_node:
                    continue
                named = _named_by_metadata(ns.by_id, cp)
                if named:
                    update.as_node, update.how = named, "the update checkpoint's metadata names it"
                    continue
                wrote = frozenset(update.channels)
                matches = sorted(n for n, sets in runs.get(ns.name, {}).items() if wrote in sets)
                if len(matches) == 1:
                    update.as_node = matches[0]
                    update.how = (
                        f"inferred: it wrote the same channels ({', '.join(sorted(wrote))}) as the runs of "
                        f"{matches[0]}, and no other node's runs did; {update.how}"
                    )
                elif matches:
                    update.how += f"; the channels it wrote fit {', '.join(matches)} alike"


def _named_by_metadata(by_id: dict[str, Checkpoint], cp: Checkpoint) -> str | None:
    for child_id in cp.children:
        child = by_id.get(child_id)
        if child is None or child.source != "update":
            continue
        writes = child.record.metadata.get("writes")
        if isinstance(writes, dict) and len(writes) == 1:
            (name,) = writes
            return str(name)
    return None


def call_id_matches(
    cp: Checkpoint, parent: Task, call: Task, name: str, callers: tuple[Task, ...] = ()
) -> bool:
    """Is `call`'s id the one LangGraph gives a call of `name` made by `parent`?

    `prepare_push_task_functional` hashes the checkpoint id, the call's namespace
    (`<parent ns>|<name>`, the parent's ns being `<node>:<task id>`), the step, the name,
    PUSH, the parent's path and the call's index. A match is proof of the name.
    """
    parsed = call_path(call.path)
    if parsed is None or cp.step is None or not name:
        return False
    parent_path, index = parsed
    # A call made by a call (`callers`: the tasks above `parent`, outermost first) runs in
    # the namespace of every task above it.
    own = "|".join(f"{t.node}:{t.task_id}" for t in (*callers, parent))
    parent_ns = f"{cp.checkpoint_ns}|{own}" if cp.checkpoint_ns else own
    tid = task_id(
        cp.record.v,
        cp.checkpoint_id,
        f"{parent_ns}|{name}",
        str(cp.step + 1),
        name,
        PUSH,
        parent_path,
        str(index),
    )
    return tid == call.task_id
