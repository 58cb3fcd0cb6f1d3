"""Evidence bundles from a PostgresSaver database on a real server: one read-only snapshot of a
thread's rows, kept in PostgresSaver's own schema and byte for byte, read back by every command
and by the dashboard with the same answers as the live database."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pg_server import PgServer, database_fingerprint
from source_threads import ORPHAN_THREAD, postgres_threads

from replaylens.analysis.status import load_thread, summarize_threads
from replaylens.bundle import PG_BUNDLE_KEYS, make_bundle, open_bundle, pg_bundle_order
from replaylens.cli import main
from replaylens.sources import open_source

THREADS = ("payment-interrupted", "subgraph", "send_map_reduce", "failing-failed", ORPHAN_THREAD)


@dataclass
class Db:
    dsn: str
    effects: Path
    threads: list[str]


@pytest.fixture(scope="module")
def db(pg_cluster: PgServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Db]:
    tmp = tmp_path_factory.mktemp("pg-bundle")
    with postgres_threads(pg_cluster, "replaylens_bundle", tmp) as (dsn, _saver, threads, _mp):
        yield Db(dsn, tmp / "effects.jsonl", threads)


def cli_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(args) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("thread", THREADS)
def test_a_bundle_replays_as_the_live_database(
    db: Db, thread: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = database_fingerprint(db.dsn)
    out = tmp_path / f"{thread}.zip"
    assert (
        main(
            ["bundle", db.dsn, "--thread", thread, "--effects", str(db.effects), "--out", str(out)]
        )
        == 0
    )
    capsys.readouterr()
    assert database_fingerprint(db.dsn) == before, "a bundle writes nothing to the server"
    live = cli_json(
        ["replay", db.dsn, "--thread", thread, "--effects", str(db.effects), "--json"], capsys
    )
    bundled = cli_json(["replay", str(out), "--thread", thread, "--json"], capsys)
    assert bundled.pop("backend")["kind"] == "postgres-snapshot"
    assert live.pop("backend")["synchronous_commit"] == "on"
    assert bundled == live and bundled["attempts"] is not None
    for cmd in (["thread", "--thread", thread, "--json"], ["threads", "--json", "--no-cache"]):
        got = cli_json([cmd[0], str(out), *cmd[1:]], capsys)
        want = cli_json([cmd[0], db.dsn, *cmd[1:]], capsys)
        if cmd[0] == "threads":  # the bundle's log names every thread; its rows hold one
            want = [t for t in want if t["thread_id"] == thread]
            got = [t for t in got if t["thread_id"] == thread]
        assert got == want, cmd[0]


def test_the_raw_rows_are_the_servers_bytes_and_the_manifest_says_when(
    db: Db, tmp_path: Path
) -> None:
    thread = "subgraph"
    out = tmp_path / "b.zip"
    manifest = make_bundle(db.dsn, thread, db.effects, out)
    assert (
        manifest["backend"] == "postgres" and manifest["isolation"] == "REPEATABLE READ, READ ONLY"
    )
    assert (
        manifest["synchronous_commit"] == "on"
        and manifest["server_version"].split(".")[0].isdigit()
    )
    assert (
        manifest["snapshot_at"].endswith("Z") and manifest["transaction_snapshot"].count(":") == 2
    )
    password = db.dsn.split(":")[2].split("@")[0]
    assert password not in json.dumps(manifest)
    with psycopg.connect(db.dsn) as conn, zipfile.ZipFile(out) as zf:
        for table in PG_BUNDLE_KEYS:
            order = pg_bundle_order(table)
            data = bytearray()
            with conn.cursor().copy(
                f"COPY (SELECT * FROM {table} WHERE thread_id = 'subgraph' ORDER BY {order}) "
                "TO STDOUT (FORMAT binary)"
            ) as copy:
                for chunk in copy:
                    data += chunk
            raw = zf.read(f"raw/{table}.pgcopy")
            assert raw == bytes(data), table
            assert (
                manifest["files"][f"raw/{table}.pgcopy"]["sha256"]
                == hashlib.sha256(raw).hexdigest()
            )
            (n,) = conn.execute(
                f"SELECT COUNT(*) FROM {table} WHERE thread_id = 'subgraph'"
            ).fetchone()
            assert manifest["rows"][table] == n > 0
    opened = open_bundle(out)
    try:
        with sqlite3.connect(opened.db) as snap:
            tables = {
                r[0] for r in snap.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        assert {
            "checkpoints",
            "checkpoint_blobs",
            "checkpoint_writes",
        } <= tables and "writes" not in tables
        source = open_source(opened.db)
        try:
            assert source.kind == "postgres-snapshot"
            live = open_source(db.dsn)
            try:
                a, b = load_thread(source, thread), load_thread(live, thread)
                latest = b.root.latest
                assert latest is not None
                assert {
                    k: v.value
                    for k, v in source.read_channel_values(thread, "", latest.checkpoint_id).items()
                } == {
                    k: v.value
                    for k, v in live.read_channel_values(thread, "", latest.checkpoint_id).items()
                }
                assert [
                    (c.checkpoint_id, sorted((t.node, t.status) for t in c.tasks))
                    for c in a.root.checkpoints
                ] == [
                    (c.checkpoint_id, sorted((t.node, t.status) for t in c.tasks))
                    for c in b.root.checkpoints
                ]
                assert sorted(a.namespaces) == sorted(b.namespaces) and len(a.namespaces) > 1
                assert (
                    summarize_threads(source)[0][0].status
                    == summarize_threads(live)[0][
                        [s.thread_id for s in summarize_threads(live)[0]].index(thread)
                    ].status
                )
            finally:
                live.close()
        finally:
            source.close()
    finally:
        opened.close()


def test_a_postgres_bundle_opens_in_the_dashboard_with_the_live_sentence(
    db: Db, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st
    from app_pages import open_page

    thread = "payment-interrupted"
    out = tmp_path / "incident.zip"
    make_bundle(db.dsn, thread, db.effects, out)
    opened = open_bundle(out)
    seen = []
    try:
        for spec, dsns in ((str(tmp_path), [db.dsn]), (str(opened.db), [])):
            monkeypatch.setenv(
                "REPLAYLENS_SERVE_ARGS", json.dumps([spec, "--effects", str(db.effects)])
            )
            monkeypatch.setenv("REPLAYLENS_SERVE_DSNS", json.dumps(dsns))
            monkeypatch.setenv("REPLAYLENS_UPLOAD_DIR", str(tmp_path / "up"))
            st.cache_data.clear()
            st.cache_resource.clear()
            at = open_page("threads")
            rows = at.dataframe[0].value
            seen.append(
                sorted(
                    (str(t), str(s))
                    for t, s in zip(rows["thread"], rows["status"], strict=True)
                    if t == thread
                )
            )
    finally:
        opened.close()
        st.cache_data.clear()
        st.cache_resource.clear()
    assert seen[0] and seen[0] == seen[1]
