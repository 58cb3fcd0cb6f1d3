"""A real LangGraph graph writing checkpoints as fast as it can, for the live-agent tests.

Run as `python -m examples.live_writer DB SECONDS`: it invokes the linear example graph
once, prints `ready`, then keeps invoking it (durability="sync", one new thread per run)
for SECONDS and prints one JSON line: runs, runs per second and `database is locked`
errors. The tests and `bench/live_writer.py` run it beside replaylens's reader.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time

from langgraph.checkpoint.sqlite import SqliteSaver

from replaylens.examples.graphs import linear


def main(db: str, seconds: float) -> dict[str, float]:
    conn = sqlite3.connect(db, check_same_thread=False, timeout=0.2)
    graph = linear().compile(checkpointer=SqliteSaver(conn))
    graph.invoke({"visited": []}, {"configurable": {"thread_id": "first"}}, durability="sync")
    print("ready", flush=True)
    locked = runs = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        try:
            graph.invoke({"visited": []}, {"configurable": {"thread_id": f"w{runs}"}}, durability="sync")
        except sqlite3.OperationalError as exc:
            locked += "locked" in str(exc)
        runs += 1
    elapsed = time.perf_counter() - started
    report = {"runs": runs, "runs_per_second": runs / elapsed, "locked": locked}
    print(json.dumps(report), flush=True)
    return report


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
