"""Where a kill test's checkpoints live: a fresh SQLite file, or a fresh Postgres schema.

A store is created fresh for every run, so a campaign never reads or changes a thread
it did not write. After the kill, `snapshot` freezes what the crash left before the
resume changes it: SQLite's file is copied byte for byte with its `-wal`/`-shm`;
a Postgres schema is copied table for table into `<schema>_at_kill` on the same server
(`CREATE TABLE ... AS TABLE`, rows unchanged) and exported to a SQLite file in
LangGraph's SqliteSaver layout (writes rows byte for byte; each checkpoint rebuilt from
its JSONB and blobs by LangGraph's own PostgresSaver and serialized by SqliteSaver's
serde), so the dashboard can open every run, also after a throw-away server is gone.

Counts (checkpoints, writes, which acknowledged checkpoint ids still exist) are read
from the store itself: for Postgres with SQL on the frozen schema, not from the export.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from replaylens.errors import ReplaylensError
from replaylens.killtest._child import DSN_ENV, pg_options, session_name
from replaylens.killtest._runner import snapshot_db

Backend = Literal["sqlite", "postgres"]
PG_TABLES = ("checkpoint_migrations", "checkpoints", "checkpoint_blobs", "checkpoint_writes")
CONNECT_TIMEOUT_S = 5
KILLED_SESSIONS_WAIT_S = 60.0
"""How long `PostgresBackend.snapshot` waits for a killed child's sessions to leave the
server; a statement still running that long is frozen as far as it got."""


class BackendError(ReplaylensError):
    """The store cannot be used (server unreachable, no right to create a schema)."""


@dataclass
class RunStore:
    """One run's store: what the child is told, and where the evidence goes."""

    backend: Backend
    spec: dict[str, Any]
    """The child's `store` (no password in it)."""
    name: str
    """The SQLite file (relative to the campaign) or the Postgres schema."""
    db_after_resume: Path
    db_at_kill: Path


class SqliteBackend:
    """The default: every run gets its own SQLite file next to its evidence."""

    kind: Backend = "sqlite"
    label = "sqlite"

    def env(self) -> dict[str, str]:
        return {}

    def prepare(self, run_dir: Path, rel: Path, run_name: str) -> RunStore:
        db = run_dir / "checkpoints.db"
        return RunStore(
            "sqlite",
            {"kind": "sqlite", "path": str(db)},
            str(rel / db.name),
            db,
            run_dir / "at-kill.db",
        )

    def snapshot(self, store: RunStore) -> None:
        if not store.db_after_resume.exists():  # the child died before SqliteSaver created the file
            store.db_after_resume.touch()
        snapshot_db(store.db_after_resume, store.db_at_kill)

    def finish(self, store: RunStore) -> None:
        if not store.db_after_resume.exists():
            store.db_after_resume.touch()

    def counts(self, store: RunStore, thread_id: str) -> tuple[int, int, set[str]]:
        """(checkpoints, writes, checkpoint ids) of the thread in the at-kill snapshot."""
        from replaylens.errors import ThreadNotFound
        from replaylens.sources import open_source

        source = open_source(store.db_at_kill)
        try:
            if not any(r.thread_id == thread_id for r in source.thread_index()):
                return 0, 0, set()
            try:
                rows = source.read_thread(thread_id)
            except ThreadNotFound:
                return 0, 0, set()
            return (
                len(rows.checkpoints),
                len(rows.writes),
                {c.checkpoint_id for c in rows.checkpoints},
            )
        finally:
            source.close()

    def close(self) -> None:
        pass


def _ident(name: str) -> str:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise BackendError(f"{name!r} is not a schema name replaylens creates.")
    return f'"{name}"'


@dataclass
class PostgresBackend:
    """Runs in fresh schemas `rlkt_<campaign tag>_<n>` of the database the DSN names.

    The DSN (with its password) stays in this object and in the children's environment;
    only `label` (no password, no query) is printed or stored.
    """

    dsn: str
    tag: str = field(default_factory=lambda: secrets.token_hex(3))
    server: Any = None
    """The `PgServer` this command started (`--pg-ephemeral`), else None: only that one may be crashed."""
    kind: Backend = "postgres"
    schemas: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        from replaylens import dsn

        self.label = dsn.redact(self.dsn)
        try:
            import langgraph.checkpoint.postgres  # noqa: F401 - the saver every run writes with
        except ImportError:
            raise BackendError(
                "A Postgres kill test writes with LangGraph's PostgresSaver, which is not installed: "
                "pip install langgraph-checkpoint-postgres."
            ) from None
        self._check()

    # -- connections ----------------------------------------------------------------
    @contextlib.contextmanager
    def _connect(self, schema: str | None = None) -> Iterator[Any]:
        try:
            import psycopg
        except ImportError:
            raise BackendError(
                "--checkpointer postgresql://… needs psycopg (pip install 'psycopg[binary]')."
            ) from None
        from replaylens import dsn

        kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S}
        if schema is not None:
            kwargs["options"] = pg_options(schema)
        try:
            conn = psycopg.connect(self.dsn, **kwargs)
        except psycopg.Error as exc:
            text = dsn.scrub(" ".join(str(exc).split()), self.dsn)
            raise BackendError(
                f"Cannot connect to the Postgres checkpointer {self.label}: {text}"
            ) from None
        try:
            yield conn
        except psycopg.Error as exc:  # the server went away or refused mid-campaign: one sentence
            text = dsn.scrub(" ".join(str(exc).split()) or type(exc).__name__, self.dsn)
            raise BackendError(
                f"The Postgres checkpointer {self.label} failed in the middle of the campaign: {text}"
            ) from None
        finally:
            conn.close()

    def _check(self) -> None:
        """Fail now, in one sentence, if the server is unreachable or refuses CREATE SCHEMA."""
        import psycopg

        with self._connect() as conn:
            try:
                conn.execute("BEGIN")
                conn.execute(f"CREATE SCHEMA {_ident('rlkt_' + self.tag + '_probe')}")
                conn.execute("ROLLBACK")
            except psycopg.errors.InsufficientPrivilege:
                user = conn.info.user
                raise BackendError(
                    f"The Postgres user {user!r} may not create schemas in {self.label}; the kill test runs each "
                    "run in a fresh schema of its own (GRANT CREATE ON DATABASE … TO that user, or use --pg-ephemeral)."
                ) from None
            except psycopg.Error as exc:
                raise BackendError(
                    f"{self.label}: cannot create a schema ({' '.join(str(exc).split())})."
                ) from None

    def env(self) -> dict[str, str]:
        return {DSN_ENV: self.dsn}

    # -- one run --------------------------------------------------------------------
    def prepare(
        self, run_dir: Path, rel: Path, run_name: str, synchronous_commit: str | None = None
    ) -> RunStore:
        """CREATE SCHEMA for the run and run PostgresSaver.setup() in it (our own, empty schema)."""
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        schema = f"rlkt_{self.tag}_{len(self.schemas) + 1}"
        with self._connect() as conn:
            conn.execute(f"CREATE SCHEMA {_ident(schema)}")
        self.schemas.append(schema)
        with self._connect(schema) as conn:
            conn.row_factory = dict_row
            conn.prepare_threshold = 0
            PostgresSaver(conn).setup()
        spec = {"kind": "postgres", "schema": schema, "synchronous_commit": synchronous_commit}
        return RunStore(
            "postgres", spec, schema, run_dir / "checkpoints.db", run_dir / "at-kill.db"
        )

    def snapshot(self, store: RunStore) -> None:
        """Freeze the run's schema into `<schema>_at_kill`, then export that to the at-kill file.

        The freeze waits until the killed child's sessions have left the server. A SIGKILL
        closes the client's socket, but a statement the server had received before it runs to
        its end and commits (autocommit): a checkpoint put in flight at the kill lands a few
        milliseconds later, and the resume starts from it. Frozen at once, the evidence would
        lack a checkpoint the resume then loads (join_loop_cond_edge at 0.5 s, killed in `qa`).
        """
        frozen = f"{store.name}_at_kill"
        with self._connect() as conn:
            self._wait_for_sessions_to_leave(conn, session_name(store.name))
            conn.execute(f"CREATE SCHEMA {_ident(frozen)}")
            for table in PG_TABLES:
                conn.execute(
                    f"CREATE TABLE {_ident(frozen)}.{table} AS TABLE {_ident(store.name)}.{table}"
                )
        self.export(frozen, store.db_at_kill)

    @staticmethod
    def _wait_for_sessions_to_leave(conn: Any, name: str) -> None:
        """Return once no session named `name` is left on the server (each ends as its last
        statement does, the client being gone), or after `KILLED_SESSIONS_WAIT_S`."""
        import time

        give_up = time.monotonic() + KILLED_SESSIONS_WAIT_S
        while time.monotonic() < give_up:
            (left,) = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)
            ).fetchone()
            if not left:
                return
            time.sleep(0.01)

    def finish(self, store: RunStore) -> None:
        """After the resume: export the run's schema as it ended."""
        self.export(store.name, store.db_after_resume)

    def counts(self, store: RunStore, thread_id: str) -> tuple[int, int, set[str]]:
        """(checkpoints, writes, checkpoint ids) of the thread in the frozen at-kill schema."""
        frozen = _ident(f"{store.name}_at_kill")
        with self._connect() as conn:
            ids = {r[0] for r in conn.execute(
                f"SELECT checkpoint_id FROM {frozen}.checkpoints WHERE thread_id = %s", (thread_id,))}  # fmt: skip
            (writes,) = conn.execute(
                f"SELECT count(*) FROM {frozen}.checkpoint_writes WHERE thread_id = %s",
                (thread_id,),
            ).fetchone()
        return len(ids), int(writes), ids

    def export(self, schema: str, dest: Path) -> None:
        """Write the schema's checkpoints and writes into a new SQLite file (SqliteSaver's layout)."""
        from langgraph.checkpoint.postgres import PostgresSaver
        from langgraph.checkpoint.sqlite import SqliteSaver
        from psycopg.rows import dict_row

        for suffix in ("", "-wal", "-shm"):
            Path(f"{dest}{suffix}").unlink(missing_ok=True)
        lite_conn = sqlite3.connect(dest, check_same_thread=False)
        try:
            lite = SqliteSaver(lite_conn)
            lite.setup()
            with self._connect(schema) as conn:
                conn.row_factory = dict_row
                conn.prepare_threshold = 0
                saver = PostgresSaver(conn)
                rows = []
                for tup in saver.list(None):
                    conf = tup.config["configurable"]
                    parent = (tup.parent_config or {}).get("configurable", {}).get("checkpoint_id")
                    kind, blob = lite.serde.dumps_typed(tup.checkpoint)
                    meta = json.dumps(tup.metadata, ensure_ascii=False).encode()
                    rows.append((conf["thread_id"], conf.get("checkpoint_ns", ""), conf["checkpoint_id"],
                                 parent, kind, blob, meta))  # fmt: skip
                # (every column: the task path is a later migration of either saver's, and
                # the releases of the two installed beside each other need not agree on it)
                writes = conn.execute(
                    "SELECT * FROM checkpoint_writes "
                    "ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx"
                ).fetchall()
            with lite_conn:
                lite_conn.executemany("INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
                copy_writes(lite_conn, writes)
            lite_conn.execute(
                "PRAGMA wal_checkpoint(TRUNCATE)"
            )  # our own new file: fold its WAL in
        finally:
            lite_conn.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{dest}{suffix}").unlink(missing_ok=True)

    def schemas_created(self) -> list[str]:
        """Every schema this campaign made: each run's and its frozen `<schema>_at_kill` copy."""
        return [name for s in self.schemas for name in (s, f"{s}_at_kill")]

    def drop_schemas(self) -> list[str]:
        """DROP the campaign's schemas (its runs are exported to SQLite files already); return
        those still on the server (all of them when it cannot be reached)."""
        left: list[str] = []
        try:
            with self._connect() as conn:
                for name in self.schemas_created():
                    conn.execute(f"DROP SCHEMA IF EXISTS {_ident(name)} CASCADE")
        except BackendError:
            left = self._existing(self.schemas_created())
        return left

    def _existing(self, names: list[str]) -> list[str]:
        try:
            with self._connect() as conn:
                found = {r[0] for r in conn.execute(
                    "SELECT nspname FROM pg_namespace WHERE nspname = ANY(%s)", (names,))}  # fmt: skip
        except BackendError:
            return names  # the server is unreachable: nothing could be dropped
        return [n for n in names if n in found]

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def ephemeral_backend(settings: dict[str, str] | None = None) -> PostgresBackend:
    """Start a throw-away local cluster (Debian's postgresql) and a database on it."""
    from replaylens.killtest.pgserver import start_server

    server = start_server(settings)
    try:
        dsn = server.create_database("killtest")
        backend = PostgresBackend(dsn, server=server)
    except BaseException:
        server.stop()
        raise
    return backend


def copy_writes(lite_conn: sqlite3.Connection, writes: list[dict[str, Any]]) -> None:
    """Insert `checkpoint_writes` rows of a Postgres schema (every column, by name) into the
    SQLite file's `writes` table, which the installed SqliteSaver laid out: the task path is
    a later migration of either saver's, and the two releases installed beside each other
    need not agree on it (LangGraph 0.6.11: langgraph-checkpoint-postgres 2.0.25 keeps it,
    langgraph-checkpoint-sqlite 2.0.11 has no such column). The copy keeps what the server
    held: a table without the column gets it (that saver reads the columns it names, and
    judging the copy reads the same as judging the server); a row without it gets ""."""
    has_path = any(r[1] == "task_path" for r in lite_conn.execute("PRAGMA table_info(writes)"))
    if not has_path and any("task_path" in w for w in writes):
        lite_conn.execute("ALTER TABLE writes ADD COLUMN task_path TEXT NOT NULL DEFAULT ''")
        has_path = True
    path_col, path_arg = (", task_path", ", ?") if has_path else ("", "")
    lite_conn.executemany(
        f"INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id{path_col}, idx, "
        f"channel, type, value) VALUES (?, ?, ?, ?{path_arg}, ?, ?, ?, ?)",
        [
            (
                w["thread_id"],
                w["checkpoint_ns"],
                w["checkpoint_id"],
                w["task_id"],
                *((w.get("task_path") or "",) if has_path else ()),
                w["idx"],
                w["channel"],
                w["type"],
                bytes(w["blob"]) if w["blob"] is not None else None,
            )
            for w in writes
        ],
    )
