"""Benchmark fixtures for issue 7, built by running real LangGraph graphs and cached.

Three fixtures, all under `bench/.cache/` (gitignored), each built once and reused while
its file and its entry in the version stamp are there:

- `big-thread-v{N}.db`: ONE thread of a real tool loop (`agent` -> `tool` -> `agent` ...)
  whose `messages` channel (`operator.add` of plain `{"role", "content"}` dicts of 200
  characters) is stored whole in every checkpoint, as an agent's message list is. 1,500
  tool calls give 3,003 checkpoints and a file of about 1 GB. Built with one `invoke`
  (`durability="sync"`, `SqliteSaver`, a recursion limit above the loop length).
- `many-threads-v{N}.db`: 10,240 threads and more than 500,000 checkpoints. Ten template
  threads are recorded by running real graphs (an agent-style loop that completes, fails,
  is paused by `interrupt()` or stopped by the recursion limit, plus the payment, fanout,
  subgraph, Send and failing graphs of `examples/graphs.py`), with `record_effect`
  writing the effects log. Their checkpoint and write rows (real blobs, byte for byte) are
  then copied under new thread ids with `INSERT ... SELECT`, interleaved by checkpoint id
  the way concurrent workers interleave them in a production file.
- `many-threads-v{N}.effects.jsonl`: the recorded effect lines of the templates, replicated
  per new thread id (thread id, and an idempotency key that embeds it, rewritten; step,
  task id and timestamps kept, so the lines align with the copied checkpoints), whole
  threads taken until the log holds at least 1,000,000 lines, sorted by time.

`ensure_fixtures()` builds what is missing. `python bench/fixtures.py [--force]` builds
from the command line. The fixture files are never written after they are built: the
benchmark runs LangGraph's routes (whose `SqliteSaver.setup()` writes) on copies.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import operator
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Annotated, Any

from typing_extensions import TypedDict

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `examples` lives at the project root
    sys.path.insert(0, str(ROOT))

VERSION = 1
CACHE = Path(__file__).resolve().parent / ".cache"
STAMP = CACHE / f"fixtures-v{VERSION}.json"
BIG_DB = CACHE / f"big-thread-v{VERSION}.db"
MANY_DB = CACHE / f"many-threads-v{VERSION}.db"
EFFECTS = CACHE / f"many-threads-v{VERSION}.effects.jsonl"

# -- the 1 GB thread ------------------------------------------------------------------
BIG_THREAD_ID = "agent-big"
BIG_TOOL_CALLS = 1500  # agent + tool per call: 2 * 1500 + 3 checkpoints
MESSAGE_CHARS = 200

# -- the many-threads database --------------------------------------------------------
LOOP_CALLS = 32  # tool calls of a completed loop thread
TEMPLATE_COPIES: dict[str, int] = {
    # name: copies. Loop threads carry the checkpoint count, the small graphs the variety.
    "loop-done": 4096,
    "loop-failed": 2048,
    "loop-stopped": 1536,
    "loop-paused": 1536,
    "payment-paused": 256,
    "payment-done": 256,
    "fanout": 128,
    "subgraph": 128,
    "send": 128,
    "failing": 128,
}
MIN_THREADS = 10_000
MIN_CHECKPOINTS = 500_000
EFFECT_LINES = 1_000_000


# ======================================================================================
# Graphs. The LangGraph routes in run.py compile the same builders to read the threads.
# ======================================================================================
class AgentState(TypedDict, total=False):
    """A tool-calling agent's state: the whole message list, appended to at every step."""

    messages: Annotated[list[dict[str, Any]], operator.add]
    turns: int


def _message(role: str, turn: int, chars: int = MESSAGE_CHARS) -> dict[str, Any]:
    head = f"{role} turn {turn}: "
    body = "The quick brown fox checks the invoice ledger and calls the search tool again. "
    return {"role": role, "content": (head + body * (chars // len(body) + 1))[:chars]}


def tool_loop(calls: int = BIG_TOOL_CALLS) -> Any:
    """agent -> tool -> agent ... `calls` times, then END: a StateGraph builder."""
    from langgraph.constants import END

    from replaylens.examples.graphs import agent_tool_loop

    def agent(state: AgentState) -> dict[str, Any]:
        return {"messages": [_message("assistant", state.get("turns", 0))]}

    def route(state: AgentState) -> str:
        return "tool" if state.get("turns", 0) < calls else END

    def tool(state: AgentState) -> dict[str, Any]:
        turn = state.get("turns", 0)
        return {"messages": [_message("tool", turn)], "turns": turn + 1}

    return agent_tool_loop(AgentState, agent, tool, route)


class LoopState(TypedDict, total=False):
    """The agent loop of the many-threads templates; the input decides how a run ends."""

    visited: Annotated[list[str], operator.add]
    calls: int
    limit: int
    fail_at: int  # the tool raises on this call
    ask_at: int  # the agent asks a human (interrupt) before this call


def agent_loop() -> Any:
    """call_model / call_tool loop recording its effects; ends, fails or pauses per input."""
    from langgraph.constants import END
    from langgraph.types import interrupt

    from replaylens import record_effect
    from replaylens.examples.graphs import agent_tool_loop

    def agent(state: LoopState) -> dict[str, Any]:
        with record_effect("call_model"):
            if state.get("calls", 0) == state.get("ask_at", -1):
                interrupt(
                    {"question": "approve the next tool call?", "calls": state.get("calls", 0)}
                )
        return {"visited": ["agent"]}

    def route(state: LoopState) -> str:
        return END if state.get("calls", 0) >= state.get("limit", LOOP_CALLS) else "tool"

    def tool(state: LoopState) -> dict[str, Any]:
        calls = state.get("calls", 0) + 1
        with record_effect("call_tool", call=calls):
            if calls == state.get("fail_at", -1):
                raise RuntimeError(f"tool failed on call {calls}")
        return {"visited": ["tool"], "calls": calls}

    return agent_tool_loop(LoopState, agent, tool, route)


def _example(name: str) -> Callable[[], Any]:
    def factory() -> Any:
        from examples import graphs

        return graphs.ALL[name]()

    return factory


# template name -> (builder factory, input, invoke options, resume value or None)
TEMPLATES: dict[str, tuple[Callable[[], Any], dict[str, Any], dict[str, Any], Any]] = {
    "loop-done": (agent_loop, {"visited": [], "calls": 0, "limit": LOOP_CALLS}, {}, None),
    "loop-failed": (
        agent_loop,
        {"visited": [], "calls": 0, "limit": LOOP_CALLS, "fail_at": 28},
        {},
        None,
    ),
    "loop-stopped": (
        agent_loop,
        {"visited": [], "calls": 0, "limit": LOOP_CALLS},
        {"recursion_limit": 52},
        None,
    ),
    "loop-paused": (
        agent_loop,
        {"visited": [], "calls": 0, "limit": LOOP_CALLS, "ask_at": 26},
        {},
        None,
    ),
    "payment-paused": (_example("payment"), {"invoice_id": "inv-0001", "visited": []}, {}, None),
    "payment-done": (_example("payment"), {"invoice_id": "inv-0001", "visited": []}, {}, True),
    "fanout": (_example("fanout"), {"visited": []}, {}, None),
    "subgraph": (_example("subgraph"), {"visited": []}, {}, None),
    "send": (_example("send_map_reduce"), {"items": []}, {}, None),
    "failing": (_example("failing"), {"visited": []}, {}, None),
}


def template_of(thread_id: str) -> str:
    """'loop-done-00042' -> 'loop-done'."""
    return thread_id.rsplit("-", 1)[0]


def builder_for_thread(thread_id: str) -> Any:
    """The graph that wrote `thread_id` in the many-threads database (for get_state)."""
    return TEMPLATES[template_of(thread_id)][0]()


def thread_ids() -> list[str]:
    return [f"{name}-{i:05d}" for name, n in TEMPLATE_COPIES.items() for i in range(n)]


# ======================================================================================
# Building
# ======================================================================================
def _log(msg: str) -> None:
    print(f"[fixtures] {msg}", file=sys.stderr, flush=True)


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _read_stamp() -> dict[str, Any]:
    try:
        data = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return {}
    return data if data.get("version") == VERSION else {}


def _write_stamp(key: str, info: dict[str, Any]) -> None:
    data = _read_stamp() or {"version": VERSION}
    data[key] = info
    STAMP.write_text(json.dumps(data, indent=1) + "\n")


def _db_stats(path: Path) -> dict[str, Any]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)) as conn:
        threads, checkpoints = conn.execute(
            "SELECT COUNT(DISTINCT thread_id), COUNT(*) FROM checkpoints"
        ).fetchone()
        writes = conn.execute("SELECT COUNT(*) FROM writes").fetchone()[0]
    return {
        "threads": threads,
        "checkpoints": checkpoints,
        "writes": writes,
        "bytes": path.stat().st_size,
    }


def build_big_thread(target: Path = BIG_DB) -> dict[str, Any]:
    """One invoke of the tool loop, every checkpoint written before the next step."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    tmp = target.with_name(target.name + ".building")
    _remove_db(tmp)
    started = time.perf_counter()
    _log(f"building {target.name}: {BIG_TOOL_CALLS} tool calls, {MESSAGE_CHARS}-char messages ...")
    with SqliteSaver.from_conn_string(str(tmp)) as saver:
        graph = tool_loop(BIG_TOOL_CALLS).compile(checkpointer=saver)
        graph.invoke(
            {"messages": [_message("user", 0)], "turns": 0},
            {
                "configurable": {"thread_id": BIG_THREAD_ID},
                "recursion_limit": 4 * BIG_TOOL_CALLS + 10,
            },
            durability="sync",
        )
    _remove_db(target)
    os.replace(tmp, target)
    info = {
        **_db_stats(target),
        "thread_id": BIG_THREAD_ID,
        "tool_calls": BIG_TOOL_CALLS,
        "message_chars": MESSAGE_CHARS,
        "build_seconds": round(time.perf_counter() - started, 1),
    }
    _log(f"built {target.name}: {info}")
    return info


def record_postgres_templates(dsn: str) -> None:
    """The template threads written through a real PostgresSaver into the database at `dsn`
    (its own `setup()` makes the schema): the rows the Postgres scale fixtures copy."""
    from langgraph.checkpoint.postgres import PostgresSaver

    with tempfile.TemporaryDirectory(prefix="bench-pg-") as work:
        with PostgresSaver.from_conn_string(dsn) as saver:
            saver.setup()
            _record_templates(Path(work) / "unused.db", Path(work) / "effects.jsonl", saver=saver)


def _record_templates(db: Path, log: Path, saver: Any = None) -> None:
    """Run every template graph once, under the thread id 'tpl-<name>' (into `saver` if given,
    a PostgresSaver for instance, else a SqliteSaver on `db`)."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.errors import GraphRecursionError
    from langgraph.types import Command

    os.environ["REPLAYLENS_EFFECTS_LOG"] = str(log)
    os.environ["REPLAYLENS_EXAMPLE_SLEEP"] = "0"
    os.environ["REPLAYLENS_EXAMPLE_FAIL"] = "1"
    with (
        contextlib.nullcontext(saver)
        if saver is not None
        else SqliteSaver.from_conn_string(str(db)) as saver
    ):
        for name, (factory, inputs, options, resume) in TEMPLATES.items():
            graph = factory().compile(checkpointer=saver)
            config = {"configurable": {"thread_id": f"tpl-{name}"}, **options}
            try:
                graph.invoke(inputs, config, durability="sync")
                if resume is not None:
                    graph.invoke(Command(resume=resume), config, durability="sync")
            except (RuntimeError, GraphRecursionError) as exc:  # failing / stopped on purpose
                _log(f"template {name}: stopped with {type(exc).__name__} (intended)")


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def build_many_threads(target: Path = MANY_DB, effects: Path = EFFECTS) -> dict[str, Any]:
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="replaylens-bench-"))
    try:
        tpl_db, tpl_log = work / "templates.db", work / "templates.effects.jsonl"
        _log("recording the template threads with real graphs ...")
        _record_templates(tpl_db, tpl_log)

        tmp = target.with_name(target.name + ".building")
        _remove_db(tmp)
        conn = sqlite3.connect(tmp, isolation_level=None)  # autocommit: one statement each
        conn.execute("PRAGMA journal_mode=WAL")  # as SqliteSaver.setup() leaves a file
        conn.execute("PRAGMA temp_store=FILE")
        conn.execute("PRAGMA cache_size=-262144")  # 256 MB for the sort
        conn.execute(f"ATTACH DATABASE '{tpl_db}' AS tpl")
        for (sql,) in conn.execute(
            "SELECT sql FROM tpl.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY type = 'index'"
        ).fetchall():
            conn.execute(sql)
        conn.execute("CREATE TEMP TABLE plan (new_tid TEXT NOT NULL, src_tid TEXT NOT NULL)")
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO plan VALUES (?, ?)",
            [(tid, f"tpl-{template_of(tid)}") for tid in thread_ids()],
        )
        conn.execute("COMMIT")
        for table, order in (
            ("checkpoints", "s.checkpoint_id, p.new_tid"),
            ("writes", "s.checkpoint_id, p.new_tid, s.task_id, s.idx"),
        ):
            cols = _columns(conn, table)
            select = ", ".join("p.new_tid" if c == "thread_id" else f"s.{c}" for c in cols)
            _log(f"replicating {table} ...")
            conn.execute(
                f"INSERT INTO main.{table} ({', '.join(cols)}) SELECT {select} FROM tpl.{table} s "
                f"JOIN plan p ON p.src_tid = s.thread_id ORDER BY {order}"
            )
        conn.execute("DETACH DATABASE tpl")
        conn.close()
        _remove_db(target)
        os.replace(tmp, target)
        info = _db_stats(target)
        if info["threads"] < MIN_THREADS or info["checkpoints"] < MIN_CHECKPOINTS:
            raise SystemExit(f"many-threads fixture too small: {info}")

        _log("replicating the effects log ...")
        info["effect_lines"] = _replicate_effects(tpl_log, effects)
        info["effects_bytes"] = effects.stat().st_size
        per_template = {}
        with closing(sqlite3.connect(f"file:{tpl_db}?mode=ro&immutable=1", uri=True)) as tconn:
            for tid, n in tconn.execute(
                "SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id"
            ):
                per_template[tid.removeprefix("tpl-")] = n
        info["template_checkpoints"] = per_template
        info["template_copies"] = TEMPLATE_COPIES
        info["build_seconds"] = round(time.perf_counter() - started, 1)
        _log(f"built {target.name}: {info}")
        return info
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _replicate_effects(template_log: Path, target: Path) -> int:
    by_template: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for raw in template_log.read_text().splitlines():
        if raw.strip():
            obj = json.loads(raw)
            by_template[obj["thread_id"].removeprefix("tpl-")].append(obj)
    # Whole threads, round-robin over the templates (a log shared by many workers),
    # until the log holds EFFECT_LINES lines.
    queues = {name: [f"{name}-{i:05d}" for i in range(n)] for name, n in TEMPLATE_COPIES.items()}
    chosen: list[str] = []
    total = 0
    while total < EFFECT_LINES and any(queues.values()):
        for name, queue in queues.items():
            if queue and total < EFFECT_LINES:
                tid = queue.pop(0)
                chosen.append(tid)
                total += len(by_template[name])
    out: list[tuple[float, str, str]] = []
    for tid in chosen:
        src = f"tpl-{template_of(tid)}"
        for obj in by_template[template_of(tid)]:
            line = dict(obj, thread_id=tid)
            if isinstance(line.get("idempotency_key"), str):
                line["idempotency_key"] = line["idempotency_key"].replace(src, tid)
            out.append((line["ts"], tid, json.dumps(line, ensure_ascii=False)))
    out.sort(key=lambda t: (t[0], t[1]))
    tmp = target.with_name(target.name + ".building")
    with open(tmp, "w") as fh:
        fh.writelines(f"{text}\n" for _, _, text in out)
    os.replace(tmp, target)
    return len(out)


# -- scale (issue 17): 1k / 10k / 100k threads, and threads of 300 / 3,000 / 30,000 checkpoints
SCALE_COPIES = 10  # 10 x the 10,240 threads of many-threads: 102,400 threads, ~5.6M checkpoints
SCALE_DB = CACHE / f"scale-100k-v{VERSION}.db"
SMALL_DB = CACHE / f"scale-1k-v{VERSION}.db"
SMALL_THREADS = 1_024
LONG_LENGTHS = (300, 3_000, 30_000)
LONG_THREAD_ID = "long"


def long_db(checkpoints: int) -> Path:
    return CACHE / f"long-{checkpoints}-v{VERSION}.db"


def _copy_schema(conn: sqlite3.Connection) -> None:
    for (sql,) in conn.execute(
        "SELECT sql FROM src.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index'"
    ).fetchall():
        conn.execute(sql)


def build_scaled(
    target: Path, copies: int = SCALE_COPIES, limit: int | None = None
) -> dict[str, Any]:
    """The many-threads rows (real blobs of real graphs) copied `copies` times under new thread
    ids (`<id>~<k>`), or `limit` of its threads (every k-th); one INSERT ... SELECT per table."""
    started = time.perf_counter()
    tmp = target.with_name(target.name + ".building")
    _remove_db(tmp)
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=OFF")  # a scratch build: a crash means a rebuild
        conn.execute("PRAGMA cache_size=-524288")
        conn.execute("ATTACH DATABASE ? AS src", (f"file:{MANY_DB}?mode=ro&immutable=1",))
        _copy_schema(conn)
        conn.execute("CREATE TEMP TABLE k (k INTEGER)")
        conn.executemany("INSERT INTO k VALUES (?)", [(i,) for i in range(copies)])
        conn.execute("CREATE TEMP TABLE keep (thread_id TEXT PRIMARY KEY)")
        # Every k-th thread, so a subset keeps the mix of graphs and statuses.
        every = 1 if not limit else max(1, MIN_THREADS // int(limit))
        conn.execute("INSERT INTO keep SELECT thread_id FROM (SELECT thread_id, row_number() OVER "
                     "(ORDER BY thread_id) AS r FROM (SELECT DISTINCT thread_id FROM src.checkpoints)) "
                     f"WHERE r % {every} = 0" + (f" LIMIT {int(limit)}" if limit else ""))  # fmt: skip
        rename = "s.thread_id" if copies == 1 else "s.thread_id || '~' || k.k"
        for table in ("checkpoints", "writes"):
            cols = _columns(conn, table)
            select = ", ".join(rename if c == "thread_id" else f"s.{c}" for c in cols)
            _log(f"{target.name}: copying {table} x{copies} ...")
            conn.execute("BEGIN")
            conn.execute(
                f"INSERT INTO main.{table} ({', '.join(cols)}) SELECT {select} FROM k CROSS JOIN src.{table} s "
                "WHERE s.thread_id IN (SELECT thread_id FROM keep)"
            )
            conn.execute("COMMIT")
        conn.execute("DETACH DATABASE src")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    _remove_db(target)
    os.replace(tmp, target)
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    info = {
        **_db_stats(target),
        "copies": copies,
        "build_seconds": round(time.perf_counter() - started, 1),
    }
    _log(f"built {target.name}: {info}")
    return info


class CounterState(TypedDict, total=False):
    n: int
    last: str


def counter_loop(limit: int) -> Any:
    """A two-node loop whose state stays small (a counter and the last message), so that a
    thread's cost grows with its checkpoint count, not with a growing message list."""
    from langgraph.graph import END

    from replaylens.examples.graphs import agent_tool_loop

    def agent(state: CounterState) -> dict[str, Any]:
        return {"n": state.get("n", 0) + 1, "last": f"agent turn {state.get('n', 0)}: " + "x" * 150}

    def tool(state: CounterState) -> dict[str, Any]:
        return {"last": f"tool result {state.get('n', 0)}: " + "y" * 150}

    return agent_tool_loop(
        CounterState, agent, tool, lambda s: "tool" if s.get("n", 0) < limit else END
    )


def build_long_thread(checkpoints: int) -> dict[str, Any]:
    """One invoke of the counter loop with about `checkpoints` checkpoints (durability sync)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    target = long_db(checkpoints)
    tmp = target.with_name(target.name + ".building")
    _remove_db(tmp)
    started = time.perf_counter()
    calls = max(1, (checkpoints - 3) // 2)
    with SqliteSaver.from_conn_string(str(tmp)) as saver:
        counter_loop(calls).compile(checkpointer=saver).invoke(
            {"n": 0},
            {"configurable": {"thread_id": LONG_THREAD_ID}, "recursion_limit": 2 * calls + 10},
            durability="sync",
        )
    _remove_db(target)
    os.replace(tmp, target)
    info = {**_db_stats(target), "build_seconds": round(time.perf_counter() - started, 1)}
    _log(f"built {target.name}: {info}")
    return info


def ensure_scale(force: bool = False) -> dict[str, Any]:
    """The scale fixtures (built after the many-threads one, from its rows)."""
    ensure_fixtures()
    stamp = _read_stamp()
    if force or "scale_1k" not in stamp or not SMALL_DB.exists():
        _write_stamp("scale_1k", build_scaled(SMALL_DB, copies=1, limit=SMALL_THREADS))
    for n in LONG_LENGTHS:
        if force or f"long_{n}" not in _read_stamp() or not long_db(n).exists():
            _write_stamp(f"long_{n}", build_long_thread(n))
    if force or "scale_100k" not in _read_stamp() or not SCALE_DB.exists():
        _write_stamp("scale_100k", build_scaled(SCALE_DB))
    return _read_stamp()


def ensure_fixtures(force: bool = False) -> dict[str, Any]:
    """Build the fixtures that are missing (or all with `force`); return the stamp."""
    CACHE.mkdir(parents=True, exist_ok=True)
    stamp = _read_stamp()
    if force or "big" not in stamp or not BIG_DB.exists():
        _write_stamp("big", build_big_thread())
    stamp = _read_stamp()
    if force or "many" not in stamp or not MANY_DB.exists() or not EFFECTS.exists():
        _write_stamp("many", build_many_threads())
    return _read_stamp()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the benchmark fixtures in bench/.cache/.")
    parser.add_argument("--force", action="store_true", help="Rebuild even if cached.")
    parser.add_argument(
        "--only", choices=["big", "many", "scale"], help="Build only this fixture (forced)."
    )
    args = parser.parse_args(argv)
    CACHE.mkdir(parents=True, exist_ok=True)
    if args.only == "big":
        _write_stamp("big", build_big_thread())
    elif args.only == "many":
        _write_stamp("many", build_many_threads())
    elif args.only == "scale":
        ensure_scale()
    else:
        ensure_fixtures(force=args.force)
    print(json.dumps(_read_stamp(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
