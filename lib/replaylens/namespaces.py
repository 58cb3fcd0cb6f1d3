"""Checkpoint namespaces and task ids: the one place that reads them.

LangGraph names where a checkpoint lives with ``checkpoint_ns``: ``""`` for the root
graph, ``"<node>:<task id>"`` for a subgraph run by the root task ``<task id>`` of node
``<node>``, and ``"outer:<id>|inner:<id>"`` one level further down (``NS_SEP = "|"``,
``NS_END = ":"`` in ``langgraph/_internal/_constants.py``; the segments are built in
``pregel/_algo.py``, ``prepare_single_task``: ``task_checkpoint_ns = f"{checkpoint_ns}{NS_END}{task_id}"``
after ``checkpoint_ns = f"{parent_ns}{NS_SEP}{name}" if parent_ns else name``).

Two forms reach this project in effects logs:

* **the task's own namespace**, as a node sees it in ``config["configurable"]["checkpoint_ns"]``
  and as callbacks see it in ``metadata["langgraph_checkpoint_ns"]``: every segment up to and
  including the task's own, ``"node:<task id>"`` for a root task,
  ``"sub:<id>|node:<task id>"`` for a node of a subgraph (measured on langgraph 1.2.24:
  a root node ``a`` sees ``a:3de6…``, a node ``inner_a`` of subgraph ``sub`` sees
  ``sub:4fdc…|inner_a:c3ff…``, a ``Send`` worker ``w`` sees ``w:06a2…``, a functional
  ``@task`` call ``t1`` of entrypoint ``ep`` sees ``ep:1c37…|t1:cac8…``);
* **the stripped form** this project's recorder writes: the namespace the task's
  checkpoints and writes live in (everything before the last segment) with the task id in
  a field of its own.

A functional ``@task`` call is the one case where the two differ from where the writes
live: it runs inside its caller's task, so its stripped form is the caller's own namespace
(``ep:1c37…``) while its writes are saved in the caller's loop (``""``, measured);
`analysis.durability` tells calls from subgraph nodes by whether the database holds that
namespace.

`task_namespace` turns either form into the stripped one; every other function here takes a
stored (stripped) namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NS_SEP = "|"
NS_END = ":"

LoggedForm = Literal["task", "stripped", "root"]
"""How a logged namespace was written: the task's own (LangGraph's), stripped, or empty."""


@dataclass(frozen=True)
class TaskPlace:
    """Where a logged task ran: the namespace its checkpoints live in, and its task id."""

    checkpoint_ns: str
    task_id: str | None
    form: LoggedForm


def segments(checkpoint_ns: str | None) -> list[tuple[str, str | None]]:
    """`sub:1f2e|inner:ab` -> [("sub", "1f2e"), ("inner", "ab")]; a segment without an id
    (a namespace written with names only) has None."""
    if not checkpoint_ns:
        return []
    out: list[tuple[str, str | None]] = []
    for part in checkpoint_ns.split(NS_SEP):
        name, sep, tid = part.partition(NS_END)
        out.append((name, tid if sep and tid else None))
    return out


def names(checkpoint_ns: str | None) -> str:
    """`sub:1f2e|inner:ab` -> `sub|inner`: task ids change when a step re-runs, node names
    do not, so this is the same subgraph across its calls and across threads."""
    return NS_SEP.join(name for name, _ in segments(checkpoint_ns))


def label(checkpoint_ns: str | None, sep: str = " › ") -> str:
    """`sub:1f2e|inner:ab` -> `sub › inner`, for display ("" for the root)."""
    return sep.join(name for name, _ in segments(checkpoint_ns))


def parent(checkpoint_ns: str) -> str:
    """The namespace of the loop that runs this one (`a:1|b:2` -> `a:1`, `a:1` -> ``""``)."""
    return checkpoint_ns.rpartition(NS_SEP)[0]


def runner(checkpoint_ns: str) -> tuple[str, str | None]:
    """(node, task id) of the task of the parent loop that runs this subgraph namespace:
    the last segment (`a:1|b:2` -> ("b", "2"))."""
    segs = segments(checkpoint_ns)
    return segs[-1] if segs else ("", None)


def root_runner(checkpoint_ns: str) -> tuple[str, str | None]:
    """(node, task id) of the root-graph task a namespace hangs under: the first segment."""
    segs = segments(checkpoint_ns)
    return segs[0] if segs else ("", None)


def is_below(checkpoint_ns: str, ancestor: str) -> bool:
    """Is `checkpoint_ns` a namespace nested (at any depth) under `ancestor`?"""
    if checkpoint_ns == ancestor:
        return False
    return not ancestor or checkpoint_ns.startswith(ancestor + NS_SEP)


ERROR_HANDLER = "__error_handler__"
"""How LangGraph 1.2 names the node of an ``add_node(..., error_handler=...)``:
``__error_handler__<node>`` (``graph/state.py``)."""


def _handler_home(place: TaskPlace, node: str | None) -> TaskPlace:
    """An error handler runs as a task of the loop its failed task ran in (its writes and
    its step are that loop's), but LangGraph hands it a namespace one level below the
    failed task's (``pregel/_algo.py``, ``prepare_node_error_handler_task`` builds it from
    the failed task's config): ``charge:<id>|__error_handler__charge:<id>``. That extra
    segment, named after the failed node, is not a subgraph."""
    if not node or not node.startswith(ERROR_HANDLER):
        return place
    head, sep, last = place.checkpoint_ns.rpartition(NS_SEP)
    if last.partition(NS_END)[0] != node[len(ERROR_HANDLER) :]:
        return place
    return TaskPlace(head if sep else "", place.task_id, place.form)


def own_namespace(task_ns: str) -> TaskPlace:
    """LangGraph's task namespace as a node or callback is handed it (always the task's own
    form) -> where the task's checkpoints live, and its id."""
    head, sep, last = task_ns.rpartition(NS_SEP)
    name, end, tid = last.partition(NS_END)
    return _handler_home(TaskPlace(head if sep else "", tid if end and tid else None, "task"), name)


def task_namespace(logged_ns: str | None, node: str | None, task_id: str | None) -> TaskPlace:
    """A logged namespace in either form -> where the task's checkpoints live, and its id.

    The task's own form ends in a segment named after the task's node whose id is the
    task's id: `a:<tid>` logged by node `a`, `sub:<id>|inner:<tid>` by node `inner`. The
    stripped form ends in the segment of the task that runs the subgraph (another node's
    name), or is empty for a root task. A last segment named after the node with a task
    id that differs from the line's own `task_id` is the stripped form (a subgraph with a
    node of its own name).
    """
    segs = segments(logged_ns)
    if not segs:
        return TaskPlace("", task_id, "root")
    name, tid = segs[-1]
    if node is not None and name == node and tid is not None and (task_id in (None, tid)):
        return own_namespace(logged_ns or "")
    return _handler_home(TaskPlace(logged_ns or "", task_id, "stripped"), node)
