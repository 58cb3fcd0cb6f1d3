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

from replaylens import channels
from replaylens.figures import colors
from replaylens.figures.timeline import ns_prefix
from replaylens.model import NULL_TASK_ID, Namespace, Thread
from replaylens.sources import WriteRecord
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
    if (node := channels.edge_to(channel)) is not None:
        return node, "edge"
    if (node := channels.join_node(channel)) is not None:
        return node, "join"
    return None


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
                if t.done:
                    finished.add((prefix, t.node or t.label))
            for w in cp.writes:
                if w.task_id == NULL_TASK_ID:
                    continue
                writer = by_id.get(w.task_id)
                if writer is not None:
                    _add_write_edges(shape, (prefix, writer.node), w)
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
    attempt_nodes = {a.task_id: a.node for a in getattr(plan, "attempts", None) or [] if a.task_id}
    for ns in thread.namespaces.values():
        prefix = ns_prefix(ns.name)
        for w in ns.orphan_writes:
            if w.task_id == NULL_TASK_ID:
                continue
            node = _orphan_writer(ns, w) or attempt_nodes.get(w.task_id)
            if node:
                src = (prefix, node)
                shape.nodes.setdefault(src, "not reached")
                _add_write_edges(shape, src, w)
    for a in getattr(plan, "attempts", None) or []:
        ns = a.namespace if a.namespace is not None else (a.logged_ns or "")
        key = (ns_prefix(ns), a.node)
        shape.nodes.setdefault(key, "not reached")
        if a.verdict == "kept" and a.outcome == "finished":
            finished.add(key)


def _add_write_edges(shape: GraphShape, src: tuple[str, str], w: WriteRecord) -> None:
    """The edges one write reveals, the same for a landed step's writes and a lost one's.

    `branch:to:B` is an edge to B; `join:A+B+C:D` feeds the barrier in front of D and names
    all its inputs, so it also implies A, B and C -> D even when one of them (the task the
    kill stopped) never wrote; a `__pregel_tasks` write holds `Send` packets, one task each."""
    target = _targets(w.channel)
    if target is not None:
        dst = (src[0], target[0])
        shape.nodes.setdefault(dst, "not reached")
        shape.edges.add((src, dst, target[1]))
        for other in channels.join_sources(w.channel):
            shape.nodes.setdefault((src[0], other), "not reached")
            shape.edges.add(((src[0], other), dst, "join"))
    elif w.channel == channels.TASKS:
        for node in _packet_nodes(w.value):
            dst = (src[0], node)
            shape.nodes.setdefault(dst, "not reached")
            shape.edges.add((src, dst, "Send"))


def _packet_nodes(value: object) -> list[str]:
    """Target node of each `Send` packet in a `__pregel_tasks` write (one packet or a list)."""
    packets = value if isinstance(value, list | tuple) else [value]
    return [n for n in (getattr(p, "node", None) for p in packets) if isinstance(n, str)]


def _orphan_writer(ns: Namespace, w: WriteRecord) -> str | None:
    """The node of the task that made an orphan write (its step's checkpoint never landed).

    A PULL task's path names its node (`~__pregel_pull, p1`). A `Send` task's path holds only
    an index (`~__pregel_push, 0000000002, ...`) into the packets its step started from: the
    `__pregel_tasks` writes made in the step before, in the order LangGraph applies them
    (`writes_sort_key`: task path, task id, write index). That step is the latest checkpoint,
    landed or lost, whose id (time-ordered uuid6) is older than the orphan's."""
    parts = [p.strip() for p in w.task_path.split(",")]
    if len(parts) >= 2 and parts[0] == "~__pregel_pull":
        return parts[1] or None
    if len(parts) < 2 or parts[0] != "~__pregel_push" or not parts[1].isdigit():
        return None  # a functional-API call or an unknown path: its node is not written anywhere
    writes = [x for cp in ns.checkpoints for x in cp.writes] + ns.orphan_writes
    older = [x.checkpoint_id for x in writes if x.checkpoint_id < w.checkpoint_id]
    older += [cp.checkpoint_id for cp in ns.checkpoints if cp.checkpoint_id < w.checkpoint_id]
    if not older:
        return None
    parent = max(older)
    sends = sorted((x for x in writes if x.checkpoint_id == parent and x.channel == channels.TASKS),
                   key=lambda x: (x.task_path, x.task_id, x.idx))  # fmt: skip
    nodes = [n for x in sends for n in _packet_nodes(x.value)]
    index = int(parts[1])
    return nodes[index] if index < len(nodes) else None


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
    return ({("", t.node) for t in latest.tasks if not t.done},
            {("", t.node) for t in latest.tasks if t.done})  # fmt: skip


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
