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
from collections.abc import Mapping
from typing import Any, Literal

from replaylens.namespaces import own_namespace

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
    return fields


NOT_A_FAILURE = frozenset({"GraphInterrupt", "NodeInterrupt", "ParentCommand"})
"""Exceptions by which a LangGraph node pauses or hands control on: `interrupt()` raises
GraphInterrupt (the node paused, it did not fail), `Command(graph=PARENT)` ParentCommand."""


HANDS_ON = frozenset({"ParentCommand"})
"""Of `NOT_A_FAILURE`, the exceptions by which a task ends and hands a `Command` to a graph
above: the task that catches it applies the command as its own writes, and goes on."""


def is_graph_interrupt(exception_type: str) -> bool:
    """Whether an exception of this type name (`GraphInterrupt`, or a dotted path ending in
    it, as traces name them) is a pause, not a failure."""
    return exception_type.rpartition(".")[2] in NOT_A_FAILURE


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
