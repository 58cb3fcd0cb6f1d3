"""Times as LangGraph and effects logs write them."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any


def iso_to_epoch(text: str | None) -> float | None:
    """ISO-8601 (a trailing Z allowed) to epoch seconds; naive times are UTC, as LangGraph
    writes checkpoint timestamps. None when the text is not a time."""
    if not text:
        return None
    # every pass of a plan reads the same checkpoint times again: a time's text is short,
    # and only short texts are remembered (a hostile database's long ones are not kept)
    return _parsed_time(text) if len(text) <= 64 else _parse_time(text)


def _parse_time(text: str) -> float | None:
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.timestamp()


_parsed_time = lru_cache(maxsize=1 << 16)(_parse_time)


_UUID_EPOCH_OFFSET = 0x01B21DD213814000  # 100-ns intervals from 1582-10-15 to 1970-01-01


def _uuid6_stamp(checkpoint_id: str | None) -> int | None:
    """The 60-bit timestamp (100-ns units since 1582-10-15) of a UUID v6, None if it is not one."""
    if not checkpoint_id or len(checkpoint_id) != 36 or checkpoint_id[14] != "6":
        return None
    try:
        return (int(checkpoint_id[:8] + checkpoint_id[9:13], 16) << 12) | int(
            checkpoint_id[15:18], 16
        )
    except ValueError:
        return None


def checkpoint_id_epoch(checkpoint_id: str | None) -> float | None:
    """The time inside a LangGraph checkpoint id (a UUID v6, `uuid6()` in
    langgraph/checkpoint/base/id.py) in epoch seconds; None when the id is not a v6 UUID.
    The one home of this rule: the durability model, storage and the thread list call it."""
    stamp = _uuid6_stamp(checkpoint_id)
    return None if stamp is None else (stamp - _UUID_EPOCH_OFFSET) / 1e7


def uuid6_prefix_epoch(prefix: str) -> float | None:
    """Epoch seconds where the ids starting with these 8 hex digits begin: a UUID v6's leading
    32 bits are its time in units of 2^28 x 100 ns (26.8 s), so SQL can bucket ids by time
    with a GROUP BY on the first 8 characters. None if they are not hex."""
    try:
        high = int(prefix, 16)
    except ValueError:
        return None
    return ((high << 28) - _UUID_EPOCH_OFFSET) / 1e7


def checkpoint_id_time(checkpoint_id: str | None) -> str | None:
    """The time inside a LangGraph checkpoint id (see `checkpoint_id_epoch`) as ISO-8601 UTC
    exactly as `datetime.isoformat()` writes it; None when the id is not a v6 UUID.

    LangGraph takes the id's time a few microseconds after the checkpoint's `ts`, so the
    thread list can show when each thread last changed before any blob is read. The text is
    put together from integers (the date from a per-day table) because the thread list
    converts one id per thread: 100,000 `datetime` objects cost a fifth of a second.
    """
    stamp = _uuid6_stamp(checkpoint_id)
    if stamp is None:
        return None
    micros = (stamp - _UUID_EPOCH_OFFSET) // 10
    if micros < 0:
        return None
    return _iso_utc(micros)


def utc_iso(ts: float | None = None) -> str:
    """Epoch seconds (now when None) as ISO-8601 UTC to the second with a Z, as manifests,
    exports and incident selections write times; a time beyond the calendar is said as the
    number. The one home of this format."""
    moment = dt.datetime.now(dt.UTC) if ts is None else None
    try:
        if moment is None:
            moment = dt.datetime.fromtimestamp(ts, dt.UTC)  # type: ignore[arg-type]
    except (ValueError, OverflowError, OSError):
        return f"{ts:g} (epoch seconds)"
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def clock_ms(ts: float) -> str:
    """Epoch seconds as the UTC time of day to the millisecond (`14:03:07.250`), as timelines
    and reports label effect lines."""
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%H:%M:%S.%f")[:-3]


_DAY_MICROS = 86_400_000_000
_DATES: dict[int, str] = {}  # a uuid6 time ends in the year 5236: the table stays small


def _iso_utc(micros: int) -> str:
    """Microseconds since the epoch as `datetime.isoformat()` of an aware UTC time."""
    day, rest = divmod(micros, _DAY_MICROS)
    date = _DATES.get(day)
    if date is None:
        date = _DATES[day] = (dt.date(1970, 1, 1) + dt.timedelta(days=day)).isoformat()
    seconds, us = divmod(rest, 1_000_000)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    if us:
        return f"{date}T{hours:02d}:{minutes:02d}:{seconds:02d}.{us:06d}+00:00"
    return f"{date}T{hours:02d}:{minutes:02d}:{seconds:02d}+00:00"


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


def parse_ts(value: Any) -> float | None:
    """Epoch seconds (int/float, or a numeric string) or ISO-8601 (naive means UTC)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:  # an integer of hundreds of digits is no time
            return None
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
        return iso_to_epoch(value)
    return None
