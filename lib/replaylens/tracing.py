"""Start records for teams who trace: the killed task itself, without changing node code.

A trace alone cannot show a task killed mid-node: OpenTelemetry exports a span only when it
ends, and LangSmith's client sends runs from a background thread. Two ways to keep a
durable line for every task as it starts, each written like `record_effect` writes (one
`write()` under `flock`, then `fsync`: it survives a SIGKILL a microsecond later):

`StartRecordsProcessor`, an OpenTelemetry span processor added to the tracer provider the
team already has (OpenInference, OpenLLMetry, any instrumentation)::

    from replaylens.tracing import StartRecordsProcessor

    provider.add_span_processor(StartRecordsProcessor("spans.jsonl"))

It writes a line when each span starts and one when it ends. OpenTelemetry hands a
processor only a span's name and ids at its start (the LangChain instrumentations set
LangGraph's metadata later), so `read_effects` finds each span's task when it reads the
file: from the span's end, from a span that ran inside it, or from the tasks beside it.

`EffectsCallbackHandler`, a LangChain callback handler that writes ordinary effects-log
lines (start, end, error, interrupted) for every task and every tool call, with the thread,
node, step, task id and namespace LangGraph gives the callbacks::

    from replaylens.tracing import EffectsCallbackHandler

    graph.invoke(inputs, {"configurable": {"thread_id": tid},
                          "callbacks": [EffectsCallbackHandler("effects.jsonl")]})

The processor's file is its own (its lines are spans, not effects-log lines); the handler's
path defaults to `REPLAYLENS_EFFECTS_LOG`, and may be the file `record_effect` writes. A
missing path warns once and records nothing; neither ever raises into the traced code.
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from typing import Any

from replaylens import settings
from replaylens.effects.durable import (
    DESCRIBES,
    OWN_THREAD_UNDER,
    TaskRunTree,
    append_line,
    task_end_phase,
    task_fields,
)
from replaylens.effects.spanlog import end_record, start_record
from replaylens.effects.traces import TRACING_SOURCE

ENV_EFFECTS_LOG = "REPLAYLENS_EFFECTS_LOG"
CALLBACKS_SOURCE = "replaylens.tracing callbacks"

try:  # the processor is an SDK SpanProcessor when the SDK is installed (it always is, with a provider)
    from opentelemetry.sdk.trace import SpanProcessor as _SpanProcessorBase
except ImportError:  # pragma: no cover - without the SDK there is no provider to add it to
    _SpanProcessorBase = object  # type: ignore[misc, assignment]

try:
    from langchain_core.callbacks.base import BaseCallbackHandler as _HandlerBase
except ImportError:  # pragma: no cover - langchain-core is a dependency of replaylens
    _HandlerBase = object  # type: ignore[misc, assignment]


def _path(given: str | os.PathLike[str] | None, env: str | None, who: str) -> str | None:
    path = given or (settings.get(env) if env else None) or None
    if not path:
        how = f"pass a path or set {env}" if env else "pass a path"
        warnings.warn(
            f"{who} has no log file ({how}); nothing is recorded.",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    return os.fspath(path)


def _write(path: str | None, record: dict[str, Any]) -> None:
    """Append durably; a full disk or a lost mount must never break the traced run."""
    if path is None:
        return
    try:
        append_line(path, record)
    except OSError as exc:
        warnings.warn(
            f"replaylens.tracing could not write {path}: {exc}", RuntimeWarning, stacklevel=3
        )


def _hex(value: int, digits: int) -> str:
    return f"{value:0{digits}x}"


class StartRecordsProcessor(_SpanProcessorBase):  # type: ignore[misc]
    """An OpenTelemetry `SpanProcessor`: one durable line per span start and per span end."""

    def __init__(self, log: str | os.PathLike[str]) -> None:
        self.path = _path(log, None, "StartRecordsProcessor")

    def _span(self, span: Any, ended: bool) -> Any:
        from replaylens.effects.otlp import span_of

        ctx = span.get_span_context() if hasattr(span, "get_span_context") else span.context
        parent = getattr(span, "parent", None)
        status = getattr(span, "status", None)
        scope = getattr(getattr(span, "instrumentation_scope", None), "name", "") or ""
        out, _ = span_of(
            name=str(span.name),
            span_id=_hex(ctx.span_id, 16),
            trace_id=_hex(ctx.trace_id, 32),
            parent_id=_hex(parent.span_id, 16) if parent is not None else None,
            start_ns=span.start_time,
            end_ns=span.end_time if ended else None,
            status_code=int(status.status_code.value) if status is not None else 0,
            status_message=(status.description or "") if status is not None else "",
            attrs=dict(span.attributes or {}) if ended else {},
            events=[(e.name, dict(e.attributes or {})) for e in span.events] if ended else [],
            scope=scope,
            pid=os.getpid(),
            where="",
        )
        return out

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        try:
            record = start_record(self._span(span, ended=False), os.getpid(), TRACING_SOURCE)
        except Exception:  # noqa: BLE001 - a span processor must never break the traced code
            return
        _write(self.path, record)

    def on_end(self, span: Any) -> None:
        try:
            record = end_record(self._span(span, ended=True), os.getpid(), TRACING_SOURCE)
        except Exception:  # noqa: BLE001 - as above
            return
        _write(self.path, record)

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True  # every line is on disk before on_start / on_end return


class EffectsCallbackHandler(_HandlerBase):  # type: ignore[misc]
    """A LangChain callback handler writing an effects log of every task and tool call."""

    run_inline = True  # called in the task's own thread, before the node's code runs

    def __init__(self, log: str | os.PathLike[str] | None = None) -> None:
        super().__init__()
        self.path = _path(log, ENV_EFFECTS_LOG, "EffectsCallbackHandler")
        self._runs: dict[Any, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._tree = TaskRunTree()

    def _line(self, phase: str, fields: dict[str, Any], error: BaseException | None = None) -> None:
        record = {**fields, "phase": phase, "ts": time.time(), "pid": os.getpid()}
        if error is not None and phase == "error":
            record["error"] = f"{type(error).__name__}: {error}"[:500]
        _write(self.path, record)

    def _open(self, run_id: Any, fields: dict[str, Any]) -> None:
        with self._lock:
            self._runs[run_id] = fields
        self._line("start", fields)

    def _close(self, run_id: Any, error: BaseException | None) -> None:
        with self._lock:
            fields = self._runs.pop(run_id, None)
        if fields is None:
            return
        phase = task_end_phase(None if error is None else type(error).__name__)
        self._line(phase, fields, error if phase == "error" else None)

    @staticmethod
    def _fields(
        metadata: dict[str, Any] | None, run_id: Any, describes: str
    ) -> dict[str, Any] | None:
        fields = task_fields(metadata or {})
        if "node" not in fields or "thread_id" not in fields:
            return None  # not inside a LangGraph task
        return {**fields, "source": CALLBACKS_SOURCE, DESCRIBES: describes, "run_id": str(run_id)}

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: Any = None,
        parent_run_id: Any = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        # Only the run named after its node is the task; routers and a subgraph's own run
        # inherit the same metadata.
        meta = metadata or {}
        if meta.get("langgraph_node") != kwargs.get("name"):
            self._tree.run_started(run_id, parent_run_id)
            return
        fields = self._fields(meta, run_id, "task")
        if fields is None:
            self._tree.run_started(run_id, parent_run_id)
            return
        task_ns = str(meta.get("langgraph_checkpoint_ns") or "")
        inside_own, mark = self._tree.task_started(run_id, parent_run_id, task_ns)
        if inside_own:
            return
        self._open(run_id, {**fields, OWN_THREAD_UNDER: mark} if mark else fields)

    def on_chain_end(self, outputs: Any, *, run_id: Any = None, **kwargs: Any) -> None:
        self._tree.run_ended(run_id)
        self._close(run_id, None)

    def on_chain_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        self._tree.run_ended(run_id)
        self._close(run_id, error)

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: Any = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        fields = self._fields(metadata, run_id, "tool")
        if fields is None:
            return
        name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
        mark = self._tree.mark_below(kwargs.get("parent_run_id"))
        self._open(
            run_id, {**fields, "effect": str(name), **({OWN_THREAD_UNDER: mark} if mark else {})}
        )

    def on_tool_end(self, output: Any, *, run_id: Any = None, **kwargs: Any) -> None:
        self._close(run_id, None)

    def on_tool_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        self._close(run_id, error)
