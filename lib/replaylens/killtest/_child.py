"""One graph invocation in a process of its own, so that a parent can SIGKILL it mid-node.

Run as ``python -m replaylens.killtest._child '<json spec>'``. The spec names the graph
(``module:attr``), the store (a SQLite file, or a Postgres schema whose DSN comes in the
environment variable REPLAYLENS_KILLTEST_DSN, never on the command line, where `ps`
would show its password), the thread, the durability mode and what to send (an input,
``null`` to resume, or ``resume_value`` for ``Command(resume=...)``).

The saver is LangGraph's real one (SqliteSaver, PostgresSaver), subclassed only to add
hooks around its own `put` and `put_writes`: a write latency, an fsync'ed log of what
each call acknowledged (``acks``: the parent compares it with what a crashed database
still holds), and the named fault points, where the child SIGKILLs itself at an exact
place in the write path:

* ``after-writes``: right after the `put_writes` of a task of the chosen node returned,
  before the checkpoint of its superstep was `put`;
* ``before-first-checkpoint``: on entry to the first `put`, before anything is saved;
* ``put-in-flight``: the `put` of the checkpoint that records the chosen node's
  superstep (metadata ``step`` equal to the task's ``langgraph_step``; without a node,
  the first loop checkpoint) is held open for ``hold`` seconds (a slow round trip),
  then the child dies before it completes; under `async` the next superstep's nodes
  start meanwhile, under `sync` they wait.

The parent learns where the child is through stdout, one flushed line per event:

* ``NODE_START <node> <step>`` when a task starts (once per task, subgraph nodes and
  functional ``@task`` calls included), so a kill can be aimed at "the 1st start of c";
* ``WRITES <node> <task_id>`` when a task's `put_writes` has returned (its writes are in
  the database), so a kill can wait until the siblings it must spare have written;
* ``FAULT <point> <detail>`` just before the child kills itself at a fault point;
* ``RESULT <json>`` at the end: ``{"ok", "error", "interrupted", "output_keys"}``. Every
  exception, ``EmptyInputError`` included, becomes a RESULT line: the parent wants the
  outcome as data, not a traceback to scrape.

With ``callbacks_log`` the child also writes a start/end/error line per task to that
file through LangChain's callbacks (flock + fsync, as the recorder does), so repeats can
be counted on a graph whose nodes never call `record_effect`.

Start-up is kept lean (LangGraph and the checkpointer are imported only once the spec
has been read): the window in which a kill can land is what is being measured, and a
slow interpreter start only lengthens every test.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import os
import signal
import sqlite3
import sys
import threading
import time
from typing import Any, Literal

from replaylens.analysis import node_cache

NODE_START = "NODE_START"
WRITES = "WRITES"
FAULT = "FAULT"
RESULT = "RESULT"
CACHED_NODES = "CACHED_NODES"
DSN_ENV = "REPLAYLENS_KILLTEST_DSN"
UPDATE_STATE = "__replaylens_update_state__"
"""An input ``{UPDATE_STATE: {"values": ..., "as_node": ...}}`` is not sent to the graph: the
child calls ``graph.update_state`` on the thread's latest checkpoint instead (a human editing
the state at a breakpoint, test_pregel.py's ``update_state`` then ``invoke(None)``)."""


INVOCATION_TASK = "replaylens-invocation"
"""The name of the asyncio task an ``ainvoke`` child awaits its invocation in."""


_INVOCATION: list[Any] = []
"""The task `_cancellable` awaits the running ``ainvoke`` in (at most one)."""


def cancel_invocation() -> bool:
    """Cancel the running ``ainvoke`` from outside, as ``asyncio.wait_for``'s timeout or a
    client's disconnect would (test_pregel_async.py::test_checkpoint_put_after_cancellation).
    Called from a node: an ``async def`` one on the event loop, or a plain one on the worker
    thread ``ainvoke`` runs it on (test_runtime.py::test_cancel_ainvoke_with_sync_node: the
    cancel reaches the loop, the thread runs on). The child reports the invocation as ended
    by ``CancelledError`` and goes on with the next input. Returns whether there was an
    invocation to cancel."""
    if not _INVOCATION or _INVOCATION[0].done():
        return False
    task = _INVOCATION[0]
    loop = task.get_loop()
    if _running_loop() is loop:
        return bool(task.cancel())
    loop.call_soon_threadsafe(task.cancel)
    return True


def _running_loop() -> Any:
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a worker thread: no loop runs here
        return None


COMMAND = "__replaylens_command__"
"""An input ``{COMMAND: {"goto": ..., "update": ..., "resume": ...}}`` is sent to the graph as
``Command(**those keys)`` (test_pregel.py's ``invoke(Command(goto=[...]))`` at a breakpoint)."""


SEND = "__replaylens_send__"
"""A `goto` item ``{SEND: {"node": ..., "arg": ...}}`` of a `command()` stands for
``Send(node, arg)``."""


def command(**keys: Any) -> dict[str, Any]:
    """The invocation input that makes a kill-test child send ``Command(**keys)`` (JSON values:
    `goto` a node name, a `send()`, or a list of them, `update`, `resume`). As the values of
    a `state_update`, the Command is written as that node's output
    (test_batch_update_as_input's ``StateUpdate(Command(goto=[Send(...)]), "map")``)."""
    unknown = set(keys) - {"goto", "update", "resume"}
    if unknown:
        raise ValueError(
            f"command() takes goto, update and resume, not {', '.join(sorted(unknown))}"
        )
    return {COMMAND: keys}


def send(node: str, arg: Any) -> dict[str, Any]:
    """A `command()` goto item that stands for ``Send(node, arg)`` (`arg` JSON)."""
    if not isinstance(node, str) or not node:
        raise ValueError(f"send() takes a node name, not {node!r}")
    return {SEND: {"node": node, "arg": arg}}


def _command_input(payload: Any) -> Any:
    """The `Command` a `command()` input stands for (its `send()` items as `Send`s), or the
    input itself."""
    if isinstance(payload, dict) and isinstance(payload.get(COMMAND), dict):
        from langgraph.types import Command

        keys = dict(payload[COMMAND])
        if "goto" in keys:
            goto = keys["goto"]
            keys["goto"] = (
                [_goto_item(g) for g in goto] if isinstance(goto, list) else _goto_item(goto)
            )
        return Command(**keys)
    return payload


def _goto_item(item: Any) -> Any:
    """A node name as it is, a `send()` as the `Send` it stands for."""
    if isinstance(item, dict) and isinstance(item.get(SEND), dict):
        from langgraph.types import Send

        return Send(item[SEND]["node"], item[SEND]["arg"])
    return item


FORK = "__replaylens_fork__"
"""An input ``{FORK: {"back": n, "next": node, "update": values, "input": ...}}`` is sent to
the graph from an earlier checkpoint of the thread: the root checkpoint `n` entries back in
``get_state_history`` (the oldest there is, if it holds fewer), or, with `next`, the oldest
root checkpoint whose next task is that node alone (with `newest`, the newest such one),
named by its ``checkpoint_id`` in the config — LangGraph's time travel, a fork (test_large_cases_async.py's
test_fork_always_re_runs_nodes). With `update`, ``update_state`` writes those values there
first and the run goes on from the checkpoint it saved (test_time_travel.py's forks with
modified state). With `ns`, the checkpoint is one of that ``checkpointer=True`` subgraph's
own (``checkpoint_ns`` and ``checkpoint_map`` in the config, as
``get_state(config, subgraphs=True)``'s task states hand it), `next` naming the task due in
it."""


END = "__end__"
"""LangGraph's ``END`` (the child imports no LangGraph before it runs a graph): as a fork's
`next`, the checkpoint where nothing is due."""


def fork(  # noqa: A002 - `input` is LangGraph's word
    back: int = 0,
    input: Any = None,
    *,
    next: str | None = None,
    update: Any = None,
    newest: bool = False,
    as_node: str | None = None,
    ns: str | None = None,
) -> dict[str, Any]:
    """The invocation input that makes a kill-test child replay the thread from an earlier
    root checkpoint: `back` entries before its latest, or the oldest whose next task is
    `next` (the same checkpoint under every durability mode, where counting back is not:
    exit saves fewer; ``next="__end__"``, the oldest where nothing is due, the end of the
    thread's first run; with `newest`, the newest one: the last invocation's, as
    test_time_travel.py picks ``[s for s in history if s.next == (node,)][0]``), optionally
    edited first (``update_state(config, update, as_node=as_node)``; ``as_node="__copy__"``
    with no update saves a plain copy there, test_copy_fork_retriggers_interrupt), then
    ``invoke(input, config with that checkpoint_id)``; the resume after a kill goes on from
    the thread's latest checkpoint. With `ns` (a ``checkpointer=True`` subgraph's namespace:
    its node's name, or the names down a nesting, ``"outer|inner"``), the checkpoint is that
    subgraph's own where `next` is due, reached through the checkpoint of each level above
    where the level below is due (test_time_travel.py's replays from a subgraph checkpoint)."""
    if not isinstance(back, int) or back < 0:
        raise ValueError(f"fork() takes a number of checkpoints back (0 or more), not {back!r}")
    if next is not None and not isinstance(next, str):
        raise ValueError(f"fork(next=...) takes a node name, not {next!r}")
    if ns is not None and (
        not isinstance(ns, str) or not all(ns.split("|")) or ":" in ns or next is None
    ):
        raise ValueError(
            f"fork(ns=...) takes the names of nested `checkpointer=True` subgraph nodes "
            f"('outer' or 'outer|inner') and a `next` due in the last, not {ns!r}"
        )
    return {FORK: {"back": back, "input": input, "next": next, "update": update,
                   "newest": bool(newest), "as_node": as_node, "ns": ns}}  # fmt: skip


def _edits(forked: dict[str, Any]) -> bool:
    """Does the fork edit the checkpoint before running from it (values, or a node to
    write as, such as ``__copy__``)?"""
    return forked.get("update") is not None or forked.get("as_node") is not None


def _edited(config: dict[str, Any], saved: Any) -> dict[str, Any]:
    """`config` pointed at the checkpoint ``update_state`` saved: its own config names only the
    thread and the checkpoint, and the run must keep the rest (the callbacks that announce
    each node's start, which the kill is aimed at)."""
    return {**config, "configurable": {**config["configurable"], **saved["configurable"]}}


def _fork(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The ``fork`` an input asks for, if it is one."""
    payload = spec.get("input")
    if isinstance(payload, dict) and isinstance(payload.get(FORK), dict):
        return payload[FORK]
    return None


def _fork_config(
    config: dict[str, Any],
    history: list[Any],
    forked: dict[str, Any],
    below: dict[str, list[Any]] | None = None,
) -> dict[str, Any]:
    """`config` pointed at the checkpoint the fork names in `history` (newest first): `back`
    entries into it, or the oldest (with `newest`, the newest) whose next task is `next`
    alone. With a namespace, `below` holds the history of each level down to it
    (`_subgraph_fork_config`)."""
    ns = forked.get("ns")
    if ns:
        return _subgraph_fork_config(config, history, forked, below or {})
    back, next_node, newest = int(forked["back"]), forked.get("next"), bool(forked.get("newest"))
    if not history:
        return config
    chosen = history[min(back, len(history) - 1)]
    if next_node is not None:
        chosen = _due(history, next_node, newest) or chosen
    target = chosen.config["configurable"]
    configurable = {**config["configurable"], "checkpoint_ns": "",
                    "checkpoint_id": target["checkpoint_id"]}  # fmt: skip
    return {**config, "configurable": configurable}


def _subgraph_fork_config(
    config: dict[str, Any],
    history: list[Any],
    forked: dict[str, Any],
    below: dict[str, list[Any]],
) -> dict[str, Any]:
    """`config` pointed at a ``checkpointer=True`` subgraph's own checkpoint where `next` is
    due, with the checkpoint map LangGraph hands out for it: at each level above, the
    checkpoint where the next level's node is due (``get_state(subgraphs=True)``'s nested
    task states)."""
    ns, newest = forked["ns"], bool(forked.get("newest"))
    levels = ns.split("|")
    chosen: dict[str, Any] = {}
    for depth, level in enumerate(["", *_prefixes(levels)]):
        due = levels[depth] if depth < len(levels) else forked.get("next")
        snapshot = _due(history if level == "" else below.get(level, []), due, newest)
        if snapshot is None:
            where = f"that subgraph ({level})" if level else "the root"
            raise ValueError(
                f"fork(ns={ns!r}, next={forked.get('next')!r}): the thread holds no "
                f"checkpoint of {where} where {due!r} is due"
            )
        chosen[level] = snapshot.config["configurable"]["checkpoint_id"]
    configurable = {**config["configurable"], "checkpoint_ns": ns, "checkpoint_id": chosen[ns],
                    "checkpoint_map": chosen}  # fmt: skip
    return {**config, "configurable": configurable}


def _prefixes(levels: list[str]) -> list[str]:
    """`["a", "b"]` -> `["a", "a|b"]`: each namespace from the top down to the last."""
    return ["|".join(levels[: k + 1]) for k in range(len(levels))]


def _levels_of(forked: dict[str, Any]) -> list[str]:
    """The namespaces from the fork's top subgraph down to its own (none for a root fork)."""
    ns = forked.get("ns")
    return _prefixes(ns.split("|")) if ns else []


def _in_namespace(config: dict[str, Any], ns: str) -> dict[str, Any]:
    """The thread's config in namespace `ns`."""
    return {**config, "configurable": {**config["configurable"], "checkpoint_ns": ns}}


def _due(history: list[Any], node: str | None, newest: bool) -> Any:
    """The oldest (or newest) snapshot in `history` (newest first) whose next task is `node`
    alone, or None. With `END`, one a run ended at: nothing due, saved by the loop (under
    exit, LangGraph 1.2 keeps a `DeltaChannel`'s writes in a checkpoint of no source, step
    -2, with nothing due either, older than any run's)."""
    if node == END:
        due = [s for s in history if not s.next and (s.metadata or {}).get("source") == "loop"]
    else:
        due = [s for s in history if tuple(s.next) == (node,)]
    if not due:
        return None
    return due[0] if newest else due[-1]


def state_update(values: Any, as_node: str | None = None) -> dict[str, Any]:
    """The invocation input that makes a kill-test child edit the thread's state
    (``graph.update_state(config, values, as_node=as_node)``) instead of invoking the graph."""
    return {UPDATE_STATE: {"values": values, "as_node": as_node}}


"""The Postgres DSN reaches the child through the environment: argv is world-readable."""

Api = Literal["invoke", "ainvoke"]
APIS: tuple[Api, ...] = ("invoke", "ainvoke")
"""How the child runs the graph: `graph.invoke` on LangGraph's sync loop and saver, or
``asyncio.run(graph.ainvoke(...))`` on its async loop and saver (AsyncSqliteSaver,
AsyncPostgresSaver), as a FastAPI service or LangGraph's server would."""


FaultPoint = Literal["after-writes", "before-first-checkpoint", "put-in-flight"]
FAULT_POINTS: tuple[FaultPoint, ...] = ("after-writes", "before-first-checkpoint", "put-in-flight")
DEFAULT_HOLD = 0.2
"""Seconds a `put-in-flight` put is held open when no --put-latency gives the time."""

_emit_lock = threading.Lock()


def emit(line: str) -> None:
    """Write one protocol line and flush it now: a SIGKILL discards anything buffered."""
    with _emit_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def load_target(path: str) -> Any:
    """Import ``module:attr`` (attr may be dotted) and return the object it names."""
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"graph must be given as 'module:attr', got {path!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def build_graph(obj: Any, checkpointer: Any) -> Any:
    """Turn a StateGraph, a compiled graph or a factory into a graph using `checkpointer`.

    A factory is called with the checkpointer when it takes a required argument (the
    functional API binds the checkpointer in ``@entrypoint``), else with none; its result
    goes through the same rules. A compiled graph is copied with our checkpointer, since
    the database under test is the one the parent named, whatever the module chose.
    """
    from langgraph.graph import StateGraph
    from langgraph.pregel import Pregel

    for _ in range(3):  # a factory may return a factory; do not loop forever
        if isinstance(obj, StateGraph):
            return obj.compile(checkpointer=checkpointer)
        if isinstance(obj, Pregel):
            if obj.checkpointer is checkpointer:
                return obj
            return obj.copy({"checkpointer": checkpointer})
        if callable(obj) and not inspect.isclass(obj):
            obj = obj(checkpointer) if _takes_an_argument(obj) else obj()
            continue
        break
    raise TypeError(
        f"cannot build a graph from {type(obj).__name__}: expected a StateGraph, a compiled "
        "graph, or a function returning one (optionally taking the checkpointer)"
    )


def _takes_an_argument(func: Any) -> bool:
    """True when `func` has a required positional parameter (for the checkpointer)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        for p in params
    )


def _append_durably(path: str, record: dict[str, Any]) -> None:
    """One JSON line, one write(), then fsync: it survives a SIGKILL a moment later."""
    from replaylens.effects.durable import append_line

    append_line(path, record)


class WriteHooks:
    """What the instrumented saver does around LangGraph's own `put` and `put_writes`.

    It never changes what is written: it delays, logs acknowledgements, and at a fault
    point SIGKILLs this process (a real kill: no `finally`, nothing flushed).
    """

    def __init__(
        self,
        *,
        put_latency: float = 0.0,
        acks: str | None = None,
        fault: dict[str, Any] | None = None,
        task_nodes: dict[str, str] | None = None,
        announce_writes: bool = False,
    ) -> None:
        self.put_latency = put_latency
        self.announce_writes = announce_writes
        """Emit a WRITES line per `put_writes` (in the child; in-process users stay quiet)."""
        self.acks = acks
        self.fault: FaultPoint | None = (fault or {}).get("point")
        self.fault_node: str | None = (fault or {}).get("node")
        self.hold = float((fault or {}).get("hold") or put_latency or DEFAULT_HOLD)
        self.task_nodes = task_nodes if task_nodes is not None else {}
        self.node_steps: dict[str, int] = {}
        """The superstep of each node's first task, filled in by the callback handler."""
        self.puts = 0
        self.fired = False
        self._lock = threading.Lock()

    def _die(self, detail: str) -> None:
        emit(f"{FAULT} {self.fault} {detail}")
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(10)  # the signal is delivered before this returns

    def before_put(self, metadata: Any) -> float:
        """Called on entry to `put`; returns how long the put waits before writing."""
        step = (metadata or {}).get("step")
        with self._lock:
            self.puts += 1
            first = self.puts == 1
            fire_in_flight = (
                self.fault == "put-in-flight" and not self.fired and self._is_target(metadata)
            )
            self.fired = self.fired or fire_in_flight
        if self.fault == "before-first-checkpoint" and first:
            self._die(f"put #1 (step {step}) entered, nothing saved yet")
        if fire_in_flight:
            time.sleep(self.hold)
            self._die(
                f"put #{self.puts} (step {step}) held {self.hold:g}s in flight, not completed"
            )
        return self.put_latency

    def _is_target(self, metadata: Any) -> bool:
        """Is this the checkpoint of the chosen node's superstep (or the first loop one)?"""
        meta = metadata or {}
        if self.fault_node is None:
            return meta.get("source") == "loop"
        return (
            self.fault_node in self.node_steps
            and meta.get("step") == self.node_steps[self.fault_node]
        )

    def after_put(self, saved: Any, metadata: Any) -> None:
        if self.acks:
            conf = (saved or {}).get("configurable", {})
            _append_durably(self.acks, {
                "kind": "checkpoint", "checkpoint_id": conf.get("checkpoint_id"),
                "checkpoint_ns": conf.get("checkpoint_ns", ""), "step": (metadata or {}).get("step"),
                "ts": time.time(),
            })  # fmt: skip

    def after_put_writes(self, config: Any, writes: Any, task_id: str, task_path: str) -> None:
        conf = (config or {}).get("configurable", {})
        if self.acks:
            _append_durably(self.acks, {
                "kind": "writes", "checkpoint_id": conf.get("checkpoint_id"), "task_id": task_id,
                "channels": [str(w[0]) for w in writes], "ts": time.time(),
            })  # fmt: skip
        node = self.task_nodes.get(task_id) or task_path.rpartition(", ")[2] or None
        if self.announce_writes and node:
            emit(f"{WRITES} {node} {task_id}")
        if self.fault != "after-writes":
            return
        if self.fault_node is not None and node != self.fault_node:
            return
        self._die(f"after put_writes of task {task_id} ({node}), before its step's put")


def instrumented(base: type) -> type:
    """A subclass of LangGraph's saver class `base` that calls `WriteHooks` around its writes."""

    class Instrumented(base):  # type: ignore[misc, valid-type]
        hooks: WriteHooks

        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            wait = self.hooks.before_put(metadata)
            if wait > 0:
                time.sleep(wait)
            saved = super().put(config, checkpoint, metadata, new_versions)
            self.hooks.after_put(saved, metadata)
            return saved

        def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            super().put_writes(config, writes, task_id, task_path)
            self.hooks.after_put_writes(config, writes, task_id, task_path)

    Instrumented.__name__ = f"Instrumented{base.__name__}"
    return Instrumented


def session_name(schema: str) -> str:
    """The `application_name` of the child's Postgres sessions for the run in `schema`: the
    harness waits for every one of them to leave the server before it freezes the schema
    (`PostgresBackend.snapshot`)."""
    return f"replaylens-kill-{schema}"


def pg_options(schema: str, synchronous_commit: str | None = None) -> str:
    """libpq `options`: the run's schema first on the search_path, maybe synchronous_commit."""
    opts = f"-c search_path={schema}"
    if synchronous_commit:
        opts += f" -c synchronous_commit={synchronous_commit}"
    return opts


def make_saver(
    db: str | dict[str, Any], put_latency: float = 0.0, hooks: WriteHooks | None = None
) -> Any:
    """LangGraph's real saver for the store, with `hooks` around its writes.

    `db` is a SQLite path or a store spec: ``{"kind": "sqlite", "path"}`` or
    ``{"kind": "postgres", "schema", "synchronous_commit"}`` (DSN from $REPLAYLENS_KILLTEST_DSN).
    The default hooks only add `put_latency`, which imitates a networked checkpointer:
    it widens the window in which a task's writes have landed but its step's checkpoint
    has not, the window where `async` and `sync` differ. `put_writes` is not delayed.
    """
    store = {"kind": "sqlite", "path": db} if isinstance(db, str) else dict(db)
    hooks = hooks or WriteHooks(put_latency=put_latency)
    if store["kind"] == "postgres":
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        from replaylens import settings

        conn = psycopg.connect(
            settings.get(DSN_ENV), autocommit=True, prepare_threshold=0, row_factory=dict_row,
            options=pg_options(str(store["schema"]), store.get("synchronous_commit")),
            application_name=session_name(str(store["schema"])),
        )  # fmt: skip
        saver = instrumented(PostgresSaver)(conn)
    else:
        from langgraph.checkpoint.sqlite import SqliteSaver

        saver = instrumented(SqliteSaver)(
            sqlite3.connect(str(store["path"]), check_same_thread=False)
        )
    saver.hooks = hooks
    return saver


def instrumented_async(base: type) -> type:
    """`instrumented` for LangGraph's async savers: the same hooks around `aput` and
    `aput_writes`. The hook that may hold a put open (a fault point) runs in a thread, so
    the event loop goes on meanwhile, as it does while a real round trip is in flight."""
    import asyncio

    class InstrumentedAsync(base):  # type: ignore[misc, valid-type]
        hooks: WriteHooks

        async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            if self.hooks.fault == "put-in-flight":
                wait = await asyncio.to_thread(self.hooks.before_put, metadata)
            else:
                wait = self.hooks.before_put(metadata)
            if wait > 0:
                await asyncio.sleep(wait)
            saved = await super().aput(config, checkpoint, metadata, new_versions)
            self.hooks.after_put(saved, metadata)
            return saved

        async def aput_writes(
            self, config: Any, writes: Any, task_id: str, task_path: str = ""
        ) -> None:
            await super().aput_writes(config, writes, task_id, task_path)
            self.hooks.after_put_writes(config, writes, task_id, task_path)

    InstrumentedAsync.__name__ = f"Instrumented{base.__name__}"
    return InstrumentedAsync


async def make_async_saver(db: str | dict[str, Any], hooks: WriteHooks) -> Any:
    """`make_saver` for ``ainvoke``: AsyncSqliteSaver or AsyncPostgresSaver, hooked alike."""
    store = {"kind": "sqlite", "path": db} if isinstance(db, str) else dict(db)
    if store["kind"] == "postgres":
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg.rows import dict_row

        from replaylens import settings

        conn = await psycopg.AsyncConnection.connect(
            settings.get(DSN_ENV), autocommit=True, prepare_threshold=0, row_factory=dict_row,
            options=pg_options(str(store["schema"]), store.get("synchronous_commit")),
            application_name=session_name(str(store["schema"])),
        )  # fmt: skip
        saver = instrumented_async(AsyncPostgresSaver)(conn)
    else:
        import aiosqlite
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        saver = instrumented_async(AsyncSqliteSaver)(await aiosqlite.connect(str(store["path"])))
    saver.hooks = hooks
    return saver


def node_start_handler(
    task_nodes: dict[str, str] | None = None,
    callbacks_log: str | None = None,
    thread_id: str = "",
    node_steps: dict[str, int] | None = None,
) -> Any:
    """A LangChain callback handler that emits one NODE_START line per task.

    LangGraph starts a chain run per task named after the node and tagged with
    `langgraph_node`, but nested runs (a conditional edge's router, the subgraph's own
    "LangGraph" run) inherit the same metadata. Only the run whose name equals its
    `langgraph_node` is the task itself; `langgraph_checkpoint_ns` ends with the task id,
    so it is the dedupe key (a retried task still prints once). Each task id is noted
    in `task_nodes` (the fault hooks map a `put_writes` to its node with it). With
    `callbacks_log`, every task start, end and error is also appended there as an
    effects-log line (`source: "callbacks"`, `describes: "task"`: a task line names no effect,
    so a task never shows up as an effect of its own name): the recorder's evidence for
    graphs whose nodes do not record.
    """
    from langchain_core.callbacks.base import BaseCallbackHandler

    from replaylens.effects.durable import (
        OWN_THREAD_UNDER,
        TRIGGERS_KEY,
        TaskRunTree,
        task_end_phase,
        task_fields,
    )
    from replaylens.effects.parse import DESCRIBES

    nodes = task_nodes if task_nodes is not None else {}
    steps = node_steps if node_steps is not None else {}

    class NodeStartHandler(BaseCallbackHandler):
        run_inline = True

        def __init__(self) -> None:
            self._seen: set[str] = set()
            self._runs: dict[Any, dict[str, Any]] = {}
            self._lock = threading.Lock()
            self._tree = TaskRunTree()

        def _line(self, phase: str, task: dict[str, Any]) -> None:
            if callbacks_log:
                _append_durably(callbacks_log, {
                    "thread_id": thread_id, "node": task["node"], "phase": phase, "ts": time.time(),
                    "step": task["step"], "task_id": task["task_id"], "checkpoint_ns": task["checkpoint_ns"],
                    "pid": os.getpid(), "source": "callbacks", DESCRIBES: "task",
                    **({TRIGGERS_KEY: task[TRIGGERS_KEY]} if task.get(TRIGGERS_KEY) else {}),
                    **({OWN_THREAD_UNDER: task[OWN_THREAD_UNDER]} if task[OWN_THREAD_UNDER] else {}),
                })  # fmt: skip

        def on_chain_start(
            self,
            serialized: dict[str, Any] | None,
            inputs: Any,
            *,
            run_id: Any = None,
            parent_run_id: Any = None,
            tags: list[str] | None = None,
            metadata: dict[str, Any] | None = None,
            **kwargs: Any,
        ) -> None:
            meta = metadata or {}
            node = meta.get("langgraph_node")
            if node is None or kwargs.get("name") != node:
                self._tree.run_started(run_id, parent_run_id)
                return
            ns = str(meta.get("langgraph_checkpoint_ns") or "")
            # a run inside the task's own, named after its node, is no task; a task of a
            # graph a task ran on a thread of its own is marked (`durable.TaskRunTree`)
            inside_own, mark = self._tree.task_started(run_id, parent_run_id, ns)
            if inside_own:
                return
            # the fields every writer of task lines takes from LangGraph's run metadata
            fields = task_fields(meta)
            task = {"node": node, "step": meta.get("langgraph_step"), "task_id": fields.get("task_id"),
                    "checkpoint_ns": fields.get("checkpoint_ns", ""), "ns": ns,
                    TRIGGERS_KEY: fields.get(TRIGGERS_KEY), OWN_THREAD_UNDER: mark}  # fmt: skip
            key = ns or str(run_id)
            with self._lock:
                if task["task_id"]:
                    nodes[task["task_id"]] = node
                if isinstance(task["step"], int):
                    steps.setdefault(node, task["step"])
                self._runs[run_id] = task
                first = key not in self._seen
                self._seen.add(key)
            self._line("start", task)
            if first:
                emit(f"{NODE_START} {node} {meta.get('langgraph_step', -1)}")

        def on_chain_end(self, outputs: Any, *, run_id: Any = None, **kwargs: Any) -> None:
            self._tree.run_ended(run_id)
            with self._lock:
                task = self._runs.pop(run_id, None)
            if task is not None:
                self._line("end", task)

        def on_chain_error(
            self, error: BaseException, *, run_id: Any = None, **kwargs: Any
        ) -> None:
            self._tree.run_ended(run_id)
            with self._lock:
                task = self._runs.pop(run_id, None)
            if task is not None:
                self._line(task_end_phase(type(error).__name__), task)

    return NodeStartHandler()


def _failure(exc: BaseException) -> dict[str, Any]:
    return {
        "ok": False,
        "error": f"{type(exc).__name__}: {exc}",
        "interrupted": False,
        "output_keys": [],
    }


def _setup(spec: dict[str, Any]) -> tuple[WriteHooks, dict[str, str], dict[str, Any]]:
    """The hooks around the saver's writes and the invocation's config (callbacks included)."""
    task_nodes: dict[str, str] = {}
    hooks = WriteHooks(
        put_latency=float(spec.get("put_latency") or 0.0), acks=spec.get("acks"),
        fault=spec.get("fault"), task_nodes=task_nodes, announce_writes=True,
    )  # fmt: skip
    handler = node_start_handler(
        task_nodes, spec.get("callbacks_log"), str(spec["thread_id"]), hooks.node_steps
    )
    config: dict[str, Any] = {
        "configurable": {
            **(spec.get("configurable") or {}),
            "thread_id": str(spec["thread_id"]),
        },
        "callbacks": [handler],
        "recursion_limit": int(spec.get("recursion_limit") or 25),
    }
    return hooks, task_nodes, config


def _pending(snapshot: Any) -> tuple[Any, ...]:
    """The interrupts a thread waits on: its state's ``interrupts``, or, in a LangGraph whose
    ``StateSnapshot`` has no such field yet (0.2), those of its tasks."""
    own = getattr(snapshot, "interrupts", None)
    if own is not None:
        return tuple(own)
    return tuple(i for task in snapshot.tasks for i in task.interrupts)


def _resume_command(spec: dict[str, Any], pending: Any) -> Any:
    """``Command(resume=...)`` for the pending interrupts.

    Several pending interrupts (parallel workers that paused in one step) take their answers
    by id; like LangGraph's test_parallel_interrupts, the first one is answered and the
    others pause again, or (resume_all, test_multi_resume) every one is answered at once. A
    release whose interrupts carry no id (0.2) has one answer for them all."""
    from langgraph.types import Command

    answer = spec["resume_value"]
    answered = pending if spec.get("resume_all") else pending[:1]
    by_id = len(pending) > 1 and all(getattr(i, "id", None) for i in pending)
    return Command(resume={i.id: answer for i in answered} if by_id else answer)


def _state_update(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The ``state_update`` an input asks for instead of an invocation, if it is one."""
    payload = spec.get("input")
    if isinstance(payload, dict) and isinstance(payload.get(UPDATE_STATE), dict):
        return payload[UPDATE_STATE]
    return None


_DONE = {"ok": True, "error": None, "interrupted": False, "output_keys": []}


def _outcome(output: Any, interrupts: Any) -> dict[str, Any]:
    """The RESULT payload of an invocation that returned `output`."""
    if isinstance(output, dict):
        # (before LangGraph 0.4 the output names no `__interrupt__`: the state tells)
        paused = "__interrupt__" in output or bool(interrupts())
        return {"ok": True, "error": None, "interrupted": paused,
                "output_keys": sorted(str(k) for k in output)}  # fmt: skip
    # Functional entrypoints return whatever the function returned; the checkpointer tells
    # whether the run stopped at an interrupt instead.
    return {"ok": True, "error": None, "interrupted": bool(interrupts()), "output_keys": []}


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """Invoke the graph the spec describes once; return the RESULT payload, never raise."""
    if spec.get("api") == "ainvoke":
        import asyncio

        return asyncio.run(_arun(spec))
    saver = None
    try:
        hooks, _nodes, config = _setup(spec)
        run_config = config  # the thread's latest checkpoint, or the one a fork names
        saver = make_saver(spec.get("store") or str(spec["db"]), hooks=hooks)
        graph = build_graph(load_target(spec["graph"]), saver)
        emit(f"{CACHED_NODES} {json.dumps(node_cache.cached_nodes(graph))}")
        if "resume_value" in spec:
            payload: Any = _resume_command(spec, _pending(graph.get_state(config)))
        elif (update := _state_update(spec)) is not None:
            values = _command_input(update.get("values"))
            graph.update_state(config, values, as_node=update.get("as_node"))
            return dict(_DONE)
        elif (forked := _fork(spec)) is not None:
            history = list(graph.get_state_history(config))
            below = {
                level: list(graph.get_state_history(_in_namespace(config, level)))
                for level in _levels_of(forked)
            }
            payload = _command_input(forked.get("input"))
            run_config = _fork_config(config, history, forked, below)
            if _edits(forked):
                edit = graph.update_state(
                    run_config, forked.get("update"), as_node=forked.get("as_node")
                )
                run_config = _edited(run_config, edit)
        else:
            payload = _command_input(spec.get("input"))
        output = graph.invoke(payload, run_config, **durability_kwargs(spec))
        return _outcome(output, lambda: _pending(graph.get_state(config)))
    except Exception as exc:  # noqa: BLE001 - the outcome is reported, not raised
        return _failure(exc)
    finally:
        if saver is not None:
            saver.conn.close()


BEFORE_DURABILITY = (
    "LangGraph had no durability modes before 0.6 (0.3.27 to 0.5: checkpoint_during, which "
    "runs as async or exit; before 0.3.27: async only)"
)


def durability_kwargs(spec: dict[str, Any]) -> dict[str, Any]:
    """How the installed LangGraph is told the run's durability mode. `durability=` from
    LangGraph 0.6; from 0.3.27 to 0.5 ``checkpoint_during`` (True: every step's checkpoint put
    in the background, as async; False: saved as the run ends, as exit); before 0.3.27
    nothing (async's way, always). A mode the release has no way to run is an error that
    names the release, never a run under another mode."""
    mode = spec.get("durability", "async")
    modes = installed_modes()
    if mode in modes:
        if "sync" in modes:
            return {"durability": mode}
        return {"checkpoint_during": mode == "async"} if "exit" in modes else {}
    raise ValueError(
        f"LangGraph {release()} cannot run under durability {mode!r}: it runs "
        f"{', '.join(installed_modes())}. {BEFORE_DURABILITY}."
    )


def installed_modes() -> tuple[str, ...]:
    """The durability modes the installed LangGraph can run (`durability_kwargs`)."""
    from langgraph.pregel import Pregel

    params = inspect.signature(Pregel.stream).parameters
    if "durability" in params:
        return ("sync", "async", "exit")
    return ("async", "exit") if "checkpoint_during" in params else ("async",)


def release() -> str:
    """The installed LangGraph's version, for a sentence."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("langgraph")
    except PackageNotFoundError:
        return "(not installed)"


async def _cancellable(invocation: Any) -> Any:
    """Await `invocation` in a task of its own named `INVOCATION_TASK`, so that a node can
    cancel it (`cancel_invocation`) the way a caller's timeout cancels an ``ainvoke``; the
    child's own task, which closes the saver afterwards, is not cancelled."""
    import asyncio

    from replaylens.killtest import _child  # (this module, also where it runs as __main__)

    task = asyncio.ensure_future(invocation)
    task.set_name(INVOCATION_TASK)
    _child._INVOCATION[:] = [task]
    try:
        return await task
    finally:
        _child._INVOCATION.clear()


async def _arun(spec: dict[str, Any]) -> dict[str, Any]:
    """`run` on LangGraph's async loop: ``graph.ainvoke`` with the async saver of the store."""
    import asyncio

    saver = None
    try:
        hooks, _nodes, config = _setup(spec)
        run_config = config  # the thread's latest checkpoint, or the one a fork names
        saver = await make_async_saver(spec.get("store") or str(spec["db"]), hooks=hooks)
        graph = build_graph(load_target(spec["graph"]), saver)
        emit(f"{CACHED_NODES} {json.dumps(node_cache.cached_nodes(graph))}")
        if "resume_value" in spec:
            payload: Any = _resume_command(spec, _pending(await graph.aget_state(config)))
        elif (update := _state_update(spec)) is not None:
            values = _command_input(update.get("values"))
            await graph.aupdate_state(config, values, as_node=update.get("as_node"))
            return dict(_DONE)
        elif (forked := _fork(spec)) is not None:
            history = [s async for s in graph.aget_state_history(config)]
            below = {
                level: [s async for s in graph.aget_state_history(_in_namespace(config, level))]
                for level in _levels_of(forked)
            }
            payload = _command_input(forked.get("input"))
            run_config = _fork_config(config, history, forked, below)
            if _edits(forked):
                edit = await graph.aupdate_state(
                    run_config, forked.get("update"), as_node=forked.get("as_node")
                )
                run_config = _edited(run_config, edit)
        else:
            payload = _command_input(spec.get("input"))
        output = await _cancellable(graph.ainvoke(payload, run_config, **durability_kwargs(spec)))
        interrupts = _pending(await graph.aget_state(config))
        return _outcome(output, lambda: interrupts)
    except Exception as exc:  # noqa: BLE001 - the outcome is reported, not raised
        return _failure(exc)
    except asyncio.CancelledError as exc:  # `cancel_invocation`: an invocation that ended
        return _failure(exc)
    finally:
        if saver is not None:
            await saver.conn.close()


WATCH_STDIN = "--watch-stdin"
"""Given by the parent (`_runner.run_child`): stdin is a pipe only the parent writes to."""


def watch_parent(stream: Any) -> threading.Thread:
    """A watchdog: read `stream` (a pipe whose other end only the parent holds) until its
    end, then SIGKILL this process. The end comes when the parent closes it or dies, even by
    SIGKILL, so a graph under test never outlives its campaign."""

    def watch() -> None:
        with contextlib.suppress(OSError, ValueError):
            while stream.read(1 << 12):
                pass
        os.kill(os.getpid(), signal.SIGKILL)

    thread = threading.Thread(target=watch, name="replaylens-parent-watchdog", daemon=True)
    thread.start()
    return thread


def main(argv: list[str] | None = None) -> int:
    """Entry point: read the spec from argv[1], run it, print RESULT. Exit 0 iff ok.

    With `--watch-stdin` after the spec, the child dies when its parent does (watch_parent)."""
    args = sys.argv[1:] if argv is None else argv
    if WATCH_STDIN in args[1:]:
        watch_parent(sys.stdin.buffer)
    try:
        spec = json.loads(args[0])
        if not isinstance(spec, dict):
            raise ValueError("the spec must be a JSON object")
    except (IndexError, ValueError) as exc:
        result = _failure(exc)
    else:
        result = run(spec)
    emit(f"{RESULT} {json.dumps(result, default=str)}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
