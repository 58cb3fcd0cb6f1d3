"""The what-if on the twenty-fourth held-out round: a failure inside a subgraph that the
parent node's error handler takes (test_pregel_async.py::
test_node_error_handler_handles_subgraph_internal_failure_async), on LangGraph's async loop.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_a_failure_raised_out_of_a_subgraph_saves_it_under_exit(tmp_path: Path) -> None:
    """error_handler_subgraph_async, killed in the parent's error handler: sub_fail_node
    raised inside the subgraph, the raise left the subgraph's loop, and subgraph_node's
    handler took it. Under exit the subgraph's loop saved its last checkpoint on the way out,
    with the failure's write (``_suppress_interrupt`` saves a nested loop leaving with an
    exception), before the kill: 1 kept, where none had been predicted. The failure had been
    read as handled inside its own task (the process went on at once, with the handler)."""
    runs = load("error_handler_subgraph_async-early-0s", tmp_path)
    assert real(runs["exit"]) == (1, 3, 5) and real(runs["sync"]) == (5, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (1, 3, 5), src
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_a_subgraph_step_a_failure_left_is_never_saved(tmp_path: Path) -> None:
    """The same graph, killed in report after the handler: the subgraph's failed step never
    completed (the raise left its loop), so no checkpoint follows it, though the failure ended
    no invocation (the parent's handler took it). Read as a failure retried in its step, that
    step had been given a checkpoint: 7 predicted under sync from the exit recording, where 6
    were kept."""
    runs = load("error_handler_subgraph_async-late-0s", tmp_path)
    assert real(runs["sync"]) == (6, 1, 1)
    assert figures(predict(runs["exit"])["sync"]) == (6, 1, 1)
    assert figures(predict(runs["exit"], "langgraph", given=False)["async"]) == (6, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_an_error_handler_waits_for_the_loop_the_failure_left(tmp_path: Path) -> None:
    """On a slow store (0.25 s), killed in the handler: an error handler starts once the
    failure's writes landed and, for a failure raised out of a subgraph, once that graph's
    loop left (waiting for its last put in flight under async, saving it under exit). Re-timed
    from the sync recording without that wait, the handler began at once under async, the
    kill came before the subgraph's puts had landed, and async was predicted to keep 2
    checkpoints and run the subgraph's nodes again (2 3 5, where it kept 5 and ran the
    handler alone)."""
    runs = load("error_handler_subgraph_async-early-0.25s", tmp_path)
    assert real(runs["async"]) == (5, 1, 1)
    assert figures(predict(runs["sync"])["async"]) == (5, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_the_handlers_wait_delays_the_puts_after_it(tmp_path: Path) -> None:
    """The same kill half a unit into report: the handler's wait moves the puts after it (the
    root's checkpoint after the handler's step) as it moves the kill. Added after those puts
    were timed, it had left that checkpoint landing before the kill under async (6 1 1, where
    async kept 5 and ran the handler and report again)."""
    runs = load("error_handler_subgraph_async-late-0.25s", tmp_path)
    assert real(runs["async"]) == (5, 2, 3) and real(runs["sync"]) == (6, 1, 1)
    for src in ("sync", "exit"):
        assert figures(predict(runs[src])["async"]) == (5, 2, 3), src
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
