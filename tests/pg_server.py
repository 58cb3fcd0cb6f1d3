"""The throw-away PostgreSQL server of the tests: `replaylens.killtest.pgserver`, which `replaylens
killtest --pg-ephemeral` uses too (one implementation for both), and a fingerprint of a
database that shows the reader changed no row."""

from __future__ import annotations

from typing import Any

from replaylens.killtest.pgserver import (  # noqa: F401 - re-exported for the tests
    ENV_BINDIR,
    PgServer,
    PgUnavailable,
    _free_port,
    find_bindir,
    start_server,
)


def database_fingerprint(dsn: str) -> dict[str, Any]:
    """Tables, row counts and the newest row version (xmin) of every table in the database."""
    import psycopg

    out: dict[str, Any] = {}
    with psycopg.connect(dsn) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') "
                "ORDER BY tablename"
            )
        ]
        for table in tables:
            out[table] = conn.execute(
                f'SELECT COUNT(*), MAX(xmin::text::bigint) FROM "{table}"'
            ).fetchone()
    return out
