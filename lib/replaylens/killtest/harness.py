"""The kill-test harness as code outside `replaylens.killtest` uses it: the tests, the scripts
that record the sample databases, the benchmarks.

What is here:

- run a graph in a child process and SIGKILL it on cue: `ChildSpec` (what the child runs),
  `child_env` (its environment), `run_child` (start, watch, kill; a `ChildOutcome`,
  its `NodeStart` lines among it);
- `snapshot_db`: copy a SQLite file with its `-wal`/`-shm` before anything opens it;
- `stop_on_signals`: SIGTERM ends a campaign through its `finally` blocks (the child dies
  with it); `scoped_environ`: set environment variables for an in-process run, then restore;
- the child's own pieces, for a run in this process that must match a child's: `load_target`
  (``module:attr``), `build_graph` (a graph object with a checkpointer), `make_saver`
  (LangGraph's saver for a store spec, with the write hooks), `node_start_handler` (the
  callback that announces node starts), `invoke_spec` (one invocation as the child makes it,
  from its spec: an input, an answer, a `Command` or a state edit);
- the Postgres store a campaign runs in: `PostgresBackend` (a fresh schema per run, frozen
  at the kill once the killed child's sessions, named by `session_name`, have left the
  server), `pg_options` (the libpq options that put a run's schema first).

They live in the private `_runner` (the parent's side) and `_child` (the child's side, run as
``python -m replaylens.killtest._child``); this module is the one place others import them
from, so those two can be rearranged without a search across the tree.
"""

from __future__ import annotations

from replaylens.killtest._backend import PostgresBackend
from replaylens.killtest._child import (
    build_graph,
    load_target,
    make_saver,
    node_start_handler,
    pg_options,
    session_name,
)
from replaylens.killtest._child import run as invoke_spec
from replaylens.killtest._runner import (
    ChildOutcome,
    ChildSpec,
    NodeStart,
    child_env,
    run_child,
    scoped_environ,
    snapshot_db,
    stop_on_signals,
)

__all__ = [
    "ChildOutcome",
    "ChildSpec",
    "NodeStart",
    "PostgresBackend",
    "build_graph",
    "child_env",
    "invoke_spec",
    "load_target",
    "make_saver",
    "node_start_handler",
    "pg_options",
    "run_child",
    "scoped_environ",
    "session_name",
    "snapshot_db",
    "stop_on_signals",
]
