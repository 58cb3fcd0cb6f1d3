"""`replaylens killtest`: run a kill-test campaign from the shell and print its summary.

The work is in `replaylens.killtest.campaign`; this module only turns options into a
call and errors into one sentence (a `ReplaylensError` is printed by `cli.main`, exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
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
    from replaylens.killtest.campaign import KilltestError

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.put_latency:
        raise KilltestError("--put-latency needs at least one number of seconds.")
    from replaylens.killtest._runner import stop_on_signals

    with stop_on_signals():  # SIGTERM too: the graph child and the throw-away server stop with us
        manifest = _run(args, modes)
    return _check_and_report(args, manifest)


def _run(args: argparse.Namespace, modes: list[str]) -> dict[str, Any]:
    from replaylens.killtest.campaign import run_campaign

    return run_campaign(
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
        resume_all=args.resume_all,
        api=args.api,
        sleep=args.sleep,
        checkpointer=args.checkpointer,
        pg_ephemeral=args.pg_ephemeral,
        keep_schemas=args.keep_schemas,
        faults=_words(args.fault),
        server_crash=args.server_crash,
        synchronous_commit=_words(args.synchronous_commit),
        effects_source=args.effects_source,
        seed=args.seed,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )


def _check_and_report(args: argparse.Namespace, manifest: dict[str, Any]) -> int:
    """One sentence for a fault point no run reached; else the report (and its exit code)."""
    from replaylens.killtest.campaign import KilltestError, unreached_faults

    saver = (f"langgraph-checkpoint-postgres {manifest['langgraph_checkpoint_postgres']}, PostgreSQL "
             f"{manifest['server_version']} at {manifest['dsn']}" if manifest["backend"] == "postgres"
             else f"langgraph-checkpoint-sqlite {manifest['langgraph_checkpoint_sqlite']}")  # fmt: skip
    missed = unreached_faults(manifest)
    if missed:
        raise KilltestError(
            f"The fault point {', '.join(missed)} was never reached in any run of {manifest['graph']}"
            + (f" at {', '.join(manifest['kill_at'])}" if manifest["kill_at"] else "")
            + "; the manifest records those runs as not killed."
        )
    return _report(args, manifest, saver)


def _report(args: argparse.Namespace, raw: dict[str, Any], saver: str) -> int:
    """Print the summary and the verdict per node; exit 1 when `--fail-on` finds a repeat."""
    from replaylens.killtest.manifest import load_manifest
    from replaylens.killtest.safety import (
        TABLE_HEADERS,
        campaign_repeats,
        failing,
        junit_xml,
        node_verdicts,
        repeat_rows,
        text_table,
    )
    from replaylens.killtest.summary import summarize, summary_table

    manifest = load_manifest(args.out)
    repeats = campaign_repeats(manifest)
    verdicts = node_verdicts(manifest, raw.get("kill_at") or ())
    allow = _words(args.allow_repeat)
    bad = failing(repeats, args.fail_on, allow) if args.fail_on else []
    if args.junit_xml:
        Path(args.junit_xml).write_text(
            junit_xml(manifest, args.fail_on or "repeat", allow), encoding="utf-8"
        )
    if args.json:
        print(json.dumps({
            "manifest": str(Path(args.out) / "manifest.json"),
            "summary": summarize(manifest),
            "nodes": [v.to_json() for v in verdicts],
            "repeats": [r.to_json() for r in repeats],
            "fail_on": args.fail_on,
            "failing": [r.to_json() for r in bad],
        }, indent=2, default=str))  # fmt: skip
    else:
        print(
            f"kill test of {raw['graph']} (langgraph {raw['langgraph']}, {saver}, "
            f"Python {raw['python']}); manifest in {args.out}/manifest.json"
        )
        print(summary_table(manifest))
        print()
        print(
            text_table(
                ("node", "verdict", "evidence"), [(v.node, v.verdict, v.evidence) for v in verdicts]
            )
        )
        if repeats:
            print()
            print("Effects that happened again:")
            print(text_table(TABLE_HEADERS, repeat_rows(repeats)))
    if bad:
        print(
            f"{len(bad)} effect(s) happened again on resume ({args.fail_on}): exit 1. "
            f"Open the campaign with: replaylens serve {args.out}",
            file=sys.stderr,
        )
        return 1
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
        help="Run against this Postgres database: each run in a fresh schema rlkt_<tag>_<n> the command "
        "creates (with a frozen <schema>_at_kill copy), exported to SQLite files in the run folder and "
        "dropped at the end unless --keep-schemas. The password is never printed or stored. Default: a "
        "fresh SQLite file per run.",
    )
    p.add_argument(
        "--keep-schemas",
        action="store_true",
        help="With --checkpointer: leave the campaign's rlkt_* schemas on the server (the manifest names "
        "them) instead of dropping them at the end.",
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
        "the kill and when the thread is interrupted at resume time (up to ten answers a run).",
    )
    p.add_argument(
        "--resume-all",
        action="store_true",
        help="With --resume-value and several interrupts pending (parallel workers that paused "
        "in one step), answer every one at once; by default the first one is answered and the "
        "others pause again.",
    )
    p.add_argument(
        "--api",
        choices=("invoke", "ainvoke"),
        default="invoke",
        help="How the child runs the graph: graph.invoke on LangGraph's sync loop and saver "
        "(the default), or graph.ainvoke on its async loop with AsyncSqliteSaver or "
        "AsyncPostgresSaver, as an async service does.",
    )
    p.add_argument(
        "--sleep",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="REPLAYLENS_EXAMPLE_SLEEP for the children: how long each example node "
        "stays open (default 0.5).",
    )
    p.add_argument(
        "--fail-on",
        choices=("repeat", "repeat-without-key"),
        default=None,
        help="Exit 1 when a resume performed an effect again: 'repeat' fails on every repeat "
        "whose idempotency key does not dedupe it, 'repeat-without-key' only on repeats that "
        "sent no key at all (exit 0 otherwise, 2 for an error).",
    )
    p.add_argument(
        "--allow-repeat",
        metavar="EFFECT,...",
        default=None,
        help="Effects (or nodes) whose repeat is harmless: they never fail --fail-on.",
    )
    p.add_argument(
        "--junit-xml",
        metavar="FILE",
        default=None,
        help="Write a JUnit XML report, one test case per kill point and mode, for any CI system.",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="Print the summary, the verdict per node and every repeated effect as JSON.",
    )
    p.set_defaults(func=cmd_killtest)
