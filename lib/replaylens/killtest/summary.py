"""A campaign reduced to what a reader compares: one row per backend, mode, latency, kill
node and fault point (`summarize`), and the table the CLI prints (`summary_table`)."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from replaylens.killtest import MODES
from replaylens.killtest.manifest import Manifest, RunRecord, latency_label


def _stats(values: list[float]) -> tuple[float | None, float | None, float | None]:
    if not values:
        return None, None, None
    med = statistics.median(values)
    return min(values), (int(med) if float(med).is_integer() else med), max(values)


def _group_key(r: RunRecord) -> tuple[Any, ...]:
    return (
        r.backend,
        r.put_latency,
        r.kill_at or "",
        r.fault_point or "",
        r.synchronous_commit or "",
        r.mode,
    )


def summarize(manifest: dict[str, Any] | Manifest) -> list[dict[str, Any]]:
    """One row per (backend, latency, kill node, fault point, synchronous_commit, mode).

    Min/median/max of what the killed runs left, the spread of the drawn kill delays and
    the distribution of repeated lines (`{repeats: runs}`). Runs that were not killed
    (the graph finished first, the fault point never came) are counted apart and kept
    out of the statistics: they measure a different experiment.
    """
    m = manifest if isinstance(manifest, Manifest) else Manifest.from_dict(manifest)
    groups: dict[tuple[Any, ...], list[RunRecord]] = {}
    for rec in m.runs:
        groups.setdefault(_group_key(rec), []).append(rec)
    mode_order = {mode: i for i, mode in enumerate(m.modes or MODES)}
    rows: list[dict[str, Any]] = []

    def order(item: tuple[tuple[Any, ...], list[RunRecord]]) -> tuple[Any, ...]:
        key = item[0]
        return (*key[:-1], mode_order.get(key[-1], 9))

    for key, records in sorted(groups.items(), key=order):
        backend, latency, kill_at, fault, sc, mode = key
        killed = [r for r in records if r.killed]
        row: dict[str, Any] = {
            "backend": backend, "mode": mode, "put_latency": latency, "kill_at": kill_at or None,
            "fault_point": fault or None, "synchronous_commit": sc or None, "runs": len(records),
            "killed": len(killed), "not_killed": len(records) - len(killed),
            "resumed_ok": sum(1 for r in killed if r.resume_ok),
            "resume_errors": sorted({str(r.resume_error).split(":")[0] for r in killed if r.resume_error}),
            "effects_source": sorted({r.effects_source for r in records}),
            "repeated_distribution": dict(sorted(Counter(r.lines_repeated for r in killed
                                                         if r.lines_repeated is not None).items())),
            "acked_lost": (None if all(r.acked_lost is None for r in killed)
                           else sum(len(r.acked_lost or []) for r in killed)),
        }  # fmt: skip
        for name in (
            "checkpoints_at_kill",
            "writes_at_kill",
            "effect_lines_at_kill",
            "effect_lines_after_resume",
            "lines_repeated",
            "kill_delay",
        ):
            values = [getattr(r, name) for r in killed if getattr(r, name) is not None]
            lo, med, hi = _stats(values)
            row[f"{name}_min"], row[f"{name}_median"], row[f"{name}_max"] = lo, med, hi
        rows.append(row)
    return rows


def _span(row: dict[str, Any], key: str, fmt: str = "{}") -> str:
    lo, med, hi = row[f"{key}_min"], row[f"{key}_median"], row[f"{key}_max"]
    return "-" if lo is None else "/".join(fmt.format(v) for v in (lo, med, hi))


def summary_table(manifest: dict[str, Any] | Manifest) -> str:
    """The summary as fixed-width text (min/median/max), printed at the end of a campaign."""
    m = manifest if isinstance(manifest, Manifest) else Manifest.from_dict(manifest)
    rows = summarize(m)
    headers = ["backend", "mode", "put latency", "kill at", "kill delay", "killed", "checkpoints", "writes",
               "lines at kill", "lines after", "repeated", "repeats: runs", "acked lost", "resumed ok"]  # fmt: skip
    cells = []
    for r in rows:
        where = r["fault_point"] or r["kill_at"] or "-"
        if r["fault_point"] and r["kill_at"]:
            where = f"{r['fault_point']} ({r['kill_at']})"
        backend = r["backend"] + (
            f" sc={r['synchronous_commit']} crash" if r["synchronous_commit"] else ""
        )
        dist = " ".join(f"{k}:{v}" for k, v in r["repeated_distribution"].items()) or "-"
        cells.append([
            backend, r["mode"], latency_label(r["put_latency"]), where, _span(r, "kill_delay", "{:.3f}"),
            f"{r['killed']}/{r['runs']}", _span(r, "checkpoints_at_kill"), _span(r, "writes_at_kill"),
            _span(r, "effect_lines_at_kill"), _span(r, "effect_lines_after_resume"), _span(r, "lines_repeated"),
            dist, "-" if r["acked_lost"] is None else str(r["acked_lost"]),
            f"{r['resumed_ok']}/{r['killed']}" + (f" ({', '.join(r['resume_errors'])})" if r["resume_errors"] else ""),
        ])  # fmt: skip
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    out += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    sources = sorted({s for r in rows for s in r["effects_source"]})
    out.append("(min/median/max over the killed runs; 'repeated' counts start lines of a (node, step) that had "
               "already started before the kill; 'repeats: runs' is how many runs repeated that many; "
               f"effects counted from: {', '.join(sources) or '-'})")  # fmt: skip
    if m.seed is not None and m.kill_delay_range is not None:
        lo, hi = m.kill_delay_range
        out.append(f"kill delays drawn uniformly from {lo:g}..{hi:g}s with seed {m.seed}")
    not_killed = sum(r["not_killed"] for r in rows)
    if not_killed:
        out.append(f"{not_killed} run(s) were not killed because the graph finished before the kill point "
                   "(or never reached the fault point).")  # fmt: skip
    return "\n".join(out)
