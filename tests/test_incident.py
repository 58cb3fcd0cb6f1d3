"""The incident view: many threads at once, with the same verdicts as plan_resume per thread.

The shortcut (`fast_verdicts`) must agree with `load_thread` + `plan_resume` on every
thread of the real-graph corpus; the many-thread crash test SIGKILLs one worker running
several threads, resumes them all in a fresh process and compares the predicted repeats
with the start lines the real resume wrote.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from corpus import Corpus, CorpusEntry
from replaylens.analysis.incident import (
    Incident,
    collect,
    newest_crash,
    select,
    to_csv,
    to_markdown,
)
from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread
from replaylens.cli import main
from replaylens.effects.parse import EffectsLog, read_effects, strip_optional
from replaylens.errors import ThreadNotFound
from replaylens.sources import open_source

pytestmark = pytest.mark.slow  # real graphs killed in child processes

REPO = Path(__file__).resolve().parents[1]


def _collected(entry: CorpusEntry) -> tuple[EffectsLog, Incident]:
    """The corpus entry's effects log and the incident collected from its database and log."""
    log = read_effects(entry.effects_log)
    source = open_source(entry.db)
    try:
        return log, collect(source, log)
    finally:
        source.close()


def _plan_counts(db: Path, log: EffectsLog, thread_id: str) -> tuple[str, int, tuple[str, ...]]:
    source = open_source(db)
    try:
        try:
            thread = load_thread(source, thread_id)
        except ThreadNotFound:
            thread = None
    finally:
        source.close()
    plan = plan_resume(thread, log, thread_id)
    return plan.status, plan.again.executions or 0, tuple(plan.again.task_names)


@pytest.mark.parametrize("stripped", [False, True], ids=["with-task-ids", "hand-written-style"])
def test_every_corpus_thread_agrees_with_plan_resume(
    corpus: Corpus, stripped: bool, tmp_path: Path
) -> None:
    """Status, times_again (executions, as the Thread page counts them) and the tasks that run
    again of every thread equal plan_resume's, whichever route computed them."""
    routes: Counter[str] = Counter()
    compared = 0
    for entry in corpus:
        if not entry.effects_log.exists():
            continue
        log = read_effects(entry.effects_log)
        if stripped:
            log = strip_optional(log)
        source = open_source(entry.db)
        try:
            incident = collect(source, log)
        finally:
            source.close()
        ids = {t.thread_id for t in incident.threads}
        assert set(log.thread_ids) <= ids, entry.name
        for t in incident.threads:
            routes[t.route] += 1
            status, n, tasks = _plan_counts(entry.db, log, t.thread_id)
            assert (t.status, t.times_again, t.reruns) == (status, n, tasks), (
                f"{entry.name} {t.thread_id} via {t.route}"
            )
            compared += 1
    assert compared >= 40
    if stripped:
        assert routes["fast"] == 0  # no task ids: the shortcut must stand aside
    else:
        assert routes["fast"] >= 20 and routes["plan"] >= 3
    assert routes["restart"] >= 1  # exit-mode kills leave threads known only from the log


def test_impact_counts_the_attempts_of_every_thread(corpus: Corpus) -> None:
    """The impact rows, the total and the sentence are built from the same attempts."""
    entry = next(e for e in corpus.of_kind("killed") if e.name.startswith("payment-sync"))
    log, incident = _collected(entry)
    tid = entry.thread_ids[0]
    plan_status, n, _tasks = _plan_counts(entry.db, log, tid)
    assert plan_status == "resumable" and n == 1
    doc = incident.to_json()
    assert set(doc) >= {"threads", "impact", "total_times_again"}
    assert doc["total_times_again"] == sum(t["times_again"] for t in doc["threads"]) == 1
    assert doc["impact"] == [
        {"node": "charge", "effect": "charge_card", "times_again": 1, "threads": 1}
    ]
    assert "`charge_card` 1 time" in incident.sentence()
    keys = incident.keys()
    assert [(k.effect, k.verdict) for k in keys] == [("charge_card", "unproven")]
    md = to_markdown(incident)
    assert "| `charge` | `charge_card` | 1 | 1 |" in md
    assert to_csv(incident).splitlines()[0].startswith("thread_id,status,times_again")


def test_csv_and_markdown_neutralise_hostile_thread_ids(tmp_path: Path) -> None:
    """A thread id from the log is data: no spreadsheet formula, no Markdown table cell break."""
    log = tmp_path / "effects.jsonl"
    tid = '=HYPERLINK("http://x")|<b>'
    log.write_text(json.dumps({"thread_id": tid, "node": "n", "phase": "start", "ts": 1.0}) + "\n")
    db = tmp_path / "empty.db"
    _empty_db(db)
    source = open_source(db)
    try:
        incident = collect(source, read_effects(log))
    finally:
        source.close()
    assert [(t.thread_id, t.status, t.times_again) for t in incident.threads] == [
        (tid, "needs_restart", 1)
    ]
    assert "'=HYPERLINK" in to_csv(incident)
    row = next(line for line in to_markdown(incident).splitlines() if "HYPERLINK" in line)
    assert row.count("|") - row.count("\\|") == 6  # five cells: the id's pipe is escaped


def _empty_db(path: Path) -> None:
    from langgraph.checkpoint.sqlite import SqliteSaver

    with SqliteSaver.from_conn_string(str(path)) as saver:
        saver.setup()


# -- many threads, one worker, one SIGKILL ---------------------------------------------------
WORKER = textwrap.dedent(
    """
    import os, sys, threading
    from langgraph.checkpoint.sqlite import SqliteSaver
    import sqlite3
    from replaylens.examples.graphs import payment, linear
    db, mode, n, resume = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "resume"
    conn = sqlite3.connect(db, check_same_thread=False)
    saver = SqliteSaver(conn)
    graphs = {"linear": linear().compile(checkpointer=saver)}
    def run(i):
        g = graphs["linear"]
        cfg = {"configurable": {"thread_id": f"w-{i:02d}"}}
        g.invoke(None if resume else {"visited": []}, cfg, durability=mode)
    ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in ts: t.start()
    for t in ts: t.join()
    print("done", flush=True)
    """
)


def _run_worker(
    db: Path, log: Path, mode: str, n: int, phase: str, sleep: str
) -> subprocess.Popen[bytes]:
    env = dict(
        os.environ,
        REPLAYLENS_EFFECTS_LOG=str(log),
        REPLAYLENS_EXAMPLE_SLEEP=sleep,
        PYTHONPATH=os.pathsep.join([str(REPO / "lib"), str(REPO)]),
    )
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, str(db), mode, str(n), phase],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _wait_for_starts(log: Path, node: str, n: int, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists():
            starts = sum(
                1
                for raw in log.read_text().splitlines()
                if raw and json.loads(raw)["node"] == node and json.loads(raw)["phase"] == "start"
            )
            if starts >= n:
                return
        time.sleep(0.05)
    raise AssertionError(f"the worker never started {node} in {n} threads")


@pytest.mark.parametrize("mode", ["sync", "exit"])
def test_one_killed_worker_many_threads_predicted_equals_measured(
    tmp_path: Path, mode: str
) -> None:
    """The seed's scenario: one process runs several threads and is SIGKILLed mid-node.
    `incident --latest` at the kill predicts the start lines a resume of every thread
    performs again; a fresh process resumes them all and the log shows what really ran."""
    n = 6
    db, log = tmp_path / "w.db", tmp_path / "w.effects.jsonl"
    proc = _run_worker(db, log, mode, n, "run", "1.0")
    try:
        _wait_for_starts(log, "c", n)
        time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    at_kill = len(log.read_text().splitlines())
    snap = tmp_path / "snap"
    snap.mkdir()
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{db}{suffix}")
        if src.exists():
            (snap / f"w.db{suffix}").write_bytes(src.read_bytes())
    out = tmp_path / "incident.json"
    with out.open("w") as fh:
        old, sys.stdout = sys.stdout, fh
        try:
            assert (
                main(["incident", str(snap / "w.db"), "--effects", str(log), "--latest", "--json"])
                == 0
            )
        finally:
            sys.stdout = old
    doc = json.loads(out.read_text())
    predicted = {t["thread_id"]: t["times_again"] for t in doc["threads"]}
    assert len(predicted) == n, doc["selection"]

    if mode == "exit":
        # Nothing was saved: invoke(None) raises EmptyInputError; the restart re-runs all.
        assert {t["status"] for t in doc["threads"]} == {"needs_restart"}
        starts = Counter(
            json.loads(r)["thread_id"] for r in log.read_text().splitlines() if '"start"' in r
        )
        assert predicted == dict(starts)
        return
    resume = _run_worker(db, log, mode, n, "resume", "0")
    assert resume.wait(timeout=120) == 0, resume.stderr.read() if resume.stderr else ""
    again = Counter(
        json.loads(r)["thread_id"]
        for r in log.read_text().splitlines()[at_kill:]
        if json.loads(r)["phase"] == "start"
    )
    # The resume runs c again and then d for the first time: only c was recorded before.
    first_time = Counter(
        json.loads(r)["thread_id"]
        for r in log.read_text().splitlines()[at_kill:]
        if json.loads(r)["phase"] == "start" and json.loads(r)["node"] == "d"
    )
    measured = {tid: again[tid] - first_time[tid] for tid in again}
    assert predicted == measured
    assert doc["total_times_again"] == sum(measured.values()) == n
    assert doc["impact"] == [{"node": "c", "effect": "c", "times_again": n, "threads": n}]


def test_newest_crash_picks_the_last_process(corpus: Corpus) -> None:
    entry = next(e for e in corpus.of_kind("killed") if e.name.startswith("linear-sync"))
    log, incident = _collected(entry)
    chosen, how = newest_crash(incident.threads)
    assert [t.thread_id for t in chosen] == entry.thread_ids and "process" in how
    assert select(incident, pid=-1).threads == []
    assert select(incident, since=1e12).threads == []


def test_cli_incident_reports_bad_time(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["incident", str(tmp_path / "x.db"), "--since", "yesterday-ish"])
    assert exc.value.code == 2
    assert "is not a time" in capsys.readouterr().err


def test_the_newest_crash_includes_a_paused_thread_whose_answer_was_killed(corpus: Corpus) -> None:
    """Payment under exit: paused at approve, answered with Command(resume=True), killed in
    charge. The database still shows the pause (exit saved nothing of the answered run), the
    log shows charge started and never finished: the crash left it, and the newest crash
    lists it with what the Thread page says happens again (approve and charge)."""
    entry = corpus.get("payment-exit-killed")
    log, found = _collected(entry)
    tid = entry.thread_ids[0]
    chosen = select(found, latest=True).threads
    assert [t.thread_id for t in chosen] == [tid]
    assert chosen[0].status == "interrupted"
    source = open_source(entry.db)
    try:
        plan = plan_resume(source, log, tid)
    finally:
        source.close()
    assert chosen[0].times_again == plan.again.executions == 2
    # A thread paused and not answered is not left by a crash: it waits for a person.
    waiting = corpus.get("payment-interrupted-exit")
    source = open_source(waiting.db)
    try:
        others = collect(source, read_effects(waiting.effects_log))
    finally:
        source.close()
    row = next(t for t in others.threads if t.thread_id == waiting.thread_ids[0])
    assert row.status == "interrupted" and not row.left_by_crash


def test_idle_time_reads_in_the_two_largest_units() -> None:
    """The Incident page's "idle for" column: a thread idle for 352,234 s reads "4 d 1 h"."""
    from replaylens.dashboard.views import idle_words

    assert idle_words(352234) == "4 d 1 h"
    assert idle_words(3661) == "1 h 1 min"
    assert idle_words(3600) == "1 h"
    assert idle_words(65) == "1 min 5 s"
    assert idle_words(0.4) == "just now"
    assert idle_words(None) == ""
