"""A LangGraph PostgreSQL checkpoint database (`PostgresSaver`), read without writing.

The saver keeps a checkpoint in three tables: `checkpoints` (the checkpoint as JSONB,
with primitive channel values inline), `checkpoint_blobs` (every other channel value,
keyed by thread, namespace, channel and version) and `checkpoint_writes`. A checkpoint's
state is its inline values plus the blobs its `channel_versions` point at, skipping blobs
of type `empty` (`BasePostgresSaver._load_checkpoint_tuple`).

What this reader does differently from the saver's own `SELECT_SQL`:

- the skeleton query fetches only the *names* and sizes of a checkpoint's blobs, plus the
  bytes of the few scheduling channels (`__pregel_tasks`, `branch:to:*`, `join:*`,
  `__start__`); message histories stay on the server until `read_channel_values`;
- every transaction is `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` on a session
  with `default_transaction_read_only = on`, so the checkpoints and writes of one read
  come from one snapshot and no statement can write; the saver's `setup()` (which
  creates tables and runs migrations) is never called;
- every statement is bounded by `statement_timeout`, so a locked or huge table gives a
  sentence, not a hung dashboard;
- psycopg is imported when a Postgres DSN is opened, not before: SQLite users and the
  CLI do not pay for it, and may not have it installed.

Like the SQLite reader, it does not move the pending `Send`s of checkpoints older than
format v4 from their parent's writes (`_migrate_pending_sends`): current LangGraph writes
v4 only.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from replaylens import dsn as dsn_mod
from replaylens._bulk import collector_paused
from replaylens.decode import DecodeResult, aes_key_from_env, decode_typed
from replaylens.errors import SourceError
from replaylens.sources._base import (
    ChangeMarks,
    CheckpointRecord,
    ReopenSpec,
    ThreadIndexRow,
    ThreadRows,
    WriteRecord,
    key_fingerprint,
    parse_metadata,
    tolerant_json_loads,
)
from replaylens.times import checkpoint_id_step

DSN_SCHEMES = ("postgresql://", "postgres://")
STATEMENT_TIMEOUT_MS = 15_000
CONNECT_TIMEOUT_S = 10
APPLICATION_NAME = "replaylens"
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "checkpoints": (
        "thread_id",
        "checkpoint_ns",
        "checkpoint_id",
        "parent_checkpoint_id",
        "checkpoint",
        "metadata",
    ),
    "checkpoint_blobs": ("thread_id", "checkpoint_ns", "channel", "version", "type", "blob"),
    "checkpoint_writes": (
        "thread_id",
        "checkpoint_ns",
        "checkpoint_id",
        "task_id",
        "idx",
        "channel",
        "type",
        "blob",
    ),
}
"""What this reader needs; `checkpoint_writes.task_path` (migration 9) is optional."""
T = TypeVar("T")


def is_postgres_dsn(spec: object) -> bool:
    """A libpq connection string, URI or key=value (one definition: replaylens.dsn)."""
    return dsn_mod.is_dsn(spec)


# -- the DSN, without its secret (replaylens.dsn does the work) ---------------------------
def redact_dsn(dsn: str) -> str:
    """The DSN with its password removed; never raises on a malformed one."""
    return dsn_mod.redact(dsn)


def dsn_password(dsn: str) -> str | None:
    """The longest form of the DSN's password (see replaylens.dsn.passwords for all of them)."""
    forms = dsn_mod.passwords(dsn)
    return forms[0] if forms else None


def dsn_database(dsn: str) -> str:
    return dsn_mod.database(dsn)


# -- the SQL ----------------------------------------------------------------------------
def _is_scheduling_sql(col: str) -> str:
    """SQL twin of `is_scheduling_channel` (no LIKE, so no `%` to escape for psycopg)."""
    return (
        f"({col} = '__pregel_tasks' OR {col} = '__start__' "
        f"OR left({col}, 10) = 'branch:to:' OR left({col}, 5) = 'join:')"
    )


def _jsonb_object(expr: str) -> str:
    """`expr` when it is a JSON object, else `{}`: a hand-edited row must not fail the query."""
    return f"(CASE WHEN jsonb_typeof({expr}) = 'object' THEN {expr} ELSE '{{}}'::jsonb END)"


_VALUES = _jsonb_object("c.checkpoint -> 'channel_values'")
_VERSIONS = _jsonb_object("c.checkpoint -> 'channel_versions'")
_SCHED_BLOB = f"bl.type <> 'empty' AND {_is_scheduling_sql('bl.channel')}"

# One row per checkpoint: the JSONB without channel_values, the names of the inline
# values and the inline scheduling values, and, from the blobs its versions point at,
# the channel names, total size and the bytes of the scheduling channels only.
SKELETON_SELECT = f"""
SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id,
       c.checkpoint - 'channel_values' AS skeleton, c.metadata,
       ARRAY(SELECT jsonb_object_keys({_VALUES})) AS inline_keys,
       (SELECT jsonb_object_agg(iv.key, iv.value) FROM jsonb_each({_VALUES}) AS iv
         WHERE {_is_scheduling_sql("iv.key")}) AS inline_sched,
       pg_column_size(c.checkpoint) AS checkpoint_bytes,
       b.channels, b.bytes, b.sched_channels, b.sched_types, b.sched_blobs
FROM checkpoints c
LEFT JOIN LATERAL (
    SELECT array_agg(bl.channel) FILTER (WHERE bl.type <> 'empty') AS channels,
           COALESCE(SUM(octet_length(bl.blob)), 0)::bigint AS bytes,
           array_agg(bl.channel ORDER BY bl.channel) FILTER (WHERE {_SCHED_BLOB}) AS sched_channels,
           array_agg(bl.type ORDER BY bl.channel) FILTER (WHERE {_SCHED_BLOB}) AS sched_types,
           array_agg(bl.blob ORDER BY bl.channel) FILTER (WHERE {_SCHED_BLOB}) AS sched_blobs
    FROM jsonb_each_text({_VERSIONS}) AS cv
    JOIN checkpoint_blobs bl
      ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
     AND bl.channel = cv.key AND bl.version = cv.value
) AS b ON true
"""

WRITE_COLUMNS = "w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, {path}, w.idx, w.channel, w.type, w.blob"
WRITE_ORDER = (
    'w.checkpoint_ns COLLATE "C", w.checkpoint_id COLLATE "C", w.task_id COLLATE "C", w.idx'
)

# The latest root checkpoint of each thread, as the saver's get_tuple picks it
# (ORDER BY checkpoint_id DESC, in the database's collation).
LATEST_CTE = """
WITH latest AS (
    SELECT DISTINCT ON (thread_id) thread_id, checkpoint_ns, checkpoint_id
    FROM checkpoints WHERE checkpoint_ns = '' {extra}
    ORDER BY thread_id, checkpoint_id DESC
)
"""

# The same, for (thread id, checkpoint id) pairs the thread list already found.
PAIRS_CTE = """
WITH latest AS (
    SELECT k.thread_id, ''::text AS checkpoint_ns, k.checkpoint_id
    FROM unnest(%s::text[], %s::text[]) AS k(thread_id, checkpoint_id)
)
"""

# The thread list, one keyset page at a time: the GROUP BY walks the primary key from the
# last thread id of the previous page and stops after LIMIT threads; the latest root
# checkpoint of each comes from a lateral seek in the same index (the saver's get_tuple
# order: checkpoint_id DESC in the database's collation). Index-only: no row is read,
# so the step and time come from the checkpoint id, as on SQLite, and the writes count
# is left to `writes_keys`, asked batch by batch while the statuses are worked out.
THREAD_PAGE = 5000
THREAD_INDEX_SQL = """
WITH page AS (
    SELECT thread_id, COUNT(*) AS n, bool_or(checkpoint_ns <> '') AS nested
    FROM checkpoints WHERE %(first)s OR thread_id > %(after)s
    GROUP BY thread_id ORDER BY thread_id LIMIT %(limit)s
)
SELECT p.thread_id, p.n, p.nested, l.checkpoint_id AS latest
FROM page p LEFT JOIN LATERAL (
    SELECT c.checkpoint_id FROM checkpoints c WHERE c.thread_id = p.thread_id AND c.checkpoint_ns = ''
    ORDER BY c.checkpoint_id DESC LIMIT 1
) AS l ON true
ORDER BY p.thread_id
"""
# Only threads with subgraphs have more than one namespace to count.
NAMESPACES_SQL = """
SELECT thread_id, COUNT(DISTINCT checkpoint_ns) AS nns FROM checkpoints
WHERE thread_id = ANY(%s) GROUP BY thread_id
"""

_ALL_BLOBS = "bl.type <> 'empty'"
CHANNEL_VALUES_SQL = f"""
SELECT {_VALUES} AS inline_values, b.channels, b.types, b.blobs
FROM checkpoints c
LEFT JOIN LATERAL (
    SELECT array_agg(bl.channel ORDER BY bl.channel) AS channels,
           array_agg(bl.type ORDER BY bl.channel) AS types,
           array_agg(bl.blob ORDER BY bl.channel) AS blobs
    FROM jsonb_each_text({_VERSIONS}) AS cv
    JOIN checkpoint_blobs bl
      ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
     AND bl.channel = cv.key AND bl.version = cv.value
    WHERE {_ALL_BLOBS}
) AS b ON true
WHERE c.thread_id = %s AND c.checkpoint_ns = %s AND c.checkpoint_id = %s
"""

# The writes whose checkpoint never landed (an async-durability crash leaves them), per
# thread and task: one anti-join on the checkpoints' primary key.
ORPHAN_WRITES_SQL = """
SELECT w.thread_id, w.checkpoint_ns, w.task_id, COUNT(*) AS n, COALESCE(SUM(pg_column_size(w.blob)), 0)::bigint AS b
FROM checkpoint_writes w
WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id
                  AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)
GROUP BY w.thread_id, w.checkpoint_ns, w.task_id
"""

# Changes whenever any transaction that wrote anything commits or aborts: every write to
# the checkpoint tables takes a transaction id, and a snapshot's xmin:xmax:xip list moves
# when such a transaction ends. Read-only transactions (ours) take no id. Writes to
# other tables of the cluster move it too, which costs a re-read, never a stale view.
# (The table statistics counters were the first idea: a writer flushes them up to 10 s
# after its commit when idle, so a refreshed view could stay stale that long.)
IDENTITY_SQL = "SELECT pg_current_snapshot()::text AS snapshot"
IDENTITY_SQL_BEFORE_13 = "SELECT txid_current_snapshot()::text AS snapshot"


# Each table of the search_path: whether it exists, its columns and their types.
SCHEMA_SQL = """
SELECT t.name, to_regclass(t.name) IS NOT NULL AS present,
       ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = to_regclass(t.name)
             AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum) AS columns,
       ARRAY(SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
             WHERE a.attrelid = to_regclass(t.name) AND a.attnum > 0 AND NOT a.attisdropped
             ORDER BY a.attnum) AS types
FROM unnest(%s::text[]) AS t(name)
"""


# -- decoding rows ----------------------------------------------------------------------
def _decode_scheduling(rec: CheckpointRecord, row: dict[str, Any], aes_key: bytes | None) -> None:
    """Inline JSON values are plain data; blobs go through the strict decoder."""
    inline = row["inline_sched"] if isinstance(row["inline_sched"], dict) else {}
    rec.scheduling_values = dict(inline)
    channels = row["sched_channels"] or []
    for name, type_, blob in zip(
        channels, row["sched_types"] or [], row["sched_blobs"] or [], strict=False
    ):
        result = decode_typed(type_, blob, aes_key=aes_key)
        if result.error and rec.error is None:
            rec.error = f"its {name} channel cannot be decoded ({result.error})"
        rec.scheduling_values[name] = result.value  # a blob wins over an inline marker


def _fill_from_skeleton(rec: CheckpointRecord, skeleton: Any) -> None:
    if not isinstance(skeleton, dict):
        rec.error = "the checkpoint JSONB is not an object"
        return
    rec.v = skeleton.get("v") if isinstance(skeleton.get("v"), int) else None
    rec.ts = skeleton.get("ts") if isinstance(skeleton.get("ts"), str) else None
    versions = skeleton.get("channel_versions")
    rec.channel_versions = dict(versions) if isinstance(versions, dict) else {}
    seen = skeleton.get("versions_seen")
    if isinstance(seen, dict):
        rec.versions_seen = {str(k): v for k, v in seen.items() if isinstance(v, dict)}
    updated = skeleton.get("updated_channels")
    rec.updated_channels = list(updated) if isinstance(updated, list) else None


def record_from_row(row: dict[str, Any], aes_key: bytes | None) -> CheckpointRecord:
    """A CheckpointRecord from one SKELETON_SELECT row (metadata parsed by the caller)."""
    rec = CheckpointRecord(
        thread_id=str(row["thread_id"]),
        checkpoint_ns=str(row["checkpoint_ns"] or ""),
        checkpoint_id=str(row["checkpoint_id"]),
        parent_checkpoint_id=row["parent_checkpoint_id"],
        metadata={},
    )
    rec.blob_type = "jsonb"
    rec.blob_size = int(row["checkpoint_bytes"] or 0) + int(row["bytes"] or 0)
    _fill_from_skeleton(rec, row["skeleton"])
    rec.present_channels = frozenset([*(row["inline_keys"] or []), *(row["channels"] or [])])
    _decode_scheduling(rec, row, aes_key)
    return rec


def channel_values_from_row(row: dict[str, Any], aes_key: bytes | None) -> dict[str, DecodeResult]:
    """Inline values merged with the decoded blobs, as `_load_checkpoint_tuple` merges them."""
    out: dict[str, DecodeResult] = {
        str(k): DecodeResult(v) for k, v in (row["inline_values"] or {}).items()
    }
    for name, type_, blob in zip(
        row["channels"] or [], row["types"] or [], row["blobs"] or [], strict=False
    ):
        out[str(name)] = decode_typed(type_, blob, aes_key=aes_key)
    return out


# -- errors -----------------------------------------------------------------------------
# libpq's connection failures carry no SQLSTATE, only English text: matched in order.
_CONNECT_REASONS: tuple[tuple[str, str], ...] = (
    (
        r"password authentication failed|no password supplied|authentication failed",
        "the server rejected the user name or password",
    ),
    (r'role ".*" does not exist', "the server has no such user"),
    (r'database ".*" does not exist', "the database {db} does not exist on the server"),
    (
        r"connection refused",
        "nothing accepts connections at that host and port (connection refused)",
    ),
    (r"timeout expired|timed out", "the server did not answer within {timeout} s"),
    (
        r"could not translate host name|failed to resolve host|name or service not known",
        "the host name cannot be resolved",
    ),
    (r"no pg_hba\.conf entry", "the server does not allow this client to connect (pg_hba.conf)"),
    (r"too many clients|remaining connection slots", "the server has no free connection slots"),
)


def _turn_off_jit(conn: Any, psycopg: Any) -> None:
    """Every query here is index seeks over a few thousand rows; the JIT compiler would spend
    30-60 ms on each (the status job asks two a batch: 5 s on 100,000 threads). A server
    without the setting (before PostgreSQL 11) keeps its default."""
    try:
        conn.execute("SET jit = off")
    except psycopg.Error:
        pass


def _one_line(text: str, dsn: str | None) -> str:
    """The first line of a driver message, without any form of the password, without a final period."""
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else "unknown error"
    return dsn_mod.scrub(line, dsn).rstrip(" .")[:300]


def connect_error(label: str, dsn: str, exc: Exception) -> SourceError:
    """One sentence for a failed connection: why, in words, never the password."""
    message = str(exc).lower()
    for pattern, reason in _CONNECT_REASONS:
        if re.search(pattern, message):
            why = reason.format(db=repr(dsn_database(dsn)), timeout=CONNECT_TIMEOUT_S)
            return SourceError(f"{label}: cannot connect, {why}.")
    return SourceError(f"{label}: cannot connect ({_one_line(str(exc), dsn)}).")


def _import_psycopg(label: str) -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise SourceError(
            f"{label}: reading a PostgreSQL checkpoint database needs psycopg 3, "
            "which is not installed (pip install 'psycopg[binary]>=3.2')."
        ) from exc
    return psycopg


class PostgresSource:
    """Read-only access to the checkpoint tables of one PostgreSQL database."""

    kind = "postgres"

    def __init__(self, dsn: str, *, aes_key: bytes | None = None) -> None:
        self._dsn = dsn_mod.normalize(dsn)  # private: it carries the password; show `label`
        self.label = redact_dsn(dsn)
        self.aes_key = aes_key if aes_key is not None else aes_key_from_env()
        self.notes: list[str] = []
        self.has_task_path = True
        self._psycopg = _import_psycopg(self.label)
        self._lock = threading.Lock()
        self._timeout_ms = STATEMENT_TIMEOUT_MS  # the bound of the transaction running now
        self._conn: Any = None
        with self._lock:
            self._conn = self._connect()
        try:
            self._check_schema()
        except BaseException:
            self.close()  # a refused database must not leave a session open on the server
            raise

    # -- connecting ----------------------------------------------------------------
    def _connect(self) -> Any:
        """A session that cannot write: read-only by default, timed out, named in pg_stat_activity."""
        psycopg = self._psycopg
        from psycopg.rows import dict_row

        try:
            dsn_mod.check_syntax(self._dsn)
        except dsn_mod.DsnError as exc:
            raise SourceError(str(exc)) from None
        try:
            conn = psycopg.connect(
                self._dsn,
                autocommit=True,
                connect_timeout=CONNECT_TIMEOUT_S,
                application_name=APPLICATION_NAME,
                prepare_threshold=None,  # no server-side prepared statements: poolers welcome
                row_factory=dict_row,
            )
        except psycopg.Error as exc:
            raise connect_error(self.label, self._dsn, exc) from None
        from psycopg.types.json import set_json_loads

        set_json_loads(tolerant_json_loads, conn)  # one too-deep jsonb cell must not fail the query
        try:
            conn.execute("SET default_transaction_read_only = on")
            conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
            _turn_off_jit(conn, psycopg)
            conn.autocommit = False
            conn.read_only = True
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        except psycopg.Error as exc:
            conn.close()
            raise self._query_error(exc) from None
        return conn

    def _query_error(self, exc: Exception) -> SourceError:
        psycopg = self._psycopg
        if isinstance(exc, psycopg.errors.QueryCanceled):
            return SourceError(
                f"{self.label}: a query took longer than {self._timeout_ms / 1000:g} s and was cancelled."
            )
        if isinstance(exc, psycopg.errors.InsufficientPrivilege):
            return SourceError(
                f"{self.label}: the user may not read the checkpoint tables ({_one_line(str(exc), self._dsn)})."
            )
        return SourceError(
            f"{self.label}: the database cannot be read ({_one_line(str(exc), self._dsn)})."
        )

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        """One read-only snapshot on the shared connection; reconnects once if it was lost."""
        psycopg = self._psycopg
        with self._lock:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = self._connect()
            try:
                with self._conn.transaction(), self._conn.cursor() as cur:
                    yield cur
            except psycopg.Error as exc:
                raise self._query_error(exc) from None

    def _run(self, work: Callable[[Any], T]) -> T:
        """Run `work(cursor)` in a transaction; a dropped connection is retried once."""
        try:
            with self._transaction() as cur:
                return work(cur)
        except SourceError:
            if self._conn is not None and not self._conn.broken:
                raise
        with self._transaction() as cur:
            return work(cur)

    def snapshot_read(self, work: Callable[[Any], T], *, timeout_s: float | None = None) -> T:
        """Run `work(cursor)` in one `REPEATABLE READ, READ ONLY` transaction (one snapshot,
        every statement bounded by the statement timeout, or by `timeout_s` for this
        transaction only: `SET LOCAL`, never the session); a dropped connection is retried
        once. For readers with SQL of their own (storage forensics, bundles)."""
        if timeout_s is None:
            return self._run(work)
        ms = max(1, int(timeout_s * 1000))

        def bounded(cur: Any) -> T:
            self._timeout_ms = ms
            cur.execute(f"SET LOCAL statement_timeout = {ms}")
            return work(cur)

        try:
            return self._run(bounded)
        finally:
            self._timeout_ms = STATEMENT_TIMEOUT_MS

    def orphan_write_tasks(self) -> list[tuple[str, str, str, int, int]]:
        """(thread id, namespace, task id, rows, stored bytes) of the writes whose checkpoint
        never landed."""
        return [
            (
                str(r["thread_id"]),
                str(r["checkpoint_ns"] or ""),
                str(r["task_id"]),
                int(r["n"]),
                int(r["b"]),
            )
            for r in self._fetch(ORPHAN_WRITES_SQL)
        ]

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        def work(cur: Any) -> list[dict[str, Any]]:
            cur.execute(sql, params)
            return list(cur.fetchall())

        return self._run(work)

    def _check_schema(self) -> None:
        """Fail with one sentence unless the saver's tables and columns are there."""
        found = {
            r["name"]: {c: t for c, t in zip(r["columns"] or [], r["types"] or [], strict=False)}
            for r in self._fetch(SCHEMA_SQL, (list(REQUIRED_COLUMNS),))
            if r["present"]
        }
        missing = [t for t in REQUIRED_COLUMNS if t not in found]
        if missing:
            raise SourceError(
                f"{self.label}: is a PostgreSQL database but not a LangGraph checkpoint database "
                f"(no {' or '.join(missing)} table)."
            )
        for table, needed in REQUIRED_COLUMNS.items():
            lacking = sorted(set(needed) - set(found[table]))
            if lacking:
                raise SourceError(
                    f"{self.label}: the {table} table lacks the column(s) {', '.join(lacking)}."
                )
        for column in ("checkpoint", "metadata"):
            if found["checkpoints"][column] != "jsonb":
                raise SourceError(
                    f"{self.label}: checkpoints.{column} is {found['checkpoints'][column]}, not jsonb, "
                    "so this is not a PostgresSaver database."
                )
        self.has_task_path = "task_path" in found["checkpoint_writes"]
        if not self.has_task_path:
            self.notes.append(
                "This database predates the checkpoint_writes.task_path column; task paths are blank."
            )

    # -- the protocol --------------------------------------------------------------
    def cache_identity(self) -> str:
        """The database across runs: the DSN without its secret, and which key reads its blobs."""
        return f"postgres\0{self.label}\0{key_fingerprint(self.aes_key)}"

    def identity(self) -> tuple[Any, ...]:
        """The cache key of a loaded view: changes as soon as a write to the database commits."""
        with self._lock:
            version = self._conn.info.server_version if self._conn is not None else 130000
        sql = IDENTITY_SQL if version >= 130000 else IDENTITY_SQL_BEFORE_13
        return (self.label, self._fetch(sql)[0]["snapshot"])

    def server_settings(self) -> dict[str, str]:
        """synchronous_commit decides whether a committed checkpoint survives a server crash."""

        def work(cur: Any) -> dict[str, str]:
            out: dict[str, str] = {}
            for name in ("synchronous_commit", "server_version"):
                cur.execute(f"SHOW {name}")
                out[name] = str(next(iter(cur.fetchone().values())))
            return out

        return self._run(work)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> PostgresSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------
    def thread_index(self) -> list[ThreadIndexRow]:
        """Every thread's counts, latest root checkpoint, and its step and time from the id:
        keyset pages of THREAD_PAGE threads, all in one read-only snapshot, index-only."""

        def work(cur: Any) -> tuple[list[dict[str, Any]], dict[str, int]]:
            rows: list[dict[str, Any]] = []
            after: str | None = None
            while True:
                cur.execute(
                    THREAD_INDEX_SQL,
                    {"first": after is None, "after": after or "", "limit": THREAD_PAGE},
                )
                page = list(cur.fetchall())
                rows += page
                if len(page) < THREAD_PAGE:
                    break
                after = page[-1]["thread_id"]
            nested = [r["thread_id"] for r in rows if r["nested"]]
            spaces: dict[str, int] = {}
            if nested:
                cur.execute(NAMESPACES_SQL, (nested,))
                spaces = {str(r["thread_id"]): int(r["nns"]) for r in cur.fetchall()}
            return rows, spaces

        rows, spaces = self._run(work)
        with collector_paused():  # 100,000 tuples, no cycles (see replaylens._bulk)
            rows.sort(key=lambda r: str(r["thread_id"]))  # code-point order, as on SQLite
            return [
                ThreadIndexRow(
                    str(r["thread_id"]), int(r["n"]), spaces.get(str(r["thread_id"]), 1), r["latest"], {},
                    checkpoint_id_step(r["latest"], int(r["n"])), None, None if r["latest"] else "",
                )
                for r in rows
            ]  # fmt: skip

    def writes_keys(self, latest: dict[str, str]) -> dict[str, str]:
        """The writes count of each (thread id -> latest checkpoint id)."""
        sql = ("SELECT k.t AS thread_id, COUNT(w.thread_id) AS n FROM unnest(%s::text[], %s::text[]) AS k(t, c) "
               "LEFT JOIN checkpoint_writes w ON w.thread_id = k.t AND w.checkpoint_ns = '' AND w.checkpoint_id = k.c "
               "GROUP BY k.t")  # fmt: skip
        return {
            str(r["thread_id"]): str(r["n"])
            for r in self._fetch(sql, (list(latest), list(latest.values())))
        }

    def reopen_spec(self) -> ReopenSpec | None:
        """The DSN (with its password: it goes to the other process through a pipe) and key."""
        return (self._dsn, self.aes_key)

    def change_marks(self) -> ChangeMarks | None:
        """None: Postgres rows carry no insertion order a reader may rely on (no rowid; `xmin`
        wraps and is not indexed), and `thread_index` reads each thread's writes count anyway."""
        return None

    def changed_since(self, marks: ChangeMarks) -> set[str] | None:
        return None

    def thread_version(self, thread_id: str) -> tuple[Any, ...]:
        """The thread's checkpoint count and latest id, its writes count, and last the latest root
        checkpoint's step."""

        def work(cur: Any) -> tuple[Any, ...]:
            cur.execute("SELECT COUNT(*) AS n, MAX(checkpoint_id) AS latest FROM checkpoints WHERE thread_id = %s",
                        (thread_id,))  # fmt: skip
            cps = cur.fetchone()
            cur.execute(
                "SELECT COUNT(*) AS n FROM checkpoint_writes WHERE thread_id = %s", (thread_id,)
            )
            writes = cur.fetchone()["n"]
            cur.execute("SELECT metadata -> 'step' AS step FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '' "
                        "ORDER BY checkpoint_id DESC LIMIT 1", (thread_id,))  # fmt: skip
            row = cur.fetchone()
            return (cps["n"], cps["latest"], writes, row["step"] if row else None)

        return self._run(work)

    def _records(self, rows: list[dict[str, Any]], problems: list[str]) -> list[CheckpointRecord]:
        out: list[CheckpointRecord] = []
        for row in rows:
            rec = record_from_row(row, self.aes_key)
            where = f"checkpoint {rec.checkpoint_id} (thread {rec.thread_id}, namespace {rec.checkpoint_ns!r})"
            rec.metadata = parse_metadata(row["metadata"], where, problems)
            if rec.error:
                problems.append(f"{where}: {rec.error}; it is marked unreadable, the rest loads.")
            out.append(rec)
        return out

    def _writes(self, rows: list[dict[str, Any]]) -> list[WriteRecord]:
        return [
            WriteRecord(
                thread_id=str(r["thread_id"]),
                checkpoint_ns=str(r["checkpoint_ns"] or ""),
                checkpoint_id=str(r["checkpoint_id"]),
                task_id=str(r["task_id"]),
                task_path=str(r["task_path"] or ""),
                idx=int(r["idx"]),
                channel=str(r["channel"]),
                type=r["type"],
                raw=bytes(r["blob"]) if r["blob"] is not None else None,
                aes_key=self.aes_key,
            )
            for r in rows
        ]

    @property
    def _write_columns(self) -> str:
        return WRITE_COLUMNS.format(path="w.task_path" if self.has_task_path else "'' AS task_path")

    def read_thread(self, thread_id: str) -> ThreadRows:
        def work(cur: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            cur.execute(f"{SKELETON_SELECT} WHERE c.thread_id = %s", (thread_id,))
            cps = list(cur.fetchall())
            cur.execute(
                f"SELECT {self._write_columns} FROM checkpoint_writes w WHERE w.thread_id = %s "
                f"ORDER BY {WRITE_ORDER}",
                (thread_id,),
            )
            return cps, list(cur.fetchall())

        problems: list[str] = []
        cps, writes = self._run(work)
        return ThreadRows(self._records(cps, problems), self._writes(writes), problems)

    def read_latest(
        self, thread_ids: list[str] | None = None, *, known: dict[str, str] | None = None
    ) -> ThreadRows:
        """The latest root checkpoint of every thread and its writes, in one snapshot.

        With `known` (thread id -> latest checkpoint id, from thread_index) both queries are
        driven by those pairs, one primary-key seek each; otherwise DISTINCT ON finds the
        latest ids (a join against it let the planner scan every write: 2 s a batch)."""
        if known is not None:
            wanted = None if thread_ids is None else set(thread_ids)
            pairs = {t: c for t, c in known.items() if wanted is None or t in wanted}
            cte = PAIRS_CTE
            params: tuple[Any, ...] = (list(pairs), list(pairs.values()))
        else:
            extra, params = (
                ("AND thread_id = ANY(%s)", (list(thread_ids),))
                if thread_ids is not None
                else ("", ())
            )
            cte = LATEST_CTE.format(extra=extra)

        def work(cur: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            cur.execute(
                f"{cte}{SKELETON_SELECT} JOIN latest l ON c.thread_id = l.thread_id "
                "AND c.checkpoint_ns = l.checkpoint_ns AND c.checkpoint_id = l.checkpoint_id "
                'ORDER BY c.thread_id COLLATE "C"',
                params,
            )
            cps = list(cur.fetchall())
            cur.execute(
                f"{cte}SELECT {self._write_columns} FROM latest l JOIN checkpoint_writes w "
                "ON w.thread_id = l.thread_id AND w.checkpoint_ns = l.checkpoint_ns "
                f'AND w.checkpoint_id = l.checkpoint_id ORDER BY w.thread_id COLLATE "C", {WRITE_ORDER}',
                params,
            )
            return cps, list(cur.fetchall())

        problems: list[str] = []
        cps, writes = self._run(work)
        return ThreadRows(self._records(cps, problems), self._writes(writes), problems)

    def read_channel_values(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str
    ) -> dict[str, DecodeResult]:
        rows = self._fetch(CHANNEL_VALUES_SQL, (thread_id, checkpoint_ns, checkpoint_id))
        return channel_values_from_row(rows[0], self.aes_key) if rows else {}
