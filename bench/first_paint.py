"""Cold first draw of the Thread page, as a fresh browser on a warm server sees it (issue 16).

Run it with `.venv/bin/python bench/first_paint.py` (or `make first-paint`). It starts
`replaylens serve sample_dbs` on a free port, loads the Thread page of the bundled fan-out
kill once to warm the server (Python imports, the thread's analysis in Streamlit's caches),
then loads it N times (default 5), each in a new headless Chromium process with an empty
cache, and prints:

- the time from navigation start to the page being drawn: the timeline chart's SVG is in the
  page and Streamlit's script state is `notRunning` (read in the page as `performance.now()`,
  whose origin is the navigation start, so Python's and Playwright's overheads are not counted);
- median, minimum and maximum over the loads, and the machine's load average before and after
  (this machine is shared: a number without the load beside it means little);
- what the browser fetched on the last load: bytes on the wire against bytes after decoding
  (compression shows as the difference), and the slowest resources.

It is a measurement, not a test: nothing fails when the numbers are high.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "lib"), str(REPO / "tests")]

from dashboard_data import CHROMIUM, CHROMIUM_ARGS, free_port, start_server, stop_server  # noqa: E402

SAMPLE_DB = REPO / "sample_dbs" / "fanout" / "runs" / "async-0.25s-2" / "at-kill.db"

DRAWN = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const svg = document.querySelector('[data-testid="stMain"] .js-plotly-plot svg.main-svg');
    return app && app.getAttribute('data-test-script-state') === 'notRunning' && svg
        && document.querySelector('[data-testid="stSkeleton"]') === null ? performance.now() : null;
}"""

RESOURCES = """() => performance.getEntriesByType('resource').map(e => ({
    name: e.name.split('?')[0].split('/').pop() || e.name, type: e.initiatorType,
    wire: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize,
    start: e.startTime, end: e.responseEnd}))"""


def thread_url(base: str) -> str:
    """The Thread page of the fan-out thread killed under async with a 250 ms store."""
    from replaylens.sources import open_source

    source = open_source(SAMPLE_DB)
    try:
        (row,) = source.thread_index()
    finally:
        source.close()
    params = {"db": str(SAMPLE_DB.relative_to(REPO)), "thread": row.thread_id}
    return f"{base}/thread?{urlencode(params, quote_via=quote)}"


def one_load(pw: Any, address: str, timeout_ms: float) -> tuple[float, list[dict[str, Any]]]:
    """Seconds from navigation start to the drawn page, in a new browser with an empty cache."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(address, wait_until="commit")
        drawn = page.wait_for_function(DRAWN, timeout=timeout_ms, polling="raf").json_value()
        return float(drawn) / 1000, page.evaluate(RESOURCES)
    finally:
        browser.close()


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} cores)"


def report(times: list[float], resources: list[dict[str, Any]], before: str, after: str) -> str:
    wire = sum(r["wire"] for r in resources)
    decoded = sum(r["decoded"] for r in resources)
    lines = [
        f"cold first draw of the Thread page, {len(times)} fresh browsers on a warm server:",
        f"  median {statistics.median(times):.2f} s, min {min(times):.2f} s, max {max(times):.2f} s"
        f"  ({', '.join(f'{t:.2f}' for t in times)})",
        f"  load average before {before}",
        f"  load average after  {after}",
        f"last load: {len(resources)} resources, {wire / 1e6:.2f} MB on the wire, "
        f"{decoded / 1e6:.2f} MB decoded",
        "  slowest (ms from navigation start to the last byte, wire / decoded kB):",
    ]
    for r in sorted(resources, key=lambda r: r["end"] - r["start"], reverse=True)[:8]:
        lines.append(
            f"    {r['name'][:48]:48} {r['start']:6.0f} -> {r['end']:6.0f} ms  "
            f"{r['wire'] / 1e3:7.0f} / {r['decoded'] / 1e3:7.0f} kB"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=5, help="cold loads to time (default 5)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds one load may take")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = start_server([REPO / "sample_dbs"], port)
    try:
        address = thread_url(f"http://127.0.0.1:{port}")
        with sync_playwright() as pw:
            one_load(pw, address, args.timeout * 1000)  # warms the server, not the browser
            before = load_average()
            results = [one_load(pw, address, args.timeout * 1000) for _ in range(args.loads)]
            after = load_average()
    finally:
        stop_server(server)
    print(report([t for t, _ in results], results[-1][1], before, after))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
