"""Writer step rate with and without replaylens's reader polling the same file (issue 8).

A real LangGraph graph (examples/live_writer.py) writes checkpoints as fast as it can
for SECONDS, alternately alone and with the dashboard's reader (summarize_threads) polling
the file every 100 ms; each condition runs ROUNDS times, interleaved so that machine
noise hits both alike. Prints a table: runs per second (median, min, max), `database is
locked` errors, reader polls.

    .venv/bin/python bench/live_writer.py [SECONDS] [ROUNDS]
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
sys.path[:0] = [str(REPO / "lib")]

from replaylens.analysis.status import summarize_threads  # noqa: E402
from replaylens.sources import open_source  # noqa: E402


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


def main(seconds: float = 10.0, rounds: int = 3) -> None:
    results: dict[bool, list[tuple[float, int, int]]] = {False: [], True: []}
    for _ in range(rounds):
        for with_reader in (False, True):
            results[with_reader].append(one_run(seconds, with_reader))
    print(
        f"writer: examples/live_writer.py (linear graph, durability=sync), {seconds:.0f} s x {rounds} rounds, "
        f"{os.cpu_count()} cores"
    )
    print("| condition | runs/s median | min | max | database is locked | reader polls |")
    print("|---|---|---|---|---|---|")
    for with_reader, label in ((False, "writer alone"), (True, "reader polling every 100 ms")):
        rates = [r[0] for r in results[with_reader]]
        print(
            f"| {label} | {statistics.median(rates):.1f} | {min(rates):.1f} | {max(rates):.1f} | "
            f"{sum(r[1] for r in results[with_reader])} | {sum(r[2] for r in results[with_reader])} |"
        )
    alone = statistics.median(r[0] for r in results[False])
    shared = statistics.median(r[0] for r in results[True])
    print(f"ratio with/without reader: {shared / alone:.2f}")


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:2]), *(int(a) for a in sys.argv[2:3]))
