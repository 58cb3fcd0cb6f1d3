"""Regenerate sample_dbs/: kill-test campaigns of the example graphs plus one plain database.

The dashboard and the docs need real crash evidence to show, and the 004 article's
experiment (linear killed in c, fanout killed in p3, local and 0.25 s backend, 4 runs per
mode) is reproduced by the linear and fanout campaigns. Every campaign is made by the
real `replaylens killtest` command, so the samples are also a check that it works.

Campaigns run in parallel processes (each one's runs stay sequential, so a kill is not
moved by its own siblings); on 2 cores the whole thing takes about three minutes.

    .venv/bin/python scripts/make_samples.py [--out sample_dbs] [--only linear,fanout]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from replaylens.killtest.harness import scoped_environ

REPO = Path(__file__).resolve().parents[1]
SLEEP = 0.25
"""REPLAYLENS_EXAMPLE_SLEEP of every node: long enough to aim a kill, short enough to be quick."""
LATENCIES = "0,0.25"

# name -> killtest options (beyond GRAPH, --out, --modes, --put-latency, --sleep)
CAMPAIGNS: dict[str, list[str]] = {
    "linear": ["--kill-at", "c", "--runs", "4", "--input", '{"visited": []}'],
    "fanout": [
        "--kill-at",
        "p3",
        "--kill-delay",
        str(SLEEP * 0.6),
        "--runs",
        "4",
        "--input",
        '{"visited": []}',
    ],
    "payment": [
        "--kill-at",
        "charge",
        "--runs",
        "1",
        "--resume-value",
        "true",
        "--input",
        '{"invoice_id": "inv-0001", "visited": []}',
    ],
    "send_map_reduce": ["--kill-at", "reduce", "--runs", "1", "--input", '{"items": []}'],
    # Checkpoint namespaces: killed in the subgraph's second step, so a resume re-enters
    # the subgraph at its own latest checkpoint (s1 is not run again, s2 is).
    "subgraph": ["--kill-at", "s2", "--runs", "1", "--input", '{"visited": []}'],
    # A node that raises: killed while b and b2 run in one superstep; the resume runs b
    # again and it fails again, so the thread ends failed with an __error__ write.
    "failing": ["--kill-at", "b", "--runs", "1", "--input", '{"visited": []}'],
    # The async window as a curve: a throw-away Postgres, kills spread over c's 0.5 s.
    "linear-postgres-spread": [
        "--pg-ephemeral",
        "--modes",
        "sync,async",
        "--put-latency",
        "0.25",
        "--sleep",
        "0.5",
        "--kill-at",
        "c",
        "--kill-delay",
        "0.05..0.45",
        "--seed",
        "4",
        "--runs",
        "8",
        "--input",
        '{"visited": []}',
    ],
}
GRAPH_OF = {"linear-postgres-spread": "linear"}
"""Campaigns named other than their graph; later options override the shared ones."""
PARALLEL = 4


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "lib"), str(REPO), env.get("PYTHONPATH", "")])
    return env


def run_campaigns(out: Path, names: list[str]) -> dict[str, float]:
    """Start the campaigns (at most PARALLEL at once); return each one's wall time."""
    pending = list(names)
    running: dict[str, tuple[subprocess.Popen[bytes], float]] = {}
    took: dict[str, float] = {}
    while pending or running:
        while pending and len(running) < PARALLEL:
            name = pending.pop(0)
            folder = out / name
            if folder.exists():
                shutil.rmtree(folder)
            cmd = [
                sys.executable,
                "-m",
                "replaylens.cli",
                "killtest",
                f"replaylens.examples.graphs:{GRAPH_OF.get(name, name)}",
                "--out",
                str(folder),
                "--modes",
                "sync,async,exit",
                "--put-latency",
                LATENCIES,
                "--sleep",
                str(SLEEP),
                *CAMPAIGNS[name],
            ]
            log = open(out / f".{name}.log", "wb")  # noqa: SIM115 - closed with the process
            running[name] = (
                subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=_env(), cwd=REPO),
                time.monotonic(),
            )
        time.sleep(0.5)
        for name, (proc, started) in list(running.items()):
            if proc.poll() is not None:
                took[name] = time.monotonic() - started
                del running[name]
                text = (out / f".{name}.log").read_text()
                (out / f".{name}.log").unlink()
                print(f"== {name} ({took[name]:.0f}s, exit {proc.returncode})\n{text}", flush=True)
                if proc.returncode != 0:
                    raise SystemExit(f"the {name} campaign failed")
    return took


def make_plain_db(out: Path) -> None:
    """payment-approved.db: completed, refused, interrupted and failed threads side by side.

    A kill-test campaign holds one thread per database; the Threads page needs a list
    with every status in it, so this one is written in-process, without kills.
    """
    sys.path[:0] = [str(REPO / "lib"), str(REPO)]
    from langgraph.types import Command

    from replaylens.examples.graphs import DEFAULT_INPUTS, failing, payment
    from replaylens.killtest.harness import build_graph, make_saver

    db, log = out / "payment-approved.db", out / "payment-approved.effects.jsonl"
    for path in (db, log, Path(f"{db}-wal"), Path(f"{db}-shm")):
        path.unlink(missing_ok=True)

    def invoke(graph: Any, payload: Any, thread: str, mode: str) -> None:
        with contextlib.suppress(Exception):  # the failing thread fails on purpose
            graph.invoke(payload, {"configurable": {"thread_id": thread}}, durability=mode)

    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
        saver = make_saver(str(db))
        try:
            pay = build_graph(payment, saver)
            for mode in ("sync", "async"):
                invoke(pay, DEFAULT_INPUTS["payment"], f"invoice-approved-{mode}", mode)
                invoke(pay, Command(resume=True), f"invoice-approved-{mode}", mode)
            invoke(pay, {"invoice_id": "inv-0002", "visited": []}, "invoice-refused", "sync")
            invoke(pay, Command(resume=False), "invoice-refused", "sync")
            invoke(
                pay, {"invoice_id": "inv-0003", "visited": []}, "invoice-awaiting-approval", "sync"
            )
            with scoped_environ(REPLAYLENS_EXAMPLE_FAIL="1"):
                invoke(
                    build_graph(failing, saver), DEFAULT_INPUTS["failing"], "batch-failed", "sync"
                )
        finally:
            saver.conn.close()


def main() -> int:
    """Regenerate the samples and print the time and size they took."""
    parser = argparse.ArgumentParser(
        description="Regenerate the sample kill-test campaigns and databases."
    )
    parser.add_argument(
        "--out", default=str(REPO / "sample_dbs"), help="The folder to write (default sample_dbs/)."
    )
    parser.add_argument("--only", help="Only these campaigns, separated by commas.")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = args.only.split(",") if args.only else list(CAMPAIGNS)
    started = time.monotonic()
    make_plain_db(out)
    took = run_campaigns(out, names)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(
        json.dumps(
            {
                "seconds": round(time.monotonic() - started, 1),
                "campaign_seconds": {k: round(v, 1) for k, v in took.items()},
                "bytes": size,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
