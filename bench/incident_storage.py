"""Benchmark rows of issue 18 (incident view, storage forensics), kept apart from run.py.

`.venv/bin/python bench/incident_storage.py [--repeat N] [--verify N] [--only ROW,...]` builds the
fixtures of `bench/fixtures.py` when missing and prints one Markdown row per measurement,
with the load average beside it (the machine is shared; a loaded machine stretches wall
times, CPU seconds less so). Rows:

- `incident`: `collect()` over the 10,240-thread fixture with its 1,000,052-line log
  already parsed, as the dashboard holds it (log parsing is its own row in run.py);
- `incident-cli`: `replaylens incident DB --effects LOG --json`, whole process, parse
  included, stdout to /dev/null;
- `storage-many`, `storage-big`: `storage_report()` on the 10,240-thread fixture and on the
  1 GB thread (built on first use: takes minutes);
- `--verify N`: N random threads of the fixture planned in full with `load_thread` +
  `plan_resume`, compared with the incident's status and times_again (must print 0 wrong).

Warm = page cache warm (the fixtures were read just before); each repetition opens a
fresh source, nothing else carries over. A run of every row replaces the "Incident view and
storage forensics" section of bench/RESULTS.md with its table, date, machine, load and
versions (`harness.write_section`); `--only` or `--no-write` only prints.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (HERE, ROOT / "lib"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import fixtures as fx  # noqa: E402
from harness import load_average, run_facts, write_section  # noqa: E402

REPLAYLENS = str(Path(sys.executable).with_name("replaylens"))
SECTION = "## Incident view and storage forensics (`bench/incident_storage.py`)"
ROWS = "incident,incident-cli,storage-many,storage-big"
TARGET_SECONDS = 5.0  # "10,000 threads with a 1,000,000-line log in under 5 s warm"
WALLS: dict[str, float] = {}  # incident row -> median wall seconds, for the target sentence


def _timed(work: Callable[[], Any], repeat: int) -> tuple[list[float], list[float], Any]:
    walls, cpus, last = [], [], None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        last = work()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return walls, cpus, last


def _row(what: str, walls: list[float], cpus: list[float] | None, facts: str) -> str:
    load = os.getloadavg()[0]
    cpu = f", CPU {statistics.median(cpus):.2f} s" if cpus else ""
    return (
        f"| {what} | {statistics.median(walls):.2f} s median ({min(walls):.2f}-{max(walls):.2f} s, "
        f"{len(walls)} runs{cpu}) | load {load:.1f} | {facts} |"
    )


def row_incident(repeat: int) -> str:
    from replaylens.analysis.incident import collect
    from replaylens.effects.parse import read_effects
    from replaylens.sources import open_source

    log = read_effects(fx.EFFECTS)
    log._index()  # the dashboard's cached log has its per-thread index built by the Threads page

    def work() -> Any:
        source = open_source(fx.MANY_DB)
        try:
            return collect(source, log)
        finally:
            source.close()

    walls, cpus, inc = _timed(work, repeat)
    WALLS["the incident with the log parsed (the dashboard's case)"] = statistics.median(walls)
    routes: dict[str, int] = {}
    for t in inc.threads:
        routes[t.route] = routes.get(t.route, 0) + 1
    return _row(
        f"incident, {len(inc.threads):,} threads, {len(log.lines):,}-line log parsed",
        walls,
        cpus,
        f"{inc.total_times_again:,} times again; routes {routes}",
    )


def row_incident_cli(repeat: int) -> str:
    cmd = [REPLAYLENS, "incident", str(fx.MANY_DB), "--effects", str(fx.EFFECTS), "--json"]
    import resource

    walls, cpus = [], []
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    WALLS["the whole `replaylens incident` command, parse included"] = statistics.median(walls)
    return _row(
        "`replaylens incident DB --effects LOG --json`, whole process",
        walls,
        cpus,
        "parse, start-up and JSON output included",
    )


def row_storage(db: Path, label: str, repeat: int) -> str:
    from replaylens.analysis.storage import storage_report
    from replaylens.sources import open_source

    def work() -> Any:
        source = open_source(db)
        try:
            return storage_report(source)
        finally:
            source.close()

    walls, cpus, rep = _timed(work, repeat)
    return _row(
        f"storage, {label}",
        walls,
        cpus,
        f"{rep.total_bytes / 1e6:,.0f} MB counted; prune frees {rep.prune_bytes / 1e6:,.0f} MB",
    )


def verify(n: int) -> str:
    from replaylens.analysis.incident import collect
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.effects.parse import read_effects
    from replaylens.errors import ThreadNotFound
    from replaylens.sources import open_source

    log = read_effects(fx.EFFECTS)
    source = open_source(fx.MANY_DB)
    inc = collect(source, log)
    wrong = 0
    for t in random.Random(18).sample(inc.threads, min(n, len(inc.threads))):
        try:
            thread = load_thread(source, t.thread_id)
        except ThreadNotFound:
            thread = None
        plan = plan_resume(thread, log, t.thread_id)
        again = sum(1 for a in plan.attempts if a.verdict in ("replays", "restart"))
        if (plan.status, again) != (t.status, t.times_again):
            wrong += 1
            print(
                f"  {t.thread_id}: plan {plan.status}/{again}, incident {t.status}/{t.times_again} ({t.route})"
            )
    source.close()
    return f"verify: {min(n, len(inc.threads))} threads planned in full, {wrong} wrong"


def target_sentence() -> str:
    """Whether the incident rows met the target, in wall time on this run."""
    parts = [
        f"{what} {wall:.2f} s, {'met' if wall < TARGET_SECONDS else 'missed'}"
        for what, wall in WALLS.items()
    ]
    if not parts:
        return ""
    return (
        f'Target "10,000 threads with a 1,000,000-line log in under {TARGET_SECONDS:g} s warm", '
        "median wall time of this run: " + "; ".join(parts) + "."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--verify", type=int, default=0)
    parser.add_argument("--only", default=ROWS)
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = parser.parse_args(argv)
    started, load_start = time.time(), load_average()
    only = set(args.only.split(","))
    fx.CACHE.mkdir(parents=True, exist_ok=True)
    if not fx.MANY_DB.exists() or not fx.EFFECTS.exists():
        fx.main(["--only", "many"])
    lines = ["| what | wall | machine | facts |", "|---|---|---|---|"]

    def out(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    print("\n".join(lines), flush=True)
    if "incident" in only:
        out(row_incident(args.repeat))
    if "incident-cli" in only:
        out(row_incident_cli(args.repeat))
    if "storage-many" in only:
        out(row_storage(fx.MANY_DB, "10,240 threads / 562,176 checkpoints", args.repeat))
    if "storage-big" in only:
        if not fx.BIG_DB.exists():
            fx.main(["--only", "big"])
        out(row_storage(fx.BIG_DB, "the 1 GB thread (3,003 checkpoints)", args.repeat))
    tail = [target_sentence()]
    if args.verify:
        tail.append(verify(args.verify) + " (must be 0).")
        print(tail[-1])
    if only == set(ROWS.split(",")) and not args.no_write:
        command = " ".join([".venv/bin/python bench/incident_storage.py", *(argv or sys.argv[1:])])
        text = [
            SECTION,
            "",
            run_facts(command, started, load_start),
            "",
            "Fixtures of `bench/fixtures.py`: 10,240 threads / 562,176 checkpoints with a "
            "1,000,052-line effects log, and the 1 GB thread of 3,003 checkpoints. Page cache warm, "
            "a fresh source per repetition. Wall: median (min-max) of the runs; CPU: user + system "
            "of every thread of the process (the figure that carries to an idle machine when this "
            "shared one is loaded); load: the 1-minute load average after the row.",
            "",
            *lines,
            "",
            *[t for t in tail if t],
            "",
        ]
        write_section(SECTION, "\n".join(text))
        print("wrote bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
