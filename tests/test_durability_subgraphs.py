"""The durability what-if's rules for subgraphs, slow stores and logs without namespaces,
each checked on real SIGKILLs of the langgraph-tests corpus (`examples/langgraph_tests.py`).

Each campaign killed a corpus shape under two modes (one run each, the corpus's sleep unit)
and resumed it; the recordings are kept in `tests/whatif_kills/` (`tests/whatif_kills.py`,
`python scripts/make_whatif_kills.py` records them again), so a loaded machine cannot move a
kill. The recording of one mode predicts the other, which really ran: the prediction must lie
in what the real run measured. The rules are in `analysis/durability` (each docstring names
the LangGraph source it follows):

* a subgraph as a graph's first node runs in the root's step 1, and a namespace no parent
  task holds is a subgraph, not `@task` calls (`evidence._place_nested`);
* a subgraph step left by `Command(graph=PARENT)` puts nothing, and under exit the subgraph
  saves its last checkpoint on the way out (`evidence._raised_out`, `schedule.exit_saves`);
  with the mode inferred and no latency known that cannot be read, and both readings are
  the range (`Evidence.raised_unsure`); nor with a bare log that files the parent's next
  node under the subgraph (`outcomes._widen_exit_for_unplaced`);
* a subgraph compiled with ``checkpointer=True`` run twice is two parent tasks, and under
  exit each run that ended saved (`evidence._split_runs`, `schedule._stable_run_saves`);
  a bare log cannot tell its two runs apart: a range over both readings
  (`outcomes._widen_for_runs`);
* a log that names no namespace gives the checkpoints kept as a range, and says why
  (`outcomes._widen_for_unplaced`); read as an entrypoint's `@task` calls, whose saved
  writes a resume takes, the tasks again reach down to the call in flight;
* sync's waits are read in a subgraph's loop too (`inference._gaps_after_checkpoints`); a
  wait no LangGraph rule names (a nested `__start__` step ending a write after its input
  checkpoint) makes the other mode a race over the kill coming that much sooner
  (`outcomes._unnamed_waits`);
* async puts queued behind each other make a race whose span the what-if gives
  (`outcomes._queued`, `rules.WRITE_COST_SPAN`).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from whatif_kills import every_prediction_holds as _every_prediction_holds
from whatif_kills import figures as _figures
from whatif_kills import holds as _holds
from whatif_kills import judged, load
from whatif_kills import predict as _predict
from whatif_kills import real as _real

from replaylens.cli import main
from replaylens.examples.langgraph_tests import form_log
from replaylens.killtest.corpus import run_progress
from replaylens.killtest.validate import manifest_recording, plan_for
from replaylens.report import incident_markdown


def test_parent_command_subgraph_first_node_and_its_exit_save(tmp_path: Path) -> None:
    """parent_command, killed in node_b_parent after the subgraph routed the parent with
    Command(graph=PARENT): from the exit recording (an empty root, the subgraph's own save)
    sync is predicted exactly (root -1, 0, 1 and the subgraph's -1, 0, 1; node_b_parent
    again), and from the sync recording exit keeps the subgraph's save (1, not 0)."""
    runs = load("parent_command-late-0s", tmp_path)
    sync, exit_ = runs["sync"], runs["exit"]
    assert _real(exit_)[0] == 1  # the subgraph saved on the way out of ParentCommand
    assert _figures(_predict(exit_)["sync"]) == _real(sync)
    assert _figures(_predict(sync)["exit"]) == _real(exit_)
    # A bare log cannot place node_a_child or node_b_parent: the count is a range, said so.
    bare = _predict(exit_, "bare")["sync"]
    lo, hi = bare.race["checkpoints_kept"]
    assert lo <= _real(sync)[0] <= hi and lo < hi, bare.race
    assert "names no namespace" in bare.race["note"] and "subgraphs" in bare.race["note"]
    assert "range" in bare.basis["checkpoints_kept"]


def test_checkpointer_true_subgraph_run_twice(tmp_path: Path) -> None:
    """subgraph_checkpoint_true, killed in the subgraph's second run: sync keeps both runs'
    history (10) and re-runs inner_2 only; exit keeps the first run's save (1) and restarts."""
    runs = load("subgraph_checkpoint_true-late-0s", tmp_path)
    sync, exit_ = runs["sync"], runs["exit"]
    assert _figures(_predict(exit_)["sync"]) == _real(sync)
    assert _figures(_predict(sync)["exit"]) == _real(exit_)
    assert _real(exit_)[0] == 1


def test_subgraph_first_node_and_its_sync_waits(tmp_path: Path) -> None:
    """parent_command killed in the subgraph's first node on a slow store. From the exit
    recording (nothing in the database, only the subgraph's lines) sync is predicted exactly:
    the subgraph runs in the root's step 1, after `__start__` (root -1, 0 and the subgraph's
    -1, 0 kept). From the sync recording, with nothing told: the root logs nothing, the
    subgraph's steps show the waits, so the mode inferred is sync."""
    runs = load("parent_command-early-0.25s", tmp_path)
    assert _figures(_predict(runs["exit"])["sync"]) == _real(runs["sync"]) == (4, 1, 1)
    outcome = _predict(runs["sync"], given=False)["sync"]
    assert outcome.inference["modes"] == ["sync"], outcome.inference


def test_async_queue_of_puts_is_a_race(tmp_path: Path) -> None:
    """long_chain late, on a slow store: ten steps shorter than one write, so under async the
    puts queue; from the exit recording async is a race over the writes' cost, its span
    holding what the real async run kept. At the corpus's own unit (0.4 s) about five puts
    have landed at the kill: the sixth put's landing moves by 6 x 50 ms over the span, more
    than the 260 ms between two landings, so one of them crosses the kill. The real async
    run is compared only when it got as far as the exit run (the same lines before its kill:
    a kill aimed by the clock can land a task end later on a loaded machine)."""
    runs = load("long_chain-late-0.25s", tmp_path)
    outcome = _predict(runs["exit"])["async"]
    assert outcome.race and "queue" in outcome.race["note"], outcome.race
    # Recorded only when the async run got as far as the exit run (the same lines before the
    # kill: make_whatif_kills.py re-records otherwise), so the comparison always runs.
    assert run_progress(runs["async"]) == run_progress(runs["exit"])
    real = _real(runs["async"])
    for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines")):
        lo, hi = outcome.race[key]
        assert lo <= real[i] <= hi, (key, outcome.race, real)


def test_parent_command_exit_unreadable_without_latency(tmp_path: Path) -> None:
    """parent_command killed in node_b_parent on a slow store, from the async recording told
    nothing (as after a production crash). Whether the subgraph's last step was put or left by
    raising ParentCommand shows only as the parent going on one put sooner, which needs the
    write latency; an inferred async has none. So every mode is a range over both readings,
    holding what the real sync (6 kept) and exit (1 kept: the subgraph's save on the way out)
    runs measured, and the note says why."""
    runs = load("parent_command-late-0.25s", tmp_path)
    outcomes = _predict(runs["async"], given=False)
    for mode in ("sync", "exit"):
        o, real = outcomes[mode], _real(runs[mode])
        assert o.race, (mode, _figures(o), real)
        for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines")):
            lo, hi = o.race[key]
            assert lo <= real[i] <= hi, (mode, key, o.race, real)
        assert "no write latency known" in o.race["note"], o.race["note"]


def test_bare_calls_resume_reruns_only_the_call_in_flight(tmp_path: Path) -> None:
    """imp_tasks (an `@entrypoint` making `@task` calls) killed in a call on a slow store,
    from the exit recording with a bare log: the database is empty and the log names no task
    id, so nothing shows which calls had their writes saved before the kill. The real async
    resume loaded the input checkpoint and re-ran only the call in flight (1 task, 1 line);
    a restart would run every call again. The range over tasks and lines again holds both."""
    runs = load("imp_tasks-early-0.25s", tmp_path)
    o, real = _predict(runs["exit"], "bare")["async"], _real(runs["async"])
    assert real == (1, 1, 1)
    for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines")):
        lo, hi = o.race[key]
        assert lo <= real[i] <= hi, (key, o.race, real)
    assert "only the one in flight" in o.race["note"], o.race["note"]


def test_bare_log_cannot_tell_checkpointer_true_runs_apart(tmp_path: Path) -> None:
    """subgraph_checkpoint_true killed in the subgraph's second run on a slow store, bare
    logs: without steps or namespaces, inner_1 starting again is either a later step of one
    run or the start of the second run (its own input and `__start__` checkpoints; under
    exit the first run's save). Every cross-mode prediction is a range holding what the
    real run of that mode measured (sync 10 kept, 1 again; exit 1 kept; async 2 tasks
    again), and the note says why."""
    runs = load("subgraph_checkpoint_true-late-0.25s", tmp_path)
    for src, tgt in (("async", "sync"), ("async", "exit"), ("exit", "async")):
        o, real = _predict(runs[src], "bare")[tgt], _real(runs[tgt])
        for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines")):
            lo, hi = o.race[key] if o.race else (_figures(o)[i],) * 2
            assert lo <= real[i] <= hi, (src, tgt, key, o.race, real)
        assert "start of a later run" in o.race["note"], (src, tgt, o.race)


def test_unnamed_sync_wait_in_nested_start_is_a_race(tmp_path: Path) -> None:
    """doubly_nested killed in grandchild_1 on a slow store, from the sync recording: the
    grandchild's `__start__` step ended about a write after its input checkpoint (the root's
    and the child's a tick after), a wait no LangGraph rule names, so re-timed under async the
    kill could come that much sooner. The async prediction is a race whose span holds what
    the real async run measured (3 kept, 2 tasks and 3 effect lines again), and says
    why."""
    runs = load("doubly_nested-early-0.25s", tmp_path)
    o, real = _predict(runs["sync"])["async"], _real(runs["async"])
    assert o.race, (_figures(o), real)
    for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines")):
        lo, hi = o.race[key]
        assert lo <= real[i] <= hi, (key, o.race, real)
    assert "a wait no rule of LangGraph's names" in o.race["note"], o.race["note"]


def test_bare_log_parent_node_filed_under_subgraph_exit_save(tmp_path: Path) -> None:
    """The same async recording, told its mode, with a bare log: no root checkpoint names
    node_b_parent yet (the slow store had not saved the root's step), so the log files it under
    the subgraph, after the subgraph's node. Run by the parent instead, after the subgraph left
    by Command(graph=PARENT), the subgraph saved on the way out under exit (the real exit run
    kept that 1). The exit prediction is a range holding it, and says why."""
    runs = load("parent_command-late-0.25s", tmp_path)
    o, real = _predict(runs["async"], "bare")["exit"], _real(runs["exit"])
    assert real[0] == 1
    assert o.race, (_figures(o), real)
    for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines")):
        lo, hi = o.race[key]
        assert lo <= real[i] <= hi, (key, o.race, real)
    assert "saved on the way out" in o.race["note"], o.race["note"]


def test_node_that_works_before_each_interrupt_is_run_again_from_its_top(tmp_path: Path) -> None:
    """multiple_interrupts (held out: the rules were not fitted to it), killed in finish in
    the third invocation: node logs ``draft`` before each of its two interrupt() calls, so
    the draft is logged three times under one task id, and ``apply`` once. Every recording
    predicts every other mode exactly, told its mode or not, from the recorder's and
    LangGraph's own log: the first two runs of node paused (no checkpoint after them), and
    draft then apply are one task (one re-run under exit, not two)."""
    runs = load("multiple_interrupts-late-0.25s", tmp_path)
    assert [_real(runs[m]) for m in ("sync", "async", "exit")] == [(4, 1, 1), (3, 1, 1), (1, 2, 9)]
    for src in runs.values():
        for form in ("recorder", "langgraph"):
            for given in (True, False):
                outcomes = _predict(src, form, given)
                for target, real in runs.items():
                    assert _figures(outcomes[target]) == _real(real), (
                        src["mode"],
                        form,
                        given,
                        target,
                    )
    used = " ".join(_predict(runs["sync"])["exit"].used)
    assert "began again from its top" in used


def test_entrypoint_task_that_paused_before_logging_stops_step_zero(tmp_path: Path) -> None:
    """interrupt_task_functional (held out), killed in qux after bar's interrupt() was
    answered: bar paused before logging anything, so the first invocation ended paused in the
    entrypoint's step 0 (no checkpoint after it, the input's only). From every recording,
    sync and async re-run qux alone and exit re-runs bar, baz and qux (its answer was lost)."""
    runs = load("interrupt_task_functional-late-0.25s", tmp_path)
    assert [_real(runs[m]) for m in ("sync", "async", "exit")] == [(1, 1, 1), (1, 1, 1), (1, 3, 5)]
    for src in runs.values():
        for form in ("recorder", "langgraph"):
            outcomes = _predict(src, form)
            for target, real in runs.items():
                assert _figures(outcomes[target]) == _real(real), (src["mode"], form, target)


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(list(argv)) == 0
    return out.getvalue()


def test_a_range_reads_as_a_range_in_the_cli_the_report_and_the_json(tmp_path: Path) -> None:
    """Where the evidence cannot tell (a bare log's nodes could have run inside subgraphs),
    the model keeps one reading and the range: every view prints the range ("6–12"), never
    the one reading alone. The CLI finds the campaign's manifest as the dashboard does."""
    exit_ = load("parent_command-late-0s", tmp_path)["exit"]
    log = str(form_log(exit_["effects_at_kill"], "bare"))
    node = str(exit_["kill_at"]).rpartition(":")[0]
    plan = plan_for(exit_, log, manifest_recording(exit_, float(exit_["kill_delay"]), node))
    lo, hi = plan.what_if["sync"].race["checkpoints_kept"]
    assert lo < hi
    under = plan.again_under("sync")
    assert under.figure("checkpoints_kept") == f"{lo}–{hi}" and "subgraphs" in under.span_why
    db, tid = exit_["db_at_kill"], exit_["thread_id"]
    doc = json.loads(_cli("replay", db, "--thread", tid, "--effects", log, "--json"))
    again = doc["what_if"]["modes"]["sync"]["again"]
    assert again["range"] == under.to_json()["range"] and again["range"]["checkpoints_kept"] == [
        lo,
        hi,
    ]
    text = _cli("replay", db, "--thread", tid, "--effects", log)
    assert f"sync   kept {lo}–{hi} checkpoint(s)" in text
    row = next(
        r
        for r in incident_markdown(plan, database="x", effects_log=log).splitlines()
        if r.startswith("| sync |")
    )
    assert f"| {lo}–{hi} |" in row
    # The subgraph saved its own checkpoint on the way out of ParentCommand, the graph none:
    # the sentence says both, beside the card's "1 checkpoint kept" (never "no checkpoint").
    exit_words = plan.what_if["exit"].sentence
    assert plan.what_if["exit"].restart and plan.what_if["exit"].checkpoints_kept == 1
    assert "no checkpoint of the graph itself would exist (1 of a subgraph's" in exit_words


def test_interrupt_inside_a_subgraph_pauses_the_subgraph_and_its_parent(tmp_path: Path) -> None:
    """interrupt_subgraph (held out, second round), killed in archive after the answer: the
    subgraph's node paused in the first invocation, so under exit the subgraph saved its own
    last checkpoint beside the root's (2 kept, not 1), the parent step that ran the subgraph
    completed only in the second invocation, and the answer re-ran the node from its top.
    Every mode's prediction holds what the real run measured (its range where it gives
    one), from every recording, in all three log forms."""
    runs = load("interrupt_subgraph-late-0.25s", tmp_path)
    assert _real(runs["exit"])[0] == 2
    _every_prediction_holds(runs)


def test_a_retry_runs_its_task_from_the_top_in_the_same_step(tmp_path: Path) -> None:
    """retry_two_effects (held out, second round), killed in the retried charge: the node
    reserved, failed to charge, and RetryPolicy ran it again from its top (the reservation
    logged twice, one process, one step). That is one task in one invocation, not a resume:
    every mode's prediction holds what the real run measured, in all three log forms, told
    the mode or not."""
    runs = load("retry_two_effects-early-0.25s", tmp_path)
    _every_prediction_holds(runs)


def test_a_subgraph_run_its_root_task_saved_is_not_the_one_measured_again(
    tmp_path: Path,
) -> None:
    """subgraph_durability_inherited under `ainvoke` on Postgres at 1 s, killed under async
    in the second run of ``inner``: the first run's root task had saved its writes on the
    root's step-0 checkpoint (the step-1 checkpoint never landed), so the resume hands them
    back and runs the second ``inner`` again under a new task id. Both runs' ``inner_1``
    finished; the measurement took the new start for a repeat of whichever came first out of
    a set, the first run's, and 8 full-log verdict lines (4 bare, 4 span) were judged wrong
    at first contact. A task inside a root task the database holds as done is not repeated:
    the second run's ``inner_1`` is."""
    from replaylens.killtest.validate import measure_detail

    runs = load("subgraph_durability_inherited-late-1s-postgres", tmp_path)
    measured, again = measure_detail(runs["async"])
    assert again is not None
    ids = {task for _key, task in again}
    assert "543fef1f-a748-6f26-58b6-7f37dd25d3aa" in ids  # the second run's inner_1
    assert "727b1a0f-538d-857a-1e0f-5e6c6f9d29c3" not in ids  # the first run's, saved
    # root -1 and 0, the first run's -1 to 2; the second run's inner_1 and inner_2 in flight
    assert (measured.checkpoints, measured.reruns, measured.lines) == (6, 2, 3)
    checks = judged(
        "subgraph_durability_inherited-late-1s-postgres", tmp_path, ("recorder", "bare", "trace")
    )
    assert checks and all(not c.wrong for c in checks)


def test_a_task_that_logs_then_runs_graphs_returns_after_them(tmp_path: Path) -> None:
    """multiple_subgraphs_functional at 0.75 s a write, killed under async 1.6 s into the
    entrypoint `parent`: its `@task` ``call_multiple_subgraphs`` logs its effect, then
    invokes the entrypoint `add` (lines under its task id) and then `multiply`, which had
    not logged yet. The database held no writes of the task. Re-timed into sync, the task
    was read as returned when its own line ended, its writes saved: 1 1 2 where the real
    sync resume ran it and `add` again (1 2 4). A task whose graphs ran after its last line,
    and that the recording shows unfinished, has not returned by the kill."""
    runs = load("multiple_subgraphs_functional-late-0.75s", tmp_path)
    assert _real(runs["sync"]) == (1, 2, 4)
    for form in ("recorder", "langgraph"):
        o = _predict(runs["async"], form)["sync"]
        assert _figures(o) == (1, 2, 4), (form, o.race)
        assert {r["node"] for r in o.reruns} >= {"call_multiple_subgraphs", "add"}
    _every_prediction_holds(runs, ("recorder", "langgraph", "bare"), same_progress=True)


def test_a_stable_graph_run_from_an_edit_is_on_a_branch_of_its_own(tmp_path: Path) -> None:
    """three_level_stateful_forked at 0.75 s a write (two `checkpointer=True` levels; two
    inputs, then the state edited where `parent_step` was due and the thread run from the
    edit), killed in ``inner_step`` under sync and async. Such a run hands its stable graphs
    their state as of the copy: the verdicts read a node of the inner graph, one level below
    the middle one, as dropped with its new input (the rule had exempted only the stable
    graph's own nodes), and the async recording's own figures said 23 1 2 where its resume
    ran ``inner_step`` again, 23 2 3."""
    runs = load("three_level_stateful_forked-late-0.75s", tmp_path)
    assert _real(runs["async"]) == (23, 2, 3)
    for form in ("recorder", "langgraph", "bare"):
        assert _figures(_predict(runs["async"], form)["async"]) == (23, 2, 3), form
    checks = judged("three_level_stateful_forked-late-0.75s", tmp_path, ("recorder", "bare"))
    assert checks and all(not c.wrong for c in checks)


def test_a_forked_threads_stable_run_is_a_range_in_the_what_if(tmp_path: Path) -> None:
    """The same campaign from the sync recording into async: the model read the inner
    graph's run on the new branch as one whose step the second input had saved (its steps
    are numbered on from the copy, alike with the old branch's), 23 1 2 where the real async
    resume ran ``inner_step`` again, 23 2 3. Which the database does not tell: a range."""
    runs = load("three_level_stateful_forked-late-0.75s", tmp_path)
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            o = _predict(runs["sync"], form, given)["async"]
            assert _holds(o, _real(runs["async"], form)), (form, given, o.race)
            assert "run from an earlier checkpoint" in o.race["note"], (form, given)


def test_a_forked_threads_stable_run_that_saved_nothing_may_be_dropped(tmp_path: Path) -> None:
    """first_invocation_replayed (test_replay_from_first_invocation_checkpoint) on Postgres
    under `ainvoke` at 0.2 s a write: two inputs, then the thread run from the first input's
    checkpoint where the ``checkpointer=True`` graph was due (1.2.24 saves a fork copy), killed
    in that run's ``sub_step``. Under async the graph's run had saved nothing: the resume,
    handed the copy, ran ``sub_node`` with LangGraph's resuming flag, and the graph went on
    from its second input's end and dropped the run (15 0 0); under sync its run's
    checkpoints had landed and ``sub_step`` ran again (17 1 1). The async recording's own
    figures said 15 1 1, and its ``sub_step`` line was said to happen again with no doubt,
    in every form (4 verdict lines wrong). Now the line is a guess said in words
    (`Attempt.may_be_dropped`) and the figures a range down to it dropped
    (`outcomes._widen_for_unsure_drop`)."""
    name = "first_invocation_replayed-early-0.2s-postgres"
    runs = load(name, tmp_path)
    assert _real(runs["async"]) == (15, 0, 0) and _real(runs["sync"]) == (17, 1, 1)
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            own = _predict(runs["async"], form, given)["async"]
            assert _holds(own, (15, 0, 0)), (form, given, _figures(own), own.race)
    checks = judged(name, tmp_path, ("recorder", "langgraph", "bare", "trace"))
    assert checks and all(not c.wrong for c in checks), [c.wrong for c in checks]
    assert any(c.guessed for c in checks)
    _every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def test_a_send_workers_step_run_again_under_new_ids_is_measured_again(tmp_path: Path) -> None:
    """send_to_subgraph on LangGraph 0.6.11 under `ainvoke` at 0.3 s, killed under async in
    the second `Send` worker's `generate`: that worker's checkpoint after `edit` had not
    landed, so the resume re-entered its subgraph before `edit` and (the release replays a
    re-entered subgraph's first tick) ran `edit` and `generate` again under new ids, while
    the first worker's `generate` ran again under its own. The measurement took a start
    under a new id in a step where some task kept its id for new work, loop by loop name:
    the first worker's kept id hid the second's repeat (3 5 where the log shows 4 tasks and
    6 lines again, and the model said 4 6). It asks that run of the loop alone now."""
    from replaylens.killtest.validate import measure_detail

    runs = load("send_to_subgraph-early-0.3s-lg0.6.11", tmp_path)
    measured, again = measure_detail(runs["async"])
    assert again is not None
    assert "7ff63f11-fb71-0b42-2f50-b9297616cfa0" in {task for _key, task in again}
    assert (measured.checkpoints, measured.reruns, measured.lines) == (9, 4, 6)
    for src in ("sync", "exit"):
        assert _figures(_predict(runs[src], "recorder", True)["async"])[1:] == (4, 6), src
