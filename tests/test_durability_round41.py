"""The what-if on the forty-first held-out round: graphs awaited inside an ``async def`` node
(test_subgraph_persistence_async.py): a ``checkpointer=True`` graph across pause cycles, and
a graph compiled with ``checkpointer=False``, which saves nothing.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, judged, load, predict, real


def test_a_node_whose_graph_paused_is_the_task_still_due(tmp_path: Path) -> None:
    """stateful_subgraph_interrupt (round 13's graph, the sync twin of round 41's), a bare log
    under exit: call_inner logs, then invokes a graph that pauses; the invocation's save on
    its way out has call_inner still due. Its lines (9 and 10) are that task, which the
    answer ran again and the resume after the kill runs again too; they had been read as a
    step whose checkpoint was never saved but whose result a later one holds (not again)."""
    runs = load("stateful_subgraph_interrupt-early-0s", tmp_path)
    checks = {c.mode: c for c in judged("stateful_subgraph_interrupt-early-0s", tmp_path)}
    assert checks["exit"].lines == 13
    assert checks["exit"].wrong == [] and checks["exit"].right == 13
    assert all(not c.wrong for c in checks.values())
    every_prediction_holds(runs)


def test_a_graph_compiled_without_a_checkpointer_saves_nothing(tmp_path: Path) -> None:
    """unsaved_subgraph_async, killed in call_inner of the second input: echo's graph
    (``checkpointer=False``) logged lines under a namespace of its own in the first input and
    saved nothing, though async saves a graph's steps: from the async recording no mode keeps
    a checkpoint of it (exit 1, where 2 had been predicted). Under exit a subgraph that
    returned saves nothing either, so from the exit recording the model takes it for a graph
    that saves, as subgraphs do unless compiled so (async 8), says so, and the range covers
    the other reading (5 to 8, with the mode given or inferred; 8 alone had been outside).
    Under sync LangGraph 1.2.24 fails that
    graph (it inherits durability="sync" and waits for a put it never made), so the sync run
    got less far and is compared with no other."""
    from replaylens.killtest.corpus import run_progress

    runs = load("unsaved_subgraph_async-early-0s", tmp_path)
    assert real(runs["async"]) == (5, 1, 1) and real(runs["exit"]) == (1, 0, 0)
    for form in ("recorder", "langgraph", "bare"):
        assert figures(predict(runs["async"], form)["exit"]) == (1, 0, 0), form
        for given in (True, False):
            for src in ("sync", "async"):
                outcomes = predict(runs[src], form, given)
                for target, r in runs.items():
                    if run_progress(r) == run_progress(runs[src]):
                        assert holds(outcomes[target], real(r)), (src, form, given, target)
    for form in ("recorder", "langgraph"):
        for given in (True, False):
            async_ = predict(runs["exit"], form, given)["async"]
            assert holds(async_, (5, 1, 1)), (form, given)
            assert async_.race["checkpoints_kept"] == [5, 8], (form, given)
            assert "checkpointer=False" in async_.race["note"], (form, given)
        assumed = " ".join(predict(runs["exit"], form)["async"].assumed)
        assert "taken as a graph that saves" in assumed


def test_an_earlier_run_of_that_node_is_not_the_task_still_due(tmp_path: Path) -> None:
    """The same database, with a log written by hand as a user might: call_inner logged twice
    in the second input's process before the pause (a node that ran once, then again in a
    later step). Only the later run is the task still due at the invocation's save; the
    earlier one ran in a step that completed, and a resume does not run it again."""
    import json

    from whatif_kills import plan

    entry = load("stateful_subgraph_interrupt-early-0s", tmp_path)["exit"]
    lines = [json.loads(x) for x in Path(entry["effects_at_kill"]).read_text().splitlines()]
    second_input = lines[8:10]  # call_inner start and end, the paused run
    earlier = [{**x, "ts": x["ts"] - 1.0, "task_id": None, "step": None} for x in second_input]
    edited = lines[:8] + earlier + lines[8:]
    log = tmp_path / "by-hand.jsonl"
    bare = [{k: x[k] for k in ("thread_id", "node", "phase", "ts", "pid")} for x in edited]
    log.write_text("".join(json.dumps(x) + "\n" for x in bare))
    attempts = {a.lines[0].line: a for a in plan({**entry, "effects_at_kill": str(log)}).attempts}
    assert (attempts[9].node, attempts[11].node) == ("call_inner", "call_inner")
    assert attempts[9].verdict == "kept" and attempts[9].task is None
    assert attempts[11].verdict == "replays" and attempts[11].task is not None
