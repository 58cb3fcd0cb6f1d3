"""Times as LangGraph and effects logs write them."""

from __future__ import annotations

import datetime as dt


def iso_to_epoch(text: str | None) -> float | None:
    """ISO-8601 (a trailing Z allowed) to epoch seconds; naive times are UTC, as LangGraph
    writes checkpoint timestamps. None when the text is not a time."""
    if not text:
        return None
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.timestamp()


_UUID_EPOCH_OFFSET = 0x01B21DD213814000  # 100-ns intervals from 1582-10-15 to 1970-01-01


def checkpoint_id_time(checkpoint_id: str | None) -> str | None:
    """The time inside a LangGraph checkpoint id (a UUID v6, `uuid6()` in langgraph.checkpoint),
    as ISO-8601 UTC; None when the id is not a v6 UUID.

    LangGraph takes the id's time a few microseconds after the checkpoint's `ts`, so the
    thread list can show when each thread last changed before any blob is read.
    """
    if not checkpoint_id or len(checkpoint_id) != 36 or checkpoint_id[14] != "6":
        return None
    digits = checkpoint_id.replace("-", "")
    try:
        stamp = (int(digits[:12], 16) << 12) | int(digits[13:16], 16)
    except ValueError:
        return None
    micros = (stamp - _UUID_EPOCH_OFFSET) // 10
    if micros < 0:
        return None
    when = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=micros)
    return when.isoformat()
