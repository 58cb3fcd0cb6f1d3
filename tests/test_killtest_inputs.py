"""The kill-test child's further invocations: a `Command` sent at a breakpoint (`command`)
and a state edit (`state_update`), run through the child's own `run` against a real graph
and a real SQLite checkpointer (no kill: what is checked is what each input makes LangGraph do)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from replaylens.examples.langgraph_tests import SHAPES
from replaylens.killtest import command, fork, send
from replaylens.killtest.harness import invoke_spec, scoped_environ


def _run_shape(tmp_path: Path, name: str) -> tuple[list[dict], Counter[str]]:
    shape = SHAPES[name]
    log = tmp_path / "effects.jsonl"
    spec = {
        "graph": shape.graph,
        "db": str(tmp_path / "c.db"),
        "thread_id": "t",
        "durability": "sync",
    }
    results = []
    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
        for payload in (shape.input, *shape.then):
            results.append(invoke_spec({**spec, "input": payload}))
    starts = Counter(json.loads(x)["node"] for x in log.read_text().splitlines() if '"start"' in x)
    return results, starts


def test_a_command_at_a_breakpoint_adds_its_goto(tmp_path: Path) -> None:
    """test_command_goto_with_static_breakpoints: the first input stops before node1; the
    `Command(goto=["node2"])` the child sends then runs node1 and node2 side by side, and
    node2 once more after node1 (LangGraph's answer: "abc|node-1|node-2|node-2")."""
    results, starts = _run_shape(tmp_path, "command_goto_breakpoint")
    assert all(r["ok"] for r in results), results
    assert starts == {"node1": 1, "node2": 2}


def test_command_takes_only_commands_keys() -> None:
    with pytest.raises(ValueError, match="goto, update and resume"):
        command(goto="a", graph="PARENT")


def test_update_state_as_input_writes_a_turn_no_node_runs(tmp_path: Path) -> None:
    """test_update_as_input: four `update_state` calls (as __input__, __start__, agent, tool)
    write a turn without running a node; only the two real inputs run agent and tool."""
    results, starts = _run_shape(tmp_path, "update_as_input")
    assert all(r["ok"] for r in results), results
    assert starts == {"agent": 2, "tool": 2}


def test_a_fork_replays_the_thread_from_an_earlier_checkpoint(tmp_path: Path) -> None:
    """test_fork_always_re_runs_nodes: add_one runs 5 times to reach 6; the fork from the
    checkpoint 4 entries back in the history (count 2 at step 1) runs it 4 times more, on a
    branch that starts with a copy of that checkpoint (metadata source "fork") whose parent is
    the earlier one (LangGraph's own history, under sync)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples.langgraph_tests import fork_replay

    results, starts = _run_shape(tmp_path, "fork_replay")
    assert all(r["ok"] for r in results), results
    assert starts == {"add_one": 5 + 4}
    with SqliteSaver.from_conn_string(str(tmp_path / "c.db")) as saver:
        graph = fork_replay().compile(checkpointer=saver)
        history = list(graph.get_state_history({"configurable": {"thread_id": "t"}}))
    by_id = {h.config["configurable"]["checkpoint_id"]: h for h in history}
    newest_first = [h.values.get("count") for h in history]
    assert newest_first[:5] == [6, 5, 4, 3, 2]  # the branch, newest first
    assert history[4].metadata["source"] == "fork"
    branch_root = by_id[history[4].parent_config["configurable"]["checkpoint_id"]]
    assert branch_root.metadata["step"] == 1 and branch_root.values["count"] == 2
    assert len(history) == 7 + 5  # input and 6 of the first run; the fork's copy and 4 more


def test_fork_takes_a_count_of_checkpoints_back() -> None:
    with pytest.raises(ValueError, match="number of checkpoints back"):
        fork(back=-1)


def test_a_fork_by_next_node_with_an_edit(tmp_path: Path) -> None:
    """test_sequential_interrupts_fork_from_middle: after the thread ran to its end (each
    pause answered), `fork(next="interrupt_2", update=...)` edits the state at the oldest
    checkpoint where interrupt_2 was due and runs from the checkpoint that edit saved: only
    the second question is asked again (LangGraph's answer: the first answer kept, the edit
    in the state)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples.langgraph_tests import sequential_interrupts_fork

    shape = SHAPES["sequential_interrupts_fork"]
    log = tmp_path / "effects.jsonl"
    spec = {"graph": shape.graph, "db": str(tmp_path / "c.db"), "thread_id": "t",
            "durability": "sync"}  # fmt: skip
    answer = {"resume_value": shape.resume_value}
    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
        runs = [invoke_spec({**spec, "input": shape.input})]
        runs += [invoke_spec({**spec, "input": None, **answer}) for _ in range(2)]
        runs.append(invoke_spec({**spec, "input": shape.then[0]}))
    assert [r["interrupted"] for r in runs] == [True, True, False, True], runs
    starts = Counter(json.loads(x)["node"] for x in log.read_text().splitlines() if '"start"' in x)
    assert starts == {"node_a": 1, "interrupt_1": 1, "interrupt_2": 1, "node_b": 1}
    with SqliteSaver.from_conn_string(str(tmp_path / "c.db")) as saver:
        graph = sequential_interrupts_fork().compile(checkpointer=saver)
        state = graph.get_state({"configurable": {"thread_id": "t"}})
    assert state.next == ("interrupt_2",) and state.metadata["source"] == "update"
    assert state.values["value"] == ["node_a", "interrupt_1:ans", "mid_fork"]


def test_fork_takes_a_node_name_for_next() -> None:
    with pytest.raises(ValueError, match="node name"):
        fork(next=3)  # type: ignore[arg-type]


def test_a_fork_from_the_newest_checkpoint_where_a_node_is_due(tmp_path: Path) -> None:
    """test_subgraph_called_in_loop_loads_state_on_replay: two inputs each run the loop twice
    (inc, then the stateful subgraph); `fork(next="inc", newest=True)` runs the thread again
    from the newest checkpoint where inc was due, mid-loop in the second input (the oldest
    would have been the first input's start): one round left, so inc and sub_step run once
    more each, and the subgraph carries the five runs of its history (LangGraph's answer)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples.langgraph_tests import stateful_subgraph_loop_replayed

    results, starts = _run_shape(tmp_path, "stateful_subgraph_loop_replayed")
    assert all(r["ok"] for r in results), results
    assert starts == {"inc": 2 + 2 + 1, "sub_step": 2 + 2 + 1}
    with SqliteSaver.from_conn_string(str(tmp_path / "c.db")) as saver:
        graph = stateful_subgraph_loop_replayed().compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}
        state = graph.get_state(config)
        history = list(graph.get_state_history(config))
        inner = next(saver.list({"configurable": {"thread_id": "t", "checkpoint_ns": "sub_node"}}))
    assert state.values["counter"] == 2 and state.next == ()
    fork_copy = next(h for h in history if h.metadata["source"] == "fork")
    assert fork_copy.values["counter"] == 1 and fork_copy.next == ("inc",)
    # the replay's sub_step saw the three runs before the fork's round, as LangGraph's test
    # asserts, and added the fourth
    assert inner.checkpoint["channel_values"]["value"] == ["sub_step"] * 4


def test_a_fork_that_saves_a_plain_copy_first(tmp_path: Path) -> None:
    """test_copy_fork_retriggers_interrupt: after the thread ran to its end (the pause
    answered), `fork(next="ask_human", as_node="__copy__")` saves a plain copy of the
    checkpoint where ask_human was due (``update_state(config, None, as_node="__copy__")``,
    source "fork") and runs from it: the question is asked again, node_a does not run again
    (LangGraph's answer), and the new answer ends the new branch."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples.langgraph_tests import copy_fork_interrupt

    shape = SHAPES["copy_fork_interrupt"]
    log = tmp_path / "effects.jsonl"
    spec = {"graph": shape.graph, "db": str(tmp_path / "c.db"), "thread_id": "t",
            "durability": "sync"}  # fmt: skip
    answer = {**spec, "input": None, "resume_value": shape.resume_value}
    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
        runs = [invoke_spec({**spec, "input": shape.input}), invoke_spec(answer)]
        runs += [invoke_spec({**spec, "input": shape.then[0]}), invoke_spec(answer)]
    assert [r["interrupted"] for r in runs] == [True, False, True, False], runs
    starts = Counter(json.loads(x)["node"] for x in log.read_text().splitlines() if '"start"' in x)
    assert starts == {"node_a": 1, "ask_human": 2, "node_b": 2}
    with SqliteSaver.from_conn_string(str(tmp_path / "c.db")) as saver:
        graph = copy_fork_interrupt().compile(checkpointer=saver)
        history = list(graph.get_state_history({"configurable": {"thread_id": "t"}}))
    copies = [h for h in history if h.metadata["source"] == "fork"]
    assert len(copies) == 1 and copies[0].next == ("ask_human",)
    # a sibling of the checkpoint it copies (test_copy_fork_creates_sibling_checkpoint): its
    # parent is that checkpoint's parent, where a run from the checkpoint itself makes a child
    copied = next(h for h in history if h.next == ("ask_human",) and h.metadata["source"] == "loop")
    assert copies[0].parent_config == copied.parent_config
    assert history[0].values["value"] == ["node_a", "human:new_answer", "node_b"]


def _answered_run(tmp_path: Path, name: str) -> tuple[list[dict], Counter[str]]:
    """Run a corpus shape without a kill, answering every pause as the kill test does and
    sending its further inputs in turn."""
    shape = SHAPES[name]
    log = tmp_path / "effects.jsonl"
    spec = {"graph": shape.graph, "db": str(tmp_path / "c.db"), "thread_id": "t",
            "durability": "sync"}  # fmt: skip
    pending = list(shape.then)
    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
        runs = [invoke_spec({**spec, "input": shape.input})]
        while runs[-1]["interrupted"] or pending:
            if runs[-1]["interrupted"]:
                payload = {"input": None, "resume_value": shape.resume_value}
            else:
                payload = {"input": pending.pop(0)}
            runs.append(invoke_spec({**spec, **payload}))
    starts = Counter(json.loads(x)["node"] for x in log.read_text().splitlines() if '"start"' in x)
    return runs, starts


def test_a_fork_from_a_subgraphs_own_checkpoint(tmp_path: Path) -> None:
    """test_subgraph_replay_from_subgraph_checkpoint: `fork(ns="subgraph_node",
    next="ask_human")` runs the thread from the stateful subgraph's own checkpoint where
    ask_human was due (its namespace and a checkpoint map in the config): the question is
    asked again, and neither router nor step_a runs again (LangGraph's answer); the root
    saves a fork of its own checkpoint where the subgraph was due."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples.langgraph_tests import subgraph_checkpoint_replayed

    runs, starts = _answered_run(tmp_path, "subgraph_checkpoint_replayed")
    assert [r["interrupted"] for r in runs] == [True, False, True, False], runs
    assert starts == {"router": 1, "step_a": 1, "ask_human": 2, "step_b": 2, "post_process": 2}
    with SqliteSaver.from_conn_string(str(tmp_path / "c.db")) as saver:
        graph = subgraph_checkpoint_replayed().compile(checkpointer=saver)
        history = list(graph.get_state_history({"configurable": {"thread_id": "t"}}))
    forks = [h for h in history if h.metadata["source"] == "fork"]
    assert [h.next for h in forks] == [("subgraph_node",)]
    assert history[0].next == () and "human:replayed_answer" in history[0].values["value"]


def test_a_fork_from_the_middle_of_three_levels_with_an_edit(tmp_path: Path) -> None:
    """test_3_levels_deep_middle_has_interrupts: an edit of the middle graph's own checkpoint
    where pre was due, then a run from it, asks pre's question again and does not run step_a
    before it is answered; the answer runs pre, then the inner graph from its ended state
    (step_a again, and ask_1 asks again). Each asking node logs once it has its answer."""
    runs, starts = _answered_run(tmp_path, "three_level_middle_interrupts")
    assert [r["interrupted"] for r in runs] == [True, True, False, True, True, False], runs
    assert starts == {"pre": 2, "step_a": 2, "ask_1": 2}


def test_a_subgraph_fork_names_a_checkpoint_the_thread_holds(tmp_path: Path) -> None:
    """A fork into a namespace where the named task is never due fails in words (the run
    reports it) rather than running from the thread's latest checkpoint."""
    shape = SHAPES["subgraph_checkpoint_replayed"]
    spec = {"graph": shape.graph, "db": str(tmp_path / "c.db"), "thread_id": "t",
            "durability": "sync"}  # fmt: skip
    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(tmp_path / "e.jsonl"),
                        REPLAYLENS_EXAMPLE_SLEEP="0"):  # fmt: skip
        invoke_spec({**spec, "input": shape.input})
        result = invoke_spec({**spec, "input": fork(ns="subgraph_node", next="router")})
    assert not result["ok"] and "no checkpoint of that subgraph" in result["error"]


def test_fork_into_a_namespace_takes_node_names_and_a_next() -> None:
    for bad in ("a||b", "a:1", ""):
        with pytest.raises(ValueError, match="subgraph nodes"):
            fork(ns=bad, next="x")
    with pytest.raises(ValueError, match="subgraph nodes"):
        fork(ns="a")
    assert fork(ns="outer|inner", next="ask")


def test_a_fork_from_two_levels_down(tmp_path: Path) -> None:
    """test_3_levels_deep_time_travel_to_second_interrupt: `fork(ns="outer|inner",
    next="ask_2")` runs the thread from the innermost graph's own checkpoint where ask_2 was
    due, through the middle graph's checkpoint where inner was due (the checkpoint map names
    both): ask_2's question is asked again, and neither step_a nor ask_1 runs again."""
    runs, starts = _answered_run(tmp_path, "inner_checkpoint_replayed")
    assert [r["interrupted"] for r in runs] == [True, True, False, True, False], runs
    assert starts == {"step_a": 1, "ask_1": 1, "ask_2": 2}


def test_an_answer_sent_with_the_head_checkpoint_is_sent_again_after_a_kill() -> None:
    """After a kill, a resume that stops at the question the killed run had answered is
    answered again as that run answered it (under exit the answer was never saved): a
    `command(resume=...)`, and the same sent from the head checkpoint's id
    (`fork(input=command(resume=...))`, test_subgraph_interrupt_resume_with_explicit_head_
    checkpoint_id). A command without an answer, a plain fork, or an input are not."""
    from replaylens.killtest.campaign import sent_answer

    answer = command(resume="yes")
    head = fork(input=command(resume="yes"))
    assert sent_answer(answer) == answer
    assert sent_answer(head) == head
    for other in (command(goto="x"), fork(next="a"), fork(input={"v": 1}), {"v": 1}, None):
        assert sent_answer(other) is None, other


def test_a_commands_sends_written_as_a_nodes_update_make_their_workers_due(
    tmp_path: Path,
) -> None:
    """test_batch_update_as_input: the thread is written by `state_update` alone, map's
    `command(goto=[send(...)])` last; the run with no input then runs the three `Send`
    workers and nothing else (LangGraph's answer: tasks [0, 1, 2], foo "map")."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples.langgraph_tests import batch_update_sends

    results, starts = _run_shape(tmp_path, "batch_update_sends")
    assert all(r["ok"] for r in results), results
    assert starts == {"task": 3}
    with SqliteSaver.from_conn_string(str(tmp_path / "c.db")) as saver:
        graph = batch_update_sends().compile(checkpointer=saver)
        state = graph.get_state({"configurable": {"thread_id": "t"}})
    assert state.values == {"foo": "map", "tasks": [0, 1, 2]}


def test_send_takes_a_node_name() -> None:
    with pytest.raises(ValueError, match="node name"):
        send("", {})


def test_a_fork_to_a_runs_end_takes_the_loops_checkpoint_under_every_mode(
    tmp_path: Path,
) -> None:
    """test_delta_channel_time_travel: `fork(next=END, input=...)` sends the third input to
    the checkpoint the first turn ended at, under exit too, where LangGraph 1.2 also keeps
    a `DeltaChannel`'s writes in an older checkpoint with nothing due (no source, step -2):
    the third run's first task is the fifth step's in every mode."""
    shape = SHAPES["delta_time_travel_input"]
    for mode in ("sync", "exit"):
        log = tmp_path / f"{mode}.jsonl"
        spec = {"graph": shape.graph, "db": str(tmp_path / f"{mode}.db"), "thread_id": "t",
                "durability": mode}  # fmt: skip
        with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
            for payload in (shape.input, *shape.then):
                assert invoke_spec({**spec, "input": payload})["ok"], mode
        lines = [json.loads(x) for x in log.read_text().splitlines()]
        steps = [x["step"] for x in lines if x["node"] == "respond" and x["phase"] == "start"]
        assert steps == [1, 5, 5], (mode, steps)
