"""The corpus is what it claims to be: facts read back from the real files it wrote.

Every other test trusts these databases as evidence of what LangGraph leaves behind, so
each claim of `tests/corpus.py` (killed mid-node, nothing saved under exit, orphan
writes, a fork, a legacy schema...) is checked here against the bytes on disk. The
databases are copied before being opened: a read-only connection to a WAL database
still creates `-wal`/`-shm` files next to it, which would alter the evidence.
"""

from __future__ import annotations

import itertools
import json
import shutil
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus import KINDS, MODES, Corpus, CorpusEntry
from replaylens.examples.graphs import ALL

pytestmark = pytest.mark.slow

_copies = itertools.count()

# The node the graph ends on, hence the last effect a finished run records.
LAST_NODE = {
    "linear": "d",
    "fanout": "join",
    "loop": "agent",
    "send_map_reduce": "reduce",
    "subgraph": "finish",
    "payment": "notify_customer",
    "failing": "b",
    "functional": "store_record",
    "send_uneven": "reduce",
    "functional_parallel": "work",
    "nested_subgraph": "finish",
}


@pytest.fixture
def ro(tmp_path: Path) -> Iterator[Any]:
    """Open a copy of a database (with its sidecars) through a read-only URI."""
    conns: list[sqlite3.Connection] = []

    def open_copy(db: Path) -> sqlite3.Connection:
        dest = tmp_path / f"{next(_copies)}-{db.name}"
        shutil.copy2(db, dest)
        for suffix in ("-wal", "-shm", "-journal"):
            if Path(f"{db}{suffix}").exists():
                shutil.copy2(f"{db}{suffix}", f"{dest}{suffix}")
        conn = sqlite3.connect(f"file:{dest}?mode=ro", uri=True)
        conns.append(conn)
        return conn

    yield open_copy
    for conn in conns:
        conn.close()


def effects(entry: CorpusEntry, thread_id: str | None = None) -> list[dict[str, Any]]:
    """The effects log lines of the entry's (first) thread, in file order."""
    tid = thread_id or entry.thread_ids[0]
    lines = [json.loads(line) for line in entry.effects_log.read_text().splitlines() if line]
    return [r for r in lines if r["thread_id"] == tid]


def phases(lines: list[dict[str, Any]], node: str) -> list[str]:
    return [r["phase"] for r in lines if r["node"] == node]


def count(conn: sqlite3.Connection, sql: str, *args: Any) -> int:
    return int(conn.execute(sql, args).fetchone()[0])


def test_every_kind_and_every_graph_mode_is_there(corpus: Corpus) -> None:
    assert {e.kind for e in corpus} == set(KINDS)
    for graph in ALL:
        modes = {e.mode for e in corpus.of_kind("completed") if e.graph == graph}
        assert set(MODES) <= modes, graph
    for graph in ("linear", "fanout", "payment", "subgraph", "send_map_reduce"):
        killed = {e.mode for e in corpus.of_kind("killed") if e.graph == graph}
        assert killed == set(MODES), graph
    assert {(e.graph, e.mode) for e in corpus.of_kind("killed_slow_put")} >= {
        (g, m) for g in ("linear", "fanout") for m in ("sync", "async")
    }


def test_completed_threads_ran_to_their_last_node(corpus: Corpus, ro: Any) -> None:
    for entry in corpus.of_kind("completed"):
        if entry.variant != "plain":
            continue
        lines = effects(entry)
        assert phases(lines, LAST_NODE[entry.graph])[-1] == "end", entry.name
        starts = [r for r in lines if r["phase"] == "start"]
        closed = [r for r in lines if r["phase"] in ("end", "interrupted")]
        assert len(starts) == len(closed), entry.name
        conn = ro(entry.db)
        roots = count(
            conn,
            "SELECT count(*) FROM checkpoints WHERE thread_id=? AND checkpoint_ns=''",
            entry.thread_ids[0],
        )
        assert roots >= 1, entry.name


def test_exit_mode_saves_one_checkpoint_and_no_writes_on_success(corpus: Corpus, ro: Any) -> None:
    exit_run, sync_run = corpus.get("linear-exit"), corpus.get("linear-sync")
    conn = ro(exit_run.db)
    q_ck = "SELECT count(*) FROM checkpoints WHERE thread_id=?"
    q_w = "SELECT count(*) FROM writes WHERE thread_id=?"
    assert count(conn, q_ck, "linear-exit") == 1
    assert count(conn, q_w, "linear-exit") == 0
    # input checkpoint, START step, then one per node a..d
    assert count(conn, q_ck, "linear-sync") == 6
    assert sync_run.db == exit_run.db


def test_every_kill_landed_inside_its_node(corpus: Corpus) -> None:
    from corpus import KILL_POINTS, PARALLEL_KILLS

    for entry in corpus.of_kind("killed") + corpus.of_kind("killed_slow_put"):
        kill = entry.kill
        assert kill is not None and entry.resume is not None
        assert kill.killed and not kill.timed_out, entry.name
        assert kill.returncode == -signal.SIGKILL, entry.name
        assert kill.result is None, entry.name  # it never got to say RESULT
        lines = effects(entry)
        if entry.variant == "second_input":  # the killed child's own lines, after the first's
            lines = [r for r in lines if r["pid"] == lines[-1]["pid"]]
        if entry.variant == "parallel":  # four parallel `work` tasks, the kill in the slow one
            node = PARALLEL_KILLS[entry.graph][0]
            assert sorted(phases(lines, node)) == ["end"] * 3 + ["start"] * 4, entry.name
            continue
        node = (KILL_POINTS | PARALLEL_KILLS)[entry.graph][0]
        assert kill.started(node) == 1, entry.name
        assert phases(lines, node) == ["start"], entry.name


def test_exit_mode_kill_leaves_nothing_to_resume(corpus: Corpus, ro: Any) -> None:
    for graph in ("linear", "fanout", "subgraph", "send_map_reduce"):
        entry = corpus.get(f"{graph}-exit-killed")
        conn = ro(entry.db)
        assert count(conn, "SELECT count(*) FROM checkpoints") == 0, graph
        assert count(conn, "SELECT count(*) FROM writes") == 0, graph
        assert entry.resume is not None and entry.resume.result is not None
        assert entry.resume.result["ok"] is False
        assert entry.resume.error is not None
        assert entry.resume.error.startswith("EmptyInputError"), entry.resume.error
        assert entry.resume.node_starts == []


def test_linear_killed_in_c_reruns_c_only(corpus: Corpus, ro: Any) -> None:
    for mode in ("sync", "async"):
        killed = corpus.get(f"linear-{mode}-killed")
        conn = ro(killed.db)
        steps = [
            json.loads(m)["step"]
            for (m,) in conn.execute("SELECT metadata FROM checkpoints WHERE checkpoint_ns=''")
        ]
        assert sorted(steps) == [-1, 0, 1, 2], mode  # up to the checkpoint after b
        c_rows = "SELECT count(*) FROM writes WHERE task_path LIKE '%, c'"
        assert count(conn, c_rows) == 0, mode
        log_at_kill = effects(killed)
        assert phases(log_at_kill, "c") == ["start"]

        resumed = corpus.get(f"linear-{mode}-resumed")
        assert resumed.resume is not None and resumed.resume.result is not None
        assert resumed.resume.result["ok"] is True
        assert [s.node for s in resumed.resume.node_starts] == ["c", "d"], mode
        log = effects(resumed)
        assert phases(log, "c") == ["start", "start", "end"], mode
        assert phases(log, "a") == ["start", "end"], mode


def test_fanout_kill_keeps_the_finished_siblings(corpus: Corpus, ro: Any) -> None:
    for name in ("fanout-sync", "fanout-async", "fanout-sync-slowput", "fanout-async-slowput"):
        killed = corpus.get(f"{name}-killed")
        conn = ro(killed.db)
        paths = {p for (p,) in conn.execute("SELECT task_path FROM writes")}
        assert {"~__pregel_pull, p1", "~__pregel_pull, p2"} <= paths, name
        assert "~__pregel_pull, p3" not in paths, name
        assert killed.resume is not None
        assert [s.node for s in killed.resume.node_starts] == ["p3", "join"], name
        assert killed.kill is not None and killed.kill.kill_reason is not None
        assert "once p1, p2 had written" in killed.kill.kill_reason, name  # an event, not a delay


def test_a_kill_held_for_writes_waits_for_them(tmp_path: Path, ro: Any) -> None:
    """With no delay after p3's start, only the siblings' WRITES lines hold the kill back:
    p1 and p2 have written when it lands, p3 (still asleep in its node) has not."""
    from replaylens.examples.graphs import DEFAULT_INPUTS
    from replaylens.killtest.harness import ChildSpec, child_env, run_child

    db = tmp_path / "fanout.db"
    spec = ChildSpec("replaylens.examples.graphs:fanout", db, "t", "sync", DEFAULT_INPUTS["fanout"])
    env = child_env(tmp_path / "effects.jsonl", {"REPLAYLENS_EXAMPLE_SLEEP": "0.5"})
    kill = run_child(
        spec, kill_at=("p3", 1), kill_delay=0.0, kill_after_writes_of=("p1", "p2"), env=env
    )
    assert kill.killed and kill.returncode == -signal.SIGKILL, kill.kill_reason
    assert kill.kill_reason is not None and "once p1, p2 had written" in kill.kill_reason
    paths = {p for (p,) in ro(db).execute("SELECT task_path FROM writes")}
    assert {"~__pregel_pull, p1", "~__pregel_pull, p2"} <= paths
    assert "~__pregel_pull, p3" not in paths


def test_subgraph_resume_reenters_at_s2(corpus: Corpus, ro: Any) -> None:
    for mode in ("sync", "async"):
        killed = corpus.get(f"subgraph-{mode}-killed")
        conn = ro(killed.db)
        inner = "SELECT count(*) FROM checkpoints WHERE checkpoint_ns LIKE 'sub:%'"
        assert count(conn, inner) >= 1, mode
        assert killed.resume is not None
        started = [s.node for s in killed.resume.node_starts]
        assert "s2" in started and "s1" not in started and "prepare" not in started, started


def test_payment_kill_in_charge(corpus: Corpus) -> None:
    sync = corpus.get("payment-sync-resumed")
    assert sync.resume is not None
    assert [s.node for s in sync.resume.node_starts] == ["charge", "notify_customer"]
    charges = [r for r in effects(sync) if r.get("effect") == "charge_card"]
    assert [r["phase"] for r in charges] == ["start", "start", "end"]
    assert len({r["idempotency_key"] for r in charges}) == 1  # same key: dedupable
    assert charges[0]["pid"] != charges[-1]["pid"]  # the resume is a fresh process

    # Under exit the approval was never saved: the resume asks the human again.
    exit_run = corpus.get("payment-exit-resumed")
    assert exit_run.resume is not None and exit_run.resume.result is not None
    assert exit_run.resume.result["interrupted"] is True
    assert [s.node for s in exit_run.resume.node_starts] == ["approve"]


def test_slow_async_put_leaves_orphan_writes(corpus: Corpus, ro: Any) -> None:
    killed = corpus.get("linear-async-orphan-killed")
    assert killed.variant == "orphan_writes" and killed.kind == "killed_slow_put"
    conn = ro(killed.db)
    orphans = conn.execute(
        """SELECT w.task_path FROM writes w LEFT JOIN checkpoints k
           USING (thread_id, checkpoint_ns, checkpoint_id) WHERE k.checkpoint_id IS NULL"""
    ).fetchall()
    assert {"~__pregel_pull, a", "~__pregel_pull, b"} <= {p for (p,) in orphans}
    # A resume ignores writes under checkpoints it never finds: a and b run again.
    assert killed.resume is not None
    assert [s.node for s in killed.resume.node_starts] == ["a", "b", "c", "d"]


def test_failed_step_has_one_error_and_one_success(corpus: Corpus, ro: Any) -> None:
    for entry in corpus.of_kind("failed"):
        conn = ro(entry.db)
        rows = conn.execute(
            "SELECT checkpoint_id, task_path, channel FROM writes WHERE thread_id=?",
            (entry.thread_ids[0],),
        ).fetchall()
        errors = [(c, p) for c, p, ch in rows if ch == "__error__"]
        assert [p for _, p in errors] == ["~__pregel_pull, b"], entry.name
        sibling = [c for c, p, ch in rows if p == "~__pregel_pull, b2" and ch == "visited"]
        assert sibling == [errors[0][0]], entry.name  # same step, same checkpoint
        assert phases(effects(entry), "b") == ["start", "error"], entry.name


def test_interrupted_payment_stops_before_charge(corpus: Corpus, ro: Any) -> None:
    for entry in corpus.of_kind("interrupted"):
        conn = ro(entry.db)
        rows = conn.execute(
            "SELECT task_path, idx FROM writes WHERE thread_id=? AND channel='__interrupt__'",
            (entry.thread_ids[0],),
        ).fetchall()
        assert rows == [("~__pregel_pull, approve", -3)], entry.name
        assert phases(effects(entry), "approve") == ["start", "interrupted"]
        assert phases(effects(entry), "charge") == []


def test_time_travel_fork(corpus: Corpus, ro: Any) -> None:
    entry = corpus.get("linear-fork")
    conn = ro(entry.db)
    forks = conn.execute(
        """SELECT parent_checkpoint_id, group_concat(json_extract(metadata, '$.source'))
           FROM checkpoints WHERE thread_id='linear-fork' AND parent_checkpoint_id IS NOT NULL
           GROUP BY parent_checkpoint_id HAVING count(*) > 1"""
    ).fetchall()
    assert len(forks) == 1
    assert sorted(forks[0][1].split(",")) == ["loop", "update"]
    assert phases(effects(entry), "c") == ["start", "end", "start", "end"]


def test_rollback_journal_copy(corpus: Corpus, ro: Any) -> None:
    entry = next(e for e in corpus if e.variant == "rollback_journal")
    header = entry.db.read_bytes()[:20]
    assert header[18:20] == b"\x01\x01"  # legacy (rollback) read/write versions; WAL is 2
    assert not Path(f"{entry.db}-wal").exists()
    conn = ro(entry.db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    original = ro(corpus.get("linear-sync").db)
    q = "SELECT count(*) FROM checkpoints WHERE thread_id=?"
    assert count(conn, q, "linear-sync") == count(original, q, "linear-sync") == 6


def test_legacy_copy_has_no_task_path(corpus: Corpus, ro: Any) -> None:
    entry = next(e for e in corpus if e.variant == "legacy_no_task_path")
    conn = ro(entry.db)
    columns = [row[1] for row in conn.execute("PRAGMA table_info(writes)")]
    assert "task_path" not in columns and "task_id" in columns
    original = ro(corpus.get("send_map_reduce-sync").db)
    assert count(conn, "SELECT count(*) FROM writes") == count(
        original, "SELECT count(*) FROM writes"
    )
    assert count(conn, "SELECT count(*) FROM writes WHERE channel='__pregel_tasks'") == 6
