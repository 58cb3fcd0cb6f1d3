"""Scale rows (issue 17): 100,000 threads, the status cache, and how cost grows.

Fixtures (bench/fixtures.py `ensure_scale`): the many-threads rows copied 10 times under
new thread ids (102,400 threads, real blobs of real graphs), its first 1,024 threads, and
three single threads of 300, 3,000 and 30,000 checkpoints written by one invoke of a
small-state loop (so a thread's cost grows with its checkpoints, not a message list).

LangGraph's `saver.list(None)` route is timed on the 1k and 10k fixtures (on copies) and
extrapolated to 100k per checkpoint, linearly; the table says so. Listing 5.6 million
checkpoints through it takes minutes and an 11 GB copy of the file.
"""

from __future__ import annotations

import shutil
from typing import Any

from harness import SCRATCH, Bench, fx
from rendering import Row, _s


def _per(a: dict[str, Any], b: dict[str, Any], units: float) -> str:
    """The slope between two measurements, per unit, warm."""
    return f"{(b['warm'] - a['warm']) / units * 1e6:.1f} µs"


def run_scale(b: Bench, repeat: int, lg_repeat: int, rows: list[Row], checks: list[str]) -> str:
    """Append the scale rows; return the cost-growth table (Markdown)."""
    stamp = fx.ensure_scale()
    R = min(repeat, 3)
    SCRATCH.mkdir(parents=True, exist_ok=True)
    sizes = [("1k", fx.SMALL_DB, stamp["scale_1k"]), ("10k", fx.MANY_DB, stamp["many"]),
             ("100k", fx.SCALE_DB, stamp["scale_100k"])]  # fmt: skip
    grow: dict[str, dict[str, Any]] = {}
    for name, db, info in sizes:
        p = {"db": str(db), "sample": [], "scratch": str(SCRATCH), "repeat": R, "changed": 0.01}
        grow[name] = {
            "info": info,
            "floor": b.worker("floor", p, R),
            "index": b.worker("rl_thread_index", p, R),
            "first": b.worker("rl_first_screen", p, R),
            "nocache": b.worker("rl_threads", p, R),
            "cold_cache": b.worker("rl_statuses_cold_cache", p, R),
            "warm_cache": b.worker("rl_statuses_warm_cache", p, R),
            "warm_statuses": b.worker("rl_statuses_warm_cache", {**p, "phase": "statuses"}, R),
        }
    # LangGraph's route on copies of the 1k and 10k fixtures.
    lg: dict[str, dict[str, Any]] = {}
    for name, db, _info in sizes[:2]:
        copy = SCRATCH / f"scale-{name}-langgraph.db"
        fx._remove_db(copy)
        shutil.copyfile(db, copy)
        lg[name] = b.worker("lg_thread_ids", {"db": str(copy)}, lg_repeat)
        fx._remove_db(copy)
    big = grow["100k"]
    n, cps = big["info"]["threads"], big["info"]["checkpoints"]
    per_cp = {k: lg["10k"][k] / grow["10k"]["info"]["checkpoints"] for k in ("warm", "cold")}
    lg_100k = {k: per_cp[k] * cps for k in ("warm", "cold")}
    size = f"{n:,} threads, {cps:,} checkpoints, {big['info']['bytes'] / 1e9:.1f} GB"

    rows.append(Row("scale", f"Threads page first screen ({size}): `thread_index` + table (pandas), no status",
                    big["first"], big["floor"], "≤ 3x the floor", kind="floor", max_over_floor=3,
                    lg_label="floor, the bare GROUP BY"))  # fmt: skip
    rows.append(Row("scale", "same, `thread_index` alone (ids, counts, latest id, step, time, writes key)",
                    big["index"], big["floor"], "—", kind="floor", lg_label="floor, the bare GROUP BY"))  # fmt: skip
    rows.append(Row("scale", "every status, empty status cache (derive all + save the cache file)",
                    big["cold_cache"], lg_100k, "< 10 s; ≥ 20x", min_ratio=20, max_seconds=10,
                    lg_label="`checkpointer.list(None)` thread ids, extrapolated per checkpoint from the 10k row: "
                    f"{_s(lg['10k']['warm'])} warm for {grow['10k']['info']['checkpoints']:,} checkpoints"))  # fmt: skip
    warm = dict(big["warm_cache"])
    rows.append(Row("scale", "every status, warm cache, 1% of the threads changed (their stored checkpoint id "
                    "replaced; both runs warm: the cache is filled first)",
                    warm, lg_100k, "< 1 s; ≥ 20x", min_ratio=20, max_seconds=1,
                    lg_label="same, extrapolated"))  # fmt: skip
    rows.append(Row("scale", "same, the Threads page's wait after its first screen: the status job given the "
                    "thread list (`StatusJob` to the saved cache)",
                    big["warm_statuses"], lg_100k, "< 1 s; ≥ 20x", min_ratio=20, max_seconds=1,
                    lg_label="same, extrapolated"))  # fmt: skip
    rows.append(Row("scale", "every status, no cache (`summarize_threads`, what `--no-cache` does)",
                    big["nocache"], lg_100k, "—", lg_label="same, extrapolated"))  # fmt: skip
    for name in ("1k", "10k", "100k"):
        g = grow[name]
        agree = (
            g["nocache"]["info"]["statuses"]
            == g["cold_cache"]["info"]["statuses"]
            == g["warm_cache"]["info"]["statuses"]
        )
        checks.append(f"scale {name}: {g['info']['threads']:,} threads; statuses without cache, with an empty cache "
                      f"and with a warm cache ({g['warm_cache']['info']['changed']:,} changed) "
                      f"{'agree' if agree else 'DISAGREE'}: {g['nocache']['info']['statuses']}; cache file "
                      f"{g['cold_cache']['info']['cache_bytes'] / 1e6:.1f} MB")  # fmt: skip
    checks.append(
        f"saver.list(None): {lg['1k']['info']['threads']:,} ids on the 1k copy in {_s(lg['1k']['warm'])}, "
        f"{lg['10k']['info']['threads']:,} on the 10k copy in {_s(lg['10k']['warm'])} (warm)"
    )

    long: dict[int, dict[str, Any]] = {}
    for length in fx.LONG_LENGTHS:
        p = {"db": str(fx.long_db(length)), "tid": fx.LONG_THREAD_ID}
        long[length] = b.worker("rl_thread_full", p, R)
    return _growth_table(grow, long, lg)


def _growth_table(
    grow: dict[str, dict[str, Any]], long: dict[int, dict[str, Any]], lg: dict[str, dict[str, Any]]
) -> str:
    """Threads page rows per thread count, Thread page per checkpoint count, with slopes."""

    def cell(r: dict[str, Any]) -> str:
        return f"{_s(r['warm'])} ({_s(r['cold'])} cold)"

    out = ["### Cost growth (warm median, cold in brackets)", "",
           "| threads (checkpoints) | bare GROUP BY | first screen | every status, no cache | empty cache | "
           "warm cache, 1% changed | `saver.list(None)` |",
           "|---|---|---|---|---|---|---|"]  # fmt: skip
    for name in ("1k", "10k", "100k"):
        g = grow[name]
        lgc = cell(lg[name]) if name in lg else "extrapolated"
        out.append(f"| {g['info']['threads']:,} ({g['info']['checkpoints']:,}) | {cell(g['floor'])} | "
                   f"{cell(g['first'])} | {cell(g['nocache'])} | {cell(g['cold_cache'])} | "
                   f"{_s(g['warm_cache']['warm'])} | {lgc} |")  # fmt: skip
    a, c = grow["10k"], grow["100k"]
    dn = c["info"]["threads"] - a["info"]["threads"]
    out.append(f"| slope per thread, 10k → 100k | {_per(a['floor'], c['floor'], dn)} | "
               f"{_per(a['first'], c['first'], dn)} | {_per(a['nocache'], c['nocache'], dn)} | "
               f"{_per(a['cold_cache'], c['cold_cache'], dn)} | {_per(a['warm_cache'], c['warm_cache'], dn)} | "
               f"{_per(lg['1k'], lg['10k'], grow['10k']['info']['threads'] - grow['1k']['info']['threads'])} "
               "(1k → 10k) |")  # fmt: skip
    out += [
        "",
        "| checkpoints in the thread | Thread page computations (`load_thread` + plan + timeline + table) |",
        "|---|---|",
    ]
    for r in long.values():
        out.append(f"| {r['info']['checkpoints']:,} | {cell(r)} |")
    rx, ry = list(long.values())[-2:]
    out.append(
        f"| slope per checkpoint, {rx['info']['checkpoints']:,} → {ry['info']['checkpoints']:,} | "
        f"{_per(rx, ry, ry['info']['checkpoints'] - rx['info']['checkpoints'])} |"
    )
    return "\n".join(out) + "\n"
