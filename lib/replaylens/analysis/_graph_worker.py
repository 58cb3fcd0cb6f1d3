"""The child process of `--graph module:attribute` (see `replaylens.analysis.from_graph`).

Started by `from_graph.ask_graph` with this copy's folder first on its path. Reads one JSON
document on stdin (the graph to import, the database to open, the key, the threads), and
writes one JSON document on stdout: for every namespace of every thread, LangGraph's own
`get_state_history`, and the live `get_state` of the root. JSON both ways, never pickle.

The user's graph is imported the way `langgraph dev` loads a `langgraph.json` entry: a
`path/to/file.py:attr` or a dotted `package.module:attr` (the current folder on the path);
the attribute may be a compiled graph, a `StateGraph` or a factory. It is given a saver over
the same read-only connection replaylens reads through (SQLite `mode=ro`, `query_only`),
which refuses every write (`put`, `put_writes`, `delete_thread`, `setup`) and decodes blobs
with pickle off and msgpack limited to LangGraph's safe types, so no blob chooses code to
import. Whatever the graph's module does at import time is the user's own code, run only
because they asked for it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import orjson


class WriteRefused(RuntimeError):
    """A write reached the read-only saver: LangGraph tried to change the evidence."""


def load_graph_object(ref: str) -> Any:
    """`file.py:attr` or `package.module:attr` (attr may be dotted), as `langgraph dev` does."""
    target, sep, attr = ref.rpartition(":")
    if not sep or not target or not attr:
        raise ValueError(
            f"--graph must be given as 'module:attribute' or 'file.py:attribute', got {ref!r}"
        )
    if target.endswith(".py") or os.sep in target:
        path = Path(target).resolve()
        if not path.is_file():
            raise ValueError(f"--graph {ref!r}: {path} is not a file")
        sys.path.insert(0, str(path.parent))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"--graph {ref!r}: {path} cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        obj: Any = module
    else:
        sys.path.insert(0, os.getcwd())
        obj = importlib.import_module(target)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _langgraph_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("langgraph")
    except PackageNotFoundError:
        return "?"


def _serde() -> Any:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    try:  # pickle off, msgpack extension types limited to LangGraph's safe list
        return JsonPlusSerializer(pickle_fallback=False, allowed_msgpack_modules=None)
    except TypeError:  # an older langgraph-checkpoint without the allowlist
        return JsonPlusSerializer(pickle_fallback=False)


class _RefusesWrites:
    """The write half of a LangGraph saver, refused: mixed in before SqliteSaver or
    PostgresSaver, so that `get_state` and friends read while nothing can write."""

    def put(self, *args: Any, **kwargs: Any) -> Any:
        raise WriteRefused("put refused: replaylens opens the database read-only")

    def put_writes(self, *args: Any, **kwargs: Any) -> Any:
        raise WriteRefused("put_writes refused: replaylens opens the database read-only")

    def delete_thread(self, *args: Any, **kwargs: Any) -> Any:
        raise WriteRefused("delete_thread refused: replaylens opens the database read-only")


def read_only_saver(conn: Any) -> Any:
    """A SqliteSaver over `conn` that reads and refuses every write."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    class ReadOnlySqliteSaver(_RefusesWrites, SqliteSaver):
        def setup(self) -> None:  # the tables exist; never CREATE anything
            self.is_setup = True

    _old_schema_view(conn)
    saver = ReadOnlySqliteSaver(conn, serde=_serde())
    saver.is_setup = True
    return saver


def read_only_postgres_saver(dsn: str) -> tuple[Any, Any]:
    """A PostgresSaver over a session that cannot write (`default_transaction_read_only`),
    refusing every write itself too; (saver, connection)."""
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    class ReadOnlyPostgresSaver(_RefusesWrites, PostgresSaver):
        def setup(self) -> None:  # the tables exist; never CREATE or migrate anything
            return None

    conn = psycopg.connect(
        dsn,
        autocommit=True,
        prepare_threshold=None,
        row_factory=dict_row,
        application_name="replaylens --graph",
        options="-c default_transaction_read_only=on",
    )
    return ReadOnlyPostgresSaver(conn, serde=_serde()), conn


def _old_schema_view(conn: Any) -> None:
    """A database written before langgraph-checkpoint-sqlite 3.1 has no `writes.task_path`,
    which today's saver selects (its own setup() would ALTER the table: a write). A TEMP view
    of the same name, in this connection's private temp schema, shadows the table with a
    blank `task_path`; the database file is opened read-only and stays untouched."""
    cols = {row[1] for row in conn.execute("PRAGMA main.table_info(writes)")}
    if not cols or "task_path" in cols:
        return
    conn.execute("PRAGMA query_only=0")  # the temp schema only: the file itself is mode=ro
    try:
        conn.execute(
            "CREATE TEMP VIEW writes AS SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, "
            "idx, channel, type, value, '' AS task_path FROM main.writes"
        )
    finally:
        conn.execute("PRAGMA query_only=1")


def _plain(value: Any) -> Any:
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:
        return repr(value)


def snapshot_json(snap: Any) -> dict[str, Any]:
    """One StateSnapshot as JSON: what replaylens compares (no state values)."""
    conf = (snap.config or {}).get("configurable", {})
    return {
        "checkpoint_id": conf.get("checkpoint_id"),
        "checkpoint_ns": conf.get("checkpoint_ns", ""),
        "step": (snap.metadata or {}).get("step"),
        "next": list(snap.next),
        "tasks": [
            {
                "id": t.id,
                "name": t.name,
                "error": repr(t.error) if getattr(t, "error", None) else None,
                "interrupts": len(getattr(t, "interrupts", ()) or ()),
                "has_result": getattr(t, "result", None) is not None,
            }
            for t in snap.tasks
        ],
    }


def ask(graph: Any, thread_id: str, namespaces: list[str], limit: int | None) -> dict[str, Any]:
    """LangGraph's answer for one thread: history per namespace (the newest `limit`
    snapshots; all without one) and the live latest state."""
    out: dict[str, Any] = {"history": {}, "latest": None, "errors": []}
    for ns in namespaces:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        try:
            snaps = graph.get_state_history(config, limit=limit)
            out["history"][ns] = [snapshot_json(s) for s in snaps]
        except Exception as exc:  # said, never hidden: the namespace is then not compared
            out["errors"].append(
                f"get_state_history(namespace {ns!r}): {exc.__class__.__name__}: {exc}"
            )
    try:
        out["latest"] = snapshot_json(graph.get_state({"configurable": {"thread_id": thread_id}}))
    except Exception as exc:
        out["errors"].append(f"get_state: {exc.__class__.__name__}: {exc}")
    return out


def node_names(graph: Any) -> list[str]:
    """The names of a compiled graph's nodes and of its subgraphs' (a store that keeps no
    task path cannot name an `@entrypoint`; the reader tries these names on its ids). Reads
    attributes only; never raises."""
    graphs = [graph]
    try:
        graphs += [sub for _ns, sub in graph.get_subgraphs(recurse=True)]
    except Exception:  # noqa: BLE001 - a graph whose subgraphs cannot be listed names its own
        pass
    names: set[str] = set()
    for g in graphs:
        try:
            names |= {str(n) for n in (getattr(g, "nodes", None) or {})}
        except Exception:  # noqa: BLE001 - a graph whose nodes cannot be read names none
            continue
    return sorted(names - {"__start__"})


def main() -> int:
    from replaylens.analysis.node_cache import cached_nodes
    from replaylens.killtest import build_graph
    from replaylens.sources import open_source

    job = orjson.loads(sys.stdin.buffer.read())
    # The answer owns stdout: whatever the user's module prints goes to stderr instead.
    answer_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    key = bytes.fromhex(job["key"]) if job["key"] is not None else None
    result: dict[str, Any] = {"threads": {}, "error": None, "langgraph": _langgraph_version()}
    try:
        source = open_source(job["spec"], aes_key=key)
        connect = getattr(source, "connect", None)
        if connect is not None:  # SQLite: the very read-only connection replaylens reads with
            conn = connect(mapped=False)
            saver = read_only_saver(conn)
        else:  # Postgres: a session of its own that cannot write
            saver, conn = read_only_postgres_saver(job["spec"])
        try:
            graph = build_graph(load_graph_object(job["graph"]), saver)
            result["cached_nodes"] = cached_nodes(graph)
            result["nodes"] = node_names(graph)
            for thread_id, namespaces in job["threads"].items():
                result["threads"][thread_id] = ask(graph, thread_id, namespaces, job.get("limit"))
        finally:
            conn.close()
            source.close()
    except Exception as exc:  # one sentence to the parent, never a traceback
        result["error"] = f"{exc.__class__.__name__}: {exc}"
    answer_out.write(orjson.dumps(result, default=_plain))
    answer_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
