"""The what-if on the twenty-third held-out round: a thread run again from an earlier
checkpoint whose stateful subgraph pauses again (test_time_travel.py), a graph invoked in a
node's body that pauses twice (test_double_interrupt_subgraph), and a resume that also edits
the state (test_interrupt_multiple, ``Command(resume=..., update=...)``).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real


def test_a_run_from_an_earlier_checkpoint_goes_on_from_its_copy(tmp_path: Path) -> None:
    """subgraph_replay_then_resume, killed in ask_human after the second answer: the thread
    had run to its end, then again from the root checkpoint where subgraph_node was due (a
    fork, step 2), whose stateful subgraph ran step_a and paused. That run's subgraph task
    is the copy's step 3, not one after the thread's last saved step (3): read as step 4, a
    task the resume never reaches, step_a was predicted to run again under exit (6 2 3 where
    the real exit run re-ran ask_human alone). Under exit the copy is saved on the run's way
    out, after its last line, not before its first: it belongs to the run before the next
    one. And the subgraph, whose last run had ended, starts a new run there: its input
    checkpoint and `__start__` come first (under sync LangGraph numbers them -1 and 0, under
    exit it goes on from 3 to 4 and 5); from the exit recording, sync had been predicted to
    keep 12 checkpoints where it kept 14."""
    runs = load("subgraph_replay_then_resume-early-0s", tmp_path)
    assert real(runs["sync"]) == (14, 1, 1) and real(runs["exit"]) == (6, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (6, 1, 1), src
    assert figures(predict(runs["exit"])["sync"]) == (14, 1, 1)
    assert figures(predict(runs["exit"], "langgraph", given=False)["async"]) == (14, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_the_pause_of_a_run_from_a_copy_is_that_runs_own(tmp_path: Path) -> None:
    """The same kill on a slow store (0.25 s): the run from the copy paused in its subgraph
    before any line of its own, hanging its `__interrupt__` write off the copy. That pause
    is the new run's, not the end of the run before it, whose last step (post_process, its
    checkpoint saved) had been read as never completed: one checkpoint short under async
    (13 predicted, 14 kept)."""
    runs = load("subgraph_replay_then_resume-early-0.25s", tmp_path)
    assert real(runs["async"]) == (14, 1, 1)
    assert figures(predict(runs["sync"])["async"]) == (14, 1, 1)
    assert figures(predict(runs["sync"], given=False)["async"]) == (14, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_a_graph_invoked_in_a_node_answered_below_it(tmp_path: Path) -> None:
    """double_interrupt_subgraph, killed in invoke_sub_agent's own work after the second
    answer: node_2 (in the graph the node invokes) ran and returned, then the calling node
    logged its first line, in the same process. That line is the node's first start after
    the root's pause, but the answer had begun the invocation already, below it (node_2,
    under ``invoke_sub_agent:<id>``): read as a fourth invocation, exit's kept checkpoints
    and re-runs came out 3 1 1 where the real exit run kept 3 and ran node_2 and the node
    again (3 2 3); the first invocation, which logged nothing, paused there too."""
    runs = load("double_interrupt_subgraph-late-0s", tmp_path)
    assert real(runs["exit"]) == (3, 2, 3) and real(runs["sync"]) == (6, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (3, 2, 3), src
    assert figures(predict(runs["exit"], "langgraph")["sync"]) == (6, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_a_pause_answered_below_does_not_end_the_last_run(tmp_path: Path) -> None:
    """The same kill on a slow store (0.25 s): the kill landed while the graph's last put
    was still being written, before the calling node logged. The database still shows the
    root task paused (LangGraph keeps its `__interrupt__` write until it ends), but node_2,
    the graph's own paused task, saved its output: the last invocation went past the pause
    and was killed. Read as paused, no crash was placed and sync was predicted to keep the
    graph's last checkpoint (6 where 5 were)."""
    runs = load("double_interrupt_subgraph-late-0.25s", tmp_path)
    assert real(runs["sync"])[0] == 5 and real(runs["async"])[0] == 5
    assert figures(predict(runs["async"])["sync"])[0] == 5
    assert figures(predict(runs["sync"], given=False)["async"])[0] == 5
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_a_lost_answer_is_asked_again_and_answered_as_before(tmp_path: Path) -> None:
    """interrupt_update_resume, killed in node after its second answer (sent as
    ``Command(resume=...)``; the first carried an update too). Under exit that answer was
    never saved: the resume stops at the second ``interrupt()`` again, and the kill test
    answers it as the run did (the killed invocation's Command once more), so the node's
    lines run again, as they do under sync and async, where the answer was saved."""
    runs = load("interrupt_update_resume-early-0s", tmp_path)
    assert real(runs["exit"]) == (1, 1, 1)
    assert real(runs["sync"])[1:] == (1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (1, 1, 1), src
    every_prediction_holds(runs)


def test_after_a_run_from_a_copy_a_resume_goes_on_along_its_branch(tmp_path: Path) -> None:
    """subgraph_replay_then_resume, killed in post_process after the second answer: the
    answered run goes on along the branch the copy began (the root's last checkpoint there
    is the copy, step 2: its subgraph task is step 3), not from the thread's highest saved
    step (3, the end of the first run, on the branch left behind). Taken from the highest,
    the answered run's subgraph was held by root step 4, a task no resume reaches: step_b and
    ask_human ran again in the what-if (exit 6 3 5 where the real exit run kept 7 and ran
    post_process alone)."""
    runs = load("subgraph_replay_then_resume-late-0s", tmp_path)
    assert real(runs["exit"]) == (7, 1, 1) and real(runs["sync"]) == (17, 1, 1)
    for src in ("sync", "async"):
        assert figures(predict(runs[src])["exit"]) == (7, 1, 1), src
    assert figures(predict(runs["exit"])["sync"]) == (17, 1, 1)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_a_bare_log_that_begins_with_an_answer(tmp_path: Path) -> None:
    """A log without task ids whose first line is the answer's: node_1 (in the graph
    invoke_sub_agent invokes) paused before logging anything, at a checkpoint taken before
    the log began, and its one line in its namespace came after the answer (a node that logged
    before its pause would have logged again when answered). Without a task id the silent
    first invocation had not been counted, and its pause saves under exit with it: 2 kept
    predicted where the real exit run kept 3. The same class was round 20's
    dynamic_interrupt_subgraph bare-log gap (26 predictions outside, now none)."""
    runs = load("double_interrupt_subgraph-late-0s", tmp_path)
    for src in ("sync", "async"):
        assert figures(predict(runs[src], "bare")["exit"]) == (3, 2, 3), src
    every_prediction_holds(runs, forms=("bare",))
    runs = load("dynamic_interrupt_subgraph-early-0s", tmp_path)
    every_prediction_holds(runs, forms=("bare",))


def test_a_question_answered_below_says_so_on_every_view(tmp_path: Path) -> None:
    """The database of that kill (sync, 0.25 s) still lists invoke_sub_agent's question, as
    LangGraph's own `get_state` does, though node_2 below it saved its output: the status
    stays LangGraph's ("interrupted"), but the sentence after it (`replay`, `thread`, the
    report, the Thread page) and the next move (text, --json, the Thread page's block) say it
    was answered and give ``invoke(None)``, not ``Command(resume=...)``; a thread really waiting (the exit run of interrupt_update_resume,
    whose answer was lost with the kill) still asks for an answer."""
    import contextlib
    import io
    import json

    from replaylens.cli import main

    def replay(entry: dict, *extra: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["replay", entry["db_at_kill"], "--thread", entry["thread_id"],
                         "--no-effects", *extra]) == 0  # fmt: skip
        return out.getvalue()

    answered = load("double_interrupt_subgraph-late-0.25s", tmp_path)["sync"]
    doc = json.loads(replay(answered, "--json"))
    assert doc["status"] == "interrupted" and doc["answered_below"] is True
    assert doc["status_explained"].startswith("LangGraph still lists a question")
    moves = doc["next_moves"]
    assert [m["kind"] for m in moves] == ["answered"]
    assert "graph.invoke(None, config)" in moves[0]["code"] and "resume" not in moves[0]["code"]
    assert "asked, and was answered below" in replay(answered)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["thread", answered["db_at_kill"], "--thread", answered["thread_id"]]) == 0
    assert "invoke(None) goes on without a new answer" in out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["report", answered["db_at_kill"], "--thread", answered["thread_id"]]) == 0
    assert "the answer was given and the run went past it" in out.getvalue()
    # a `checkpointer=True` graph added as the node, whose run ended in the killed invocation
    ended = load("subgraph_replay_then_resume-late-0s", tmp_path)["exit"]
    assert [m["kind"] for m in json.loads(replay(ended, "--json"))["next_moves"]] == ["answered"]
    waiting = load("interrupt_update_resume-early-0s", tmp_path)["exit"]
    doc = json.loads(replay(waiting, "--json"))
    assert doc["status_explained"].startswith("waiting for an answer")
    moves = doc["next_moves"]
    assert [m["kind"] for m in moves] == ["interrupted"]
    assert "Command(resume=...)" in moves[0]["code"]
