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
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from replaylens import namespaces
from replaylens.channels import TASKS
from replaylens.decode import Placeholder, decrypt_if_needed
from replaylens.errors import SourceError
from replaylens.sources import channel_sizes
from replaylens.times import uuid6_prefix_epoch

BUCKET_SECONDS = (1 << 28) / 1e7  # one unit of a UUID v6's leading 32 bits, 26.8 s
TOP = 20
STORAGE_TIMEOUT_S = 600.0
"""Storage forensics aggregates whole tables (the other readers seek by key): each of its
statements may take this long on Postgres (`SET LOCAL`, in its read-only transaction; MVCC
readers block no writer). 16,384 threads / 953,344 checkpoints took more than the 15 s the
other readers get."""


@dataclass(frozen=True)
class Blob:
    table: str  # "checkpoints", "writes" or (Postgres) "blobs"
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    bytes: int
    channel: str | None = None
    task_id: str | None = None
    version: str | None = None  # a Postgres channel blob's version (blobs belong to no checkpoint)


@dataclass(frozen=True)
class Relation:
    """A Postgres table on disk: its heap, its TOAST table (with the TOAST index), its indexes."""

    table: str
    rows_estimate: int
    heap_bytes: int
    toast_bytes: int
    index_bytes: int
    total_bytes: int  # pg_total_relation_size: heap + TOAST + indexes


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
    backend: Literal["sqlite", "postgres"] = "sqlite"
    blob_bytes: int = 0  # Postgres: checkpoint_blobs, the channel values a checkpoint points at
    blobs: int = 0
    orphan_writes: int = 0
    orphan_write_bytes: int = 0
    orphan_threads: int = 0
    relations: list[Relation] = field(default_factory=list)  # Postgres: per table, on disk
    server: dict[str, str] = field(default_factory=dict)  # Postgres: version, synchronous_commit
    seconds: dict[str, float] = field(default_factory=dict)  # Postgres: each statement's time

    @property
    def total_bytes(self) -> int:
        return self.checkpoint_bytes + self.metadata_bytes + self.blob_bytes + self.write_bytes

    @property
    def on_disk_label(self) -> str:
        """What `file_bytes` (+ `wal_bytes`) measures, in two words."""
        return "file + WAL" if self.backend == "sqlite" else "tables on disk"

    @property
    def on_disk_help(self) -> str:
        if self.backend == "sqlite":
            return "The database file plus its -wal: pages, indexes and free space included."
        return ("pg_total_relation_size of checkpoints, checkpoint_blobs and checkpoint_writes: "
                "heap, TOAST and indexes, dead rows not yet vacuumed included.")  # fmt: skip

    @property
    def prune_note(self) -> str:
        """What happens to the freed space after such a prune (it is never done here)."""
        if self.backend == "sqlite":
            return "SQLite keeps the pages in the file until a VACUUM"
        return ("Postgres reuses the rows' space after a VACUUM and gives it back to the disk only "
                "on VACUUM FULL")  # fmt: skip

    @property
    def prune_bytes(self) -> int:
        return self.prune_checkpoint_bytes + self.prune_write_bytes

    @property
    def pregel_tasks_bytes(self) -> int:
        return sum(b for ch, _n, b in self.write_channels if ch == TASKS)

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
        where = (
            f"file {human(self.file_bytes)}"
            + (f", WAL {human(self.wal_bytes)}" if self.wal_bytes else "")
            if self.backend == "sqlite"
            else f"the three tables take {human(self.file_bytes)} on disk with their TOAST and indexes"
        )
        blobs = f", {self.blobs:,} channel blobs" if self.backend == "postgres" else ""
        out = [
            f"{human(total)} of checkpoint data in {self.checkpoints:,} checkpoints{blobs} and "
            f"{self.writes:,} writes of {self.thread_count:,} threads ({where})."
        ]
        if total:
            out.append(
                f"A keep-latest prune (LangGraph's `prune(strategy=\"keep_latest\")`: each namespace's latest "
                f"checkpoint, subgraph calls with their root checkpoint) would free "
                f"{human(self.prune_bytes)} ({self.prune_bytes / total:.0%}) by dropping "
                f"{self.prune_checkpoints:,} checkpoints, their writes"
                + (
                    " and the blobs no kept checkpoint points at"
                    if self.backend == "postgres"
                    else ""
                )
                + f"; {self.prune_note} (computed only; nothing was pruned)."
            )
        if self.orphan_writes:
            out.append(
                f"{self.orphan_writes:,} writes ({human(self.orphan_write_bytes)}) of {self.orphan_threads:,} "
                "threads hang off a checkpoint that never landed (orphan writes: a resume ignores them)."
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
            "backend": self.backend,
            "blobs": self.blobs,
            "blob_bytes": self.blob_bytes,
            "relations": [r.__dict__ for r in self.relations],
            "server": self.server,
            "statement_seconds": self.seconds,
            "orphan_writes": {
                "rows": self.orphan_writes,
                "bytes": self.orphan_write_bytes,
                "threads": self.orphan_threads,
            },
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
                "note": f"computed only; nothing was pruned; {self.prune_note}",
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


def _latest_channels(source: Any) -> tuple[list[tuple[str, int, bool]], int]:
    """Channel byte sizes of every thread's latest root checkpoint (values skipped, not built)."""

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
            for name, (size, listed) in (channel_sizes(plain[1]) or {}).items():
                sizes[name] += size
                is_list.setdefault(name, listed)
    return [(n, b, is_list.get(n, False)) for n, b in sizes.most_common()], blob_bytes


class NamespaceHead(NamedTuple):
    """One (thread, namespace) as a keep-latest prune sees it: its latest checkpoint (the
    head), the root checkpoint a subgraph call's head started from, and the bytes at stake."""

    thread_id: str
    checkpoint_ns: str
    head: str
    root: str | None  # metadata.parents[""] of the head
    root_saved: bool  # that root checkpoint is in the database
    head_bytes: int  # the head's checkpoint (+ metadata) bytes
    head_write_bytes: int  # the writes on the head
    write_bytes: int  # every write of the namespace, orphans included
    blob_bytes: int = 0  # Postgres: every channel blob of the namespace
    garbage_blob_bytes: int = 0  # Postgres: blobs only checkpoints other than the head point at


@dataclass(frozen=True)
class PruneEstimate:
    checkpoints: int
    checkpoint_bytes: int
    write_bytes: int
    blob_bytes: int


def keep_latest_prune(
    heads: list[NamespaceHead],
    orphans: list[tuple[str, str, str, int, int]],
    cp_counts: dict[tuple[str, str], list[int]],
) -> PruneEstimate:
    """What LangGraph's `prune(thread_ids, strategy="keep_latest")` deletes, computed, never done
    (`PostgresSaver.prune`, `_keep_latest` in langgraph/checkpoint/postgres/base.py):

    - every namespace keeps its latest checkpoint and that checkpoint's writes; the others go
      with their writes; orphan writes (no checkpoint row) stay, a prune deletes writes by the
      checkpoints it deletes;
    - a subgraph call's namespace (`node:<task id>`, with a ":") goes whole (checkpoints, writes,
      blobs) when the root checkpoint its head started from is saved and is not the root's head;
    - a channel blob goes when a deleted checkpoint pointed at it and the kept one does not.

    `cp_counts` maps (thread, namespace) to [checkpoints, checkpoint + metadata bytes].
    Checkpoints written before format v4 with pending sends also keep their parent; current
    LangGraph writes v4 only, and this estimate does not keep it."""
    root_head = {h.thread_id: h.head for h in heads if h.checkpoint_ns == ""}
    orphan_bytes: dict[tuple[str, str], int] = defaultdict(int)
    for tid, ns, _task, _n, b in orphans:
        orphan_bytes[(tid, ns)] += b
    n_cp = cp_bytes = w_bytes = b_bytes = 0
    for h in heads:
        n, total = cp_counts.get((h.thread_id, h.checkpoint_ns), (1, h.head_bytes))
        call = (
            ":" in h.checkpoint_ns
            and h.root_saved
            and h.root is not None
            and h.root != root_head.get(h.thread_id)
        )
        if call:
            n_cp += n
            cp_bytes += total
            w_bytes += h.write_bytes
            b_bytes += h.blob_bytes
        else:
            n_cp += n - 1
            cp_bytes += total - h.head_bytes
            w_bytes += (
                h.write_bytes
                - h.head_write_bytes
                - orphan_bytes.get((h.thread_id, h.checkpoint_ns), 0)
            )
            b_bytes += h.garbage_blob_bytes
    return PruneEstimate(n_cp, cp_bytes, w_bytes, b_bytes)


# Per (thread, namespace): the head (latest checkpoint id, as the saver's get_tuple picks it),
# the root checkpoint it started from and whether that is saved, the head's bytes, and the
# bytes of the head's writes and of all the namespace's writes.
SQLITE_HEADS_SQL = """
WITH h AS (SELECT thread_id, checkpoint_ns, MAX(checkpoint_id) AS head FROM checkpoints GROUP BY 1, 2),
wa AS (SELECT thread_id, checkpoint_ns, SUM(length(value)) AS b FROM writes GROUP BY 1, 2)
SELECT h.thread_id, h.checkpoint_ns, h.head, json_extract(CAST(c.metadata AS TEXT), '$.parents.""'),
       EXISTS (SELECT 1 FROM checkpoints x WHERE x.thread_id = h.thread_id AND x.checkpoint_ns = ''
               AND x.checkpoint_id = json_extract(CAST(c.metadata AS TEXT), '$.parents.""')),
       COALESCE(length(c.checkpoint), 0) + COALESCE(length(c.metadata), 0),
       (SELECT COALESCE(SUM(length(w.value)), 0) FROM writes w WHERE w.thread_id = h.thread_id
         AND w.checkpoint_ns = h.checkpoint_ns AND w.checkpoint_id = h.head),
       COALESCE(wa.b, 0)
FROM h JOIN checkpoints c ON c.thread_id = h.thread_id AND c.checkpoint_ns = h.checkpoint_ns
     AND c.checkpoint_id = h.head
LEFT JOIN wa ON wa.thread_id = h.thread_id AND wa.checkpoint_ns = h.checkpoint_ns
"""


def storage_report(
    source: Any, *, top: int = TOP, timeout_s: float = STORAGE_TIMEOUT_S
) -> StorageReport:
    """Measure a checkpoint database (SQLite or Postgres) with SQL aggregates; nothing is
    written. On Postgres every statement is bounded by `timeout_s`."""
    if getattr(source, "kind", "") == "postgres":
        return _postgres_report(source, top=top, timeout_s=timeout_s)
    if getattr(source, "kind", "") != "sqlite":
        raise SourceError(f"{source.label}: storage forensics reads SQLite and Postgres databases.")
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
        per_space: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
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
            spa = per_space[(str(t), str(ns or ""))]
            spa[0] += n
            spa[1] += cb + mb
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
        heads = [NamespaceHead(*row) for row in q(SQLITE_HEADS_SQL)]
    orphans = source.orphan_write_tasks()
    prune = keep_latest_prune(heads, orphans, per_space)
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
        prune_checkpoint_bytes=prune.checkpoint_bytes,
        prune_write_bytes=prune.write_bytes,
        prune_checkpoints=prune.checkpoints,
        latest_channels=latest_channels,
        latest_blob_bytes=latest_bytes,
        notes=notes,
        orphan_writes=sum(o[3] for o in orphans),  # (thread, namespace, task, rows, bytes)
        orphan_write_bytes=sum(o[4] for o in orphans),
        orphan_threads=len({o[0] for o in orphans}),
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
        start = uuid6_prefix_epoch(prefix) if v6 == n else None
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


# -- Postgres ----------------------------------------------------------------------------
# PostgresSaver keeps a checkpoint in three tables: the checkpoint as JSONB (primitive
# channel values inline), its other channel values in checkpoint_blobs (keyed by thread,
# namespace, channel and version, shared by every checkpoint that points at that version),
# and its writes. Sizes are `pg_column_size` (the bytes as stored: compressed, TOASTed) and,
# for bytea, `octet_length` (the bytes as written); neither detoasts a value.
PG_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")

PG_RELATIONS_SQL = """
SELECT t.name, COALESCE(c.reltuples, 0)::bigint AS rows_estimate,
       (pg_table_size(c.oid) - COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0))::bigint AS heap,
       COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)::bigint AS toast,
       pg_indexes_size(c.oid)::bigint AS indexes, pg_total_relation_size(c.oid)::bigint AS total
FROM unnest(%s::text[]) WITH ORDINALITY AS t(name, i)
JOIN pg_class c ON c.oid = to_regclass(t.name)
ORDER BY t.i
"""

# Per thread, namespace and 26.8 s id bucket (the first 8 hex digits of a UUID v6 id).
PG_CHECKPOINTS_SQL = """
SELECT thread_id, checkpoint_ns, left(checkpoint_id, 8) AS p, COUNT(*) AS n,
       COALESCE(SUM(pg_column_size(checkpoint)), 0)::bigint AS cb,
       COALESCE(SUM(pg_column_size(metadata)), 0)::bigint AS mb,
       COUNT(*) FILTER (WHERE substr(checkpoint_id, 15, 1) = '6') AS v6
FROM checkpoints GROUP BY 1, 2, 3
"""

PG_WRITES_SQL = """
SELECT thread_id, channel, COUNT(*) AS n, COALESCE(SUM(pg_column_size(blob)), 0)::bigint AS b
FROM checkpoint_writes GROUP BY 1, 2
"""

_PG_VERSIONS = (
    "(CASE WHEN jsonb_typeof(c.checkpoint -> 'channel_versions') = 'object' "
    "THEN c.checkpoint -> 'channel_versions' ELSE '{}'::jsonb END)"
)

# Every blob with the head of its namespace pointing at it or not, another checkpoint pointing
# at it or not, and the first checkpoint id that does (when the value was written): one pass
# over every checkpoint's channel_versions, one over the blobs' primary key.
PG_BLOBS_SQL = f"""
WITH heads AS (
    SELECT DISTINCT ON (thread_id, checkpoint_ns) thread_id, checkpoint_ns, checkpoint_id
    FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id DESC
), refs AS MATERIALIZED (
    SELECT c.thread_id, c.checkpoint_ns, v.key AS channel, v.value AS version,
           bool_or(c.checkpoint_id = h.checkpoint_id) AS by_head,
           bool_or(c.checkpoint_id <> h.checkpoint_id) AS by_other,
           MIN(c.checkpoint_id) AS first
    FROM checkpoints c JOIN heads h ON h.thread_id = c.thread_id AND h.checkpoint_ns = c.checkpoint_ns
    CROSS JOIN LATERAL jsonb_each_text({_PG_VERSIONS}) AS v
    GROUP BY 1, 2, 3, 4
)
SELECT b.thread_id, b.checkpoint_ns, b.channel, left(r.first, 8) AS p,
       COUNT(*) AS n, COALESCE(SUM(pg_column_size(b.blob)), 0)::bigint AS b,
       COALESCE(SUM(octet_length(b.blob)), 0)::bigint AS raw,
       COALESCE(SUM(pg_column_size(b.blob)) FILTER (WHERE r.by_other AND NOT r.by_head), 0)::bigint AS garbage,
       COUNT(*) FILTER (WHERE r.first IS NULL) AS unreferenced,
       COUNT(*) FILTER (WHERE substr(r.first, 15, 1) = '6') AS v6
FROM checkpoint_blobs b
LEFT JOIN refs r ON r.thread_id = b.thread_id AND r.checkpoint_ns = b.checkpoint_ns
     AND r.channel = b.channel AND r.version = b.version
GROUP BY 1, 2, 3, 4
"""

PG_HEADS_SQL = """
WITH h AS (
    SELECT DISTINCT ON (thread_id, checkpoint_ns) thread_id, checkpoint_ns, checkpoint_id AS head,
           pg_column_size(checkpoint) + COALESCE(pg_column_size(metadata), 0) AS head_bytes,
           metadata -> 'parents' ->> '' AS root
    FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id DESC
)
SELECT h.thread_id, h.checkpoint_ns, h.head, h.root,
       EXISTS (SELECT 1 FROM checkpoints x WHERE x.thread_id = h.thread_id AND x.checkpoint_ns = ''
               AND x.checkpoint_id = h.root) AS root_saved,
       h.head_bytes::bigint AS head_bytes,
       (SELECT COALESCE(SUM(pg_column_size(w.blob)), 0) FROM checkpoint_writes w
         WHERE w.thread_id = h.thread_id AND w.checkpoint_ns = h.checkpoint_ns
           AND w.checkpoint_id = h.head)::bigint AS head_write_bytes
FROM h
"""

PG_WRITES_PER_NS_SQL = """
SELECT thread_id, checkpoint_ns, COALESCE(SUM(pg_column_size(blob)), 0)::bigint AS b
FROM checkpoint_writes GROUP BY 1, 2
"""

# Channel sizes inside every thread's latest root checkpoint: the inline JSONB values and the
# blobs its versions point at; a blob is a list when its msgpack starts with an array header.
PG_LATEST_CHANNELS_SQL = f"""
WITH latest AS (
    SELECT DISTINCT ON (thread_id) thread_id, checkpoint_id FROM checkpoints
    WHERE checkpoint_ns = '' ORDER BY thread_id, checkpoint_id DESC
)
SELECT iv.key AS channel, SUM(pg_column_size(iv.value))::bigint AS b,
       bool_or(jsonb_typeof(iv.value) = 'array') AS is_list
FROM latest l JOIN checkpoints c ON c.thread_id = l.thread_id AND c.checkpoint_ns = ''
     AND c.checkpoint_id = l.checkpoint_id
CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(c.checkpoint -> 'channel_values') = 'object'
                                   THEN c.checkpoint -> 'channel_values' ELSE '{{}}'::jsonb END) AS iv
GROUP BY 1
UNION ALL
SELECT bl.channel, SUM(octet_length(bl.blob))::bigint,
       bool_or(bl.type = 'msgpack' AND get_byte(substring(bl.blob FROM 1 FOR 1), 0) IN
               (144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 220, 221))
FROM latest l JOIN checkpoints c ON c.thread_id = l.thread_id AND c.checkpoint_ns = ''
     AND c.checkpoint_id = l.checkpoint_id
CROSS JOIN LATERAL jsonb_each_text({_PG_VERSIONS}) AS v
JOIN checkpoint_blobs bl ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = '' AND bl.channel = v.key
     AND bl.version = v.value AND bl.type <> 'empty' AND bl.blob IS NOT NULL
GROUP BY 1
"""

PG_LARGEST_SQL = """
(SELECT 'checkpoints' AS tbl, thread_id, checkpoint_ns, checkpoint_id, NULL::text AS task_id,
        NULL::text AS channel, NULL::text AS version, pg_column_size(checkpoint)::bigint AS b
 FROM checkpoints ORDER BY b DESC LIMIT %(top)s)
UNION ALL
(SELECT 'writes', thread_id, checkpoint_ns, checkpoint_id, task_id, channel, NULL,
        COALESCE(pg_column_size(blob), 0)::bigint AS b
 FROM checkpoint_writes ORDER BY b DESC LIMIT %(top)s)
UNION ALL
(SELECT 'blobs', thread_id, checkpoint_ns, '', NULL, channel, version,
        COALESCE(pg_column_size(blob), 0)::bigint AS b
 FROM checkpoint_blobs ORDER BY b DESC LIMIT %(top)s)
"""


def _postgres_report(
    source: Any, *, top: int, timeout_s: float = STORAGE_TIMEOUT_S
) -> StorageReport:
    """The same report from a PostgresSaver database: SQL aggregates in one read-only snapshot
    (`PostgresSource.snapshot_read`), every statement within `timeout_s`."""

    def work(cur: Any) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for name, sql, params in (
            ("relations", PG_RELATIONS_SQL, (list(PG_TABLES),)),
            ("checkpoints", PG_CHECKPOINTS_SQL, None),
            ("writes", PG_WRITES_SQL, None),
            ("blobs", PG_BLOBS_SQL, None),
            ("heads", PG_HEADS_SQL, None),
            ("writes_ns", PG_WRITES_PER_NS_SQL, None),
            ("latest", PG_LATEST_CHANNELS_SQL, None),
            ("largest", PG_LARGEST_SQL, {"top": top}),
            ("block", "SELECT current_setting('block_size')::int AS n", None),
        ):
            started = time.perf_counter()
            cur.execute(sql, params)
            out[name] = list(cur.fetchall())
            timings[name] = round(time.perf_counter() - started, 3)
        return out

    timings: dict[str, float] = {}
    rows = source.snapshot_read(work, timeout_s=timeout_s)
    orphans = source.orphan_write_tasks()
    server = source.server_settings()
    per_thread_cp: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    per_ns: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_space: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    bucket_acc: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in rows["checkpoints"]:
        t, ns, n, cb, mb = (
            str(r["thread_id"]),
            str(r["checkpoint_ns"] or ""),
            r["n"],
            r["cb"],
            r["mb"],
        )
        acc = per_thread_cp[t]
        acc[0] += n
        acc[1] += cb
        acc[2] += mb
        nsa = per_ns[ns_path(ns)]
        nsa[0] += n
        nsa[1] += cb + mb
        spa = per_space[(t, ns)]
        spa[0] += n
        spa[1] += cb + mb
        ba = bucket_acc[str(r["p"])]
        ba[0] += n
        ba[1] += cb + mb
        ba[2] += r["v6"]
    per_thread_blob: Counter[str] = Counter()
    blob_space: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # all, garbage
    n_blobs = blob_bytes = unreferenced = unreferenced_bytes = 0
    blob_buckets: dict[str, int] = defaultdict(int)
    for r in rows["blobs"]:
        t, ns = str(r["thread_id"]), str(r["checkpoint_ns"] or "")
        n_blobs += r["n"]
        blob_bytes += r["b"]
        per_thread_blob[t] += r["b"]
        per_ns[ns_path(ns)][1] += r["b"]
        bsa = blob_space[(t, ns)]
        bsa[0] += r["b"]
        bsa[1] += r["garbage"]
        if r["p"] is None:
            unreferenced += r["unreferenced"]
            unreferenced_bytes += r["b"]
        elif r["v6"] == r["n"]:  # a value is timed by the first checkpoint that points at it
            blob_buckets[str(r["p"])] += r["b"]
    per_thread_w: Counter[str] = Counter()
    per_channel: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows["writes"]:
        per_thread_w[str(r["thread_id"])] += r["b"]
        acc = per_channel[str(r["channel"])]
        acc[0] += r["n"]
        acc[1] += r["b"]
    writes_ns = {
        (str(r["thread_id"]), str(r["checkpoint_ns"] or "")): r["b"] for r in rows["writes_ns"]
    }
    heads = [
        NamespaceHead(
            str(r["thread_id"]), str(r["checkpoint_ns"] or ""), str(r["head"]), r["root"],
            bool(r["root_saved"]), int(r["head_bytes"]), int(r["head_write_bytes"]),
            int(writes_ns.get((str(r["thread_id"]), str(r["checkpoint_ns"] or "")), 0)),
            *blob_space.get((str(r["thread_id"]), str(r["checkpoint_ns"] or "")), [0, 0]),
        )
        for r in rows["heads"]
    ]  # fmt: skip
    prune = keep_latest_prune(heads, orphans, per_space)
    buckets = [
        (k, v[0], v[1] + blob_buckets.pop(k, 0), v[2]) for k, v in sorted(bucket_acc.items())
    ]
    buckets += [(k, 0, b, 0) for k, b in blob_buckets.items()]  # values first used in a bucket
    buckets.sort()
    growth, growth_note = _growth(buckets)
    notes: list[str] = []
    if unreferenced:
        notes.append(
            f"{unreferenced:,} channel blob(s) ({human(unreferenced_bytes)}) are pointed at by no checkpoint "
            "(a run that stopped before its checkpoint landed leaves them); LangGraph's keep-latest prune "
            "keeps them, so they are not in what it would free, and they are not in the growth chart."
        )
    relations = [
        Relation(str(r["name"]), max(int(r["rows_estimate"]), 0), int(r["heap"]), int(r["toast"]),
                 int(r["indexes"]), int(r["total"]))
        for r in rows["relations"]
    ]  # fmt: skip
    latest = sorted(
        ((str(r["channel"]), int(r["b"] or 0), bool(r["is_list"])) for r in rows["latest"]),
        key=lambda r: -r[1],
    )
    largest = [
        Blob(str(r["tbl"]), str(r["thread_id"]), str(r["checkpoint_ns"] or ""), str(r["checkpoint_id"] or ""),
             int(r["b"]), r["channel"], r["task_id"], r["version"])
        for r in rows["largest"]
    ]  # fmt: skip
    largest.sort(key=lambda b: -b.bytes)
    n_cp = sum(v[0] for v in per_thread_cp.values())
    cp_bytes = sum(v[1] for v in per_thread_cp.values())
    meta_bytes = sum(v[2] for v in per_thread_cp.values())
    threads = sorted(
        (
            (t, v[0], v[1] + v[2] + per_thread_blob.get(t, 0), per_thread_w.get(t, 0))
            for t, v in per_thread_cp.items()
        ),
        key=lambda r: -(r[2] + r[3]),
    )
    return StorageReport(
        file_bytes=sum(r.total_bytes for r in relations),
        wal_bytes=0,
        page_size=int(rows["block"][0]["n"]),
        free_pages=0,
        checkpoints=n_cp,
        writes=sum(v[0] for v in per_channel.values()),
        checkpoint_bytes=cp_bytes,
        metadata_bytes=meta_bytes,
        write_bytes=sum(per_thread_w.values()),
        threads=threads[:top],
        thread_count=len(set(per_thread_cp) | set(per_thread_w) | set(per_thread_blob)),
        namespaces=sorted(((k, v[0], v[1]) for k, v in per_ns.items()), key=lambda r: -r[2]),
        write_channels=sorted(
            ((c, v[0], v[1]) for c, v in per_channel.items()), key=lambda r: -r[2]
        ),
        largest=largest[:top],
        growth=growth,
        growth_note=growth_note,
        prune_checkpoint_bytes=prune.checkpoint_bytes + prune.blob_bytes,
        prune_write_bytes=prune.write_bytes,
        prune_checkpoints=prune.checkpoints,
        latest_channels=latest,
        latest_blob_bytes=sum(b for _c, b, _l in latest),
        notes=notes,
        backend="postgres",
        blob_bytes=blob_bytes,
        blobs=n_blobs,
        orphan_writes=sum(o[3] for o in orphans),
        orphan_write_bytes=sum(o[4] for o in orphans),
        orphan_threads=len({o[0] for o in orphans}),
        relations=relations,
        server=server,
        seconds=timings,
    )
