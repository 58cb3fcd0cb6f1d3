"""Evidence is never changed and a live writer is never blocked.

Every case uses a database written by a real LangGraph graph; the byte-for-byte and
mtime comparison covers the database, its -wal and its -shm (and that no new side file
appears).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from evidence_files import SIDE, fingerprint, make_db

from replaylens.analysis.status import load_thread, summarize_threads
from replaylens.sources import open_source

REPO = Path(__file__).resolve().parents[1]


def read_everything(db: Path) -> tuple[int, list[str]]:
    """Go through every read path a page or CLI command uses; return checkpoints seen."""
    source = open_source(db)
    try:
        summaries, _ = summarize_threads(source)
        seen = 0
        for s in summaries:
            thread = load_thread(source, s.thread_id)
            for ns in thread.namespaces.values():
                for cp in ns.checkpoints:
                    seen += 1
                    source.read_channel_values(s.thread_id, ns.name, cp.checkpoint_id)
        return seen, source.notes
    finally:
        source.close()


def checkpoints_in_copy(db: Path, tmp_path: Path) -> int:
    """What SQLite itself sees after recovering a private copy (the ground truth)."""
    copy = tmp_path / "truth" / db.name
    copy.parent.mkdir()
    for suffix in SIDE:
        if Path(f"{db}{suffix}").exists():
            copy.with_name(copy.name + suffix).write_bytes(Path(f"{db}{suffix}").read_bytes())
    with sqlite3.connect(copy) as conn:
        return conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0]


def test_hot_wal_left_by_sigkill_is_read_and_untouched(tmp_path: Path) -> None:
    db = make_db(tmp_path, kill=True)
    assert Path(f"{db}-wal").stat().st_size > 0, "the SIGKILL should leave a hot WAL"
    before = fingerprint(db)
    seen, notes = read_everything(db)
    assert fingerprint(db) == before
    assert seen == checkpoints_in_copy(db, tmp_path) > 0
    assert notes == []


def test_cleanly_closed_wal_database_gets_no_side_files(tmp_path: Path) -> None:
    db = make_db(tmp_path, kill=False)
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    before = fingerprint(db)
    seen, _ = read_everything(db)
    assert fingerprint(db) == before  # no -wal or -shm was created
    assert seen == checkpoints_in_copy(db, tmp_path)


def test_wal_without_shm_is_read_from_a_private_copy(tmp_path: Path) -> None:
    db = make_db(tmp_path, kill=True)
    Path(f"{db}-shm").unlink()  # as when someone copies only the .db and the -wal
    before = fingerprint(db)
    seen, notes = read_everything(db)
    assert fingerprint(db) == before
    assert not Path(f"{db}-shm").exists()
    assert seen == checkpoints_in_copy(db, tmp_path) > 0
    assert any("private copy" in n for n in notes)


def test_a_writer_closing_between_look_and_open_is_not_a_damaged_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live writer's last connection closing right after the reader looked at the side files
    deletes -wal and -shm (SQLite does on a clean close); the read-only open that counted on
    that -shm must look again, not call the file damaged (the live poll hit this)."""
    from replaylens.sources import _sqlite

    db = make_db(tmp_path, kill=True)  # -wal and -shm next to it, as while a writer is open
    assert Path(f"{db}-shm").exists()
    look = _sqlite.SqliteSource._choose_uri
    closed: list[bool] = []

    def look_then_the_writer_closes(self: Any) -> tuple[str, str]:
        chosen = look(self)
        if not closed:
            writer = sqlite3.connect(db)  # the writer's own last connection, then its close
            writer.execute("SELECT count(*) FROM checkpoints").fetchall()
            writer.close()
            closed.append(True)
            assert not Path(f"{db}-shm").exists()
        return chosen

    monkeypatch.setattr(_sqlite.SqliteSource, "_choose_uri", look_then_the_writer_closes)
    seen, _ = read_everything(db)
    assert closed and seen == checkpoints_in_copy(db, tmp_path) > 0


def test_a_writer_closing_after_the_open_is_not_a_damaged_file(tmp_path: Path) -> None:
    """The source was opened while a writer held the file (its -wal and -shm next to it), and
    the writer's last connection closed before the next read, deleting both: the read that
    counted on that -shm must open the file again, not say it cannot be read (a page
    following a live writer on a loaded CI machine showed "unable to open database file")."""
    db = make_db(tmp_path, kill=True)  # -wal and -shm next to it, as while a writer is open
    source = open_source(db)
    threads_before = [s.thread_id for s in summarize_threads(source)[0]]
    writer = sqlite3.connect(db)  # the writer's own last connection, then its close
    writer.execute("SELECT count(*) FROM checkpoints").fetchall()
    writer.close()
    assert not Path(f"{db}-shm").exists() and not Path(f"{db}-wal").exists()
    assert [s.thread_id for s in summarize_threads(source)[0]] == threads_before
    thread = load_thread(source, threads_before[0])
    assert thread.root is not None and thread.root.checkpoints


def test_rollback_journal_database_is_untouched(tmp_path: Path) -> None:
    db = make_db(tmp_path, kill=False)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
    before = fingerprint(db)
    seen, _ = read_everything(db)
    assert fingerprint(db) == before
    assert seen == checkpoints_in_copy(db, tmp_path) > 0


def test_cli_commands_leave_the_files_alone(tmp_path: Path) -> None:
    db = make_db(tmp_path, kill=True)
    before = fingerprint(db)
    for args in (
        ["threads", str(db), "--json"],
        ["thread", str(db), "--thread", "t0", "--json", "--values"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "replaylens.cli", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONPATH": str(REPO / "lib")},
        )
        assert proc.returncode == 0, proc.stderr
        json.loads(proc.stdout)
    assert fingerprint(db) == before


@pytest.mark.slow
def test_live_writer_is_not_blocked_and_new_checkpoints_are_seen(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    env = {
        **os.environ,
        "PYTHONPATH": f"{REPO}:{REPO / 'lib'}",
        "REPLAYLENS_EFFECTS_LOG": str(tmp_path / "effects.jsonl"),
    }
    writer = subprocess.Popen(
        [sys.executable, "-m", "examples.live_writer", str(db), "6"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    counts: list[int] = []
    # The dashboard's reader, polling every 100 ms for as long as the writer writes (6 s):
    # the writer's exit, not a clock, ends the loop.
    while writer.poll() is None:
        source = open_source(db)
        try:
            summaries, _ = summarize_threads(source)
            counts.append(sum(s.checkpoints for s in summaries))
        finally:
            source.close()
        time.sleep(0.1)
    report = json.loads(writer.stdout.readline())
    assert writer.wait(timeout=30) == 0
    assert report["locked"] == 0
    assert report["runs"] > 5
    assert len(counts) >= 20
    assert all(b >= a for a, b in zip(counts, counts[1:], strict=False)), (
        "counts must never go back"
    )
    assert counts[-1] > counts[0], "the reader must see checkpoints as they land"
