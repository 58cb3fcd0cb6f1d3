"""A SQLite file in `PostgresSaver`'s own schema: the rows of a Postgres evidence bundle.

`replaylens bundle postgresql://… --thread T` copies the thread's rows of `checkpoints`,
`checkpoint_blobs` and `checkpoint_writes` from one read-only snapshot into a SQLite file
with the same tables and columns (the JSONB columns as the server's text of them, bytea as
BLOB). This reader gives them to the model exactly as the Postgres reader does: every row
goes through the same `record_from_row` / `channel_values_from_row`, shaped like the rows
of `SKELETON_SELECT` and `CHANNEL_VALUES_SQL`, so every command, `serve` and the checks tell
the same story from the bundle as from the live database. A bundle holds one thread (or a
few), so the JSON work PostgreSQL does in SQL is done here in Python.
"""

from __future__ import annotations

from typing import Any

from replaylens.decode import DecodeResult
from replaylens.errors import SourceError
from replaylens.sources._base import (
    ChangeMarks,
    ThreadIndexRow,
    ThreadRows,
    WriteRecord,
    is_scheduling_channel,
    parse_metadata,
    tolerant_json_loads,
)
from replaylens.sources._postgres import channel_values_from_row, record_from_row
from replaylens.sources._sqlite import SqliteSource, is_pg_snapshot
from replaylens.times import checkpoint_id_step

PG_SNAPSHOT_KIND = "postgres-snapshot"

PG_SNAPSHOT_DDL = (
    "CREATE TABLE checkpoint_migrations (v INTEGER PRIMARY KEY)",
    "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', "
    "checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, checkpoint TEXT NOT NULL, "
    "metadata TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))",
    "CREATE TABLE checkpoint_blobs (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', "
    "channel TEXT NOT NULL, version TEXT NOT NULL, type TEXT NOT NULL, blob BLOB, "
    "PRIMARY KEY (thread_id, checkpoint_ns, channel, version))",
    "CREATE TABLE checkpoint_writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', "
    "checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, "
    "type TEXT, blob BLOB NOT NULL, task_path TEXT NOT NULL DEFAULT '', "
    "PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))",
)
"""The tables of PostgresSaver's migrations 0-9, in SQLite types (jsonb as TEXT, bytea as BLOB)."""


def _version_text(value: Any) -> str:
    """A channel version as `jsonb_each_text` gives it (the blobs' key)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


class PgSnapshotSource(SqliteSource):
    """Read-only access to a SQLite file in PostgresSaver's schema (see the module docstring)."""

    kind = PG_SNAPSHOT_KIND

    def _check_schema(self) -> None:
        tables = {r[0] for r in self._query("SELECT name FROM sqlite_master WHERE type='table'")}
        if not is_pg_snapshot(tables):
            raise SourceError(f"{self.path}: does not hold PostgresSaver's tables.")
        self.has_task_path = True
        self.has_rowid = True
        self.writes_rowid = True

    def cache_identity(self) -> str:
        return "pgsnapshot\0" + super().cache_identity()

    # -- the thread list ---------------------------------------------------------------
    def thread_index(self) -> list[ThreadIndexRow]:
        rows = self._query(
            "SELECT thread_id, COUNT(*), COUNT(DISTINCT checkpoint_ns), "
            "MAX(CASE WHEN checkpoint_ns = '' THEN checkpoint_id END) FROM checkpoints "
            "GROUP BY thread_id ORDER BY thread_id"
        )
        return [
            ThreadIndexRow(str(t), int(n), int(nns), latest, {}, checkpoint_id_step(latest, int(n)),
                           None, None if latest else "")
            for t, n, nns, latest in rows
        ]  # fmt: skip

    def writes_keys(self, latest: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        with self._snapshot(mapped=False) as conn:
            for tid, cid in latest.items():
                (n,) = conn.execute(
                    "SELECT COUNT(*) FROM checkpoint_writes WHERE thread_id = ? AND checkpoint_ns = '' "
                    "AND checkpoint_id = ?",
                    (tid, cid),
                ).fetchone()
                out[tid] = str(n)
        return out

    def change_marks(self) -> ChangeMarks | None:
        return None  # a bundle's snapshot does not change

    def changed_since(self, marks: ChangeMarks) -> set[str] | None:
        return None

    def thread_version(self, thread_id: str) -> tuple[Any, ...]:
        with self._snapshot(mapped=False) as conn:
            n, latest = conn.execute(
                "SELECT COUNT(*), MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ?",
                (thread_id,),
            ).fetchone()
            (writes,) = conn.execute(
                "SELECT COUNT(*) FROM checkpoint_writes WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return (n, latest, writes, None)

    def orphan_write_tasks(self) -> list[tuple[str, str, str, int, int]]:
        rows = self._query(
            "SELECT w.thread_id, w.checkpoint_ns, w.task_id, COUNT(*), SUM(length(w.blob)) "
            "FROM checkpoint_writes w WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE "
            "c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND "
            "c.checkpoint_id = w.checkpoint_id) GROUP BY 1, 2, 3"
        )
        return [
            (str(t), str(ns or ""), str(task), int(n), int(b or 0)) for t, ns, task, n, b in rows
        ]

    # -- rows, shaped as the Postgres reader's --------------------------------------------
    def _blobs(
        self, conn: Any, thread_id: str
    ) -> dict[tuple[str, str, str], tuple[str, bytes | None]]:
        return {
            (str(ns or ""), str(ch), str(v)): (str(t), bytes(b) if b is not None else None)
            for ns, ch, v, t, b in conn.execute(
                "SELECT checkpoint_ns, channel, version, type, blob FROM checkpoint_blobs "
                "WHERE thread_id = ?",
                (thread_id,),
            )
        }

    @staticmethod
    def _skeleton_row(
        row: tuple[Any, ...], blobs: dict[tuple[str, str, str], tuple[str, bytes | None]]
    ) -> dict[str, Any]:
        """One row as SKELETON_SELECT returns it (see replaylens.sources._postgres)."""
        thread_id, ns, cid, parent, text, meta = row
        checkpoint = tolerant_json_loads(text)
        values = checkpoint.get("channel_values") if isinstance(checkpoint, dict) else None
        values = values if isinstance(values, dict) else {}
        versions = checkpoint.get("channel_versions") if isinstance(checkpoint, dict) else None
        versions = versions if isinstance(versions, dict) else {}
        skeleton = (
            {k: v for k, v in checkpoint.items() if k != "channel_values"}
            if isinstance(checkpoint, dict)
            else checkpoint
        )
        found = []
        for channel, version in versions.items():
            hit = blobs.get((str(ns or ""), str(channel), _version_text(version)))
            if hit is not None:
                found.append((str(channel), *hit))
        found.sort()
        sched = [f for f in found if f[1] != "empty" and is_scheduling_channel(f[0])]
        inline_sched = {k: v for k, v in values.items() if is_scheduling_channel(k)}
        return {
            "thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": cid,
            "parent_checkpoint_id": parent, "skeleton": skeleton, "metadata": meta,
            "inline_keys": list(values), "inline_sched": inline_sched or None,
            "checkpoint_bytes": len(text.encode() if isinstance(text, str) else text),
            "channels": [f[0] for f in found if f[1] != "empty"] or None,
            "bytes": sum(len(f[2]) for f in found if f[2] is not None),
            "sched_channels": [f[0] for f in sched] or None,
            "sched_types": [f[1] for f in sched] or None,
            "sched_blobs": [f[2] for f in sched] or None,
        }  # fmt: skip

    def _checkpoint_records(
        self, conn: Any, thread_id: str, where: str, params: tuple[Any, ...], problems: list[str]
    ) -> list[Any]:
        blobs = self._blobs(conn, thread_id)
        out = []
        for row in conn.execute(
            "SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata "
            f"FROM checkpoints WHERE thread_id = ? {where} ORDER BY checkpoint_ns, checkpoint_id",
            (thread_id, *params),
        ):
            rec = record_from_row(self._skeleton_row(row, blobs), self.aes_key)
            at = f"checkpoint {rec.checkpoint_id} (thread {rec.thread_id}, namespace {rec.checkpoint_ns!r})"
            rec.metadata = parse_metadata(
                tolerant_json_loads(row[5]) if row[5] is not None else None, at, problems
            )
            if rec.error:
                problems.append(f"{at}: {rec.error}; it is marked unreadable, the rest loads.")
            out.append(rec)
        return out  # fmt: skip

    def _write_records(
        self, conn: Any, thread_id: str, where: str, params: tuple[Any, ...]
    ) -> list[WriteRecord]:
        return [
            WriteRecord(thread_id=str(t), checkpoint_ns=str(ns or ""), checkpoint_id=str(c), task_id=str(task),
                        task_path=str(path or ""), idx=int(idx), channel=str(ch), type=typ,
                        raw=bytes(b) if b is not None else None, aes_key=self.aes_key)
            for t, ns, c, task, path, idx, ch, typ, b in conn.execute(
                "SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob "
                f"FROM checkpoint_writes WHERE thread_id = ? {where} "
                "ORDER BY checkpoint_ns, checkpoint_id, task_id, idx",
                (thread_id, *params),
            )
        ]  # fmt: skip

    def read_thread(self, thread_id: str) -> ThreadRows:
        problems: list[str] = []
        with self._snapshot() as conn:
            cps = self._checkpoint_records(conn, thread_id, "", (), problems)
            writes = self._write_records(conn, thread_id, "", ())
        return ThreadRows(cps, writes, problems)

    def read_latest(
        self, thread_ids: list[str] | None = None, *, known: dict[str, str] | None = None
    ) -> ThreadRows:
        if known is None:
            known = {
                r.thread_id: r.latest_checkpoint_id
                for r in self.thread_index()
                if r.latest_checkpoint_id
            }
        if thread_ids is not None:
            known = {t: c for t, c in known.items() if t in set(thread_ids)}
        problems: list[str] = []
        cps: list[Any] = []
        writes: list[WriteRecord] = []
        where = "AND checkpoint_ns = '' AND checkpoint_id = ?"
        with self._snapshot() as conn:
            for tid, cid in sorted(known.items()):
                cps += self._checkpoint_records(conn, tid, where, (cid,), problems)
                writes += self._write_records(conn, tid, where, (cid,))
        return ThreadRows(cps, writes, problems)  # fmt: skip

    def read_channel_values(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str
    ) -> dict[str, DecodeResult]:
        with self._snapshot() as conn:
            row = conn.execute(
                "SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
                (thread_id, checkpoint_ns, checkpoint_id),
            ).fetchone()
            if row is None:
                return {}
            blobs = self._blobs(conn, thread_id)
        checkpoint = tolerant_json_loads(row[0])
        values = checkpoint.get("channel_values") if isinstance(checkpoint, dict) else None
        versions = checkpoint.get("channel_versions") if isinstance(checkpoint, dict) else None
        found = sorted(
            (str(ch), *hit)
            for ch, v in (versions if isinstance(versions, dict) else {}).items()
            if (hit := blobs.get((checkpoint_ns, str(ch), _version_text(v)))) is not None
            and hit[0] != "empty"
        )
        shaped = {
            "inline_values": values if isinstance(values, dict) else {},
            "channels": [f[0] for f in found], "types": [f[1] for f in found], "blobs": [f[2] for f in found],
        }  # fmt: skip
        return channel_values_from_row(shaped, self.aes_key)
