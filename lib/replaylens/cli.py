"""The `replaylens` command: a thin layer over the library.

Imports stay lean (no pandas, no Streamlit) so that `replaylens threads --json` on a
database of ten thousand threads costs the query, not the start-up.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any

from replaylens.errors import ReplaylensError

EXIT_USAGE = 2
DB_HELP = (
    "The checkpoint database to read: a SQLite file, or a postgresql:// connection string "
    "(its password is never printed)."
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
    from replaylens.analysis.status import ATTENTION_ORDER, ThreadSummary, summarize_threads

    source = _open(args.db)
    try:
        summaries, problems = summarize_threads(source)
    finally:
        source.close()
    effects = _effects(args)
    if effects is not None:  # threads only the log knows: killed before their first checkpoint
        known = {s.thread_id for s in summaries}
        summaries += [ThreadSummary(tid, 0, 0, None, None, "needs_restart", None)
                      for tid in sorted(set(effects.thread_ids) - known)]  # fmt: skip
    if args.json:
        _print_json([s.to_json() for s in summaries])
    else:
        ordered = sorted(summaries, key=lambda s: (ATTENTION_ORDER.get(s.status, 99), s.thread_id))
        _print_table(
            ["thread_id", "status", "checkpoints", "latest_step", "updated_at", "due next"],
            [
                [s.thread_id, s.status, s.checkpoints, "-" if s.latest_step is None else s.latest_step,
                 s.updated_at or "-",
                 ", ".join([*s.pending, *(["(unknown)"] if s.next_unknown else [])]) or _due_note(s)]
                for s in ordered
            ],
        )
        if not summaries:
            print(f"{safe(source.label)} holds no threads yet.")
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


def _effects(args: argparse.Namespace) -> Any:
    """The effects log given with --effects, else the one the dashboard pairs with the database
    (the campaign run's log, or `<name>.effects.jsonl` next to it); None without one."""
    from pathlib import Path

    from replaylens.effects.parse import read_effects

    path = getattr(args, "effects", None)
    if not path and not getattr(args, "no_effects", False) and "://" not in args.db:
        from replaylens.dashboard.catalog import effects_for

        found = effects_for(Path(args.db))
        if found is not None:
            print(f"note: reading the effects log next to the database: {safe(found)} "
                  "(--effects FILE picks another, --no-effects reads none)", file=sys.stderr)  # fmt: skip
            path = str(found)
            args.effects = path  # the report names the log it read
    if not path:
        return None
    effects = read_effects(path)
    _warn(effects.problems, [])
    return effects


def _not_found(source: Any, thread_id: str, effects: Any, db: str) -> ReplaylensError:
    """The unknown-thread error, naming a few thread ids that do exist."""
    from replaylens.analysis.status import summarize_threads
    from replaylens.errors import ThreadNotFound

    try:
        ids = [s.thread_id for s in summarize_threads(source)[0]]
    except ReplaylensError:
        ids = []
    if effects is not None:
        ids += sorted(set(effects.thread_ids) - set(ids))
    where = db if "://" not in db else str(source.label)  # a connection string by its redacted label
    shown = ", ".join(repr(i) for i in ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
    hint = f" It holds {shown}; 'replaylens threads {shlex.quote(where)}' lists them all." if ids else " It holds no thread."
    return ThreadNotFound(f"Thread {thread_id!r} is not in {source.label}" + (" or its effects log" if effects else "")
                          + "." + hint)


def plain(text: str) -> str:
    """A sentence written for Markdown, for a terminal: code spans lose their backticks."""
    return text.replace("`", "")


# -- thread -------------------------------------------------------------------------
def _write_json(w: Any, with_values: bool) -> dict[str, Any]:
    from replaylens.decode import to_jsonable
    from replaylens.model import CONTROL_CHANNELS, channel_label

    out: dict[str, Any] = {
        "task_id": w.task_id,
        "task_path": w.task_path,
        "idx": w.idx,
        "channel": w.channel,
        "label": channel_label(w.channel),
        "type": w.type,
        "bytes": w.size,
    }
    if with_values or w.channel in CONTROL_CHANNELS:
        result = w.decoded()
        out["value"] = to_jsonable(result.value)
        if result.error:
            out["decode_error"] = result.error
    return out


def thread_to_json(source: Any, thread: Any, *, with_values: bool) -> dict[str, Any]:
    """The `replaylens thread --json` document (a contract other tools rely on)."""
    from replaylens.analysis.status import thread_status
    from replaylens.decode import to_jsonable

    checkpoints = []
    for ns in thread.namespaces.values():
        for cp in ns.checkpoints:
            item: dict[str, Any] = {
                "checkpoint_id": cp.checkpoint_id,
                "checkpoint_ns": cp.checkpoint_ns,
                "parent_checkpoint_id": cp.parent_checkpoint_id,
                "step": cp.step,
                "source": cp.source,
                "ts": cp.ts,
                "metadata": to_jsonable(cp.record.metadata),
                "updated_channels": cp.record.updated_channels,
                "children": cp.children,
                "next": [
                    {"node": t.node, "task_id": t.task_id, "status": t.status, "kind": t.kind,
                     "derived": t.derived, **({"today_task_id": t.today_task_id} if t.today_task_id else {})}
                    for t in cp.tasks
                ],
                "next_unknown": cp.next_unknown,
                "writes": [_write_json(w, with_values) for w in cp.writes],
            }
            if cp.unreadable:
                item["unreadable"] = cp.unreadable
            if cp.task_notes:
                item["notes"] = cp.task_notes
            if with_values and not cp.unreadable:
                values = source.read_channel_values(thread.thread_id, cp.checkpoint_ns, cp.checkpoint_id)
                item["values"] = {k: to_jsonable(v.value) for k, v in values.items()}
            checkpoints.append(item)
    checkpoints.sort(key=lambda c: (c["checkpoint_ns"].count("|"), c["checkpoint_ns"], c["checkpoint_id"]))
    return {
        "thread_id": thread.thread_id,
        "status": thread_status(thread),
        "generation": thread.generation.to_json() if thread.generation else None,
        "namespaces": list(thread.namespaces),
        "checkpoints": checkpoints,
        "orphan_writes": [
            {"checkpoint_ns": w.checkpoint_ns, "checkpoint_id": w.checkpoint_id, **_write_json(w, with_values)}
            for w in thread.orphan_writes
        ],
        "problems": thread.problems,
    }


def cmd_thread(args: argparse.Namespace) -> int:
    from replaylens.analysis.status import STATUS_EXPLAINED, load_thread, thread_status
    from replaylens.errors import ThreadNotFound
    from replaylens.model import channel_label

    source = _open(args.db)
    try:
        try:
            thread = load_thread(source, args.thread)
        except ThreadNotFound:
            raise _not_found(source, args.thread, None, args.db) from None
        if args.json:
            _print_json(thread_to_json(source, thread, with_values=args.values))
            return 0
    finally:
        source.close()
    status = thread_status(thread)
    root = thread.root.latest if thread.root else None
    unknown = ", next task unknown" if root is not None and root.next_unknown and status == "resumable" else ""
    print(f"thread {safe(thread.thread_id)}: {status}{unknown} ({STATUS_EXPLAINED.get(status, '')})")
    if thread.generation is not None:
        gen = thread.generation
        print(f"written by: {safe(gen.label)}; task ids: {safe(gen.id_rule)}"
              + (f" ({gen.ids_reproduced} of {gen.ids_written} written ids reproduced)" if gen.ids_written else ""))
        for note in gen.notes:
            print(f"  {safe(note)}")
    if unknown and root is not None:
        print(f"  {safe(root.next_unknown or '')}")
    for ns in thread.namespaces.values():
        print(f"\nnamespace {safe(ns.name) or '(root)'}: {len(ns.checkpoints)} checkpoints")
        rows = []
        for cp in ns.checkpoints:
            nxt = ", ".join(f"{t.node}[{t.status}]" for t in cp.tasks) or "-"
            rows.append([cp.step, cp.source, cp.ts, cp.checkpoint_id, nxt, len(cp.writes),
                         "UNREADABLE" if cp.unreadable else ("fork" if len(cp.children) > 1 else "")])
        _print_table(["step", "source", "ts", "checkpoint_id", "next tasks", "writes", ""], rows)
    orphans = thread.orphan_writes
    if orphans:
        print(f"\n{len(orphans)} orphan write(s): rows whose checkpoint never landed; a resume ignores them.")
        _print_table(
            ["checkpoint_id", "task_id", "channel"],
            [[w.checkpoint_id, w.task_id, channel_label(w.channel)] for w in orphans],
        )
    _warn(thread.problems, source.notes)
    return 0


# -- replay / report ----------------------------------------------------------------
def _plan(args: argparse.Namespace) -> tuple[Any, Any]:
    """(the resume plan, the thread or None when only the effects log knows it)."""
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.errors import ThreadNotFound

    effects = _effects(args)
    source = _open(args.db)
    try:
        try:
            thread = load_thread(source, args.thread)
        except ThreadNotFound:
            if effects is None or args.thread not in effects.thread_ids:
                raise _not_found(source, args.thread, effects, args.db) from None
            thread = None  # only the effects log knows it: it needs a restart, not an error
        _warn(thread.problems if thread else [], source.notes)
        settings = source.server_settings() if hasattr(source, "server_settings") else {}
        label = source.label
    finally:
        source.close()
    plan = plan_resume(thread, effects, args.thread, latency=args.latency)
    plan.backend = {"kind": getattr(source, "kind", "?"), "database": label, **settings}
    return plan, thread


def cmd_replay(args: argparse.Namespace) -> int:
    from replaylens.analysis.again import again_rows, next_moves

    plan, thread = _plan(args)
    if args.json:
        doc = plan.to_json()
        doc["next_moves"] = [m.to_json() for m in next_moves(plan, thread)]
        _print_json(doc)
        return 0
    doc = plan.to_json()
    print(f"thread {safe(plan.thread_id)}: {plan.status}")
    print(safe(plain(plan.verdict_sentence())))
    for move in next_moves(plan, thread):
        what = "failed with" if move.kind == "failed" else "asks"
        print(f"\n{safe(move.node)} {what}: {safe(move.detail)}")
        print("next move:")
        for line in move.code.splitlines():
            print(f"    {safe(line)}")
    if "synchronous_commit" in plan.backend:
        print(f"Postgres synchronous_commit = {plan.backend['synchronous_commit']} "
              "(the server's own durability, under LangGraph's durability mode)")
    cp = doc["resume_checkpoint"]
    if cp:
        print(f"a resume loads checkpoint {safe(cp['checkpoint_id'])} (step {cp['step']})")
    for label, key in (("runs again", "reruns"), ("writes reused", "reused")):
        for t in doc[key]:
            print(f"  {label:14} {safe(t['node'])} ({t['status']}, task {safe(t['task_id'])})")
    gen = doc.get("generation")
    if gen and gen.get("checkpoint_versions") and min(gen["checkpoint_versions"]) < 4:
        print(f"written by {safe(gen['label'])}: the plan above is a resume with that version")
    if doc.get("today_reruns"):
        names = ", ".join(sorted({safe(t["node"]) for t in doc["today_reruns"]}))
        print(f"with today's LangGraph, {names} run(s) again too: it migrates these checkpoints' channel "
              "names and hashes other task ids, so their writes are not found")
    if doc["orphan_writes"]:
        print(f"  {len(doc['orphan_writes'])} orphan write(s): ignored by a resume")
    if plan.effects_given:
        rows = again_rows(plan)
        if rows:
            print("\nwhat happens again:")
            _print_table(
                ["why", "node", "effect", "times again", "log lines", "idempotency key", "would the key dedupe"],
                [[r.why, r.node, r.effect, r.times, ", ".join(map(str, r.lines)), ", ".join(r.keys) or "-",
                  r.dedupe] for r in rows],
            )
        print()
        lines = sorted(((line, a) for a in plan.attempts for line in a.lines), key=lambda p: p[0].line)
        if not lines:
            print("The effects log has no usable line for this thread.")
        else:
            _print_table(
                ["line", "node", "effect", "phase", "attempt", "verdict", "why"],
                [[line.line, a.node, line.label, line.phase, a.attempt, a.verdict, a.reason] for line, a in lines],
            )
        for finding in plan.idempotency_findings:
            print(f"idempotency: {safe(plain(finding))}")
        if not lines:
            return 0  # the what-if model replays the log: with no line it has nothing to say
        print(f"\nwhat-if (a model, write latency {plan.latency}s):")
        for o in plan.what_if.values():
            print(f"  {o.mode:5}  kept {o.checkpoints_kept:3} checkpoint(s). {safe(plain(o.sentence))}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from replaylens.report import incident_markdown

    plan, _thread = _plan(args)
    # A file as the user typed it (relative stays relative); a Postgres source by its
    # redacted label, never the connection string.
    database = args.db if plan.backend.get("kind") == "sqlite" else str(plan.backend.get("database", ""))
    sys.stdout.write(incident_markdown(plan, database=database, effects_log=args.effects))
    return 0


def _add_plan_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("db", help=DB_HELP)
    p.add_argument("--thread", required=True, help="The thread id to plan a resume for.")
    _add_effects_args(p)
    p.add_argument("--latency", type=float, default=0.25,
                   help="The checkpoint write latency in seconds for the async what-if model (default 0.25).")


def _add_effects_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--effects", help="The effects log (JSON Lines) the nodes wrote, to align with the checkpoints. "
                   "Default: the log the dashboard pairs with the database (the campaign run's log, or "
                   "<name>.effects.jsonl next to it).")
    p.add_argument("--no-effects", action="store_true", help="Read no effects log, even one next to the database.")


# -- parser -------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
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
    p.add_argument("db", help=DB_HELP)
    _add_effects_args(p)
    p.add_argument("--json", action="store_true", help="Print JSON (one object per thread) instead of a table.")
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
    p.add_argument("db", help=DB_HELP)
    p.add_argument("--thread", required=True, help="The thread id to show.")
    p.add_argument("--json", action="store_true", help="Print the thread as one JSON document.")
    p.add_argument("--values", action="store_true", help="Include every channel value and write value (large).")
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

    from replaylens._serve import register_serve
    from replaylens.killtest._cli import register_killtest

    register_killtest(sub)

    register_serve(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return func(args)
    except ReplaylensError as exc:
        print(f"replaylens: {safe(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
