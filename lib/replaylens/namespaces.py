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

A task that starts more than one graph loop (a node or an ``@task`` that calls two compiled
graphs' ``invoke()``, or one twice) gives the second and later ones the first one's namespace
with a call counter appended: ``parent_node:<id>|1``, ``parent_node:<id>|2``
(``pregel/_loop.py``: ``if cnt := scratchpad.subgraph_counter()``, the count joined with
``NS_SEP``); a ``checkpointer=True`` one keeps it in its stable form (``parent_node|1``). That
counter is part of the level it follows, not a level of its own: ``parent_node:<id>|1`` is run
by the root task ``<id>``, beside ``parent_node:<id>``, not inside it. `levels` reads it so;
`names` writes it as ``parent_node~1`` so that a node path keeps one ``|`` per level.

`task_namespace` turns either form into the stripped one; every other function here takes a
stored (stripped) namespace.
"""

from __future__ import annotations

from collections.abc import Container
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


CALL = "~"
"""How `names` writes a call counter: ``parent_node~1`` for ``parent_node:<id>|1``."""


def _is_counter(part: str) -> bool:
    return part.isdigit() and part.isascii()


def levels(checkpoint_ns: str | None) -> list[str]:
    """One entry per loop level, a call counter kept with the level it follows:
    `a:1|b:2` -> [`a:1`, `b:2`]; `p:1|1|q:3` -> [`p:1|1`, `q:3`]."""
    out: list[str] = []
    for part in checkpoint_ns.split(NS_SEP) if checkpoint_ns else ():
        if out and _is_counter(part):
            out[-1] = f"{out[-1]}{NS_SEP}{part}"
        else:
            out.append(part)
    return out


def _level(level: str) -> tuple[str, str | None, int]:
    """`p:1f|2` -> ("p", "1f", 2): the node, the task id (None without one), the call counter."""
    head, _, counter = level.partition(NS_SEP)
    name, sep, tid = head.partition(NS_END)
    return name, tid if sep and tid else None, int(counter) if counter else 0


def depth(checkpoint_ns: str | None) -> int:
    """How many loops down a namespace is: 0 for the root, 1 for `a:1` and for `a:1|1`."""
    return len(levels(checkpoint_ns))


def segments(checkpoint_ns: str | None) -> list[tuple[str, str | None]]:
    """`sub:1f2e|inner:ab` -> [("sub", "1f2e"), ("inner", "ab")]; a segment without an id
    (a namespace written with names only) has None; a call counter is dropped (the task
    that runs the loop is the same)."""
    return [_level(level)[:2] for level in levels(checkpoint_ns)]


def names(checkpoint_ns: str | None) -> str:
    """`sub:1f2e|inner:ab` -> `sub|inner`: task ids change when a step re-runs, node names
    do not, so this is the same subgraph across its calls and across threads. The second
    graph one task starts is another loop: `p:1f|1` -> `p~1`."""
    out = []
    for level in levels(checkpoint_ns):
        name, _, call = _level(level)
        out.append(f"{name}{CALL}{call}" if call else name)
    return NS_SEP.join(out)


def label(checkpoint_ns: str | None, sep: str = " › ") -> str:
    """`sub:1f2e|inner:ab` -> `sub › inner`, for display ("" for the root); the second graph
    one task starts reads `p (graph 2)`."""
    out = []
    for level in levels(checkpoint_ns):
        name, _, call = _level(level)
        out.append(f"{name} (graph {call + 1})" if call else name)
    return sep.join(out)


def parent(checkpoint_ns: str) -> str:
    """The namespace of the loop that runs this one (`a:1|b:2` -> `a:1`, `a:1` -> ``""``,
    `a:1|1` -> ``""``)."""
    return NS_SEP.join(levels(checkpoint_ns)[:-1])


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
    """Is `checkpoint_ns` a namespace nested (at any depth) under `ancestor`? (`a:1|1` is
    beside `a:1`, not below it.)"""
    mine, theirs = levels(checkpoint_ns), levels(ancestor)
    return len(mine) > len(theirs) and mine[: len(theirs)] == theirs


def call_siblings(checkpoint_ns: str, known: Container[str]) -> list[str]:
    """The loops the same task started after the one at `checkpoint_ns` (`a:1|1`, `a:1|2`,
    … while `known` holds them), the first one excluded."""
    out: list[str] = []
    while (nxt := f"{checkpoint_ns}{NS_SEP}{len(out) + 1}") in known:
        out.append(nxt)
    return out


ERROR_HANDLER = "__error_handler__"
"""How LangGraph 1.2 names the node of an ``add_node(..., error_handler=...)``:
``__error_handler__<node>`` (``graph/state.py``)."""
DEFAULT_ERROR_HANDLER = "__default_error_handler__"
"""The one handler node ``StateGraph.set_node_defaults(error_handler=...)`` adds: it takes
the failure of every node that has no handler of its own (``graph/state.py``)."""


def is_error_handler(node: str | None) -> bool:
    """Is `node` an error handler's node, a node's own or the builder's default one?"""
    return bool(node) and (str(node).startswith(ERROR_HANDLER) or node == DEFAULT_ERROR_HANDLER)


def handles(handler: str, node: str) -> bool:
    """Can error-handler node `handler` take `node`'s failure: it is the node's own handler,
    or the builder's default one (which takes no handler's failure)."""
    if handler == DEFAULT_ERROR_HANDLER:
        return bool(node) and not is_error_handler(node)
    return handler == f"{ERROR_HANDLER}{node}"


def _handler_home(place: TaskPlace, node: str | None) -> TaskPlace:
    """An error handler runs as a task of the loop its failed task ran in (its writes and
    its step are that loop's), but LangGraph hands it a namespace one level below the
    failed task's (``pregel/_algo.py``, ``prepare_node_error_handler_task`` builds it from
    the failed task's config): ``charge:<id>|__error_handler__charge:<id>``. That extra
    segment, named after the failed node, is not a subgraph (the default handler's too:
    ``fail_a:<id>|__default_error_handler__:<id>``)."""
    if not node or not is_error_handler(node):
        return place
    head, sep, last = place.checkpoint_ns.rpartition(NS_SEP)
    if not handles(node, last.partition(NS_END)[0]):
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
