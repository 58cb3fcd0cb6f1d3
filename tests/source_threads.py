"""The threads every source is tested on: each example graph finished, interrupted and
failed, plus writes whose checkpoint never landed, written by a real LangGraph saver
(SqliteSaver or PostgresSaver) through the same calls, so the backends can be compared."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Command

from replaylens.examples.graphs import ALL, DEFAULT_INPUTS

GRAPHS = (
    "linear",
    "fanout",
    "send_map_reduce",
    "subgraph",
    "payment",
    "failing",
    "loop",
    "functional",
)
ORPHAN_THREAD = "linear-orphan"
ORPHAN_CHECKPOINT = "1f000000-0000-6000-8000-000000000000"  # a checkpoint that never landed


def run_sync(graph: Any, payload: Any, thread_id: str) -> None:
    """Invoke with durability="sync"; the failing graph's exception is part of the record."""
    try:
        graph.invoke(payload, {"configurable": {"thread_id": thread_id}}, durability="sync")
    except RuntimeError:
        pass


def compile_graph(name: str, saver: Any) -> Any:
    """The example graph on `saver` (the functional one binds its checkpointer itself)."""
    return ALL[name](saver) if name == "functional" else ALL[name]().compile(checkpointer=saver)


def write_threads(saver: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every shape, finished, interrupted and failed; the same on whichever saver it is given."""
    threads: list[str] = []
    for name in GRAPHS:
        graph = compile_graph(name, saver)
        monkeypatch.setenv("REPLAYLENS_EXAMPLE_FAIL", "0")
        run_sync(graph, DEFAULT_INPUTS[name], name)
        threads.append(name)
        if name == "payment":
            run_sync(graph, Command(resume=True), name)
            run_sync(graph, DEFAULT_INPUTS[name], "payment-interrupted")
            threads.append("payment-interrupted")
        if name == "failing":
            monkeypatch.setenv("REPLAYLENS_EXAMPLE_FAIL", "1")
            run_sync(graph, DEFAULT_INPUTS[name], "failing-failed")
            threads.append("failing-failed")
    # Writes whose checkpoint never landed (what an async-durability crash leaves).
    run_sync(ALL["linear"]().compile(checkpointer=saver), DEFAULT_INPUTS["linear"], ORPHAN_THREAD)
    config = {
        "configurable": {
            "thread_id": ORPHAN_THREAD,
            "checkpoint_ns": "",
            "checkpoint_id": ORPHAN_CHECKPOINT,
        }
    }
    saver.put_writes(
        config,
        [("visited", ["ghost"])],
        "00000000-0000-0000-0000-00000000beef",
        "~__pregel_pull, a",
    )
    threads.append(ORPHAN_THREAD)
    return threads


@contextmanager
def postgres_threads(
    cluster: Any, name: str, tmp: Path
) -> Iterator[tuple[str, Any, list[str], Any]]:
    """A fresh database `name` on the test server with every shape of `write_threads` in it,
    written by PostgresSaver (whose `setup()` only the test's writer calls): (DSN, the saver,
    the thread ids, the MonkeyPatch that holds the effects-log settings while it lasts)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    dsn = cluster.create_database(name)
    with pytest.MonkeyPatch.context() as mp, PostgresSaver.from_conn_string(dsn) as saver:
        mp.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp / "effects.jsonl"))
        mp.setenv("REPLAYLENS_EXAMPLE_SLEEP", "0")
        saver.setup()
        yield dsn, saver, write_threads(saver, mp), mp


def expected_status(task: Any) -> str:
    """LangGraph's PregelTask, read the way _task_status.py defines it."""
    if task.error is not None:
        return "failed"
    if task.result is not None:
        return "finished"
    if task.interrupts:
        return "interrupted"
    return "pending"
