"""LangSmith runs as spans: the SDK's run dicts, its post/patch batches, and the Parquet
bulk export.

The client posts a run when it starts (`post`: id, name, run_type, start_time, extra with
the run metadata, parent_run_id, trace_id) and patches it when it ends (`patch`: end_time,
error), so a task killed mid-node is a run with a start and no `end_time`. A run whose
`error` starts with `GraphInterrupt(` paused; it did not fail.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import Any

from replaylens.effects.spans import Span, metadata_from
from replaylens.times import parse_ts

RUN_KEYS = frozenset({"run_type", "start_time", "trace_id", "parent_run_id", "dotted_order"})
PARQUET_COLUMNS = (
    "id",
    "name",
    "run_type",
    "start_time",
    "end_time",
    "error",
    "extra",
    "parent_run_id",
    "trace_id",
)


def is_run(obj: Any) -> bool:
    return isinstance(obj, dict) and "id" in obj and bool(RUN_KEYS & obj.keys())


def is_batch(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and bool({"post", "patch"} & obj.keys())
        and all(isinstance(obj.get(k, []), list) for k in ("post", "patch"))
    )


def runs_in(obj: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
    """(posted or whole runs, patches) in one JSON document, None when it holds no runs: a
    run, a list of runs, a post/patch batch, or `{"runs": [...]}` as the runs query answers."""
    if is_batch(obj):
        return [r for r in obj.get("post") or [] if isinstance(r, dict)], [
            r for r in obj.get("patch") or [] if isinstance(r, dict)
        ]
    if is_run(obj):
        return [obj], []
    if isinstance(obj, dict) and isinstance(obj.get("runs"), list):
        obj = obj["runs"]
    if isinstance(obj, list) and obj and all(is_run(r) or is_batch(r) for r in obj):
        posts: list[dict[str, Any]] = []
        patches: list[dict[str, Any]] = []
        for item in obj:
            got = runs_in(item)
            if got:
                posts += got[0]
                patches += got[1]
        return posts, patches
    return None


def _time(value: Any) -> float | None:
    """A run's time: ISO-8601 text or epoch seconds (`parse_ts`), or a datetime from the
    Parquet export (naive means UTC, as LangSmith writes them)."""
    if isinstance(value, dt.datetime):
        try:
            return (value if value.tzinfo else value.replace(tzinfo=dt.UTC)).timestamp()
        except (OverflowError, ValueError, OSError):
            return None
    return parse_ts(value)


def _extra(run: dict[str, Any]) -> dict[str, Any]:
    extra = run.get("extra")
    if isinstance(extra, str):  # the Parquet export keeps it as JSON text
        try:
            extra = json.loads(extra)
        except (ValueError, RecursionError):
            extra = None
    return extra if isinstance(extra, dict) else {}


def merge(
    posts: Iterable[dict[str, Any]], patches: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each run once, its patches applied in order (a patch adds end_time, error, outputs)."""
    runs: dict[str, dict[str, Any]] = {}
    for run in posts:
        rid = str(run.get("id"))
        runs[rid] = {**runs.get(rid, {}), **run}
    for patch in patches:
        rid = str(patch.get("id"))
        base = runs.setdefault(rid, {})
        for key, value in patch.items():
            if key == "extra" and isinstance(value, dict):
                merged = _extra(base)
                merged.update({k: v for k, v in value.items() if k != "metadata"})
                meta = {**(merged.get("metadata") or {}), **(value.get("metadata") or {})}
                base["extra"] = {**merged, "metadata": meta}
            elif value is not None or key not in base:
                base[key] = value
    return list(runs.values())


def to_span(run: dict[str, Any], where: str) -> Span:
    extra = _extra(run)
    meta = extra.get("metadata")
    metadata = metadata_from(meta) if isinstance(meta, dict) else {}
    error = run.get("error")
    error = str(error) if error else None
    error_type = error.split("(", 1)[0].strip().rpartition(".")[2] if error else None
    run_type = str(run.get("run_type") or "")
    name = str(run.get("name") or "")
    parent = run.get("parent_run_id")
    return Span(
        span_id=str(run.get("id")),
        trace_id=str(run.get("trace_id") or ""),
        parent_id=str(parent) if parent else None,
        name=name,
        start=_time(run.get("start_time")),
        end=_time(run.get("end_time")),
        status="error" if error else "ok" if run.get("end_time") else "unset",
        error=error.split("\n\n", 1)[0] if error else None,  # without the traceback
        error_type=error_type if error_type and error_type.isidentifier() else None,
        kind="tool" if run_type == "tool" else "other",
        tool=name if run_type == "tool" else None,
        metadata=metadata,
        where=where,
    )


def read_parquet(data: bytes, name: str) -> list[dict[str, Any]]:
    """The rows of LangSmith's Parquet bulk export as run dicts (pyarrow, optional)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            f"{name}: reading LangSmith's Parquet export needs the optional pyarrow package "
            "(pip install 'replaylens[parquet]')."
        ) from None
    table = pq.read_table(pa.BufferReader(data))
    wanted = [c for c in PARQUET_COLUMNS if c in table.column_names]
    return table.select(wanted).to_pylist()
