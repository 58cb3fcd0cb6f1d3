"""History export and the evidence bundle, on databases written by real graphs.

The export is compared with LangGraph's own `get_state_history` (on a copy: its saver
writes on open); the bundle is made beside a live writer, must leave the originals
byte-identical, must give the same answers when opened, and must refuse a tampered file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from replaylens.bundle import BundleError, make_bundle, open_bundle
from replaylens.cli import main
from replaylens.examples.graphs import payment

THREAD = "pay-1"
Live = tuple[Path, Path, subprocess.Popen[str]]
"""(database, effects log, the writer process)"""
REPO = Path(__file__).resolve().parents[1]


WRITER = """
import sqlite3, sys
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command
from replaylens.examples.graphs import failing, payment
conn = sqlite3.connect(sys.argv[1], check_same_thread=False)
saver = SqliteSaver(conn)
graph = payment().compile(checkpointer=saver)
graph.invoke({"invoice_id": "inv-1", "amount": 5.0}, {"configurable": {"thread_id": "pay-1"}})
try:
    failing().compile(checkpointer=saver).invoke({"visited": []}, {"configurable": {"thread_id": "fail-1"}})
except RuntimeError:
    pass
print("ready", flush=True)
for cmd in sys.stdin:
    if cmd.strip() == "resume":
        graph.invoke(Command(resume=True), {"configurable": {"thread_id": "pay-1"}})
        print("resumed", conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0], flush=True)
"""


@pytest.fixture()
def live(tmp_path: Path) -> Iterator[Live]:
    """A WAL database whose writer, another process as a running agent is, still holds its
    connection open: one payment thread paused at interrupt(), one failed thread. (A reader
    in the writer's own process would share its -shm mapping, and SQLite would record read
    marks in it through the writer's handle.)"""
    db, log = tmp_path / "live.db", tmp_path / "live.effects.jsonl"
    env = dict(
        os.environ,
        REPLAYLENS_EFFECTS_LOG=str(log),
        REPLAYLENS_EXAMPLE_SLEEP="0",
        PYTHONPATH=os.pathsep.join([str(REPO / "lib"), str(REPO)]),
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        yield db, log, proc
    finally:
        proc.kill()
        proc.wait(timeout=30)


def _state(db: Path) -> dict[str, tuple[bytes, int]]:
    return {
        s: (Path(f"{db}{s}").read_bytes(), Path(f"{db}{s}").stat().st_mtime_ns)
        for s in ("", "-wal", "-shm")
        if Path(f"{db}{s}").exists()
    }


def _cli_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_export_matches_langgraph_history(
    live: Live, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, log, _writer = live
    doc = _cli_json(["export", str(db), "--thread", THREAD, "--effects", str(log)], capsys)
    assert doc["header"]["schema"] == "replaylens.history/1"
    assert doc["header"]["status"] == "interrupted"
    copy = tmp_path / "lg.db"
    for s in ("", "-wal", "-shm"):
        if Path(f"{db}{s}").exists():
            shutil.copy2(f"{db}{s}", f"{copy}{s}")
    with SqliteSaver.from_conn_string(str(copy)) as saver:
        history = list(
            payment()
            .compile(checkpointer=saver)
            .get_state_history({"configurable": {"thread_id": THREAD}})
        )
    ours = [c for c in doc["checkpoints"] if c["checkpoint_ns"] == ""]
    assert sorted(c["checkpoint_id"] for c in ours) == sorted(
        s.config["configurable"]["checkpoint_id"] for s in history
    )
    by_id = {s.config["configurable"]["checkpoint_id"]: s for s in history}
    for c in ours:
        snap = by_id[c["checkpoint_id"]]
        assert c["step"] == snap.metadata["step"] and c["source"] == snap.metadata["source"]
        assert sorted(t["task_id"] for t in c["next"]) == sorted(t.id for t in snap.tasks)
        for t in snap.tasks:  # LangGraph's pending writes of each task are under its id
            if t.interrupts:
                assert any(w["channel"] == "__interrupt__" for w in c["writes_by_task"][t.id])
    plan = doc["plan"]
    verdicts = {e["line"]: e["verdict"] for e in plan["effects"]}
    assert {e["line"]: e["verdict"] for e in doc["effects"]} == verdicts
    assert any(e["verdict"] == "replays" and e["node"] == "approve" for e in doc["effects"])
    lines = [json.loads(x) for x in _ndjson(db, log, capsys)]
    assert [r["record"] for r in lines][0] == "header" and lines[-1]["record"] == "plan"
    assert sum(r["record"] == "checkpoint" for r in lines) == len(doc["checkpoints"])
    assert sum(r["record"] == "effect" for r in lines) == len(doc["effects"])


def _ndjson(db: Path, log: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["export", str(db), "--thread", THREAD, "--effects", str(log), "--ndjson"]) == 0
    return capsys.readouterr().out.splitlines()


def test_bundle_beside_a_live_writer_gives_the_same_answers(
    live: Live, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, log, writer = live
    assert Path(f"{db}-wal").exists()
    before = _state(db)
    out = tmp_path / "incident.zip"
    assert (
        main(["bundle", str(db), "--thread", THREAD, "--effects", str(log), "--out", str(out)]) == 0
    )
    capsys.readouterr()
    assert _state(db) == before  # not a byte, not a modification time
    original = _cli_json(
        ["replay", str(db), "--thread", THREAD, "--effects", str(log), "--json"], capsys
    )
    from_zip = _cli_json(["replay", str(out), "--thread", THREAD, "--json"], capsys)
    original.pop("backend"), from_zip.pop("backend")
    assert from_zip == original
    inc_orig = _cli_json(["incident", str(db), "--effects", str(log), "--json"], capsys)
    inc_zip = _cli_json(["incident", str(out), "--json"], capsys)
    assert inc_zip["threads"] == inc_orig["threads"] and inc_zip["impact"] == inc_orig["impact"]
    # The writer was never blocked: it answers the interrupt and commits at once.
    assert writer.stdin is not None and writer.stdout is not None
    writer.stdin.write("resume\n")
    writer.stdin.flush()
    assert writer.stdout.readline().startswith("resumed ")
    with zipfile.ZipFile(out) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        names = set(zf.namelist())
    assert (
        {
            "raw/live.db",
            "raw/live.db-wal",
            "live.db",
            "live.effects.jsonl",
            "report.md",
            "plan.json",
            "history.json",
        }
        <= set(manifest["files"])
        == names - {"manifest.json"}
    )
    assert manifest["files"]["raw/live.db-wal"]["sha256"] != manifest["files"]["live.db"]["sha256"]


def test_tampered_bundle_is_refused(
    live: Live, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, log, _writer = live
    out = tmp_path / "b.zip"
    make_bundle(db, THREAD, log, out)
    opened = open_bundle(out)
    assert opened.db.is_file() and opened.effects is not None
    opened.close()
    assert not opened.folder.exists()
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "live.effects.jsonl":
                data = data.replace(b'"start"', b'"end"  ', 1)
            dst.writestr(info, data)
    with pytest.raises(BundleError, match="does not match its sha256"):
        open_bundle(bad)
    assert main(["replay", str(bad), "--thread", THREAD]) == 2
    assert "changed after it was made" in capsys.readouterr().err


def test_bundle_opens_in_the_dashboard_with_the_same_sentence(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st
    from app_pages import open_page

    db, log, _writer = live
    out = tmp_path / "incident.zip"
    make_bundle(db, THREAD, log, out)
    opened = open_bundle(out)
    seen = []
    try:
        for path in (db, opened.db):
            monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(path)]))
            monkeypatch.setenv("REPLAYLENS_UPLOAD_DIR", str(tmp_path / "up"))
            st.cache_data.clear()
            st.cache_resource.clear()
            at = open_page("incident", db=str(path), thread=THREAD)
            at.segmented_control(key="pick").set_value("Every thread").run()
            seen.append([str(m.value) for m in at.markdown if "Resuming" in str(m.value)])
    finally:
        opened.close()
        st.cache_data.clear()
        st.cache_resource.clear()
    assert seen[0] and seen[0] == seen[1]
    assert os.environ.get("REPLAYLENS_EFFECTS_LOG")


def test_serve_reads_a_bundle_as_its_snapshot_and_log(live: Live, tmp_path: Path) -> None:
    """`replaylens serve incident.zip`: the verified snapshot and its log are what the app serves."""
    import argparse

    from replaylens._serve import build_command
    from replaylens.cli import open_bundles

    db, log, _writer = live
    out = tmp_path / "incident.zip"
    make_bundle(db, THREAD, log, out)
    args = argparse.Namespace(paths=[str(out)], effects=None, allow=[], port=8599, host=None)
    opened = open_bundles(args)
    try:
        cmd = build_command(args)
        served = cmd[cmd.index("--") + 1 :]
        assert served[0].endswith("live.db") and served[0] != str(db)
        assert served[1:3] == ["--effects", str(opened[0].effects)]
        assert Path(served[0]).is_file()
    finally:
        for b in opened:
            b.close()
    assert not Path(served[0]).exists()
