"""Kills recorded by an older LangGraph release than the one pinned here, read by this one:
the stores they wrote keep less (langgraph-checkpoint-sqlite 2.0 keeps no task path in its
writes rows), and what a resume re-runs is still measured by that release's own resume.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; a campaign with a `langgraph` release is recorded again in a
virtual environment with that release).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from whatif_kills import every_prediction_holds, figures, holds, judged, load, plan, predict, real

from replaylens.analysis.durability import Recording, release_assumption, subgraph_writes_reused
from replaylens.analysis.durability.evidence import REPLAY_START_UNSURE
from replaylens.analysis.durability.outcomes import PUTS_UNSURE
from replaylens.cli import main
from replaylens.killtest.corpus import form_path
from replaylens.killtest.recorded import recording_for
from replaylens.killtest.validate import plan_for


def test_a_node_whose_derived_id_holds_no_writes_takes_the_steps_unnamed_result(
    tmp_path: Path,
) -> None:
    """test_pregel.py's waiting edge beside a regular edge to `qa`, LangGraph 0.4.10 under
    async at 0.25 s a write, killed 0.8 s into `retriever_two` (`validate --kill-shift
    0.5`): `qa`, due by its regular edge, ended 0.4 s before the kill and its writes were
    saved. LangGraph 0.4 derives a task id from all of a node's triggers, the join channel
    among them, which no checkpoint lists before its first write: the id derived for `qa`
    holds no writes, and its writes stand under an id nothing names. A bare log's `qa`
    lines were read as in flight and running again (3 2 3 where the real resume ran 3 1 1);
    a line that ended takes the step's one unnamed result (`align._underived_result`)."""
    name = "waiting_edge_plus_regular-early-shift+0.5u-0.25s-lg0.4.10"
    runs = load(name, tmp_path)
    assert real(runs["async"], "bare") == (3, 1, 1)
    attempts = plan(runs["async"], "bare").attempts
    assert [(a.node, a.verdict) for a in attempts] == [
        ("rewrite_query", "kept"),
        ("analyzer_one", "kept"),
        ("qa", "kept"),
        ("retriever_two", "replays"),
    ]
    assert figures(plan(runs["async"], "bare").what_if["async"]) == (3, 1, 1)
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "bare", "trace")))
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_calls_result_a_store_kept_no_path_for_is_taken_by_a_line_that_ended(
    tmp_path: Path,
) -> None:
    """test_imp_task on LangGraph 0.6.11 at 0.25 s a write, killed while the third of three
    `@task` calls of the entrypoint was still running: the two that returned saved their
    results, but the store keeps no task path, so nothing names those writes' tasks as
    calls of the entrypoint, or as `mapper`. They were listed beside the step's tasks,
    unnamed, and a bare log's three `mapper` lines found no task: every one was read as
    running again (3 tasks and 5 lines where the real resume ran 1 and 1). A line that
    ended takes an unnamed call result of the checkpoint it started from, as a call a
    store names does (`align._next_call`)."""
    name = "imp_tasks-early-0.25s-lg0.6.11"
    runs = load(name, tmp_path)
    for mode in ("sync", "async"):
        assert real(runs[mode], "bare") == (1, 1, 1), mode
        attempts = plan(runs[mode], "bare").attempts
        assert [a.verdict for a in attempts] == ["kept", "kept", "replays"], mode
    assert all(not c.wrong for c in judged(name, tmp_path)), "bare verdict lines wrong"
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare"))


def test_an_entrypoint_a_store_does_not_name_is_named_by_the_log(tmp_path: Path) -> None:
    """The same kill read from a trace: its first span is the entrypoint's own task, `graph`,
    with its task id. The store names no node at the input checkpoint (its one derived task
    is a `StateGraph`'s `__start__`, the calls' results unnamed beside it), so `graph`'s
    span aligned with no task and was read as kept (1 1 1 where the real resume ran `graph`
    and the call in flight again, 1 2 2). The id the log gives is the one LangGraph derives
    for `graph` triggered by `__start__` there: that proves the name
    (`tasks.name_entrypoint`, from `align.align`)."""
    name = "imp_tasks-early-0.25s-lg0.6.11"
    runs = load(name, tmp_path)
    for mode in ("sync", "async"):
        assert real(runs[mode], "trace") == (1, 2, 2), mode
        told = plan(runs[mode], "trace")
        graph = next(a for a in told.attempts if a.node == "graph")
        assert graph.task is not None and graph.verdict == "replays", (mode, graph.reason)
    assert all(not c.wrong for c in judged(name, tmp_path, ("trace",))), "span lines wrong"
    every_prediction_holds(runs, forms=("trace",))


def test_a_release_before_1_2_16_runs_a_re_entered_subgraphs_finished_tasks_again(
    tmp_path: Path,
) -> None:
    """test_subgraph_checkpoint_true_interrupt's shape on LangGraph 1.1.10 at 0.25 s a write,
    killed in `respond`, the inner graph's second node: under async the inner graph's
    checkpoint after `process` had not landed, so the resume re-enters it at the one before,
    where `process`'s writes are saved. Up to 1.2.15 every subgraph's loop starts as if
    replaying (its config carries the key `checkpoint_id`), its first step hands no saved
    write back, and the real resume ran `process` again: 16 3 7 where the plan, following
    today's rule, said 16 2 5 and called `process` kept. The manifest names the release; the
    plan follows its rule and says which one it follows (`rules.subgraph_writes_reused`)."""
    name = "stateful_subgraph_interrupt-late-0.25s-lg1.1.10"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (16, 3, 7)
    told = plan(runs["async"])
    process = [a for a in told.attempts if a.node == "process"]
    assert process[-1].verdict == "replays", process[-1].reason
    assert any(t.node == "process" and t.done for _ns, t in told.reruns), told.reruns
    assert told.release_note is not None and "1.1.10" in told.release_note
    assert figures(plan(runs["sync"]).what_if["async"]) == (16, 3, 7)
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "bare", "trace")))
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_subgraph_left_with_its_parents_command_saved_is_not_re_entered(
    tmp_path: Path,
) -> None:
    """test_parent_command's shape on LangGraph 0.6.11 at 0.5 s, killed in `node_b_parent`,
    the root node `node_b_child`'s `Command(graph=PARENT)` routed to. Under async the root's
    checkpoint after the subgraph's step had not landed, but the Command's writes had: the
    resume reuses them and never re-enters the subgraph, whose finished `node_b_child` the
    old release would otherwise run again. The real async resume ran `node_b_parent` alone
    (5 1 1); the old release's rule applied without that said 5 2 3
    (`outcomes._holder_done`)."""
    runs = load("parent_command-late-0.5s-lg0.6.11", tmp_path)
    assert real(runs["async"]) == (5, 1, 1)
    for src in ("sync", "exit"):
        assert figures(plan(runs[src]).what_if["async"]) == (5, 1, 1), src
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_bare_log_that_cannot_place_a_node_spans_both_readings_of_the_old_rule(
    tmp_path: Path,
) -> None:
    """test_interrupt_subgraph's shape on LangGraph 1.1.10 at 0.25 s, killed in `archive`
    after the inner graph's `review` was answered, read from the exit recording's bare log:
    the exit database keeps nothing that places `archive`, so it may have run in the inner
    graph, which a resume would then re-enter and (by that release's rule) run `review`
    again, or in the root, after the inner graph's task had ended and saved its writes. The
    real async resume ran `archive` alone (6 1 1); the plan had said 5 2 7 as one figure.
    The range now reaches down to the flat reading (`outcomes._widen_for_unplaced`)."""
    runs = load("interrupt_subgraph-late-0.25s-lg1.1.10", tmp_path)
    assert real(runs["async"], "bare") == (6, 1, 1)
    outcome = plan(runs["exit"], "bare").what_if["async"]
    assert holds(outcome, (6, 1, 1)), outcome.race
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_an_entrypoint_a_log_names_takes_its_own_pause_from_beside_it(tmp_path: Path) -> None:
    """test_multiple_interrupts_functional's shape on LangGraph 0.6.11 at 0.5 s a write, killed
    0.56 s into the run answering the third ``interrupt()``, before `finish` logged: the
    store keeps no task path, so the entrypoint's writes (its pause and the answers) were
    listed as an unnamed task beside the `graph` the log's namespaces name under the same
    id. The pause was nobody's, the kill was not read as one while the pause was being
    saved, and every other mode was said to keep 2 checkpoints where each real run kept
    its 1 (`tasks.name_entrypoint` takes those writes; `evidence._entrypoint_node` knows
    the calls' unnamed results for calls). A bare log names no namespace and logged only
    `double` calls: the name the kill was aimed at is tried on the entrypoint's ids
    (`Recording.named_nodes`); unnamed, the async recording's bare log said sync keeps 2."""
    runs = load("multiple_interrupts_functional-late-0.5s-lg0.6.11", tmp_path)
    for mode in ("sync", "async", "exit"):
        assert real(runs[mode]) == (1, 0, 0), mode
    for src in ("sync", "async", "exit"):
        for target in ("sync", "async", "exit"):
            assert figures(plan(runs[src]).what_if[target]) == (1, 0, 0), (src, target)
            bare = plan(runs[src], "bare").what_if[target]
            assert figures(bare) == (1, 0, 0), (src, target, bare.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_the_graph_code_names_an_entrypoint_a_bare_log_and_the_store_leave_unnamed(
    tmp_path: Path,
) -> None:
    """The same recording's bare log told no kill aim, as after a production crash: nothing
    names the entrypoint, which reads as a `StateGraph` with `__start__` due and its pause
    nobody's. The graph code names its nodes (`Recording.graph_nodes`, from `replay --graph`
    and the dashboard's graph code); the name whose id LangGraph derives at the input
    checkpoint is the written one is taken, and the resume re-runs `graph`. A name that
    derives another id is not taken."""
    runs = load("multiple_interrupts_functional-late-0.5s-lg0.6.11", tmp_path)
    entry = runs["async"]

    def rerun(recording: Recording) -> list[str]:
        p = plan_for(entry, str(form_path(entry, "bare")), recording)
        return [t.node for _ns, t in p.reruns]

    assert rerun(Recording(langgraph="0.6.11")) == ["__start__", ""]
    assert rerun(Recording(langgraph="0.6.11", graph_nodes=frozenset({"double"}))) == [
        "__start__",
        "",
    ]
    named = Recording(langgraph="0.6.11", graph_nodes=frozenset({"double", "graph"}))
    assert rerun(named) == ["graph"]


def test_incident_without_a_log_names_the_entrypoint_as_replay_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a log, `incident` listed a thread's due tasks from its newest checkpoint alone
    (`__start__` and an unnamed task), where `replay` names the entrypoint from the node the
    manifest's kill was aimed at: the shortcut stands aside for the full plan where the
    recording names a node a task nothing names may take (`incident._named_by_recording`)."""
    entry = load("multiple_interrupts_functional-late-0.5s-lg0.6.11", tmp_path)["async"]
    db, tid = str(entry["db_at_kill"]), entry["thread_id"]
    assert main(["replay", db, "--thread", tid, "--no-effects", "--json"]) == 0
    replayed = [t["label"] for t in json.loads(capsys.readouterr().out)["reruns"]]
    assert main(["incident", db, "--no-effects", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    row = next(t for t in doc["threads"] if t["thread_id"] == tid)
    assert replayed == row["reruns"] == ["graph"]


def test_replay_with_the_graph_code_names_the_entrypoint_a_bare_log_leaves_unnamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`replay --graph` asks the graph code its node names once, before the plan
    (`from_graph.ask_thread`), and the plan takes them (`Recording.told_by_graph`): the task
    a resume runs again is the entrypoint, where without the graph code it is `__start__`
    and an unnamed task beside it."""
    entry = load("multiple_interrupts_functional-late-0.5s-lg0.6.11", tmp_path)["async"]
    alone = tmp_path / "alone"  # (no manifest beside it: nothing names the kill's node)
    alone.mkdir()
    db, log = alone / "at-kill.db", alone / "effects.jsonl"
    shutil.copy(entry["db_at_kill"], db)
    shutil.copy(form_path(entry, "bare"), log)
    args = ["replay", str(db), "--thread", entry["thread_id"], "--effects", str(log), "--json"]
    graph = ["--graph", "replaylens.examples.langgraph_tests:multiple_interrupts_functional"]

    def reruns(extra: list[str]) -> tuple[list[str], dict[str, object]]:
        assert main([*args, *extra]) == 0
        doc = json.loads(capsys.readouterr().out)
        return [r["node"] for r in doc["reruns"]], doc.get("from_graph") or {}

    assert reruns([])[0] == ["__start__", ""]
    nodes, answer = reruns(graph)
    assert nodes == ["graph"]
    assert answer["nodes"] == ["graph"]


@pytest.mark.parametrize(
    ("version", "reused"),
    [("1.2.16", True), ("1.2.24", True), ("1.3.0", True), ("1.2.15", False), ("1.1.10", False),
     ("0.6.11", False), ("0.2.76", False), (None, True), ("", True), ("main", True)],
)  # fmt: skip
def test_the_rule_a_release_follows_is_read_from_its_number(
    version: str | None, reused: bool
) -> None:
    """1.2.16 is the first release whose subgraphs hand saved writes back; a release that does
    not read as a number is not known, and today's rule is assumed (said in words)."""
    assert subgraph_writes_reused(Recording(langgraph=version)) is reused


def test_the_dashboard_reads_the_release_from_the_kill_test_manifest(tmp_path: Path) -> None:
    """The Thread page finds a database's recording in the manifest beside it
    (`killtest.recorded.recording_for`): the release comes with the mode, and the plan's
    words name it."""
    runs = load("stateful_subgraph_interrupt-late-0.25s-lg1.1.10", tmp_path)
    entry = runs["async"]
    found = recording_for(entry["db_at_kill"], entry["thread_id"])
    assert (found.mode, found.langgraph) == ("async", "1.1.10")
    assert "1.1.10" in release_assumption(found)
    assert "not known" in release_assumption(Recording(mode="async"))


def test_the_command_line_names_the_release_where_no_manifest_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--langgraph-release` overrides the manifest (a production database has none): told
    1.2.20, the plan of the 1.1.10 recording follows the newer rule and `process`, whose
    writes the subgraph's checkpoint holds, is no longer among the tasks run again."""
    runs = load("stateful_subgraph_interrupt-late-0.25s-lg1.1.10", tmp_path)
    entry = runs["async"]

    def rerun_nodes(*extra: str) -> tuple[set[str], str]:
        main(["replay", str(entry["db_at_kill"]), "--thread", entry["thread_id"], "--json", *extra])
        doc = json.loads(capsys.readouterr().out)
        return {r["node"] for r in doc["reruns"]}, doc["release_rule"]

    nodes, words = rerun_nodes()
    assert "process" in nodes and "1.1.10" in words
    nodes, words = rerun_nodes("--langgraph-release", "1.2.20")
    assert "process" not in nodes and "1.2.20" in words


def test_a_stable_graphs_save_on_its_way_out_is_taken_out_of_an_exit_recording(
    tmp_path: Path,
) -> None:
    """test_subgraph_checkpointer_true's shape on Postgres at 0.5 s a write, recorded by
    LangGraph 1.2.15, killed in the second run of the `checkpointer=True` graph: under exit
    that graph saves as each run ends, and the exit recording shows the save as a gap before
    its second run. Its parent's steps log nothing (the graph is the node), so the evidence
    closed the parent's first step where the run ended and began the next one there: the
    save's gap fell inside no parent gap and stayed in the re-timed async clock, the kill
    came 0.5 s later, after the root's checkpoint had landed (7 kept where the real async run
    kept 6). The wait now reaches from the run's last end to the next start
    (`schedule._stable_exit_waits`)."""
    runs = load("subgraph_checkpoint_true-late-0.5s-postgres-lg1.2.15", tmp_path)
    assert real(runs["async"])[0] == 6
    for form in ("recorder", "langgraph", "trace"):
        outcome = predict(runs["exit"], form)["async"]
        assert holds(outcome, real(runs["async"], form)), (form, figures(outcome), outcome.race)
    every_prediction_holds(
        runs, forms=("recorder", "langgraph", "bare", "trace"), cross_mode_only=True
    )


def test_a_subgraph_whose_failure_went_to_its_nodes_handler_is_not_re_entered(
    tmp_path: Path,
) -> None:
    """test_node_error_handler_handles_subgraph_internal_failure_async's shape under `ainvoke`
    at 0.3 s, recorded by LangGraph 1.2.15, killed in `report`, after the handler of
    `subgraph_node` took the failure raised out of its graph. Under async the root's checkpoint
    after that step had not landed, so a resume runs the step again: the handler for the saved
    failure, never `subgraph_node`, whose graph (with `sub_work`'s saved writes, which 1.2.15
    would run again) is not re-entered. The real async resume ran the handler and `report`
    (5 2 3); the release's rule applied without that said 5 3 5 (`outcomes._holder_done`)."""
    runs = load("error_handler_subgraph_async-late-0.3s-lg1.2.15", tmp_path)
    assert real(runs["async"]) == (5, 2, 3)
    for src in ("sync", "exit"):
        assert figures(plan(runs[src]).what_if["async"]) == (5, 2, 3), src
    every_prediction_holds(
        runs, forms=("recorder", "langgraph", "bare", "trace"), cross_mode_only=True
    )


def test_a_thread_told_only_its_release_follows_that_releases_rule(tmp_path: Path) -> None:
    """Without a manifest the mode is inferred, but the release is what a user names
    (`--langgraph-release`): double_interrupt_subgraph under `ainvoke` at 0.3 s, recorded by
    1.2.15 and killed in `invoke_sub_agent`, whose graph a resume re-enters and whose answered
    node 1.2.15 runs again (5 1 2). Told nothing, the plan follows today's rule (5 0 0) and
    says so; told the release, 5 1 2."""
    runs = load("double_interrupt_subgraph-late-0.3s-lg1.2.15", tmp_path)
    assert real(runs["async"]) == (5, 1, 2)
    told = plan(runs["sync"], given=False)
    assert told.recording.langgraph == "1.2.15"
    assert figures(told.what_if["async"]) == (5, 1, 2)
    unknown = plan_for(runs["sync"], str(form_path(runs["sync"], "recorder")), Recording())
    assert figures(unknown.what_if["async"]) == (5, 0, 0)
    assert unknown.release_note is not None and "not known" in unknown.release_note


def test_a_kill_after_a_failure_finds_the_run_still_handling_it(tmp_path: Path) -> None:
    """The same shape killed 0.5 s into `sub_fail_node`, 0.3 s after it raised: the failure's
    write had landed (0.3 s a write), the parent's error handler had not yet started (it waits
    for that write). The database and the log alone read as a run that raised out, and exit
    saves on a raise: from the async recording, exit was said to keep the subgraph's
    checkpoints (2 1 2). But only a killed run has a kill moment, and one that came after the
    failure found the process still running: the failure was being handled, and exit, killed
    before its save, kept nothing (0 2 4, as measured: `evidence._killed_after_failure`)."""
    runs = load("error_handler_subgraph_async-early-0.3s-lg1.2.15", tmp_path)
    assert real(runs["exit"]) == (0, 2, 4)
    told = plan(runs["async"])
    assert figures(told.what_if["exit"]) == (0, 2, 4)
    assert any("still being handled" in u for u in told.what_if["exit"].used)


def test_a_span_a_failure_left_closes_only_after_the_graphs_exit_save(tmp_path: Path) -> None:
    """The same kill, from the async recording's trace into exit. There ``subgraph_node``'s
    span closed 0.29 s after ``sub_fail_node`` failed, once its graph's puts in flight had
    landed, 5 ms before the kill: one line more than the exit run wrote. Under exit the graph
    a failure leaves saves on its way out (``_suppress_interrupt``), 0.3 s a write, and the
    span closes only then: after the kill, and the real exit runs have no end of it (5 lines
    again, where 6 were said). The save lands some 20 ms after the kill, within a kill's own
    race: the lines again are said as the range 5-6 (`outcomes._widen_for_exit_return`)."""
    runs = load("error_handler_subgraph_async-early-0.3s-lg1.2.15", tmp_path)
    measured = real(runs["exit"], "trace")
    assert measured == (0, 3, 5)
    told = predict(runs["async"], "trace")["exit"]
    assert figures(told) == measured
    assert told.race["replayed_lines"] == [5, 6]
    assert any("save on its way out" in u for u in told.assumed)


def test_a_kill_aimed_before_lines_that_were_written_came_in_a_later_invocation(
    tmp_path: Path,
) -> None:
    """test_parallel_interrupts_double's shape on LangGraph 1.0.10 under `ainvoke` at 0.6 s a
    write: two `Send` workers each run a subgraph whose two nodes pause, answered one at a
    time by interrupt id. The answers never reach the second worker there: the fourth and
    fifth invocations log nothing and save no checkpoint, each pausing again, and the kill,
    0.2 s after `child_graph` started in the fifth, found the pause saved (nothing again in
    any mode, exit's 3 and the others' 7 checkpoints kept). The kill was dated 0.2 s after
    the third invocation's last line, while it paused: exit was said to lose that pause
    (2 tasks and 6 lines again), and from exit, sync and async to lose the first worker's
    last checkpoint (6 kept). `child_graph` started before the lines of the graph it ran,
    which went on 0.4 s: the kill came in a later invocation
    (`evidence.killed_in_a_later_invocation`)."""
    runs = load("parallel_interrupts_double-early-0.6s-lg1.0.10", tmp_path)
    assert real(runs["exit"]) == (3, 0, 0)
    assert real(runs["sync"]) == real(runs["async"]) == (7, 0, 0)
    for form in ("recorder", "langgraph"):
        for src in ("sync", "async"):
            assert figures(predict(runs[src], form)["exit"]) == (3, 0, 0), (form, src)
        told = plan(runs["exit"], form)
        assert figures(told.what_if["sync"]) == (7, 0, 0), form
        assert any("later invocation" in u for u in told.what_if["sync"].used), form


def test_a_bare_line_beside_a_sibling_of_its_step_stays_in_its_workers_run(
    tmp_path: Path,
) -> None:
    """The same kill from a bare log, which names no worker. In the third invocation the first
    worker's two nodes, due in one step of its subgraph, started at once: the second was
    filed in the other worker's run, as a task starts in a run whose previous task has ended,
    though that worker's nodes had paused again with no line and never returned. Its step
    was read as completed there, one checkpoint more than any real run kept (8 where 7).
    Nodes a checkpoint of the subgraph has due together run side by side in one run
    (`evidence._due_together`): the run the alignment put it in was free for it."""
    runs = load("parallel_interrupts_double-early-0.6s-lg1.0.10", tmp_path)
    for src in ("sync", "async"):
        for given in (True, False):
            told = predict(runs[src], "bare", given)
            for target in ("sync", "async"):
                assert holds(told[target], (7, 0, 0)), (src, given, target)
            assert holds(told["exit"], (3, 0, 0)), (src, given)
    assert figures(predict(runs["async"], "bare")["sync"]) == (7, 0, 0)


def test_a_worker_that_returned_in_the_last_logged_process_took_its_lines_there(
    tmp_path: Path,
) -> None:
    """The same kill from exit's own bare log. The killed fifth invocation logged nothing (the
    second worker re-paused before its first line); the log's last process, the third
    invocation, ran the first worker's two nodes to the end. That process was taken for the
    killed one, and a worker saved on the way out (its caller's writes saved, its own pause
    still due) never holds the killed process's lines: the lines went to the second
    worker, whose nodes were said to re-run from their first line (4 verdict lines wrong,
    own figures 3 2 4 where the real resume ran nothing, 3 0 0). The first worker still had
    `get_human_input` to run when its pause was saved, and only that process finished it:
    it ended, and the killed process is one that logged no line (`align._finished_only_by`)."""
    name = "parallel_interrupts_double-early-0.6s-lg1.0.10"
    runs = load(name, tmp_path)
    assert real(runs["exit"], "bare") == (3, 0, 0)
    told = plan(runs["exit"], "bare")
    assert figures(told.what_if["exit"]) == (3, 0, 0)
    assert {a.verdict for a in told.attempts} == {"kept"}, [
        (a.node, a.verdict) for a in told.attempts
    ]
    assert all(not c.wrong for c in judged(name, tmp_path))


def test_a_task_that_began_again_after_its_step_was_saved_ran_from_an_earlier_checkpoint(
    tmp_path: Path,
) -> None:
    """test_run_from_checkpoint_id_retains_previous_writes's shape on LangGraph 0.6.11 with
    Postgres at 0.2 s a write: after the loop ended, the thread runs again from the
    checkpoint where ``node_one`` was due, killed 0.2 s into it, before anything of that run
    landed; the real resumes re-ran nothing. 0.6 keeps the earlier checkpoint's own id for
    that run, so ``node_one`` began again under the task id it had: read as a task that had
    paused there, the first invocation as paused, and another mode was said to lose two
    steps (2 kept, ``node_one`` and ``node_two`` again, where 4 were kept and nothing ran
    again). The checkpoint saved after it ended, without it due, shows its step completed
    (`evidence._halted`)."""
    runs = load("fork_retains_writes-early-0.2s-postgres-lg0.6.11", tmp_path)
    assert real(runs["async"]) == real(runs["sync"]) == (4, 0, 0)
    for form in ("recorder", "langgraph", "trace"):
        for given in (True, False):
            assert figures(predict(runs["sync"], form, given)["async"]) == (4, 0, 0), form
            assert figures(predict(runs["async"], form, given)["sync"]) == (4, 0, 0), form


def test_a_run_from_an_earlier_checkpoint_saves_no_copy_before_langgraph_1_1_7(
    tmp_path: Path,
) -> None:
    """The same shape killed 0.2 s into the run's ``node_two``. LangGraph 1.1.7 and later save
    a copy of the checkpoint a run from it begins with (source ``fork``, one step on); 0.6.11
    saves none, and its first put is ``node_one``'s step, which sync waits for. Read as a
    copy, that put was waited for by no mode and landed before the kill under async (5 kept,
    nothing again; async's own real run kept 4: the put landed some 10 ms after the kill).
    The release decides (`rules.FORK_COPY_SINCE`): the race is said, 4-5. A bare log, whose
    run begins at ``node_one`` as a fresh input does, is told by the database: the run's first
    checkpoint is a child of the older one, not of the newest (`evidence._runs_from_older`)."""
    runs = load("fork_retains_writes-late-0.2s-postgres-lg0.6.11", tmp_path)
    assert real(runs["async"]) == (4, 0, 0)
    assert real(runs["sync"]) == (5, 1, 1)
    for form in ("recorder", "langgraph", "bare", "trace"):
        told = predict(runs["sync"], form)["async"]
        assert figures(told) == (4, 0, 0), form
        assert told.race["checkpoints_kept"] == [4, 5], form
        assert holds(predict(runs["async"], form)["sync"], (5, 1, 1)), form
    bare = plan(runs["sync"], "bare").what_if["async"]
    assert any("saves no copy first" in u for u in bare.used)


def test_a_run_from_an_earlier_checkpoint_may_begin_with_a_task_that_logs_nothing(
    tmp_path: Path,
) -> None:
    """test_replay_creates_branch_in_subgraph's shape on LangGraph 0.6.11 with Postgres at
    0.2 s a write: run to its end, then again from the checkpoint where ``sub_graph`` was due.
    Its subgraph had completed, so ``sub_graph`` returns at once and logs nothing; its step's
    checkpoint (a child of that older one) comes before the run's first line, ``parent_end``,
    killed 0.2 s in. The database names the checkpoint the run went on from even so; read from
    the first line on, the run was not seen and from sync, async was said to keep that step
    (9, where the real async run kept 8: its put landed some 10 ms after the kill; now 8, the
    race 8-9). From async, whose database lost that checkpoint, the run is taken to begin at
    ``parent_end``'s checkpoint: limits.md."""
    runs = load("replay_branch_in_subgraph-late-0.2s-postgres-lg0.6.11", tmp_path)
    assert real(runs["async"]) == (8, 0, 0)
    for form in ("recorder", "langgraph", "bare"):
        told = predict(runs["sync"], form)["async"]
        assert figures(told) == (8, 0, 0), form
        assert told.race["checkpoints_kept"] == [8, 9], form
        assert any("ran from the earlier checkpoint of step 1" in u for u in told.used), form


def test_a_copy_less_run_whose_checkpoints_were_lost_may_have_begun_at_silent_tasks(
    tmp_path: Path,
) -> None:
    """The same kill read from the async recording, whose database lost the run's only
    checkpoint (its put landed 10 ms after the kill): nothing shows where the run began. Read
    as begun where ``parent_end`` was due, sync was said to keep 8 and run nothing again; the
    real run began a checkpoint earlier, at ``sub_graph``, which logs nothing here, and sync
    saved its step before ``parent_end`` (9 1 1). Both starts are read, in words
    (`REPLAY_START_UNSURE`)."""
    runs = load("replay_branch_in_subgraph-late-0.2s-postgres-lg0.6.11", tmp_path)
    assert real(runs["sync"]) == (9, 1, 1)
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            told = predict(runs["async"], form, given)["sync"]
            assert holds(told, (9, 1, 1)), (form, given)
            assert holds(told, (8, 0, 0)), (form, given)
    told = predict(runs["async"], "recorder")["sync"]
    assert any(REPLAY_START_UNSURE in u for u in told.assumed)


def test_before_langgraph_0_5_every_subgraph_run_saves_on_its_way_out_under_exit(
    tmp_path: Path,
) -> None:
    """LangGraph 0.4.10 has no durability modes: ``checkpoint_during=True`` puts each step's
    checkpoint in the background (async), ``False`` saves as the run ends (exit), and there
    ``_suppress_interrupt`` saved every subgraph run on its way out (from 0.5 only one that
    raised, paused or was compiled with ``checkpointer=True``). test_interrupt_subgraph's
    shape killed in ``archive`` after the answer: the subgraph run that took it had saved,
    3 kept and ``archive`` alone again, where the plan from async said 2 kept and the
    subgraph's tasks again (2 2 7). send_to_subgraph killed in ``pick_best``: each worker's
    run saved (3 kept, where 0) (`rules.EVERY_RUN_SAVED_ON_EXIT_BEFORE`)."""
    runs = load("interrupt_subgraph-late-0.3s-lg0.4.10", tmp_path)
    assert real(runs["exit"]) == (3, 1, 1)
    for form in ("recorder", "langgraph", "bare"):
        assert holds(predict(runs["async"], form)["exit"], (3, 1, 1)), form
    workers = load("send_to_subgraph-late-0.3s-lg0.4.10", tmp_path)
    assert real(workers["exit"])[0] == 3
    for form in ("recorder", "langgraph", "bare"):
        told = predict(workers["async"], form)["exit"]
        assert holds(told, real(workers["exit"])), form


def test_a_run_that_finished_its_tasks_may_have_left_and_saved_under_exit(
    tmp_path: Path,
) -> None:
    """send_to_subgraph on LangGraph 0.4.10 killed 0.2 s into the second `Send` worker's
    ``generate``: the first worker's run had finished both its tasks, and under exit it left
    and saved (1 kept). Its parent's step never completed, so nothing showed it had left:
    0 was said. Whether a run whose tasks all finished had more due, the evidence does not
    show: the range says both (`outcomes._widen_for_ended_runs`)."""
    runs = load("send_to_subgraph-early-0.3s-lg0.4.10", tmp_path)
    assert real(runs["exit"]) == (1, 5, 8)
    for form in ("recorder", "langgraph", "bare"):
        told = predict(runs["async"], form)["exit"]
        assert told.race["checkpoints_kept"] == [0, 1], form
        assert holds(told, (1, 5, 8)), form


def test_a_root_step_no_database_of_an_ended_invocation_holds_never_completed(
    tmp_path: Path,
) -> None:
    """stateful_subgraph_interrupt on LangGraph 0.4.10 (a node that invokes a
    ``checkpointer=True`` subgraph whose graph pauses; two turns of input and answer), killed
    in the second answer. In the first answer the subgraphs finished, but no mode saved a
    root checkpoint for that invocation: its root step never completed there. From async,
    exit was said to save one as that invocation ended (9 kept where 8); from exit, async to
    have put it (16 where 15). An ended invocation of a sync or async recording whose root
    step the database lacks (`Evidence.puts_kept`), and one of an exit recording whose root
    the database holds nothing of (`Evidence.root_stayed`), did not move on; where the mode
    is inferred, that reading widens the range (`Evidence.puts_unsure`)."""
    runs = load("stateful_subgraph_interrupt-early-0.3s-lg0.4.10", tmp_path)
    assert real(runs["exit"])[0] == 8
    assert real(runs["async"])[0] == 15
    for form in ("recorder", "langgraph", "bare"):
        assert holds(predict(runs["async"], form)["exit"], real(runs["exit"])), form
        # with the mode inferred, async is one candidate: the reading widens the range
        inferred = predict(runs["async"], form, False)["exit"]
        assert holds(inferred, real(runs["exit"])), form
        assert any(u.startswith(PUTS_UNSURE) for u in inferred.assumed), form
    for form in ("recorder", "langgraph"):
        assert holds(predict(runs["exit"], form)["async"], real(runs["async"])), form


def test_a_stable_graph_of_a_thread_run_from_an_earlier_checkpoint_runs_its_input(
    tmp_path: Path,
) -> None:
    """test_stateful_subgraph_loads_latest_after_replay's shape on LangGraph 0.6.11 under
    `ainvoke` with Postgres at 0.35 s a write, killed in the third input's ``sub_step`` (a
    ``checkpointer=True`` subgraph), its run's checkpoints lost under async. The thread had
    been run from an earlier checkpoint, and 0.6.11 saves no copy when it is (the run's first
    checkpoint is a second child of the one it ran from): which of the graph's checkpoints a
    resume loads the database does not tell, and this resume ran the graph's new input:
    ``sub_step`` ran again (read as dropped, 3 verdict lines wrong, the recorded mode's own
    figures a task short) (`evidence.run_from_earlier`)."""
    runs = load("stateful_subgraph_latest_after_replay-late-0.35s-postgres-lg0.6.11", tmp_path)
    measured = real(runs["async"])
    assert measured == (20, 2, 3)
    for form in ("recorder", "langgraph"):
        told = plan(runs["async"], form)
        assert figures(told.what_if["async"]) == measured, form
        sub = [a for a in told.attempts if a.node == "sub_step"][-1]
        assert sub.verdict == "replays", form


def test_a_run_from_before_the_holders_step_carries_no_paused_subgraph_run(
    tmp_path: Path,
) -> None:
    """The same campaign read from its trace, whose spans name ``sub_node`` (the parent task
    that ran the graph): the second input's ``sub_node`` and the replay's ran in the same
    root step, and the replay was a resume by its input. It was read as going on with a
    subgraph run the second input left paused, so that input's step 6 never completed and
    its checkpoint was not counted: one checkpoint short under both other modes (19 kept
    where 20 under async, 23 where 24 under sync). The replay ran from the checkpoint of
    step 4, before the one ``sub_node`` was due in: it runs the holder anew."""
    runs = load("stateful_subgraph_latest_after_replay-late-0.35s-postgres-lg0.6.11", tmp_path)
    for source, target in (("sync", "async"), ("async", "sync")):
        told = predict(runs[source], "trace")[target]
        assert holds(told, real(runs[target], "trace")), (source, target, figures(told))
    assert real(runs["async"], "trace") == (20, 3, 4)


def test_a_node_that_ran_a_graph_is_named_by_the_graphs_namespace(tmp_path: Path) -> None:
    """test_subgraph_checkpoint_true_interrupt's shape on LangGraph 0.2.76 (async, 0.3 s a
    write), killed in the answered invocation: ``node_2`` invokes a ``checkpointer=True``
    graph, which paused. ``node_2`` never finished, so no channel of a checkpoint before
    format v3 bears its name, and its interrupt write's task id was left unnamed: the
    resume was read as starting the graph afresh (its ``__start__`` spans said to run
    again, 5 4 10 where the real resume ran 5 3 8). The graph's namespace, ``node_2``, names
    the node, and its id is the one LangGraph derives from that name
    (`tasks._nodes_named_by_graphs_below`)."""
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    name = "subgraph_invoked_in_node-early-0.3s-lg0.2.76"
    runs = load(name, tmp_path)
    # the database alone names it (no log beside it)
    source = open_source(runs["async"]["db_at_kill"])
    root = load_thread(source, runs["async"]["thread_id"]).root
    assert root is not None and [t.node for t in root.checkpoints[-1].tasks] == ["node_2"]
    told = plan(runs["async"], "trace")
    assert figures(told.what_if["async"]) == real(runs["async"], "trace") == (5, 3, 8)
    assert all(not c.wrong for c in judged(name, tmp_path, ("bare", "trace")))


def test_a_pre_v3_task_no_row_names_is_named_by_the_logs_lines(tmp_path: Path) -> None:
    """test_multiple_interrupts' shape on LangGraph 0.2.76: ``node`` pauses three times and
    never writes a channel of its own name; its pause and answers stood unnamed beside a
    bare log's lines, which were read as lost with two fresh inputs (3 lines said not to
    run again, figures 3 1 4 where the real resume ran 3 1 7). The log names ``node``, and
    the written id is the one LangGraph derives from that name at that checkpoint
    (`tasks.name_from_log`)."""
    name = "multiple_interrupts-early-0.3s-lg0.2.76"
    runs = load(name, tmp_path)
    told = plan(runs["async"], "bare")
    assert figures(told.what_if["async"]) == real(runs["async"]) == (3, 1, 7)
    assert all(not c.wrong for c in judged(name, tmp_path, ("bare",)))


def test_orphan_writes_a_saved_checkpoint_went_on_from_belong_to_a_completed_step(
    tmp_path: Path,
) -> None:
    """test_partial_pending_checkpoint's shape on LangGraph 0.3.34 under exit
    (``checkpoint_during=False``, 0.4 s a write), killed in the answered ``tool_two``: the
    input's ``__start__`` writes were saved, its checkpoint was not, and the checkpoint of
    the step that paused names that one as its parent. Read as orphans of a step that never
    landed, ``__start__``'s spans were said to run again (1 2 5 where the real resume ran
    1 1 3): the loop went on from that checkpoint, so its step completed
    (`align._completed_orphans`)."""
    name = "partial_pending_checkpoint-early-0.4s-lg0.3.34"
    runs = load(name, tmp_path)
    told = plan(runs["exit"], "trace")
    assert figures(told.what_if["exit"]) == real(runs["exit"], "trace") == (1, 1, 3)
    start = [a for a in told.attempts if a.node == "__start__"]
    assert start and all(a.verdict == "kept" for a in start)
    assert all(not c.wrong for c in judged(name, tmp_path, ("bare", "trace")))


def test_a_pause_the_kill_came_after_may_still_have_been_saving_in_another_mode(
    tmp_path: Path,
) -> None:
    """test_multi_resume's shape on LangGraph 0.5.4 under `ainvoke` with Postgres at 0.6 s a
    write, killed 0.6 s after the answered invocation's first ``get_human_input`` started:
    by then every line of the three `Send` workers had ended and the invocation read as
    paused. Exit had saved the pause (the finished worker's writes with it) at once; async
    was still on its way out, its workers' graphs' puts queued, and ran all three workers
    again. Read as a clean pause, exit's recording said async ran nothing again (11 0 0, the
    real run 8 3 14), and async's, clamped, gave exit its own repeats (8 3 14, the real run
    4 2 8): the kill dated after the last line makes each a range
    (`Evidence.pause_moment`)."""
    runs = load("multi_resume-early-0.6s-postgres-lg0.5.4", tmp_path)
    for form in ("recorder", "langgraph", "bare"):
        for source, target in (("exit", "async"), ("async", "exit")):
            told = predict(runs[source], form)[target]
            assert holds(told, real(runs[target])), (form, source, target, figures(told))
    assert real(runs["async"]) == (8, 3, 14) and real(runs["exit"]) == (4, 2, 8)


def test_under_exit_a_run_whose_open_spans_only_waited_may_have_paused_first(
    tmp_path: Path,
) -> None:
    """The same campaign read from async's trace: at the kill the finished worker's
    ``child_graph`` span was still open, waiting for its graph's puts, and the two others had
    paused again. Under exit that span closes at once, so the run may have paused and saved
    (the finished worker's writes with it) before the kill: exit was said to run all three
    workers again (4 6 23, a range 23-24 lines), where it ran the two paused ones (4 4 16)
    (`outcomes._widen_for_exit_pause_before_kill`)."""
    runs = load("multi_resume-early-0.6s-postgres-lg0.5.4", tmp_path)
    for given in (True, False):
        told = predict(runs["async"], "trace", given)["exit"]
        assert holds(told, real(runs["exit"], "trace")), (given, figures(told), told.race)
    assert real(runs["exit"], "trace") == (4, 4, 16)


def test_a_worker_whose_writes_were_saved_as_it_returned_took_its_lines_in_the_killed_process(
    tmp_path: Path,
) -> None:
    """The same campaign from exit's own bare log. Before 0.6, exit's forerunner
    (``checkpoint_during=False``) saves a task's writes as it returns: the first worker
    answered returned in the killed invocation and its caller's writes were saved there. The
    rule that a worker saved on the way out holds no line of the killed process (right from
    0.6 on) gave its two lines to the other workers: 3 of the 4 starts of the class said to
    run again (own figures 4 2 10), where 2 did (4 2 8). The killed process had all three
    workers' lines open at once, more than the two other runs hold: it ran the saved one too
    (`align._ran_a_saved_run`), whose run now takes its finished lines first."""
    name = "multi_resume-early-0.6s-postgres-lg0.5.4"
    runs = load(name, tmp_path)
    assert real(runs["exit"], "bare") == (4, 2, 8)
    assert figures(plan(runs["exit"], "bare").what_if["exit"]) == (4, 2, 8)
    assert all(not c.wrong for c in judged(name, tmp_path))


def test_before_langgraph_0_3_2_the_resuming_flag_reaches_a_graph_a_task_invokes(
    tmp_path: Path,
) -> None:
    """test_stateful_subgraph_namespace_isolation's shape on LangGraph 0.2.76 (async, 0.75 s
    a write), killed in the veggie graph's second run, whose input checkpoint had not landed.
    0.2's loop never drops its resuming flag, so it reaches the `checkpointer=True` graph the
    re-run task invokes, which goes on from its last run's end and drops the new input: the
    resume ran nothing of it. Read as a new run of the graph, ``echo`` was said to run again
    (24 2 3 where 24 1 2; `outcomes._dropped_stable_run`)."""
    name = "stateful_namespace_isolation-early-0.75s-lg0.2.76"
    runs = load(name, tmp_path)
    for form in ("recorder", "bare"):
        told = plan(runs["async"], form)
        assert figures(told.what_if["async"]) == real(runs["async"]) == (24, 1, 2), form
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "bare", "trace")))


def test_a_resume_whose_saved_join_ran_a_step_early_repeats_the_same_nodes(
    tmp_path: Path,
) -> None:
    """test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge's shape on LangGraph
    0.4.10 under `ainvoke` with Postgres at 0.5 s a write, killed in the second round's
    ``retriever_two``. The async save of step 2's checkpoint ran after ``retriever_one``'s
    writes had filled the join's barrier (a set the live channel and the checkpoint share),
    so the database has ``decider`` due there: the resume ran it at step 3, where the run had
    at step 4, and every node after it a step early. The effects of ``decider``,
    ``rewrite_query``, ``analyzer_one`` and ``retriever_two`` happened twice; matched by step
    alone, the measure said nothing ran again (4 0 0), and 28 right verdict lines read as
    wrong (`validate._shifted_reruns`)."""
    name = "join_loop_cond_edge-early-0.5s-postgres-lg0.4.10"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == real(runs["async"], "trace") == (4, 4, 7)
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "bare", "trace")))
    every_prediction_holds(runs, same_progress=True)


def test_a_resume_from_an_earlier_invocations_checkpoint_repeats_none_of_the_killed_one(
    tmp_path: Path,
) -> None:
    """recursion_limit_retry under exit: the first input raised at the recursion limit and
    saved its checkpoint; the second was killed in ``tools`` before anything of it was
    saved. The resume went on with the first input's loop (``tools`` at step 26, ``agent``
    at 27, ...), whose nodes are the killed invocation's too: that is the first input's work,
    not a repeat of the second's (`validate._inside_invocation`), however its steps fall."""
    runs = load("recursion_limit_retry-early-0.25s", tmp_path)
    assert real(runs["exit"]) == real(runs["exit"], "trace") == (1, 0, 0)


def test_validate_names_a_resume_that_raised_and_was_measured_as_far_as_it_got(
    tmp_path: Path,
) -> None:
    """The same 0.4.10 shape killed in ``qa``: the step-4 checkpoint was saved with the
    join's barrier full again, so the resume ran ``decider`` and then ``rewrite_query`` beside
    ``analyzer_one``, both writing ``query``, and raised InvalidUpdateError. What it ran
    before that is what it repeated; the report says the resume raised, so a prediction of a
    whole resume standing off that measure is read for what it is."""
    import shutil

    from replaylens.examples.langgraph_tests import SHAPES
    from replaylens.killtest.corpus import CorpusPoint, report, run_corpus

    name = "join_loop_cond_edge-late-0.5s-postgres-lg0.4.10"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (6, 3, 6)
    out = tmp_path / "judged"
    shutil.copytree(tmp_path / name, out / "join_loop_cond_edge-late-0.5s")
    point = CorpusPoint(SHAPES["join_loop_cond_edge"], 1)
    result = run_corpus([point], [0.5], 1, out, judge_only=True, forms=("recorder",))
    assert result.raised == [
        "join_loop_cond_edge @ qa+0.5u 0.5 s, async-0.5s-qa1-1: InvalidUpdateError: At key "
        "'query': Can receive only one value per step. Use an Annotated key to handle multiple "
        "values."
    ]
    assert "## Resumes that raised, measured as far as they got (1)" in report(result)


def test_a_release_before_durability_modes_says_how_it_runs_each_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LangGraph 0.4.10 has no `durability=`: a run is told ``checkpoint_during`` (True:
    async's way, False: exit's), and there is no sync. The what-if still answers for all
    three, and every place it is shown (the command line, the report, the JSON a page
    reads) says which of them that release runs and how, and that sync is what upgrading
    would give; for today's release it says nothing of the sort."""
    runs = load("join_loop_cond_edge-early-0.5s-postgres-lg0.4.10", tmp_path)
    entry = runs["async"]
    argv = ["replay", str(entry["db_at_kill"]), "--thread", entry["thread_id"]]
    main([*argv, "--langgraph-release", "0.4.10", "--json"])
    doc = json.loads(capsys.readouterr().out)
    outcomes = {m: o["outcome"] for m, o in doc["what_if"]["modes"].items()}
    assert outcomes["async"].endswith("; LangGraph 0.4.10 runs it as checkpoint_during=True")
    assert outcomes["exit"].endswith("; LangGraph 0.4.10 runs it as checkpoint_during=False")
    assert "LangGraph 0.4.10 has no sync mode, which came with LangGraph 0.6" in outcomes["sync"]
    main(["report", *argv[1:], "--langgraph-release", "0.4.10"])
    assert "runs it as checkpoint_during=False" in capsys.readouterr().out
    main([*argv, "--langgraph-release", "1.2.24", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert not any("checkpoint_during" in o["outcome"] or "upgrading" in o["outcome"]
                   for o in doc["what_if"]["modes"].values())  # fmt: skip


def test_an_edit_on_an_older_checkpoint_is_a_branch_though_it_has_no_saved_sibling(
    tmp_path: Path,
) -> None:
    """fork_refires_interrupt on LangGraph 0.4.10 at 0.35 s (round 65 on a release before
    0.6): ``update_state`` on the first pause's checkpoint, the question asked again and
    answered, that run killed in ``ask_human``. In 0.4 a checkpoint's parent is the one the
    loop held, saved or not (0.6 names the last one saved): under exit
    (``checkpoint_during=False``) the final save's parent is a step exit never wrote, so the
    fork has no saved sibling. Read as an edit on the newest checkpoint, the silent run from it (it asked before logging) was lost, and
    async was said to keep 5 and run nothing again, where the real async run kept 6 and ran
    ``ask_human`` again (6 1 1)."""
    runs = load("fork_refires_interrupt-early-0.35s-lg0.4.10", tmp_path)
    assert real(runs["async"]) == (6, 1, 1)
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            told = predict(runs["exit"], form, given)["async"]
            assert holds(told, (6, 1, 1)), (form, given, figures(told))
    for form in ("recorder", "langgraph"):
        assert figures(predict(runs["exit"], form)["async"]) == (6, 1, 1), form
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_paused_node_answered_before_a_run_ended_is_no_pause_the_next_input_answers(
    tmp_path: Path,
) -> None:
    """subgraph_noop_replay_then_input on LangGraph 0.4.10 at 0.35 s, a bare log: the graph
    paused twice (each ask before its first line), was answered twice and ran to its end;
    a second input was killed in its first node, ``step_a``, before anything of it landed.
    The invocation before it holds ``ask_2``, which the database shows paused, so the input
    was taken for the answer to a pause: a resume, certain, and exit was said to run step_a
    again (5 1 1) where the real exit resume ran nothing (5 0 0). That invocation's run had
    returned (its newest root checkpoint has nothing due): ask_2 was answered in it, and the
    pause that ended the one before was the node that begins it. The second input is read
    both ways now; and an invocation that begins with a node the database shows paused is
    the answer, not an input to read both ways."""
    runs = load("subgraph_noop_replay_then_input-early-0.35s-lg0.4.10", tmp_path)
    assert real(runs["exit"]) == (5, 0, 0)
    for given in (True, False):
        told = predict(runs["async"], "bare", given)["exit"]
        assert holds(told, (5, 0, 0)), (given, figures(told))
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_kill_while_the_pause_was_saved_races_the_puts_queued_before_it(
    tmp_path: Path,
) -> None:
    """subgraph_noop_replay_then_input on LangGraph 1.0.10 at 0.3 s a write, killed 0.2 s after
    the second input's ``ask_1`` asked (it asks before it logs): the run was saving its pause.
    From sync, async's subgraph checkpoint where ``ask_1`` was due, queued behind the input
    checkpoint's put, was dated 10 ms after the kill and said lost (11 kept); the real async
    run's landed first (12). A kill while the pause is saved races the puts as any kill does:
    both outcomes are said."""
    runs = load("subgraph_noop_replay_then_input-late-0.3s-lg1.0.10", tmp_path)
    assert real(runs["async"]) == (12, 1, 2)
    for form in ("recorder", "langgraph", "bare"):
        told = predict(runs["sync"], form)["async"]
        assert holds(told, (12, 1, 2)), (form, figures(told), told.race)
        assert "within 50 ms of the kill" in told.race["note"], told.race


def test_a_trace_dates_a_kill_from_the_steps_inside_the_span_still_open(tmp_path: Path) -> None:
    """The same kills read from async's and exit's traces: the span of ``executor``, which ran
    the subgraph, was still open at the kill, and the kill was dated from its start. Sync's
    steps inside it each wait for their put, so the same time after its start fell before
    ``ask_1`` began under sync: the checkpoint where it was due was said lost and ``step_a``
    to run again (12 3 5 and 11 3 5) where the real sync run had saved it (13 2 4). The kill
    came after the last line of the steps inside the span, re-timed with them, and after the
    aimed node started; and the span, its graph paused, closes at once under sync: one more
    line again than the recording wrote."""
    runs = load("subgraph_noop_replay_then_input-late-0.3s-lg1.0.10", tmp_path)
    assert real(runs["sync"], "trace") == (13, 2, 4)
    for src in ("async", "exit"):
        for given in (True, False):
            told = predict(runs[src], "trace", given)["sync"]
            assert holds(told, (13, 2, 4)), (src, given, figures(told), told.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_kill_between_tasks_may_reach_past_the_next_steps_put_under_sync(
    tmp_path: Path,
) -> None:
    """subgraph_noop_replay_then_input on LangGraph 0.6.11 at 0.4 s a write, killed 0.2 s after
    the second input's ``ask_1`` asked, read from exit with the mode inferred: the log ends
    with ``step_a``'s end and nothing dates the kill, taken as up to one task's length after
    it. Under sync the next task began only once its step's put landed, so that much
    progress is that much after the put: the real sync run had saved the pause and ran
    nothing again (13 0 0) where the range stopped at 12 kept."""
    runs = load("subgraph_noop_replay_then_input-late-0.4s-lg0.6.11", tmp_path)
    assert real(runs["sync"]) == (13, 0, 0)
    for form in ("recorder", "langgraph"):
        told = predict(runs["exit"], form, given=False)["sync"]
        assert holds(told, (13, 0, 0)), (form, figures(told), told.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_line_of_a_node_no_id_names_takes_the_unnamed_writes_of_its_step(
    tmp_path: Path,
) -> None:
    """test_command_goto_with_static_breakpoints on LangGraph 1.0.10 at 0.9 s a write: the
    `Command(goto=["node2"])` sent at the breakpoint ran node2 beside node1, then node2 ran
    again and was killed. 1.0.10's store keeps no task path, and node2's first task was made
    due by the Command, not by the checkpoint, so its saved writes name no node. A bare log's
    first node2, due at no checkpoint before it, was read as a run of the later checkpoint
    where node2 was due again, and with the killed one as one task: both said to run again
    (2 lines wrong; own figures 3 1 3 where 3 1 1; async 3 1 3 where 2 1 1). A line that
    ended takes the unnamed writes of the checkpoint it started from."""
    runs = load("command_goto_breakpoint-late-0.9s-lg1.0.10", tmp_path)
    assert real(runs["sync"]) == (3, 1, 1)
    assert figures(predict(runs["sync"], "bare")["sync"]) == (3, 1, 1)
    told = predict(runs["sync"], "bare")
    assert holds(told["async"], real(runs["async"])) and holds(told["exit"], real(runs["exit"]))
    verdicts = {a.lines[0].line: a.verdict for a in plan(runs["sync"], "bare").attempts}
    assert verdicts[2] == "kept" and verdicts[5] == "replays", verdicts
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_bare_call_of_a_graph_invoked_twice_is_placed_in_the_call_that_had_begun(
    tmp_path: Path,
) -> None:
    """test_multiple_subgraphs_mixed_state_graph on LangGraph 0.6.11 at 0.7 s a write, killed
    in ``finish`` after ``call_same_subgraph`` invoked the ``@entrypoint`` ``add`` twice. The
    store keeps no task path, so each call's ``add_task`` result is saved under no name and
    a bare log's two ``add_task`` lines aligned with no task: both were filed under the first
    call, as its steps 1 and 2, and a step of it never put was read as left by raising (a
    `Command(graph=PARENT)`), which exit saves on the way out. From sync and async, exit was
    said to keep 1 to 2 checkpoints where the real exit run kept none (0 3 5). Each line goes
    in the call whose input checkpoint was the last taken before it began, in the step of
    that call's entrypoint: each call's step is then put, and the exit what-if's own figures
    are the real run's. A call counter (``|1``) is no level of nesting either: the range of
    checkpoints a bare log cannot place says one level below the database's one."""
    runs = load("multiple_subgraphs_mixed_state_graph-late-0.7s-lg0.6.11", tmp_path)
    assert real(runs["exit"], "bare") == (0, 3, 5)
    for src in ("sync", "async"):
        for given in (True, False):
            told = predict(runs[src], "bare", given)["exit"]
            assert holds(told, (0, 3, 5)), (src, given, figures(told), told.race)
    assert figures(predict(runs["sync"], "bare")["exit"]) == (0, 3, 5)
    told = predict(runs["sync"], "bare", given=False)["sync"]
    assert "at each of up to 2 level(s)" in told.race["note"], told.race
    assert all(
        not c.wrong
        for c in judged("multiple_subgraphs_mixed_state_graph-late-0.7s-lg0.6.11", tmp_path)
    )
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_fan_out_under_async_may_wait_for_a_worker_the_queued_puts_hold(
    tmp_path: Path,
) -> None:
    """test_in_one_fan_out_state_graph_waiting_edge_via_branch's loop on LangGraph 1.0.10 and
    Postgres at 0.65 s a write, killed in ``qa``. Under async each put queued behind the one
    before holds a worker of the executor the step's tasks run on, waiting there: five puts in
    flight when the second fan-out began left one worker of the six this machine's two CPUs
    give, and ``retriever_two`` started only as ``analyzer_one`` ended. Re-timed from sync,
    whose puts never queue, async kept 4 and ran 7 tasks again where the real run, that much
    later to the kill, kept 5 and ran 6. How many workers a machine has nothing recorded
    shows: the range reaches down to the fewest LangGraph's default executor has."""
    runs = load("join_loop_cond_edge-late-0.65s-postgres-lg1.0.10", tmp_path)
    assert real(runs["async"]) == (5, 6, 11)
    for src in ("sync", "exit"):
        for form in ("recorder", "bare", "trace"):
            told = predict(runs[src], form)["async"]
            assert holds(told, (5, 6, 11)), (src, form, figures(told), told.race)
    assert "worker" in predict(runs["sync"])["async"].race["note"]
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_join_a_later_round_filled_as_the_checkpoint_was_written_stops_the_resume(
    tmp_path: Path,
) -> None:
    """The same loop and kill under `ainvoke`: async's puts queued so far behind that the
    checkpoint a resume loads (the first round's, ``retriever_one`` due and its writes saved)
    was written while the second round's retrievers had filled the join's barrier and
    ``decider`` had not yet run. The resume's arrival changed nothing, ``decider`` never
    fired, and LangGraph ended the thread: the real resume ran nothing (4 0 0). The model
    looked at the join's first firing after the resume only, whose barrier was not full as
    the checkpoint was written, and said 5-7 tasks again; every later firing is looked at now
    (`outcomes._join_cut`), and the range reaches down to the resume that stops at once."""
    runs = load("join_loop_cond_edge-late-0.65s-postgres-lg1.0.10-ainvoke", tmp_path)
    assert real(runs["async"]) == (4, 0, 0)
    for src in ("sync", "exit"):
        for form in ("recorder", "langgraph", "bare", "trace"):
            for given in (True, False):
                told = predict(runs[src], form, given)["async"]
                assert holds(told, (4, 0, 0)), (src, form, given, figures(told), told.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_bare_call_that_logged_before_its_caller_is_not_given_the_callers_result(
    tmp_path: Path,
) -> None:
    """test_imp_nested on LangGraph 1.0.10 and Postgres at 0.65 s a write, killed in the
    answered invocation: in the first, each `mapper` call made a `submapper` call that began
    before `mapper` wrote its first line. A bare log's first line, a `submapper`, found no
    call of that name (the calls below a `mapper` are hashed under its name, which nothing
    had given it yet) and took a `mapper`'s saved result by order; the second `mapper` was
    then read as an unsaved call, running again (2 verdict lines wrong, own figures 1 1 2
    where the real resume ran nothing of them, 1 0 0). A call that made calls is named
    first, by the id a node the log names gives it."""
    name = "imp_nested_interrupt-early-0.65s-postgres-lg1.0.10"
    runs = load(name, tmp_path)
    assert real(runs["sync"]) == (1, 0, 0)
    assert figures(predict(runs["sync"], "bare")["sync"]) == (1, 0, 0)
    assert {a.verdict for a in plan(runs["sync"], "bare").attempts} == {"kept"}
    assert all(not c.wrong for c in judged(name, tmp_path)), "bare verdict lines wrong"
    every_prediction_holds(
        runs, forms=("recorder", "langgraph", "bare", "trace"), same_progress=True
    )


def test_a_bare_line_is_no_task_of_a_run_a_later_invocation_began(tmp_path: Path) -> None:
    """stateful_subgraph_interrupt_async on LangGraph 0.4.10 at 0.55 s a write: two cycles of
    input and answer, each running the stateful graph's ``agent`` once (two runs of one
    subgraph path, one per invocation), killed in the second answer's ``respond``. Read from
    exit's bare log, the first answer's ``respond`` was filed in the second cycle's run, one
    with no task yet, as a run side by side: async was said to keep 19 checkpoints where
    the real run kept 16. A run whose checkpoints were all made after an invocation's last
    line had not begun in it."""
    runs = load("stateful_subgraph_interrupt_async-late-0.55s-lg0.4.10", tmp_path)
    assert real(runs["async"]) == (16, 3, 7)
    for given in (True, False):
        told = predict(runs["exit"], "bare", given)["async"]
        assert holds(told, (16, 3, 7)), (given, figures(told), told.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


def test_a_graph_run_by_a_finished_task_a_re_entered_subgraph_runs_again_runs_again(
    tmp_path: Path,
) -> None:
    """test_parent_command_goto_deeply_nested on LangGraph 1.0.10 under `ainvoke` at 0.35 s a
    write, killed 0.2 s into ``sub_child_3``. Under async ``child_2``'s checkpoint after
    ``sub_child_2``'s step had not landed, so the resume re-entered ``child_2`` where
    ``sub_child_2`` had finished and saved its writes; 1.0.10 runs such a task again (it does
    not hand a re-entered subgraph's saved writes back), and with it the graph it ran:
    ``sub_sub_child``, whose run had left by `Command(graph=PARENT)`, ran again. Its lines
    were said kept ("its graph's run completed inside a durable step"): 8 verdict lines
    wrong across the forms, own figures 8 1 1 where the real resume ran 8 2 3."""
    name = "parent_command_deeply_nested-late-0.35s-lg1.0.10"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (8, 2, 3)
    for form in ("recorder", "langgraph", "bare"):
        assert figures(predict(runs["async"], form)["async"]) == (8, 2, 3), form
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "bare"))), "lines wrong"


def test_on_langgraph_0_6_the_resuming_flag_reaches_a_graph_a_task_invokes(
    tmp_path: Path,
) -> None:
    """test_stateful_subgraph_namespace_isolation's shape on LangGraph 0.6.11 under `ainvoke`
    at 0.5 s a write, killed in the veggie graph's second run. Under async that run's input
    checkpoint had not landed; the resume ran ``call_both`` again with LangGraph's resuming
    flag, which 0.6.11 hands to its first step's tasks as today's release does (the flag was
    read as absent before 1.1.0): the veggie graph went on from its first run's end and
    dropped the new input, its ``echo`` never ran again. From sync and exit async was said
    to run it again (24 2 3 where 24 1 2, 12 rows), and at the recorded mode its lines were
    said to happen again (5 verdict lines wrong across the forms)."""
    name = "stateful_namespace_isolation-early-0.5s-lg0.6.11"
    runs = load(name, tmp_path)
    assert real(runs["async"]) == (24, 1, 2)
    for src in ("sync", "exit"):
        for form in ("recorder", "langgraph", "bare"):
            told = predict(runs[src], form)["async"]
            assert holds(told, (24, 1, 2)), (src, form, figures(told), told.race)
    veggie = [a for a in plan(runs["async"], "recorder").attempts if a.node == "echo"][-1]
    assert veggie.verdict == "kept", veggie.reason
    assert all(not c.wrong for c in judged(name, tmp_path, ("recorder", "bare", "trace")))
    every_prediction_holds(
        runs, forms=("recorder", "langgraph", "bare", "trace"), same_progress=True
    )


def test_a_kill_aimed_after_a_node_that_failed_as_it_started_comes_after_its_step_began(
    tmp_path: Path,
) -> None:
    """test_overwrite_parallel_error's shape on LangGraph 0.6.11 at 0.9 s a write: that
    release has no ``Overwrite``, so ``node_b`` and ``node_c`` fail as they start, before any
    line, in both inputs; the kill was aimed 0.4 s after the second input's ``node_c``
    started. With no line of it, the sync recording was read as raised out (the database
    holds both errors) with no kill moment: async was said to keep the second input's
    checkpoints (6 where its way out was still waiting for their puts: 3), and with the mode
    inferred async was said to keep one under exit. The kill came 0.4 s after the aimed
    node's step began (`evidence._aimed_unlogged_start`), after each mode's waits: under
    sync after the step's put landed, under async at once. From the exit recording, whose
    one checkpoint is the first input's save on its way out, the second input was read as
    raised out, its failure the first's: sync was said to keep 3 where 6 (a fresh input that
    left no checkpoint under exit never got out, `evidence._raise_never_got_out`)."""
    runs = load("overwrite_parallel_error-late-0.9s-lg0.6.11", tmp_path)
    assert (real(runs["sync"]), real(runs["async"]), real(runs["exit"])) == (
        (6, 0, 0),
        (3, 0, 0),
        (1, 0, 0),
    )
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            told = predict(runs["sync"], form, given)
            assert holds(told["async"], (3, 0, 0)), (form, given, figures(told["async"]))
            assert holds(told["exit"], (1, 0, 0)), (form, given, figures(told["exit"]))
            from_async = predict(runs["async"], form, given)["sync"]
            assert holds(from_async, (6, 0, 0)), (form, given, figures(from_async))
            from_exit = predict(runs["exit"], form, given)["sync"]
            assert holds(from_exit, (6, 0, 0)), (form, given, figures(from_exit))


def test_a_bare_join_may_wait_for_the_node_whose_step_began_its_branches(tmp_path: Path) -> None:
    """test_simple_multi_edge's shape (``up -> side | other``, ``add_edge(["up", "side"],
    "down")``) on LangGraph 1.0.10 under `ainvoke` at 0.3 s a write, killed in ``down``.
    Under async the checkpoint a resume loads was written once the join was full: the real
    resume ran nothing again (3 0 0). An exit recording saves nothing before the kill and a
    bare log names no triggers, so the join is guessed from the steps: a node run after a
    step of several tasks may wait for the branches that step began, and now also for the
    node whose step began them (``up``); the guess had named ``other`` and ``side`` only,
    and the range said 1-4 tasks again (`outcomes._possible_joins`)."""
    runs = load("simple_multi_edge-late-0.3s-lg1.0.10", tmp_path)
    assert real(runs["async"], "bare") == (3, 0, 0)
    for given in (True, False):
        told = predict(runs["exit"], "bare", given)["async"]
        assert holds(told, (3, 0, 0)), (given, figures(told), told.race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare"), same_progress=True)


def test_the_what_if_runs_again_a_graph_a_re_entered_subgraphs_finished_task_ran(
    tmp_path: Path,
) -> None:
    """The rule of the test above, in the what-if: test_parent_command_goto_deeply_nested on
    LangGraph 1.0.10 under `ainvoke` at 0.3 s a write, killed 0.2 s into ``sub_child_3``.
    Modelled from the sync and exit recordings, async lost ``child_2``'s checkpoint after
    ``sub_child_2``'s step and re-entered ``child_2`` where that task had finished, but the
    model took its writes, saved as ``sub_sub_child``'s `Command(graph=PARENT)` left, as
    reused: 8 1 1 said where the real resume ran ``sub_sub_child`` again, 8 2 3 (8 rows with
    the mode given). The loop above it is itself a re-entered subgraph, and 1.0.10 runs its
    finished tasks again (`outcomes._runs_again`). The same reading puts the bare exit row
    of the 0.35 s campaign inside (6 1 1 where 8 2 3, outside since stop 70)."""
    runs = load("parent_command_deeply_nested-late-0.3s-lg1.0.10", tmp_path)
    assert real(runs["async"]) == (8, 2, 3)
    for src in ("sync", "exit"):
        for form in ("recorder", "langgraph", "bare"):
            told = predict(runs[src], form)["async"]
            assert holds(told, (8, 2, 3)), (src, form, figures(told), told.race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)
    older = load("parent_command_deeply_nested-late-0.35s-lg1.0.10", tmp_path)
    told = predict(older["exit"], "bare")["async"]
    assert holds(told, real(older["async"], "bare")), (figures(told), told.race)


def test_exits_save_on_the_way_out_of_a_killed_invocation_does_not_bound_async(
    tmp_path: Path,
) -> None:
    """test_overwrite_parallel's shape on LangGraph 0.4.10 at 0.5 s a write, which has no
    ``Overwrite``: node_b fails as it starts, before any line, while node_c runs on (the
    sync loop waits for a thread it cannot cancel) and is killed 0.6 s in. Exit saved the
    step's checkpoint with node_b's ``__error__`` at once on its way out; async still waited
    for that step's put behind the input's, kept the input only and ran node_a again (1 2 3
    where exit 1 1 1). The model of async said 1 2 3, but "async never keeps less than exit"
    took the exit recording's figures for it. Exit's database holds a root checkpoint taken
    after the killed invocation began: its way-out save, which does not bound what async
    repeats (`outcomes.exit_left_before_kill`)."""
    runs = load("overwrite_parallel-early-0.5s-lg0.4.10", tmp_path)
    assert (real(runs["async"]), real(runs["exit"])) == ((1, 2, 3), (1, 1, 1))
    for form in ("recorder", "langgraph", "bare"):
        told = predict(runs["exit"], form, True)["async"]
        assert holds(told, (1, 2, 3)), (form, figures(told))


def test_exit_may_have_saved_on_its_way_out_of_a_raise_the_log_does_not_show(
    tmp_path: Path,
) -> None:
    """The same kill read from async: node_b's failure left no line, only its ``__error__``
    write, an orphan of the step whose checkpoint async had not landed. Exit was said to keep
    nothing and run node_a and node_c again (0 2 3); it had raised as node_b failed and saved
    that step on its way out 0.1 s before the kill (1 1 1). The failure's write dates its
    step, a write's time before the kill: exit's range now reaches up to that save, with
    sync's repeats (`outcomes._widen_for_unlogged_raise`); a trace, which shows node_b's
    failing span, the same."""
    runs = load("overwrite_parallel-early-0.5s-lg0.4.10", tmp_path)
    for form in ("recorder", "langgraph", "bare", "trace"):
        for given in (True, False):
            told = predict(runs["async"], form, given)["exit"]
            assert holds(told, real(runs["exit"], form)), (form, given, figures(told), told.race)
    told = predict(runs["async"], "bare")["exit"]
    assert "on its way out" in told.race["note"], told.race
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))


@pytest.mark.parametrize(
    "name",
    [
        "subgraph_durability_inherited-late-1s-postgres",
        "subgraph_checkpoint_true-late-0.5s-postgres-lg1.2.15",
        "stateful_subgraph_interrupt-early-0.3s-lg0.4.10",
        "stateful_namespace_isolation-early-0.75s-lg0.2.76",
    ],
)
def test_read_without_its_mode_an_async_run_may_be_the_database_as_it_stands(
    name: str, tmp_path: Path
) -> None:
    """Async runs of subgraph shapes read with the mode inferred ("sync or async": steps began
    a moment after each checkpoint was taken). Nothing dates an async store's writes, so the
    async reading was modelled at the what-if's latency only, and its kill moment from the
    log: 7-10 checkpoints kept where the database, and the real resume, kept 6 (the run at
    1 s on Postgres; 13 of the 2,776 predictions with the mode inferred for the mode each
    run was recorded under were outside). Recorded as async at the what-if's latency, a
    resume keeps the database as it stands: the async range reaches it."""
    runs = load(name, tmp_path)
    for form in ("recorder", "langgraph", "bare"):
        told = predict(runs["async"], form, False)["async"]
        assert holds(told, real(runs["async"], form)), (form, figures(told), told.race)


def test_read_without_its_mode_a_sync_run_at_this_latency_is_the_database_as_it_stands(
    tmp_path: Path,
) -> None:
    """test_send_to_subgraph's shape on LangGraph 1.1.10 under `ainvoke` at 0.85 s a write,
    killed under sync in the second `generate`, read from a bare log without its mode. The
    waits show sync at 0.857 s a write (the median gap less one tick keeps the write's own
    cost), so sync at the what-if's 0.85 s was modelled, not read: 12 kept and 1 task again,
    where the database, and the real resume, kept 10 and ran 3 again (the only one of 264
    predictions of that set, for the mode each run was recorded under, outside). Waits that
    are this latency within what they can tell may be it: the sync range reaches the database
    as it stands (`outcomes._recorded_at_this_latency`)."""
    runs = load("send_to_subgraph-early-0.85s-lg1.1.10", tmp_path)
    assert real(runs["sync"], "bare") == (10, 3, 5)
    told = predict(runs["sync"], "bare", False)["sync"]
    assert holds(told, (10, 3, 5)), (figures(told), told.race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def test_read_without_its_mode_an_async_run_an_exit_run_could_have_left_is_kept_as_it_stands(
    tmp_path: Path,
) -> None:
    """test_imp_nested_interrupt's shape at 1.1 s a write, killed under async in the answered
    invocation's nested entrypoint, read from a bare log without its mode. Nothing ruled a
    mode out ("sync or async or exit": no step of the log follows a saved checkpoint), and the
    database as it stands (one checkpoint, `mynode` again) was taken as exit's: async was
    modelled only, and said to run nothing again (1 0 0), where the real resume ran `mynode`
    again (1 1 2). Where async is left beside exit, unless only on a store slower than the
    what-if's, its range reaches the database as it stands
    (`outcomes._recorded_at_this_latency`, `Inference.async_slower_than`)."""
    runs = load("imp_nested_interrupt-late-1.1s", tmp_path)
    assert real(runs["async"], "bare") == (1, 1, 2)
    for form in ("recorder", "bare"):
        told = predict(runs["async"], form, False)["async"]
        assert holds(told, real(runs["async"], form)), (form, figures(told), told.race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def test_async_on_a_store_faster_than_the_evidence_allows_is_not_the_database_as_it_stands(
    tmp_path: Path,
) -> None:
    """test_in_one_fan_out_state_graph_defer_node's shape at 0.5 s a write, the exit recording
    read without its mode: the killed invocation finished steps and left no checkpoint, which
    is exit, or async only on a store slower than those steps took. At the what-if's 0.5 s
    an async store would have landed their checkpoints, so the database as it stands (none
    kept) is not an async reading here: the async range stays at 2 kept and up, as the real
    async run (`Inference.async_slower_than`)."""
    runs = load("defer_node-late-0.5s", tmp_path)
    told = predict(runs["exit"], "recorder", False)["async"]
    assert holds(told, real(runs["async"])), (figures(told), told.race)
    assert told.race["checkpoints_kept"][0] == 2, told.race


def test_a_subgraphs_save_on_its_way_out_is_taken_out_where_the_next_step_logs_nothing(
    tmp_path: Path,
) -> None:
    """test_subgraph_durability_inherited's shape on LangGraph 0.4.10 at 0.8 s a write, killed
    in the second run of ``inner`` under exit. Before 0.5 exit saves every subgraph run on its
    way out, so the second run began 0.83 s after the first ended. The parent's steps log
    nothing of their own, and the model's start of the next one, a tick after the run's end,
    was taken for its real start: the wait stayed in the timeline as work, and async was
    said to have landed the parent's step after the first run (7 kept where the real async
    run kept 6). Where the parent's next step logs nothing, the save runs to the next run's
    first line (`schedule._stable_exit_waits`, `_logs_own`)."""
    runs = load("subgraph_durability_inherited-late-0.8s-lg0.4.10", tmp_path)
    assert real(runs["async"]) == (6, 2, 3)
    for form in ("recorder", "langgraph"):
        told = predict(runs["exit"], form)["async"]
        assert holds(told, (6, 2, 3)), (form, figures(told), told.race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def test_two_nodes_subgraphs_wait_for_their_own_puts_side_by_side(tmp_path: Path) -> None:
    """test_parallel_stateful_subgraphs_replayed's shape on LangGraph 1.0.10 at 0.45 s a
    write, killed 0.6 s into ``sub_b_step`` in the third invocation. The step runs two nodes
    that each run a subgraph: under sync each subgraph's loop waits for its own two puts in
    its own thread, at the same time as the other's, so both steps' checkpoints had landed
    by the kill (25 kept). One clock for the whole thread put the second loop's puts after
    the first's waits (24 kept where 25). The loops take a clock each (`schedule._LaneClock`,
    `_nodes_overlap`), a loop's waits of its earlier runs held by its parent's join only."""
    # (the second recorded after the fix, under `ainvoke` on 1.1.10 at 0.7 s: the model
    # before it said 25 where the real sync run kept 26)
    for name, kept in (("0.45s-lg1.0.10", 25), ("0.7s-lg1.1.10", 26)):
        runs = load(f"parallel_stateful_subgraphs_replayed-late-{name}", tmp_path)
        assert real(runs["sync"]) == (kept, 2, 3)
        for form in ("recorder", "langgraph"):
            told = predict(runs["async"], form)["sync"]
            assert holds(told, (kept, 2, 3)), (name, form, figures(told), told.race)
        every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def test_read_without_its_mode_an_async_run_certain_may_still_be_the_database_as_it_stands(
    tmp_path: Path,
) -> None:
    """test_unsaved_subgraph_async's shape on LangGraph 1.0.10, Postgres at 0.3 s a write,
    killed in the second ``call_inner``: the evidence leaves async alone (a step started
    without the previous step's checkpoint; checkpoints saved while the killed invocation
    ran), but nothing dates its store. The step's checkpoint had not landed 0.85 s after it
    was taken, though the model lands it at 0.31 s: the store was slower than its nominal
    latency, and the database as it stands (4 kept) is async's reading at this latency too.
    Read without its mode the async what-if said 5-7 kept, where the real run kept 4."""
    runs = load("unsaved_subgraph_async-late-0.3s-postgres-lg1.0.10", tmp_path)
    assert real(runs["async"]) == (4, 2, 3)
    for form in ("recorder", "langgraph", "bare", "trace"):
        told = predict(runs["async"], form, given=False)["async"]
        assert holds(told, real(runs["async"], form)), (form, figures(told), told.race)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)
