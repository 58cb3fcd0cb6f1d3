"""The what-if on the sixth held-out round: two graphs invoked by one node, and a subgraph the
parent's loop runs twice.

Each test judges the model against real SIGKILLs and real resumes recorded in
`tests/whatif_kills/` (`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them
again). The rules are in `namespaces.py` and `analysis/durability`; each docstring there
names the LangGraph source it follows.
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real

from replaylens.killtest.validate import measure_detail

FULL = ("recorder", "langgraph")


def test_the_second_graph_a_node_invokes_is_resumed_beside_the_first(tmp_path: Path) -> None:
    """multiple_subgraphs_checkpointer, killed in the second input while parent_node's second
    graph (namespace ``parent_node:<id>|1``) ran: a sync or async resume re-enters that
    graph and runs other_subgraph_node again (1 task, 1 line), the first graph's run
    (``checkpointer=True``) having returned; under exit the second input was lost with
    nothing of its root saved, and the resume runs nothing."""
    runs = load("multiple_subgraphs_checkpointer-early-0s", tmp_path)
    assert real(runs["sync"]) == (17, 1, 1) and real(runs["exit"]) == (3, 0, 0)
    again = measure_detail(runs["sync"])[1] or set()
    assert {(key[0][0], key[0][1]) for key in again} == {("parent_node~1", "other_subgraph_node")}
    every_prediction_holds(runs, FULL)
    sync = predict(runs["async"])["sync"]
    assert [(r["node"], r["checkpoint_ns"]) for r in sync.reruns] == [
        ("other_subgraph_node", "parent_node~1")
    ]


def test_a_kill_between_tasks_is_a_kill(tmp_path: Path) -> None:
    """The same shape at 0.25 s: the async kill landed after subgraph_node ended, while its
    graph's last put was still being waited for, so no task was in flight. The database still
    had parent_node due: the invocation was killed, not returned, and exit's save of that
    ``checkpointer=True`` run had not landed (2 kept)."""
    runs = load("multiple_subgraphs_checkpointer-early-0.25s", tmp_path)
    assert real(runs["async"]) == (14, 0, 0) and real(runs["exit"]) == (2, 0, 0)
    every_prediction_holds(runs, FULL, same_progress=True)
    assert predict(runs["async"])["async"].ending == "killed"


def test_a_subgraph_the_loop_runs_twice_is_two_loops(tmp_path: Path) -> None:
    """subgraph_durability_inherited, killed in inner_2 of the loop's second round: the
    subgraph's second run starts afresh under its new task's namespace, so a sync resume
    re-runs inner_2 only (10 checkpoints kept: 3 of the root, 4 of the first run, 3 of the
    second), and the measurement does not count the second round's inner_1 as a repeat of
    the first round's."""
    runs = load("subgraph_durability_inherited-late-0s", tmp_path)
    assert real(runs["sync"]) == (10, 1, 1) and real(runs["exit"]) == (0, 4, 7)
    every_prediction_holds(runs)


def test_the_views_name_the_task_that_ran_both_graphs_once(tmp_path: Path) -> None:
    """The tasks again, as every view lists them: parent_node (the root task that runs both
    graphs) and other_subgraph_node, not a task named after the second graph's namespace,
    in the recorded mode's list and in each modelled mode's."""
    from replaylens.analysis.again import again_under, what_happens_again
    from replaylens.killtest.validate import manifest_recording, plan_for

    runs = load("multiple_subgraphs_checkpointer-early-0s", tmp_path)
    sync = runs["sync"]
    plan = plan_for(sync, None, manifest_recording(sync, float(sync["kill_delay"]), "parent_node"))
    assert what_happens_again(plan).task_names == ["parent_node", "other_subgraph_node"]
    assert again_under(plan, "async").task_names == ["parent_node", "other_subgraph_node"]


def test_graphs_one_task_invokes_wait_one_after_the_other(tmp_path: Path) -> None:
    """multiple_subgraphs_checkpointer on a 1 s store, killed in finish: the two graphs
    parent_node invokes put one after the other, so re-timed from the sync recording their
    waits add up (they are not side by side): under async finish began late enough that
    18 checkpoints had landed, and only finish runs again."""
    runs = load("multiple_subgraphs_checkpointer-late-1s", tmp_path)
    assert real(runs["async"]) == (18, 1, 1)
    for form in FULL:
        for given in (True, False):
            assert figures(predict(runs["sync"], form, given)["async"]) == (18, 1, 1)


def test_two_graphs_one_silent_task_invokes_in_turn_share_its_root_step(tmp_path: Path) -> None:
    """The same campaign from the async recording, bare: the log names no namespace, and
    parent_node logs nothing. Its second graph began after the first had ended, so it was
    read as a root step of its own, and finish one step later: under sync 20 checkpoints
    where the real run kept 19. The database's namespace of that run names the root task
    that ran it (`parent_node:<task id>|1`): that task's step (`evidence._hold_step`)."""
    runs = load("multiple_subgraphs_checkpointer-late-1s", tmp_path)
    assert real(runs["sync"], "bare") == (19, 1, 1)
    for given in (True, False):
        assert figures(predict(runs["async"], "bare", given)["sync"]) == (19, 1, 1), given


def test_a_kill_in_a_node_that_logs_nothing_measures_the_right_process(tmp_path: Path) -> None:
    """The same shape killed 0.6 s into the second input's parent_node, which logs nothing:
    under sync on a 1 s store neither graph had started, so the resume ran the second input's
    graphs for the first time; the first input's finished other_subgraph_node is not a repeat
    (the callbacks' last task start names the killed process)."""
    runs = load("multiple_subgraphs_checkpointer-early-1s", tmp_path)
    assert real(runs["sync"])[1:] == (0, 0)


def test_a_bare_log_of_entrypoint_calls_reaches_the_lost_first_input(tmp_path: Path) -> None:
    """imp_tasks on a 1 s store: the entrypoint runs at once, so under sync the kill 0.4 s in
    came before the input checkpoint landed (0 kept, every call again on a restart); a bare log
    cannot tell calls from a graph's nodes, and its range reaches that."""
    runs = load("imp_tasks-early-1s", tmp_path)
    assert real(runs["sync"]) == (0, 3, 5)
    every_prediction_holds(runs, same_progress=True)
