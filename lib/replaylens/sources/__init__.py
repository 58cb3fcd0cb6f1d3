"""Read-only checkpoint sources. `open_source` picks one from a path or connection string."""

from __future__ import annotations

import os

from replaylens.sources._base import (
    ChangeMarks,
    CheckpointRecord,
    CheckpointSource,
    ReopenSpec,
    ThreadIndexRow,
    ThreadRows,
    WriteRecord,
)

__all__ = [
    "PG_SNAPSHOT_DDL",
    "channel_sizes",
    "file_identity",
    "ChangeMarks",
    "ReopenSpec",
    "CheckpointRecord",
    "CheckpointSource",
    "ThreadIndexRow",
    "ThreadRows",
    "WriteRecord",
    "open_source",
]


def __getattr__(name: str) -> object:
    """`PG_SNAPSHOT_DDL`: the schema of a Postgres bundle's snapshot, loaded on first use."""
    if name == "PG_SNAPSHOT_DDL":
        from replaylens.sources._pgsnapshot import PG_SNAPSHOT_DDL

        return PG_SNAPSHOT_DDL
    raise AttributeError(name)


def channel_sizes(msgpack_blob: bytes) -> dict[str, tuple[int, bool]] | None:
    """Each channel's (encoded bytes, value is a list) in one plain msgpack checkpoint blob,
    None when it cannot be walked: sizes without building the values."""
    from replaylens.sources._skeleton import channel_sizes as _sizes

    return _sizes(msgpack_blob)


def file_identity(path: os.PathLike[str] | str) -> tuple[object, ...]:
    """A SQLite file's identity (path, sizes and mtimes of the file and its WAL) without
    opening it: the key under which a loaded view may be cached."""
    from pathlib import Path

    from replaylens.sources._sqlite import file_identity as _identity

    return _identity(Path(path))


def open_source(spec: str | os.PathLike[str], *, aes_key: bytes | None = None) -> CheckpointSource:
    """Open a checkpoint database read-only: a SQLite file path, a Postgres DSN (URI or
    libpq key=value), or `env:NAME` naming an environment variable that holds the DSN.

    psycopg is imported only when a DSN is opened, so opening a SQLite file never pays
    for it, nor needs it installed.
    """
    from replaylens import dsn

    if dsn.is_env_ref(spec):  # `env:NAME`: the DSN stays out of argv
        try:
            spec = dsn.from_env(str(spec))
        except dsn.DsnError as exc:
            from replaylens.errors import SourceError

            raise SourceError(str(exc)) from None
    if dsn.is_dsn(spec):  # the Postgres reader (and psycopg, at connect) only for a DSN
        from replaylens.sources._postgres import PostgresSource

        return PostgresSource(str(spec), aes_key=aes_key)
    from replaylens.sources._sqlite import PostgresShapedFile, SqliteSource

    try:
        return SqliteSource(spec, aes_key=aes_key)
    except PostgresShapedFile:  # a Postgres evidence bundle's snapshot
        from replaylens.sources._pgsnapshot import PgSnapshotSource

        return PgSnapshotSource(spec, aes_key=aes_key)
