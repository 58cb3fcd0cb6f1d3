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
    "describes them all. SQLite is the default store; --checkpointer postgresql://... runs every run in a "
    "fresh schema of that database (never touching existing threads), --pg-ephemeral in a throw-away local "
    "cluster, which --server-crash may SIGKILL with the child. A summary table (min/median/max per backend, "
    "mode, latency and kill point) ends the output."
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
        raise argparse.ArgumentTypeError(
            f"--put-latency takes seconds separated by commas, not {text!r}"
        ) from None


def cmd_killtest(args: argparse.Namespace) -> int:
    """Run the campaign, print progress on stderr and the summary table on stdout."""
    from replaylens.killtest.campaign import KilltestError, run_campaign, unreached_faults
    from replaylens.killtest.summary import summary_table

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
        checkpointer=args.checkpointer,
        pg_ephemeral=args.pg_ephemeral,
        faults=_words(args.fault),
        server_crash=args.server_crash,
        synchronous_commit=_words(args.synchronous_commit),
        effects_source=args.effects_source,
        seed=args.seed,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    saver = (f"langgraph-checkpoint-postgres {manifest['langgraph_checkpoint_postgres']}, PostgreSQL "
             f"{manifest['server_version']} at {manifest['dsn']}" if manifest["backend"] == "postgres"
             else f"langgraph-checkpoint-sqlite {manifest['langgraph_checkpoint_sqlite']}")  # fmt: skip
    print(
        f"kill test of {manifest['graph']} (langgraph {manifest['langgraph']}, {saver}, "
        f"Python {manifest['python']}); manifest in {args.out}/manifest.json"
    )
    print(summary_table(manifest))
    missed = unreached_faults(manifest)
    if missed:
        raise KilltestError(
            f"The fault point {', '.join(missed)} was never reached in any run of {manifest['graph']}"
            + (f" at {', '.join(manifest['kill_at'])}" if manifest["kill_at"] else "")
            + "; the manifest records those runs as not killed."
        )
    return 0


def _words(text: str | None) -> list[str]:
    return [w.strip() for w in (text or "").split(",") if w.strip()]


_UNSET: Any = object()


def register_killtest(sub: Any) -> None:
    """Add the `killtest` subcommand to the `replaylens` subparsers."""
    p = sub.add_parser(
        "killtest",
        help="Kill a graph mid-node many times and record what a resume re-runs.",
        description=_DESCRIPTION,
    )
    p.add_argument(
        "graph",
        metavar="GRAPH",
        help="The graph as package.module:attr: a compiled graph, a StateGraph, or a "
        "function returning one (it may take the checkpointer as its argument).",
    )
    p.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="The folder that receives runs/ and manifest.json; it is created if missing.",
    )
    p.add_argument(
        "--input",
        type=_json_arg("--input"),
        default={},
        metavar="JSON",
        help="The first input of every run, as JSON (default: an empty object).",
    )
    p.add_argument(
        "--modes",
        default=",".join(MODES),
        help="The durability modes to test, separated by commas (default: sync,async,exit).",
    )
    p.add_argument(
        "--kill-at",
        metavar="NODE[:N]",
        action="append",
        help="Kill the child at the Nth start of NODE (N defaults to 1), plus --kill-delay. Give "
        "several (separated by commas, or the option again) to run the matrix once per node; "
        "with --fault, the node whose writes arm the fault point.",
    )
    p.add_argument(
        "--kill-delay",
        metavar="SECONDS|LOW..HIGH",
        help="How long after that node start the kill lands (default: half of --sleep, so the node "
        "is half done). LOW..HIGH (e.g. 0.05..0.45) draws each run's delay uniformly from the "
        "range, since the async window is a race; the seed is recorded.",
    )
    p.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="The seed of the --kill-delay draws (default: a random one, printed in the summary).",
    )
    p.add_argument(
        "--fault",
        metavar="POINT[,POINT]",
        help="Kill inside the write path instead of by the clock: after-writes (after a task's "
        "put_writes, before its step's put), before-first-checkpoint, put-in-flight (a put "
        "held open for --put-latency or 0.2 s, then killed). The child kills itself there.",
    )
    p.add_argument(
        "--checkpointer",
        metavar="postgresql://…",
        help="Run against this Postgres database: each run in a fresh schema the command creates "
        "(named in the manifest, kept as evidence with a frozen <schema>_at_kill copy). The "
        "password is never printed or stored. Default: a fresh SQLite file per run.",
    )
    p.add_argument(
        "--pg-ephemeral",
        action="store_true",
        help="Run against a throw-away local PostgreSQL cluster (Debian's postgresql binaries), "
        "removed at the end; every run's store is exported to SQLite files in the run folder.",
    )
    p.add_argument(
        "--server-crash",
        action="store_true",
        help="With --pg-ephemeral: at the kill moment SIGKILL the server this command started too, "
        "restart it, and report acknowledged checkpoints that vanished.",
    )
    p.add_argument(
        "--synchronous-commit",
        default="on,off",
        metavar="on,off",
        help="With --server-crash: the synchronous_commit settings of the child's sessions to compare "
        "(default on,off).",
    )
    p.add_argument(
        "--effects-source",
        choices=("auto", "recorder", "callbacks"),
        default="auto",
        help="Count repeats from the record_effect log, or from task starts and ends seen through "
        "LangGraph's callbacks (for nodes that do not record); auto picks the recorder when "
        "the graph wrote any line (default).",
    )
    p.add_argument(
        "--kill-after",
        type=float,
        metavar="SECONDS",
        help="Kill the child this many seconds after it starts; the earlier kill wins "
        "when --kill-at is given too.",
    )
    p.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="How many runs per mode and latency, since one kill is one sample of a "
        "distribution (default 1).",
    )
    p.add_argument(
        "--put-latency",
        type=_float_list,
        default=[0.0],
        metavar="SECONDS",
        help="Seconds every checkpoint write waits, imitating a networked backend; give "
        "several separated by commas to compare (default 0, a local SQLite file).",
    )
    p.add_argument(
        "--resume-value",
        type=_json_arg("--resume-value"),
        default=_UNSET,
        metavar="JSON",
        help="Answer an interrupt with Command(resume=JSON), both to get past it before "
        "the kill and when the thread is interrupted at resume time.",
    )
    p.add_argument(
        "--sleep",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="REPLAYLENS_EXAMPLE_SLEEP for the children: how long each example node "
        "stays open (default 0.5).",
    )
    p.set_defaults(func=cmd_killtest)
