"""Storage forensics on a PostgresSaver database written by real graphs, on a real server:
the numbers against the rows and relations themselves, against the SQLite twin of the same
threads, and the prune it predicts against LangGraph's own `PostgresSaver.prune` run for
real on a copy of the schema."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from pg_server import PgServer
from source_threads import postgres_threads, write_threads

from replaylens.analysis.storage import PG_TABLES, StorageReport, storage_report
from replaylens.cli import main
from replaylens.sources import open_source


@dataclass
class Twins:
    dsn: str
    sqlite_db: Path
    threads: list[str]


@pytest.fixture(scope="module")
def twins(pg_cluster: PgServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Twins]:
    """The same threads (every example graph, finished, interrupted, failed, and an orphan
    write) through PostgresSaver and SqliteSaver."""
    tmp = tmp_path_factory.mktemp("pg-storage")
    with ExitStack() as stack:
        dsn, _saver, threads, mp = stack.enter_context(
            postgres_threads(pg_cluster, "replaylens_storage", tmp)
        )
        conn = sqlite3.connect(tmp / "twin.db", check_same_thread=False)
        stack.callback(conn.close)
        assert write_threads(SqliteSaver(conn), mp) == threads
        yield Twins(dsn, tmp / "twin.db", threads)


def report(spec: str | Path) -> StorageReport:
    source = open_source(spec)
    try:
        return storage_report(source)
    finally:
        source.close()


def with_schema(dsn: str, schema: str) -> str:
    return f"{dsn}{'&' if '?' in dsn else '?'}options=-csearch_path%3D{schema}"


def fingerprint(dsn: str) -> list[Any]:
    with psycopg.connect(dsn) as conn:
        return [
            conn.execute(f"SELECT COUNT(*), MAX(xmin::text::bigint) FROM {t}").fetchone()
            for t in PG_TABLES
        ]


def test_the_numbers_are_the_rows_and_the_relations(twins: Twins) -> None:
    before = fingerprint(twins.dsn)
    rep = report(twins.dsn)
    assert fingerprint(twins.dsn) == before, "storage forensics wrote nothing"
    with psycopg.connect(twins.dsn) as conn:
        q = lambda sql: conn.execute(sql).fetchone()  # noqa: E731
        cp = q(
            "SELECT COUNT(*), SUM(pg_column_size(checkpoint)), SUM(pg_column_size(metadata)) FROM checkpoints"
        )
        bl = q("SELECT COUNT(*), SUM(pg_column_size(blob)) FROM checkpoint_blobs")
        wr = q("SELECT COUNT(*), SUM(pg_column_size(blob)) FROM checkpoint_writes")
        on_disk = q("SELECT SUM(pg_total_relation_size(t)) FROM unnest(ARRAY['checkpoints', "
                    "'checkpoint_blobs', 'checkpoint_writes']) AS t")[0]  # fmt: skip
        biggest_value = q(
            "SELECT GREATEST((SELECT MAX(pg_column_size(checkpoint)) FROM checkpoints), "
            "(SELECT MAX(pg_column_size(blob)) FROM checkpoint_blobs), "
            "(SELECT MAX(pg_column_size(blob)) FROM checkpoint_writes))"
        )[0]
        biggest_thread = q(
            "SELECT thread_id FROM (SELECT thread_id, SUM(b) AS b FROM ("
            "SELECT thread_id, pg_column_size(checkpoint) + pg_column_size(metadata) AS b FROM checkpoints "
            "UNION ALL SELECT thread_id, pg_column_size(blob) FROM checkpoint_blobs "
            "UNION ALL SELECT thread_id, pg_column_size(blob) FROM checkpoint_writes) x "
            "GROUP BY 1) y ORDER BY b DESC LIMIT 1"
        )[0]
    assert (rep.checkpoints, rep.checkpoint_bytes, rep.metadata_bytes) == tuple(cp)
    assert (rep.blobs, rep.blob_bytes) == tuple(bl)
    assert (rep.writes, rep.write_bytes) == tuple(wr)
    assert rep.total_bytes == cp[1] + cp[2] + bl[1] + wr[1]
    assert sum(n for _t, n, _c, _w in rep.threads) == rep.checkpoints  # fewer than 20 threads
    assert sum(c + w for _t, _n, c, w in rep.threads) == rep.total_bytes
    assert rep.threads[0][0] == biggest_thread
    assert [r.table for r in rep.relations] == list(PG_TABLES)
    for r in rep.relations:
        assert r.total_bytes == r.heap_bytes + r.toast_bytes + r.index_bytes and r.index_bytes > 0
    assert rep.file_bytes == on_disk
    assert rep.server["synchronous_commit"] == "on"
    assert sum(n for _s, n, _b in rep.growth) == rep.checkpoints, "every id is a UUID v6"
    assert rep.growth_note is None
    assert rep.largest[0].bytes == biggest_value
    assert any("tables take" in s for s in rep.sentences())


def test_postgres_agrees_with_sqlite_on_the_same_threads(twins: Twins) -> None:
    """Bytes differ (JSONB and blobs against msgpack), what was counted must not."""
    pg, lite = report(twins.dsn), report(twins.sqlite_db)

    def counts(rep: StorageReport) -> dict[str, Any]:
        return {
            "threads": rep.thread_count,
            "checkpoints": rep.checkpoints,
            "writes": rep.writes,
            "prune_checkpoints": rep.prune_checkpoints,
            "orphans": (rep.orphan_writes, rep.orphan_threads),
            "namespaces": sorted((ns, n) for ns, n, _b in rep.namespaces),
            "channels": sorted((c, n) for c, n, _b in rep.write_channels),
            "per_thread": sorted((t, n) for t, n, _c, _w in rep.threads),
            "latest_lists": sorted(c for c, _b, is_list in rep.latest_channels if is_list),
        }

    assert counts(pg) == counts(lite)
    assert pg.orphan_writes == 1 and pg.orphan_threads == 1  # the linear-orphan write
    assert pg.prune_checkpoints > 0 and pg.prune_bytes > 0
    assert "visited" in counts(pg)["latest_lists"]


def test_prune_frees_what_langgraphs_own_prune_frees(twins: Twins) -> None:
    """Copy the three tables into a schema of their own, run `PostgresSaver.prune(...,
    strategy="keep_latest")` there, and measure the copy again."""
    copy = with_schema(twins.dsn, "pruned")
    with psycopg.connect(twins.dsn, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS pruned CASCADE")
        conn.execute("CREATE SCHEMA pruned")
        for table in (*PG_TABLES, "checkpoint_migrations"):
            conn.execute(f"CREATE TABLE pruned.{table} (LIKE public.{table} INCLUDING ALL)")
            conn.execute(f"INSERT INTO pruned.{table} SELECT * FROM public.{table}")
    before = report(copy)
    assert before.total_bytes == report(twins.dsn).total_bytes
    with PostgresSaver.from_conn_string(copy) as saver:
        saver.prune(sorted(twins.threads), strategy="keep_latest")
    after = report(copy)
    assert after.checkpoints == before.checkpoints - before.prune_checkpoints
    assert after.total_bytes == before.total_bytes - before.prune_bytes
    assert after.prune_bytes == 0 and after.prune_checkpoints == 0
    assert after.orphan_writes == before.orphan_writes == 1, "a prune keeps orphan writes"


def test_cli_storage_on_postgres(twins: Twins, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["storage", twins.dsn, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["backend"] == "postgres" and doc["orphan_writes"]["rows"] == 1
    assert [r["table"] for r in doc["relations"]] == list(PG_TABLES)
    assert doc["prune_keep_latest"]["frees_bytes"] > 0
    assert main(["storage", twins.dsn]) == 0
    text = capsys.readouterr().out
    assert "relations on disk" in text and "checkpoint_blobs" in text and "orphan writes" in text
    password = twins.dsn.split(":")[2].split("@")[0]
    assert password not in text


def test_storage_has_its_own_bound_and_says_it(twins: Twins) -> None:
    """A locked table: the aggregates stop at storage's bound with one sentence naming it, and
    the session's own timeout is back for the next reader."""
    from replaylens.errors import SourceError
    from replaylens.sources import _postgres

    source = open_source(twins.dsn)
    try:
        with psycopg.connect(twins.dsn) as locker:
            locker.execute("LOCK TABLE checkpoint_blobs IN ACCESS EXCLUSIVE MODE")
            with pytest.raises(SourceError, match=r"took longer than 0\.4 s and was cancelled"):
                storage_report(source, timeout_s=0.4)
        assert source._timeout_ms == _postgres.STATEMENT_TIMEOUT_MS
        with source._transaction() as cur:
            cur.execute("SHOW statement_timeout")
            assert (
                cur.fetchone()["statement_timeout"] == f"{_postgres.STATEMENT_TIMEOUT_MS // 1000}s"
            )
    finally:
        source.close()
