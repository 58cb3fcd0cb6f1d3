"""The what-if on the seventeenth held-out round: a `DeltaChannel` state (LangGraph 1.2) over
three turns, and a `checkpointer=True` graph entered again after a pause, paused again.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, predict, real


def test_a_delta_channel_thread_keeps_a_stub_under_exit(tmp_path: Path) -> None:
    """delta_channel_turns, killed in `respond` of the third turn. Under exit each finished
    turn saved its end, and the first one also the stub checkpoint LangGraph saves to anchor
    the `DeltaChannel` writes when the loop had none to load (step -2, no parent): 3
    checkpoints, not 2. The sync and async databases name the delta channel in their
    checkpoints' metadata, which is how the what-if knows."""
    runs = load("delta_channel_turns-early-0s", tmp_path)
    assert real(runs["exit"]) == (3, 0, 0)
    for src in ("sync", "async"):
        for form in ("recorder", "bare"):
            assert figures(predict(runs[src], form)["exit"]) == (3, 0, 0), (src, form)
    every_prediction_holds(runs)


def test_a_node_answered_then_paused_again_before_logging_is_not_the_paused_run(
    tmp_path: Path,
) -> None:
    """subgraph_reenter_interrupt: subnode_2 (in a `checkpointer=True` graph) is answered and
    logs in the second invocation; the parent sends the thread back into the graph, whose
    subnode_2 pauses again before logging; the kill lands in subnode_2 after the second
    answer. A bare log names nodes only: its second-invocation subnode_2 had been read as
    the paused run, re-run by the third (a step that never completed: 7 checkpoints, 3
    tasks, 7 lines under sync). The graph's checkpoint after that step, which no longer has
    subnode_2 due, says it completed: sync keeps 11, call_subgraph and subnode_2 run again
    (5 lines), as measured, from every recording."""
    runs = load("subgraph_reenter_interrupt-early-0s", tmp_path)
    assert real(runs["sync"]) == (11, 2, 5) and real(runs["exit"]) == (5, 2, 5)
    for src, target in (("sync", "exit"), ("exit", "sync"), ("async", "sync")):
        assert figures(predict(runs[src], "bare")[target]) == real(runs[target]), (src, target)
    every_prediction_holds(runs)


def test_the_recorded_mode_from_a_bare_log_holds_what_the_run_measured(tmp_path: Path) -> None:
    """The what-if at the recorded mode heads every view of a thread; `validate` now judges it
    against the run's own measured figures. From bare logs it had said: 2 tasks again for
    max_concurrency_send's exit run, whose four `Send` workers started in waves (a worker
    taking the place of one that finished reads as one task's next effect; 4 ran again);
    the same for the two graphs parent_command_nested's node invokes one after the other
    (2 for 3); and stateless_subgraph_interrupts' paused task twice, once per run of its
    subgraph (2 for 1). The joined readings are now a range, and one task id is one task."""
    cases = {
        "max_concurrency_send-early-0s": ((0, 4, 6), [2, 4]),
        "parent_command_nested-early-0s": ((0, 3, 5), [2, 3]),
        "stateless_subgraph_interrupts-early-0s": ((5, 1, 5), None),
    }
    for name, (measured, span) in cases.items():
        runs = load(name, tmp_path / name)
        assert real(runs["exit"]) == measured, name
        outcome = predict(runs["exit"], "bare")["exit"]
        assert holds(outcome, measured), (name, figures(outcome), outcome.race)
        assert (outcome.race or {}).get("reruns") == span, name


def test_a_lost_fresh_input_is_said_as_lost_never_as_nothing_again(tmp_path: Path) -> None:
    """delta_channel_turns' exit run, killed in the third turn: exit saved nothing of that
    turn, so the database holds the second turn, completed, and a resume runs nothing. The
    page had said it in green, "This thread completed; a resume would run nothing", the
    reassuring answer, while the third input's work was lost. The headline now says the input
    was lost and must be sent again; each mode that loses it says so in its sentence, in the
    warning tone, and in `--json` (`lost_input`); sync, which kept the turn's input, does not."""
    from replaylens.analysis.again import outcome_tone
    from replaylens.examples.langgraph_tests import form_log
    from replaylens.killtest.validate import manifest_recording, plan_for

    runs = load("delta_channel_turns-early-0s", tmp_path)
    entry = runs["exit"]
    rec = manifest_recording(entry, float(entry["kill_delay"]), "respond")
    plan = plan_for(entry, str(form_log(entry["effects_at_kill"], "recorder")), rec)
    assert plan.status == "completed" and not plan.replayed_lines
    assert plan.verdict_sentence().startswith("The run killed here was a fresh input")
    exit_outcome = plan.what_if["exit"]
    assert exit_outcome.lost_input and exit_outcome.to_json()["lost_input"] is True
    assert "would never run it (sending that input again would)" in exit_outcome.sentence
    assert outcome_tone(plan, "exit") == "warning"
    assert not plan.what_if["sync"].lost_input
    assert plan.input_lost and plan.to_json()["input_lost"] is True
    # the timeline draws the turn's killed task as lost, not in the green of "kept"
    from replaylens.analysis.status import load_thread
    from replaylens.figures.colors import VERDICT, VERDICT_WORDS
    from replaylens.figures.timeline import build_timeline_data
    from replaylens.sources import open_source

    source = open_source(entry["db_at_kill"])
    try:
        thread = load_thread(source, entry["thread_id"])
    finally:
        source.close()
    bars = build_timeline_data(thread, plan, "exit").bars
    killed = [b for b in bars if b.in_flight]
    assert killed and all(b.category == VERDICT_WORDS["lost"] for b in killed), killed
    assert all(b.color == VERDICT["lost"] for b in killed)
    assert any(b.category == VERDICT_WORDS["kept"] for b in bars)  # the earlier turns' tasks
