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


_CLOCK_SEQ_MASK = 0x3FFF  # uuid6 keeps 14 bits of clock_seq


def checkpoint_id_step(checkpoint_id: str | None, checkpoints: int) -> int | None:
    """The step inside a LangGraph checkpoint id: `create_checkpoint` makes the id with
    `uuid6(clock_seq=step)`, which keeps the step's low 14 bits (-1, the input step, reads
    16383). A thread with fewer than 16,383 checkpoints cannot have reached a step that
    wraps, so the step is exact there; otherwise, or for an id that is not a v6 UUID, None.
    """
    if (
        not checkpoint_id
        or len(checkpoint_id) != 36
        or checkpoint_id[14] != "6"
        or checkpoints >= _CLOCK_SEQ_MASK
    ):
        return None
    try:
        seq = int(checkpoint_id[19:23], 16) & _CLOCK_SEQ_MASK
    except ValueError:
        return None
    return -1 if seq == _CLOCK_SEQ_MASK else seq
