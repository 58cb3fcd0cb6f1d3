"""Writer step rate with and without replaylens's reader polling the same file (issue 8).

A real LangGraph graph (examples/live_writer.py) writes checkpoints as fast as it can
for SECONDS, alternately alone and with the dashboard's reader (summarize_threads) polling
the file every 100 ms; each condition runs ROUNDS times, interleaved so that machine
noise hits both alike. Prints a table: runs per second (median, min, max), `database is
locked` errors, reader polls. The table, with the run's date, machine, load and versions,
replaces the "Live writer" section of bench/RESULTS.md (`harness.write_section`; `--no-write`
only prints).

    .venv/bin/python bench/live_writer.py [SECONDS] [ROUNDS] [--no-write]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "lib"), str(REPO / "bench")]

from harness import load_average, run_facts, write_section  # noqa: E402

from replaylens.analysis.status import summarize_threads  # noqa: E402
from replaylens.sources import open_source  # noqa: E402

SECTION = "## Live writer beside the reader (`bench/live_writer.py`)"


def one_run(seconds: float, with_reader: bool) -> tuple[float, int, int]:
    folder = Path(tempfile.mkdtemp(prefix="replaylens-live-"))
    db = folder / "live.db"
    env = {
        **os.environ,
        "PYTHONPATH": f"{REPO}:{REPO / 'lib'}",
        "REPLAYLENS_EFFECTS_LOG": str(folder / "e.jsonl"),
    }
    writer = subprocess.Popen(
        [sys.executable, "-m", "examples.live_writer", str(db), str(seconds)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
    polls = 0
    deadline = time.time() + seconds
    while with_reader and time.time() < deadline:
        source = open_source(db)
        try:
            summarize_threads(source)
        finally:
            source.close()
        polls += 1
        time.sleep(0.1)
    report = json.loads(writer.stdout.readline())
    writer.wait(timeout=60)
    return report["runs_per_second"], report["locked"], polls


def main(seconds: float = 10.0, rounds: int = 3, write: bool = True) -> None:
    started, load_start = time.time(), load_average()
    results: dict[bool, list[tuple[float, int, int]]] = {False: [], True: []}
    for _ in range(rounds):
        for with_reader in (False, True):
            results[with_reader].append(one_run(seconds, with_reader))
    lines = [
        f"Writer: examples/live_writer.py (linear graph, durability=sync), {seconds:.0f} s x {rounds} "
        f"rounds per condition, interleaved, {os.cpu_count()} cores.",
        "",
        "| condition | writer runs, median | min | max | database is locked | reader polls |",
        "|---|---|---|---|---|---|",
    ]
    for with_reader, label in ((False, "writer alone"), (True, "reader polling every 100 ms")):
        rates = [r[0] for r in results[with_reader]]
        lines.append(
            f"| {label} | {statistics.median(rates):.1f} runs/s | {min(rates):.1f} runs/s "
            f"| {max(rates):.1f} runs/s | "
            f"{sum(r[1] for r in results[with_reader])} | {sum(r[2] for r in results[with_reader])} |"
        )
    alone = statistics.median(r[0] for r in results[False])
    shared = statistics.median(r[0] for r in results[True])
    lines += ["", f"Ratio with/without reader (medians): {shared / alone:.2f}."]
    print("\n".join(lines))
    if write:
        command = " ".join([".venv/bin/python bench/live_writer.py", *sys.argv[1:]])
        facts = run_facts(command, started, load_start)
        write_section(SECTION, "\n".join([SECTION, "", facts, "", *lines, ""]))
        print("wrote bench/RESULTS.md")


if __name__ == "__main__":
    argv = [a for a in sys.argv[1:] if a != "--no-write"]
    main(
        *(float(a) for a in argv[0:1]),
        *(int(a) for a in argv[1:2]),
        write="--no-write" not in sys.argv,
    )
