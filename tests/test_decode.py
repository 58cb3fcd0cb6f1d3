"""Hostile and broken blobs: opened, shown as marked placeholders, and no code ever runs."""

from __future__ import annotations

import os
import pickle
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ormsgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from replaylens.analysis.status import load_thread, summarize_threads
from replaylens.decode import Placeholder, decode_typed
from replaylens.examples.graphs import linear
from replaylens.sources import CheckpointRecord, open_source
from replaylens.sources._skeleton import fill_skeleton

AES_KEY = b"0123456789abcdef"


class _Boom:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:  # what a malicious pickle does on load
        return (os.system, (f"touch {self.marker}",))


def _ext(code: int, *parts: object) -> bytes:
    return ormsgpack.packb(ormsgpack.Ext(code, ormsgpack.packb(list(parts))))


@pytest.mark.parametrize(
    "blob_factory",
    [
        lambda m: ("msgpack", _ext(1, "os", "system", [f"touch {m}"])),
        lambda m: ("msgpack", _ext(0, "subprocess", "Popen", ["touch", m])),
        lambda m: ("msgpack", _ext(2, "attacker_module", "Payload", {"path": m})),
        lambda m: ("msgpack", _ext(3, "os", "system", f"touch {m}", "__call__")),
        lambda m: ("msgpack", _ext(5, "os", "system", {"command": f"touch {m}"})),
        lambda m: ("pickle", pickle.dumps(_Boom(m))),
        lambda m: (
            "json",
            b'{"lc": 2, "type": "constructor", "id": ["os", "system"], "args": ["touch %s"]}'
            % m.encode(),
        ),
    ],
    ids=[
        "ext-os.system",
        "ext-Popen",
        "ext-attacker-module",
        "ext-method",
        "ext-pydantic",
        "pickle",
        "json-lc",
    ],
)
def test_crafted_blobs_become_placeholders_and_run_nothing(
    blob_factory: Callable[[str], tuple[str, bytes]], tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    type_, blob = blob_factory(str(marker))
    result = decode_typed(type_, blob)
    assert not marker.exists(), "decoding ran code named by the blob"
    value = result.value
    placeholder = (
        value
        if isinstance(value, Placeholder)
        else value.get("__placeholder__")
        if isinstance(value, dict)
        else None
    )
    assert isinstance(value, Placeholder), repr(value)
    assert placeholder.kind in {"blocked", "pickle"}


def test_hostile_database_opens_and_no_code_runs(tmp_path: Path) -> None:
    db = tmp_path / "hostile.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    linear().compile(checkpointer=SqliteSaver(conn)).invoke(
        {"visited": []}, {"configurable": {"thread_id": "t"}}
    )
    marker = tmp_path / "pwned"
    conn.execute(
        "UPDATE writes SET type='msgpack', value=? WHERE rowid = (SELECT MIN(rowid) FROM writes)",
        (_ext(1, "os", "system", [f"touch {marker}"]),),
    )
    conn.execute(
        "UPDATE writes SET type='pickle', value=? WHERE rowid = (SELECT MAX(rowid) FROM writes)",
        (pickle.dumps(_Boom(str(marker))),),
    )
    conn.commit()
    conn.close()
    source = open_source(db)
    thread = load_thread(source, "t")
    values = [
        w.value for ns in thread.namespaces.values() for cp in ns.checkpoints for w in cp.writes
    ]
    assert sum(isinstance(v, Placeholder) for v in values) == 2
    assert not marker.exists()


def test_encrypted_blobs_need_the_key(tmp_path: Path) -> None:
    db = tmp_path / "enc.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    saver = SqliteSaver(conn, serde=EncryptedSerializer.from_pycryptodome_aes(key=AES_KEY))
    linear().compile(checkpointer=saver).invoke(
        {"visited": []}, {"configurable": {"thread_id": "t"}}
    )
    conn.close()
    locked = open_source(db, aes_key=None)
    summaries, problems = summarize_threads(locked)
    assert summaries[0].status == "unreadable"
    assert problems and "encrypted" in problems[0] and "LANGGRAPH_AES_KEY" in problems[0]
    opened = open_source(db, aes_key=AES_KEY)
    thread = load_thread(opened, "t")
    assert thread.root is not None and thread.root.latest is not None
    values = opened.read_channel_values("t", "", thread.root.latest.checkpoint_id)
    assert values["visited"].value == ["a", "b", "c", "d"]
    wrong = open_source(db, aes_key=b"fedcba9876543210")
    assert summarize_threads(wrong)[0][0].status == "unreadable"


def test_a_corrupt_checkpoint_blob_spoils_only_itself(tmp_path: Path) -> None:
    db = tmp_path / "corrupt.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    linear().compile(checkpointer=SqliteSaver(conn)).invoke(
        {"visited": []}, {"configurable": {"thread_id": "t"}}
    )
    conn.execute(
        "UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, 20) "
        "WHERE rowid = (SELECT MIN(rowid) FROM checkpoints)"
    )
    conn.commit()
    conn.close()
    thread = load_thread(open_source(db), "t")
    unreadable = [cp for cp in thread.root.checkpoints if cp.unreadable]
    assert len(unreadable) == 1 and len(thread.root.checkpoints) == 6
    assert any("unreadable" in p for p in thread.problems)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["msgpack", "json", "bytes", "pickle", "msgpack+aes", "weird", "null"]),
    st.binary(max_size=300),
)
def test_decoder_never_raises(type_: str, blob: bytes) -> None:
    result = decode_typed(type_, blob, aes_key=AES_KEY)
    assert result.error is None or isinstance(result.error, str)
    rec = CheckpointRecord("t", "", "1", None, {})
    fill_skeleton(rec, type_, blob, AES_KEY)


def test_random_bytes_never_read_as_a_checkpoint() -> None:
    # one blob in sixteen opens with a small msgpack map header; it must not read as an empty
    # checkpoint (CI once loaded such a blob without a word)
    rng = random.Random(4)
    for n in range(4000):
        blob = bytes([0x80 + n % 16]) + rng.randbytes(rng.randrange(0, 300))
        rec = CheckpointRecord("t", "", "1", None, {})
        fill_skeleton(rec, "msgpack", blob, None)
        assert rec.error and "cannot be read" in rec.error, blob[:20]


def test_shutil_is_only_used_for_copies(tmp_path: Path) -> None:
    # decoding must not need the writable original: a read-only copy works the same
    db = tmp_path / "ro.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    linear().compile(checkpointer=SqliteSaver(conn)).invoke(
        {"visited": []}, {"configurable": {"thread_id": "t"}}
    )
    conn.close()
    folder = tmp_path / "evidence"
    folder.mkdir()
    shutil.copy2(db, folder / "ro.db")
    os.chmod(folder / "ro.db", 0o444)
    os.chmod(folder, 0o555)
    try:
        assert summarize_threads(open_source(folder / "ro.db"))[0][0].status == "completed"
    finally:
        os.chmod(folder, 0o755)


def test_the_same_blobs_decode_alike_whatever_langgraph_is_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A LangGraph before 1.0 beside replaylens has no `serde._msgpack` safe list, and its
    JsonPlusSerializer takes other arguments: every `Send`, `Interrupt` and message decoded
    to a placeholder there, and a 0.6.11 kill campaign judged in its own environment had
    146 full-log verdict lines wrong that were right here. The safe list is replaylens's own."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.types import Interrupt, Send

    from replaylens import decode

    serde = JsonPlusSerializer()
    blobs = [
        serde.dumps_typed(Send("worker", {"n": 1})),
        serde.dumps_typed([Interrupt(value={"ask": "ok?"}, id="a1")]),
        serde.dumps_typed({"at": __import__("datetime").datetime(2026, 1, 2)}),
        ("json", b'{"a": [1, 2]}'),
        ("bytes", b"raw"),
        ("null", b""),
    ]
    here = [repr(decode_typed(t, b).value) for t, b in blobs]
    import langgraph.checkpoint.serde as serde_package

    # as on LangGraph 0.6: no such module
    monkeypatch.delattr(serde_package, "_msgpack", raising=False)
    monkeypatch.setitem(__import__("sys").modules, "langgraph.checkpoint.serde._msgpack", None)
    decode._safety.cache_clear()
    try:
        without = [repr(decode_typed(t, b).value) for t, b in blobs]
    finally:
        decode._safety.cache_clear()
    assert without == here
    assert not any("Placeholder" in r for r in without), without
