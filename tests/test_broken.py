"""A corpus of broken inputs, made by code: each gets one clear sentence naming what is wrong
and where, the rest still loads, no traceback reaches the user, and the process goes on.

Each database case starts from a real database written by a real graph, then breaks a
copy the way files really break (truncation, foreign schemas, damaged blobs, hand edits).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from corpus import Corpus
from replaylens.analysis.status import load_thread, summarize_threads
from replaylens.cli import main
from replaylens.effects.parse import read_effects
from replaylens.examples.graphs import linear

KEY = b"0123456789abcdef"


def real_db(path: Path, *, serde: Any = None, threads: int = 2) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn, serde=serde) if serde else SqliteSaver(conn)
    graph = linear().compile(checkpointer=saver)
    for i in range(threads):
        graph.invoke({"visited": []}, {"configurable": {"thread_id": f"t{i}"}}, durability="sync")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def sql(*statements: str) -> Callable[[Path], None]:
    def apply(db: Path) -> None:
        with sqlite3.connect(db) as conn:
            for s in statements:
                conn.execute(s)

    return apply


FIRST_CP = "(SELECT MIN(rowid) FROM checkpoints WHERE thread_id='t0')"
LAST_CP = "(SELECT MAX(rowid) FROM checkpoints WHERE thread_id='t0')"
MID_CP = (
    "(SELECT rowid FROM checkpoints WHERE thread_id='t0' ORDER BY checkpoint_id LIMIT 1 OFFSET 3)"
)
NOISE = random.Random(23).randbytes(200).hex()  # fixed bytes: the case cannot pass by luck
FIRST_W = "(SELECT rowid FROM writes WHERE thread_id='t0' ORDER BY length(value) DESC LIMIT 1)"

# name -> (how to break a copy of a healthy db, what the sentence must mention, fatal?)
DB_CASES: dict[str, tuple[Callable[[Path], None], str, bool]] = {
    "not-sqlite": (lambda db: db.write_text("id,name\n1,alice\n"), "not a SQLite database", True),
    "zero-bytes": (lambda db: db.write_bytes(b""), "empty (0 bytes)", True),
    "truncated-header": (lambda db: db.write_bytes(db.read_bytes()[:60]), "truncated", True),
    "truncated-pages": (
        lambda db: db.write_bytes(db.read_bytes()[:8192]),
        "truncated or damaged",
        True,
    ),
    "other-application": (
        lambda db: (db.unlink(), sql("CREATE TABLE invoices (id INTEGER, total REAL)")(db)),
        "not a LangGraph checkpoint database",
        True,
    ),
    "checkpoints-missing-columns": (
        sql("ALTER TABLE checkpoints DROP COLUMN metadata"),
        "lacks the column",
        True,
    ),
    "writes-missing-columns": (
        sql("ALTER TABLE writes DROP COLUMN channel"),
        "lacks the column",
        True,
    ),
    "no-writes-table": (sql("DROP TABLE writes"), "no writes table", True),
    "parent-missing": (
        sql(f"UPDATE checkpoints SET parent_checkpoint_id='ffffffff-0000' WHERE rowid={MID_CP}"),
        "not in the database",
        False,
    ),
    "parent-cycle": (
        sql(
            f"UPDATE checkpoints SET parent_checkpoint_id=(SELECT checkpoint_id FROM checkpoints "
            f"WHERE rowid={LAST_CP}) WHERE rowid={FIRST_CP}"
        ),
        "cycle",
        False,
    ),
    "duplicate-steps": (
        sql(
            f"UPDATE checkpoints SET metadata=json_set(metadata, '$.step', 0) WHERE rowid={LAST_CP}"
        ),
        "not after its parent",
        False,
    ),
    "truncated-checkpoint-blob": (
        sql(f"UPDATE checkpoints SET checkpoint=substr(checkpoint, 1, 30) WHERE rowid={MID_CP}"),
        "cannot be read",
        False,
    ),
    "random-checkpoint-blob": (
        sql(f"UPDATE checkpoints SET checkpoint=X'{NOISE}' WHERE rowid={MID_CP}"),
        "cannot be read",
        False,
    ),
    "noise-after-an-empty-map": (  # 0x80 opens an empty msgpack map: 199 bytes follow it
        sql(f"UPDATE checkpoints SET checkpoint=X'80{NOISE[2:]}' WHERE rowid={MID_CP}"),
        "bytes after the checkpoint's end",
        False,
    ),
    "null-checkpoint-blob": (
        sql(f"UPDATE checkpoints SET checkpoint=NULL WHERE rowid={MID_CP}"),
        "empty",
        False,
    ),
    "unknown-checkpoint-type": (
        sql(f"UPDATE checkpoints SET type='protobuf' WHERE rowid={MID_CP}"),
        "unknown serialization type",
        False,
    ),
    "pickle-checkpoint-type": (
        sql(f"UPDATE checkpoints SET type='pickle' WHERE rowid={MID_CP}"),
        "pickle",
        False,
    ),
    "metadata-not-json": (
        sql(f"UPDATE checkpoints SET metadata=X'FFFE00' WHERE rowid={MID_CP}"),
        "metadata is not valid JSON",
        False,
    ),
    "metadata-not-object": (
        sql(f"UPDATE checkpoints SET metadata='[1,2]' WHERE rowid={MID_CP}"),
        "not a JSON object",
        False,
    ),
    "truncated-write-blob": (
        sql(
            f"UPDATE writes SET value=substr(value, 1, length(value) - 1), type='msgpack' WHERE rowid={FIRST_W}"
        ),
        "corrupt",
        False,
    ),
    "invalid-write-blob": (
        sql(f"UPDATE writes SET value=X'C1C1C1C1', type='msgpack' WHERE rowid={FIRST_W}"),
        "corrupt",
        False,
    ),
    "unknown-write-type": (
        sql(f"UPDATE writes SET type='avro' WHERE rowid={FIRST_W}"),
        "unknown serialization type",
        False,
    ),
}


@pytest.fixture
def healthy(tmp_path: Path) -> Path:
    return real_db(tmp_path / "cp.db")


def _problems_of(db: Path) -> tuple[list[str], int]:
    """Everything the library reports about a database, and how many checkpoints loaded."""
    from replaylens.sources import open_source

    source = open_source(db)
    summaries, problems = summarize_threads(source)
    loaded = 0
    for s in summaries:
        thread = load_thread(source, s.thread_id)
        problems += thread.problems
        loaded += thread.checkpoint_count
        for ns in thread.namespaces.values():
            for cp in ns.checkpoints:
                problems += [w.decoded().error for w in cp.writes if w.decoded().error]
    return problems, loaded


@pytest.mark.parametrize("case", sorted(DB_CASES))
def test_broken_database(case: str, healthy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from replaylens.errors import SourceError

    breaker, needle, fatal = DB_CASES[case]
    breaker(healthy)
    if fatal:
        with pytest.raises(SourceError) as info:
            _problems_of(healthy)
        message = str(info.value)
        assert needle in message and str(healthy) in message and "\n" not in message
    else:
        problems, loaded = _problems_of(healthy)
        assert any(needle in p for p in problems), problems
        assert loaded >= 10, "the rest of the data must still load"
    for argv in (["threads", str(healthy)], ["thread", str(healthy), "--thread", "t1", "--json"]):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == (2 if fatal else 0)
        assert "Traceback" not in err
        if fatal:
            assert err.count("\n") == 1 and needle in err


def test_encrypted_without_key_and_with_wrong_key(tmp_path: Path) -> None:
    from replaylens.sources import open_source

    db = real_db(
        tmp_path / "enc.db", serde=EncryptedSerializer.from_pycryptodome_aes(key=KEY), threads=1
    )
    for key, needle in ((None, "set LANGGRAPH_AES_KEY"), (b"fedcba9876543210", "cannot decrypt")):
        summaries, problems = summarize_threads(open_source(db, aes_key=key))
        assert summaries[0].status == "unreadable"
        assert any(needle in p for p in problems), problems


def test_unknown_thread_is_one_sentence(healthy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["thread", str(healthy), "--thread", "nope"]) == 2
    err = capsys.readouterr().err
    # One line, and it names thread ids that exist, so the next command can be typed.
    assert err.count("\n") == 1
    assert err.startswith(
        f"replaylens: Thread 'nope' is not in {healthy.name}. It holds 't0', 't1';"
    )


EFFECT = {"thread_id": "t0", "node": "a", "phase": "start", "ts": 1_700_000_000.0}
LOG_CASES: dict[str, tuple[list[str], str]] = {
    "not-json": (["{not json"], "line 2: is not valid JSON"),
    "missing-keys": (
        [json.dumps({"thread_id": "t0", "node": "a"})],
        "line 2: missing required key(s) phase, ts",
    ),
    "node-not-string": (
        [json.dumps({**EFFECT, "node": 7})],
        "line 2: 'node' must be a non-empty string",
    ),
    "ts-garbage": (
        [json.dumps({**EFFECT, "ts": "half past"})],
        "line 2: 'ts' must be epoch seconds",
    ),
    "ts-bool": ([json.dumps({**EFFECT, "ts": True})], "line 2: 'ts' must be epoch seconds"),
    "ts-too-big-for-a-float": (
        [json.dumps({**EFFECT, "ts": 10**400})],
        "line 2: 'ts' must be epoch seconds",
    ),
    "array-line": (["[1, 2, 3]"], "line 2: is not a JSON object"),
    "binary-garbage": (
        ["\x00\x01\x02\xff".encode("latin-1").decode("latin-1")],
        "line 2: is not valid JSON",
    ),
    "future-ts": ([json.dumps({**EFFECT, "ts": 4_000_000_000.0})], "line 2: 'ts' is in the future"),
    "out-of-order": (
        [json.dumps({**EFFECT, "ts": 1_600_000_000.0})],
        "line 2: 'ts' is earlier than line 1 of the same task",
    ),
    "wrong-optional-type": ([json.dumps({**EFFECT, "step": "3"})], "line 2: 'step' should be int"),
}


@pytest.mark.parametrize("case", sorted(LOG_CASES))
def test_broken_effects_log(
    case: str, healthy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad_lines, needle = LOG_CASES[case]
    log = tmp_path / "effects.jsonl"
    good_after = json.dumps({**EFFECT, "node": "b", "ts": EFFECT["ts"] + 5})
    log.write_text("\n".join([json.dumps(EFFECT), *bad_lines, good_after]) + "\n")
    parsed = read_effects(log)
    assert any(needle in p for p in parsed.problems), parsed.problems
    assert {e.line for e in parsed.lines} >= {1, 3}, "the good lines still load"
    code = main(["replay", str(healthy), "--thread", "t0", "--effects", str(log), "--json"])
    captured = capsys.readouterr()
    assert code == 0 and "Traceback" not in captured.err and needle in captured.err
    assert json.loads(captured.out)["effects"]


def test_unknown_thread_in_log_is_a_restart_not_an_error(
    healthy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "effects.jsonl"
    log.write_text(json.dumps({**EFFECT, "thread_id": "ghost"}) + "\n")
    assert main(["replay", str(healthy), "--thread", "ghost", "--effects", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "needs_restart"


def test_missing_and_folder_logs(
    healthy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for target, needle in (
        (tmp_path / "nope.jsonl", "no such effects log"),
        (tmp_path, "is a folder"),
    ):
        assert main(["replay", str(healthy), "--thread", "t0", "--effects", str(target)]) == 2
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1


def test_a_two_gigabyte_line_is_skipped_in_bounded_memory(tmp_path: Path) -> None:
    import resource

    log = tmp_path / "huge.jsonl"
    with open(log, "wb") as fh:
        fh.write(b'{"thread_id": "t0", "node": "')
        fh.seek(2 * 1024**3)  # a sparse 2 GiB line: costs no disk
        fh.write(b'", "phase": "start", "ts": 1}\n')
        fh.write((json.dumps(EFFECT) + "\n").encode())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    parsed = read_effects(log)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert [e.line for e in parsed.lines] == [2]
    assert "line 1" in parsed.problems[0] and "longer than" in parsed.problems[0]
    assert grown_kib < 64 * 1024, f"parsing grew the process by {grown_kib} KiB"


def test_healthy_corpus_reports_no_problems(corpus: Corpus) -> None:
    """No false alarms: every real database of the corpus loads without a warning."""
    checked = 0
    for entry in corpus:
        if entry.variant == "legacy_no_task_path":
            continue
        problems, loaded = _problems_of(entry.db)
        assert problems == [], f"{entry.name}: {problems}"
        checked += loaded
    assert checked > 0
    os.sync()


HOSTILE = "\x1b]0;pwned\x07\x1b[2J<script>alert(1)</script>[x](javascript:alert(1))"


def test_hostile_values_reach_the_terminal_and_report_as_inert_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Terminal escapes in a thread id, an effect name and a state value never reach the
    terminal raw, and the Markdown report shows HTML and links only inside code spans."""
    from replaylens import record_effect

    log = tmp_path / "effects.jsonl"
    monkeypatch.setenv("REPLAYLENS_EFFECTS_LOG", str(log))
    db = tmp_path / "hostile.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    graph = linear().compile(checkpointer=SqliteSaver(conn))
    graph.invoke(
        {"visited": [HOSTILE]}, {"configurable": {"thread_id": HOSTILE}}, durability="sync"
    )
    conn.close()
    with open(log, "a") as fh:  # an effect named by a hostile log writer
        fh.write(
            json.dumps({"thread_id": HOSTILE, "node": HOSTILE, "phase": "start", "ts": 2e9 - 1})
            + "\n"
        )
    record_effect.line("note", effect=HOSTILE, node="d", thread_id=HOSTILE)
    for argv in (
        ["threads", str(db)],
        ["thread", str(db), "--thread", HOSTILE],
        ["replay", str(db), "--thread", HOSTILE, "--effects", str(log)],
    ):
        assert main(argv) == 0
        captured = capsys.readouterr()
        assert (
            "\x1b" not in captured.out + captured.err and "\x07" not in captured.out + captured.err
        )
        assert "\\x1b" in captured.out
    assert main(["report", str(db), "--thread", HOSTILE, "--effects", str(log)]) == 0
    report = capsys.readouterr().out
    assert "\x1b" not in report
    for line in report.splitlines():
        outside = "".join(part for i, part in enumerate(line.split("`")) if i % 2 == 0)
        assert "<script>" not in outside and "](javascript" not in outside, line
