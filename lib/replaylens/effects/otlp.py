"""OpenTelemetry traces (OTLP) as spans: JSON lines and protobuf, decoded by the
`opentelemetry-proto` messages and protobuf's own JSON mapping.

Two JSON encodings occur in the wild: the OpenTelemetry Collector's file exporter writes
one `TracesData` object per line with hex ids and integer enums (the OTLP/JSON rule), and
protobuf's `MessageToJson` writes base64 ids and enum names (one document, often indented).
Both are turned into the protobuf message and read from there. Three LangChain
instrumentations put LangGraph's run metadata in different attributes:

- OpenInference: one JSON-string attribute `metadata`; `openinference.span.kind` (`TOOL`);
- OpenLLMetry (Traceloop): `traceloop.association.properties.*`, `traceloop.entity.name`,
  `traceloop.span.kind` (`tool`), `gen_ai.tool.name`;
- Langfuse: `langfuse.observation.metadata.*`, each value JSON-encoded;
  `langfuse.observation.type` (`tool`).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Literal

from replaylens.effects.spans import Span, Status, metadata_from

Encoding = Literal["hex", "base64"]
Instrumentor = Literal["OpenInference", "OpenLLMetry (Traceloop)", "Langfuse", "OpenTelemetry"]
MAX_VALUE_DEPTH = 8  # nested array / kvlist attribute values deeper than this are cut
OPENLLMETRY_PREFIX = "traceloop.association.properties."
LANGFUSE_PREFIX = "langfuse.observation.metadata."


class OtlpError(ValueError):
    """One line or message is not OTLP: the sentence says why."""


@dataclass
class Decoded:
    spans: list[Span]
    instrumentors: set[str]
    encodings: set[str]


def _fix_ids(obj: Any, encodings: set[str]) -> None:
    """The Collector's hex ids into the base64 protobuf's JSON mapping expects, in place.

    A trace id is 16 bytes (32 hex digits, 24 base64 characters) and a span id 8 (16 hex,
    12 base64): the length tells the encodings apart, as hex digits are base64 letters too."""
    for rs in _list(obj.get("resourceSpans") or obj.get("resource_spans")):
        for ss in _list(
            rs.get("scopeSpans") or rs.get("scope_spans") or rs.get("instrumentationLibrarySpans")
        ):
            for span in _list(ss.get("spans")):
                for key in (
                    "traceId",
                    "spanId",
                    "parentSpanId",
                    "trace_id",
                    "span_id",
                    "parent_span_id",
                ):
                    value = span.get(key)
                    if isinstance(value, str) and value:
                        span[key] = _as_base64(value, encodings)
                span.pop("links", None)  # never read: links name other traces' spans
                _keep_read_attributes(span)
                for event in _list(span.get("events")):
                    _keep_read_attributes(event)


READ_ATTRIBUTES = (
    "metadata",
    "session.id",
    "openinference.span.kind",
    "tool.name",
    "traceloop.",
    "gen_ai.tool.name",
    "gen_ai.operation.name",
    "langfuse.observation.",
    "error.type",
    "exception.type",
    "exception.message",
)
"""The attribute keys (or their beginnings) this module reads. Only those are handed to
protobuf's JSON parser, which is pure Python: prompts, inputs and outputs are most of a
span's attributes and would cost most of the time."""


def _keep_read_attributes(obj: dict[str, Any]) -> None:
    attrs = obj.get("attributes")
    if isinstance(attrs, list):
        obj["attributes"] = [
            a
            for a in attrs
            if isinstance(a, dict) and str(a.get("key", "")).startswith(READ_ATTRIBUTES)
        ]


def _list(value: Any) -> list[Any]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _as_base64(value: str, encodings: set[str]) -> str:
    if len(value) in (16, 32):
        try:
            raw = binascii.unhexlify(value)
        except (binascii.Error, ValueError):
            pass
        else:
            encodings.add("hex")
            return base64.b64encode(raw).decode()
    encodings.add("base64")
    return value


def parse_json(obj: Any, where: str, decoded: Decoded) -> None:
    """One decoded JSON document (a `TracesData` or `ExportTraceServiceRequest`) onto `decoded`."""
    from google.protobuf import json_format
    from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

    if not isinstance(obj, dict) or not ("resourceSpans" in obj or "resource_spans" in obj):
        raise OtlpError(f"{where}: is not an OTLP trace (no resourceSpans).")
    _fix_ids(obj, decoded.encodings)
    message = TracesData()
    try:
        json_format.ParseDict(obj, message, ignore_unknown_fields=True, max_recursion_depth=64)
    except (json_format.ParseError, RecursionError, ValueError, TypeError) as exc:
        raise OtlpError(f"{where}: is not a valid OTLP trace ({str(exc)[:160]}).") from None
    _collect(message, where, decoded)


def parse_protobuf(data: bytes, where: str, decoded: Decoded) -> None:
    """An OTLP protobuf body (`ExportTraceServiceRequest`, the same wire form as `TracesData`)."""
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

    message = TracesData()
    try:
        message.ParseFromString(data)
    except (DecodeError, RecursionError, ValueError) as exc:
        raise OtlpError(f"{where}: is not an OTLP protobuf trace ({str(exc)[:120]}).") from None
    if not message.resource_spans:
        raise OtlpError(f"{where}: is not an OTLP protobuf trace (it holds no resource spans).")
    decoded.encodings.add("protobuf")
    _collect(message, where, decoded)


def _value(v: Any, depth: int = 0) -> Any:
    """An OTLP AnyValue as a Python value (arrays and key-value lists to a bounded depth)."""
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return (
            [_value(x, depth + 1) for x in v.array_value.values] if depth < MAX_VALUE_DEPTH else []
        )
    if which == "kvlist_value":
        if depth >= MAX_VALUE_DEPTH:
            return {}
        return {kv.key: _value(kv.value, depth + 1) for kv in v.kvlist_value.values}
    if which == "bytes_value":
        return base64.b64encode(v.bytes_value).decode()
    return getattr(v, which)


def _attrs(kvs: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in kvs}


SCOPES: dict[str, Instrumentor] = {
    "openinference.instrumentation.langchain": "OpenInference",
    "opentelemetry.instrumentation.langchain": "OpenLLMetry (Traceloop)",
    "langfuse-sdk": "Langfuse",
}
"""The instrumentation scope each writes its spans under: it decides first, as Langfuse's
trace attributes also land on the spans of other instrumentations in the same process."""


def _instrumentor(attrs: dict[str, Any], scope: str) -> Instrumentor:
    if scope in SCOPES:
        return SCOPES[scope]
    if "openinference.span.kind" in attrs or scope.startswith("openinference"):
        return "OpenInference"
    if "traceloop.span.kind" in attrs or any(k.startswith(OPENLLMETRY_PREFIX) for k in attrs):
        return "OpenLLMetry (Traceloop)"
    if "langfuse.observation.type" in attrs or any(k.startswith("langfuse.") for k in attrs):
        return "Langfuse"
    return "OpenTelemetry"


def _json_value(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _metadata(attrs: dict[str, Any], who: Instrumentor) -> dict[str, Any]:
    if who == "OpenInference":
        meta = _json_value(attrs.get("metadata"))
        out = metadata_from(meta) if isinstance(meta, dict) else {}
        if "thread_id" not in out and isinstance(attrs.get("session.id"), str):
            out["thread_id"] = attrs["session.id"]
        return out
    if who == "OpenLLMetry (Traceloop)":
        out = metadata_from(attrs, OPENLLMETRY_PREFIX)
        step = out.get("langgraph_step")
        if isinstance(step, str) and step.isdigit():
            out["langgraph_step"] = int(step)
        return out
    if who == "Langfuse":
        return {k: _json_value(v) for k, v in metadata_from(attrs, LANGFUSE_PREFIX).items()}
    return metadata_from(attrs) or metadata_from(attrs, "metadata.")


def _is_tool(attrs: dict[str, Any], who: Instrumentor) -> bool:
    if who == "OpenInference":
        return attrs.get("openinference.span.kind") == "TOOL"
    if who == "OpenLLMetry (Traceloop)":
        return attrs.get("traceloop.span.kind") == "tool"
    if who == "Langfuse":
        return attrs.get("langfuse.observation.type") == "tool"
    return attrs.get("gen_ai.operation.name") == "execute_tool"


def _error(
    events: list[tuple[str, dict[str, Any]]], status_message: str, attrs: dict[str, Any]
) -> tuple[str | None, str | None]:
    """(the exception as "Type: message", its type name) from the span's exception events,
    its `error.type` attribute and its status message."""
    kind: str | None = None
    message: str | None = None
    for name, ev in events:
        if name == "exception":
            kind = str(ev.get("exception.type") or kind or "") or None
            message = str(ev.get("exception.message") or message or "") or None
    if kind is None and isinstance(attrs.get("error.type"), str):
        kind = attrs["error.type"]
    if message is None and status_message:
        message = status_message
    if kind is None and message is None:
        return None, None
    short = (kind or "").rpartition(".")[2]
    return (f"{short}: {message}" if short and message else short or message), kind


def _langfuse_level(
    attrs: dict[str, Any], error: str | None, error_type: str | None, status: Status
) -> tuple[str | None, str | None, Status]:
    """A failure or an interrupt as Langfuse's level and status message say it."""
    from replaylens.effects.langfuse import level_says

    message = attrs.get("langfuse.observation.status_message")
    failed, interrupted = level_says(attrs.get("langfuse.observation.level"), message)
    if failed:
        return error or (str(message) if message else "error"), error_type, "error"
    if interrupted:
        return str(message), error_type or "GraphInterrupt", status
    return error, error_type, status


def _hex(raw: bytes) -> str:
    return raw.hex()


def _collect(message: Any, where: str, decoded: Decoded) -> None:
    for rs in message.resource_spans:
        resource = _attrs(rs.resource.attributes)
        pid = resource.get("process.pid")
        pid = pid if isinstance(pid, int) and not isinstance(pid, bool) else None
        for ss in rs.scope_spans:
            scope = ss.scope.name
            for span in ss.spans:
                decoded.spans.append(_span(span, scope, pid, where, decoded))


def _span(span: Any, scope: str, pid: int | None, where: str, decoded: Decoded) -> Span:
    out, who = span_of(
        name=span.name,
        span_id=_hex(span.span_id),
        trace_id=_hex(span.trace_id),
        parent_id=_hex(span.parent_span_id) or None,
        start_ns=span.start_time_unix_nano,
        end_ns=span.end_time_unix_nano,
        status_code=span.status.code,
        status_message=span.status.message,
        attrs=_attrs(span.attributes),
        events=[(e.name, _attrs(e.attributes)) for e in span.events],
        scope=scope,
        pid=pid,
        where=where,
    )
    decoded.instrumentors.add(who)
    return out


def span_of(
    *,
    name: str,
    span_id: str,
    trace_id: str,
    parent_id: str | None,
    start_ns: int | None,
    end_ns: int | None,
    status_code: int,
    status_message: str,
    attrs: dict[str, Any],
    events: list[tuple[str, dict[str, Any]]],
    scope: str,
    pid: int | None,
    where: str,
) -> tuple[Span, Instrumentor]:
    """One OpenTelemetry span, as OTLP holds it or as the SDK hands it to a span processor
    (status code 0 unset, 1 ok, 2 error), and the instrumentation that made it."""
    who = _instrumentor(attrs, scope)
    tool = _is_tool(attrs, who)
    error, error_type = _error(events, status_message, attrs)
    status: Status = "error" if status_code == 2 else "ok" if status_code == 1 else "unset"
    if who == "Langfuse":
        error, error_type, status = _langfuse_level(attrs, error, error_type, status)
    tool_name = (attrs.get("tool.name") or attrs.get("gen_ai.tool.name")) if tool else None
    entity = attrs.get("traceloop.entity.name")
    span = Span(
        span_id=span_id,
        trace_id=trace_id,
        parent_id=parent_id,
        name=name,
        start=start_ns / 1e9 if start_ns else None,
        end=end_ns / 1e9 if end_ns else None,
        status=status,
        error=error if (status == "error" or error_type) else None,
        error_type=error_type,
        kind="tool" if tool else "other",
        tool=str(tool_name or entity or name) if tool else None,
        entity=entity if isinstance(entity, str) else None,
        metadata=_metadata(attrs, who),
        pid=pid,
        where=where,
    )
    return span, who
