"""Rendering: the results table, the where-the-time-goes table and bench/RESULTS.md."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from harness import RESULTS, fx, write_section  # noqa: F401


# -- formatting -----------------------------------------------------------------------
def _s(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def _cell(r: dict[str, Any] | None, cold_label: str) -> str:
    if r is None:
        return "—"
    if "text" in r:
        return r["text"]
    return f"{_s(r['warm'])} warm, {_s(r['cold'])} {cold_label}"


class Row:
    def __init__(
        self,
        key: str,
        label: str,
        rl: dict[str, Any] | None,
        lg: dict[str, Any] | None,
        target: str,
        kind: str = "faster",
        min_ratio: float | None = None,
        max_seconds: float | None = None,
        max_over_floor: float | None = None,
        max_value: float | None = None,
        lg_label: str = "",
        note: str = "",
    ) -> None:
        self.key, self.label, self.rl, self.lg, self.target = key, label, rl, lg, target
        self.kind, self.min_ratio, self.max_seconds, self.max_over_floor = (
            kind,
            min_ratio,
            max_seconds,
            max_over_floor,
        )
        self.max_value = max_value
        self.lg_label, self.note = lg_label, note

    def ratios(self) -> tuple[float, float] | None:
        if not self.rl or not self.lg or "warm" not in self.rl or "warm" not in self.lg:
            return None
        if self.kind == "floor":
            return self.rl["warm"] / self.lg["warm"], self.rl["cold"] / self.lg["cold"]
        return self.lg["warm"] / self.rl["warm"], self.lg["cold"] / self.rl["cold"]

    def ratio_text(self) -> str:
        r = self.ratios()
        if r is None:
            return "—"
        if self.kind == "floor":
            return f"{r[0]:.1f}x the floor ({r[1]:.1f}x cold)"

        def one(x: float) -> str:
            return f"{x:.1f}x faster" if x >= 1 else f"{1 / x:.1f}x slower"

        return f"{one(r[0])} ({one(r[1])} cold)"

    def verdict(self) -> str:
        """PASS, or FAIL with the criteria that failed; "info" for rows without a target."""
        failed: list[str] = []
        checked = False
        r = self.ratios()
        if self.min_ratio is not None and r:
            checked = True
            if r[0] < self.min_ratio:
                failed.append(f"warm ratio < {self.min_ratio:g}x")
            if r[1] < self.min_ratio:
                failed.append(f"cold ratio < {self.min_ratio:g}x")
        if self.max_over_floor is not None and r:
            checked = True
            if r[0] > self.max_over_floor:
                failed.append(f"warm > {self.max_over_floor:g}x floor")
            if r[1] > self.max_over_floor:
                failed.append(f"cold > {self.max_over_floor:g}x floor")
        if self.max_seconds is not None and self.rl and "cold" in self.rl:
            checked = True
            for which in ("warm", "cold"):
                if self.rl[which] >= self.max_seconds:
                    failed.append(f"{which} ≥ {_s(self.max_seconds)}")
        if self.max_value is not None and self.rl and "value" in self.rl:
            checked = True
            if self.rl["value"] >= self.max_value:
                failed.append("over the limit")
        if not checked:
            return "info"
        return "PASS" if not failed else "FAIL (" + "; ".join(failed) + ")"


def render_breakdowns(breakdowns: list[tuple[str, dict[str, Any]]]) -> str:
    """Warm medians of each wrapped function's time, as a share of the run."""
    if not breakdowns:
        return ""
    out = [
        "### Where the time goes",
        "",
        "The last (warm) run of each measurement again, in a fresh process, with the library's functions "
        "wrapped by timers in that process (the library is not changed; the wrappers add a little).",
        "",
        "| measurement | function | time | share |",
        "|---|---|---|---|",
    ]
    for label, result in breakdowns:
        warm = result["info"]  # the last run; the worker returns the facts of its last run
        total = warm["total"]
        out.append(f"| {label} | (whole run) | {_s(total)} | 100% |")
        top = 0.0
        for name, secs in warm["parts"].items():
            nested = name.startswith("  ")
            aside = "not part of the total" in name
            top += 0.0 if nested or aside else secs
            out.append(
                f"| | `{name.strip()}`{' (within the line above)' if nested else ''} "
                f"| {_s(secs)} | {'—' if aside else f'{100 * secs / total:.0f}%'} |"
            )
        if warm["parts"] and total - top > 0.005:
            out.append(
                f"| | (the rest: not in the functions above) | {_s(total - top)} | "
                f"{100 * (total - top) / total:.0f}% |"
            )
    return "\n".join(out) + "\n"


def render(rows: list[Row], cold_label: str) -> str:
    head = "| measurement | replaylens | LangGraph route | ratio | target | result |\n|---|---|---|---|---|---|\n"
    lines = []
    for r in rows:
        lg = _cell(r.lg, cold_label)
        if r.lg_label:
            lg = f"{r.lg_label}: {lg}"
        lines.append(
            f"| {r.label} | {_cell(r.rl, cold_label)} | {lg} | {r.ratio_text()} | {r.target} | {r.verdict()} |"
        )
    return head + "\n".join(lines) + "\n"


def _scale_fixtures(stamp: dict[str, Any]) -> list[str]:
    """The issue-17 fixtures, when the run built them."""
    out: list[str] = []
    if "scale_100k" in stamp:
        s = stamp["scale_100k"]
        out.append(
            f"- Scale: {s['threads']:,} threads, {s['checkpoints']:,} checkpoints, {s['writes']:,} writes, "
            f"{s['bytes'] / 1e9:.1f} GB: the many-threads rows copied {s['copies']} times under new thread ids "
            f"with one INSERT ... SELECT per table (built in {s['build_seconds']:.0f} s)."
        )
    if "scale_1k" in stamp:
        s = stamp["scale_1k"]
        out.append(
            f"- Scale 1k: {s['threads']:,} threads, {s['checkpoints']:,} checkpoints (every 10th thread of "
            "many-threads)."
        )
    longs = [stamp[k] for k in sorted(stamp) if k.startswith("long_")]
    if longs:
        out.append(
            "- Long threads: "
            + ", ".join(
                f"{x['checkpoints']:,}" for x in sorted(longs, key=lambda x: x["checkpoints"])
            )
            + " checkpoints, one invoke each of a two-node loop with a small state (durability sync)."
        )
    return out


SECTION = "## Against LangGraph's own API (`bench/run.py`)"


def write_results(
    table: str,
    info: dict[str, str],
    stamp: dict[str, Any],
    checks: list[str],
    cold: str,
    args: argparse.Namespace,
) -> None:
    big, many = stamp["big"], stamp["many"]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    # The command as run, so that a section written with --only says which rows it left out.
    command = " ".join([".venv/bin/python bench/run.py", *sys.argv[1:]])
    md = [
        SECTION,
        "",
        f"Written by `{command}` on {when}. replaylens rows: {args.repeat} runs, "
        f"LangGraph rows: {args.lg_repeat} runs; the first run of each is {cold} "
        + (
            "(page cache dropped, fresh process), "
            if cold == "cold"
            else "(the page cache could not be dropped), "
        )
        + "the others warm (median shown). Ratios: warm median over warm median, cold ratio beside it; "
        "a ratio target must hold for both.",
        "",
        "### Machine and versions",
        "",
        *[f"- {k}: {v}" for k, v in info.items()],
        "",
        "### Fixtures (bench/fixtures.py, cached in bench/.cache/)",
        "",
        f"- 1 GB thread: {big['checkpoints']:,} checkpoints, {big['writes']:,} writes, "
        f"{big['bytes'] / 1e9:.2f} GB; one invoke of a real agent/tool loop ({big['tool_calls']:,} tool calls, "
        f"{big['message_chars']}-character messages, whole message list in every checkpoint), durability sync.",
        f"- Many threads: {many['threads']:,} threads, {many['checkpoints']:,} checkpoints, {many['writes']:,} writes, "
        f"{many['bytes'] / 1e9:.2f} GB; 10 template threads recorded by real graphs (completed, failed, interrupted, "
        "stopped by the recursion limit; loop, payment, fanout, subgraph, Send, failing), their rows copied under new "
        "thread ids, interleaved by checkpoint id.",
        f"- Effects log: {many['effect_lines']:,} lines ({many['effects_bytes'] / 1e6:.0f} MB), the templates' recorded "
        "lines replicated per thread id.",
        *_scale_fixtures(stamp),
        "",
        "### Results",
        "",
        table,
        "Sanity checks (both sides read the same data):",
        "",
        *[f"- {c}" for c in checks],
        "",
        "LangGraph's routes ran on byte-for-byte copies of the fixtures (its `SqliteSaver.setup()` writes); "
        "replaylens read the fixtures read-only. In-process rows exclude imports; whole-process rows include "
        "interpreter start-up and imports (bytecode compiled beforehand by a warm-up run on tiny files).",
        "",
        "Cold means the guest's page cache was dropped before the process started; on a virtual disk the host "
        "may still cache the file, so compare cold numbers with the disk-floor row of the same run. Other work "
        "on the machine adds noise (see the load averages above); the warm medians are the steadier numbers.",
        "",
    ]
    write_section(SECTION, "\n".join(md))
