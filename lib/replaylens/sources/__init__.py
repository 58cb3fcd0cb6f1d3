"""Read-only checkpoint sources. `open_source` picks one from a path or connection string."""

from __future__ import annotations

import os

from replaylens.sources._base import (
    CheckpointRecord,
    CheckpointSource,
    ThreadIndexRow,
    ThreadRows,
    WriteRecord,
)

__all__ = [
    "CheckpointRecord",
    "CheckpointSource",
    "ThreadIndexRow",
    "ThreadRows",
    "WriteRecord",
    "open_source",
]


def open_source(spec: str | os.PathLike[str], *, aes_key: bytes | None = None) -> CheckpointSource:
    """Open a checkpoint database read-only: a SQLite file path (Postgres comes later)."""
    from replaylens.sources._sqlite import SqliteSource

    return SqliteSource(spec, aes_key=aes_key)
