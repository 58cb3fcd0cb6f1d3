"""Databases for the hardening tests (issue 14), written by real LangGraph graphs.

Each is a real SqliteSaver file from `replaylens.examples.graphs.linear`; the hostile
cases are rows of such a file damaged afterwards (as a bad copy, a bug in another
writer or an attacker would leave them), never hand-forged tables.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from replaylens.killtest.harness import scoped_environ

DEEP = 100_000
HUGE_DIGITS = 4_000


def linear_db(path: Path, thread_ids: list[str], *, values: list[str] | None = None) -> Path:
    """A real SqliteSaver database with one finished `linear` run per thread id."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples.graphs import linear

    path.parent.mkdir(parents=True, exist_ok=True)
    with scoped_environ(
        REPLAYLENS_EFFECTS_LOG=str(path.with_suffix(".effects.jsonl")), REPLAYLENS_EXAMPLE_SLEEP="0"
    ):
        conn = sqlite3.connect(path, check_same_thread=False)
        try:
            graph = linear().compile(checkpointer=SqliteSaver(conn))
            for tid in thread_ids:
                graph.invoke(
                    {"visited": list(values or [])},
                    {"configurable": {"thread_id": tid}},
                    durability="sync",
                )
        finally:
            conn.close()
    return path


def bad_rows_db(path: Path) -> Path:
    """Four real threads; the latest checkpoint of `deep` has metadata nested 100,000 deep,
    that of `huge` a `step` of 4,000 digits."""
    linear_db(path, ["good-1", "deep", "huge", "good-2"])
    latest = ("WHERE thread_id = ? AND checkpoint_id = "
              "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ?)")  # fmt: skip
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(f"UPDATE checkpoints SET metadata = ? {latest}",
                     ('{"a":' + "[" * DEEP + "]" * DEEP + "}", "deep", "deep"))  # fmt: skip
        conn.execute(f"UPDATE checkpoints SET metadata = ? {latest}",
                     ('{"source":"loop","step":' + "9" * HUGE_DIGITS + "}", "huge", "huge"))  # fmt: skip
    return path


def many_threads_db(path: Path, n: int) -> Path:
    """`n` threads: one real `linear` run, its rows repeated under n thread ids by SQL.

    Running the graph 30,000 times would take minutes; the rows are LangGraph's own,
    only the thread id differs."""
    linear_db(path, ["t-0"])
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        ids = "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
        conn.execute(ids + "INSERT INTO checkpoints SELECT 't-' || k.i, checkpoint_ns, checkpoint_id, "
                     "parent_checkpoint_id, type, checkpoint, metadata FROM k, checkpoints c WHERE c.thread_id = 't-0'",
                     (n - 1,))  # fmt: skip
        conn.execute(ids + "INSERT INTO writes SELECT 't-' || k.i, checkpoint_ns, checkpoint_id, task_id, task_path, "
                     "idx, channel, type, value FROM k, writes w WHERE w.thread_id = 't-0'", (n - 1,))  # fmt: skip
    return path


SENTINEL = "BOMB-SENTINEL-0123456789"
BOMB_ITEMS = 10_000_000
BOMB_DEPTH = 45


def bomb_bytes() -> bytes:
    """10 MB of msgpack: 10,000,000 nils in a list nested 45 deep (a 2,000x amplification)."""
    return (
        b"\x91" * (BOMB_DEPTH - 1) + b"\xdd" + BOMB_ITEMS.to_bytes(4, "big") + b"\xc0" * BOMB_ITEMS
    )


def bomb_db(path: Path) -> Path:
    """A real `linear` thread whose latest checkpoint holds the bomb inside `visited`.

    The run starts with a sentinel string in `visited`; the packed sentinel (one msgpack
    value) is replaced by the bomb (one msgpack value), so the blob stays well formed."""
    linear_db(path, ["bomb"], values=[SENTINEL])
    packed = bytes([0xA0 | len(SENTINEL)]) + SENTINEL.encode()
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        cid, blob = conn.execute(
            "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = 'bomb' ORDER BY checkpoint_id DESC"
        ).fetchone()
        assert blob.count(packed) == 1
        conn.execute("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = 'bomb' AND checkpoint_id = ?",
                     (blob.replace(packed, bomb_bytes()), cid))  # fmt: skip
    return path
