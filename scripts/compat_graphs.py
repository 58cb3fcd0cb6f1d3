"""Example graphs written against the API of whichever LangGraph is installed (0.2.28 to 1.2).

Run by `scripts/make_compat_fixtures.py` inside one throw-away virtual environment per
LangGraph generation; it never imports replaylens, so that the database it writes and the
truth it records come from that version alone.

    python compat_graphs.py build OUT_DIR [GRAPH ...]   # databases + truth.json
    python compat_graphs.py child DB GRAPH THREAD     # one run, killed by the parent
    python compat_graphs.py resume DB GRAPH THREAD    # invoke(None) on a copy, after the kill
    python compat_graphs.py history DIR        # add get_state_history to DIR/truth.json

Per graph one database file (threads of one graph only, so node names never mix) with a
finished thread `done` and, where the shape has one, a thread killed by SIGKILL in the
middle of a node (`killed`), a thread failed by an exception (`failed`) or paused for a
human (`paused`). For every checkpoint of every namespace the truth file records that
version's own `get_state(config)`: next, task ids, names, paths, errors, interrupts; the same as
that version's `get_state_history` lists it (`history`: what a user browsing the thread's
history sees, the list call of the saver attaching the pending writes its way); and for
each killed thread, which nodes a resume with that same version ran (`resume_ran`).
"""

from __future__ import annotations

import json
import operator
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import langgraph
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

try:  # 0.2.x has Send in constants only in its first releases
    from langgraph.types import Send
except ImportError:  # pragma: no cover - depends on the installed version
    from langgraph.constants import Send

try:  # interrupt() exists from 0.2.57; older graphs pause with interrupt_before
    from langgraph.types import interrupt
except ImportError:  # pragma: no cover
    interrupt = None

try:
    from importlib.metadata import version as _dist_version

    LANGGRAPH_VERSION = _dist_version("langgraph")
    CHECKPOINT_VERSION = _dist_version("langgraph-checkpoint")
    SQLITE_VERSION = _dist_version("langgraph-checkpoint-sqlite")
except Exception:  # pragma: no cover
    LANGGRAPH_VERSION = getattr(langgraph, "__version__", "?")
    CHECKPOINT_VERSION = SQLITE_VERSION = "?"

ENV_SLEEP = "COMPAT_SLEEP"
ENV_MARKERS = "COMPAT_MARKERS"
KILL_SLEEP = 0.6  # seconds each node stays open in a killed run
KILL_AFTER = 0.25  # seconds after the kill node's start marker the child is killed


def _node_open(name: str, fraction: float = 1.0) -> None:
    """Leave a start marker (the parent waits for it) and stay open a while."""
    markers = os.environ.get(ENV_MARKERS)
    if markers:
        Path(markers, name).write_text(str(os.getpid()))
    seconds = float(os.environ.get(ENV_SLEEP, "0")) * fraction
    if seconds > 0:
        time.sleep(seconds)


class Visited(TypedDict, total=False):
    visited: Annotated[list, operator.add]


def _visit(name: str, fraction: float = 1.0) -> Any:
    def node(state: dict) -> dict:
        _node_open(name, fraction)
        return {"visited": [name]}

    node.__name__ = name
    return node


def linear() -> StateGraph:
    b = StateGraph(Visited)
    prev = START
    for n in ("a", "b", "c", "d"):
        b.add_node(n, _visit(n))
        b.add_edge(prev, n)
        prev = n
    b.add_edge(prev, END)
    return b


def fanout() -> StateGraph:
    b = StateGraph(Visited)
    b.add_node("start", _visit("start"))
    b.add_edge(START, "start")
    for n, f in (("p1", 0.05), ("p2", 0.1), ("p3", 1.0)):
        b.add_node(n, _visit(n, f))
        b.add_edge("start", n)
    b.add_node("join", _visit("join"))
    b.add_edge(["p1", "p2", "p3"], "join")
    b.add_edge("join", END)
    return b


class LoopState(TypedDict, total=False):
    visited: Annotated[list, operator.add]
    calls: int


def _agent(state: LoopState) -> dict:
    _node_open("agent")
    return {"visited": ["agent"]}


def _tool(state: LoopState) -> dict:
    calls = state.get("calls", 0) + 1
    _node_open(f"tool{calls}")
    return {"visited": ["tool"], "calls": calls}


def _route(state: LoopState) -> str:
    return END if state.get("calls", 0) >= 3 else "tool"


def loop() -> StateGraph:
    b = StateGraph(LoopState)
    b.add_node("agent", _agent)
    b.add_node("tool", _tool)
    b.add_edge(START, "agent")
    b.add_conditional_edges("agent", _route, ["tool", END])
    b.add_edge("tool", "agent")
    return b


class MapState(TypedDict, total=False):
    items: list
    results: Annotated[list, operator.add]
    total: int


def _plan(state: MapState) -> dict:
    _node_open("plan")
    return {"items": [1, 2, 3]}


def _fan(state: MapState) -> list:
    return [Send("work", {"item": i}) for i in state["items"]]


def _work(state: dict) -> dict:
    # item 3 stays open the whole time, 1 and 2 finish early: a kill finds two done
    _node_open(f"work{state['item']}", 1.0 if state["item"] == 3 else 0.05)
    return {"results": [state["item"] * 10]}


def _reduce(state: MapState) -> dict:
    _node_open("reduce")
    return {"total": sum(state.get("results", []))}


def send() -> StateGraph:
    b = StateGraph(MapState)
    b.add_node("plan", _plan)
    b.add_node("work", _work)
    b.add_node("reduce", _reduce)
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", _fan, ["work"])
    b.add_edge("work", "reduce")
    b.add_edge("reduce", END)
    return b


class SubState(TypedDict, total=False):
    sub_visited: Annotated[list, operator.add]


class OuterState(TypedDict, total=False):
    visited: Annotated[list, operator.add]
    sub_visited: Annotated[list, operator.add]


def _sub_step(name: str) -> Any:
    def node(state: SubState) -> dict:
        _node_open(name)
        return {"sub_visited": [name]}

    node.__name__ = name
    return node


def subgraph() -> StateGraph:
    inner = StateGraph(SubState)
    inner.add_node("s1", _sub_step("s1"))
    inner.add_node("s2", _sub_step("s2"))
    inner.add_edge(START, "s1")
    inner.add_edge("s1", "s2")
    inner.add_edge("s2", END)
    b = StateGraph(OuterState)
    b.add_node("prepare", _visit("prepare"))
    b.add_node("sub", inner.compile())
    b.add_node("finish", _visit("finish"))
    b.add_edge(START, "prepare")
    b.add_edge("prepare", "sub")
    b.add_edge("sub", "finish")
    b.add_edge("finish", END)
    return b


class PayState(TypedDict, total=False):
    visited: Annotated[list, operator.add]
    approved: bool


def _approve(state: PayState) -> dict:
    _node_open("approve")
    answer = interrupt({"question": "approve?"}) if interrupt is not None else True
    return {"approved": bool(answer), "visited": ["approve"]}


def _pay_route(state: PayState) -> str:
    return "charge" if state.get("approved") else END


def payment() -> StateGraph:
    b = StateGraph(PayState)
    b.add_node("quote", _visit("quote"))
    b.add_node("approve", _approve)
    b.add_node("charge", _visit("charge"))
    b.add_edge(START, "quote")
    b.add_edge("quote", "approve")
    b.add_conditional_edges("approve", _pay_route, ["charge", END])
    b.add_edge("charge", END)
    return b


def _b_fails(state: dict) -> dict:
    _node_open("b")
    if os.environ.get("COMPAT_FAIL", "1") == "1":
        time.sleep(0.2)  # let the sibling b2 finish first: one success, one error
        raise RuntimeError("b failed on purpose")
    return {"visited": ["b"]}


def failing() -> StateGraph:
    b = StateGraph(Visited)
    b.add_node("a", _visit("a"))
    b.add_node("b", _b_fails)
    b.add_node("b2", _visit("b2", 0.0))
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("a", "b2")
    b.add_edge("b", END)
    b.add_edge("b2", END)
    return b


class QueryState(TypedDict, total=False):
    query: str
    answer: str
    docs: Annotated[list, operator.add]


def _rewrite_query(state: QueryState) -> dict:
    _node_open("rewrite_query", 0.05)
    return {"query": f"query: {state['query']}"}


def _analyzer_one(state: QueryState) -> dict:
    _node_open("analyzer_one", 0.05)
    return {"query": f"analyzed: {state['query']}"}


def _retriever_one(state: QueryState) -> dict:
    _node_open("retriever_one", 0.05)
    return {"docs": ["doc1", "doc2"]}


def _retriever_two(state: QueryState) -> dict:
    _node_open("retriever_two")
    return {"docs": ["doc3", "doc4"]}


def _qa(state: QueryState) -> dict:
    _node_open("qa", 0.05)
    if interrupt is not None:
        interrupt("")
    return {"answer": ",".join(sorted(state.get("docs", [])))}


def _rewrite_query_then(state: QueryState) -> str:
    return "retriever_two"


def migration() -> StateGraph:
    """The graph of LangGraph's own tests/test_checkpoint_migration.py (`make_state_graph`),
    written anew: rewrite_query -> analyzer_one -> retriever_one -> qa (which asks a human),
    and a conditional edge rewrite_query -> retriever_two that leads nowhere after it. Its
    saved checkpoints there are the v2 layouts this file's releases write for real."""
    b = StateGraph(QueryState)
    b.add_node("rewrite_query", _rewrite_query)
    b.add_node("analyzer_one", _analyzer_one)
    b.add_node("retriever_one", _retriever_one)
    b.add_node("retriever_two", _retriever_two)
    b.add_node("qa", _qa)
    b.add_edge(START, "rewrite_query")
    b.add_edge("rewrite_query", "analyzer_one")
    b.add_edge("analyzer_one", "retriever_one")
    b.add_conditional_edges("rewrite_query", _rewrite_query_then, ["retriever_two"])
    b.add_edge("retriever_one", "qa")
    b.add_edge("qa", END)
    return b


def _then_route(state: Visited) -> list:
    return ["w1", "w2"]


def then_barrier() -> StateGraph:
    """A conditional fan-out with `then=` (0.2 and 0.3 releases): plan -> [w1, w2], then
    collect once both are done, through the `branch:plan:<cond>::then` barrier channel."""
    b = StateGraph(Visited)
    b.add_node("plan", _visit("plan", 0.05))
    b.add_node("w1", _visit("w1", 0.05))
    b.add_node("w2", _visit("w2"))
    b.add_node("collect", _visit("collect", 0.05))
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", _then_route, ["w1", "w2"], then="collect")
    b.add_edge("collect", END)
    return b


def _supports_then() -> bool:
    import inspect

    return "then" in inspect.signature(StateGraph.add_conditional_edges).parameters


GRAPHS: dict[str, Any] = {
    "linear": linear,
    "fanout": fanout,
    "loop": loop,
    "send": send,
    "subgraph": subgraph,
    "payment": payment,
    "failing": failing,
    "migration": migration,
    **({"then": then_barrier} if _supports_then() else {}),
}
INPUTS: dict[str, dict] = {
    "linear": {"visited": []},
    "fanout": {"visited": []},
    "loop": {"visited": [], "calls": 0},
    "send": {"items": []},
    "subgraph": {"visited": []},
    "payment": {"visited": []},
    "failing": {"visited": []},
    "migration": {"query": "what is weather in sf"},
    "then": {"visited": []},
}
# graph -> the start marker after which the killed child gets SIGKILL
KILL_AT = {
    "linear": "c",
    "fanout": "p3",
    "loop": "tool2",
    "send": "work3",
    "subgraph": "s2",
    "payment": "charge",
    "migration": "retriever_two",
    "then": "w2",
}


def compile_graph(name: str, conn: sqlite3.Connection) -> Any:
    saver = SqliteSaver(conn)
    kwargs: dict[str, Any] = {"checkpointer": saver}
    if name == "payment" and interrupt is None:
        kwargs["interrupt_before"] = ["approve"]
    if name == "migration" and interrupt is None:
        kwargs["interrupt_before"] = ["qa"]
    return GRAPHS[name]().compile(**kwargs)


def _config(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}}


def run_thread(db: Path, name: str, thread: str) -> None:
    """One invoke (and for payment the human's answer), in this process."""
    conn = sqlite3.connect(str(db), check_same_thread=False)
    graph = compile_graph(name, conn)
    try:
        graph.invoke(INPUTS[name], _config(thread))
    except RuntimeError:
        pass  # the failing graph
    if name in ("payment", "migration") and thread in ("done", "killed"):
        if interrupt is not None:
            from langgraph.types import Command

            graph.invoke(Command(resume=True if name == "payment" else ""), _config(thread))
        else:
            graph.invoke(None, _config(thread))
    conn.close()


def run_killed(db: Path, name: str, thread: str, markers: Path) -> dict:
    """Start a child that runs the graph and SIGKILL it in the middle of its kill node."""
    markers.mkdir(parents=True, exist_ok=True)
    for m in markers.iterdir():
        m.unlink()
    env = dict(os.environ, **{ENV_SLEEP: str(KILL_SLEEP), ENV_MARKERS: str(markers)})
    child = subprocess.Popen([sys.executable, __file__, "child", str(db), name, thread], env=env)
    target = markers / KILL_AT[name]
    deadline = time.time() + 60
    while not target.exists() and child.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    outcome = {"kill_node": KILL_AT[name], "killed": False}
    if child.poll() is None and target.exists():
        time.sleep(KILL_AFTER)
        os.kill(child.pid, signal.SIGKILL)
        outcome["killed"] = True
    child.wait()
    outcome["returncode"] = child.returncode
    return outcome


def resume_killed(db: Path, name: str, thread: str, markers: Path, work: Path) -> list[str]:
    """Resume the killed thread, as a restarted worker would (a new process running
    `invoke(None)` on a copy of the database), and list the nodes that ran (their start
    markers). The copy keeps the fixture as the kill left it."""
    copy = work / f"{name}-resume.sqlite"
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{db}{suffix}")
        if src.exists():
            shutil.copy2(src, f"{copy}{suffix}")
    markers.mkdir(parents=True, exist_ok=True)
    for m in markers.iterdir():
        m.unlink()
    env = dict(os.environ, **{ENV_MARKERS: str(markers)})
    subprocess.run(
        [sys.executable, __file__, "resume", str(copy), name, thread],
        env=env,
        check=True,
        timeout=120,
    )
    ran = sorted(m.name for m in markers.iterdir())
    for suffix in ("", "-wal", "-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
    return ran


def resume_thread(db: Path, name: str, thread: str) -> None:
    conn = sqlite3.connect(str(db), check_same_thread=False)
    graph = compile_graph(name, conn)
    graph.invoke(None, _config(thread))
    conn.close()


def _plain(value: Any) -> Any:
    """JSON-safe copy of what get_state returned (interrupt values, errors)."""
    try:
        json.dumps(value)
        return value
    except TypeError:
        return repr(value)


def snapshot_truth(graph: Any, thread: str, ns: str, cid: str) -> dict:
    """That version's own get_state for one checkpoint."""
    config = {"configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": cid}}
    try:
        snap = graph.get_state(config)
    except Exception as exc:  # recorded, never hidden
        return {"error": f"{exc.__class__.__name__}: {exc}"}
    return _snapshot_json(snap)


def _snapshot_json(snap: Any) -> dict:
    tasks = []
    for t in snap.tasks:
        tasks.append(
            {
                "id": t.id,
                "name": t.name,
                "path": [_plain(p) for p in getattr(t, "path", ())],
                "error": repr(t.error) if getattr(t, "error", None) else None,
                "interrupts": [
                    _plain(getattr(i, "value", i)) for i in (getattr(t, "interrupts", ()) or ())
                ],
                "has_result": getattr(t, "result", None) is not None,
            }
        )
    got = (snap.config or {}).get("configurable", {})
    return {
        "next": list(snap.next),
        "tasks": tasks,
        "loaded_checkpoint_id": got.get("checkpoint_id"),
        "step": (snap.metadata or {}).get("step"),
    }


def history_truth(graph: Any, thread: str, ns: str) -> dict[str, dict]:
    """That version's own get_state_history for one namespace of one thread, by checkpoint id."""
    config = {"configurable": {"thread_id": thread, "checkpoint_ns": ns}}
    try:
        snaps = list(graph.get_state_history(config))
    except Exception as exc:  # recorded, never hidden
        return {"__error__": {"error": f"{exc.__class__.__name__}: {exc}"}}
    out: dict[str, dict] = {}
    for snap in snaps:
        doc = _snapshot_json(snap)
        if doc["loaded_checkpoint_id"]:
            out[doc["loaded_checkpoint_id"]] = doc
    # The pending writes as this release's saver attaches them to each checkpoint (its list
    # call, the one get_state_history reads): (task id, channel), in the saver's order.
    for tup in graph.checkpointer.list(config):
        cid = tup.config["configurable"]["checkpoint_id"]
        if cid in out:
            out[cid]["pending_writes"] = [
                [str(tid), str(chan)] for tid, chan, _ in (tup.pending_writes or ())
            ]
    return out


def add_history(db: Path, name: str, doc: dict) -> None:
    """Record get_state_history beside get_state on every checkpoint of `doc` (truth of `db`)."""
    conn = sqlite3.connect(str(db), check_same_thread=False)
    graph = compile_graph(name, conn)
    try:
        for thread, entry in doc["threads"].items():
            by_ns: dict[str, dict[str, dict]] = {}
            for c in entry["checkpoints"]:
                ns = c["checkpoint_ns"]
                if ns not in by_ns:
                    by_ns[ns] = history_truth(graph, thread, ns)
                found = by_ns[ns].get(c["checkpoint_id"])
                if found is None:
                    found = by_ns[ns].get("__error__", {"error": "not listed by get_state_history"})
                c["history"] = found
    finally:
        conn.close()


def history(folder: Path) -> None:
    """Add get_state_history to an existing fixture folder's truth.json, reading copies of
    its databases (an old saver's setup() creates tables: the fixtures stay as written)."""
    truth = json.loads((folder / "truth.json").read_text())
    if truth.get("langgraph") != LANGGRAPH_VERSION:
        raise SystemExit(
            f"{folder} was written by LangGraph {truth.get('langgraph')}, this is {LANGGRAPH_VERSION}"
        )
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"compat-history-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    try:
        for name, doc in truth["graphs"].items():
            copy = work / f"{name}.sqlite"
            shutil.copy2(folder / f"{name}.sqlite", copy)
            add_history(copy, name, doc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (folder / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")


def _thread_status(latest: dict | None) -> str:
    """What a resume would do, in replaylens's words, from get_state(latest) alone."""
    if latest is None:
        return "needs_restart"
    tasks = latest.get("tasks", [])
    if not latest.get("next"):
        return "completed"
    if any(t["error"] for t in tasks):
        return "failed"
    if any(t["interrupts"] for t in tasks):
        return "interrupted"
    return "resumable"


def record_truth(db: Path, name: str, runs: dict[str, dict]) -> dict:
    conn = sqlite3.connect(str(db), check_same_thread=False)
    graph = compile_graph(name, conn)
    rows = conn.execute(
        "SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id"
    ).fetchall()
    threads: dict[str, Any] = {}
    for thread, ns, cid in rows:
        entry = threads.setdefault(thread, {"checkpoints": [], **runs.get(thread, {})})
        entry["checkpoints"].append(
            {"checkpoint_ns": ns, "checkpoint_id": cid, **snapshot_truth(graph, thread, ns, cid)}
        )
    for thread, entry in threads.items():
        latest = graph.get_state(_config(thread))
        entry["latest"] = {
            "checkpoint_id": latest.config["configurable"].get("checkpoint_id")
            if latest.config
            else None,
            "next": list(latest.next),
        }
        root = [c for c in entry["checkpoints"] if c["checkpoint_ns"] == "" and "error" not in c]
        entry["status"] = _thread_status(root[-1] if root else None)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(writes)")]
    conn.close()
    doc = {"threads": threads, "writes_columns": cols}
    add_history(db, name, doc)
    return doc


def build(out: Path, only: list[str] | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    truth: dict[str, Any] = {
        "langgraph": LANGGRAPH_VERSION,
        "langgraph_checkpoint": CHECKPOINT_VERSION,
        "langgraph_checkpoint_sqlite": SQLITE_VERSION,
        "python": sys.version.split()[0],
        "graphs": {},
    }
    markers = out / ".markers"
    for name in only or GRAPHS:
        if name not in GRAPHS:
            continue  # a graph this release cannot build (`then` before 0.2 ended, after 0.3)
        db = out / f"{name}.sqlite"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        runs: dict[str, dict] = {}
        if name == "failing":
            run_thread(db, name, "failed")
            runs["failed"] = {"kind": "failed"}
        elif name in ("payment", "migration"):
            run_thread(db, name, "paused")
            runs["paused"] = {"kind": "paused"}
            run_thread(db, name, "done")
            runs["done"] = {"kind": "done"}
        else:
            run_thread(db, name, "done")
            runs["done"] = {"kind": "done"}
        if name in KILL_AT:
            runs["killed"] = {"kind": "killed", **run_killed(db, name, "killed", markers)}
        truth["graphs"][name] = record_truth(db, name, runs)
        if runs.get("killed", {}).get("killed"):
            truth["graphs"][name]["threads"]["killed"]["resume_ran"] = resume_killed(
                db, name, "killed", markers, out
            )
        conn = sqlite3.connect(str(db))
        conn.execute("VACUUM")  # our own file, closed by every writer: keep the fixture small
        conn.close()
    for m in markers.glob("*"):
        m.unlink()
    markers.rmdir()
    (out / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")


def main(argv: list[str]) -> None:
    if argv[0] == "build":
        build(Path(argv[1]), argv[2:] or None)
    elif argv[0] == "child":
        run_thread(Path(argv[1]), argv[2], argv[3])
    elif argv[0] == "resume":
        resume_thread(Path(argv[1]), argv[2], argv[3])
    elif argv[0] == "history":
        history(Path(argv[1]))
    else:
        raise SystemExit(f"unknown command {argv[0]!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
