"""Storage forensics: where the bytes of a checkpoint database go, and what a prune would free.

Users report checkpoint files of 19 GB and 135 GB. The answer comes from SQL aggregates of
`length()` (SQLite reads a blob's length from its record header, without its overflow
pages), so a large file is measured without reading its blobs:

- bytes per thread, per namespace (subgraph task ids folded into the node path) and per
  channel of the writes table;
- the largest blobs (checkpoints and writes);
- growth over time, from the checkpoint ids: LangGraph's ids are UUID v6, whose leading
  32 bits are the creation time in units of 2^28 x 100 ns (26.8 s), so a GROUP BY on the
  first 8 hex digits buckets every checkpoint by time without decoding anything;
- the share of `__pregel_tasks` (Send packets) in the writes;
- channel shares inside the checkpoint blobs, measured exactly on each thread's latest
  checkpoint by walking its msgpack map with the C unpacker (values skipped, not built);
  the share of repeated list values (an agent's message list, stored whole in every
  checkpoint) in the older checkpoints is an *estimate* from those latest blobs, and is
  labelled so;
- what a prune keeping only each thread's latest checkpoint per namespace (and its
  writes) would free: computed, never done. SQLite keeps freed pages in the file until a
  VACUUM, which this tool never runs.
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from replaylens import namespaces
from replaylens.errors import SourceError

UUID_EPOCH_OFFSET = 12219292800  # seconds from 1582-10-15 (UUID time) to 1970-01-01
BUCKET_SECONDS = (1 << 28) / 1e7  # one unit of a UUID v6's leading 32 bits, 26.8 s
TOP = 20


@dataclass(frozen=True)
class Blob:
    table: str  # "checkpoints" or "writes"
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    bytes: int
    channel: str | None = None
    task_id: str | None = None


@dataclass
class StorageReport:
    file_bytes: int
    wal_bytes: int
    page_size: int
    free_pages: int
    checkpoints: int
    writes: int
    checkpoint_bytes: int
    metadata_bytes: int
    write_bytes: int
    threads: list[
        tuple[str, int, int, int]
    ]  # (thread id, checkpoints, checkpoint+metadata bytes, write bytes), largest first
    thread_count: int
    namespaces: list[tuple[str, int, int]]  # (namespace path, checkpoints, bytes)
    write_channels: list[tuple[str, int, int]]  # (channel, rows, bytes)
    largest: list[Blob]
    growth: list[tuple[float, int, int]]  # (bucket start epoch, checkpoints, bytes) oldest first
    growth_note: str | None
    prune_checkpoint_bytes: int
    prune_write_bytes: int
    prune_checkpoints: int
    latest_channels: list[
        tuple[str, int, bool]
    ]  # (channel, bytes in latest blobs, is a list) largest first
    latest_blob_bytes: int
    notes: list[str] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return self.checkpoint_bytes + self.metadata_bytes + self.write_bytes

    @property
    def prune_bytes(self) -> int:
        return self.prune_checkpoint_bytes + self.prune_write_bytes

    @property
    def pregel_tasks_bytes(self) -> int:
        return sum(b for ch, _n, b in self.write_channels if ch == "__pregel_tasks")

    @property
    def list_share_latest(self) -> float:
        """Share of list-valued channels in the latest checkpoints' channel bytes."""
        lists = sum(b for _c, b, is_list in self.latest_channels if is_list)
        total = sum(b for _c, b, _l in self.latest_channels)
        return lists / total if total else 0.0

    @property
    def repeated_lists_estimate(self) -> int:
        """Bytes of list values in the checkpoints a prune would drop, if they hold the same
        channel mix as the latest ones (an estimate; see the module docstring)."""
        return int(self.prune_checkpoint_bytes * self.list_share_latest)

    def sentences(self) -> list[str]:
        """The findings in words, from the same numbers as the tables and the JSON."""
        total = self.total_bytes
        out = [
            f"{human(total)} of checkpoint data in {self.checkpoints:,} checkpoints and {self.writes:,} writes "
            f"of {self.thread_count:,} threads (file {human(self.file_bytes)}"
            + (f", WAL {human(self.wal_bytes)}" if self.wal_bytes else "")
            + ")."
        ]
        if total:
            out.append(
                f"A prune keeping only each thread's latest checkpoint per namespace would free "
                f"{human(self.prune_bytes)} ({self.prune_bytes / total:.0%}) by dropping "
                f"{self.prune_checkpoints:,} checkpoints and their writes; SQLite keeps the pages in the file "
                "until a VACUUM (computed only; nothing was pruned)."
            )
        if self.write_bytes:
            out.append(
                f"`__pregel_tasks` (Send packets) hold {human(self.pregel_tasks_bytes)}, "
                f"{self.pregel_tasks_bytes / max(self.write_bytes, 1):.1%} of the writes."
            )
        if self.latest_blob_bytes:
            out.append(
                f"In the latest checkpoints, list values (message lists) are {self.list_share_latest:.0%} of the "
                f"channel bytes; if older checkpoints hold the same mix, about "
                f"{human(self.repeated_lists_estimate)} of them are repeated lists (an estimate)."
            )
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "file_bytes": self.file_bytes,
            "wal_bytes": self.wal_bytes,
            "page_size": self.page_size,
            "free_pages": self.free_pages,
            "threads": self.thread_count,
            "checkpoints": self.checkpoints,
            "writes": self.writes,
            "checkpoint_bytes": self.checkpoint_bytes,
            "metadata_bytes": self.metadata_bytes,
            "write_bytes": self.write_bytes,
            "total_bytes": self.total_bytes,
            "largest_threads": [
                {"thread_id": t, "checkpoints": n, "checkpoint_bytes": cb, "write_bytes": wb}
                for t, n, cb, wb in self.threads
            ],
            "namespaces": [
                {"namespace": ns, "checkpoints": n, "bytes": b} for ns, n, b in self.namespaces
            ],
            "write_channels": [
                {"channel": c, "rows": n, "bytes": b} for c, n, b in self.write_channels
            ],
            "largest_blobs": [b.__dict__ for b in self.largest],
            "growth": {
                "bucket_seconds": BUCKET_SECONDS,
                "note": self.growth_note,
                "buckets": [{"start": s, "checkpoints": n, "bytes": b} for s, n, b in self.growth],
            },
            "pregel_tasks_bytes": self.pregel_tasks_bytes,
            "latest_checkpoint_channels": [
                {"channel": c, "bytes": b, "list": is_list}
                for c, b, is_list in self.latest_channels
            ],
            "repeated_lists_estimate_bytes": self.repeated_lists_estimate,
            "prune_keep_latest": {
                "frees_bytes": self.prune_bytes,
                "checkpoint_bytes": self.prune_checkpoint_bytes,
                "write_bytes": self.prune_write_bytes,
                "checkpoints_dropped": self.prune_checkpoints,
                "note": "computed only; nothing was pruned; SQLite frees file space only on VACUUM",
            },
            "sentences": self.sentences(),
            "notes": self.notes,
        }


def human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "B" or abs(n) >= 100 else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n:,.1f} TB"


def ns_path(checkpoint_ns: str) -> str:
    """`outer:1f0…|inner:9a…` -> `outer|inner`: namespaces of one subgraph across its calls."""
    if not checkpoint_ns:
        return "(root)"
    return namespaces.names(checkpoint_ns)


def uuid6_epoch(prefix: str) -> float | None:
    """Epoch seconds of the first 8 hex digits of a UUID v6 (None if they are not hex)."""
    try:
        high = int(prefix, 16)
    except ValueError:
        return None
    return (high << 28) / 1e7 - UUID_EPOCH_OFFSET


def _latest_channels(source: Any) -> tuple[list[tuple[str, int, bool]], int]:
    """Channel byte sizes of every thread's latest root checkpoint (values skipped, not built)."""
    from replaylens.decode import Placeholder, decrypt_if_needed
    from replaylens.sources._base import CheckpointRecord
    from replaylens.sources._skeleton import SkeletonError, _array_header, _skeleton_from_msgpack

    sizes: Counter[str] = Counter()
    is_list: dict[str, bool] = {}
    blob_bytes = 0
    with source._snapshot() as conn:
        rows = conn.execute(
            "SELECT c.type, c.checkpoint FROM checkpoints c JOIN (SELECT thread_id, MAX(checkpoint_id) AS m "
            "FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id) k "
            "ON c.thread_id = k.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = k.m"
        )
        for type_, blob in rows:
            if blob is None or type_ is None:
                continue
            blob_bytes += len(blob)
            plain = decrypt_if_needed(type_, bytes(blob), source.aes_key)
            if isinstance(plain, Placeholder) or plain[0] != "msgpack":
                continue
            offsets: dict[str, tuple[int, int]] = {}
            try:
                _skeleton_from_msgpack(plain[1], CheckpointRecord("", "", "", None, {}), offsets)
            except SkeletonError:
                continue
            for name, (start, end) in offsets.items():
                sizes[name] += end - start
                if name not in is_list:
                    is_list[name] = _array_header(plain[1], start) is not None
    return [(n, b, is_list.get(n, False)) for n, b in sizes.most_common()], blob_bytes


def storage_report(source: Any, *, top: int = TOP) -> StorageReport:
    """Measure a SQLite checkpoint database with SQL aggregates; nothing is written."""
    if getattr(source, "kind", "") != "sqlite":
        raise SourceError(
            f"{source.label}: storage forensics reads SQLite files; for Postgres, ask the server "
            "(pg_total_relation_size of checkpoints, checkpoint_blobs and checkpoint_writes)."
        )
    notes: list[str] = []
    path = source.path
    wal = path.with_name(path.name + "-wal")
    with source._snapshot() as conn:
        q = conn.execute
        q("PRAGMA temp_store=MEMORY")  # this connection's sorters in memory; the file is untouched
        page_size = q("PRAGMA page_size").fetchone()[0]
        free_pages = _pragma(conn, "freelist_count")
        # One scan of each table, grouped in SQL: per thread, namespace and 26.8 s id bucket
        # for checkpoints; per thread and channel for writes. Everything else sums these.
        per_thread_cp: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        per_ns: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        bucket_acc: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for t, ns, prefix, n, cb, mb, v6 in q(
            # MATERIALIZED: a GROUP BY sorter would otherwise copy every blob into its
            # records to take length() later (2.4 s of CPU for the 1 GB thread; 0.01 s so).
            "WITH x AS MATERIALIZED (SELECT thread_id AS t, checkpoint_ns AS ns, substr(checkpoint_id, 1, 8) AS p, "
            "length(checkpoint) AS lc, length(metadata) AS lm, substr(checkpoint_id, 15, 1) = '6' AS v6 "
            "FROM checkpoints) "
            "SELECT t, ns, p, COUNT(*), COALESCE(SUM(lc), 0), COALESCE(SUM(lm), 0), SUM(v6) FROM x GROUP BY 1, 2, 3"
        ):
            acc = per_thread_cp[str(t)]
            acc[0] += n
            acc[1] += cb
            acc[2] += mb
            nsa = per_ns[ns_path(str(ns or ""))]
            nsa[0] += n
            nsa[1] += cb + mb
            ba = bucket_acc[str(prefix)]
            ba[0] += n
            ba[1] += cb + mb
            ba[2] += v6 or 0
        per_thread_w: Counter[str] = Counter()
        per_channel: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for t, ch, n, b in q(
            "WITH x AS MATERIALIZED (SELECT thread_id AS t, channel AS ch, length(value) AS b FROM writes) "
            "SELECT t, ch, COUNT(*), COALESCE(SUM(b), 0) FROM x GROUP BY 1, 2"
        ):
            per_thread_w[str(t)] += b
            acc = per_channel[str(ch)]
            acc[0] += n
            acc[1] += b
        channels = sorted(((c, v[0], v[1]) for c, v in per_channel.items()), key=lambda r: -r[2])
        buckets = [(k, v[0], v[1], v[2]) for k, v in sorted(bucket_acc.items())]
        largest = [
            Blob("checkpoints", t, ns, cid, b)
            for t, ns, cid, b in q(
                "SELECT thread_id, checkpoint_ns, checkpoint_id, length(checkpoint) AS b FROM checkpoints "
                "ORDER BY b DESC LIMIT ?",
                (top,),
            )
        ]
        largest += [
            Blob("writes", t, ns, cid, b, ch, task)
            for t, ns, cid, task, ch, b in q(
                "SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, channel, length(value) AS b FROM writes "
                "ORDER BY b DESC LIMIT ?",
                (top,),
            )
        ]
        largest.sort(key=lambda b: -b.bytes)
        kept_cp = q(
            "SELECT COUNT(*), COALESCE(SUM(length(c.checkpoint)) + SUM(length(c.metadata)), 0) FROM checkpoints c "
            "JOIN (SELECT thread_id, checkpoint_ns, MAX(checkpoint_id) AS m FROM checkpoints GROUP BY 1, 2) k "
            "ON c.thread_id = k.thread_id AND c.checkpoint_ns = k.checkpoint_ns AND c.checkpoint_id = k.m"
        ).fetchone()
        kept_w = q(
            "SELECT COALESCE(SUM(length(w.value)), 0) FROM writes w "
            "JOIN (SELECT thread_id, checkpoint_ns, MAX(checkpoint_id) AS m FROM checkpoints GROUP BY 1, 2) k "
            "ON w.thread_id = k.thread_id AND w.checkpoint_ns = k.checkpoint_ns AND w.checkpoint_id = k.m"
        ).fetchone()[0]
    latest_channels, latest_bytes = _latest_channels(source)
    n_cp = sum(v[0] for v in per_thread_cp.values())
    cp_bytes = sum(v[1] for v in per_thread_cp.values())
    meta_bytes = sum(v[2] for v in per_thread_cp.values())
    w_bytes = sum(per_thread_w.values())
    threads = sorted(
        ((t, v[0], v[1] + v[2], per_thread_w.get(t, 0)) for t, v in per_thread_cp.items()),
        key=lambda r: -(r[2] + r[3]),
    )
    growth, growth_note = _growth(buckets)
    return StorageReport(
        file_bytes=path.stat().st_size,
        wal_bytes=wal.stat().st_size if wal.exists() else 0,
        page_size=page_size,
        free_pages=free_pages,
        checkpoints=n_cp,
        writes=sum(v[0] for v in per_channel.values()),
        checkpoint_bytes=cp_bytes,
        metadata_bytes=meta_bytes,
        write_bytes=w_bytes,
        threads=threads[:top],
        thread_count=len(set(per_thread_cp) | set(per_thread_w)),
        namespaces=sorted(((k, v[0], v[1]) for k, v in per_ns.items()), key=lambda r: -r[2]),
        write_channels=channels,
        largest=largest[:top],
        growth=growth,
        growth_note=growth_note,
        prune_checkpoint_bytes=cp_bytes + meta_bytes - kept_cp[1],
        prune_write_bytes=w_bytes - kept_w,
        prune_checkpoints=n_cp - kept_cp[0],
        latest_channels=latest_channels,
        latest_blob_bytes=latest_bytes,
        notes=notes,
    )


def _pragma(conn: sqlite3.Connection, name: str) -> int:
    try:
        return int(conn.execute(f"PRAGMA {name}").fetchone()[0])
    except (sqlite3.Error, TypeError):
        return 0


def _growth(
    buckets: list[tuple[str, int, int, int]],
) -> tuple[list[tuple[float, int, int]], str | None]:
    """Buckets of 26.8 s from UUID v6 ids, as (start epoch, checkpoints, bytes)."""
    out: list[tuple[float, int, int]] = []
    not_v6 = 0
    for prefix, n, b, v6 in buckets:
        start = uuid6_epoch(prefix) if v6 == n else None
        if start is None:
            not_v6 += n
            continue
        out.append((start, n, b))
    note = None
    if not_v6:
        note = (
            f"{not_v6:,} checkpoint id(s) are not UUID v6 (LangGraph's format), so their time is unknown; "
            "they are left out of the growth chart."
        )
    return out, note
