"""`replaylens killtest`: run a kill-test campaign from the shell and print its summary.

The work is in `replaylens.killtest.campaign`; this module only turns options into a
call and errors into one sentence (a `ReplaylensError` is printed by `cli.main`, exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from replaylens.killtest import MODES

_DESCRIPTION = (
    "Run a graph in child processes, kill each one with a real SIGKILL at a chosen point, keep "
    "a byte-for-byte copy of the checkpoint database and the effects log as the crash left them, "
    "then resume the thread in a fresh process and record what ran twice. Every durability mode, "
    "checkpoint write latency and run gets its own folder under DIR/runs, and DIR/manifest.json "
    "describes them all. A summary table (min/median/max per mode and latency) ends the output."
)


def _json_arg(option: str) -> Any:
    def parse(text: str) -> Any:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise argparse.ArgumentTypeError(f"{option} must be valid JSON, not {text!r}") from None

    return parse


def _float_list(text: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--put-latency takes seconds separated by commas, not {text!r}") from None


def cmd_killtest(args: argparse.Namespace) -> int:
    """Run the campaign, print progress on stderr and the summary table on stdout."""
    from replaylens.killtest.campaign import KilltestError, run_campaign, summary_table

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.put_latency:
        raise KilltestError("--put-latency needs at least one number of seconds.")
    manifest = run_campaign(
        args.graph,
        args.out,
        input_value=args.input,
        modes=modes,
        kill_at=args.kill_at,
        kill_delay=args.kill_delay,
        kill_after=args.kill_after,
        runs=args.runs,
        put_latencies=args.put_latency,
        resume_value=args.resume_value,
        has_resume_value=args.resume_value is not _UNSET,
        sleep=args.sleep,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(f"kill test of {manifest['graph']} (langgraph {manifest['langgraph']}, "
          f"langgraph-checkpoint-sqlite {manifest['langgraph_checkpoint_sqlite']}, "
          f"Python {manifest['python']}); manifest in {args.out}/manifest.json")
    print(summary_table(manifest))
    return 0


_UNSET: Any = object()


def register_killtest(sub: Any) -> None:
    """Add the `killtest` subcommand to the `replaylens` subparsers."""
    p = sub.add_parser(
        "killtest",
        help="Kill a graph mid-node many times and record what a resume re-runs.",
        description=_DESCRIPTION,
    )
    p.add_argument("graph", metavar="GRAPH",
                   help="The graph as package.module:attr: a compiled graph, a StateGraph, or a "
                        "function returning one (it may take the checkpointer as its argument).")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="The folder that receives runs/ and manifest.json; it is created if missing.")
    p.add_argument("--input", type=_json_arg("--input"), default={}, metavar="JSON",
                   help="The first input of every run, as JSON (default: an empty object).")
    p.add_argument("--modes", default=",".join(MODES),
                   help="The durability modes to test, separated by commas (default: sync,async,exit).")
    p.add_argument("--kill-at", metavar="NODE[:N]",
                   help="Kill the child at the Nth start of NODE (N defaults to 1), plus --kill-delay.")
    p.add_argument("--kill-delay", type=float, metavar="SECONDS",
                   help="How long after that node start the kill lands (default: half of --sleep, "
                        "so the node is half done).")
    p.add_argument("--kill-after", type=float, metavar="SECONDS",
                   help="Kill the child this many seconds after it starts; the earlier kill wins "
                        "when --kill-at is given too.")
    p.add_argument("--runs", type=int, default=1, metavar="N",
                   help="How many runs per mode and latency, since one kill is one sample of a "
                        "distribution (default 1).")
    p.add_argument("--put-latency", type=_float_list, default=[0.0], metavar="SECONDS",
                   help="Seconds every checkpoint write waits, imitating a networked backend; give "
                        "several separated by commas to compare (default 0, a local SQLite file).")
    p.add_argument("--resume-value", type=_json_arg("--resume-value"), default=_UNSET, metavar="JSON",
                   help="Answer an interrupt with Command(resume=JSON), both to get past it before "
                        "the kill and when the thread is interrupted at resume time.")
    p.add_argument("--sleep", type=float, default=0.5, metavar="SECONDS",
                   help="REPLAYLENS_EXAMPLE_SLEEP for the children: how long each example node "
                        "stays open (default 0.5).")
    p.set_defaults(func=cmd_killtest)
