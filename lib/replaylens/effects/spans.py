"""Spans of a trace as effects-log lines: a task span gives the task's own lines, a tool span
the lines of the effect it performed under its task.

Every trace format (OTLP from OpenInference, OpenLLMetry or Langfuse, LangSmith runs,
Langfuse observations) is decoded into `Span`s by its own module; this module holds the one
mapping from spans to lines, so all formats say the same about the same run:

- LangGraph copies `thread_id`, `langgraph_step`, `langgraph_node` and
  `langgraph_checkpoint_ns` (`parent_ns|node:task_id`) into the run metadata of a task and
  of every run below it. The task span is the one whose name equals `langgraph_node`; the
  last segment's task id equals the `writes` table's `task_id`, so alignment is exact.
- A task span gives a `start` line and, when it ended, an `end`, `error` or `interrupted`
  line (`describes: "task"`, no `effect`: a task is not an effect of its own name).
- A tool span gives `start` and `end`/`error` lines with `effect=<tool name>` under its task.
- A task seen only through an ended child (OpenTelemetry never exports a span that did not
  end, so a killed task is absent) gets a `start` line marked `inferred`.
- Span and trace ids are kept as extra keys (`span_id`, `trace_id`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from replaylens.effects.durable import (
    DESCRIBES,
    OWN_THREAD_UNDER,
    TRIGGERS_KEY,
    metadata_triggers,
    own_lineage,
    task_end_phase,
)
from replaylens.namespaces import own_namespace

SpanKind = Literal["tool", "other"]
Status = Literal["ok", "error", "unset"]


@dataclass
class Span:
    """One span (OpenTelemetry) or run (LangSmith) or observation (Langfuse), format-free."""

    span_id: str
    trace_id: str
    parent_id: str | None
    name: str
    start: float | None  # epoch seconds
    end: float | None  # None: the span never ended (LangSmith posts a run when it starts)
    status: Status = "unset"
    error: str | None = None  # the exception, "Type: message", when the span failed
    error_type: str | None = None  # the exception's type name (`GraphInterrupt` is a pause)
    kind: SpanKind = "other"
    tool: str | None = None  # the tool's name for a tool span
    entity: str | None = None  # the instrumentor's own name for the span (OpenLLMetry)
    metadata: dict[str, Any] = field(default_factory=dict)  # LangGraph's run metadata
    pid: int | None = None  # the process, when the trace's resource names it
    where: str = ""  # "file line 3": for sentences about this span

    @property
    def node(self) -> str | None:
        node = self.metadata.get("langgraph_node")
        return node if isinstance(node, str) and node else None

    @property
    def task_ns(self) -> str | None:
        """The task's full namespace, `parent_ns|node:task_id`, from the metadata."""
        ns = self.metadata.get("langgraph_checkpoint_ns")
        return ns if isinstance(ns, str) and ns else None

    @property
    def thread_id(self) -> str | None:
        tid = self.metadata.get("thread_id")
        if isinstance(tid, int) and not isinstance(tid, bool):
            return str(tid)
        return tid if isinstance(tid, str) and tid else None

    @property
    def is_task(self) -> bool:
        """The task's own span: named after its node (OpenLLMetry: its entity name is)."""
        node = self.node
        return (
            node is not None
            and self.kind != "tool"
            and node in (self.name, self.entity)
            and self.task_ns is not None
        )

    @property
    def interrupted(self) -> bool:
        return self.error_type is not None and task_end_phase(self.error_type) == "interrupted"


def metadata_from(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """LangGraph's run metadata keys out of a flat mapping whose keys carry `prefix`."""
    keys = (
        "thread_id",
        "langgraph_node",
        "langgraph_step",
        "langgraph_checkpoint_ns",
        TRIGGERS_KEY,
    )
    return {k: values[prefix + k] for k in keys if prefix + k in values}


@dataclass
class Mapped:
    """The lines a trace gives, and what was said about reading it."""

    records: list[dict[str, Any]]
    notes: list[str]


def _base(span: Span, source: str) -> dict[str, Any] | None:
    """The fields every line of `span`'s task carries, None when the span names no task."""
    ns, node, tid = span.task_ns, span.node, span.thread_id
    if ns is None or node is None or tid is None:
        return None
    place = own_namespace(ns)
    task_id, checkpoint_ns = place.task_id, place.checkpoint_ns
    out: dict[str, Any] = {"thread_id": tid, "node": node}
    step = span.metadata.get("langgraph_step")
    if isinstance(step, int) and not isinstance(step, bool):
        out["step"] = step
    if task_id:  # a span log's start line whose task was never named has none
        out["task_id"] = task_id
    out["checkpoint_ns"] = checkpoint_ns
    triggers = metadata_triggers(span.metadata)
    if triggers:
        out[TRIGGERS_KEY] = triggers
    if span.pid is not None:
        out["pid"] = span.pid
    out["source"] = source
    return out


def _end_phase(span: Span) -> str:
    if span.error_type is not None:
        return task_end_phase(span.error_type)
    return "error" if span.status == "error" or span.error else "end"


def _lines_of(span: Span, base: dict[str, Any], describes: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    ids = {"span_id": span.span_id, "trace_id": span.trace_id}
    effect = {"effect": span.tool or span.name} if describes == "tool" else {}
    if span.start is not None:
        out.append(
            {**base, **effect, "phase": "start", "ts": span.start, DESCRIBES: describes, **ids}
        )
    if span.end is not None:
        line = {**base, **effect, "phase": _end_phase(span), "ts": span.end, DESCRIBES: describes}
        if span.error and line["phase"] == "error":
            line["error"] = span.error[:500]
        out.append({**line, **ids})
    return out


def _nested_task_spans(spans: list[Span]) -> set[str]:
    """Span ids of runs named after their node inside the task's own span, with its
    namespace: a node whose function has the node's name (a raw `Pregel` node built with
    ``NodeBuilder().do(one)``) reports a run for the task and one for the function. The
    outer one is the task; a retry's run is the task span's sibling, not its child."""
    by_id = {s.span_id: s for s in spans}
    out: set[str] = set()
    for span in spans:
        parent = by_id.get(span.parent_id) if span.parent_id else None
        if span.is_task and parent is not None and parent.is_task:
            if parent.task_ns == span.task_ns:
                out.add(span.span_id)
    return out


def _enclosing_task(span: Span, by_id: dict[str, Span]) -> Span | None:
    """The nearest task span above `span` in the run tree (bounded: a cycle is bad data)."""
    parent_id, seen = span.parent_id, 0
    while parent_id is not None and seen < 10_000:
        parent = by_id.get(parent_id)
        if parent is None:
            return None
        if parent.is_task:
            return parent
        parent_id, seen = parent.parent_id, seen + 1
    return None


def _own_thread_marks(spans: list[Span]) -> dict[str, str]:
    """`OWN_THREAD_UNDER` per span id: the tasks (and their tools) of a graph a task ran on a
    thread of its own (`durable.own_lineage`), marked with the id of that task. LangChain
    hands the caller's `thread_id` down to them, so without the mark they read as root
    tasks of the caller's thread (test_child_with_own_thread_id_keeps_namespace)."""
    by_id = {s.span_id: s for s in spans}
    marks: dict[str, str] = {}

    def mark_of(span: Span, depth: int = 0) -> str | None:
        if span.span_id in marks or depth > 200:
            return marks.get(span.span_id)
        outer = _enclosing_task(span, by_id)
        if outer is None:
            return None
        mark = mark_of(outer, depth + 1)
        if mark is None and span.is_task and outer.task_ns and span.task_ns:
            if own_lineage(outer.task_ns, span.task_ns):
                mark = own_namespace(outer.task_ns).task_id or outer.task_ns
        if mark is not None:
            marks[span.span_id] = mark
        return mark

    for span in spans:
        if span.is_task or span.kind == "tool":
            mark_of(span)
    return marks


def spans_to_records(spans: Iterable[Span], source: str) -> Mapped:
    """Effects-log records (dicts, in time order) for the task and tool spans of a trace."""
    spans = list(spans)
    records: list[dict[str, Any]] = []
    notes: list[str] = []
    tasks: dict[tuple[str, str], Span] = {}  # (trace id, full namespace) -> the task's own span
    for span in spans:
        if span.is_task and span.task_ns is not None:
            tasks.setdefault((span.trace_id, span.task_ns), span)
    nested = _nested_task_spans(spans)
    marks = _own_thread_marks(spans)
    # The earliest child of each task without a span of its own: its start is inferred.
    orphans: dict[tuple[str, str], Span] = {}
    for span in spans:
        ns = span.task_ns
        if ns is None or span.is_task or (span.trace_id, ns) in tasks:
            continue
        earliest = orphans.get((span.trace_id, ns))
        if span.start is not None and (earliest is None or span.start < (earliest.start or 0)):
            orphans[(span.trace_id, ns)] = span
    skipped = 0
    for span in spans:
        base = _base(span, source)
        if base is None:
            if span.kind == "tool":
                skipped += 1
            continue
        if span.span_id in marks:
            base[OWN_THREAD_UNDER] = marks[span.span_id]
        if span.is_task and span.span_id not in nested:
            records.extend(_lines_of(span, base, "task"))
        elif span.kind == "tool":
            records.extend(_lines_of(span, base, "tool"))
    for (_trace, _ns), child in orphans.items():
        base = _base(child, source)
        if base is None or child.start is None:
            continue
        if child.span_id in marks:
            base[OWN_THREAD_UNDER] = marks[child.span_id]
        records.append({
            **base, "phase": "start", "ts": child.start, DESCRIBES: "task", "inferred": True,
            "trace_id": child.trace_id,
            "inferred_from": f"span {child.span_id} ({child.name}), which ran inside the task",
        })  # fmt: skip
    if orphans:
        notes.append(
            f"{len(orphans)} task(s) have no span of their own in the trace, only spans that ran "
            "inside them (a task killed mid-node never ends, so its span is never exported): "
            "their start is inferred from the earliest of those (`inferred: true`)."
        )
    if skipped:
        notes.append(
            f"{skipped} tool span(s) carry no LangGraph metadata (thread, node, namespace) and "
            "were left out."
        )
    # At one instant a task starts before its tools and ends after them.
    records.sort(
        key=lambda r: (r["ts"], 1 if r[DESCRIBES] != "task" else 0 if r["phase"] == "start" else 2)
    )
    return Mapped(records, notes)
