"""The span log `replaylens.tracing.StartRecordsProcessor` writes: one durable line when a span
starts and one when it ends, read back as spans.

OpenTelemetry gives a span processor only the span's name and ids when it starts (the
LangChain instrumentations set LangGraph's metadata later; OpenInference only at the end),
so a start line names its span, and the task it belongs to is found when the file is read:

- from the span's own end line, when it ended;
- else from a span that ran directly inside it and ended (a tool call, a router, an LLM
  call carry the task's metadata);
- else, for a span that runs directly under the graph's span beside tasks whose metadata is
  known, from those siblings: the thread and namespace are theirs, the node is the span's
  name, and the task id is not known (the task is aligned by node name and time).
"""

from __future__ import annotations

from typing import Any

import orjson

from replaylens.effects.durable import DESCRIBES
from replaylens.effects.spans import Span

SPAN = "span"  # the `describes` value of the span log's lines
SPAN_LOG_LIMIT = (
    "Without a task id such a task is aligned by node name and time, not exactly by its id."
)
OPENLLMETRY_TASK_PREFIX = "execute_task "  # OpenLLMetry names a task span "execute_task <node>"


def start_record(span: Span, pid: int, source: str) -> dict[str, Any]:
    """The line written when a span starts."""
    return {
        "ts": span.start,
        "phase": "start",
        "pid": pid,
        "span_id": span.span_id,
        "trace_id": span.trace_id,
        "parent_span_id": span.parent_id,
        "span": span.name,
        "source": source,
        DESCRIBES: SPAN,
    }


def end_record(span: Span, pid: int, source: str) -> dict[str, Any]:
    """The line written when a span ends: what the instrumentation set on it by then."""
    out = {
        **start_record(span, pid, source),
        "phase": "end",
        "ts": span.end,
        "start_ts": span.start,
    }
    out.update(
        kind=span.kind, status=span.status, metadata=span.metadata,
        **{k: v for k, v in (("entity", span.entity), ("tool", span.tool), ("error", span.error),
                             ("error_type", span.error_type)) if v is not None},
    )  # fmt: skip
    return out


def _entity(span: Span) -> str | None:
    if span.entity:
        return span.entity
    if span.name.startswith(OPENLLMETRY_TASK_PREFIX):
        return span.name[len(OPENLLMETRY_TASK_PREFIX) :]
    return None


def read_span_log(
    data: bytes, name: str
) -> tuple[list[Span], list[dict[str, Any]], list[str], list[str]]:
    """(spans, ordinary effects-log records written beside them, problems, notes)."""
    spans: dict[str, Span] = {}
    ordinary: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            problems.append(f"{name} line {number}: is not valid JSON; skipped.")
            continue
        if not isinstance(obj, dict):
            problems.append(f"{name} line {number}: is not a JSON object; skipped.")
            continue
        if obj.get(DESCRIBES) != SPAN:
            ordinary.append(obj)  # an effects-log line written to the same file
            continue
        sid, ts = obj.get("span_id"), obj.get("ts")
        if not isinstance(sid, str) or not isinstance(ts, int | float) or isinstance(ts, bool):
            problems.append(f"{name} line {number}: a span line without span_id or ts; skipped.")
            continue
        span = spans.get(sid)
        if span is None:
            span = spans[sid] = Span(
                span_id=sid,
                trace_id=str(obj.get("trace_id") or ""),
                parent_id=obj.get("parent_span_id") if isinstance(obj.get("parent_span_id"), str) else None,
                name=str(obj.get("span") or ""),
                start=None,
                end=None,
                where=f"{name} line {number}",
            )  # fmt: skip
        pid = obj.get("pid")
        span.pid = pid if isinstance(pid, int) and not isinstance(pid, bool) else span.pid
        if obj.get("phase") == "start":
            span.start = float(ts)
            continue
        span.end = float(ts)
        start = obj.get("start_ts")
        if span.start is None and isinstance(start, int | float) and not isinstance(start, bool):
            span.start = float(start)
        meta = obj.get("metadata")
        span.metadata = meta if isinstance(meta, dict) else {}
        span.kind = "tool" if obj.get("kind") == "tool" else "other"
        status = obj.get("status")
        span.status = status if status in ("ok", "error", "unset") else "unset"
        for key in ("entity", "tool", "error", "error_type"):
            value = obj.get(key)
            setattr(span, key, value if isinstance(value, str) else None)
    notes = _resolve(list(spans.values()), name)
    return list(spans.values()), ordinary, problems, notes


def _resolve(spans: list[Span], name: str) -> list[str]:
    """Give the spans that never ended the metadata of their task (see the module's doc)."""
    children: dict[str, list[Span]] = {}
    for span in spans:
        if span.parent_id:
            children.setdefault(span.parent_id, []).append(span)
    open_spans = [s for s in spans if s.end is None]
    from_child = from_siblings = 0
    for span in open_spans:
        span.entity = _entity(span)
        for child in children.get(span.span_id, []):
            if child.metadata and not child.is_task and child.node in (span.name, span.entity):
                span.metadata = dict(child.metadata)
                from_child += 1
                break
    for span in open_spans:
        if span.metadata or not span.parent_id:
            continue
        siblings = [s for s in children.get(span.parent_id, []) if s.is_task and s is not span]
        node = span.entity or span.name
        if not siblings or not node:
            continue
        known = siblings[0]
        ns = known.task_ns or ""
        parent_ns = ns.rpartition("|")[0]
        span.metadata = {"thread_id": known.thread_id, "langgraph_node": node}
        # No task id: `parent_ns|node:` ends in an empty one, so the line carries none.
        span.metadata["langgraph_checkpoint_ns"] = (
            f"{parent_ns}|" if parent_ns else ""
        ) + f"{node}:"
        from_siblings += 1
    notes = []
    if from_child:
        notes.append(
            f"{from_child} span(s) of {name} started and never ended: their task is named by "
            "a span that ran inside them and ended."
        )
    if from_siblings:
        notes.append(
            f"{from_siblings} span(s) of {name} started and never ended with nothing inside them "
            "that ended: thread and namespace come from the tasks beside them, the node from "
            "the span's name. " + SPAN_LOG_LIMIT
        )
    return notes
