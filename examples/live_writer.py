"""A real LangGraph graph writing checkpoints as fast as it can, for the live-agent tests.

Run as `python -m examples.live_writer DB SECONDS [THREAD]`: it invokes the linear
example graph once, prints `ready`, then keeps invoking it (durability="sync", one new
thread per run, or every run on THREAD so that one thread keeps growing) for SECONDS and
prints one JSON line: runs, runs per second and `database is locked` errors. DB may be a
`postgresql://` DSN (a PostgresSaver; the writer runs its own `setup()`, it owns that
database). The tests and `bench/live_writer.py` run it beside replaylens's reader.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from replaylens.examples.graphs import linear


def _saver(db: str) -> Any:
    if db.startswith(("postgresql://", "postgres://")):
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Connection
        from psycopg.rows import dict_row

        conn = Connection.connect(db, autocommit=True, prepare_threshold=0, row_factory=dict_row)
        saver = PostgresSaver(conn)
        saver.setup()
        return saver
    return SqliteSaver(sqlite3.connect(db, check_same_thread=False, timeout=0.2))


def main(db: str, seconds: float, thread: str | None = None) -> dict[str, float]:
    graph = linear().compile(checkpointer=_saver(db))
    graph.invoke(
        {"visited": []}, {"configurable": {"thread_id": thread or "first"}}, durability="sync"
    )
    print("ready", flush=True)
    locked = runs = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        try:
            config = {"configurable": {"thread_id": thread or f"w{runs}"}}
            graph.invoke({"visited": []}, config, durability="sync")
        except sqlite3.OperationalError as exc:
            locked += "locked" in str(exc)
        runs += 1
    elapsed = time.perf_counter() - started
    report = {"runs": runs, "runs_per_second": runs / elapsed, "locked": locked}
    print(json.dumps(report), flush=True)
    return report


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
