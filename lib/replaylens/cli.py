"""The `replaylens` command: a thin layer over the library.

Imports stay lean (no pandas, no Streamlit) so that `replaylens threads --json` on a
database of ten thousand threads costs the query, not the start-up.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Sequence
from typing import Any

from replaylens.errors import ReplaylensError

EXIT_USAGE = 2
DB_HELP = (
    "The checkpoint database to read: a SQLite file, a Postgres connection string (postgresql://… "
    "or libpq's key=value form; its password is never printed), or env:NAME, an environment "
    "variable holding one. Leave it out with --dsn-file."
)
DSN_COMMANDS = frozenset(
    {"threads", "thread", "replay", "report", "serve", "storage", "bundle", "incident", "export"}
)
"""The commands whose database argument may be `env:NAME`."""
ENV_ARGV_DSN = "REPLAYLENS_ARGV_DSN_"
"""Where main() moves a password-carrying DSN from argv before re-executing itself."""


def _add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument("db", nargs="?", help=DB_HELP)
    p.add_argument("--dsn-file", metavar="FILE",
                   help="Read the Postgres connection string from FILE (its first line that is not a # "
                        "comment): the password stays off the command line. Without a password in it, "
                        "libpq looks in PGPASSFILE (or ~/.pgpass).")  # fmt: skip


def _resolve_db(args: argparse.Namespace) -> None:
    """`--dsn-file` fills in `db`; one of the two is needed."""
    if not hasattr(args, "dsn_file") or args.command == "serve":
        return
    from replaylens import dsn

    if args.dsn_file:
        if args.db:
            raise ReplaylensError("Give either a database or --dsn-file, not both.")
        try:
            args.db = dsn.from_file(args.dsn_file)
        except dsn.DsnError as exc:
            raise ReplaylensError(str(exc)) from None
    if not args.db:
        raise ReplaylensError("Give a checkpoint database (a SQLite file or a Postgres connection string), "
                              "or --dsn-file FILE.")  # fmt: skip


def scrub_argv(argv: Sequence[str]) -> tuple[list[str], dict[str, str]] | None:
    """(argv with each password-carrying DSN replaced by `env:NAME`, the variables) or None.

    A password on a command line is readable by every user of the machine
    (/proc/<pid>/cmdline, `ps`) for as long as the process runs; `serve` runs for days."""
    from replaylens import dsn

    out, env = [], {}
    if not argv or argv[0] not in DSN_COMMANDS:  # killtest's --pg takes its DSN as it is
        return None
    for arg in argv:
        if dsn.is_dsn(arg) and dsn.passwords(arg):
            name = f"{ENV_ARGV_DSN}{len(env)}"
            env[name] = arg
            out.append(f"{dsn.ENV_PREFIX}{name}")
        else:
            out.append(arg)
    return (out, env) if env else None


def _reexec_without_passwords() -> None:
    """Re-run this process with every DSN password moved from argv to the environment.

    The same process id keeps running (execve), so the password leaves /proc/<pid>/cmdline
    within milliseconds; a warning says how to avoid even that."""
    import os

    moved = scrub_argv(sys.argv[1:])
    if moved is None:
        return
    argv, env = moved
    print(
        "replaylens: warning: a connection string with a password was given on the command line, where "
        "every user of this machine can read it (ps). It was moved to the environment; next time use "
        "--dsn-file FILE, env:NAME or PGPASSFILE.",
        file=sys.stderr,
    )
    sys.stderr.flush()
    os.execve(
        sys.executable, [sys.executable, "-m", "replaylens.cli", *argv], {**os.environ, **env}
    )


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one sentence, exit 2, no usage dump
        self.exit(EXIT_USAGE, f"replaylens: {message}. Run 'replaylens --help' for the commands.\n")


def _open(db: str) -> Any:
    from replaylens.sources import open_source

    return open_source(db)


def safe(value: Any) -> str:
    """Text from a database or log, made harmless for a terminal: control characters (escape
    sequences that could retitle, recolour or rewrite the screen) are shown as \\xNN."""
    text = "" if value is None else str(value)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)


def _print_table(headers: Sequence[str], rows: list[Sequence[Any]]) -> None:
    cells = [[safe(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip())
    for r in cells:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


def _print_json(doc: Any) -> None:
    """JSON documents for scripts: orjson is ~20x faster than json.dump with an indent on a
    3,000-checkpoint thread, and --json runs are often whole-process benchmarks."""
    import orjson

    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n"
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (some embedders): decode once
        sys.stdout.write(data.decode())
        return
    sys.stdout.flush()  # text printed earlier must come first
    buffer.write(data)
    buffer.flush()


def _warn(problems: list[str], notes: list[str]) -> None:
    for line in notes:
        print(f"note: {safe(line)}", file=sys.stderr)
    for line in problems:
        print(f"warning: {safe(line)}", file=sys.stderr)


# -- threads ------------------------------------------------------------------------
def cmd_threads(args: argparse.Namespace) -> int:
    from replaylens import cache
    from replaylens.analysis.from_graph import GRAPH_HEADER, graph_summary
    from replaylens.analysis.status import ATTENTION_ORDER, DECIDE_UNKNOWN, summarize_threads

    effects = _effects(args)
    source = _open(args.db)
    answers: dict[str, Any] = {}
    try:
        summaries, problems = summarize_threads(
            source, cache=cache.for_source(source, enabled=not args.no_cache), effects=effects
        )
        if args.graph:
            from replaylens.analysis.from_graph import ask_graph

            answers = ask_graph(
                source, args.graph, {s.thread_id: [""] for s in summaries}, newest_only=True
            )
    finally:
        source.close()
    if answers:  # the graph code's status where it answers; the rows' beside it
        summaries = [graph_summary(s, answers[s.thread_id]) if s.thread_id in answers else s
                     for s in summaries]  # fmt: skip
    if args.json:
        _print_json([s.to_json() for s in summaries])
    else:
        if answers:
            release = next(iter(answers.values())).langgraph
            print(f"status: {GRAPH_HEADER} ({safe(args.graph)}), LangGraph {safe(release)}'s own "
                  "get_state_history")  # fmt: skip
        ordered = sorted(summaries, key=lambda s: (ATTENTION_ORDER.get(s.status, 99), s.thread_id))
        _print_table(
            ["thread_id", "status", *(["rows say"] if answers else []), "checkpoints",
             "latest_step", "updated_at", "due next"],
            [
                [
                    s.thread_id,
                    s.status,
                    *([s.rows] if answers else []),
                    s.checkpoints,
                    "-" if s.latest_step is None else s.latest_step,
                    s.updated_at or "-",
                    ", ".join([*s.pending, *(["(unknown)"] if s.next_unknown else [])])
                    or _due_note(s),
                ]
                for s in ordered
            ],
        )  # fmt: skip
        if not summaries:
            print(f"{safe(source.label)} holds no threads yet.")
        undecided = sum(s.status == "unknown" for s in summaries)
        if undecided:
            print(f"\n{undecided} thread(s) unknown: the rows cannot tell whether they finished; to "
                  f"decide, {DECIDE_UNKNOWN}.")  # fmt: skip
        differ = [s for s in summaries if s.rows and s.rows not in (s.status, "unknown")]
        if differ:
            print(f"\n{len(differ)} thread(s) where the rows and your graph code differ: "
                  + ", ".join(safe(s.thread_id) for s in differ[:20]))  # fmt: skip
    _warn(problems, source.notes)
    return 0


def _due_note(s: Any) -> str:
    """The "due next" cell when no task is listed: say why, never leave it blank."""
    if s.status == "needs_restart":
        return "(restart from the input)"
    if s.status == "completed":
        return "-"
    if s.latest_step == -1:
        return "(the first step, after the input)"
    return "-"


def _pair_effects(args: argparse.Namespace) -> None:
    """Fill in `args.effects` with the log the dashboard pairs with the database (the campaign
    run's log, or `<name>.effects.jsonl` next to it) unless one was given or --no-effects."""
    from pathlib import Path

    if (
        getattr(args, "effects", None)
        or getattr(args, "no_effects", False)
        or _names_postgres(args.db)
    ):
        return
    from replaylens.pairing import effects_for

    found = effects_for(Path(args.db))
    if found is not None:
        print(f"note: reading the effects log next to the database: {safe(found)} "
              "(--effects FILE picks another, --no-effects reads none)", file=sys.stderr)  # fmt: skip
        args.effects = str(found)  # the report names the log it read


def _effects(args: argparse.Namespace) -> Any:
    """The effects log given with --effects, else the one paired with the database
    (`_pair_effects`); None without one."""
    from replaylens.effects.parse import read_effects

    _pair_effects(args)
    path = getattr(args, "effects", None)
    if not path:
        return None
    effects = read_effects(path)
    _warn(effects.problems, effects.notes)
    return effects


def _names_postgres(spec: Any) -> bool:
    from replaylens import dsn

    return dsn.names_postgres(spec)


def _not_found(
    source: Any, thread_id: str, effects: Any, args: argparse.Namespace
) -> ReplaylensError:
    """The unknown-thread error, naming a few thread ids that do exist, and how to list them
    all (the source as the reader can type it again, never with its password)."""
    from replaylens import dsn
    from replaylens.analysis.status import summarize_threads
    from replaylens.errors import ThreadNotFound

    try:
        ids = [s.thread_id for s in summarize_threads(source)[0]]
    except ReplaylensError:
        ids = []
    if effects is not None:
        ids += sorted(set(effects.thread_ids) - set(ids))
    shown = ", ".join(repr(i) for i in ids[:5]) + (
        f" and {len(ids) - 5} more" if len(ids) > 5 else ""
    )
    words = dsn.retype_words(
        str(getattr(args, "bundle_paths", [args.db])[0]),
        dsn_file=getattr(args, "dsn_file", None),
        moved_prefix=ENV_ARGV_DSN,
    )
    listing = (
        f"'replaylens threads {words}' lists them all"
        if words
        else "'replaylens threads' with the same connection string lists them all"
    )
    hint = f" It holds {shown}; {listing}." if ids else " It holds no thread."
    return ThreadNotFound(
        f"Thread {thread_id!r} is not in {source.label}"
        + (" or its effects log" if effects else "")
        + "."
        + hint
    )


def _graph_answer(args: argparse.Namespace, thread: Any) -> Any:
    """With --graph (and a thread in the database): LangGraph's answer through the graph code."""
    if not getattr(args, "graph", None) or thread is None:
        return None
    if getattr(args, "graph_answer", None) is not None:
        return args.graph_answer  # asked already, for the plan (`_plan_from`)
    from replaylens.analysis.from_graph import ask_thread

    source = _open(args.db)
    try:
        return ask_thread(source, args.graph, thread)
    finally:
        source.close()


def _print_graph_answer(thread: Any, answer: Any) -> None:
    """The graph code's answer first: its status, then where it and the rows differ."""
    from replaylens.analysis.from_graph import GRAPH_HEADER, differences, status_sentence
    from replaylens.analysis.status import thread_status

    print(f"{GRAPH_HEADER} ({safe(answer.graph)}): LangGraph {safe(answer.langgraph)}'s own "
          "get_state_history")  # fmt: skip
    print(f"  {safe(status_sentence(thread_status(thread), answer))}")
    for error in answer.errors:
        print(f"  LangGraph could not answer: {safe(error)}")
    found = differences(thread, answer)
    if found:
        print(f"  where the rows and your graph code differ ({len(found)} checkpoint(s)):")
        for d in found:
            where = f"{d.checkpoint_ns or '(root)'} step {d.step}"
            print(f"    {safe(where)} {safe(d.checkpoint_id)}: {safe(d.sentence)}")
    else:
        print("  every checkpoint: the rows and your graph code list the same tasks")
    print("the rows alone:")


def plain(text: str) -> str:
    """A sentence written for Markdown, for a terminal: code spans lose their backticks."""
    return text.replace("`", "")


# -- thread -------------------------------------------------------------------------
def cmd_thread(args: argparse.Namespace) -> int:
    from replaylens.analysis.durability.evidence import answered_below
    from replaylens.analysis.plan import status_sentence
    from replaylens.analysis.status import load_thread, thread_status, unknown_reason
    from replaylens.errors import ThreadNotFound
    from replaylens.export import thread_to_json
    from replaylens.model import channel_label

    source = _open(args.db)
    answer = None
    try:
        try:
            thread = load_thread(source, args.thread)
        except ThreadNotFound:
            raise _not_found(source, args.thread, None, args) from None
        if args.graph:
            from replaylens.analysis.from_graph import ask_thread

            answer = ask_thread(source, args.graph, thread)  # the source is open already
        if args.json:
            doc = thread_to_json(source, thread, with_values=args.values)
            if answer is not None:
                from replaylens.analysis.from_graph import answer_json

                doc["from_graph"] = answer_json(thread, answer, thread_status(thread))
            _print_json(doc)
            return 0
    finally:
        source.close()
    if answer is not None:
        _print_graph_answer(thread, answer)
    status = thread_status(thread)
    root = thread.root.latest if thread.root else None
    more = (
        ", more tasks may be due"
        if root is not None and root.next_unknown and status == "resumable"
        else ""
    )
    said = status_sentence(status, status == "interrupted" and answered_below(thread))
    print(f"thread {safe(thread.thread_id)}: {status}{more} ({said})")
    if status == "unknown":
        print(f"  {safe(unknown_reason(root))}")
    if thread.generation is not None:
        print(thread.generation.headline(safe))
        for note in thread.generation.notes:
            print(f"  {safe(note)}")
    if more and root is not None:
        print(f"  {safe(root.next_unknown or '')}")
    for ns in thread.namespaces.values():
        print(f"\nnamespace {safe(ns.name) or '(root)'}: {len(ns.checkpoints)} checkpoints")
        rows = []
        for cp in ns.checkpoints:
            nxt = (
                ", ".join(
                    f"{safe(t.label)}[{t.status}]"
                    + (f" +{len(t.calls)} @task calls" if t.calls else "")
                    for t in cp.tasks
                )
                or "-"
            )
            nxt += "".join(f"; {safe(u.label)}" for u in cp.updates)
            rows.append(
                [
                    cp.step,
                    cp.source,
                    cp.ts,
                    cp.checkpoint_id,
                    nxt,
                    len(cp.writes),
                    "UNREADABLE" if cp.unreadable else ("fork" if len(cp.children) > 1 else ""),
                ]
            )
        _print_table(["step", "source", "ts", "checkpoint_id", "next tasks", "writes", ""], rows)
    orphans = thread.orphan_writes
    if orphans:
        print(
            f"\n{len(orphans)} orphan write(s): rows whose checkpoint never landed; a resume ignores them."
        )
        _print_table(
            ["checkpoint_id", "task_id", "channel"],
            [[w.checkpoint_id, w.task_id, channel_label(w.channel)] for w in orphans],
        )
    _warn(thread.problems, source.notes)
    return 0


# -- replay / report ----------------------------------------------------------------
def _plan(args: argparse.Namespace) -> tuple[Any, Any]:
    """(the resume plan, the thread or None when only the effects log knows it)."""
    effects = _effects(args)
    source = _open(args.db)
    try:
        return _plan_from(source, effects, args)
    finally:
        source.close()


def _plan_from(source: Any, effects: Any, args: argparse.Namespace) -> tuple[Any, Any]:
    """The plan of `args.thread` in the open `source`, at the latency and recording the
    arguments (or the manifest next to the database) give; the thread or None."""
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.errors import ThreadNotFound

    try:
        thread = load_thread(source, args.thread)
    except ThreadNotFound:
        if effects is None or args.thread not in effects.thread_ids:
            raise _not_found(source, args.thread, effects, args) from None
        thread = None  # only the effects log knows it: it needs a restart, not an error
    _warn(thread.problems if thread else [], source.notes)
    recording = _recording(args)
    if getattr(args, "graph", None) and thread is not None:
        # Asked once, before the plan: the graph code is what names a node cache that
        # outlives the process, whose nodes a resume does not run again (`node_cache`), and
        # the nodes a store that keeps no task path leaves unnamed.
        from replaylens.analysis.from_graph import ask_thread

        answer = args.graph_answer = ask_thread(source, args.graph, thread)
        recording = recording.told_by_graph(answer.cached_nodes, answer.nodes)
    plan = plan_resume(
        thread,
        effects,
        args.thread,
        latency=args.latency,
        recording=recording,
        source=source,
    )
    return plan, thread


def _recording(args: argparse.Namespace) -> Any:
    """The recorded mode: given on the command line, else from a kill-test manifest, else unknown."""
    found = _recordings_of(args.db, args.langgraph_release)(args.thread)
    if args.recorded_mode is None:
        return found
    latency = args.recorded_latency if args.recorded_latency is not None else found.latency
    # the kill point stays the manifest's: a fact of the recording, whatever mode is named
    return dataclasses.replace(
        found, mode=args.recorded_mode, latency=latency, origin="given on the command line"
    )


def _recordings_of(db: str, release: str | None) -> Any:
    """How each thread of `db` was recorded, per a kill-test manifest beside it (none for a
    Postgres DSN), and the release given: `incident` plans its threads as `replay` plans one
    (`_recording`, which adds the mode the command line names)."""
    from replaylens.analysis.durability import Recording
    from replaylens.killtest.recorded import recording_for

    def found(thread_id: str) -> Recording:
        told = Recording() if _names_postgres(db) else recording_for(db, thread_id)
        return dataclasses.replace(told, langgraph=release) if release else told

    return found


def _latency(text: str) -> float:
    """A checkpoint write latency: a number of seconds, zero or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--latency takes a number of seconds, not {text!r}"
        ) from None
    if value != value or value < 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"--latency cannot be negative or infinite, got {text!r}")
    return value


def cmd_replay(args: argparse.Namespace) -> int:
    from replaylens.analysis.again import AGAIN_COLUMNS, again_rows, next_moves, outcome_tag
    from replaylens.analysis.node_cache import SERVED
    from replaylens.model import Generation

    plan, thread = _plan(args)
    answer = _graph_answer(args, thread)
    if args.json:
        doc = plan.to_json()
        doc["next_moves"] = [m.to_json() for m in next_moves(plan, thread)]
        if answer is not None:
            from replaylens.analysis.from_graph import answer_json

            doc["from_graph"] = answer_json(thread, answer, plan.status)
        _print_json(doc)
        return 0
    if answer is not None:
        _print_graph_answer(thread, answer)
    doc = plan.to_json()
    print(f"thread {safe(plan.thread_id)}: {plan.status}")
    print(safe(plain(plan.verdict_sentence())))
    print(f"what happens again: {plan.again.words()}")
    for move in next_moves(plan, thread):
        what = {"failed": "failed with", "answered": "asked, and was answered below"}.get(
            move.kind, "asks"
        )
        print(f"\n{safe(move.node)} {what}: {safe(move.detail)}")
        print("next move:")
        for line in move.code.split("\n"):  # only \n ends a line of it (never U+2028)
            print(f"    {safe(line)}")
    if "synchronous_commit" in plan.backend:
        print(
            f"Postgres synchronous_commit = {plan.backend['synchronous_commit']} "
            "(the server's own durability, under LangGraph's durability mode)"
        )
    cp = doc["resume_checkpoint"]
    if cp:
        print(f"a resume loads checkpoint {safe(cp['checkpoint_id'])} (step {cp['step']})")
    for label, key in (("runs again", "reruns"), ("writes reused", "reused")):
        for t in doc[key]:
            state = t["status"] or t["why"]
            print(
                f"  {label:14} {safe(t['label'])} ({safe(state)}, task {safe(t['task_id'] or '?')})"
            )
            for c in t.get("calls", []):
                fate = "result reused" if c["reused_on_resume"] else "called again"
                print(
                    f"  {'':14}   @task call {safe(c['label'])} ({c['status']}, task {safe(c['task_id'])}): {fate}"
                )
    served = {a.task_id or a.node: a for a in plan.attempts if a.reason == SERVED}
    for a in served.values():
        print(f"  {'from the cache':14} {safe(a.node)} (its node cache serves it, "
              f"task {safe(a.task_id or '?')})")  # fmt: skip
    if plan.generation is not None and plan.generation.sentence():
        print(plan.generation.sentence(safe))
    if plan.today_reruns:
        print(Generation.today_sentence([t.node for _, t in plan.today_reruns], safe))
    if doc["orphan_writes"]:
        print(f"  {len(doc['orphan_writes'])} orphan write(s): ignored by a resume")
    if plan.effects_given:
        rows = again_rows(plan)
        if rows:
            print("\nwhat happens again:")
            _print_table(
                ["why", *AGAIN_COLUMNS],
                [
                    [
                        r.why,
                        r.node,
                        r.effect,
                        r.times,
                        ", ".join(map(str, r.lines)),
                        ", ".join(r.keys) or "-",
                        r.dedupe,
                    ]
                    for r in rows
                ],
            )
        print()
        lines = sorted(
            ((line, a) for a in plan.attempts for line in a.lines), key=lambda p: p[0].line
        )
        if not lines:
            print("The effects log has no usable line for this thread.")
        else:
            _print_table(
                ["line", "node", "effect", "phase", "attempt", "verdict", "why"],
                [
                    [line.line, a.node, line.label, line.phase, a.attempt, a.verdict, a.reason]
                    for line, a in lines
                ],
            )
        for finding in plan.idempotency_findings:
            print(f"idempotency: {safe(plain(finding))}")
        for text in plan.ambiguities:
            print(f"cannot tell: {safe(plain(text))}")
        rec = plan.recording
        recorded = f"recorded under {rec.mode}" if rec.mode else "recorded mode unknown"
        print(f"\nwhat-if at write latency {plan.latency:g}s ({recorded}):")
        for o in plan.what_if.values():
            again = plan.again_under(o.mode)
            print(
                f"  {o.mode:5}  kept {again.figure('checkpoints_kept') or '?':>3} checkpoint(s), {again.words()} "
                f"({outcome_tag(plan, o.mode)}). {safe(plain(o.sentence))}"
            )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from replaylens.report import incident_markdown

    plan, _thread = _plan(args)
    # A file as the user typed it (relative stays relative); a Postgres source by its
    # redacted label, never the connection string.
    database = getattr(args, "bundle_label", None) or (
        args.db if plan.backend.get("kind") == "sqlite" else str(plan.backend.get("database", ""))
    )
    sys.stdout.write(incident_markdown(plan, database=database, effects_log=args.effects))
    return 0


def _add_plan_args(p: argparse.ArgumentParser) -> None:
    _add_db(p)
    p.add_argument("--thread", required=True, help="The thread id to plan a resume for.")
    _add_effects_args(p)
    p.add_argument(
        "--latency",
        type=_latency,
        default=None,
        help="The checkpoint write latency in seconds for the what-if (default: the recorded one, "
        "from a kill-test manifest next to the database or --recorded-latency, else 0.25), as the "
        "dashboard's latency control starts.",
    )
    p.add_argument(
        "--recorded-mode",
        choices=("sync", "async", "exit"),
        help="The durability mode the run was recorded under (a kill-test manifest next to "
        "the database is read when this is not given).",
    )
    p.add_argument(
        "--recorded-latency",
        type=_latency,
        metavar="SECONDS",
        help="The checkpoint write latency the run was recorded with.",
    )
    _add_release_arg(p)


def _add_release_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--langgraph-release",
        metavar="VERSION",
        help="The LangGraph release that wrote the database and will resume it, such as 1.1.10 "
        "(default: a kill-test manifest's, else today's rules). Up to 1.2.15 a subgraph a "
        "resume re-enters runs its finished tasks of that step again.",
    )


def _add_effects_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--effects",
        help="The effects log (JSON Lines) the nodes wrote, or a trace (OTLP JSON or protobuf, LangSmith "
        "runs, Langfuse observations, gzip or zstd), to align with the checkpoints. "
        "Default: the log the dashboard pairs with the database (the campaign run's log, or "
        "<name>.effects.jsonl next to it).",
    )
    p.add_argument(
        "--no-effects",
        action="store_true",
        help="Read no effects log, even one next to the database.",
    )


# -- incident -------------------------------------------------------------------------
def _when_arg(text: str) -> float:
    from replaylens.effects.parse import parse_ts

    value = parse_ts(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time (epoch seconds or ISO-8601)")
    return value


def cmd_incident(args: argparse.Namespace) -> int:
    from replaylens.analysis.incident import collect, select

    effects_box: list[Any] = []
    _pair_effects(args)

    def parse() -> Any:
        from replaylens.effects.parse import read_effects

        effects_box.append(read_effects(args.effects))
        return effects_box[0]

    source = _open(args.db)
    try:
        found = collect(
            source,
            None,
            parse=parse if args.effects else None,
            recording_of=_recordings_of(args.db, args.langgraph_release),
        )
    finally:
        source.close()
    if effects_box:
        _warn(effects_box[0].problems, effects_box[0].notes)
    incident = select(
        found,
        since=args.since,
        until=args.until,
        pid=args.pid,
        latest=args.latest,
        window=args.window,
    )
    if args.json:
        _print_json(incident.to_json())
        return 0
    print(f"{len(incident.threads):,} thread(s): {safe(incident.selection)}")
    print(safe(incident.sentence()))
    impact = incident.impact()
    if impact:
        print()
        _print_table(
            ["node", "effect", "times again", "threads"],
            [[r.node, r.effect, r.times_again, r.threads] for r in impact],
        )
    keys = incident.keys()
    if keys:
        print("\nidempotency keys of the repeated effects:")
        _print_table(
            ["node", "effect", "key", "times again", "threads", "example"],
            [
                [k.node, k.effect, k.verdict, k.times_again, k.threads, k.example_key or "-"]
                for k in keys
            ],
        )
    rows = sorted(incident.threads, key=lambda t: (-t.times_again, t.thread_id))
    shown = rows if args.all else [t for t in rows if t.status != "completed" or t.times_again][:50]
    if shown:
        print()
        _print_table(
            ["thread_id", "status", "times again", "effects again", "re-runs"],
            [
                [
                    t.thread_id,
                    t.status,
                    t.times_again if incident.effects_given else "- (no log)",
                    ", ".join(f"{k} x{n}" for k, n in sorted(t.effects_again.items())),
                    ", ".join(t.reruns),
                ]
                for t in shown
            ],
        )
        hidden = len(incident.threads) - len(shown)
        if hidden:
            print(
                f"... and {hidden:,} more (completed threads with nothing to repeat, or past the first 50); "
                "--all lists every thread, --json prints them all."
            )
    _warn(incident.notes, source.notes)
    return 0


# -- storage ----------------------------------------------------------------------------
def cmd_storage(args: argparse.Namespace) -> int:
    from replaylens.analysis.storage import human, storage_report

    source = _open(args.db)
    try:
        report = storage_report(source, top=args.top, timeout_s=args.timeout)
    finally:
        source.close()
    if args.json:
        _print_json(report.to_json())
        return 0
    for sentence in report.sentences():
        print(safe(sentence))
    if report.relations:
        print("\nrelations on disk (heap, TOAST with its index, indexes):")
        _print_table(
            ["table", "rows (estimate)", "heap", "TOAST", "indexes", "total"],
            [
                [r.table, f"{r.rows_estimate:,}", human(r.heap_bytes), human(r.toast_bytes),
                 human(r.index_bytes), human(r.total_bytes)]
                for r in report.relations
            ],
        )  # fmt: skip
    print("\nlargest threads:")
    _print_table(
        ["thread_id", "checkpoints", "checkpoint bytes", "write bytes"],
        [[t, n, human(cb), human(wb)] for t, n, cb, wb in report.threads],
    )
    print("\nper namespace (subgraph task ids folded):")
    _print_table(
        ["namespace", "checkpoints", "bytes"], [[ns, n, human(b)] for ns, n, b in report.namespaces]
    )
    print("\nwrites per channel:")
    _print_table(
        ["channel", "rows", "bytes"],
        [[c, n, human(b)] for c, n, b in report.write_channels[: args.top]],
    )
    print("\nchannels of the latest checkpoints:")
    _print_table(
        ["channel", "bytes", "list"],
        [
            [c, human(b), "yes" if is_list else ""]
            for c, b, is_list in report.latest_channels[: args.top]
        ],
    )
    print("\nlargest blobs:")
    _print_table(
        ["table", "thread_id", "checkpoint_id", "channel", "bytes"],
        [
            [
                b.table,
                b.thread_id,
                b.checkpoint_id or f"(version {b.version})",
                b.channel or "",
                human(b.bytes),
            ]
            for b in report.largest
        ],
    )
    if report.growth_note:
        print(f"\nnote: {safe(report.growth_note)}")
    _warn(report.notes, source.notes)
    return 0


# -- export / bundle -------------------------------------------------------------------
def cmd_export(args: argparse.Namespace) -> int:
    from replaylens.export import history, to_json_bytes, to_ndjson

    if args.out:
        _refuse_evidence_out(args)
    effects = _effects(args)
    source = _open(args.db)
    try:
        plan, thread = _plan_from(source, effects, args)
        doc = history(source, thread, plan, args.effects, values=args.values)
    finally:
        source.close()
    chunks = list(to_ndjson(doc)) if args.ndjson else [to_json_bytes(doc)]
    if args.out:
        with open(args.out, "wb") as fh:
            fh.writelines(chunks)
        print(f"wrote {safe(args.out)} ({doc['header']['schema']})", file=sys.stderr)
        return 0
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(b"".join(chunks).decode())
    else:
        sys.stdout.flush()
        buffer.writelines(chunks)
        buffer.flush()
    return 0


def cmd_bundle(args: argparse.Namespace) -> int:
    from pathlib import Path

    from replaylens.bundle import CHECKSUM_NOTE, make_bundle, sha256_file

    _pair_effects(args)
    _refuse_evidence_out(args)
    manifest = make_bundle(
        args.db if _names_postgres(args.db) else Path(args.db),
        args.thread,
        Path(args.effects) if args.effects else None,
        Path(args.out),
        latency=args.latency,
        recording=_recording(args),
    )
    print(
        f"wrote {safe(args.out)}: {len(manifest['files'])} files, thread {safe(args.thread)} "
        f"{manifest['status']}. {safe(manifest['verdict'])}"
    )
    for name, info in manifest["files"].items():
        print(f"  {info['sha256']}  {info['bytes']:>12,}  {safe(name)}")
    print(f"bundle sha256: {sha256_file(Path(args.out))}  {safe(args.out)}")
    print(CHECKSUM_NOTE)
    return 0


def _refuse_evidence_out(args: argparse.Namespace) -> None:
    """--out must not name what is being read (the database and its -wal/-shm/-journal, the
    effects log, a bundle given as the database)."""
    from replaylens import dsn
    from replaylens.paths import refuse_evidence_out

    evidence = [
        p for p in (args.db, getattr(args, "effects", None)) if p and not dsn.names_postgres(p)
    ]
    refuse_evidence_out(args.out, [*evidence, *getattr(args, "bundle_paths", [])])


def _bundle_note(bundle: Any) -> None:
    print(f"note: bundle {safe(bundle.path)}: sha256 {bundle.sha256}; its {len(bundle.manifest['files'])} "
          "files match the sha256 its manifest gives (a checksum, not a signature)", file=sys.stderr)  # fmt: skip


def open_bundles(args: argparse.Namespace) -> list[Any]:
    """A bundle zip given as the database: verified, extracted privately, its snapshot and
    effects log used as DB and --effects (unless --effects names another log)."""
    named = [getattr(args, "db", None), *(getattr(args, "paths", None) or [])]
    if not any(isinstance(p, str) and p.lower().endswith(".zip") for p in named):
        return []  # no zip named: the bundle module (zipfile, hashlib) is not even imported
    from replaylens.bundle import is_bundle, open_bundle

    opened: list[Any] = []
    if isinstance(getattr(args, "db", None), str) and is_bundle(args.db):
        bundle = open_bundle(args.db)
        opened.append(bundle)
        _bundle_note(bundle)
        args.bundle_paths = [args.db]
        args.bundle_label = f"{bundle.manifest['snapshot']} in bundle {bundle.citation()}"
        args.db = str(bundle.db)
        if hasattr(args, "effects") and not args.effects and bundle.effects is not None:
            args.effects = str(bundle.effects)
    for i, path in enumerate(getattr(args, "paths", None) or []):
        if isinstance(path, str) and is_bundle(path):
            bundle = open_bundle(path)
            opened.append(bundle)
            _bundle_note(bundle)
            args.paths[i] = str(bundle.db)
            if not getattr(args, "effects", None) and bundle.effects is not None:
                args.effects = str(bundle.effects)
    return opened


# -- parser -------------------------------------------------------------------------
GRAPH_HELP = (
    "Also ask your graph code: 'package.module:attribute' or 'path/to/file.py:attribute' (as in "
    "langgraph.json), naming a compiled graph, a StateGraph or a factory. It is imported in a child "
    "process and LangGraph itself is asked get_state / get_state_history through a saver over the same "
    "read-only connection that refuses every write; its answer is shown beside the rows', with where "
    "they differ. With replay, it also tells which nodes a resume takes from a node cache that "
    "outlives the process (a CachePolicy in a graph compiled with SqliteCache or RedisCache), "
    "which the database never shows. Opt-in: without it no code of yours is ever imported."
)


def add_graph_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--graph", metavar="MODULE:ATTR", help=GRAPH_HELP)


PLUGGED_COMMANDS = frozenset({"killtest", "validate", "serve"})
"""Commands registered from their own modules (the kill-test harness imports the durability
model; serve the dashboard's settings): built into the parser only when asked for, or for
the full --help, so `replaylens threads` pays only for its own work."""


def _command_of(argv: Sequence[str] | None) -> str | None:
    """The command named first on the command line, if any."""
    args = list(sys.argv[1:] if argv is None else argv)
    return args[0] if args and not args[0].startswith("-") else None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with `command` one of this module's own commands, the parser
    without the plugged-in ones (same arguments and help for `command`)."""
    parser = _Parser(
        prog="replaylens",
        description=(
            "Open a LangGraph checkpoint database read-only and answer two questions about each "
            "thread: where will a resume start, and what will happen twice? The database is never "
            "written to, and a live agent writing to it is never blocked."
        ),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser(
        "threads",
        help="List every thread in a checkpoint database with its status.",
        description=(
            "List every thread in the database, one row each: its status as a resume would see it "
            "(completed, resumable, interrupted, failed, needs_restart), how many checkpoints it has, "
            "its latest step and when it was last updated (UTC). Threads that need attention come first. "
            "With an effects log, threads it names that have no checkpoint are listed as needs_restart: "
            "killed before their first checkpoint landed, they can only be restarted from the input."
        ),
    )
    _add_db(p)
    _add_effects_args(p)
    p.add_argument(
        "--json", action="store_true", help="Print JSON (one object per thread) instead of a table."
    )
    p.add_argument(
        "--no-cache", action="store_true",
        help="Derive every status from the database, without reading or writing the status cache "
        "($REPLAYLENS_CACHE_DIR, default ~/.cache/replaylens; never next to the database).",
    )  # fmt: skip
    add_graph_arg(p)
    p.set_defaults(func=cmd_threads)

    p = sub.add_parser(
        "thread",
        help="Show one thread's checkpoints, the tasks due after each, and its writes.",
        description=(
            "Show one thread: every checkpoint oldest first with its step, source and time, the tasks "
            "due after it with their status (finished, failed, interrupted, pending) derived from the "
            "writes, and the orphan writes whose checkpoint never landed. Channel values are left out "
            "unless you ask for them, because a thread can hold a gigabyte of state."
        ),
    )
    _add_db(p)
    p.add_argument("--thread", required=True, help="The thread id to show.")
    p.add_argument("--json", action="store_true", help="Print the thread as one JSON document.")
    p.add_argument(
        "--values", action="store_true", help="Include every channel value and write value (large)."
    )
    add_graph_arg(p)
    p.set_defaults(func=cmd_thread)

    p = sub.add_parser(
        "replay",
        help="Print what a resume of one thread would re-run and which side effects would repeat.",
        description=(
            "Print the resume plan of one thread: its status, the checkpoint a resume loads, the tasks "
            "it re-runs and those whose writes it reuses, the orphan writes it ignores, and, with an "
            "effects log, a verdict for every effect line (kept, replays, restart) plus a what-if for "
            "the sync, async and exit durability modes. A thread known only from the effects log needs "
            "a restart; that is a verdict, not an error."
        ),
    )
    _add_plan_args(p)
    p.add_argument("--json", action="store_true", help="Print the plan as one JSON document.")
    add_graph_arg(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "report",
        help="Write an incident report (Markdown) for one thread.",
        description=(
            "Write a Markdown incident report for one thread to standard output: the resume plan, the "
            "verdict for every effect line, the replay window under each durability mode, and links."
        ),
    )
    _add_plan_args(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "incident",
        help="Every thread a crash touched, and what resuming all of them would repeat.",
        description=(
            "The blast radius of a crash: the threads it touched, each with its status and the task "
            "executions a resume would perform again (verdict replays or restart), and the combined "
            "impact per node and effect, with the idempotency keys that would or would not deduplicate "
            "the repeats. Without a filter it covers every thread of the database and of the effects log "
            "(threads known only from the log need a restart). Filters combine."
        ),
    )
    _add_db(p)
    _add_effects_args(p)
    p.add_argument(
        "--since",
        type=_when_arg,
        help="Only threads last active at or after this time (epoch or ISO-8601).",
    )
    p.add_argument(
        "--until", type=_when_arg, help="Only threads last active at or before this time."
    )
    p.add_argument(
        "--pid", type=int, help="Only threads with an effect line written by this process id."
    )
    p.add_argument(
        "--latest",
        action="store_true",
        help="Only the newest crash: the unfinished threads last written by the same process as the "
        "newest unfinished thread (or, without pids in the log, last active within --window seconds).",
    )
    p.add_argument(
        "--window", type=float, default=60.0, help="Seconds for --latest without pids (default 60)."
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="List every thread in the table, not the first 50 that matter.",
    )
    _add_release_arg(p)
    p.add_argument("--json", action="store_true", help="Print the incident as one JSON document.")
    p.set_defaults(func=cmd_incident)

    p = sub.add_parser(
        "storage",
        help="Where the bytes of a checkpoint database go, and what a prune would free.",
        description=(
            "Measure a checkpoint database with SQL aggregates (SQLite length(); Postgres pg_column_size and "
            "octet_length, plus each table's size with its TOAST and indexes), without decoding blobs: "
            "bytes per thread, namespace and write channel, the largest blobs, growth over time (from the "
            "UUID v6 checkpoint ids), the orphan writes, the share of __pregel_tasks and of list values, and "
            "what LangGraph's keep-latest prune would free. Computed only, in one read-only snapshot: nothing "
            "is pruned or written."
        ),
    )
    _add_db(p)
    p.add_argument("--top", type=int, default=20, help="Rows per table (default 20).")
    p.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                   help="Postgres: how long each of its aggregate statements may run (default 600; "
                        "they read whole tables in a read-only snapshot and block no writer).")  # fmt: skip
    p.add_argument("--json", action="store_true", help="Print the report as one JSON document.")
    p.set_defaults(func=cmd_storage)

    p = sub.add_parser(
        "export",
        help="Write one thread's whole history as JSON or NDJSON (schema replaylens.history/1).",
        description=(
            "Export one thread's history: every checkpoint with its metadata and the tasks due after it, the "
            "writes per task, the orphan writes, every effect line with its verdict, and the resume plan. The "
            "schema (replaylens.history/1) is documented in replaylens/export.py and the README."
        ),
    )
    _add_plan_args(p)
    p.add_argument(
        "--ndjson", action="store_true", help="One record per line instead of one JSON document."
    )
    p.add_argument("--values", action="store_true", help="Include every write value (large).")
    p.add_argument("--out", "-o", help="Write to this file instead of standard output.")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser(
        "bundle",
        help="Write an evidence bundle (zip) for one thread: database snapshot, raw files, log, report, sha256 manifest.",
        description=(
            "Write a zip an incident write-up can cite. From SQLite: a consistent snapshot of the database made with "
            "SQLite's backup API from a read-only connection, and the database, -wal and -shm byte for byte as they "
            "stood. From Postgres: the thread's rows of checkpoints, checkpoint_blobs and checkpoint_writes from one "
            "REPEATABLE READ, READ ONLY snapshot, in a SQLite file in PostgresSaver's own schema, and the same rows "
            "byte for byte as COPY sends them (the manifest records the server version, synchronous_commit and the "
            "snapshot's time). Then the effects log, the report, the plan and the history export, and a manifest "
            "with the sha256 of every file. A live writer is never blocked. Give the zip as DB to any command (or "
            "to serve) to read it."
        ),
    )
    _add_plan_args(p)
    p.add_argument("--out", required=True, help="The zip file to write (e.g. incident.zip).")
    p.set_defaults(func=cmd_bundle)

    if command is not None and command in sub.choices and command not in PLUGGED_COMMANDS:
        return parser
    from replaylens._serve import register_serve
    from replaylens.killtest import register_killtest

    register_killtest(sub)

    from replaylens.killtest.validate import register_validate

    register_validate(sub)

    register_serve(sub)

    from replaylens.effects.convert import register_effects

    register_effects(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # a real process: its argv is public
        _reexec_without_passwords()
    parser = build_parser(_command_of(argv))
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_USAGE
    opened: list[Any] = []
    try:
        _resolve_db(args)
        opened = open_bundles(args)
        return func(args)
    except ReplaylensError as exc:
        print(f"replaylens: {safe(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        for bundle in opened:
            bundle.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
