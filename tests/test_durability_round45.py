"""The what-if on the forty-fifth held-out round: the builder's default error handler
(``StateGraph.set_node_defaults(error_handler=...)``, test_retry.py), one handler node,
``__default_error_handler__``, for every node.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, judged, load, plan, predict, real


def test_the_default_handler_takes_a_failure_without_ending_the_invocation(
    tmp_path: Path,
) -> None:
    """Two fresh inputs; in the first, fail_a fails twice (RetryPolicy) and the default
    handler takes it and routes to report; the second is killed in fail_b's retry. The
    handler had not been read as one: fail_a's failure ended the first invocation, and the
    handler's run was taken for another invocation, which exit saves again (exit 2 kept,
    where the real exit run kept the first input's one end, 1). Its lines run in fail_a's
    step, not in a subgraph of fail_a (LangGraph hands it ``fail_a:<id>|
    __default_error_handler__:<id>``)."""
    runs = load("default_error_handler-early-0s", tmp_path)
    assert real(runs["exit"]) == (1, 0, 0)
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            assert figures(predict(runs["sync"], form, given)["exit"]) == (1, 0, 0), (form, given)
    handler = [a for a in plan(runs["sync"]).attempts if a.node == "__default_error_handler__"]
    assert [(a.namespace or "", a.step) for a in handler] == [("", 2)]
    every_prediction_holds(runs, same_progress=True)
    for form in ("recorder", "langgraph", "bare"):
        assert all(not c.wrong for c in judged("default_error_handler-early-0s", tmp_path, (form,)))


def test_the_checkpoint_names_the_default_handler_its_writes_carry(tmp_path: Path) -> None:
    """A handled failure's handler task is LangGraph's own: its id hashes the handler's node
    name. The saved handler's writes carry the default handler's id, so the task is that one,
    and no node's own handler (``__error_handler__fail_a``, which this graph does not have)
    is made up beside it as a task still due."""
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    entry = load("default_error_handler-early-0s", tmp_path)["sync"]
    source = open_source(entry["db_at_kill"])
    try:
        thread = load_thread(source, entry["thread_id"])
    finally:
        source.close()
    failed_step = next(c for c in thread.root.checkpoints if c.step == 1)
    assert [(t.node, t.status) for t in failed_step.tasks] == [
        ("fail_a", "handled"),
        ("__default_error_handler__", "finished"),
    ]


def test_a_silent_replay_owns_what_exit_saved_before_its_copy(tmp_path: Path) -> None:
    """stateful_subgraph_replay_then_resume at 0.25 s a write: two answered inputs, then a run
    from the newest checkpoint where sub_node was due, whose subgraph asks before logging
    anything, then the answer, killed in step_a. Under exit the run from the earlier
    checkpoint saved its copy of it only as it stopped at the question, after the
    subgraph's checkpoint of that pause: that checkpoint is the silent run's, not the
    previous input's end. Read as the previous input's, the answer's run was given a
    subgraph run of its own (sync 20 kept, async 18 and nothing again, where sync kept 19);
    with full logs every mode now holds what the real runs measured."""
    runs = load("stateful_subgraph_replay_then_resume-early-0.25s", tmp_path)
    assert real(runs["sync"]) == (19, 1, 1)
    for form in ("recorder", "langgraph"):
        for given in (True, False):
            outcomes = predict(runs["exit"], form, given)
            assert figures(outcomes["sync"]) == (19, 1, 1), (form, given)
            assert figures(outcomes["async"]) == (19, 1, 1), (form, given)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_an_error_handler_is_no_task_queued_behind_its_failure(tmp_path: Path) -> None:
    """error_handlers_per_node, killed 0.5u into fail_b's handler in the second input. The
    handler starts the moment fail_b's failure is put; it had been read as a task queued
    behind fail_b on a busy executor (a wave of `max_concurrency`), whose writes wait for a
    free worker: from the exit recording, sync and async ran fail_b again as well (2 tasks,
    3 lines, where the real sync run ran the handler alone). The plan no longer calls the
    handled failures caught calls the process went on from."""
    runs = load("error_handlers_per_node-late-0s", tmp_path)
    assert real(runs["sync"]) == (7, 1, 1)
    for form in ("recorder", "langgraph"):
        for given in (True, False):
            outcomes = predict(runs["exit"], form, given)
            assert figures(outcomes["sync"]) == figures(outcomes["async"]) == (7, 1, 1)
            assert [r["node"] for r in outcomes["sync"].reruns] == ["__error_handler__fail_b"]
    used = " ".join(plan(runs["exit"]).what_if["sync"].used)
    assert "went on from at once" not in used
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
