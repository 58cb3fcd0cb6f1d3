"""A LangGraph SQLite checkpoint database, opened so that nothing about it changes.

How the file is opened depends on what lies next to it, because each SQLite read-only
mode changes something in one of the cases (measured on SQLite 3.40):

- WAL database with `-wal` and `-shm`: `mode=ro&readonly_shm=1`. Sees the commits in
  the WAL, writes nothing (plain `mode=ro` rewrites the `-shm` read marks), takes no
  lock that blocks a live writer.
- WAL database without `-wal`: everything is in the main file; `immutable=1`.
  (`readonly_shm` would create an empty `-wal` here, plain `mode=ro` a `-shm`.)
- WAL database with a `-wal` but no `-shm`, or a rollback-journal database with a hot
  `-journal`: SQLite would have to recover into the originals, so the files are copied
  to a private temporary folder and the copy is opened; the originals are never opened
  for writing.
- Rollback-journal database: `mode=ro`; every read is one short statement so that the
  shared lock never outlives a query.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from replaylens import settings
from replaylens._bulk import collector_paused
from replaylens.decode import DecodeResult, aes_key_from_env
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
)
from replaylens.sources._skeleton import PrefixMemo, channel_values_from_blob, fill_skeleton
from replaylens.times import checkpoint_id_step

SQLITE_MAGIC = b"SQLite format 3\x00"
CHECKPOINT_COLUMNS = {
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "parent_checkpoint_id",
    "type",
    "checkpoint",
    "metadata",
}
WRITE_COLUMNS = {
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "task_id",
    "idx",
    "channel",
    "type",
    "value",
}
# SQLite's default compile-time ceiling for memory-mapped reads (SQLITE_MAX_MMAP_SIZE).
MMAP_BYTES = 0x7FFF0000
MMAP_ENV = "REPLAYLENS_SQLITE_MMAP_MB"


def mmap_bytes() -> int:
    """How much of the file SQLite may map: MMAP_BYTES, or REPLAYLENS_SQLITE_MMAP_MB (0 turns
    mapping off, e.g. where a memory limit counts mapped file pages as the process's)."""
    raw = settings.get(MMAP_ENV)
    if not raw:
        return MMAP_BYTES
    try:
        return max(0, min(int(float(raw) * (1 << 20)), MMAP_BYTES))
    except ValueError:
        return MMAP_BYTES


def _read_header(path: Path) -> bytes:
    """The first 100 bytes, opened without blocking: a file swapped for a FIFO after the
    is_file() check would otherwise hang the reader; anything not regular is refused."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SourceError(
                f"{path}: is not a regular file (a FIFO, socket or device), not a SQLite database."
            )
        return os.read(fd, 100)
    finally:
        os.close(fd)


def file_identity(path: Path) -> tuple[Any, ...]:
    """(resolved path, size and mtime of the file and of its -wal): changes whenever a
    commit lands, also one still in the WAL. Computed without opening the database, so a
    cache can be keyed by it before deciding to open anything."""
    parts: list[Any] = [str(path.resolve())]
    for suffix in ("", "-wal"):
        p = Path(f"{path}{suffix}")
        if p.exists():
            st = p.stat()
            parts += [st.st_size, st.st_mtime_ns]
    return tuple(parts)


def _uri(path: Path, params: str) -> str:
    return f"file:{quote(str(path.resolve()))}?{params}"


ORPHAN_WRITES_SQL = (
    "SELECT w.thread_id, w.checkpoint_ns, w.task_id, COUNT(*), SUM(length(w.value)) FROM writes w "
    "WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id "
    "AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id) GROUP BY 1, 2, 3"
)


T = TypeVar("T")

PG_SNAPSHOT_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def _side_files(path: Path) -> tuple[bool, bool, bool]:
    """Which of the -wal, -shm and -journal files lie next to the database right now."""
    return tuple(Path(f"{path}{s}").exists() for s in ("-wal", "-shm", "-journal"))  # type: ignore[return-value]


def is_pg_snapshot(tables: set[str]) -> bool:
    """A SQLite file that holds PostgresSaver's tables, not SqliteSaver's: a Postgres evidence
    bundle's snapshot (replaylens.sources._pgsnapshot reads it)."""
    return set(PG_SNAPSHOT_TABLES) <= tables and "writes" not in tables


class PostgresShapedFile(SourceError):
    """The file is in PostgresSaver's schema: open it with PgSnapshotSource instead."""


class SqliteSource:
    """Read-only access to one checkpoint database file."""

    kind = "sqlite"

    def __init__(self, path: str | os.PathLike[str], *, aes_key: bytes | None = None) -> None:
        self.path = Path(path)
        self.label = self.path.name
        self.aes_key = aes_key if aes_key is not None else aes_key_from_env()
        self.notes: list[str] = []
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        self.has_task_path = True
        self.has_rowid = True
        self.writes_rowid = True
        self._open_checked()

    def _open_checked(self) -> None:
        """Choose how to open the file, then read its schema (`_again_if_side_files_changed`:
        a live writer that closed its last connection in between deleted the -wal and -shm
        the open counted on; that is not a damaged file)."""
        self._again_if_side_files_changed(self._check_schema, choose_first=True)

    def _again_if_side_files_changed(
        self, step: Callable[[], T], *, choose_first: bool = False, attempts: int = 3
    ) -> T:
        """`step`, with how to open the file chosen again when it fails while the -wal, -shm
        or -journal next to it changed (a few times, bounded). A live writer whose last
        connection closes deletes its -wal and -shm (SQLite does on a clean close, once it
        folded the log into the file), and a read-only open that counted on that -shm fails
        with "unable to open database file". With `choose_first` the choice is made here,
        after the first look; else it was made earlier (at open), so the files may have
        changed before the first look, and the first failure chooses again regardless."""
        looked = _side_files(self.path)
        if choose_first:
            self._uri, self._journal = self._choose_uri()
        for attempt in range(attempts):
            try:
                return step()
            except PostgresShapedFile:
                raise
            except (SourceError, sqlite3.OperationalError):
                now = _side_files(self.path)
                unseen = attempt == 0 and not choose_first
                if attempt == attempts - 1 or not (unseen or now != looked):
                    raise
                looked = now
                self._drop_private_copy()
                self._uri, self._journal = self._choose_uri()
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _drop_private_copy(self) -> None:
        """Forget a private copy made on the look before (`close` removes it)."""
        if self._tmpdir is not None:
            self.close()
            self.notes = [n for n in self.notes if not n.startswith("Opened a private copy")]

    # -- opening -------------------------------------------------------------------
    def _choose_uri(self) -> tuple[str, str]:
        path = self.path
        if not path.exists():
            raise SourceError(f"{path}: no such file.")
        if path.is_dir():
            raise SourceError(f"{path}: is a folder, not a SQLite database file.")
        if not path.is_file():  # a FIFO would block the reader forever; a device is no database
            raise SourceError(
                f"{path}: is not a regular file (a FIFO, socket or device), not a SQLite database."
            )
        try:
            header = _read_header(path)
        except OSError as exc:
            raise SourceError(f"{path}: cannot be read ({exc.strerror}).") from exc
        if len(header) == 0:
            raise SourceError(f"{path}: is empty (0 bytes), not a checkpoint database.")
        if not header.startswith(SQLITE_MAGIC):
            raise SourceError(f"{path}: is not a SQLite database (the file header does not match).")
        if len(header) < 100:
            raise SourceError(f"{path}: is a truncated SQLite file ({len(header)} bytes).")
        wal_mode = header[18] == 2 or header[19] == 2
        wal, shm, journal = (Path(f"{path}{s}") for s in ("-wal", "-shm", "-journal"))
        if wal_mode:
            if wal.exists() and shm.exists():
                return _uri(path, "mode=ro&readonly_shm=1"), "wal"
            if not wal.exists() or wal.stat().st_size == 0:
                return _uri(path, "mode=ro&immutable=1"), "wal"
            return self._private_copy([wal], "its -wal file has no -shm next to it"), "wal"
        if journal.exists() and journal.stat().st_size > 0:
            return self._private_copy([journal], "a hot -journal file is next to it"), "delete"
        return _uri(path, "mode=ro"), "delete"

    def _private_copy(self, extras: list[Path], why: str) -> str:
        self._tmpdir = tempfile.TemporaryDirectory(prefix="replaylens-")
        target = Path(self._tmpdir.name) / self.path.name
        shutil.copy2(self.path, target)
        for extra in extras:
            shutil.copy2(extra, Path(f"{target}{extra.name[len(self.path.name) :]}"))
        self.notes.append(
            f"Opened a private copy of {self.path.name} because {why}; the original files "
            "were only read."
        )
        return _uri(target, "")

    def connect(self, *, mapped: bool = True) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self._uri, uri=True, check_same_thread=False, timeout=0.5)
        except sqlite3.Error as exc:
            raise SourceError(f"{self.path}: cannot be opened read-only ({exc}).") from exc
        conn.execute("PRAGMA query_only=1")
        # Memory-mapped reads: SQLite reads pages straight from the page cache instead of
        # one read() call per 4 KB page: the 1 GB thread loads in 0.6 s instead of 1.1 s,
        # 1.3 s instead of 2.3 s from a cold disk. It is a per-connection setting and maps
        # the file read-only; nothing is written. The mapped pages count in the RSS.
        # Index-only queries (the thread list) turn it off: a fault on a mapped index page
        # makes the kernel read around it, and the table's pages lie between the index's,
        # so the 10k-thread list mapped 760 MB and took 1.5-2.5 s instead of 0.2 s.
        conn.execute(f"PRAGMA mmap_size={mmap_bytes() if mapped else 0}")
        return conn

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._snapshot() as conn:
            return list(self._stream(conn, sql, params))

    @contextmanager
    def _snapshot(self, *, mapped: bool = True) -> Iterator[sqlite3.Connection]:
        """One connection; in WAL mode one read transaction, so checkpoints and writes read
        together are consistent while a live agent commits (WAL readers never block it)."""
        try:
            with closing(self._begin(mapped)) as conn:
                yield conn
        except sqlite3.DatabaseError as exc:
            raise SourceError(f"{self.path}: the database cannot be read ({exc}).") from exc

    def _begin(self, mapped: bool) -> sqlite3.Connection:
        """A connection whose read transaction has begun, the file opened again if a live
        writer's close removed the side files this source was opened with
        (`_again_if_side_files_changed`). Once the read has begun it holds its snapshot: the
        writer cannot delete the log under it."""

        def begin() -> sqlite3.Connection:
            conn = self.connect(mapped=mapped)
            try:
                if self._journal == "wal":
                    conn.execute("BEGIN")
                    conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            except sqlite3.OperationalError:
                conn.close()
                raise
            return conn

        return self._again_if_side_files_changed(begin)

    @staticmethod
    def _stream(
        conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()
    ) -> Iterator[tuple[Any, ...]]:
        """Rows one at a time, so a gigabyte of checkpoint blobs is never held at once."""
        cursor = conn.execute(sql, params)
        cursor.arraysize = 64
        while rows := cursor.fetchmany():
            yield from rows

    def _check_schema(self) -> None:
        try:
            tables = {
                r[0] for r in self._query("SELECT name FROM sqlite_master WHERE type='table'")
            }
        except SourceError as exc:
            reason = exc.message.rsplit("(", 1)[-1].rstrip(").")
            raise SourceError(
                f"{self.path}: cannot be read as SQLite ({reason}); the file may be truncated or damaged."
            ) from exc
        if is_pg_snapshot(tables):
            self.close()
            raise PostgresShapedFile(f"{self.path}: holds PostgresSaver's tables.")
        missing = {"checkpoints", "writes"} - tables
        if missing:
            raise SourceError(
                f"{self.path}: is a SQLite database but not a LangGraph checkpoint database "
                f"(no {' or '.join(sorted(missing))} table)."
            )
        for table, needed in (("checkpoints", CHECKPOINT_COLUMNS), ("writes", WRITE_COLUMNS)):
            cols = {r[1] for r in self._query(f"PRAGMA table_info({table})")}
            lacking = needed - cols
            if lacking:
                raise SourceError(
                    f"{self.path}: the {table} table lacks the column(s) {', '.join(sorted(lacking))}."
                )
            if table == "writes":
                self.has_task_path = "task_path" in cols
        self.has_rowid = self._has_rowid("checkpoints")  # WITHOUT ROWID: blobs come with their rows
        self.writes_rowid = self._has_rowid("writes")
        if not self.has_task_path:
            self.notes.append(
                "This database predates the writes.task_path column; task paths are blank."
            )

    def _has_rowid(self, table: str) -> bool:
        try:
            self._query(f"SELECT rowid FROM {table} LIMIT 0")
        except SourceError:
            return False
        return True

    def cache_identity(self) -> str:
        """The file across appends: its resolved path and inode (a file replaced under the same
        name is another database), and which decryption key reads it."""
        st = self.path.stat()
        real = self.path.resolve()
        return f"sqlite\0{real}\0{st.st_dev}:{st.st_ino}\0{key_fingerprint(self.aes_key)}"

    def content_stamp(self) -> str | None:
        """What changes when the file's content is replaced in place (same name and inode):
        the header's file change counter and page count (offsets 24 and 28; SQLite rewrites
        them at every commit outside WAL mode), the file's size and inode change time (any
        write to it, which `cp -p` or `touch` cannot set back; in WAL mode the file is only
        written at a checkpoint) and the WAL header's checkpoint sequence and salts (new at
        every WAL reset). Read with plain reads and a stat."""
        try:
            st = self.path.stat()
        except OSError:
            return None
        parts = [f"{st.st_size}@{st.st_ctime_ns}"]
        for suffix, start, end in (("", 24, 32), ("-wal", 12, 24)):
            try:
                fd = os.open(f"{self.path}{suffix}", os.O_RDONLY | os.O_NONBLOCK)
            except FileNotFoundError:
                parts.append("")
                continue
            except OSError:
                return None
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return None
                head = fh.read(end)
            parts.append(head[start:end].hex())
        return ":".join(parts)

    def identity(self) -> tuple[Any, ...]:
        """Changes whenever the database or its WAL changes: the cache key of a loaded view."""
        return file_identity(self.path)

    def close(self) -> None:
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None

    # -- reading -------------------------------------------------------------------
    def thread_index(self) -> list[ThreadIndexRow]:
        """What the Threads page's first screen shows, from the primary keys alone.

        One pass counts rows per thread (the bare GROUP BY); then one seek per thread to the
        end of its primary-key range gives its last (namespace, checkpoint id): for a thread
        without subgraphs that is the latest root checkpoint (`''` sorts first, so a thread
        has another namespace iff its last one isn't `''`). Only those nested threads need a
        second look, for their root's latest id and their namespace count. Aggregating the
        ids over every row instead costs twice the seeks. The writes keys are left to
        `writes_keys`, asked batch by batch while the statuses are worked out (100,000 seeks
        into the writes index would double the first screen). No row is read: the metadata
        column lies after the checkpoint blob, and reaching it walks the blob's overflow
        pages (8x the GROUP BY on the 10k fixture), so the latest step comes from the
        checkpoint id (`checkpoint_id_step`) and so does the time, worked out only for the
        rows shown (`ThreadIndexRow.updated_at`); the statuses, derived next, carry the
        step and time from the metadata.
        """
        # 100,000 tuples, no cycles: built without the cycle collector (see replaylens._bulk)
        with collector_paused(), self._snapshot(mapped=False) as conn:
            rows = conn.execute(
                "WITH g AS MATERIALIZED (SELECT thread_id, COUNT(*) AS n FROM checkpoints GROUP BY thread_id) "
                "SELECT g.thread_id, g.n, (SELECT c.checkpoint_ns || char(0) || c.checkpoint_id FROM checkpoints c "
                "WHERE c.thread_id = g.thread_id ORDER BY c.checkpoint_ns DESC, c.checkpoint_id DESC LIMIT 1) "
                "FROM g ORDER BY g.thread_id"
            ).fetchall()  # 100,000 short rows: one list, not a stream
            nested = [tid for tid, _n, last in rows if last[0] != "\0"]
            roots: dict[str, tuple[str | None, int]] = {}
            if nested:
                roots = {
                    tid: (latest, int(spaces))
                    for tid, latest, spaces in self._stream(
                        conn,
                        "SELECT k.value, (SELECT MAX(c.checkpoint_id) FROM checkpoints c WHERE c.thread_id = k.value "
                        "AND c.checkpoint_ns = ''), (SELECT COUNT(DISTINCT c.checkpoint_ns) FROM checkpoints c "
                        "WHERE c.thread_id = k.value) FROM json_each(?) AS k",
                        (json.dumps(nested),),
                    )
                }
            return self._index_rows(rows, roots)

    @staticmethod
    def _index_rows(
        rows: list[tuple[Any, ...]], roots: dict[str, tuple[str | None, int]]
    ) -> list[ThreadIndexRow]:
        out: list[ThreadIndexRow] = []
        append = out.append
        for tid, n, last in rows:
            if last[0] == "\0":
                latest: str | None = last[1:]
                spaces = 1
            else:
                latest, spaces = roots.get(tid, (None, 1))
            append(
                ThreadIndexRow(
                    str(tid), int(n), spaces, latest, {},
                    checkpoint_id_step(latest, int(n)), None, None if latest else "",
                )
            )  # fmt: skip
        return out

    def orphan_write_tasks(self) -> list[tuple[str, str, str, int, int]]:
        """(thread id, namespace, task id, rows, bytes) of the writes whose checkpoint never landed: one
        pass over the writes' primary key with a seek into the checkpoints' for each."""
        with self._snapshot(mapped=False) as conn:
            return [
                (str(t), str(ns or ""), str(task), int(n), int(b or 0))
                for t, ns, task, n, b in conn.execute(ORPHAN_WRITES_SQL)
            ]

    def writes_keys(self, latest: dict[str, str]) -> dict[str, str]:
        """The writes key (count and largest rowid) of each (thread id -> latest checkpoint id)."""
        wmax = "IFNULL(MAX(w.rowid), '')" if self.writes_rowid else "''"
        pairs = json.dumps([[t, c] for t, c in latest.items()])
        with self._snapshot(mapped=False) as conn:
            return {
                str(tid): str(key)
                for tid, key in self._stream(
                    conn,
                    f"SELECT json_extract(k.value, '$[0]'), COUNT(w.thread_id) || ':' || {wmax} "
                    "FROM json_each(?) AS k LEFT JOIN writes AS w ON w.thread_id = json_extract(k.value, '$[0]') "
                    "AND w.checkpoint_ns = '' AND w.checkpoint_id = json_extract(k.value, '$[1]') GROUP BY k.key",
                    (pairs,),
                )
            }

    # Which threads changed since an earlier run (the status cache's fast path). LangGraph's
    # SqliteSaver only ever inserts (`INSERT OR REPLACE` deletes and inserts, so a replaced
    # row gets a new rowid) and deletes whole threads; a new rowid is the largest plus one.
    # So every row added or replaced after a mark has a larger rowid, as long as the row at
    # the mark is still there: if it was deleted, rowids may be handed out again.
    _MARK_KEYS = {
        "checkpoints": "thread_id, checkpoint_ns, checkpoint_id",
        "writes": "thread_id, checkpoint_ns, checkpoint_id, task_id, idx",
    }
    MAX_CHANGED_ROWS = 200_000
    """Past this many new rows, `changed_since` gives up: reading them costs more than asking
    every thread's writes key (0.4 s for 100,000 threads)."""

    def reopen_spec(self) -> ReopenSpec | None:
        """The file and key; None for a private copy (a hot journal, or a WAL without its
        -shm): another process would have to copy the file again."""
        return None if self._tmpdir is not None else (str(self.path), self.aes_key)

    def change_marks(self) -> ChangeMarks | None:
        """Per table, the largest rowid and that row's primary key ([0] for an empty table)."""
        if not (self.has_rowid and self.writes_rowid):
            return None
        marks: ChangeMarks = {}
        with self._snapshot(mapped=False) as conn:
            for table, key in self._MARK_KEYS.items():
                row = conn.execute(
                    f"SELECT rowid, {key} FROM {table} ORDER BY rowid DESC LIMIT 1"
                ).fetchone()
                if row is not None and not all(isinstance(v, int | str) for v in row):
                    return None  # a key that is no text (a hostile file): no fast path
                marks[table] = list(row) if row else [0]
        return marks

    def changed_since(self, marks: ChangeMarks) -> set[str] | None:
        """Threads with a checkpoint or write row whose rowid is past the marks; None when a
        marked row is gone or changed (deleted, renumbered by VACUUM, another file)."""
        if not (self.has_rowid and self.writes_rowid) or set(marks) != set(self._MARK_KEYS):
            return None
        changed: set[str] = set()
        with self._snapshot(mapped=False) as conn:
            for table, key in self._MARK_KEYS.items():
                mark = marks[table]
                if not isinstance(mark, list) or not mark or not isinstance(mark[0], int):
                    return None
                rowid = mark[0]
                if rowid:
                    row = conn.execute(
                        f"SELECT {key} FROM {table} WHERE rowid = ?", (rowid,)
                    ).fetchone()
                    if row is None or list(row) != mark[1:]:
                        return None
                (top,) = conn.execute(f"SELECT IFNULL(MAX(rowid), 0) FROM {table}").fetchone()
                if top < rowid:
                    return None
                if top - rowid > self.MAX_CHANGED_ROWS:
                    return None
                changed.update(
                    str(r[0])
                    for r in conn.execute(
                        # NOT INDEXED: a rowid range read; with the index, SQLite would scan
                        # the whole primary key for DISTINCT (0.6 s on 14 million writes)
                        f"SELECT DISTINCT thread_id FROM {table} NOT INDEXED WHERE rowid > ?",
                        (rowid,),
                    )
                )
        return changed

    def thread_version(self, thread_id: str) -> tuple[Any, ...]:
        """The thread's checkpoint count and latest id, its writes' count (and largest rowid), and
        last the latest root checkpoint's step: index range counts, no blob."""
        wmax = ", MAX(rowid)" if self.writes_rowid else ""
        with self._snapshot(mapped=False) as conn:
            cps = conn.execute(
                "SELECT COUNT(*), MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ?",
                (thread_id,),
            ).fetchone()
            writes = conn.execute(
                f"SELECT COUNT(*){wmax} FROM writes WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            step = conn.execute(
                "SELECT CASE WHEN json_valid(CAST(metadata AS TEXT)) THEN json_extract(CAST(metadata AS TEXT), "
                "'$.step') END FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' "
                "ORDER BY checkpoint_id DESC LIMIT 1",
                (thread_id,),
            ).fetchone()
        return (*cps, *writes, step[0] if step else None)

    def _records(
        self, rows: Iterable[tuple[Any, ...]], problems: list[str], *, one_thread: bool = False
    ) -> list[CheckpointRecord]:
        """Rows to skeletons; the checkpoints of `one_thread`, in order, share a PrefixMemo."""
        memo = PrefixMemo() if one_thread else None
        out: list[CheckpointRecord] = []
        for tid, ns, cid, parent, type_, blob, meta in rows:
            where = f"checkpoint {cid} (thread {tid}, namespace {ns!r})"
            rec = CheckpointRecord(
                thread_id=str(tid),
                checkpoint_ns=str(ns or ""),
                checkpoint_id=str(cid),
                parent_checkpoint_id=parent,
                metadata=parse_metadata(meta, where, problems),
            )
            fill_skeleton(rec, type_, blob, self.aes_key, memo)
            if rec.error:
                problems.append(f"{where}: {rec.error}; it is marked unreadable, the rest loads.")
            out.append(rec)
        return out

    def _writes(self, rows: list[tuple[Any, ...]]) -> list[WriteRecord]:
        return [
            WriteRecord(
                thread_id=str(tid),
                checkpoint_ns=str(ns or ""),
                checkpoint_id=str(cid),
                task_id=str(task_id),
                task_path=str(path or ""),
                idx=int(idx),
                channel=str(channel),
                type=type_,
                raw=bytes(value) if value is not None else None,
                aes_key=self.aes_key,
            )
            for tid, ns, cid, task_id, path, idx, channel, type_, value in rows
        ]

    @property
    def _task_path_col(self) -> str:
        return "task_path" if self.has_task_path else "''"

    def _thread_checkpoint_rows(
        self, conn: sqlite3.Connection, thread_id: str
    ) -> Iterator[tuple[Any, ...]]:
        """A thread's checkpoint rows in order, each blob read with SQLite's incremental blob
        I/O: one copy from the page cache into the bytes object, where a SELECT of the
        column makes two (0.1 s against 0.4 s for the 1 GB thread)."""
        if not self.has_rowid:
            yield from self._stream(
                conn,
                "SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, "
                "metadata FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id",
                (thread_id,),
            )
            return
        for rowid, kind, tid, ns, cid, parent, type_, meta in self._stream(
            conn,
            "SELECT rowid, typeof(checkpoint), thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
            "type, metadata FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id",
            (thread_id,),
        ):
            if kind == "blob":
                with conn.blobopen("checkpoints", "checkpoint", rowid, readonly=True) as handle:
                    blob = handle.read()
            else:  # NULL or text where a blob belongs: let the skeleton say what is wrong
                (blob,) = conn.execute(
                    "SELECT checkpoint FROM checkpoints WHERE rowid = ?", (rowid,)
                ).fetchone()
            yield tid, ns, cid, parent, type_, blob, meta

    def read_thread(self, thread_id: str) -> ThreadRows:
        problems: list[str] = []
        with self._snapshot() as conn:
            records = self._records(
                self._thread_checkpoint_rows(conn, thread_id), problems, one_thread=True
            )
            writes = self._writes(
                self._stream(
                    conn,
                    f"SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, {self._task_path_col}, idx, "
                    "channel, type, value FROM writes WHERE thread_id = ? "
                    "ORDER BY checkpoint_ns, checkpoint_id, task_id, idx",
                    (thread_id,),
                )
            )
        return ThreadRows(records, writes, problems)

    def read_latest(
        self, thread_ids: list[str] | None = None, *, known: dict[str, str] | None = None
    ) -> ThreadRows:
        """The latest root checkpoint of every thread and its writes.

        The latest ids come from `known` (thread_index already found them) or from one
        GROUP BY; the rows are then fetched by primary key, driven by a JSON list of
        (thread id, checkpoint id) pairs, instead of joining the whole tables again.
        """
        problems: list[str] = []
        with self._snapshot() as conn:
            if known is None:
                known = {
                    tid: cid
                    for tid, cid in self._stream(
                        conn,
                        "SELECT thread_id, MAX(checkpoint_id) FROM checkpoints WHERE checkpoint_ns = '' "
                        "GROUP BY thread_id",
                    )
                }
            if thread_ids is not None:
                wanted = set(thread_ids)
                known = {t: c for t, c in known.items() if t in wanted}
            pairs = json.dumps([[t, c] for t, c in known.items() if c is not None])
            keys = (
                "FROM json_each(?) AS k CROSS JOIN {table} AS x "
                "ON x.thread_id = json_extract(k.value, '$[0]') AND x.checkpoint_ns = '' "
                "AND x.checkpoint_id = json_extract(k.value, '$[1]')"
            )
            cps = self._records(
                self._stream(
                    conn,
                    "SELECT x.thread_id, x.checkpoint_ns, x.checkpoint_id, x.parent_checkpoint_id, x.type, "
                    f"x.checkpoint, x.metadata {keys.format(table='checkpoints')}",
                    (pairs,),
                ),
                problems,
            )
            writes = self._writes(
                self._stream(
                    conn,
                    "SELECT x.thread_id, x.checkpoint_ns, x.checkpoint_id, x.task_id, "
                    f"{'x.task_path' if self.has_task_path else chr(39) * 2}, x.idx, x.channel, x.type, x.value "
                    f"{keys.format(table='writes')} ORDER BY x.thread_id, x.task_id, x.idx",
                    (pairs,),
                )
            )
        return ThreadRows(cps, writes, problems)

    def read_channel_values(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str
    ) -> dict[str, DecodeResult]:
        rows = self._query(
            "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
            "AND checkpoint_id = ?",
            (thread_id, checkpoint_ns, checkpoint_id),
        )
        if not rows:
            return {}
        return channel_values_from_blob(rows[0][0], rows[0][1], self.aes_key)
