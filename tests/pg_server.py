"""The throw-away PostgreSQL server of the tests: `replaylens.killtest.pgserver`, which `replaylens
killtest --pg-ephemeral` uses too (one implementation for both)."""

from replaylens.killtest.pgserver import (  # noqa: F401 - re-exported for the tests
    ENV_BINDIR,
    PgServer,
    PgUnavailable,
    _free_port,
    find_bindir,
    start_server,
)
