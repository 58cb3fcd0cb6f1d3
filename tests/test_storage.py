"""Storage forensics on databases written by real graphs: the numbers against the rows themselves,
and the prune it predicts against a prune really done on a copy."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import uuid
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from replaylens.analysis.storage import BUCKET_SECONDS, ns_path, storage_report
from replaylens.cli import main
from replaylens.examples.graphs import loop, subgraph
from replaylens.sources import open_source
from replaylens.times import iso_to_epoch


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three threads of a subgraph graph and two of a loop, written by SqliteSaver."""
    path = tmp_path_factory.mktemp("storage") / "store.db"
    old = os.environ.get("REPLAYLENS_EFFECTS_LOG")
    os.environ["REPLAYLENS_EFFECTS_LOG"] = str(path.with_suffix(".effects.jsonl"))
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    g_sub = subgraph().compile(checkpointer=saver)
    g_loop = loop().compile(checkpointer=saver)
    for i in range(3):
        g_sub.invoke(
            {"visited": []}, {"configurable": {"thread_id": f"sub-{i}"}}, durability="sync"
        )
    for i in range(2):
        g_loop.invoke(
            {"visited": [], "calls": i},
            {"configurable": {"thread_id": f"loop-{i}"}},
            durability="sync",
        )
    conn.close()
    if old is None:
        os.environ.pop("REPLAYLENS_EFFECTS_LOG")
    else:
        os.environ["REPLAYLENS_EFFECTS_LOG"] = old
    return path


def _files(path: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for suffix in ("", "-wal", "-shm"):
        p = Path(f"{path}{suffix}")
        if p.exists():
            out[suffix] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def _report(path: Path):  # noqa: ANN202 - a StorageReport
    source = open_source(path)
    try:
        return storage_report(source)
    finally:
        source.close()


def test_totals_equal_the_rows(db: Path, tmp_path: Path) -> None:
    before = _files(db)
    rep = _report(db)
    assert _files(db) == before  # not a byte, not a modification time
    copy = tmp_path / "copy.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            shutil.copy2(f"{db}{suffix}", f"{copy}{suffix}")
    conn = sqlite3.connect(copy)
    rows = conn.execute(
        "SELECT thread_id, checkpoint_ns, checkpoint, metadata FROM checkpoints"
    ).fetchall()
    writes = conn.execute("SELECT thread_id, channel, value FROM writes").fetchall()
    conn.close()
    assert rep.checkpoints == len(rows) and rep.writes == len(writes)
    assert rep.checkpoint_bytes == sum(len(r[2]) for r in rows)
    assert rep.metadata_bytes == sum(len(r[3]) for r in rows)
    assert rep.write_bytes == sum(len(w[2] or b"") for w in writes)
    per_thread = {t: cb for t, _n, cb, _wb in rep.threads}
    assert per_thread["loop-1"] == sum(len(r[2]) + len(r[3]) for r in rows if r[0] == "loop-1")
    assert {ns for ns, _n, _b in rep.namespaces} == {"(root)", "sub"}
    assert dict((ns, n) for ns, n, _b in rep.namespaces)["sub"] == sum(1 for r in rows if r[1])
    assert rep.largest[0].bytes == max(
        [len(r[2]) for r in rows] + [len(w[2] or b"") for w in writes]
    )
    assert rep.thread_count == 5


def test_prune_frees_what_a_real_prune_frees(db: Path, tmp_path: Path) -> None:
    """Do on a copy what the report only computes: LangGraph's keep-latest prune, by hand (the
    Postgres twin runs PostgresSaver.prune itself, tests/test_storage_postgres.py)."""
    rep = _report(db)
    copy = tmp_path / "pruned.db"
    shutil.copy2(db, copy)
    for suffix in ("-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            shutil.copy2(f"{db}{suffix}", f"{copy}{suffix}")
    conn = sqlite3.connect(copy)
    # LangGraph's keep_latest (PostgresSaver.prune; SqliteSaver has none): each namespace keeps
    # its latest checkpoint, except a subgraph call's namespace (a ":" in it) whose head started
    # from a saved root checkpoint that is no longer the root's latest: it goes whole.
    heads = {
        (t, ns): cid
        for t, ns, cid in conn.execute(
            "SELECT thread_id, checkpoint_ns, MAX(checkpoint_id) FROM checkpoints GROUP BY 1, 2"
        )
    }
    ids = set(conn.execute("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints"))
    calls = set()
    for (t, ns), cid in heads.items():
        meta = json.loads(
            conn.execute(
                "SELECT metadata FROM checkpoints WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id=?",
                (t, ns, cid),
            ).fetchone()[0]
        )
        root = meta.get("parents", {}).get("")
        if ":" in ns and (t, "", root) in ids and root != heads.get((t, "")):
            calls.add((t, ns))
    assert calls, "the subgraph threads' finished calls are pruned whole"
    dropped = 0
    for t, ns, cid in sorted(ids):
        if (t, ns) in calls or heads[(t, ns)] != cid:
            conn.execute(
                "DELETE FROM checkpoints WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id=?",
                (t, ns, cid),
            )
            conn.execute(
                "DELETE FROM writes WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id=?",
                (t, ns, cid),
            )
            dropped += 1
    for t, ns in calls:
        conn.execute("DELETE FROM writes WHERE thread_id=? AND checkpoint_ns=?", (t, ns))
    conn.commit()
    conn.close()
    after = _report(copy)
    assert rep.prune_checkpoints == dropped > 0
    assert after.total_bytes == rep.total_bytes - rep.prune_bytes
    assert after.prune_bytes == 0


def test_growth_buckets_follow_the_checkpoint_times(db: Path) -> None:
    rep = _report(db)
    assert sum(n for _s, n, _b in rep.growth) == rep.checkpoints
    assert rep.growth_note is None
    source = open_source(db)
    try:
        ts = [
            iso_to_epoch(r.ts)
            for t in ("sub-0", "loop-1")
            for r in source.read_thread(t).checkpoints
        ]
    finally:
        source.close()
    starts = [s for s, _n, _b in rep.growth]
    for t in ts:
        assert t is not None
        assert any(s <= t < s + BUCKET_SECONDS + 1e-3 for s in starts), t


def test_non_uuid6_ids_are_said_not_guessed(tmp_path: Path) -> None:
    path = tmp_path / "odd.db"
    with SqliteSaver.from_conn_string(str(path)) as saver:
        saver.setup()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) "
        "VALUES ('t', '', ?, 'msgpack', x'80', '{}')",
        (str(uuid.uuid4()),),
    )
    conn.commit()
    conn.close()
    rep = _report(path)
    assert rep.growth == [] and rep.growth_note is not None and "not UUID v6" in rep.growth_note


def test_ns_path_folds_task_ids() -> None:
    assert ns_path("") == "(root)"
    assert ns_path("outer:1f0-aa|inner:9b-cc") == "outer|inner"


def test_cli_storage_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["storage", str(db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (
        doc["total_bytes"] == doc["checkpoint_bytes"] + doc["metadata_bytes"] + doc["write_bytes"]
    )
    assert doc["prune_keep_latest"]["frees_bytes"] < doc["total_bytes"]
    assert main(["storage", str(db)]) == 0
    assert "would free" in capsys.readouterr().out
    assert sys.modules["replaylens.analysis.storage"]
