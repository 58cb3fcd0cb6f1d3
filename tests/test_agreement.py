"""One answer behind every view: every view of a thread says the same "what happens again".

For each thread of the bundled `sample_dbs/` (one run per campaign, mode and latency, both
moments, and the approval database) and of the real-graph test corpus (`tests/corpus.py`),
the numbers are read from each view's own output, the way a reader meets them:

- `replaylens replay --json` (its `reruns`, its `what_happens_again` and the what-if
  modes), `replaylens incident --json` (each thread's `times_again`, `reruns` and
  `log_lines_again`) and `replaylens report`'s what-if table;
- the dashboard's view models: the plan the pages draw (`plan_resume` at the latency the
  page's slider starts at, the recorded one), the Threads page's "log lines again", the
  Time travel tab from the latest checkpoint, the Kill-test runs page's predicted columns,
  and Learn's lessons;
- the pages themselves under streamlit.testing (AppTest) for a few threads: the Thread
  page's metrics and banner, the Resume simulator's per-mode metrics, the Incident page's
  table and the Threads page's column.

Three counts, each named as what it is: tasks re-run, executions of a side effect again,
and log lines again; plus the checkpoints each durability mode keeps. They must agree
number for number. The full list of sample threads runs with
REPLAYLENS_AGREEMENT=full (`make`-free: `REPLAYLENS_AGREEMENT=full pytest tests/test_agreement.py`);
the default run takes one run per campaign, mode and latency.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from replaylens.analysis.durability import DEFAULT_LATENCY, MODES
from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import summarize_threads
from replaylens.analysis.timetravel import preview
from replaylens.cli import main
from replaylens.effects.parse import read_effects
from replaylens.killtest.recorded import recording_for
from replaylens.pairing import effects_for
from replaylens.sources import open_source

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_dbs"
FULL = os.environ.get("REPLAYLENS_AGREEMENT") == "full"


def _sample_threads() -> list[tuple[str, str]]:
    """(database, thread id) of the bundled samples: run 1 of each campaign/mode/latency at the
    kill (run 1 after the resume too), every run with REPLAYLENS_AGREEMENT=full."""
    out: list[tuple[str, str]] = []
    for manifest in sorted(SAMPLES.glob("*/manifest.json")):
        runs = json.loads(manifest.read_text())["runs"]
        for run in runs:
            if not FULL and run.get("run") != 1:
                continue
            for key in (
                ("db_at_kill", "db_after_resume")
                if FULL or run["mode"] != "exit"
                else ("db_after_resume",)
            ):
                db = manifest.parent / run[key]
                if db.is_file():
                    out.append((str(db.relative_to(REPO)), run["thread_id"]))
    source = open_source(SAMPLES / "payment-approved.db")
    try:
        out += [
            ("sample_dbs/payment-approved.db", s.thread_id) for s in summarize_threads(source)[0]
        ]
    finally:
        source.close()
    return out


SAMPLE_THREADS = _sample_threads()


def _cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert code == 0, err.getvalue()
    return out.getvalue()


def _dashboard_plan(db: str, tid: str) -> Any:
    """The plan the Thread page draws: the paired log, the manifest's recording, and the write
    latency the page's slider starts at (the recorded one, else 250 ms)."""
    path = REPO / db if not Path(db).is_absolute() else Path(db)
    log_path = effects_for(path)
    log = read_effects(log_path) if log_path else None
    rec = recording_for(path, tid)
    latency = rec.latency if rec.known and rec.latency is not None else DEFAULT_LATENCY
    source = open_source(path)
    try:
        return plan_resume(source, log, tid, latency=latency, recording=rec), log
    finally:
        source.close()


def _counts(doc: dict[str, Any]) -> tuple[Any, Any, Any]:
    return doc["tasks_again"], doc["executions_again"], doc["log_line_count"]


def assert_views_agree(db: str, tid: str) -> None:
    """Every non-browser view of one thread against the dashboard's plan."""
    path = REPO / db if not Path(db).is_absolute() else Path(db)
    plan, log = _dashboard_plan(db, tid)
    again = plan.again
    want = (again.task_count, again.executions, again.line_count)
    where = f"{db} {tid}"

    # replay --json: the task list, the summary and every mode.
    doc = json.loads(_cli("replay", str(path), "--thread", tid, "--json"))
    assert len(doc["reruns"]) == want[0], where
    assert [t["node"] for t in doc["reruns"]] == again.task_names, where
    assert _counts(doc["what_happens_again"]) == want, where
    assert doc["what_if"]["latency_seconds"] == plan.latency, where
    for m in MODES:
        mine, cli = plan.again_under(m), doc["what_if"]["modes"][m]
        assert cli["checkpoints_kept"] == plan.what_if[m].checkpoints_kept, (where, m)
        # The mode's task list is the one the views count (a subgraph's parent task included).
        if mine.tasks is None:
            assert cli["reruns"] is None, (where, m)
        else:
            assert [t["node"] for t in cli["reruns"]] == mine.task_names, (where, m)
        assert _counts(cli["again"]) == (mine.task_count, mine.executions, mine.line_count), (
            where,
            m,
        )
        assert cli["as_recorded"] == (plan.recording.mode == m and plan.what_if[m].as_recorded), (
            where,
            m,
        )
        if plan.what_if[m].as_recorded and plan.recording.mode == m:
            # The recorded mode's outcome is the resume of the database itself.
            assert (mine.task_count, mine.executions, mine.line_count) == want, (where, m)

    # replay (text) and report: the same summary sentence, the same what-if rows.
    text = _cli("replay", str(path), "--thread", tid)
    assert f"what happens again: {again.words()}" in text, where
    report = _cli("report", str(path), "--thread", tid)
    assert f"What happens again: {again.words()}." in report, where
    for m in MODES:
        a = plan.again_under(m)
        cells = [
            a.figure("checkpoints_kept"),
            a.figure("tasks") or "unknown",
            a.figure("executions") or "unknown",
            a.figure("lines") or "unknown",
        ]
        row = next(line for line in report.splitlines() if line.startswith(f"| {m} |"))
        got = [c.strip() for c in row.split("|")]
        assert got[4] == cells[0] and got[7:10] == cells[1:], (where, m, row)

    # incident --json: the thread's executions, tasks and lines.
    inc = json.loads(_cli("incident", str(path), "--json"))
    row = next(t for t in inc["threads"] if t["thread_id"] == tid)
    assert row["times_again"] == (want[1] or 0), where
    assert row["reruns"] == again.task_names, where
    assert row["tasks_again"] == want[0], where
    assert row["log_lines_again"] == (want[2] or 0), where

    # Without the log: the tasks the database alone shows (due, and lost steps' orphan writes),
    # as the verdict names them, in `replay` and `incident` alike.
    alone = None
    if plan.resume_checkpoint is not None:
        bare = json.loads(_cli("replay", str(path), "--thread", tid, "--no-effects", "--json"))
        source = open_source(path)
        try:
            alone = plan_resume(source, None, tid, recording=plan.recording)
        finally:
            source.close()
    if alone is not None and alone.status != "completed":
        names = alone.again.task_names
        assert [t["label"] for t in bare["reruns"]] == names, where
        assert alone.again.executions is None and alone.again.line_count is None, where
        for node in alone.lost_step_nodes | {t.label for _, t in alone.reruns}:
            assert node in names and f"`{node}`" in alone.verdict_sentence(), (where, node)
        inc_bare = json.loads(_cli("incident", str(path), "--no-effects", "--json"))
        row = next(t for t in inc_bare["threads"] if t["thread_id"] == tid)
        assert row["reruns"] == names, where

    # The Threads page's "log lines again" (its view model).
    if log is not None and tid in log.thread_ids:
        from replaylens.dashboard.loading import replay_counts

        source = open_source(path)
        try:
            known = {s.thread_id for s in summarize_threads(source)[0]}
            counts = replay_counts(
                source, [tid], known, log, DEFAULT_LATENCY, recording=lambda _: plan.recording
            )
        finally:
            source.close()
        # where the Thread page prints a range, the list sorts by its top (never the low end)
        span = again.span_of("lines")
        assert counts[tid] == (span[1] if span else want[2]), where

    # Time travel from the latest checkpoint: what a resume repeats, plus the finished tasks
    # due there (time travel re-runs them; a plain resume reuses their writes).
    source = open_source(path)
    try:
        from replaylens.analysis.status import load_thread
        from replaylens.errors import ThreadNotFound

        try:
            thread = load_thread(source, tid)
        except ThreadNotFound:
            thread = None
    finally:
        source.close()
    if thread is not None and thread.root is not None and thread.root.latest is not None:
        # The Threads page's "due next" names the tasks the Thread page lists as due (read
        # from the latest root checkpoint alone, where the thread page reads every namespace).
        source = open_source(path)
        try:
            row = next(s for s in summarize_threads(source)[0] if s.thread_id == tid)
        finally:
            source.close()
        due = tuple(t.node or t.label for t in thread.root.latest.pending_tasks)
        assert row.pending == due, (where, row.pending, due)
    if thread is not None:
        # The timeline under each mode draws the checkpoints the banner counts (a modelled
        # mode's extra ones at the ids its orphan writes hang off), and no orphan cross for them.
        from replaylens.figures.timeline import build_timeline_data

        for m in MODES:
            data = build_timeline_data(thread, plan, m)
            drawn = sum(1 for k in data.marks if k.kind == "checkpoint")
            assert drawn + data.unplaced == plan.what_if[m].checkpoints_kept, (where, m)
            kept = {k.checkpoint_id for k in data.marks if k.kind == "checkpoint"}
            assert not any(k.kind == "orphan" and k.checkpoint_id in kept for k in data.marks)
    if thread is not None and thread.root is not None and thread.root.latest is not None:
        latest = thread.root.latest
        tt = preview(thread, plan.attempts, latest.checkpoint_id, "", lost=list(again.tasks or ()))
        assert tt is not None
        reused_here = sum(1 for ns, _t in plan.reused if ns == "")
        root_again = [
            t
            for t in again.tasks or ()
            if t.checkpoint_ns == "" or t.why != "re-run in the resume step"
        ]
        assert tt.task_count == len(root_again) + reused_here + len(tt.nested), where
        # Time travel re-runs a subgraph from its start: every subgraph task a plain resume
        # re-runs is among its tasks (the tab said 1 task where the header said 2: `sub` and
        # `s2`, the subgraph's own due task, was not counted).
        from replaylens.namespaces import names

        inside = {(ns, node) for ns, node, _tid in tt.nested}
        logged = {(names(a.namespace), a.node) for a in plan.attempts if a.namespace}
        for t in again.tasks or ():
            key = (names(t.checkpoint_ns), t.node)
            if t.checkpoint_ns and t.why == "re-run in the resume step" and key in logged:
                assert key in inside, (where, t, inside)
        if plan.status != "completed":
            assert set(plan.replayed_lines) <= set(tt.certain_lines), where


@pytest.mark.parametrize(("db", "tid"), SAMPLE_THREADS, ids=[f"{d}:{t}" for d, t in SAMPLE_THREADS])
def test_every_view_of_a_sample_thread_agrees(db: str, tid: str) -> None:
    assert_views_agree(db, tid)


_ALL_RECORDINGS = tuple(
    sorted(p.parent.name for p in (REPO / "tests" / "whatif_kills").glob("*/manifest.json"))
)


def _held_out_threads() -> list[tuple[str, str]]:
    """(database, thread id) of recorded kills of the held-out rounds (`tests/whatif_kills/`):
    a run from an earlier checkpoint (a forked history), graphs a node invokes one after
    another, a stateful subgraph across interrupt cycles (round 13); a `DeltaChannel` thread
    with its exit stub, a stateful graph entered again after a pause (17); four interrupts
    answered one at a time across `Send` workers, graphs an `@task` call invokes (18); a
    stateful subgraph paused again in a run from an earlier checkpoint, a graph a node
    invokes answered twice, a resume that edits the state (23); a failure raised out of a
    subgraph into its node's error handler (24); the state edited at an earlier checkpoint
    and the thread run from the edit (25); a run from a copy that paused before logging (28);
    a `checkpointer=True` subgraph in a later step of a run from a copy (29); two sibling
    stateful subgraphs in a run from a copy killed before the copy landed (30); a `__copy__`
    asked again, StateGraphs an entrypoint's task invoked, three stateful levels (31); runs
    from a subgraph's own checkpoint, one and two levels down, and a node asking twice run
    again from before it (34); an `@entrypoint` thread that begins with `update_state`, a
    kill while a pause was being saved (37); a run from the middle graph's own checkpoint
    (38); a subgraph run again under a new task id from an edit, a failed `async def` node
    retried by a second input (39); an entrypoint's `@task` call cut off or raising (the
    checkpoint does not name it, and time travel from the latest checkpoint runs it again),
    a lost step's task that ran a graph; error handlers crashing, the builder's default
    handler, handlers per node (44, 45), a silent replay under exit (45), two nodes each
    invoking a graph (46); an entrypoint killed before any nested checkpoint landed, its task
    named by its graphs' writes alone (stop 58); an entrypoint a LangGraph 0.6 store does not
    name, named by the log for the plan and for time travel alike (stop 59); a subgraph a
    LangGraph 1.1 resume re-enters and runs its finished task in again (stop 60).
    REPLAYLENS_AGREEMENT=full takes every recorded campaign."""
    out: list[tuple[str, str]] = []
    for name in (
        _ALL_RECORDINGS
        if FULL
        else (
            "fork_replay-late-0.25s",
            "parent_command_nested-early-0s",
            "stateful_subgraph_interrupt-early-0s",
            "delta_channel_turns-early-0s",
            "subgraph_reenter_interrupt-early-0s",
            "parallel_interrupts_double-early-0s",
            "multiple_subgraphs_functional-late-0s",
            "subgraph_replay_then_resume-late-0s",
            "double_interrupt_subgraph-late-0s",
            "interrupt_update_resume-early-0s",
            "error_handler_subgraph_async-late-0s",
            "sequential_interrupts_fork-early-0s",
            "replay_before_interrupt-early-0.25s",
            "stateful_subgraph_replayed_tick-late-0.25s",
            "parallel_stateful_subgraphs_replayed-early-0.25s",
            "copy_fork_interrupt-early-0s",
            "subgraphs_in_task_entrypoint-early-0s",
            "three_level_stateful_replayed-late-0.25s",
            "subgraph_checkpoint_replayed-early-0s",
            "three_level_middle_interrupts-late-0.25s",
            "two_interrupts_replayed-early-0s",
            "entrypoint_update_state-early-0.25s",
            "stateful_subgraph_forked_turns-late-0.25s",
            "middle_checkpoint_replayed-early-0s",
            "fork_branch_in_subgraph-late-0.25s",
            "checkpoint_recovery_async-late-0s",
            "imp_exception-late-0s",
            "tasks_before_interrupts-early-0s",
            "multiple_subgraphs_mixed_state_graph-early-0.25s",
            "error_handlers_both_crash-early-0.25s",
            "error_handlers_both_crash-late-0s",
            "default_error_handler-early-0s",
            "stateful_subgraph_replay_then_resume-early-0.25s",
            "error_handlers_per_node-late-0s",
            "multiple_subgraphs_same-late-0s",
            "multiple_subgraphs_functional-late-0.75s",
            "imp_tasks-early-0.25s-lg0.6.11",
            "stateful_subgraph_interrupt-late-0.25s-lg1.1.10",
        )
    ):
        folder = REPO / "tests" / "whatif_kills" / name
        for run in json.loads((folder / "manifest.json").read_text())["runs"]:
            for key in ("db_at_kill", "db_after_resume"):
                out.append((str((folder / run[key]).relative_to(REPO)), run["thread_id"]))
    return out


HELD_OUT_THREADS = _held_out_threads()


@pytest.mark.parametrize(
    ("db", "tid"), HELD_OUT_THREADS, ids=[f"{d}:{t}" for d, t in HELD_OUT_THREADS]
)
def test_every_view_of_a_held_out_thread_agrees(db: str, tid: str) -> None:
    assert_views_agree(db, tid)


def test_every_view_of_every_corpus_thread_agrees(corpus: Any) -> None:
    compared = 0
    for entry in corpus:
        if entry.kind not in (
            "killed",
            "killed_slow_put",
            "resumed_after_kill",
            "completed",
            "failed",
            "interrupted",
        ):
            continue
        if not entry.effects_log.exists() or not entry.db.exists():
            continue
        log = read_effects(entry.effects_log)
        for tid in entry.thread_ids:
            if tid not in log.thread_ids:
                continue
            assert_corpus_thread(entry.db, entry.effects_log, tid)
            compared += 1
    assert compared >= 10


def assert_corpus_thread(db: Path, log_path: Path, tid: str) -> None:
    """The corpus's logs are not named after their databases: each view is given the log."""
    log = read_effects(log_path)
    source = open_source(db)
    try:
        plan = plan_resume(source, log, tid)
    finally:
        source.close()
    again = plan.again
    want = (again.task_count, again.executions, again.line_count)
    doc = json.loads(_cli("replay", str(db), "--thread", tid, "--effects", str(log_path), "--json"))
    assert _counts(doc["what_happens_again"]) == want, (db, tid)
    assert len(doc["reruns"]) == want[0], (db, tid)
    for m in MODES:
        assert doc["what_if"]["modes"][m]["checkpoints_kept"] == plan.what_if[m].checkpoints_kept
    inc = json.loads(_cli("incident", str(db), "--effects", str(log_path), "--json"))
    row = next(t for t in inc["threads"] if t["thread_id"] == tid)
    assert (row["times_again"], row["reruns"]) == (want[1] or 0, again.task_names), (db, tid, row)
    # The key table counts executions as the impact table does (an interrupted node asked
    # again is one execution of one task: its two attempts counted 2 beside an impact of 1).
    keyed: dict[tuple[str, str], int] = {}
    for k in inc["idempotency"]:
        keyed[(k["node"], k["effect"])] = keyed.get((k["node"], k["effect"]), 0) + k["times_again"]
    assert keyed == {(r["node"], r["effect"]): r["times_again"] for r in inc["impact"]}, (db, tid)
    for label, answer in [("database", again), *((m, plan.again_under(m)) for m in MODES)]:
        _assert_parents_listed(answer, (db.name, tid, label))


def _assert_parents_listed(answer: Any, where: Any) -> None:
    """A task inside a subgraph runs again only inside the parent task that runs the subgraph:
    every count of tasks re-run names that parent too, the database's (a due task of the root
    checkpoint) and each mode's (the model logs no line for a subgraph node: its Resume card
    said 1 task under sync where the Thread page said 2, `sub` and `s2`)."""
    from replaylens.namespaces import names

    listed = {(names(t.checkpoint_ns), t.node) for t in answer.tasks or ()}
    for t in answer.tasks or ():
        parts = names(t.checkpoint_ns).split("|") if t.checkpoint_ns else []
        for depth, node in enumerate(parts):
            assert ("|".join(parts[:depth]), node) in listed, (where, t, sorted(listed))


def test_the_runs_page_predicts_what_the_thread_page_says() -> None:
    """The Kill-test runs page's "(predicted)" columns are the Thread page's numbers for the
    run's own mode; its "effect lines again" is the measured count in the same unit (log lines),
    so a resume that failed with EmptyInputError (exit) repeats every line, never 0."""
    from replaylens.dashboard import catalog
    from replaylens.dashboard.campaigns import runs_frame
    from replaylens.paths import AllowList

    allow = AllowList.build([SAMPLES])
    camp = next(c for c in catalog.discover([SAMPLES / "fanout"], allow).campaigns)
    runs = runs_frame([camp], allow)
    checked = 0
    for _, row in runs.iterrows():
        if row["run"] != 1 or not row["db"]:
            continue
        db = row["db"] if Path(row["db"]).is_absolute() else str(Path.cwd() / row["db"])
        plan, _ = _dashboard_plan(db, row["thread"])
        own = plan.again_under(row["mode"])
        assert (row["tasks re-run (predicted)"], row["effect lines again (predicted)"]) == (
            own.figure("tasks"),
            own.figure("lines"),
        ), (row["mode"], row["latency (ms)"])
        checked += 1
    # And the prediction at the recorded mode is what the real resume did (measured from the
    # logs after it), on every run: the one answer is the true one here.
    measured = runs[["tasks re-run", "effect lines again"]].astype(str).to_numpy().tolist()
    predicted = (
        runs[["tasks re-run (predicted)", "effect lines again (predicted)"]]
        .astype(str)
        .to_numpy()
        .tolist()
    )
    assert measured == predicted
    exit_runs = runs[runs["mode"] == "exit"]
    assert (exit_runs["effect lines again"] == exit_runs["effect lines at kill"]).all()
    assert (exit_runs["lines repeated"] > 0).all()
    assert checked >= 4


def test_the_recorded_answer_does_not_move_with_the_latency_a_reader_tries() -> None:
    """The fan-out killed under async at 0 ms a write (a kill-test manifest names both): the
    header every view prints is the database's answer as it stands, 1 line again. With the
    Thread page's latency slider at 250 ms it read "1–3" lines, the range the async what-if
    has at 250 ms, and the Threads page (which plans at 250 ms) would have listed 3: the
    recorded mode's outcome is taken at the recorded latency (`ResumePlan.recorded_outcome`)."""
    from replaylens.dashboard.loading import replay_counts

    db = REPO / "sample_dbs/linear/runs/async-0s-1/at-kill.db"
    tid = "killtest-async-0s-1"
    log = read_effects(effects_for(db))
    rec = recording_for(db, tid)
    assert rec.latency == 0.0 and rec.mode == "async"
    shown = set()
    for latency in (0.0, 0.25, 1.0):
        source = open_source(db)
        try:
            again = plan_resume(source, log, tid, latency=latency, recording=rec).again
            shown.add((again.figure("tasks"), again.figure("lines"), again.checkpoints_kept))
        finally:
            source.close()
    assert shown == {("1", "1", 4)}, shown
    source = open_source(db)
    try:
        known = {s.thread_id for s in summarize_threads(source)[0]}
        counts = replay_counts(source, [tid], known, log, 0.25, recording=lambda _: rec)
    finally:
        source.close()
    assert counts == {tid: 1}


def test_learn_never_holds_fewer_checkpoints_under_sync_than_its_step_started_from() -> None:
    """Learn says a step's tasks "started from the checkpoint of step N"; under sync that
    checkpoint (and every one before it) had landed, so the sync lesson holds at least them.
    And its "happens again" list counts executions as its sentence does."""
    from replaylens.analysis.status import load_thread
    from replaylens.dashboard.learn import build_lesson

    for db, tid, with_log in (
        ("sample_dbs/linear/runs/sync-0.25s-1/at-kill.db", "killtest-sync-0.25s-1", False),
        ("sample_dbs/fanout/runs/async-0.25s-1/checkpoints.db", "killtest-async-0.25s-1", True),
    ):
        path = REPO / db
        log = read_effects(effects_for(path)) if with_log else None
        source = open_source(path)
        try:
            thread = load_thread(source, tid)
        finally:
            source.close()
        plan = plan_resume(thread, log, tid, recording=recording_for(path, tid))
        chain = thread.root.lineage(thread.root.latest.checkpoint_id)
        for lesson in build_lesson(thread, plan, plan.latency):
            before = next(i for i, c in enumerate(chain) if c is lesson.before)
            # "4 checkpoint(s)", or "3–4 checkpoint(s)" where the kill moment is a race: the
            # lowest reading must hold them too.
            held = int(lesson.modes["sync"].holds.split()[0].split("–")[0])
            # Sync waits for each step's checkpoint before the next step, but not for the
            # input checkpoint before the first (pregel/main.py: the wait follows after_tick).
            if before > 0:
                assert held >= before + 1, (db, lesson.step, lesson.modes["sync"].holds)
            for ml in lesson.modes.values():
                listed = sum(_times(e) for e in ml.repeated_effects)
                said = sum(
                    _times(m)
                    for m in re.findall(
                        r"\((?:[^()]*?, )?([^()]*?(?:once|\d+ times))\)", ml.sentence
                    )
                )
                assert not any("×" in e for e in ml.repeated_effects)
                assert listed == said or not ml.repeated_effects, (ml.repeated_effects, ml.sentence)
                # Each node of these graphs is one task per step: a kill repeats it once at
                # most. On the resumed fan-out the killed run's p3, which the resume re-did
                # as a new task, was counted beside the resume's own ("p3 (2 times)").
                assert len(set(ml.reruns)) == len(ml.reruns), (db, lesson.step, ml.reruns)
                assert all(_times(e) == 1 for e in ml.repeated_effects), (db, ml.repeated_effects)


def _own_databases() -> list[Path]:
    """Run 1 of every linear and subgraph sample, at the kill and after the resume, read as a
    database of one's own: no effects log, no manifest (the recorded mode is inferred)."""
    return sorted(p for g in ("linear", "subgraph") for p in SAMPLES.glob(f"{g}/runs/*-1/*.db"))


def test_without_a_log_no_saved_checkpoint_is_lost_in_the_mode_it_ran_under() -> None:
    """Without a log the what-if rests on the database alone: under every mode the thread could
    have run under (the inferred candidates) each checkpoint the file holds is kept, and the
    timeline draws (or counts) as many as the banner says. A completed subgraph thread (killed,
    then resumed) has two runs of its subgraph at the same steps: nothing in the database
    tells the invocations apart, and one of those checkpoints used to be called lost."""
    from replaylens.analysis.again import outcome_tone
    from replaylens.analysis.status import load_thread
    from replaylens.figures.timeline import build_timeline_data

    checked = 0
    for path in _own_databases():
        source = open_source(path)
        try:
            for s in summarize_threads(source)[0]:
                thread = load_thread(source, s.thread_id)
                plan = plan_resume(thread, None, s.thread_id)
                modes = next(iter(plan.what_if.values())).inference.get("modes") or []
                for m in modes:
                    o, where = plan.what_if[m], (path.name, s.thread_id, m)
                    assert o.lost_checkpoint_ids == [], where
                    assert o.checkpoints_kept >= thread.checkpoint_count and not o.restart, where
                    data = build_timeline_data(thread, plan, m)
                    drawn = sum(1 for k in data.marks if k.kind == "checkpoint")
                    assert drawn + data.unplaced == o.checkpoints_kept, where
                    # Green only where the database alone shows nothing happens again.
                    assert outcome_tone(plan, m) != "success" or o.ending == "returned", where
                    checked += 1
        finally:
            source.close()
    assert checked >= 20


def _times(text: str) -> int:
    if text.endswith("once)") or text.endswith("once"):
        return 1
    m = re.search(r"(\d+) times", text)
    return int(m.group(1)) if m else 0


# -- the pages themselves --------------------------------------------------------------------
OWN = "own-async-kill.db"
"""A database of one's own: a sample kill copied where no log and no manifest go with it."""


PAGE_THREADS = [
    ("sample_dbs/fanout/runs/async-0.25s-1/at-kill.db", "killtest-async-0.25s-1"),
    (OWN, "killtest-async-0.25s-1"),
    ("sample_dbs/payment/runs/sync-0s-1/at-kill.db", "killtest-sync-0s-1"),
    ("sample_dbs/payment-approved.db", "invoice-awaiting-approval"),
]


@pytest.fixture
def sample_app(fresh_streamlit: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import shutil

    own = tmp_path / "own"
    own.mkdir()
    src = SAMPLES / "fanout/runs/async-0.25s-1/at-kill.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", own / f"{OWN}{suffix}")
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(SAMPLES), str(own)]))
    monkeypatch.setenv("REPLAYLENS_AGREEMENT_OWN", str(own / OWN))
    monkeypatch.chdir(REPO)


def _page(page: str, **params: str) -> Any:
    from app_pages import open_page

    return open_page(page, timeout=90, **params)


def _metrics(at: Any) -> list[tuple[str, Any]]:
    return [(m.label, m.value) for m in at.metric]


@pytest.mark.parametrize(
    ("db", "tid"), PAGE_THREADS, ids=[f"{Path(d).name}:{t}" for d, t in PAGE_THREADS]
)
@pytest.mark.usefixtures("sample_app")
def test_the_pages_show_the_same_numbers(db: str, tid: str) -> None:
    if db == OWN:
        db = os.environ["REPLAYLENS_AGREEMENT_OWN"]
    elif tid not in {t for d, t in SAMPLE_THREADS if d == db}:
        pytest.fail(f"{db} has no thread {tid}")
    plan, log = _dashboard_plan(db, tid)
    again = plan.again
    # each figure as `Again.figure` prints it: "5", or "5–6" where the evidence cannot tell
    want = (again.figure("tasks"), again.figure("executions") or "no log",
            again.figure("lines") or "no log")  # fmt: skip

    thread = dict(_metrics(_page("thread", db=db, thread=tid)))
    got = (
        str(thread["tasks again"]),
        str(thread["executions again"]),
        str(thread["log lines again"]),
    )
    assert got == want, (tid, thread)
    for mode in MODES:  # the banner above the timeline, under each mode picked
        at = _page("thread", db=db, thread=tid, mode=mode)
        banner = [str(w.value).replace("\\", "") for w in [*at.warning, *at.info, *at.success]
                  if "checkpoint(s) kept" in str(w.value)]  # fmt: skip
        under = plan.again_under(mode)
        assert (
            banner
            and f"{under.figure('checkpoints_kept')} checkpoint(s) kept, {under.words()}"
            in banner[0]
        ), (tid, mode, banner)

    resume_page = _page("resume", db=db, thread=tid)
    resume = _metrics(resume_page)
    if log is None or tid not in log.thread_ids:
        # No log: which side effects repeat is unknown, so no mode's answer is green, and each
        # says what its figures rest on (the database alone, the model).
        answers = [str(w.value) for w in [*resume_page.warning, *resume_page.info,
                                          *resume_page.success] if "Under " in str(w.value)]  # fmt: skip
        assert len(answers) == len(MODES), answers
        assert not [w for w in resume_page.success if "Under " in str(w.value)], tid
        assert all("rest on" in a and "database alone" in a for a in answers), answers
    assert ("tasks that re-run", str(want[0])) in [(k, str(v)) for k, v in resume], resume
    # Each figure as `Again.figure` prints it: "5", or "5–6" where the evidence cannot tell.
    unders = [plan.again_under(m) for m in MODES]
    per_mode = [str(v) for k, v in resume if k == "checkpoints kept"]
    assert per_mode == [u.figure("checkpoints_kept") for u in unders]
    assert [int(u.checkpoints_kept or 0) for u in unders] == [
        plan.what_if[m].checkpoints_kept for m in MODES
    ]
    tasks = [str(v) for k, v in resume if k == "tasks re-run"]
    assert tasks == [u.figure("tasks") or "unknown" for u in unders]
    lines = [str(v) for k, v in resume if k == "log lines again"]
    assert lines == [u.figure("lines") or "no log" for u in unders]
    # executions range with the lines and tasks they come from (no card shows "2" for
    # executions where its tasks read "0–2")
    executions = [str(v) for k, v in resume if k == "executions again"]
    assert executions == [u.figure("executions") or "no log" for u in unders]

    inc = _page("incident", db=db)
    frame = next(d.value for d in inc.dataframe if "re-runs" in d.value.columns)
    row = frame[frame["thread"] == tid]
    if not row.empty:
        assert row.iloc[0]["re-runs"] == ", ".join(again.task_names)
        assert int(row.iloc[0]["times again"]) == (again.executions or 0)


def test_export_and_bundle_read_the_paired_log_and_the_recorded_latency(tmp_path: Path) -> None:
    """`export` and `bundle` pick up the effects log next to the database and model the
    recorded write latency, as `replay`, `report` and the dashboard do (payment, sync, 0 ms:
    at 0.25 s the CLI used to say async keeps 3 checkpoints where the page says 4)."""
    import zipfile

    db, tid = "sample_dbs/payment/runs/sync-0s-1/at-kill.db", "killtest-sync-0s-1"
    plan, _ = _dashboard_plan(db, tid)
    assert plan.latency == 0.0 and plan.again.line_count
    want = plan.again.to_json()
    exported = json.loads(_cli("export", str(REPO / db), "--thread", tid))["plan"]
    out = tmp_path / "b.zip"
    _cli("bundle", str(REPO / db), "--thread", tid, "--out", str(out))
    with zipfile.ZipFile(out) as zf:
        bundled = json.loads(zf.read("plan.json"))
    for doc in (exported, bundled):
        assert doc["what_if"]["latency_seconds"] == 0.0
        assert {m: o["checkpoints_kept"] for m, o in doc["what_if"]["modes"].items()} == {
            m: o.checkpoints_kept for m, o in plan.what_if.items()
        }
        assert doc["what_happens_again"] == want
