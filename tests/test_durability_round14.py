"""The what-if on the fourteenth and fifteenth held-out rounds: a graph built on `Pregel`
itself (its own channels, another Pregel mapped over an inbox in one node), two
`checkpointer=True` graphs invoked one after another in one node across two invocations,
and a static breakpoint inside a graph a node invokes.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_a_pregel_on_its_own_channels_is_never_called_completed_mid_run(
    tmp_path: Path,
) -> None:
    """pregel_map_subgraph (a raw Pregel: one -> two, which maps an inner Pregel over its
    inbox, -> chain_three), killed while both inner calls ran. The checkpoint a resume loads
    has `two` due, but nothing in the database says so: `two` subscribes to `inbox_one`
    by how the graph was built, and it never ran. The thread was read as completed ("a
    resume would run nothing") where the resume ran both inner calls again; now the
    status is unknown, the sentence says why, and the two inner calls run again in every
    view and mode that keeps the step before them."""
    from replaylens.analysis.status import load_thread, thread_status, unknown_reason
    from replaylens.sources import open_source

    runs = load("pregel_map_subgraph-early-0s", tmp_path)
    assert real(runs["sync"]) == (4, 2, 2) and real(runs["exit"]) == (0, 3, 4)
    source = open_source(runs["sync"]["db_at_kill"])
    try:
        thread = load_thread(source, runs["sync"]["thread_id"])
    finally:
        source.close()
    assert thread_status(thread) == "unknown"
    assert "'inbox_one'" in unknown_reason(thread.root.latest)
    from replaylens.dashboard.views import checkpoints_frame  # the Thread page's table

    assert list(checkpoints_frame(thread.root)["next tasks"])[-1].startswith("unknown")
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    assert figures(predict(runs["exit"])["sync"]) == (4, 2, 2)


def test_a_pregel_loop_without_start_step_waits_for_nothing_before_its_first_task(
    tmp_path: Path,
) -> None:
    """pregel_map_subgraph on a 0.25 s store: each inner Pregel's first task logs step 0 (no
    `__start__` step), so under sync it began right after its input checkpoint was submitted,
    not after two waited writes. Re-timed for async from the sync recording, the two inner
    input checkpoints are submitted as the inner calls begin, 0.2 s before the kill: neither
    landed, nor the root's step, and 1 checkpoint was kept, as measured."""
    runs = load("pregel_map_subgraph-early-0.25s", tmp_path)
    assert real(runs["async"])[0] == 1
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    assert figures(predict(runs["sync"])["async"]) == real(runs["async"])


def test_a_stateful_graph_whose_new_run_saved_nothing_drops_it_on_a_resume(
    tmp_path: Path,
) -> None:
    """stateful_namespace_isolation on a 0.25 s store, killed in veggie's `echo` of the
    second invocation. Under async the veggie graph's second run had saved nothing yet: the
    resume re-runs call_both, whose veggie.invoke() goes on (LangGraph's resuming flag) from
    the first run's end, where nothing is due, and drops the new input: call_both again
    (1 task, 2 lines), echo never (its work is lost, not repeated). Under sync that run's
    input and first step had landed (its loop waited for them before the echo began), so
    echo runs again (2 tasks, 3 lines, 28 checkpoints). The async recording's own verdicts
    say the same."""
    runs = load("stateful_namespace_isolation-early-0.25s", tmp_path)
    assert real(runs["async"]) == (24, 1, 2) and real(runs["sync"]) == (28, 2, 3)
    assert figures(predict(runs["sync"])["async"]) == (24, 1, 2)
    assert figures(predict(runs["exit"])["sync"]) == (28, 2, 3)
    assert figures(predict(runs["async"])["async"]) == (24, 1, 2)  # the verdicts, as recorded
    # under exit, fruit's second run had returned (the node invoked veggie after it): saved
    assert real(runs["exit"]) == (4, 0, 0) and figures(predict(runs["sync"])["exit"]) == (4, 0, 0)


def test_two_stateful_graphs_of_one_node_each_save_their_run_under_exit(tmp_path: Path) -> None:
    """stateful_namespace_isolation killed in `finish` of the second invocation: under exit
    each stateful graph saved the end of each of its runs, the second invocation's too (the
    node invoked veggie after fruit, and the parent went on to `finish` after both): 5
    checkpoints with the first invocation's end. Neither graph logs a line of its own."""
    runs = load("stateful_namespace_isolation-late-0s", tmp_path)
    assert real(runs["exit"]) == (5, 0, 0)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
    assert figures(predict(runs["sync"])["exit"]) == (5, 0, 0)


def test_a_breakpoint_no_write_shows_makes_the_next_start_a_restart(tmp_path: Path) -> None:
    """weather_subgraph (round 15): weather_graph logs, then invokes a subgraph compiled with
    interrupt_before=["weather_node"], which pauses the thread with no write at all; the
    kill lands 0.5 units into weather_graph after `invoke(None)`. Its task is the one that
    paused, run again from its top, so both of its earlier lines count again (3 lines under
    sync). A bare log names nodes only: the database's root checkpoint, with weather_graph
    due and no write, taken before the second invocation began, tells that it stopped there,
    even from the exit database (one checkpoint)."""
    runs = load("weather_subgraph-early-0s", tmp_path)
    assert real(runs["sync"]) == (6, 1, 3)
    every_prediction_holds(runs)
    assert figures(predict(runs["exit"], "bare")["sync"]) == (6, 1, 3)
