"""Traces as effects evidence: which format a file is, and its lines.

`read_effects` (the one front door for `--effects`, `serve`, the dashboard's uploader and
the log paired with a database) asks `sniff` what a file is. An effects log is read as
always; a trace is decoded here into spans and mapped to effects-log lines by
`replaylens.effects.spans`, and the log says which format and setup it came from
(`source`), how it was read (`notes`) and what such a file cannot show (`limits`).

Formats: OTLP JSON lines (the Collector's file exporter: hex ids, integer enums; protobuf's
`MessageToJson`: base64 ids, enum names), OTLP protobuf, gzip or zstd compressed;
LangSmith runs as JSON or JSON Lines (run dicts, post/patch batches) and its Parquet bulk
export; Langfuse's observation export; the start records of `replaylens.tracing`'s span
processor. Decoding is bounded: the file (decompressed) is at most `MAX_TRACE_BYTES`, each
JSON document nests at most 64 deep, attribute values at most 8.
"""

from __future__ import annotations

import gzip
import re
import zlib
from dataclasses import dataclass
from typing import IO, Any, Literal

import orjson

from replaylens.effects import langfuse, langsmith, otlp
from replaylens.effects.spanlog import read_span_log
from replaylens.effects.spans import Mapped, Span, spans_to_records

Format = Literal[
    "effects",
    "otlp-json",
    "otlp-protobuf",
    "langsmith",
    "langsmith-parquet",
    "langfuse",
    "span-log",
]
MAX_TRACE_BYTES = 512 << 20
"""A trace file is read whole (spans are matched with their children): at most this much,
decompressed, else one sentence says it is too large."""
HEAD_BYTES = 1 << 16
GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
PARQUET_MAGIC = b"PAR1"
TRACING_SOURCE = "replaylens.tracing"
"""The `source` of the lines `replaylens.tracing`'s span processor writes."""

OTEL_LIMIT = (
    "OpenTelemetry exports a span only once it ends: a task killed mid-node is not in this "
    "file; it shows only through a span that ended inside it (a tool call), and a task "
    "killed before any traced child ended cannot be told apart from a task that never ran."
)
BATCH_LIMIT = (
    "With a BatchSpanProcessor (the SDK's default, and Langfuse's, on a 5 s schedule) the "
    "spans of the last seconds before a kill were never exported either; with the "
    "SimpleSpanProcessor every span that ended is here."
)
START_RECORDS_HINT = (
    "To see the killed task itself, add the start records of `replaylens.tracing` "
    "(docs/effects.md)."
)
LANGSMITH_LIMIT = (
    "LangSmith's client posts a run when it starts, from a background thread in batches: a "
    "run started in the last moment before a kill may never have been sent, and then that "
    "task cannot be told apart from one that never ran."
)


LIMITS_BY_SOURCE: dict[str, list[str]] = {
    "otlp": [OTEL_LIMIT, BATCH_LIMIT, START_RECORDS_HINT],
    "langfuse": [OTEL_LIMIT, BATCH_LIMIT, START_RECORDS_HINT],
    "langsmith": [LANGSMITH_LIMIT],
    TRACING_SOURCE: [],  # start records show the killed task (an alignment by name is a note)
}
"""What the lines of each trace source cannot show, by the `source` key they carry: a log
converted from a trace (`replaylens effects convert`) says the same as the trace."""


def limits_of(sources: set[Any]) -> list[str]:
    """The limits of the trace sources that lines name, each sentence once."""
    out: list[str] = []
    for source in sorted(s for s in sources if isinstance(s, str)):
        out += [x for x in LIMITS_BY_SOURCE.get(source, []) if x not in out]
    return out


class TraceError(ValueError):
    """The file cannot be read as the trace it looks like: one sentence says why."""


@dataclass
class Sniffed:
    format: Format
    data: bytes | None  # the whole (decompressed) file, None for an effects log read as a file
    compression: str | None
    document: Any = None  # the first JSON document, when one was decoded to tell the format


def _bounded_decompress(fh: IO[bytes], kind: str, name: str) -> bytes:
    if kind == "gzip":
        stream: Any = gzip.GzipFile(fileobj=fh)
    else:
        import zstandard

        stream = zstandard.ZstdDecompressor().stream_reader(fh)
    out = bytearray()
    try:
        while chunk := stream.read(1 << 20):
            out += chunk
            if len(out) > MAX_TRACE_BYTES:
                raise TraceError(
                    f"{name}: decompresses to more than {MAX_TRACE_BYTES >> 20} MiB; not read."
                )
    except (OSError, EOFError, zlib.error, ValueError) as exc:
        if isinstance(exc, TraceError):
            raise
        raise TraceError(f"{name}: is not valid {kind} data ({str(exc)[:120]}).") from None
    return bytes(out)


def _first_line(data: bytes) -> bytes:
    end = data.find(b"\n")
    return data if end < 0 else data[:end]


def _decode(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def classify(obj: Any) -> Format | None:
    """The format of one decoded JSON document, None when it is no trace."""
    if isinstance(obj, dict) and ("resourceSpans" in obj or "resource_spans" in obj):
        return "otlp-json"
    if isinstance(obj, dict) and obj.get("source") == TRACING_SOURCE and "span_id" in obj:
        return "span-log"
    if langsmith.runs_in(obj) is not None:
        return "langsmith"
    if langfuse.observations_in(obj) is not None:
        return "langfuse"
    return None


def _looks_binary(head: bytes) -> bool:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return any(ord(c) < 32 and c not in "\n\r\t" for c in text)


_EFFECTS_LINE_START = re.compile(rb'\{\s*"(thread_id|node|phase|ts|step|pid|effect)"\s*:')
"""How an effects-log line begins (a key of its own, first): no trace document starts so, so
an overlong first line of a log is left to the log parser, which skips it in bounded memory."""


def sniff(fh: IO[bytes], name: str) -> Sniffed:
    """What the open file is. An effects log is left to be read as a stream from the start."""
    head = fh.read(HEAD_BYTES)
    compression: str | None = None
    data: bytes | None = None
    if head.startswith(GZIP_MAGIC) or head.startswith(ZSTD_MAGIC):
        compression = "gzip" if head.startswith(GZIP_MAGIC) else "zstd"
        fh.seek(0)
        data = _bounded_decompress(fh, compression, name)
        head = data[:HEAD_BYTES]
    if head.startswith(PARQUET_MAGIC):
        return Sniffed(
            "langsmith-parquet", data if data is not None else _read_all(fh, name), compression
        )
    stripped = head.lstrip()
    if stripped[:1] in (b"{", b"["):
        first = _first_line(stripped)
        if len(first) == len(stripped) and len(head) == HEAD_BYTES:  # a line longer than the head
            if _EFFECTS_LINE_START.match(stripped):  # an effects-log line: the parser bounds it
                return Sniffed("effects", data, compression)
            first = _whole_first_line(fh, data, name)
        doc = _decode(first)
        fmt = classify(doc)
        if fmt is None and doc is None and len(first.strip()) <= 1:  # an indented document
            whole = data if data is not None else _read_all(fh, name)
            doc = _decode(whole)
            fmt = classify(doc)
            if fmt is not None:
                return Sniffed(fmt, whole, compression, doc)
        if fmt is not None:
            return Sniffed(fmt, data if data is not None else _read_all(fh, name), compression)
        return Sniffed("effects", data, compression)
    if head[:1] == b"\x0a" and _looks_binary(head):
        return Sniffed(
            "otlp-protobuf", data if data is not None else _read_all(fh, name), compression
        )
    return Sniffed("effects", data, compression)


def _whole_first_line(fh: IO[bytes], data: bytes | None, name: str) -> bytes:
    """The first line, however long (a JSON document written on one line), up to the cap."""
    if data is not None:
        return _first_line(data.lstrip())
    fh.seek(0)
    out = bytearray()
    while block := fh.read(1 << 20):
        end = block.find(b"\n")
        out += block if end < 0 else block[:end]
        if end >= 0 or len(out) > MAX_TRACE_BYTES:
            break
    return bytes(out).lstrip()


def _read_all(fh: IO[bytes], name: str) -> bytes:
    fh.seek(0)
    data = fh.read(MAX_TRACE_BYTES + 1)
    if len(data) > MAX_TRACE_BYTES:
        raise TraceError(f"{name}: a trace larger than {MAX_TRACE_BYTES >> 20} MiB; not read.")
    return data


@dataclass
class TraceLines:
    """What a trace file gives: effects-log records, and the words about them."""

    records: list[dict[str, Any]]
    problems: list[str]
    bad: int
    source: str
    notes: list[str]
    limits: list[str]


def _json_lines(data: bytes) -> list[tuple[int, bytes]]:
    return [(n, raw) for n, raw in enumerate(data.split(b"\n"), 1) if raw.strip()]


def read_trace(sniffed: Sniffed, name: str) -> TraceLines:
    """Decode the trace the sniffed file holds and map it to effects-log records."""
    assert sniffed.data is not None
    problems: list[str] = []
    bad = 0
    spans: list[Span] = []
    what: str
    limits: list[str]
    fmt = sniffed.format
    if fmt in ("otlp-json", "otlp-protobuf"):
        decoded = otlp.Decoded([], set(), set())
        if fmt == "otlp-protobuf":
            try:
                otlp.parse_protobuf(sniffed.data, name, decoded)
            except otlp.OtlpError as exc:
                raise TraceError(str(exc)) from None
        elif sniffed.document is not None:
            try:
                otlp.parse_json(sniffed.document, name, decoded)
            except otlp.OtlpError as exc:
                raise TraceError(str(exc)) from None
        else:
            for number, raw in _json_lines(sniffed.data):
                where = f"{name} line {number}"
                obj = _decode(raw)
                try:
                    if obj is None:
                        raise otlp.OtlpError(f"{where}: is not valid JSON; skipped.")
                    otlp.parse_json(obj, where, decoded)
                except (otlp.OtlpError, RecursionError) as exc:
                    bad += 1
                    problems.append(_skipped(str(exc)))
        spans = decoded.spans
        who = sorted(decoded.instrumentors - {"OpenTelemetry"}) or ["OpenTelemetry"]
        encoding = {
            frozenset({"hex"}): "JSON lines with hex ids (the Collector's file exporter)",
            frozenset({"base64"}): "JSON with base64 ids (protobuf's JSON mapping)",
            frozenset({"protobuf"}): "protobuf",
        }.get(frozenset(decoded.encodings), "JSON")
        what = f"OTLP {encoding} from {' and '.join(who)}"
        limits = LIMITS_BY_SOURCE["otlp"]
    elif fmt in ("langsmith", "langsmith-parquet"):
        posts, patches = _langsmith_runs(sniffed, name, problems)
        bad = len(problems)
        spans = [
            langsmith.to_span(run, f"{name} run {run.get('id')}")
            for run in langsmith.merge(posts, patches)
        ]
        what = "LangSmith runs" + (" (Parquet bulk export)" if fmt == "langsmith-parquet" else "")
        limits = LIMITS_BY_SOURCE["langsmith"]
    elif fmt == "langfuse":
        obs = _documents(sniffed, name, problems, langfuse.observations_in)
        bad = len(problems)
        spans = [langfuse.to_span(o, f"{name} observation {o.get('id')}") for o in obs]
        what = "Langfuse observations (export)"
        limits = LIMITS_BY_SOURCE["langfuse"]
    else:
        spans, ordinary, span_problems, notes = read_span_log(sniffed.data, name)
        problems += span_problems
        bad = len(span_problems)
        from_spans = spans_to_records(spans, TRACING_SOURCE)
        source = "start records of replaylens.tracing's span processor"
        return TraceLines(
            sorted(ordinary + from_spans.records, key=lambda r: r["ts"]),
            problems, bad, source, [f"{name} holds {source}: {len(spans)} spans.", *notes, *from_spans.notes],
            LIMITS_BY_SOURCE[TRACING_SOURCE],
        )  # fmt: skip
    if sniffed.compression:
        what += f", {sniffed.compression}-compressed"
    mapped: Mapped = spans_to_records(spans, _source_key(fmt))
    tasks = sum(1 for r in mapped.records if r["describes"] == "task" and r["phase"] == "start")
    tools = sum(1 for r in mapped.records if r["describes"] == "tool" and r["phase"] == "start")
    notes = [
        f"{name} is a trace, read as {what}: {len(spans)} spans gave {tasks} task(s) and "
        f"{tools} tool call(s) ({len(mapped.records)} effects-log lines).",
        *mapped.notes,
    ]
    if not mapped.records and spans:
        notes.append(
            f"No span of {name} carries LangGraph's run metadata (thread_id, langgraph_node, "
            "langgraph_checkpoint_ns): it was not traced through a LangChain instrumentation "
            "of a LangGraph run."
        )
    return TraceLines(mapped.records, problems, bad, what, notes, limits)


def _source_key(fmt: Format) -> str:
    return {"otlp-json": "otlp", "otlp-protobuf": "otlp", "langsmith-parquet": "langsmith"}.get(
        fmt, fmt
    )


def _skipped(sentence: str) -> str:
    sentence = sentence.rstrip(".")
    return sentence if sentence.endswith("skipped") else f"{sentence}; skipped."


def _documents(sniffed: Sniffed, name: str, problems: list[str], pick: Any) -> list[Any]:
    """The records in a JSON document or JSON Lines, each line giving zero or more."""
    assert sniffed.data is not None
    if sniffed.document is not None:
        return list(pick(sniffed.document) or [])
    out: list[Any] = []
    for number, raw in _json_lines(sniffed.data):
        obj = _decode(raw)
        found = pick(obj) if obj is not None else None
        if found is None:
            problems.append(
                f"{name} line {number}: "
                + ("is not valid JSON" if obj is None else "is not a record of this trace")
                + "; skipped."
            )
            continue
        out += found
    return out


def _langsmith_runs(
    sniffed: Sniffed, name: str, problems: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    assert sniffed.data is not None
    if sniffed.format == "langsmith-parquet":
        try:
            return langsmith.read_parquet(sniffed.data, name), []
        except ImportError as exc:
            raise TraceError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - pyarrow's errors name no file: say which one
            raise TraceError(
                f"{name}: is not a readable Parquet file ({str(exc)[:120]})."
            ) from None
    posts: list[dict[str, Any]] = []
    patches: list[dict[str, Any]] = []

    def pick(obj: Any) -> list[tuple[str, dict[str, Any]]] | None:
        got = langsmith.runs_in(obj)
        if got is None:
            return None
        return [("post", r) for r in got[0]] + [("patch", r) for r in got[1]]

    for kind, run in _documents(sniffed, name, problems, pick):
        (posts if kind == "post" else patches).append(run)
    return posts, patches
