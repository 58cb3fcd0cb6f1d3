"""Evidence is never changed: every page and every CLI command, on databases in every state.

Databases are written by a real graph and left (1) with a hot WAL by a SIGKILL, (2) cleanly
closed in WAL mode (no -wal, no -shm), (3) in rollback-journal mode. Each is opened by every
page of the app (AppTest) and every read-only CLI command; the bytes and modification times
of the database, its -wal and -shm must not change, and no side file may appear.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from evidence_files import fingerprint, make_db
from streamlit.testing.v1 import AppTest

from replaylens.cli import main
from replaylens.dashboard import APP

PAGES = ("threads", "thread", "resume", "runs", "learn")


def _states(root: Path) -> dict[str, Path]:
    out = {}
    for state in ("hot-wal", "clean-wal", "rollback"):
        folder = root / state
        folder.mkdir()
        db = make_db(folder, kill=state == "hot-wal")
        if state == "rollback":
            with sqlite3.connect(db) as conn:
                conn.execute("PRAGMA journal_mode=DELETE")
        out[state] = db
    return out


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _states(tmp_path_factory.mktemp("evidence"))


@pytest.fixture(autouse=True)
def fresh_caches() -> Iterator[None]:
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.mark.parametrize("state", ["hot-wal", "clean-wal", "rollback"])
def test_every_page_leaves_the_files_alone(
    state: str, evidence: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    db = evidence[state]
    log = db.parent / "effects.jsonl"
    before = fingerprint(db)
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(db.parent), "--effects", str(log)]))
    monkeypatch.setenv("REPLAYLENS_UPLOAD_DIR", str(tmp_path / "uploads"))
    for page in PAGES:
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.query_params.update({"db": str(db), "thread": "t0"})
        at.switch_page(f"screens/{page}.py")
        at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
    assert fingerprint(db) == before
    side_files = {f"{db.name}{suffix}" for suffix in before if suffix != "db"}
    assert {p.name for p in db.parent.iterdir()} == {db.name, "effects.jsonl", *side_files}


@pytest.mark.parametrize("state", ["hot-wal", "clean-wal", "rollback"])
def test_every_cli_command_leaves_the_files_alone(
    state: str, evidence: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    db = evidence[state]
    log = str(db.parent / "effects.jsonl")
    before = fingerprint(db)
    for argv in (
        ["threads", str(db)],
        ["threads", str(db), "--json"],
        ["thread", str(db), "--thread", "t0"],
        ["thread", str(db), "--thread", "t0", "--json", "--values"],
        ["replay", str(db), "--thread", "t0", "--effects", log, "--json"],
        ["report", str(db), "--thread", "t1", "--effects", log],
    ):
        assert main(argv) == 0, argv
        capsys.readouterr()
    assert fingerprint(db) == before
