"""Next tasks and status from the user's own graph code: LangGraph's answer beside the rows'.

Opt-in (`--graph module:attribute`, the dashboard's graph field): the compiled graph is
imported the way `langgraph dev` loads it, in a child process
(`replaylens.analysis._graph_worker`), and LangGraph itself is asked `get_state_history`
for every namespace of the thread and `get_state` for its latest state, through a saver
over the same read-only connection that refuses every write. JSON comes back through the
pipe, never pickle. Nothing here runs without a graph given: a database alone never
imports any code.

Where both sources answer, `differences` says where they differ: they are the check on
each other (the rows derive what the writing release did; the graph code is what the
LangGraph installed here does, which for a database written by 0.2 is today's resume).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from replaylens.analysis.status import ThreadStatus, ThreadSummary, status_of_tasks
from replaylens.errors import ReplaylensError
from replaylens.model import TaskStatus, Thread
from replaylens.sources import CheckpointSource

GRAPH_HEADER = "next tasks from your graph code"
"""Said in every page header and CLI heading when the graph's code answers."""

GRAPH_TIMEOUT_S = 300.0
"""How long the child may take to import the graph and answer before it is stopped."""


class GraphError(ReplaylensError):
    """The graph code could not be imported or could not answer."""


@dataclass(frozen=True)
class GraphTask:
    """One task of a StateSnapshot, as LangGraph lists it."""

    task_id: str
    name: str
    error: str | None
    interrupts: int
    has_result: bool

    @property
    def status(self) -> TaskStatus:
        """LangGraph's own split: a result is a finished task, an error a failed one."""
        if self.has_result:
            return "finished"
        if self.error:
            return "failed"
        if self.interrupts:
            return "interrupted"
        return "pending"


@dataclass(frozen=True)
class GraphCheckpoint:
    """One StateSnapshot of `get_state_history` (or the live `get_state`)."""

    checkpoint_id: str
    checkpoint_ns: str
    step: int | None
    next: tuple[str, ...]
    tasks: tuple[GraphTask, ...]

    @property
    def task_pairs(self) -> list[tuple[str, str]]:
        return sorted((t.name, t.task_id) for t in self.tasks)


def _checkpoint(doc: dict[str, Any]) -> GraphCheckpoint:
    return GraphCheckpoint(
        str(doc.get("checkpoint_id") or ""),
        str(doc.get("checkpoint_ns") or ""),
        doc.get("step") if isinstance(doc.get("step"), int) else None,
        tuple(str(n) for n in doc.get("next") or ()),
        tuple(
            GraphTask(
                str(t["id"]),
                str(t["name"]),
                t.get("error") if isinstance(t.get("error"), str) else None,
                int(t.get("interrupts") or 0),
                bool(t.get("has_result")),
            )
            for t in doc.get("tasks") or ()
        ),
    )


@dataclass
class GraphAnswer:
    """LangGraph's answer for one thread, from the user's graph code."""

    thread_id: str
    graph: str
    checkpoints: dict[tuple[str, str], GraphCheckpoint] = field(default_factory=dict)
    newest_root: GraphCheckpoint | None = None  # get_state_history's first root snapshot
    latest: GraphCheckpoint | None = None  # the live get_state
    errors: list[str] = field(default_factory=list)
    langgraph: str = "?"  # the LangGraph release that answered (the one installed here)
    cached_nodes: list[str] = field(default_factory=list)
    """Nodes the graph takes from a node cache that outlives the process (`node_cache`)."""
    nodes: list[str] = field(default_factory=list)
    """The names of the graph's nodes and its subgraphs' (`Recording.graph_nodes`)."""

    def at(self, checkpoint_ns: str, checkpoint_id: str) -> GraphCheckpoint | None:
        return self.checkpoints.get((checkpoint_ns, checkpoint_id))

    @property
    def status(self) -> ThreadStatus:
        """The thread's status as LangGraph lists the checkpoint a resume loads (the same
        rule as the rows' status, over LangGraph's own tasks; never `unknown`)."""
        if self.newest_root is None:
            return "needs_restart"
        return status_of_tasks([t.status for t in self.newest_root.tasks])


def _answer(thread_id: str, graph: str, doc: dict[str, Any]) -> GraphAnswer:
    answer = GraphAnswer(thread_id, graph, errors=[str(e) for e in doc.get("errors") or ()])
    for ns, snaps in (doc.get("history") or {}).items():
        for i, snap in enumerate(snaps):
            cp = _checkpoint(snap)
            answer.checkpoints[(str(ns), cp.checkpoint_id)] = cp
            if ns == "" and i == 0:
                answer.newest_root = cp
    if doc.get("latest"):
        answer.latest = _checkpoint(doc["latest"])
    return answer


_WORKER_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from replaylens.analysis._graph_worker import main; sys.exit(main())"
)


def _asked(
    source: CheckpointSource,
    graph: str,
    threads: dict[str, list[str]],
    *,
    newest_only: bool = False,
    timeout: float = GRAPH_TIMEOUT_S,
) -> dict[str, Any]:
    """The child process's JSON answer for `threads` (`ask_graph`)."""
    import replaylens

    spec = source.reopen_spec()
    if spec is None:
        raise GraphError(
            f"--graph cannot read {source.label}: replaylens reads a private copy of it (see the note "
            "above), which another process cannot open."
        )
    payload = orjson.dumps(
        {
            "graph": graph,
            "spec": spec[0],
            "key": spec[1].hex() if spec[1] is not None else None,
            "threads": threads,
            "limit": 1 if newest_only else None,
        }
    )
    package_root = str(Path(replaylens.__file__).resolve().parents[1])
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_BOOT, package_root],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=os.getcwd(),
        )
    except OSError as exc:
        raise GraphError(f"--graph {graph}: the child process cannot start ({exc}).") from None
    try:
        out, err = proc.communicate(payload, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=5)
        raise GraphError(
            f"--graph {graph}: the graph code did not answer within {timeout:.0f} s and was stopped."
        ) from None
    try:
        doc = orjson.loads(out)
    except orjson.JSONDecodeError:
        tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise GraphError(
            f"--graph {graph}: the child process ended with code {proc.returncode} ({tail[0][:300]})."
        ) from None
    if not isinstance(doc, dict):
        raise GraphError(f"--graph {graph}: the child process answered no JSON object.")
    if doc.get("error"):
        raise GraphError(f"--graph {graph}: {str(doc['error'])[:500]}")
    return doc


def ask_graph(
    source: CheckpointSource,
    graph: str,
    threads: dict[str, list[str]],
    *,
    newest_only: bool = False,
    timeout: float = GRAPH_TIMEOUT_S,
) -> dict[str, GraphAnswer]:
    """LangGraph's answer for `threads` (thread id -> its namespaces), from the graph named
    `graph` (`module:attribute` or `file.py:attribute`), asked in a child process.
    `newest_only`: each namespace's newest snapshot alone (the thread list's status)."""
    doc = _asked(source, graph, threads, newest_only=newest_only, timeout=timeout)
    found = doc.get("threads") or {}
    release = str(doc.get("langgraph") or "?")
    answers = {tid: _answer(tid, graph, found.get(tid) or {}) for tid in threads}
    for answer in answers.values():
        answer.langgraph = release
        answer.cached_nodes, answer.nodes = _names(doc, "cached_nodes"), _names(doc, "nodes")
    return answers


def graph_facts(source: CheckpointSource, graph: str) -> tuple[list[str], list[str]]:
    """What the graph code tells that no database shows, asked of it alone (no thread), the
    same for every thread: (the nodes a node cache that outlives the process serves
    (`node_cache`), the names of its nodes and its subgraphs'), for `Recording.told_by_graph`."""
    doc = _asked(source, graph, {})
    return _names(doc, "cached_nodes"), _names(doc, "nodes")


def _names(doc: dict[str, Any], key: str) -> list[str]:
    named = doc.get(key)
    return [str(n) for n in named] if isinstance(named, list) else []


def ask_thread(source: CheckpointSource, graph: str, thread: Thread) -> GraphAnswer:
    """LangGraph's answer for every namespace of one thread."""
    return ask_graph(source, graph, {thread.thread_id: sorted(thread.namespaces)})[thread.thread_id]


@dataclass(frozen=True)
class Difference:
    """One checkpoint where the rows and the graph code say different things."""

    checkpoint_ns: str
    checkpoint_id: str
    step: int | None
    sentence: str

    def to_json(self) -> dict[str, Any]:
        return {
            "checkpoint_ns": self.checkpoint_ns,
            "checkpoint_id": self.checkpoint_id,
            "step": self.step,
            "sentence": self.sentence,
        }


def _task_words(pairs: list[tuple[str, str]]) -> str:
    return ", ".join(f"{name or '(unnamed)'} ({tid})" for name, tid in pairs)


def differences(thread: Thread, answer: GraphAnswer) -> list[Difference]:
    """Every checkpoint where LangGraph's tasks (names, ids, finished or not) differ from the
    ones derived from the rows, and checkpoints one side has and the other has not."""
    out: list[Difference] = []
    for ns in thread.namespaces.values():
        for cp in ns.checkpoints:
            theirs = answer.at(ns.name, cp.checkpoint_id)
            if theirs is None:
                out.append(Difference(ns.name, cp.checkpoint_id, cp.step,
                                      "LangGraph's get_state_history does not list this checkpoint."))  # fmt: skip
                continue
            foreseen = [t for t in cp.tasks if t.kind != "call"]
            mine = sorted((t.node, t.task_id) for t in foreseen)
            today = sorted((t.node, t.today_task_id or t.task_id) for t in foreseen)
            parts: list[str] = []
            if cp.next_unknown:
                parts.append("the rows cannot tell the next task here; LangGraph lists "
                             + (_task_words(theirs.task_pairs) or "none"))  # fmt: skip
            elif mine != theirs.task_pairs and today == theirs.task_pairs:
                changed = sorted({t.node for t in foreseen if t.today_task_id})
                parts.append(
                    f"today's resume: the LangGraph installed here lists {', '.join(changed)} under the "
                    "new ids the rows predict for it (it renames this pre-v3 checkpoint's channels), so it "
                    "finds no write saved under the writing release's ids and runs those tasks as new"
                )
            elif mine != theirs.task_pairs:
                only_theirs = [p for p in theirs.task_pairs if p not in mine]
                only_mine = [p for p in mine if p not in theirs.task_pairs]
                if only_theirs:
                    parts.append(f"LangGraph lists {_task_words(only_theirs)}, the rows do not")
                if only_mine:
                    parts.append(f"the rows derive {_task_words(only_mine)}, LangGraph does not")
            by_id = {t.task_id: t for t in cp.tasks}
            for t in theirs.tasks:
                derived = by_id.get(t.task_id)
                if derived is not None and (derived.status == "finished") != (
                    t.status == "finished"
                ):
                    parts.append(
                        f"{t.name} is {t.status} in LangGraph's snapshot, {derived.status} in the rows"
                    )
            if parts:
                out.append(Difference(ns.name, cp.checkpoint_id, cp.step, "; ".join(parts) + "."))
    known = {
        (ns.name, cp.checkpoint_id) for ns in thread.namespaces.values() for cp in ns.checkpoints
    }
    for (ns_name, cid), theirs in sorted(answer.checkpoints.items()):
        if (ns_name, cid) not in known:
            out.append(Difference(ns_name, cid, theirs.step,
                                  "LangGraph lists this checkpoint; the rows read here do not hold it."))  # fmt: skip
    return out


def status_sentence(rows_status: str, answer: GraphAnswer) -> str:
    """How the two statuses compare, in one sentence for the page header and the CLI."""
    if rows_status == answer.status:
        return f"Status {answer.status}: the rows and your graph code agree."
    if rows_status == "unknown":
        return f"Status {answer.status}, decided by your graph code (the rows alone cannot tell)."
    return (
        f"Status {answer.status} by your graph code; the rows alone say {rows_status}. "
        "They differ: see the checkpoints below."
    )


def answer_json(thread: Thread, answer: GraphAnswer, rows_status: str) -> dict[str, Any]:
    """The `from_graph` part of `--json`."""
    return {
        "graph": answer.graph,
        "langgraph": answer.langgraph,
        "cached_nodes": answer.cached_nodes,
        "nodes": answer.nodes,
        "header": GRAPH_HEADER,
        "status": answer.status,
        "rows_status": rows_status,
        "status_sentence": status_sentence(rows_status, answer),
        "errors": answer.errors,
        "checkpoints": [
            {
                "checkpoint_ns": ns,
                "checkpoint_id": cid,
                "step": cp.step,
                "next": list(cp.next),
                "tasks": [
                    {"task_id": t.task_id, "name": t.name, "status": t.status} for t in cp.tasks
                ],
            }
            for (ns, cid), cp in sorted(answer.checkpoints.items())
        ],
        "differences": [d.to_json() for d in differences(thread, answer)],
    }


def graph_summary(summary: ThreadSummary, answer: GraphAnswer) -> ThreadSummary:
    """A thread-list row with the graph code's status and due tasks (where it answered)."""
    if answer.newest_root is None and answer.errors:
        return summary  # LangGraph could not answer: the rows' row stays, the errors are said
    due = (
        tuple(t.name for t in answer.newest_root.tasks if t.status != "finished")
        if answer.newest_root
        else ()
    )
    return summary._replace(
        status=answer.status, pending=due, next_unknown=False, reason="", rows=summary.status
    )
