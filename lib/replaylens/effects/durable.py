"""What every writer of effects-log lines shares: the durable append and the task's fields.

`record_effect`, the tracing span processor and callback handler (`replaylens.tracing`) and
the kill test's callbacks source all write through `append_line`: one `write()` on an
`O_APPEND` descriptor under an exclusive `flock`, then `fsync`, so a line survives a
SIGKILL a microsecond later and lines of parallel tasks and processes never interleave.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Mapping
from typing import Any, Literal

from replaylens.namespaces import own_namespace, segments

DESCRIBES = "describes"
"""The extra key that says what a line describes: "task" for a task's own start and end
lines (traces, callbacks), "tool" for a tool call; absent on `record_effect` lines."""


def append_line(path: str | os.PathLike[str], record: dict[str, Any]) -> None:
    """Append one JSON line durably: one write, under flock, then fsync."""
    data = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode()
    fd = os.open(os.fspath(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def task_fields(
    metadata: Mapping[str, Any], configurable: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """thread_id, node, step, task_id and checkpoint_ns of a task from the metadata LangGraph
    puts on its runs (`thread_id`, `langgraph_node`, `langgraph_step`,
    `langgraph_checkpoint_ns`), the configurable first where it has them."""
    conf = configurable or {}
    fields: dict[str, Any] = {}
    thread_id = conf.get("thread_id", metadata.get("thread_id"))
    if thread_id is not None:
        fields["thread_id"] = str(thread_id)
    if "langgraph_node" in metadata:
        fields["node"] = metadata["langgraph_node"]
    if "langgraph_step" in metadata:
        fields["step"] = metadata["langgraph_step"]
    task_ns = metadata.get("langgraph_checkpoint_ns") or conf.get("checkpoint_ns") or ""
    if task_ns:
        place = own_namespace(str(task_ns))  # "parent:taskid|node:taskid": the task's own form
        fields["task_id"], fields["checkpoint_ns"] = place.task_id, place.checkpoint_ns
    triggers = metadata_triggers(metadata)
    if triggers:
        # the channels that made the task due: a join's (`join:a+b:c`) is the only place a
        # join shows where the database saved nothing but the input (exit, `analysis.joins`)
        fields[TRIGGERS_KEY] = triggers
    return fields


def metadata_triggers(metadata: Mapping[str, Any]) -> list[str]:
    """The channels LangGraph's run metadata says made a task due (``langgraph_triggers``),
    as strings; none where it does not say, or says it in another shape."""
    triggers = metadata.get(TRIGGERS_KEY)
    return [str(t) for t in triggers] if isinstance(triggers, (list, tuple)) else []


TRIGGERS_KEY = "langgraph_triggers"
"""The extra key of a task's lines naming the channels whose writes made it due, as LangGraph's
run metadata gives them (``langgraph_triggers``; ``join:a+b:c`` for a join's node)."""


OWN_THREAD_UNDER = "own_thread_under"
"""The extra key of a line whose task ran in a graph that another task invoked on a
checkpoint lineage of its own (``child.invoke(x, {"configurable": {"thread_id": ...}})``
inside a node): the id of that enclosing task. LangChain hands the caller's run metadata down
to every run below it, so the child graph's runs carry the caller's `thread_id`; the child's
namespace starts again at the root (``ensure_config`` drops the ambient configurable when
the explicit one names a thread), so its tasks would read as root tasks of the caller's
thread. They are not: a resume of that thread never runs them (their own thread does)."""


def own_lineage(outer_task_ns: str, inner_task_ns: str) -> bool:
    """Is a task run found inside another task's run (in the trace's run tree) the task of a
    graph invoked on a lineage of its own? Both are full task namespaces
    (`langgraph_checkpoint_ns`, ``parent_ns|node:task_id``). A subgraph's task and an
    `@task` call hang below the enclosing task's namespace (``p:<id>|n:<id>``; below a
    `checkpointer=True` graph the levels above keep their names, not their task ids:
    ``p|n:<id>``); a graph given a thread of its own starts again at the root (``n:<id>``)."""
    if not outer_task_ns or not inner_task_ns or inner_task_ns == outer_task_ns:
        return False
    outer, inner = segments(outer_task_ns), segments(inner_task_ns)
    if len(inner) <= len(outer):
        return True
    return not all(
        o_name == i_name and (o_id is None or i_id is None or o_id == i_id)
        for (o_name, o_id), (i_name, i_id) in zip(outer, inner, strict=False)
    )


class TaskRunTree:
    """The runs a LangChain callback handler has seen start and not yet end: enough of the
    run tree to tell, for a task run, whether it is the task's own run again (a raw `Pregel`
    node whose function has the node's name reports a run inside the task's run) or the
    task of a graph another task ran on a thread of its own (`own_lineage`). Callbacks come
    from the tasks' threads at once: every method holds the lock."""

    def __init__(self) -> None:
        self._parent: dict[Any, Any] = {}
        self._task: dict[Any, tuple[str, str | None]] = {}  # run -> (full ns, OWN_THREAD_UNDER)
        self._lock = threading.Lock()

    def run_started(self, run_id: Any, parent_run_id: Any) -> None:
        with self._lock:
            self._parent[run_id] = parent_run_id

    def run_ended(self, run_id: Any) -> None:
        with self._lock:
            self._parent.pop(run_id, None)
            self._task.pop(run_id, None)

    def _enclosing(self, run_id: Any) -> tuple[str, str | None] | None:
        seen = 0
        while run_id is not None and seen < 10_000:  # bounded: a cycle is a caller's bug
            if run_id in self._task:
                return self._task[run_id]
            run_id = self._parent.get(run_id)
            seen += 1
        return None

    def task_started(
        self, run_id: Any, parent_run_id: Any, task_ns: str
    ) -> tuple[bool, str | None]:
        """(is it a run inside the task's own run, the `OWN_THREAD_UNDER` value of its lines)."""
        with self._lock:
            self._parent[run_id] = parent_run_id
            outer = self._enclosing(parent_run_id)
            if outer is not None and outer[0] == task_ns:
                return True, None
            mark = outer[1] if outer is not None else None
            if mark is None and outer is not None and own_lineage(outer[0], task_ns):
                mark = own_namespace(outer[0]).task_id or outer[0]
            self._task[run_id] = (task_ns, mark)
            return False, mark

    def mark_below(self, parent_run_id: Any) -> str | None:
        """The `OWN_THREAD_UNDER` value of the task a tool run hangs below, if any."""
        with self._lock:
            outer = self._enclosing(parent_run_id)
            return outer[1] if outer is not None else None


NOT_A_FAILURE = frozenset({"GraphInterrupt", "NodeInterrupt", "ParentCommand"})
"""Exceptions by which a LangGraph node pauses or hands control on: `interrupt()` raises
GraphInterrupt (the node paused, it did not fail), `Command(graph=PARENT)` ParentCommand."""


HANDS_ON = frozenset({"ParentCommand"})
"""Of `NOT_A_FAILURE`, the exceptions by which a task ends and hands a `Command` to a graph
above: the task that catches it applies the command as its own writes, and goes on."""


TaskEnd = Literal["end", "error", "interrupted"]


def task_end_phase(exception_type: str | None) -> TaskEnd:
    """The closing line of a task's span that ended with this exception (None: none).

    `interrupt()` pauses the task (``interrupted``). `Command(graph=PARENT)` raises
    `ParentCommand` out of the task and of every task around it up to the graph it names,
    whose task applies it as its writes: each of those tasks ended (``end``); LangChain
    reports each as a chain error all the same (test_parent_command_goto). Anything else
    failed."""
    if exception_type is None:
        return "end"
    name = exception_type.rpartition(".")[2]
    if name in HANDS_ON:
        return "end"
    return "interrupted" if name in NOT_A_FAILURE else "error"
