"""Postgres scale rows (issue 17): 100,000 threads through PostgresSaver's own schema.

A throw-away server (tests/pg_server.py) is started for the run; `PostgresSaver.setup()`
makes the schema, the template graphs of the many-threads fixture run once through a real
PostgresSaver, and their rows in `checkpoints`, `checkpoint_blobs` and
`checkpoint_writes` are copied in SQL (INSERT ... SELECT) under the 102,400 thread ids of
the SQLite scale fixture. The server and its data are removed at the end, so this fixture
is rebuilt on every run (the build time is printed).

LangGraph's route is `PostgresSaver.list(None)`; it is timed with `limit=` on the first
500,000 checkpoints and extrapolated per checkpoint, and the table says so.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from harness import ROOT, Bench, fx
from rendering import Row, _s

LG_LIMIT = 500_000


def _server() -> Any:
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_server import start_server

    return start_server()


def build(dsn: str, copies: int = fx.SCALE_COPIES) -> dict[str, Any]:
    """Templates through a real PostgresSaver, then copied in SQL; returns sizes and time."""
    import psycopg

    started = time.perf_counter()
    fx.record_postgres_templates(dsn)
    new_ids = [f"{tid}~{k}" for k in range(copies) for tid in fx.thread_ids()]
    src_ids = [f"tpl-{fx.template_of(tid)}" for _k in range(copies) for tid in fx.thread_ids()]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE UNLOGGED TABLE plan (new_tid text, src_tid text)")
        conn.execute(
            "INSERT INTO plan SELECT * FROM unnest(%s::text[], %s::text[])", (new_ids, src_ids)
        )
        for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
            cols = [r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
                (table,),
            )]  # fmt: skip
            select = ", ".join("p.new_tid" if c == "thread_id" else f"s.{c}" for c in cols)
            fx._log(f"postgres: copying {table} ...")
            conn.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {select} FROM {table} s "
                         "JOIN plan p ON p.src_tid = s.thread_id")  # fmt: skip
        conn.execute("DELETE FROM checkpoints WHERE thread_id LIKE 'tpl-%%'")
        conn.execute("DELETE FROM checkpoint_blobs WHERE thread_id LIKE 'tpl-%%'")
        conn.execute("DELETE FROM checkpoint_writes WHERE thread_id LIKE 'tpl-%%'")
        conn.execute("DROP TABLE plan")
        conn.execute("VACUUM ANALYZE")
        threads, checkpoints = conn.execute(
            "SELECT COUNT(DISTINCT thread_id), COUNT(*) FROM checkpoints"
        ).fetchone()
        size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    info = {"threads": threads, "checkpoints": checkpoints, "bytes": size,
            "build_seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
    fx._log(f"postgres fixture: {info}")
    return info


def run_pg_scale(
    b: Bench, repeat: int, lg_repeat: int, rows: list[Row], checks: list[str], scratch: Path
) -> None:
    """Start a server, build the fixture, append the Postgres rows, stop the server."""
    server = _server()
    try:
        dsn = server.create_database("scale")
        info = build(dsn)
        R = min(repeat, 3)
        p = {
            "db": dsn,
            "sample": [],
            "scratch": str(scratch),
            "repeat": R,
            "changed": 0.01,
            "limit": LG_LIMIT,
        }
        tiny = b.tiny
        b.tiny = {}  # the warm-up runs on the fixture itself: there is no tiny Postgres copy
        try:
            floor = b.worker("pg_floor", p, R)
            index = b.worker("rl_thread_index", p, R)
            first = b.worker("rl_first_screen", p, R)
            nocache = b.worker("rl_threads", p, R)
            cold = b.worker("rl_statuses_cold_cache", p, R)
            warm = b.worker("rl_statuses_warm_cache", p, R)
            warm_statuses = b.worker("rl_statuses_warm_cache", {**p, "phase": "statuses"}, R)
            lg = b.worker("lg_pg_list", p, lg_repeat)
        finally:
            b.tiny = tiny
        per_cp = {k: lg[k] / lg["info"]["checkpoints"] for k in ("warm", "cold")}
        lg_all = {k: per_cp[k] * info["checkpoints"] for k in ("warm", "cold")}
        size = f"{info['threads']:,} threads, {info['checkpoints']:,} checkpoints, {info['bytes'] / 1e9:.1f} GB"
        lg_label = (f"`PostgresSaver.list(None)`, extrapolated per checkpoint from `limit={LG_LIMIT:,}`: "
                    f"{_s(lg['warm'])} warm")  # fmt: skip
        rows.append(Row("pg", f"Postgres: Threads page first screen ({size}): keyset-paged `thread_index` + table",
                        first, floor, "≤ 3x the floor", kind="floor", max_over_floor=3,
                        lg_label="floor, `SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id`"))  # fmt: skip
        rows.append(Row("pg", "same, `thread_index` alone", index, floor, "—", kind="floor",
                        lg_label="floor, the bare GROUP BY"))  # fmt: skip
        rows.append(Row("pg", "Postgres: every status, empty status cache", cold, lg_all, "< 10 s; ≥ 20x",
                        min_ratio=20, max_seconds=10, lg_label=lg_label))  # fmt: skip
        rows.append(Row("pg", "Postgres: every status, warm cache, 1% changed (both runs warm)", warm, lg_all,
                        "< 1 s; ≥ 20x", min_ratio=20, max_seconds=1, lg_label="same, extrapolated"))  # fmt: skip
        rows.append(Row("pg", "same, the Threads page's wait after its first screen (status job given the list)",
                        warm_statuses, lg_all, "< 1 s; ≥ 20x", min_ratio=20, max_seconds=1,
                        lg_label="same, extrapolated"))  # fmt: skip
        rows.append(
            Row(
                "pg",
                "Postgres: every status, no cache",
                nocache,
                lg_all,
                "—",
                lg_label="same, extrapolated",
            )
        )
        agree = nocache["info"]["statuses"] == cold["info"]["statuses"] == warm["info"]["statuses"]
        checks.append(f"postgres: fixture built in {info['build_seconds']:.0f} s; {index['info']['threads']:,} threads "
                      f"in thread_index, {floor['info']['threads']:,} in the GROUP BY; statuses without cache, empty "
                      f"and warm cache {'agree' if agree else 'DISAGREE'}: {nocache['info']['statuses']}; "
                      f"'cold' here means the OS page cache was dropped, the server's shared buffers were not")  # fmt: skip
    finally:
        server.stop()
