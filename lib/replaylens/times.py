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
