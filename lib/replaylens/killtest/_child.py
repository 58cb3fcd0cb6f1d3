"""One graph invocation in a process of its own, so that a parent can SIGKILL it mid-node.

Run as ``python -m replaylens.killtest._child '<json spec>'``. The spec names the graph
(``module:attr``), the SQLite database, the thread, the durability mode and what to send
(an input, ``null`` to resume, or ``resume_value`` for ``Command(resume=...)``).

The parent learns where the child is through stdout, one flushed line per event:

* ``NODE_START <node> <step>`` when a task starts (once per task, subgraph nodes and
  functional ``@task`` calls included), so a kill can be aimed at "the 1st start of c";
* ``RESULT <json>`` at the end: ``{"ok", "error", "interrupted", "output_keys"}``. Every
  exception, ``EmptyInputError`` included, becomes a RESULT line: the parent wants the
  outcome as data, not a traceback to scrape.

Start-up is kept lean (LangGraph and the checkpointer are imported only once the spec
has been read): the window in which a kill can land is what is being measured, and a
slow interpreter start only lengthens every test.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sqlite3
import sys
import threading
import time
from typing import Any

NODE_START = "NODE_START"
RESULT = "RESULT"

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


def make_saver(db: str, put_latency: float = 0.0) -> Any:
    """A SqliteSaver on `db`; with `put_latency` > 0 every checkpoint `put` sleeps first.

    The delay imitates a networked checkpointer (Postgres, a hosted service): it widens
    the window in which a task's writes have landed but its step's checkpoint has not,
    the window where `async` and `sync` durability differ. `put_writes` is not delayed.
    """
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(db, check_same_thread=False)
    if put_latency <= 0:
        return SqliteSaver(conn)

    class SlowPutSqliteSaver(SqliteSaver):
        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            time.sleep(put_latency)
            return super().put(config, checkpoint, metadata, new_versions)

    return SlowPutSqliteSaver(conn)


def node_start_handler() -> Any:
    """A LangChain callback handler that emits one NODE_START line per task.

    LangGraph starts a chain run per task named after the node and tagged with
    `langgraph_node`, but nested runs (a conditional edge's router, the subgraph's own
    "LangGraph" run) inherit the same metadata. Only the run whose name equals its
    `langgraph_node` is the task itself; `langgraph_checkpoint_ns` ends with the task id,
    so it is the dedupe key (a retried task still prints once).
    """
    from langchain_core.callbacks.base import BaseCallbackHandler

    class NodeStartHandler(BaseCallbackHandler):
        run_inline = True

        def __init__(self) -> None:
            self._seen: set[str] = set()
            self._lock = threading.Lock()

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
                return
            key = str(meta.get("langgraph_checkpoint_ns") or run_id)
            with self._lock:
                if key in self._seen:
                    return
                self._seen.add(key)
            emit(f"{NODE_START} {node} {meta.get('langgraph_step', -1)}")

    return NodeStartHandler()


def _failure(exc: BaseException) -> dict[str, Any]:
    return {
        "ok": False,
        "error": f"{type(exc).__name__}: {exc}",
        "interrupted": False,
        "output_keys": [],
    }


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """Invoke the graph the spec describes once; return the RESULT payload, never raise."""
    saver = None
    try:
        saver = make_saver(str(spec["db"]), float(spec.get("put_latency") or 0.0))
        graph = build_graph(load_target(spec["graph"]), saver)
        config: dict[str, Any] = {
            "configurable": {"thread_id": str(spec["thread_id"])},
            "callbacks": [node_start_handler()],
            "recursion_limit": int(spec.get("recursion_limit") or 25),
        }
        if "resume_value" in spec:
            from langgraph.types import Command

            payload: Any = Command(resume=spec["resume_value"])
        else:
            payload = spec.get("input")
        output = graph.invoke(payload, config, durability=spec.get("durability", "async"))
        if isinstance(output, dict):
            interrupted = "__interrupt__" in output
            keys = sorted(str(k) for k in output)
        else:
            # Functional entrypoints return whatever the function returned; ask the
            # checkpointer whether the run stopped at an interrupt instead.
            interrupted = bool(graph.get_state(config).interrupts)
            keys = []
        return {"ok": True, "error": None, "interrupted": interrupted, "output_keys": keys}
    except Exception as exc:  # noqa: BLE001 - the outcome is reported, not raised
        return _failure(exc)
    finally:
        if saver is not None:
            saver.conn.close()


def main(argv: list[str] | None = None) -> int:
    """Entry point: read the spec from argv[1], run it, print RESULT. Exit 0 iff ok."""
    args = sys.argv[1:] if argv is None else argv
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
