"""Langfuse observations as spans: the observation export of the Langfuse UI and public API
(`id`, `traceId`, `type`, `name`, `startTime`, `endTime`, `parentObservationId`, `level`,
`statusMessage`, `metadata`), as a JSON array, `{"data": [...]}` or JSON Lines.

Langfuse's LangChain handler keeps LangGraph's run metadata in `metadata`, marks a tool
call `type: TOOL`, a failure `level: ERROR`, and an interrupt (LangGraph's control flow) a
`DEFAULT` level with the interrupt as `statusMessage`. What the Langfuse client sends to
the server is OTLP; `replaylens.effects.otlp` reads that.
"""

from __future__ import annotations

import json
from typing import Any

from replaylens.effects.spans import Span, metadata_from
from replaylens.times import iso_to_epoch

OBSERVATION_KEYS = frozenset({"traceId", "startTime", "type"})


def is_observation(obj: Any) -> bool:
    return isinstance(obj, dict) and "id" in obj and OBSERVATION_KEYS <= obj.keys()


def observations_in(obj: Any) -> list[dict[str, Any]] | None:
    if is_observation(obj):
        return [obj]
    if isinstance(obj, dict) and isinstance(obj.get("data"), list):
        obj = obj["data"]
    if isinstance(obj, list) and obj and all(is_observation(o) for o in obj):
        return list(obj)
    return None


def _metadata(obs: dict[str, Any]) -> dict[str, Any]:
    meta = obs.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except (ValueError, RecursionError):
            meta = None
    if not isinstance(meta, dict):
        return {}
    out = metadata_from(meta)
    if not out and isinstance(meta.get("metadata"), dict):  # nested by some SDK versions
        out = metadata_from(meta["metadata"])
    return out


def level_says(level: Any, message: Any) -> tuple[bool, bool]:
    """(failed, interrupted) from an observation's level and status message: Langfuse marks
    a failure `ERROR` and LangGraph's control flow (an interrupt) `DEFAULT`, with the
    interrupt, `(Interrupt(value=...),)`, as the status message."""
    failed = str(level or "").upper() == "ERROR"
    return failed, not failed and isinstance(message, str) and "Interrupt(" in message


def to_span(obs: dict[str, Any], where: str) -> Span:
    kind = str(obs.get("type") or "").lower()
    message = obs.get("statusMessage")
    message = str(message) if message else None
    failed, interrupted = level_says(obs.get("level"), message)
    start = obs.get("startTime")
    end = obs.get("endTime")
    parent = obs.get("parentObservationId")
    return Span(
        span_id=str(obs.get("id")),
        trace_id=str(obs.get("traceId") or ""),
        parent_id=str(parent) if parent else None,
        name=str(obs.get("name") or ""),
        start=iso_to_epoch(start) if isinstance(start, str) else None,
        end=iso_to_epoch(end) if isinstance(end, str) else None,
        status="error" if failed else "ok" if end else "unset",
        error=message if failed or interrupted else None,
        error_type="GraphInterrupt" if interrupted else None,
        kind="tool" if kind == "tool" else "other",
        tool=str(obs.get("name") or "") if kind == "tool" else None,
        metadata=_metadata(obs),
        where=where,
    )
