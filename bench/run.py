"""Benchmark for issue 7: replaylens against LangGraph's own API on the same files.

Run it with `.venv/bin/python bench/run.py` (what `make bench` should call). It builds the
fixtures of `bench/fixtures.py` when they are missing (cached in `bench/.cache/`), runs
every measurement several times, prints one table and writes it to `bench/RESULTS.md`.

How it measures, so that the numbers can be trusted:

- Same data on both sides. LangGraph's `SqliteSaver` runs `setup()` (it writes: WAL mode,
  CREATE TABLE IF NOT EXISTS, ALTER TABLE), so its routes read a byte-for-byte copy of
  each fixture made in `bench/.cache/scratch/` at the start of the run; replaylens reads
  the cached fixture itself, read-only. The cached fixtures are never written.
- Fresh process per measurement. Each in-process row runs in a new Python process that
  imports what it needs first (imports are not timed there), then repeats the work
  (a fresh `open_source` / `SqliteSaver` every time). Before that process starts the
  page cache is dropped (`echo 3 > /proc/sys/vm/drop_caches`) when the kernel allows it,
  so the first repetition is a *cold* read from disk; the others are *warm* (page cache
  warm, no in-process cache: nothing but the OS cache carries over). When dropping is not
  allowed the table says "page cache warm" instead of "cold".
- Whole-process rows time the command from spawn to exit (interpreter start and imports
  included), stdout to a file; the first run after dropping the cache is the cold one.
- Ratios are LangGraph's time over replaylens's, warm median over warm median, with the
  cold ratio beside it; a ratio target must hold for both. The GROUP BY floor rows give
  replaylens's time over the floor's (the target is at most 3x).
- LangGraph's routes are written as its docs show them: `graph.get_state_history(config)`,
  `checkpointer.list(config)`, `graph.get_state(config)` with a compiled graph and a
  `SqliteSaver.from_conn_string(path)` checkpointer. Listing threads has no LangGraph API;
  the route is the one a user writes: thread ids from `checkpointer.list(None)`, then
  `get_state` per thread for its status. That last part is timed on a sample of 200
  threads and extrapolated; the table says so.

Options: `--repeat N` (replaylens, default 5), `--lg-repeat N` (LangGraph routes, default 3),
`--only ROW[,ROW]`, `--no-drop`, `--no-write`, `--profile WORKER` (cProfile one repetition).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from harness import (  # noqa: E402
    EFFECTS_THREAD,
    FLOOR_SCRIPT,
    LG_HISTORY_SCRIPT,
    LG_THREADS_SCRIPT,
    LOAD_AT_START,
    PY,
    REPLAYLENS,
    RESULTS,
    ROOT,
    SCRATCH,
    STATUS_SAMPLE,
    Bench,
    fx,
    latest_checkpoint_id,
    machine,
    make_tiny,
)  # fmt: skip
from measurements import WORKERS, worker_main  # noqa: E402
from pg_scale import run_pg_scale  # noqa: E402
from rendering import Row, _s, render, render_breakdowns, write_results  # noqa: E402
from scale import run_scale  # noqa: E402


def run_bench(args: argparse.Namespace) -> int:
    stamp = fx.ensure_fixtures()
    big = stamp["big"]
    b = Bench(args)
    LOAD_AT_START.append(", ".join(f"{x:.2f}" for x in os.getloadavg()))
    b.note(f"load average at the start: {LOAD_AT_START[0]}")
    R, L = args.repeat, args.lg_repeat
    only = set(args.only.split(",")) if args.only else None

    def want(key: str) -> bool:
        return only is None or key in only

    SCRATCH.mkdir(parents=True, exist_ok=True)
    big_copy, many_copy = SCRATCH / "big-thread-langgraph.db", SCRATCH / "many-threads-langgraph.db"
    b.note(
        "copying the fixtures for LangGraph's routes (its SqliteSaver writes to the file it opens) ..."
    )
    for src, dst in ((fx.BIG_DB, big_copy), (fx.MANY_DB, many_copy)):
        fx._remove_db(dst)
        shutil.copyfile(src, dst)

    tid = big["thread_id"]
    big_p = {"db": str(fx.BIG_DB), "tid": tid}
    big_lg = {"db": str(big_copy), "tid": tid}
    cid = latest_checkpoint_id(fx.BIG_DB, tid)
    all_ids = sorted(fx.thread_ids())
    sample = all_ids[:: max(1, len(all_ids) // STATUS_SAMPLE)][:STATUS_SAMPLE]

    # Tiny files of the same shape: every measured command runs once on them first, so
    # bytecode is compiled and lazy imports are done before anything is timed.
    b.note("making tiny copies for the warm-up runs ...")
    tiny_big, tiny_many = SCRATCH / "tiny-big.db", SCRATCH / "tiny-many.db"
    make_tiny(
        fx.BIG_DB,
        tiny_big,
        "checkpoint_id IN (SELECT checkpoint_id FROM s.checkpoints "
        "ORDER BY checkpoint_id LIMIT 10) OR checkpoint_id = ?",
        (cid,),
    )
    keep = [*sample[:: max(1, len(sample) // 20)], EFFECTS_THREAD]
    make_tiny(fx.MANY_DB, tiny_many, f"thread_id IN ({', '.join('?' * len(keep))})", tuple(keep))
    tiny_log = SCRATCH / "tiny.effects.jsonl"
    with open(fx.EFFECTS, "rb") as src, open(tiny_log, "wb") as dst:
        dst.writelines(line for _, line in zip(range(2000), src, strict=False))
    for big_file, small in (
        (fx.BIG_DB, tiny_big),
        (fx.MANY_DB, tiny_many),
        (fx.EFFECTS, tiny_log),
        (big_copy, SCRATCH / "tiny-big-langgraph.db"),
        (many_copy, SCRATCH / "tiny-many-langgraph.db"),
    ):
        if small.suffix == ".db" and "langgraph" in small.name:
            shutil.copyfile(tiny_big if "big" in small.name else tiny_many, small)
        b.tiny[str(big_file)] = str(small)
    if want("scale"):
        fx.ensure_scale()
        for scaled in (fx.SCALE_DB, fx.SMALL_DB):
            b.tiny[str(scaled)] = str(tiny_many)
        for length in fx.LONG_LENGTHS[1:]:
            b.tiny[str(fx.long_db(length))] = str(fx.long_db(fx.LONG_LENGTHS[0]))
    rows: list[Row] = []
    checks: list[str] = []
    growth = ""
    breakdowns: list[tuple[str, dict[str, Any]]] = []
    cl = b.cold

    try:
        # -- the 1 GB thread -----------------------------------------------------------
        if want("thread"):
            rl = b.worker("rl_thread", big_p, R)
            hist = b.worker("lg_history", big_lg, L)
            lst = b.worker("lg_saver_list", big_lg, L)
            checks.append(
                f"1 GB thread: replaylens {rl['info']['checkpoints']} checkpoints "
                f"({rl['info']['status']}), get_state_history {hist['info']['checkpoints']} snapshots "
                f"({hist['info']['status']}), checkpointer.list {lst['info']['checkpoints']} tuples"
            )
            rows.append(
                Row(
                    "thread",
                    "Thread page data, 1 GB thread: `load_thread` (checkpoints, next tasks, statuses)",
                    rl,
                    hist,
                    "< 1.5 s cold; ≥ 4x",
                    min_ratio=4,
                    max_seconds=1.5,
                    lg_label="`list(graph.get_state_history(config))`",
                )
            )
            rows.append(
                Row(
                    "thread",
                    "same, against `checkpointer.list(config)`",
                    rl,
                    lst,
                    "—",
                    lg_label="`list(checkpointer.list(config))`",
                )
            )
            disk = b.worker("read_file", big_p, R)
            rows.append(
                Row(
                    "thread",
                    f"Disk floor: reading the {disk['info']['bytes'] / 1e9:.2f} GB file "
                    "sequentially, nothing else (any reader that touches every blob pays this)",
                    disk,
                    None,
                    "—",
                )
            )
            full = b.worker("rl_thread_full", big_p, R)
            rows.append(
                Row(
                    "thread",
                    "Thread page computations: `load_thread` + `plan_resume` + timeline figure + "
                    "checkpoint table (pandas)",
                    full,
                    hist,
                    "< 1.5 s cold; ≥ 4x",
                    min_ratio=4,
                    max_seconds=1.5,
                    lg_label="`get_state_history`",
                )
            )
            b.lg_hist = hist
        if want("values"):
            v = b.worker("rl_values", {**big_p, "cid": cid}, R)
            lgv = b.worker("lg_get_state", {**big_lg, "cid": cid}, L)
            checks.append(
                f"latest checkpoint's state: replaylens {v['info']['messages']} messages, "
                f"get_state {lgv['info']['messages']} messages"
            )
            rows.append(
                Row(
                    "values",
                    f"One checkpoint's full state (the latest, {v['info']['messages']:,} messages): "
                    "`read_channel_values`",
                    v,
                    lgv,
                    "< 0.3 s",
                    max_seconds=0.3,
                    lg_label="`graph.get_state(config with checkpoint_id)`",
                )
            )

        # -- the many-threads database -------------------------------------------------
        many_p = {"db": str(fx.MANY_DB), "sample": sample}
        many_lg = {"db": str(many_copy), "sample": sample}
        if want("threads"):
            rl = b.worker("rl_threads", many_p, R)
            ids = b.worker("lg_thread_ids", many_lg, L)
            st = b.worker("lg_status_sample", many_lg, L)
            floor = b.worker("floor", many_p, R)
            n = rl["info"]["threads"]
            scale = n / len(sample)
            extrap = {k: ids[k] + st[k] * scale for k in ("cold", "warm")}
            agree = sum(
                rl["info"]["sample_status"].get(t) == s
                for t, s in st["info"]["sample_status"].items()
            )
            checks.append(
                f"many threads: replaylens {n} threads / {rl['info']['checkpoints']} checkpoints "
                f"{rl['info']['statuses']}; checkpointer.list(None) {ids['info']['threads']} thread ids; "
                f"GROUP BY {floor['info']['threads']} threads / {floor['info']['checkpoints']} checkpoints; "
                f"statuses of the {len(sample)} sampled threads agree with get_state on {agree}"
            )
            size = f"{n:,} threads, {rl['info']['checkpoints']:,} checkpoints"
            rows.append(
                Row(
                    "threads",
                    f"Threads page, every thread's status ({size}): `summarize_threads`",
                    rl,
                    ids,
                    "< 2 s cold; ≥ 20x",
                    min_ratio=20,
                    max_seconds=2,
                    lg_label="thread ids only, `{t.config[...]['thread_id'] for t in checkpointer.list(None)}`",
                )
            )
            rows.append(
                Row(
                    "threads",
                    "same, against ids + a status per thread",
                    rl,
                    extrap,
                    "—",
                    lg_label=f"ids + `graph.get_state` per thread (extrapolated from {len(sample)} threads: "
                    f"{_s(st['warm'])} warm)",
                )
            )
            rows.append(
                Row(
                    "threads",
                    "same, against the bare GROUP BY (in process)",
                    rl,
                    floor,
                    "≤ 3x the floor",
                    kind="floor",
                    max_over_floor=3,
                    lg_label="floor, `SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id`",
                )
            )

        # -- whole processes ------------------------------------------------------------
        if want("cli"):
            cli = b.process(
                # --no-effects: the fixture's 1M-line log lies next to it, and `threads` would read
                # it for threads known only from the log; LangGraph's script reads no log either.
                "replaylens threads --json",
                [REPLAYLENS, "threads", str(fx.MANY_DB), "--json", "--no-effects"],
                R,
            )
            lgp = b.process(
                "LangGraph threads script", [PY, "-c", LG_THREADS_SCRIPT, str(many_copy)], L
            )
            flp = b.process("GROUP BY script", [PY, "-c", FLOOR_SCRIPT, str(fx.MANY_DB)], R)
            checks.append(
                f"whole process: `threads --json` listed {len(cli['output'])} threads, the LangGraph "
                f"script {len(lgp['output'])}, the GROUP BY script {len(flp['output'])}"
            )
            rows.append(
                Row(
                    "cli",
                    "`replaylens threads DB --json --no-effects`, whole process (the status cache as "
                    "a user has it: filled by the warm-up run)",
                    cli,
                    lgp,
                    "≥ 20x",
                    min_ratio=20,
                    lg_label="python script: `checkpointer.list(None)` thread ids",
                )
            )
            rows.append(
                Row(
                    "cli",
                    "same, against the GROUP BY as a whole process",
                    cli,
                    flp,
                    "≤ 3x the floor",
                    kind="floor",
                    max_over_floor=3,
                    lg_label="python script: sqlite3 GROUP BY",
                )
            )
            tcli = b.process(
                "replaylens thread --json",
                [REPLAYLENS, "thread", str(fx.BIG_DB), "--thread", tid, "--json"],
                R,
            )
            hp = b.process(
                "LangGraph history script",
                [PY, "-c", LG_HISTORY_SCRIPT, str(big_copy), tid, str(HERE)],
                L,
            )
            checks.append(
                f"whole process: `thread --json` printed {len(tcli['output']['checkpoints'])} checkpoints, "
                f"the get_state_history script {len(hp['output'])}"
            )
            rows.append(
                Row(
                    "cli",
                    "`replaylens thread DB --thread T --json`, 1 GB thread, whole process",
                    tcli,
                    hp,
                    "≥ 4x",
                    min_ratio=4,
                    lg_label="python script: `get_state_history`",
                )
            )

        # -- the effects log ------------------------------------------------------------
        if want("effects"):
            eff_p = {"db": str(fx.MANY_DB), "log": str(fx.EFFECTS), "tid": EFFECTS_THREAD}
            e = b.worker("rl_effects", eff_p, R)
            parts = e["info"]["parts"]
            checks.append(
                f"effects: {e['info']['lines']:,} lines parsed; {EFFECTS_THREAD}: "
                f"{e['info']['attempts']} attempts, {e['info']['replayed_lines']} lines replay, "
                f"{e['info']['status']}"
            )
            rows.append(
                Row(
                    "effects",
                    f"Effects log, {e['info']['lines']:,} lines: `read_effects` + `load_thread` + "
                    f"`plan_resume` of one thread (last run: read {_s(parts['read_effects'])}, load "
                    f"{_s(parts['load_thread'])}, plan {_s(parts['plan_resume'])})",
                    e,
                    None,
                    "< 5 s",
                    max_seconds=5,
                )
            )
            rc = b.worker("rl_replay_counts", eff_p, max(2, R // 2))
            rows.append(
                Row(
                    "effects",
                    f"Threads page 'would replay' column with that log: `replay_counts` for "
                    f"{rc['info']['threads']} threads (log already parsed)",
                    rc,
                    None,
                    "—",
                )
            )

        # -- memory ---------------------------------------------------------------------
        if want("rss"):
            m = b.worker("rl_rss", big_p, 1)
            lg_hist = getattr(b, "lg_hist", None) or b.worker("lg_history", big_lg, 1)
            info = m["info"]
            private, mapped = info["peak_private_mb"], info["peak_file_mapped_mb"]
            rows.append(
                Row(
                    "rss",
                    "Peak memory of a dashboard-like process (streamlit, pandas, plotly imported; "
                    "Thread page computed; 5 checkpoints' state decoded) on the 1 GB thread: private memory "
                    "(what the process holds); its RSS also counts the database pages SQLite maps read-only",
                    {
                        "text": f"{private:.0f} MB private (RSS {info['maxrss_mb']:.0f} MB, of which up to "
                        f"{mapped:.0f} MB mapped file pages; after imports {info['after_imports_mb']:.0f} MB)",
                        "value": private / 1024,
                    },
                    {
                        "text": f"RSS {lg_hist['info']['maxrss_mb']:.0f} MB (its SQLite maps nothing)"
                    },
                    "< 1 GB",
                    max_value=1.0,
                    lg_label="`get_state_history` process",
                )
            )
        # -- 100,000 threads, the status cache, cost growth (issue 17) ---------------------
        if want("scale"):
            growth = run_scale(b, R, L, rows, checks)
        if want("pg"):
            run_pg_scale(b, R, L, rows, checks, SCRATCH)
        # -- where the time goes (warm, library functions wrapped in the worker) -----------
        if want("breakdown"):
            eff_p = {"db": str(fx.MANY_DB), "log": str(fx.EFFECTS), "tid": EFFECTS_THREAD}
            for what, params, label, n in (
                ("thread", big_p, "load_thread, 1 GB thread", R),
                ("thread_page", big_p, "Thread page computations, 1 GB thread", R),
                ("threads", {**many_p, "sample": []}, "summarize_threads, 10,240 threads", R),
                ("effects", eff_p, "read_effects (1M lines) + load_thread + plan_resume", 2),
                ("effects_parse", eff_p, "read_effects in stages (1M lines)", 2),
                ("replay_counts", eff_p, "replay_counts, 300 threads", 2),
            ):
                out = b.worker("rl_breakdown", {**params, "what": what}, n)
                breakdowns.append((label, out))
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)  # the copies and tiny files, 2 GB

    table = render(rows, cl) + ("\n" + growth if growth else "")
    shares = render_breakdowns(breakdowns)
    info = machine()
    print()
    print(table)
    print(shares)
    for c in checks:
        print(f"check: {c}")
    print("machine: " + "; ".join(f"{k} {v}" for k, v in info.items()))
    if args.write or (not args.no_write and only is None):
        write_results(table + "\n" + shares, info, stamp, checks, cl, args)
        print(f"\nwrote {RESULTS.relative_to(ROOT)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repeat", type=int, default=5, help="Runs per replaylens measurement (first is cold)."
    )
    parser.add_argument(
        "--lg-repeat", type=int, default=3, help="Runs per LangGraph measurement (first is cold)."
    )
    parser.add_argument(
        "--only",
        help="Comma-separated rows: thread,values,threads,cli,effects,rss,scale,pg,breakdown.",
    )
    parser.add_argument(
        "--no-drop", action="store_true", help="Do not drop the page cache (no cold runs)."
    )
    parser.add_argument("--no-write", action="store_true", help="Do not write bench/RESULTS.md.")
    parser.add_argument(
        "--write", action="store_true", help="Write bench/RESULTS.md even with --only."
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--params", help=argparse.SUPPRESS)
    parser.add_argument(
        "--profile",
        metavar="WORKER",
        help=f"cProfile one run of a worker and print the top functions: {', '.join(WORKERS)}.",
    )
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(args.worker, json.loads(args.params), args.repeat, profile=False)
        return 0
    if args.profile:
        fx.ensure_fixtures()
        tid = fx.BIG_THREAD_ID
        params = {"db": str(fx.BIG_DB), "tid": tid, "cid": latest_checkpoint_id(fx.BIG_DB, tid)}
        if args.profile in {"rl_threads", "floor", "rl_effects", "rl_replay_counts"}:
            params = {
                "db": str(fx.MANY_DB),
                "log": str(fx.EFFECTS),
                "tid": EFFECTS_THREAD,
                "sample": [],
            }
        elif args.profile.startswith("lg_"):
            raise SystemExit("profile the replaylens workers; LangGraph's need a scratch copy")
        worker_main(args.profile, params, 1, profile=True)
        return 0
    return run_bench(args)


if __name__ == "__main__":
    sys.exit(main())
