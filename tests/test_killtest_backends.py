"""End to end: kill tests on a real Postgres server, at fault points, with a server crash,
with kill delays drawn from a range, and on a graph whose nodes never call the recorder.

Every number of the manifest is recounted here from the files the campaign left (effects
logs, acknowledgement logs, SQLite exports) and, for Postgres, from the frozen schemas on
the server itself; the error cases check the one-sentence, exit-2 contract and that the
password never reaches the output or the manifest. Graphs are tiny (nodes sleep 0.1 s).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from killtest_runs import jsonl, run_killtest
from pg_server import PgServer, _free_port

from corpus import writes_before_task_path
from replaylens.killtest.manifest import load_manifest
from replaylens.killtest.summary import summarize

pytestmark = pytest.mark.slow  # real graphs killed in child processes

REPO = Path(__file__).resolve().parents[1]
LINEAR = "replaylens.examples.graphs:linear"
QUIET = "replaylens.examples.graphs:quiet_linear"
INPUT = '{"visited": []}'


def _repeated(at_kill: list[dict[str, Any]], after: list[dict[str, Any]]) -> int:
    started = {(e["node"], e.get("step")) for e in at_kill if e["phase"] == "start"}
    return sum(
        1
        for e in after[len(at_kill) :]
        if e["phase"] == "start" and (e["node"], e.get("step")) in started
    )


def _lite_ids(db: Path, thread_id: str) -> set[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return {
            r[0]
            for r in conn.execute(
                "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ?", (thread_id,)
            )
        }


def _check_effects(out: Path, run: dict[str, Any]) -> None:
    at_kill, after = jsonl(out / run["effects_at_kill"]), jsonl(out / run["effects"])
    assert after[: len(at_kill)] == at_kill  # the log only grows
    assert run["effect_lines_at_kill"] == len(at_kill)
    assert run["effect_lines_after_resume"] == len(after)
    assert run["lines_repeated"] == _repeated(at_kill, after)


# --------------------------------------------------------------------------- your own server
@pytest.fixture(scope="module")
def pg_campaign(
    pg_cluster: PgServer, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, Any]:
    """A fault-point campaign on the session's server, next to a thread that was there before."""
    dsn = pg_cluster.create_database("killtest_own")
    with psycopg.connect(dsn, autocommit=True) as conn:  # someone else's data, in public
        conn.execute("CREATE TABLE public.checkpoints (thread_id text, note text)")
        conn.execute("INSERT INTO public.checkpoints VALUES ('their-thread', 'must not change')")
    out = tmp_path_factory.mktemp("kt-pg") / "campaign"
    proc = run_killtest(
        LINEAR,
        "--out",
        str(out),
        "--checkpointer",
        dsn,
        "--modes",
        "sync,async",
        "--kill-at",
        "b",
        "--fault",
        "after-writes",
        "--sleep",
        "0.1",
        "--input",
        INPUT,
        "--keep-schemas",
    )  # fmt: skip  (the test reads the frozen schemas on the server)
    assert proc.returncode == 0, proc.stderr
    return out, dsn, proc


def test_postgres_campaign_counts_what_the_server_holds(
    pg_campaign: tuple[Path, str, Any], pg_cluster: PgServer
) -> None:
    out, dsn, _ = pg_campaign
    raw = json.loads((out / "manifest.json").read_text())
    assert raw["backend"] == "postgres" and raw["dsn"] == pg_cluster.dsn_label("killtest_own")
    assert raw["fault_points"] == ["after-writes"]
    assert [r["mode"] for r in raw["runs"]] == ["sync", "async"]
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT thread_id, note FROM public.checkpoints").fetchall() == [
            ("their-thread", "must not change")
        ]
        for run in raw["runs"]:
            assert run["backend"] == "postgres" and run["fault_point"] == "after-writes"
            assert (
                run["fault_reached"] is True and run["killed"] is True and run["kill_delay"] is None
            )
            assert run["kill_reason"].startswith("fault after-writes after put_writes of task")
            frozen = f'"{run["store"]}_at_kill"'
            ids = {r[0] for r in conn.execute(f"SELECT checkpoint_id FROM {frozen}.checkpoints WHERE thread_id = %s",
                                              (run["thread_id"],))}  # fmt: skip
            (writes,) = conn.execute(f"SELECT count(*) FROM {frozen}.checkpoint_writes WHERE thread_id = %s",
                                     (run["thread_id"],)).fetchone()  # fmt: skip
            assert run["checkpoints_at_kill"] == len(ids) and run["writes_at_kill"] == writes
            # the SQLite export the dashboard opens holds the same checkpoints
            assert _lite_ids(out / run["db_at_kill"], run["thread_id"]) == ids
            # the last put_writes acknowledged was b's (it routes to c), and its rows are on the server
            acks = jsonl(out / "runs" / Path(run["db_at_kill"]).parent.name / "acks.jsonl")
            last = [a for a in acks if a["kind"] == "writes"][-1]
            assert "branch:to:c" in last["channels"]
            (rows,) = conn.execute(f"SELECT count(*) FROM {frozen}.checkpoint_writes WHERE task_id = %s",
                                   (last["task_id"],)).fetchone()  # fmt: skip
            assert rows == len(last["channels"])
            _check_effects(out, run)
    sync, _async = raw["runs"]
    # sync: b's writes landed under a's checkpoint, so the resume reuses them: b does not run
    # again. The fault kills the child just after that put; the loop, which under sync waits
    # for the checkpoint put and not for the writes, may have started c in between (seen on a
    # loaded machine): c's line, and only c's, may repeat.
    assert sync["resume"]["ok"] is True and sync["effects_source"] == "recorder"
    folder = out / "runs" / Path(sync["db_at_kill"]).parent.name
    at_kill = jsonl(folder / "at-kill.effects.jsonl")
    resumed = jsonl(folder / "effects.jsonl")[len(at_kill) :]
    assert [x["node"] for x in resumed if x["phase"] == "start"][-2:] == ["c", "d"]
    assert "b" not in {x["node"] for x in resumed}
    assert sync["lines_repeated"] == sum(1 for x in at_kill if x["node"] == "c")


def _rlkt_schemas(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return sorted(
            r[0]
            for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rlkt%%'")
        )


def test_keep_schemas_keeps_and_names_them(pg_campaign: tuple[Path, str, Any]) -> None:
    out, dsn, _ = pg_campaign
    raw = json.loads((out / "manifest.json").read_text())
    stores = [r["store"] for r in raw["runs"]]
    assert raw["schemas_left"] == [n for s in stores for n in (s, f"{s}_at_kill")]
    assert _rlkt_schemas(dsn) == sorted(raw["schemas_left"])


def test_a_checkpointer_campaign_drops_its_schemas(pg_cluster: PgServer, tmp_path: Path) -> None:
    dsn = pg_cluster.create_database("killtest_drop")
    out = tmp_path / "campaign"
    proc = run_killtest(LINEAR, "--out", str(out), "--checkpointer", dsn, "--modes", "sync", "--kill-at", "b",
                     "--sleep", "0.1", "--input", INPUT)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    raw = json.loads((out / "manifest.json").read_text())
    (run,) = raw["runs"]
    assert raw["schemas_left"] == [] and raw["planned_runs"] == 1
    assert _rlkt_schemas(dsn) == []
    assert _lite_ids(out / run["db_at_kill"], run["thread_id"]), (
        "the evidence stays in the run folder"
    )


def test_a_server_killed_mid_campaign_is_one_sentence_and_the_manifest_says_what_completed(
    tmp_path: Path,
) -> None:
    """Three runs on a server of this test's own; when the first run's progress line appears
    (the event), the server is SIGKILLed. The command ends with one sentence, and the manifest
    lists the completed run against the three planned, with the error and the schemas left."""
    from replaylens.killtest.pgserver import start_server

    server = start_server()
    try:
        dsn = server.create_database("killtest_dies")
        out = tmp_path / "campaign"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "lib"), str(REPO)]))
        proc = subprocess.Popen(
            [sys.executable, "-m", "replaylens.cli", "killtest", LINEAR, "--out", str(out), "--checkpointer", dsn,
             "--modes", "sync,async,exit", "--kill-at", "b", "--sleep", "0.1", "--input", INPUT],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=REPO,
        )  # fmt: skip
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("[1/3]"):
                server.crash()
                break
        rest = proc.stderr.read()
        assert proc.wait(timeout=120) == 2, seen + [rest]
        lines = [ln for ln in rest.splitlines() if ln.strip() and not ln.startswith("[")]
        assert (
            len(lines) == 1 and lines[0].startswith("replaylens: ") and "Traceback" not in rest
        ), rest
        assert "Postgres checkpointer" in lines[0] and server.password not in rest
        raw = json.loads((out / "manifest.json").read_text())
        assert raw["planned_runs"] == 3 and 1 <= len(raw["runs"]) < 3
        assert raw["error"] and raw["error"] in lines[0]
        assert raw["schemas_left"] and all(s.startswith("rlkt_") for s in raw["schemas_left"])
    finally:
        server.stop()


def test_postgres_output_and_manifest_never_carry_the_password(
    pg_campaign: tuple[Path, str, Any], pg_cluster: PgServer
) -> None:
    out, _, proc = pg_campaign
    secret = pg_cluster.password
    assert secret not in proc.stdout and secret not in proc.stderr
    assert secret not in (out / "manifest.json").read_text()
    assert "at postgresql://postgres@127.0.0.1" in proc.stdout


# --------------------------------------------------------------------------- server crash
def test_server_crash_reports_acknowledged_checkpoints_that_vanished(tmp_path: Path) -> None:
    out = tmp_path / "crash"
    proc = run_killtest(LINEAR, "--out", str(out), "--pg-ephemeral", "--server-crash", "--modes", "sync",
                     "--kill-at", "c", "--kill-delay", "0.05", "--sleep", "0.5", "--input", INPUT)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    manifest = load_manifest(out)
    assert manifest.backend == "postgres" and manifest.pg_ephemeral and manifest.server_crash
    assert sorted(r.synchronous_commit for r in manifest.runs) == ["off", "on"]
    for run in manifest.runs:
        assert run.server_crash and run.killed and run.resume_ok
        acked = [a["checkpoint_id"] for a in jsonl(Path(run.db_at_kill).parent / "acks.jsonl")
                 if a["kind"] == "checkpoint"]  # fmt: skip
        present = _lite_ids(Path(run.db_at_kill), run.thread_id)
        assert run.acked_checkpoints == len(acked) > 0
        assert run.acked_lost == [c for c in acked if c not in present]
        assert run.checkpoints_at_kill == len(present)
        if run.synchronous_commit == "on":
            assert run.acked_lost == []  # a commit that waited for its WAL flush survives the crash
    rows = summarize(manifest)
    assert {r["synchronous_commit"]: r["acked_lost"] for r in rows} == {
        r.synchronous_commit: len(r.acked_lost or []) for r in manifest.runs
    }
    assert "acked lost" in proc.stdout and "with the server (synchronous_commit=off)" in proc.stderr


# --------------------------------------------------------------------------- no recorder, spread delays
def test_callbacks_count_repeats_on_a_graph_without_recorder(tmp_path: Path) -> None:
    """Kills spread over 0.02..0.08 s into `b`, which stays open 0.6 s: the kill lands half a
    second before `b` ends, however late a loaded machine delivers it (0.1 s left 20 ms, and
    a busy CI run once saw `b` end first)."""
    out = tmp_path / "quiet"
    proc = run_killtest(QUIET, "--out", str(out), "--modes", "sync", "--runs", "3", "--kill-at", "b",
                     "--kill-delay", "0.02..0.08", "--seed", "7", "--sleep", "0.6", "--input", INPUT)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    raw = json.loads((out / "manifest.json").read_text())
    assert raw["seed"] == 7 and raw["kill_delay_range"] == [0.02, 0.08]
    rng = random.Random(7)
    assert [r["kill_delay"] for r in raw["runs"]] == [
        round(rng.uniform(0.02, 0.08), 4) for _ in range(3)
    ]
    for run in raw["runs"]:
        assert run["effects_source"] == "callbacks" and run["effects"].endswith(
            "callbacks.effects.jsonl"
        )
        assert (
            out / Path(run["effects"]).parent / "effects.jsonl"
        ).read_text() == ""  # no recorder lines
        at_kill = jsonl(out / run["effects_at_kill"])
        assert [(e["node"], e["phase"]) for e in at_kill] == [
            ("a", "start"),
            ("a", "end"),
            ("b", "start"),
        ]
        assert all(e["source"] == "callbacks" and e["task_id"] for e in at_kill)
        _check_effects(out, run)
        assert run["lines_repeated"] == 1  # b started again
    assert "effects counted from: callbacks" in proc.stdout
    assert "kill delays drawn uniformly from 0.02..0.08s with seed 7" in proc.stdout


# --------------------------------------------------------------------------- errors
def test_unreachable_server_is_one_sentence_without_the_password(tmp_path: Path) -> None:
    dsn = f"postgresql://someone:hunter2secret@127.0.0.1:{_free_port()}/nowhere"
    proc = run_killtest(
        LINEAR, "--out", str(tmp_path / "o"), "--checkpointer", dsn, "--kill-at", "c"
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and "Cannot connect to the Postgres checkpointer postgresql://someone@127.0.0.1" in lines[0]
    )
    assert "hunter2secret" not in proc.stderr + proc.stdout and "Traceback" not in proc.stderr


def test_a_user_without_create_rights_is_one_sentence(pg_cluster: PgServer, tmp_path: Path) -> None:
    dsn = pg_cluster.create_database("killtest_norights")
    with psycopg.connect(pg_cluster.dsn(), autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS kt_reader")
        conn.execute("CREATE ROLE kt_reader LOGIN PASSWORD 'readerpw9'")
    user_dsn = dsn.replace(f"postgres:{pg_cluster.password}@", "kt_reader:readerpw9@")
    proc = run_killtest(
        LINEAR, "--out", str(tmp_path / "o"), "--checkpointer", user_dsn, "--kill-at", "c"
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "The Postgres user 'kt_reader' may not create schemas" in lines[0], (
        proc.stderr
    )
    assert "readerpw9" not in proc.stderr


def test_a_fault_point_never_reached_is_one_sentence_and_recorded(tmp_path: Path) -> None:
    out = tmp_path / "never"
    # Under exit no put_writes happens before the end, so "after-writes" cannot be reached.
    proc = run_killtest(LINEAR, "--out", str(out), "--modes", "exit", "--kill-at", "b", "--fault", "after-writes",
                     "--sleep", "0.05", "--input", INPUT)  # fmt: skip
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith(
        "replaylens: The fault point after-writes was never reached in any run"
    )
    assert "Traceback" not in proc.stderr
    (run,) = json.loads((out / "manifest.json").read_text())["runs"]
    assert run["killed"] is False and run["fault_reached"] is False
    assert run["resume"]["skipped"] == "the fault point after-writes was never reached"
    assert len(jsonl(out / run["effects"])) == 8  # the whole graph ran: 4 nodes, start and end


def test_crash_refuses_a_server_this_object_did_not_start(tmp_path: Path) -> None:
    """`crash()` signals only a process group it started itself: with none, it says so."""
    from replaylens.killtest.pgserver import PgUnavailable

    server = PgServer(Path("/nonexistent"), tmp_path, _free_port(), "pw", None)
    with pytest.raises(PgUnavailable, match="not running"):
        server.crash()


def _one_run(out: Path, shape: str, mode: str, node: str, sleep: str, given: str) -> Path:
    """One kill-test run of a corpus shape, killed 0.05 s into `node` under `mode`: the
    folder of its logs as the kill left them."""
    proc = run_killtest(f"replaylens.examples.langgraph_tests:{shape}", "--out", str(out),
                     "--modes", mode, "--kill-at", node, "--kill-delay", "0.05", "--sleep", sleep,
                     "--input", given)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (run,) = json.loads((out / "manifest.json").read_text())["runs"]
    return out / Path(run["effects_at_kill"]).parent


def test_callbacks_log_one_task_once_when_its_function_has_the_nodes_name(
    tmp_path: Path,
) -> None:
    """A raw `Pregel` node built with ``NodeBuilder().do(one)`` reports a LangChain run for
    the task and one inside it for the function, both named ``one``: the child's callbacks
    log writes the task's lines once (twice, the trace read each invocation as two)."""
    folder = _one_run(tmp_path / "raw", "pregel_interrupt_after", "sync", "one", "0.5", "2")
    lines = jsonl(folder / "callbacks.effects.jsonl")
    starts = [(e["task_id"], e["pid"]) for e in lines if e["phase"] == "start"]
    assert starts and len(starts) == len(set(starts)), lines


def test_every_task_log_of_a_campaign_names_the_join_that_made_its_task_due(
    tmp_path: Path,
) -> None:
    """LangGraph's `langgraph_triggers` of a join's node (``join:a+b:c``) reach the recorder's
    log and the child's callbacks log: under exit the log is the only place the join shows
    (`joins.join_channels`; the callbacks log once wrote none)."""
    folder = _one_run(
        tmp_path / "join", "waiting_edge_join", "exit", "qa", "0.2", '{"visited": []}'
    )
    for log in ("callbacks.effects.jsonl", "effects.jsonl"):
        qa = [e for e in jsonl(folder / log) if e["node"] == "qa" and e["phase"] == "start"]
        assert qa, (log, jsonl(folder / log))
        assert "join:retriever_one+retriever_two:qa" in qa[0].get("langgraph_triggers", []), qa


def test_the_freeze_waits_for_a_write_the_killed_child_had_already_sent(
    pg_cluster: PgServer, tmp_path: Path
) -> None:
    """A statement the server received before the SIGKILL still commits: the at-kill
    evidence must hold it, as the resume will. The child's one write waits on an advisory
    lock this test holds, so it is still running on the server when the child dies."""
    import threading

    from replaylens.killtest.harness import PostgresBackend, pg_options, session_name

    dsn = pg_cluster.create_database("killtest_inflight")
    backend = PostgresBackend(dsn)
    store = backend.prepare(tmp_path, Path("."), "run")
    lock_key = 4242
    write = (
        "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) "
        "SELECT 't', '', 'c1', 'task', 0, 'x', 'null', ''::bytea FROM (SELECT pg_advisory_lock(%s)) AS held"
    )  # fmt: skip
    child = (
        "import psycopg, sys\n"
        "conn = psycopg.connect(sys.argv[1], autocommit=True, options=sys.argv[2], application_name=sys.argv[3])\n"
        f"conn.execute({write!r}, ({lock_key},))\n"
    )  # fmt: skip
    with psycopg.connect(dsn, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (lock_key,))
        proc = subprocess.Popen(
            [sys.executable, "-c", child, dsn, pg_options(store.name), session_name(store.name)]
        )
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s AND wait_event_type = 'Lock'"
        while not holder.execute(waiting, (session_name(store.name),)).fetchone()[0]:
            assert proc.poll() is None, "the child ended before its write reached the server"
        proc.kill()
        proc.wait()
        freezing = threading.Thread(target=backend.snapshot, args=(store,))
        freezing.start()
        freezing.join(timeout=1.0)
        assert freezing.is_alive(), "frozen while the killed child's write was still running"
        holder.execute("SELECT pg_advisory_unlock(%s)", (lock_key,))
        freezing.join()
    assert backend.counts(store, "t")[1] == 1


@pytest.mark.parametrize("with_path", [True, False])
def test_a_postgres_run_exported_under_an_older_sqlite_layout_keeps_its_task_paths(
    tmp_path: Path, with_path: bool
) -> None:
    """Recording a Postgres kill test with LangGraph 0.6.11 installed stopped at the first
    kill with a traceback: its SQLite saver's `writes` table has no task_path, which the
    export named. The copy keeps the server's task paths, adding the column where that
    saver's table has none: judged without them, a bare log's verdicts differed from the
    server's (0.6.11 on Postgres under `ainvoke` at 0.35 s, waiting_edge_plus_regular: 2
    lines) (`copy_writes`)."""
    from replaylens.killtest._backend import copy_writes

    db = tmp_path / "export.db"
    conn = sqlite3.connect(db)
    # LangGraph 0.6.11's SQLite saver has no task_path, which its Postgres saver keeps
    ddl = writes_before_task_path("writes")
    if with_path:
        ddl = ddl.replace(
            "task_id TEXT NOT NULL,",
            "task_id TEXT NOT NULL,\n    task_path TEXT NOT NULL DEFAULT '',",
        )
    conn.executescript(ddl)
    row = {
        "thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "c1", "task_id": "k1",
        "task_path": "~__pregel_pull, a", "idx": 0, "channel": "visited", "type": "json",
        "blob": memoryview(b'["a"]'),
    }  # fmt: skip
    copy_writes(conn, [row])
    conn.commit()
    got = conn.execute("SELECT * FROM writes").fetchall()
    conn.close()
    row_of = {
        True: ("t", "", "c1", "k1", "~__pregel_pull, a", 0, "visited", "json", b'["a"]'),
        # the column comes last where the copy added it
        False: ("t", "", "c1", "k1", 0, "visited", "json", b'["a"]', "~__pregel_pull, a"),
    }
    assert got == [row_of[with_path]]
