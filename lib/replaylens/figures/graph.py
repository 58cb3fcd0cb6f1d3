"""The graph as the checkpoints reveal it, and the checkpoint tree with its forks (DOT text).

No graph code is needed: a task that writes `branch:to:B` hands control to B, one that
writes `join:A+B:C` feeds the barrier in front of C, and a `Send` packet in
`__pregel_tasks` starts a task of its target node. Every name from the database goes
through `graphviz.nohtml` and is quoted, so `<b>` in a node name stays text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import graphviz

from replaylens.figures import colors
from replaylens.figures.timeline import ns_prefix
from replaylens.model import NULL_TASK_ID, Namespace, Thread
from replaylens.text import dot_text

if TYPE_CHECKING:
    from replaylens.analysis.plan import ResumePlan

START = "__start__"
MAX_TREE_NODES = 80


@dataclass
class GraphShape:
    """Nodes (namespace prefix, node) and edges between them, as seen in the writes."""

    nodes: dict[tuple[str, str], str] = field(default_factory=dict)  # key -> state
    edges: set[tuple[tuple[str, str], tuple[str, str], str]] = field(default_factory=set)


def _targets(channel: str) -> tuple[str, str] | None:
    """(target node, edge kind) named by a written channel, or None."""
    if channel.startswith("branch:to:"):
        return channel[len("branch:to:") :], "edge"
    if channel.startswith("join:"):
        body = channel[len("join:") :]
        _, sep, end = body.rpartition(":")
        return (end, "join") if sep else None
    return None


def _barrier_sources(channel: str) -> list[str]:
    if not channel.startswith("join:"):
        return []
    starts, sep, _ = channel[len("join:") :].rpartition(":")
    return [n for n in starts.split("+") if n] if sep else []


def infer_graph(thread: Thread, plan: ResumePlan | None = None) -> GraphShape:
    """Nodes and edges seen in the thread, each node labelled with what a resume does."""
    shape = GraphShape()
    finished: set[tuple[str, str]] = set()
    for ns in thread.namespaces.values():
        prefix = ns_prefix(ns.name)
        for cp in ns.checkpoints:
            by_id = {t.task_id: t for t in cp.tasks}
            for t in cp.tasks:
                shape.nodes.setdefault((prefix, t.node or t.label), "not reached")
                if t.status == "finished":
                    finished.add((prefix, t.node or t.label))
            for w in cp.writes:
                if w.task_id == NULL_TASK_ID:
                    continue
                writer = by_id.get(w.task_id)
                if writer is None:
                    continue
                src = (prefix, writer.node)
                target = _targets(w.channel)
                if target is not None:
                    dst = (prefix, target[0])
                    shape.nodes.setdefault(dst, "not reached")
                    shape.edges.add((src, dst, target[1]))
                    # A barrier names all its inputs: `join:p1+p2+p3:join` also implies p3 -> join.
                    for other in _barrier_sources(w.channel):
                        shape.nodes.setdefault((prefix, other), "not reached")
                        shape.edges.add(((prefix, other), dst, "join"))
                elif w.channel == "__pregel_tasks":
                    value = w.value
                    for packet in value if isinstance(value, list | tuple) else [value]:
                        node = getattr(packet, "node", None)
                        if isinstance(node, str):
                            dst = (prefix, node)
                            shape.nodes.setdefault(dst, "not reached")
                            shape.edges.add((src, dst, "Send"))
    _add_lost_steps(shape, thread, plan, finished)
    reruns, reused = _plan_sets(thread, plan)
    for key in shape.nodes:
        if key in reruns:
            shape.nodes[key] = "reruns"
        elif key in reused:
            shape.nodes[key] = "reused"
        elif key in finished:
            shape.nodes[key] = "done"
    return shape


def _add_lost_steps(shape: GraphShape, thread: Thread, plan: ResumePlan | None,
                    finished: set[tuple[str, str]]) -> None:  # fmt: skip
    """Nodes and edges only the lost steps know: orphan writes (their checkpoint never landed)
    name their writer and its edges, and the effects log names the tasks that ran there
    (a `reduce` after three `Send` tasks, say). Without this, what a resume re-runs would
    be drawn grey, as if never reached."""
    for w in thread.orphan_writes:
        kind, _, node = (w.task_path or "").partition(", ")
        if kind != "~__pregel_pull" or not node:
            continue
        src = (ns_prefix(w.checkpoint_ns), node)
        shape.nodes.setdefault(src, "not reached")
        target = _targets(w.channel)
        if target is not None:
            dst = (src[0], target[0])
            shape.nodes.setdefault(dst, "not reached")
            shape.edges.add((src, dst, target[1]))
    for a in getattr(plan, "attempts", None) or []:
        ns = a.namespace if a.namespace is not None else (a.logged_ns or "")
        key = (ns_prefix(ns), a.node)
        shape.nodes.setdefault(key, "not reached")
        if a.verdict == "kept" and a.outcome == "finished":
            finished.add(key)


def _plan_sets(
    thread: Thread, plan: ResumePlan | None
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    if plan is not None and hasattr(plan, "reruns"):
        again = {(ns_prefix(a.namespace if a.namespace is not None else (a.logged_ns or "")), a.node)
                 for a in getattr(plan, "attempts", []) if a.verdict in ("replays", "restart")}  # fmt: skip
        for w in getattr(plan, "orphan_writes", []):
            kind, _, node = (w.task_path or "").partition(", ")
            if kind == "~__pregel_pull" and node:
                again.add((ns_prefix(w.checkpoint_ns), node))
        return ({(ns_prefix(ns), t.node) for ns, t in plan.reruns} | again,
                {(ns_prefix(ns), t.node) for ns, t in plan.reused})  # fmt: skip
    root = thread.root
    latest = root.latest if root else None
    if latest is None:
        return set(), set()
    return ({("", t.node) for t in latest.tasks if t.status != "finished"},
            {("", t.node) for t in latest.tasks if t.status == "finished"})  # fmt: skip


def _node_ids(keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Plain ids (`n0`, `n1`): a ':' in an id would read as a DOT port."""
    return {key: f"n{i}" for i, key in enumerate(sorted(keys))}


def graph_dot(thread: Thread, plan: ResumePlan | None = None) -> str:
    """DOT source of the inferred graph, nodes filled by what a resume would do."""
    shape = infer_graph(thread, plan)
    dot = graphviz.Digraph("graph", graph_attr={"rankdir": "TB", "bgcolor": "transparent", "fontname": "Helvetica"},
                           node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica",
                                      "fontsize": "12"},
                           edge_attr={"fontname": "Helvetica", "fontsize": "9", "color": "#666666"})  # fmt: skip
    ids = _node_ids(list(shape.nodes))
    by_prefix: dict[str, list[tuple[str, str]]] = {}
    for key in shape.nodes:
        by_prefix.setdefault(key[0], []).append(key)
    for prefix in sorted(by_prefix):
        target = dot
        sub: graphviz.Digraph | None = None
        if prefix:
            sub = graphviz.Digraph(name=graphviz.nohtml(f"cluster_{dot_text(prefix)}"))
            sub.attr(
                label=graphviz.nohtml(f"subgraph {dot_text(prefix)}"),
                style="dashed",
                color="#999999",
            )
            target = sub
        for key in sorted(by_prefix[prefix]):
            state = shape.nodes[key]
            if key[1] == START:
                target.node(ids[key], "START", shape="circle", fillcolor="#333333",
                            fontcolor="white", fontsize="9", width="0.5")  # fmt: skip
                continue
            target.node(
                ids[key],
                graphviz.nohtml(f"{dot_text(key[1])}\n{state}"),
                fillcolor=colors.GRAPH_STATE[state],
                style="rounded,filled" + (",dashed" if state == "not reached" else ""),
                penwidth="2" if state == "reruns" else "1",
            )
        if sub is not None:
            dot.subgraph(sub)
    for src, dst, kind in sorted(shape.edges):
        attrs = (
            {"style": "dashed", "label": "Send"}
            if kind == "Send"
            else {"label": "join"}
            if kind == "join"
            else {}
        )
        dot.edge(ids[src], ids[dst], **attrs)
    return dot.source


def lineage_dot(
    ns: Namespace, *, resume_id: str | None = None, selected_id: str | None = None
) -> str:
    """The checkpoint tree of one namespace: a chain, with branches where forks happened."""
    dot = graphviz.Digraph("checkpoints", graph_attr={"rankdir": "LR", "bgcolor": "transparent"},
                           node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica",
                                      "fontsize": "10", "fillcolor": "#F0F4F8"})  # fmt: skip
    cps = ns.checkpoints
    if len(cps) > MAX_TREE_NODES:
        keep = {c.checkpoint_id for c in cps[-MAX_TREE_NODES:]} | {
            c.checkpoint_id for c in ns.forks
        }
        cps = [c for c in cps if c.checkpoint_id in keep]
        dot.node("more", f"… {len(ns.checkpoints) - len(cps)} older checkpoints", shape="plaintext")
    shown = {c.checkpoint_id for c in cps}
    ids = {c.checkpoint_id: f"c{i}" for i, c in enumerate(cps)}
    for cp in cps:
        attrs: dict[str, str] = {}
        if len(cp.children) > 1:
            attrs["fillcolor"] = "#FDE7C8"
        if cp.unreadable:
            attrs["fillcolor"] = "#DDDDDD"
        if cp.checkpoint_id == selected_id:
            attrs.update(fillcolor="#0072B2", fontcolor="white")
        if cp.checkpoint_id == resume_id:
            attrs.update(penwidth="3", color=colors.VERDICT["replays"])
        extra = "\nresume here" if cp.checkpoint_id == resume_id else ""
        fork = f"\nfork: {len(cp.children)} branches" if len(cp.children) > 1 else ""
        label = (
            f"step {cp.step} · {dot_text(cp.source or '?')}\n…{cp.checkpoint_id[-6:]}{fork}{extra}"
        )
        dot.node(ids[cp.checkpoint_id], graphviz.nohtml(label), **attrs)
    for cp in cps:
        parent = cp.parent_checkpoint_id
        if parent and parent in shown:
            dot.edge(ids[parent], ids[cp.checkpoint_id])
    return dot.source
