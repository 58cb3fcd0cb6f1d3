"""The what-if on the thirty-seventh held-out round: a second input after a run whose lines
all came from a `checkpointer=True` subgraph, and a run from the first input's checkpoint
killed before its copy landed (test_time_travel.py::test_stateful_subgraph_retains_state_on
_parent_fork, test_replay_from_first_invocation_checkpoint).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, predict, real


def test_a_fresh_input_after_a_run_that_logged_below_the_root(tmp_path: Path) -> None:
    """Killed in step_a, answered, after two inputs (each answered twice) and an edit of the
    root checkpoint where the subgraph was due in the second. The first input's last lines
    (its answers) all ran in the subgraph, so the second input's parent_node — a different
    first node than the answer before it — read as a resume: its input checkpoint, its
    `__start__` and the subgraph's new run were missing from the exit database's reading
    (sync: 16 kept, where the real run kept 19). The newest root checkpoint before it had
    nothing due, and none had parent_node due that a run from an earlier checkpoint could
    have started from: a resume would have run nothing. A bare log, whose node names tell no
    root task apart, keeps its range over the invocations the database cannot confirm."""
    runs = load("stateful_subgraph_forked_turns-early-0s", tmp_path)
    assert real(runs["exit"]) == (12, 1, 1) and real(runs["sync"]) == (19, 1, 1)
    for form in ("recorder", "langgraph"):
        assert figures(predict(runs["exit"], form)["sync"]) == (19, 1, 1), form
    assert holds(predict(runs["exit"], "bare")["sync"], real(runs["sync"]))
    every_prediction_holds(runs)


def test_a_run_from_an_earlier_checkpoint_killed_before_its_copy_landed(tmp_path: Path) -> None:
    """Two inputs ran to their ends; the run from the first input's checkpoint where the
    subgraph was due was killed in sub_step before its copy landed (async, 0.25 s a write):
    the resume goes on from the thread's end and runs nothing (14 kept, nothing again). Read
    from that database, the run was a resume (it began at another node than the inputs) of
    nothing, and sync was 16 kept: the copy, which sync saves before the first task, was
    not counted (17)."""
    runs = load("first_invocation_replayed-early-0.25s", tmp_path)
    assert real(runs["async"]) == (14, 0, 0) and real(runs["sync"]) == (17, 1, 1)
    assert figures(predict(runs["async"])["sync"]) == (17, 1, 1)
    assert holds(predict(runs["async"], "bare")["sync"], real(runs["sync"]))
    every_prediction_holds(runs)


def test_a_traces_root_step_names_the_checkpoint_a_lost_copy_was_made_from(
    tmp_path: Path,
) -> None:
    """The same kill read from a trace, whose ``sub_node`` span carries the root step it ran
    in (3): the run was from the first input's checkpoint (step 1), its copy step 2. Taken
    from the newest checkpoint with ``sub_node`` due instead (step 5, the copy 6), the
    trace's own step 3 fell behind the copy, and sync was predicted 16 kept and 1 task
    again where the real run kept 17 and ran ``sub_node`` and ``sub_step`` again."""
    runs = load("first_invocation_replayed-early-0.25s", tmp_path)
    assert real(runs["sync"], "trace") == (17, 2, 2)
    for given in (True, False):
        sync = predict(runs["async"], "trace", given)["sync"]
        assert figures(sync) == (17, 2, 2), sync.race


def test_an_entrypoint_thread_that_begins_with_an_edit(tmp_path: Path) -> None:
    """test_entrypoint_stateful_update_state: `update_state` before any run, three inputs,
    another edit, and a fourth input killed in `foo`. The edit, not an invocation, is the
    thread's first checkpoint: under exit it had read as a run stopped before the log began;
    the first input's input checkpoint is one step after it, not the edit itself (the model
    had added a step -1 of its own, 10 and 11 kept for 9); and an `@entrypoint` that makes
    no `@task` call is told by its first task logging two steps after the checkpoint before
    it. At 0.25 s a write the fourth input's input checkpoint, which sync does not wait
    for, was still in flight at the kill: the real sync run kept 8 and the resume ran
    nothing (the input was lost), where the edit had been taken for the input checkpoint
    and the real one for a waited step (10 kept and `foo` again)."""
    runs = load("entrypoint_update_state-early-0s", tmp_path)
    assert real(runs["sync"]) == (9, 1, 1) and real(runs["exit"]) == (5, 0, 0)
    assert figures(predict(runs["exit"])["sync"]) == (9, 1, 1)
    assert figures(predict(runs["sync"])["exit"]) == (5, 0, 0)
    every_prediction_holds(runs)
    runs = load("entrypoint_update_state-early-0.25s", tmp_path)
    assert real(runs["sync"]) == (8, 0, 0)
    for src in ("async", "exit"):
        assert figures(predict(runs[src])["sync"]) == (8, 0, 0), src
    every_prediction_holds(runs)


def test_a_trace_of_a_kill_while_the_pause_was_being_saved(tmp_path: Path) -> None:
    """Killed 0.2 s after step_b began, at 0.25 s a write: step_b asks before it logs, so the
    kill came while its pause was being saved, which async and exit lost (19 and 12 kept).
    The recorder's log has no line of step_b and is dated from step_a's end; a trace shows
    step_b's own span, paused, and had been read as a clean pause: async 20 kept, exit 13.
    Its spans also counted the end of ``sub_node``'s span, which closes only after the
    subgraph's save (async waits for it, exit makes it on the way out): the real async and
    exit traces have none, 5 and 9 spans again where 6 and 10 had been predicted."""
    runs = load("stateful_subgraph_forked_turns-late-0.25s", tmp_path)
    assert real(runs["async"], "trace") == (19, 2, 5) and real(runs["exit"], "trace") == (12, 3, 9)
    trace = predict(runs["sync"], "trace")
    assert figures(trace["async"]) == (19, 2, 5) and figures(trace["exit"]) == (12, 3, 9)
    assert figures(trace["sync"]) == real(runs["sync"], "trace") == (20, 2, 6)
    logged = predict(runs["sync"])
    assert figures(logged["async"]) == (19, 0, 0) and figures(logged["exit"]) == (12, 1, 2)


def test_a_trace_that_lost_the_pause_says_sync_saved_it_and_closed_the_span(
    tmp_path: Path,
) -> None:
    """The same kills read from async's and exit's traces for sync: ``sub_node``'s span was
    open at the kill, and the kill had been dated from its start plus the time to the last
    line, which under sync, whose steps inside it wait for their puts, fell before the step
    where ``step_b`` asked was saved (19 kept where the real sync run kept 20). The kill came
    0.2 s after ``step_b`` started (the manifest), or with no manifest at least after the
    last line of the steps inside the span, re-timed with them; and under sync the span,
    its graph paused, closes at once, one more line again (6) than the recording wrote."""
    runs = load("stateful_subgraph_forked_turns-late-0.25s", tmp_path)
    assert real(runs["sync"], "trace") == (20, 2, 6)
    for src in ("async", "exit"):
        for given in (True, False):
            told = predict(runs[src], "trace", given)["sync"]
            assert told.checkpoints_kept == 20, (src, given, figures(told))
            assert holds(told, (20, 2, 6)), (src, given, figures(told), told.race)
            if given:  # dated by the manifest: past the pause's save, no range of checkpoints
                assert told.race["checkpoints_kept"] == [20, 20], (src, told.race)


def test_a_pause_read_without_its_manifest_may_have_been_cut_short(tmp_path: Path) -> None:
    """The same kills read as after a production crash, with no manifest: nothing dates the
    kill, and the database holds the pause (sync) or nothing of the last invocation (async,
    exit). Read as a clean pause, async was said to keep 20 where the real run kept 19, exit
    13 with nothing again where it kept 12 and ran step_a again. The process may have died
    as soon as its last line was written and what the database holds had landed: the
    prediction is the range between that kill and a clean pause, and says why."""
    runs = load("stateful_subgraph_forked_turns-late-0.25s", tmp_path)
    cut_short = "nothing dates the kill"
    for form in ("recorder", "trace"):
        inferred = predict(runs["sync"], form, given=False)
        for target in ("async", "exit"):
            o = inferred[target]
            assert cut_short in o.race["note"], (form, target, o.race)
            assert o.race["checkpoints_kept"][0] == real(runs[target], form)[0], (form, target)
            assert holds(o, real(runs[target], form)), (form, target, o.race)
    told = predict(runs["sync"], "recorder")  # a manifest dates the kill: no range
    assert not any(cut_short in (o.race or {}).get("note", "") for o in told.values())
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_pause_its_process_outlived_reads_as_clean() -> None:
    """The sample's invoice-awaiting-approval paused in approve, and the same process went
    on to log batch-failed's lines: it was alive after the pause, so no kill cut its save
    short, and each mode keeps what a clean pause keeps (async 3, exit 1), as a returned
    invocation would. Given only the thread's own lines, nothing shows the process lived on,
    and the other modes say the range of a pause that may have been cut short."""
    from replaylens.analysis.resume import plan_resume
    from replaylens.effects.parse import read_effects
    from replaylens.sources import open_source

    samples = Path(__file__).resolve().parents[1] / "sample_dbs"
    log = read_effects(samples / "payment-approved.effects.jsonl")
    thread = "invoice-awaiting-approval"
    source = open_source(samples / "payment-approved.db")
    outlived = plan_resume(source, log, thread).what_if
    alone = plan_resume(source, log.for_thread(thread), thread).what_if
    assert {m: figures(o) for m, o in outlived.items()} == {
        "sync": (3, 1, 2), "async": (3, 1, 2), "exit": (1, 1, 2),
    }  # fmt: skip
    assert not any(o.race for o in outlived.values())
    for mode in ("async", "exit"):
        assert "nothing dates the kill" in alone[mode].race["note"], mode


def test_replay_keeps_the_manifests_kill_point_when_the_mode_is_named(tmp_path: Path) -> None:
    """`replay --recorded-mode sync` on the sync recording killed while its pause was being
    saved: the kill point is the manifest's whatever mode is named, and the what-if is the
    one the manifest alone gives (async 19 kept). Dropping the kill node had left the kill
    undated: a clean pause, async 20."""
    import json
    import subprocess
    import sys

    from replaylens.killtest.corpus import form_path

    run = load("stateful_subgraph_forked_turns-late-0.25s", tmp_path)["sync"]
    command = [sys.executable, "-m", "replaylens.cli", "replay", str(run["db_at_kill"])]
    command += ["--thread", run["thread_id"], "--effects", str(form_path(run, "recorder"))]
    answers = []
    for named in ([], ["--recorded-mode", "sync"]):
        proc = subprocess.run([*command, *named, "--json"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        answers.append(json.loads(proc.stdout)["what_if"]["modes"]["async"]["checkpoints_kept"])
    assert answers == [19, 19]
