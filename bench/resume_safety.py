"""What a resume-safety check costs: `assert_resume_safe` on a 4-node graph killed at every
node under sync and async (8 kills, 8 resumes), whole, from a fresh campaign folder.

    .venv/bin/python bench/resume_safety.py [--repeat N] [--runs R] [--modes sync,async]

Prints one Markdown row per repetition with the load average beside it: the cost is child
processes (each imports LangGraph, runs to the kill, and a fresh one resumes), so it grows
linearly in nodes x modes x runs, about one kill-and-resume pair each. The rows, with the
run's date, machine, load and versions, replace the "Resume safety" section of
bench/RESULTS.md (`harness.write_section`; `--no-write` only prints).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import load_average, run_facts, write_section  # noqa: E402

from replaylens.killtest.manifest import load_manifest  # noqa: E402
from replaylens.testing import ResumeSafetyError, assert_resume_safe  # noqa: E402

GRAPH = "replaylens.examples.graphs:linear"
SECTION = "## Resume safety (`bench/resume_safety.py`)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--modes", default="sync,async")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = parser.parse_args()
    began, load_start = time.time(), load_average()
    modes = [m for m in args.modes.split(",") if m]
    lines = [
        "| graph | kills | whole check | per kill-and-resume | load average |",
        "|---|---|---|---|---|",
    ]
    print("\n".join(lines))
    for _ in range(args.repeat):
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            try:  # the example's effects carry no key: the check fails, as it should
                assert_resume_safe(GRAPH, {}, modes=modes, runs=args.runs, out=Path(tmp) / "c")
            except ResumeSafetyError:
                pass
            seconds = time.monotonic() - started
            manifest = load_manifest(Path(tmp) / "c")
        kills = len(manifest.runs)
        lines.append(f"| linear (4 nodes), {', '.join(modes)} | {kills} | {seconds:.1f} s | "
                     f"{seconds / kills:.1f} s | {load:.1f} |")  # fmt: skip
        print(lines[-1], flush=True)
    if not args.no_write:
        command = " ".join([".venv/bin/python bench/resume_safety.py", *sys.argv[1:]])
        facts = run_facts(command, began, load_start)
        write_section(SECTION, "\n".join([SECTION, "", facts, "", *lines, ""]))
        print("wrote bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
