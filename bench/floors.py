"""Scale targets as ratios to each backend's own floor, measured side by side in one run (issue 25).

    .venv/bin/python bench/floors.py [--threads 16384] [--repeat 3] [--write]

One fixture per backend with the same threads: the template graphs of `fixtures.py` run once
through LangGraph's own saver (SqliteSaver; PostgresSaver on a throw-away server), their rows
copied in SQL under N thread ids (`<template id>~<k>`). Each row times replaylens and, in the
same run on the same fixture, the floor it is held to:

- **first screen** (`source.thread_index()`: thread id, checkpoints, namespaces, latest root
  checkpoint id) against the best single SQL statement that returns those columns, written
  out in FIRST_SCREEN_SQL below; target 3x;
- **every status, empty cache** (`summarize_threads` with a new status cache) against a script
  that only reads each thread's latest root checkpoint row and its writes (LATEST_SQL), cold
  (first run after the page cache is dropped, when the kernel allows it) and warm; target 3x;
- **whole `replaylens threads DB --json` process, warm status cache** (spawn to exit, byte code
  cached) against a Python process that runs the bare GROUP BY; target 2x.

Warm numbers are the median of `--repeat` runs after one unmeasured run. `--write` replaces
the "Scale against each backend's floor" section of RESULTS.md with this run's tables.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT / "lib"), str(ROOT / "tests"), str(ROOT)]

import fixtures as fx  # noqa: E402
from harness import Bench, child_env, write_section  # noqa: E402

PY = sys.executable
SECTION = "## Scale against each backend's floor (`bench/floors.py`)"

FIRST_SCREEN_SQL = {
    "sqlite": (
        "SELECT thread_id, COUNT(*), COUNT(DISTINCT checkpoint_ns), "
        "MAX(CASE WHEN checkpoint_ns = '' THEN checkpoint_id END) FROM checkpoints GROUP BY thread_id"
    ),
    "postgres": (
        "SELECT thread_id, COUNT(*), COUNT(DISTINCT checkpoint_ns), "
        "MAX(checkpoint_id) FILTER (WHERE checkpoint_ns = '') FROM checkpoints GROUP BY thread_id"
    ),
}
"""The floor of the first screen: the same columns as `thread_index()` in one statement."""

LATEST_SQL = {
    "sqlite": (
        "WITH k AS (SELECT thread_id, MAX(checkpoint_id) AS m FROM checkpoints WHERE checkpoint_ns = '' "
        "GROUP BY thread_id) ",
        "SELECT c.thread_id, c.type, c.checkpoint, c.metadata FROM checkpoints c JOIN k "
        "ON c.thread_id = k.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = k.m",
        "SELECT w.thread_id, w.task_id, w.idx, w.channel, w.type, w.value FROM writes w JOIN k "
        "ON w.thread_id = k.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = k.m",
    ),
    "postgres": (
        "WITH k AS (SELECT DISTINCT ON (thread_id) thread_id, checkpoint_id FROM checkpoints "
        "WHERE checkpoint_ns = '' ORDER BY thread_id, checkpoint_id DESC) ",
        "SELECT c.thread_id, c.checkpoint, c.metadata FROM checkpoints c JOIN k "
        "ON c.thread_id = k.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = k.checkpoint_id",
        "SELECT w.thread_id, w.task_id, w.idx, w.channel, w.type, w.blob FROM checkpoint_writes w JOIN k "
        "ON w.thread_id = k.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = k.checkpoint_id",
    ),
}
"""The floor of the statuses: each thread's latest root checkpoint row and its writes, read
and nothing else (on Postgres the checkpoint row is its JSONB; the channel blobs are not read)."""

GROUP_BY = "SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id"
GROUP_BY_SCRIPT = {
    "sqlite": (
        "import sqlite3, sys, json\n"
        "conn = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True)\n"
        f"rows = conn.execute({GROUP_BY!r}).fetchall()\n"
        "sys.stdout.write(json.dumps(rows))\n"
    ),
    "postgres": (
        "import os, sys, json, psycopg\n"
        "conn = psycopg.connect(os.environ['RL_BENCH_DSN'])\n"
        f"rows = conn.execute({GROUP_BY!r}).fetchall()\n"
        "sys.stdout.write(json.dumps(rows))\n"
    ),
}
TARGETS = {"first": 3.0, "empty": 3.0, "process": 2.0}


def log(msg: str) -> None:
    print(f"[floors] {msg}", file=sys.stderr, flush=True)


def plan_ids(n: int) -> list[tuple[str, str]]:
    """(new thread id, template thread id) for n threads, in the many-threads mix."""
    base = fx.thread_ids()
    ids = [f"{tid}~{k}" for k in range(n // len(base) + 1) for tid in base][:n]
    return [(t, f"tpl-{fx.template_of(t.split('~')[0])}") for t in ids]


# -- fixtures ---------------------------------------------------------------------------
def build_sqlite(n: int) -> Path:
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    target = fx.CACHE / f"floors-{n}-v1.db"
    if target.exists():
        return target
    fx.CACHE.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floors-") as work:
        tpl = Path(work) / "templates.db"
        fx._record_templates(tpl, Path(work) / "effects.jsonl")
        partial = target.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        with SqliteSaver.from_conn_string(str(partial)) as saver:
            saver.setup()
        conn = sqlite3.connect(partial)
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("ATTACH DATABASE ? AS t", (str(tpl),))
        conn.execute("CREATE TEMP TABLE plan (new_tid TEXT, src_tid TEXT)")
        conn.executemany("INSERT INTO plan VALUES (?, ?)", plan_ids(n))
        for table in ("checkpoints", "writes"):
            cols = [r[1] for r in conn.execute(f"PRAGMA main.table_info({table})")]
            select = ", ".join("p.new_tid" if c == "thread_id" else f"s.{c}" for c in cols)
            conn.execute(f"INSERT INTO main.{table} ({', '.join(cols)}) SELECT {select} FROM t.{table} s "
                         "JOIN plan p ON p.src_tid = s.thread_id ORDER BY p.rowid")  # fmt: skip
        conn.commit()
        conn.close()
        partial.replace(target)
    log(f"sqlite fixture {target.name}: {n:,} threads in {time.perf_counter() - started:.0f} s")
    return target


def build_postgres(dsn: str, n: int) -> None:
    import psycopg

    started = time.perf_counter()
    fx.record_postgres_templates(dsn)
    pairs = plan_ids(n)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE UNLOGGED TABLE plan (i serial, new_tid text, src_tid text)")
        conn.execute("INSERT INTO plan (new_tid, src_tid) SELECT * FROM unnest(%s::text[], %s::text[])",
                     ([p[0] for p in pairs], [p[1] for p in pairs]))  # fmt: skip
        for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
            cols = [r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
                (table,))]  # fmt: skip
            select = ", ".join("p.new_tid" if c == "thread_id" else f"s.{c}" for c in cols)
            conn.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {select} FROM {table} s "
                         "JOIN plan p ON p.src_tid = s.thread_id ORDER BY p.i")  # fmt: skip
            conn.execute(f"DELETE FROM {table} WHERE thread_id LIKE 'tpl-%%'")
        conn.execute("DROP TABLE plan")
        conn.execute("VACUUM ANALYZE")
    log(f"postgres fixture: {n:,} threads in {time.perf_counter() - started:.0f} s")


# -- timing -----------------------------------------------------------------------------
def timed(
    fn: Callable[[], Any], repeat: int, drop: Callable[[], None] | None
) -> tuple[float | None, float]:
    """(cold seconds or None, warm median seconds)."""
    cold = None
    if drop is not None:
        drop()
        t = time.perf_counter()
        fn()
        cold = time.perf_counter() - t
    else:
        fn()  # an unmeasured run: the warm runs start warm
    warm = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        warm.append(time.perf_counter() - t)
    return cold, statistics.median(warm)


def process_seconds(cmd: list[str], env: dict[str, str], repeat: int) -> float:
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(
            cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(kind: str, spec: str, repeat: int, drop: Callable[[], None] | None) -> dict[str, Any]:
    from replaylens.analysis.status import summarize_threads
    from replaylens.cache import StatusCache
    from replaylens.sources import open_source

    source = open_source(spec)
    if kind == "sqlite":
        import sqlite3

        raw = sqlite3.connect(f"file:{spec}?mode=ro", uri=True)
        q = lambda sql: raw.execute(sql).fetchall()  # noqa: E731
    else:
        import psycopg

        raw = psycopg.connect(spec)
        raw.execute("SET jit = off")  # as replaylens's session: the floor is not handicapped

        def q(sql: str) -> list[Any]:
            return raw.execute(sql).fetchall()

    out: dict[str, Any] = {}
    index = source.thread_index()
    out["threads"] = len(index)
    out["checkpoints"] = sum(r.checkpoints for r in index)
    out["first_rl"] = timed(source.thread_index, repeat, drop)
    out["first_floor"] = timed(lambda: q(FIRST_SCREEN_SQL[kind]), repeat, drop)
    with_cte, cps, writes = LATEST_SQL[kind]
    out["empty_floor"] = timed(lambda: (q(with_cte + cps), q(with_cte + writes)), repeat, drop)

    def empty() -> None:
        with tempfile.TemporaryDirectory(prefix="floors-cache-") as d:
            summarize_threads(source, cache=StatusCache(source.cache_identity(), Path(d)))

    out["empty_rl"] = timed(empty, repeat, drop)
    from replaylens.analysis.storage import storage_report
    from replaylens.errors import SourceError

    t = time.perf_counter()
    try:
        rep = storage_report(source)
        out["storage"] = {"seconds": time.perf_counter() - t, "total_bytes": rep.total_bytes,
                          "on_disk": rep.file_bytes, "prune_bytes": rep.prune_bytes}  # fmt: skip
    except SourceError as exc:  # the statement timeout, said in one sentence
        out["storage"] = {"seconds": time.perf_counter() - t, "error": str(exc)}
    raw.close()
    source.close()
    env = child_env()
    with tempfile.TemporaryDirectory(prefix="floors-warm-") as d:
        env["REPLAYLENS_CACHE_DIR"] = d
        db_arg = spec
        if kind == "postgres":
            env["RL_BENCH_DSN"] = spec
            db_arg = "env:RL_BENCH_DSN"
        out["process_rl"] = process_seconds(
            [str(Path(PY).with_name("replaylens")), "threads", db_arg, "--json", "--no-effects"],
            env,
            repeat,
        )
        out["process_floor"] = process_seconds([PY, "-c", GROUP_BY_SCRIPT[kind], spec], env, repeat)
    return out


# -- the tables -------------------------------------------------------------------------
def _s(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f} s"


def _ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}x"


def _met(a: float | None, b: float | None, target: float) -> str:
    if a is None or b is None:
        return "not measured"
    return "met" if a <= target * b else "**missed**"


def table(kind: str, m: dict[str, Any], cold_label: str) -> str:
    name = {"sqlite": "SQLite", "postgres": "Postgres (PostgresSaver schema)"}[kind]
    lines = [
        f"### {name}: {m['threads']:,} threads, {m['checkpoints']:,} checkpoints",
        "",
        "| row | replaylens | floor (same run) | ratio | target | verdict |",
        "|---|---|---|---|---|---|",
    ]
    rows = [
        ("first screen (`thread_index`), warm", m["first_rl"][1], m["first_floor"][1], "first"),
        (f"first screen, {cold_label}", m["first_rl"][0], m["first_floor"][0], "first"),
        ("every status, empty cache, warm", m["empty_rl"][1], m["empty_floor"][1], "empty"),
        (
            f"every status, empty cache, {cold_label}",
            m["empty_rl"][0],
            m["empty_floor"][0],
            "empty",
        ),
        (
            "whole `replaylens threads --json` process, warm cache",
            m["process_rl"],
            m["process_floor"],
            "process",
        ),
    ]
    for label, a, b, key in rows:
        lines.append(f"| {label} | {_s(a)} | {_s(b)} | {_ratio(a, b)} | {TARGETS[key]:g}x | "
                     f"{_met(a, b, TARGETS[key])} |")  # fmt: skip
    st = m.get("storage")
    if st:
        lines.append("")
        lines.append(
            f"`replaylens storage` (one run, after the rows above): {st['seconds']:.1f} s"
            + (f"; {st['error']}" if "error" in st else
               f" for {st['total_bytes'] / 1e9:.2f} GB of data ({st['on_disk'] / 1e9:.2f} GB on disk), "
               f"a keep-latest prune would free {st['prune_bytes'] / 1e9:.2f} GB.")
        )  # fmt: skip
    return "\n".join(lines)


def section(results: dict[str, dict[str, Any]], cold_label: str, n: int) -> str:
    load = os.getloadavg()
    head = [
        SECTION,
        "",
        f"Latest run: `bench/floors.py --threads {n}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores (shared: load {load[0]:.1f} at the end), Python {platform.python_version()}. "
        f"Measured at {n:,} threads: the 100k-thread fixtures are not on this machine and take too long to "
        "build on 2 shared cores. Warm: median of the repeats after one unmeasured run. "
        + ("Cold: the first run after the page cache was dropped (Postgres keeps its shared_buffers)."
           if cold_label == "cold" else "Cold rows were not measured: this machine does not let the page cache be dropped."),
        "",
        "Floors, side by side in the same run on the same fixture:",
        f"- first screen: `{FIRST_SCREEN_SQL['sqlite']}` (Postgres: `{FIRST_SCREEN_SQL['postgres']}`);",
        "- statuses: a script reading each thread's latest root checkpoint row and its writes "
        f"(`{LATEST_SQL['sqlite'][0]}{LATEST_SQL['sqlite'][1]}` and the writes the same way; Postgres: DISTINCT ON);",
        f"- whole process: `python -c` running `{GROUP_BY}` and printing it as JSON (psycopg on Postgres).",
        "",
    ]  # fmt: skip
    return "\n".join(head + [table(k, m, cold_label) + "\n" for k, m in results.items()])


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=16_384)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", choices=("sqlite", "postgres"))
    p.add_argument("--write", action="store_true")
    p.add_argument("--no-drop", action="store_true")
    args = p.parse_args()
    bench = Bench(argparse.Namespace(no_drop=args.no_drop))
    drop = bench.drop if bench.can_drop else None
    results: dict[str, dict[str, Any]] = {}
    if args.only != "postgres":
        db = build_sqlite(args.threads)
        log("measuring sqlite")
        results["sqlite"] = measure("sqlite", str(db), args.repeat, drop)
    if args.only != "sqlite":
        from pg_server import start_server

        server = start_server()
        try:
            dsn = server.create_database("floors")
            build_postgres(dsn, args.threads)
            log("measuring postgres")
            results["postgres"] = measure("postgres", dsn, args.repeat, drop)
        finally:
            server.stop()
    text = section(results, bench.cold, args.threads)
    print(text)
    (fx.CACHE / "floors-latest.json").write_text(json.dumps(results, indent=1))
    if args.write:
        write_section(SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
