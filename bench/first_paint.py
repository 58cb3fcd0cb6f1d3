"""Cold first draw of every page, as a fresh browser on a warm server sees it.

Run it with `.venv/bin/python bench/first_paint.py` (or `make first-paint`). It starts
`replaylens serve sample_dbs` on a free port and, for each page (Threads, Thread, Resume
simulator, Incident, Storage, Kill-test runs, Learn) on the bundled samples, loads it once
to warm the server (Python imports, the analysis in Streamlit's caches), then N times
(default 5), each in a new headless Chromium process with an empty cache, and prints per
page, as the median and the worst of the loads:

- header: from navigation start to the page's title (its h1) being in the page, the first
  thing a person sees of the page itself;
- drawn: to the page being drawn whole: Streamlit's script state is `notRunning`, no
  skeleton is left, and every chart the page shows has its SVG (read in the page as
  `performance.now()`, whose origin is the navigation start, so Python's and Playwright's
  overheads are not counted);

then the machine's load average before and after (this machine is shared: a number
without the load beside it means little), and what the browser fetched on the last load
of the Thread page: bytes on the wire against bytes after decoding, and the slowest
resources. `--pages thread,runs` measures only those.

A run over every page replaces the "First paint" section of bench/RESULTS.md with its table,
date, machine, load and versions (`harness.write_section`); `--pages` or `--no-write` only
prints.

It is a measurement, not a test: nothing fails when the numbers are high.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "bench"), str(REPO / "lib"), str(REPO / "tests")]

from dashboard_data import CHROMIUM, CHROMIUM_ARGS, free_port, start_server, stop_server  # noqa: E402
from harness import load_average as load_now  # noqa: E402
from harness import run_facts, write_section  # noqa: E402

SECTION = "## First paint of every page (`bench/first_paint.py`)"

SAMPLE_DB = REPO / "sample_dbs" / "fanout" / "runs" / "async-0.25s-2" / "at-kill.db"
PAYMENT_DB = REPO / "sample_dbs" / "payment" / "runs" / "sync-0s-1" / "at-kill.db"
LIST_DB = REPO / "sample_dbs" / "payment-approved.db"

HEADER = """() => document.querySelector('[data-testid="stMain"] h1') !== null ? performance.now() : null"""

DRAWN = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const main = document.querySelector('[data-testid="stMain"]');
    if (!app || !main || app.getAttribute('data-test-script-state') !== 'notRunning') return null;
    if (main.querySelector('h1') === null || document.querySelector('[data-testid="stSkeleton"]')) return null;
    const charts = [...main.querySelectorAll('.js-plotly-plot')];
    return charts.every(c => c.querySelector('svg.main-svg')) ? performance.now() : null;
}"""

RESOURCES = """() => performance.getEntriesByType('resource').map(e => ({
    name: e.name.split('?')[0].split('/').pop() || e.name, type: e.initiatorType,
    wire: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize,
    start: e.startTime, end: e.responseEnd}))"""


def _thread_id(db: Path) -> str:
    from replaylens.sources import open_source

    source = open_source(db)
    try:
        return source.thread_index()[0].thread_id
    finally:
        source.close()


def page_urls(base: str) -> dict[str, str]:
    """Every page, each on the sample it is most often opened with."""

    def at(page: str, **params: str) -> str:
        return f"{base}/{page}" + (f"?{urlencode(params, quote_via=quote)}" if params else "")

    fan = {"db": str(SAMPLE_DB.relative_to(REPO)), "thread": _thread_id(SAMPLE_DB)}
    pay = {"db": str(PAYMENT_DB.relative_to(REPO)), "thread": _thread_id(PAYMENT_DB)}
    return {
        "threads": at("threads", db=str(LIST_DB.relative_to(REPO))),
        "thread": at("thread", **fan),
        "resume": at("resume", **pay, mode="sync"),
        "incident": at("incident", db=pay["db"]),
        "storage": at("storage", db=fan["db"]),
        "runs": at("runs"),
        "learn": at("learn", db=fan["db"], thread=fan["thread"]),
    }


def one_load(pw: Any, address: str, timeout_ms: float) -> tuple[float, float, list[dict[str, Any]]]:
    """Seconds from navigation start to the header and to the drawn page, in a new browser
    with an empty cache, and what it fetched."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(address, wait_until="commit")
        header = page.wait_for_function(HEADER, timeout=timeout_ms, polling="raf").json_value()
        drawn = page.wait_for_function(DRAWN, timeout=timeout_ms, polling="raf").json_value()
        return float(header) / 1000, float(drawn) / 1000, page.evaluate(RESOURCES)
    finally:
        browser.close()


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} cores)"


def per_page(
    measured: dict[str, list[tuple[float, float]]],
) -> tuple[list[tuple[str, float, float, float, float]], tuple[float, float]]:
    """(page, header median, header worst, drawn median, drawn worst) per page, and the drawn
    median and worst over every page: what `report` prints and `markdown` writes."""
    rows = []
    for name, times in measured.items():
        headers, drawn = [h for h, _ in times], [d for _, d in times]
        rows.append(
            (name, statistics.median(headers), max(headers), statistics.median(drawn), max(drawn))
        )
    every = [d for times in measured.values() for _, d in times]
    return rows, (statistics.median(every), max(every))


def report(
    measured: dict[str, list[tuple[float, float]]],
    resources: list[dict[str, Any]],
    before: str,
    after: str,
) -> str:
    loads = len(next(iter(measured.values()), []))
    lines = [
        f"cold first draw of every page, {loads} fresh browsers each on a warm server (seconds):",
        f"  {'page':10} {'header median':>14} {'worst':>7} {'drawn median':>13} {'worst':>7}",
    ]
    rows, (median, worst) = per_page(measured)
    for name, h_med, h_max, d_med, d_max in rows:
        lines.append(f"  {name:10} {h_med:14.2f} {h_max:7.2f} {d_med:13.2f} {d_max:7.2f}")
    lines += [
        f"  all pages: drawn median {median:.2f} s, worst {worst:.2f} s",
        f"  load average before {before}",
        f"  load average after  {after}",
    ]
    if resources:
        wire = sum(r["wire"] for r in resources)
        decoded = sum(r["decoded"] for r in resources)
        lines += [
            f"last load of the Thread page: {len(resources)} resources, {wire / 1e6:.2f} MB on the wire, "
            f"{decoded / 1e6:.2f} MB decoded",
            "  slowest (ms from navigation start to the last byte, wire / decoded kB):",
        ]
        for r in sorted(resources, key=lambda r: r["end"] - r["start"], reverse=True)[:8]:
            lines.append(
                f"    {r['name'][:48]:48} {r['start']:6.0f} -> {r['end']:6.0f} ms  "
                f"{r['wire'] / 1e3:7.0f} / {r['decoded'] / 1e3:7.0f} kB"
            )
    return "\n".join(lines)


def markdown(
    measured: dict[str, list[tuple[float, float]]],
    resources: list[dict[str, Any]],
    before: str,
    after: str,
    facts: str,
) -> str:
    """The section of RESULTS.md: the same figures as `report`, as a table."""
    loads = len(next(iter(measured.values()), []))
    lines = [
        SECTION,
        "",
        facts,
        "",
        f"Each page loaded once to warm the server, then {loads} times, each in a new headless Chromium "
        "with an empty cache. Header: navigation start to the page's title; drawn: to the page drawn "
        "whole (script finished, no skeleton, every chart's SVG). Seconds, median and worst of the "
        f"loads. Load average {before} before the measured loads, {after} after.",
        "",
        "| page | header, median | header, worst | drawn, median | drawn, worst |",
        "|---|---|---|---|---|",
    ]
    rows, (median, worst) = per_page(measured)
    for name, h_med, h_max, d_med, d_max in rows:
        lines.append(f"| {name} | {h_med:.2f} s | {h_max:.2f} s | {d_med:.2f} s | {d_max:.2f} s |")
    lines += [
        "",
        f"Every page: drawn median {median:.2f} s, worst {worst:.2f} s.",
    ]
    if resources:
        wire = sum(r["wire"] for r in resources)
        decoded = sum(r["decoded"] for r in resources)
        lines.append(
            f"The last load of the Thread page fetched {len(resources)} resources: "
            f"{wire / 1e6:.2f} MB on the wire, {decoded / 1e6:.2f} MB decoded."
        )
    return "\n".join(lines) + "\n"


def chromium_version() -> str:
    try:
        out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=5, help="cold loads per page (default 5)")
    parser.add_argument("--timeout", type=float, default=90, help="seconds one load may take")
    parser.add_argument("--pages", help="only these pages, separated by commas")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    started, load_start = time.time(), load_now()
    port = free_port()
    server = start_server([REPO / "sample_dbs"], port)
    measured: dict[str, list[tuple[float, float]]] = {}
    resources: list[dict[str, Any]] = []
    try:
        urls = page_urls(f"http://127.0.0.1:{port}")
        if args.pages:
            urls = {k: v for k, v in urls.items() if k in args.pages.split(",")}
        with sync_playwright() as pw:
            for address in urls.values():
                one_load(pw, address, args.timeout * 1000)  # warms the server, not the browser
            before = load_average()
            for name, address in urls.items():
                runs = [one_load(pw, address, args.timeout * 1000) for _ in range(args.loads)]
                measured[name] = [(h, d) for h, d, _ in runs]
                if name == "thread":
                    resources = runs[-1][2]
            after = load_average()
    finally:
        stop_server(server)
    print(report(measured, resources, before, after))
    if not args.pages and not args.no_write:
        from importlib.metadata import version

        command = " ".join([".venv/bin/python bench/first_paint.py", *sys.argv[1:]])
        extra = {"Chromium": chromium_version(), "streamlit": version("streamlit")}
        facts = run_facts(command, started, load_start, extra)
        write_section(SECTION, markdown(measured, resources, before, after, facts))
        print("wrote bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
