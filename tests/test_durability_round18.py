"""The what-if and the verdicts on the eighteenth held-out round: functional graphs an
`@task` call invokes one after another (test_multiple_subgraphs_functional).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, holds, load, predict, real

from replaylens.examples.langgraph_tests import form_log
from replaylens.killtest.validate import manifest_recording, plan_for


def test_a_finished_graph_an_at_task_call_invoked_is_not_run_again(tmp_path: Path) -> None:
    """multiple_subgraphs_functional, killed in `multiply_task`: the entrypoint's call
    `call_multiple_subgraphs` had invoked `add` (finished, its checkpoints saved) and was in
    `multiply`. The call has no saved result, so it runs again, and `add` had been judged to
    run again with it (its holder "in no saved checkpoint"). It does not: the resume prepares
    the entrypoint's task from the same root checkpoint, under the same id, the call gets its
    old id, and `add` goes on from its own finished run (its checkpoints' ``parents`` name that
    root checkpoint). Measured: 2 tasks and 3 lines again under sync, `add` never."""
    runs = load("multiple_subgraphs_functional-late-0s", tmp_path)
    assert real(runs["sync"]) == (4, 2, 3)
    entry = runs["sync"]
    for form in ("recorder", "langgraph", "bare"):
        rec = manifest_recording(entry, float(entry["kill_delay"]), "parent")
        plan = plan_for(entry, str(form_log(entry["effects_at_kill"], form)), rec)
        verdicts = {a.node: a.verdict for a in plan.attempts}
        assert verdicts["add"] == "kept", (form, verdicts)
        assert verdicts["multiply_task"] == "replays", (form, verdicts)
        assert figures(plan.what_if["sync"]) == (4, 2, 3), form
    # from the exit recording, the kill moment is known only to be after multiply_task's
    # first line, where multiply's input checkpoint was being written: a range (3 or 4 kept)
    exit_sync = predict(runs["exit"])["sync"]
    assert figures(exit_sync)[1:] == (2, 3) and holds(exit_sync, (4, 2, 3))
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_four_interrupts_answered_one_at_a_time_across_send_workers(tmp_path: Path) -> None:
    """parallel_interrupts_double: two `Send` workers each run a subgraph whose two nodes
    call ``interrupt()`` before logging anything; four answers, one at a time; the kill in
    the last one. Three readings were wrong: the first invocation logged nothing, so the log
    began with the first answer's (the first task's id has its interrupt and its answer at a
    checkpoint taken before the log began: `_answered_first`); worker b's first line, a node
    named as worker a's first, was read as a fresh input (its task was due at a checkpoint an
    earlier invocation saved, and finished by this very attempt: a resume); and worker a's
    step, where one node was answered while the other paused again, was read as completed
    (the other node first logs in a later invocation: `_sibling_left_due`). Exit had been
    predicted to keep 5 to 7 checkpoints; it kept 3, and every full-log prediction, the mode
    told or not, now holds what each mode measured."""
    runs = load("parallel_interrupts_double-early-0s", tmp_path)
    assert real(runs["exit"]) == (3, 1, 1) and real(runs["sync"]) == (7, 1, 1)
    for src in runs.values():
        assert figures(predict(src)["exit"]) == (3, 1, 1), src["mode"]
    every_prediction_holds(runs, forms=("recorder", "langgraph"))


def test_a_log_that_begins_with_an_answer_counts_the_silent_invocation_first(
    tmp_path: Path,
) -> None:
    """parallel_interrupts_double on a 0.25 s store, killed in `cleanup` after the fourth
    answer. Nothing logged in the first invocation (every node called ``interrupt()`` first):
    read from the sync recording with the mode unknown, the log's first invocation had been
    taken for the input, and async predicted to keep 9 checkpoints. The log's first task is
    one the database shows paused and answered at a checkpoint taken before the log began:
    an invocation came first (`_answered_first`), and the prediction holds the 8 kept."""
    runs = load("parallel_interrupts_double-late-0.25s", tmp_path)
    assert real(runs["async"]) == (8, 1, 1)
    outcome = predict(runs["sync"], given=False)["async"]
    assert holds(outcome, real(runs["async"])), (figures(outcome), outcome.race)


def test_graphs_a_call_invoked_are_held_by_the_step_the_call_ran_in(tmp_path: Path) -> None:
    """The same kill read from the exit recording, whose database is empty: only the log
    says where each graph ran. ``add`` logs step 0 under ``parent:<id>|call_multiple_
    subgraphs:<id>``, as an `@task` call of the call would, and had been taken for one, in a
    loop ``parent`` that is no loop (the entrypoint's task: its call runs in the root's
    step). ``multiply`` under the same namespace with the call counter ``|1`` shows both are
    graphs the call invoked (only a graph counts on its caller's namespace), held by the
    root step the call ran in. Read the old way, from a trace, sync and async were 3 kept,
    5 tasks and 6 spans again (``add`` among them) where the real runs kept 4 and re-ran 4
    (``parent``, the call, ``multiply``, ``multiply_task``); the recorder's log had the right
    figures for the wrong tasks (``add`` for the call, which logs two lines as ``add`` does)."""
    runs = load("multiple_subgraphs_functional-late-0s", tmp_path)
    again = {"parent", "call_multiple_subgraphs", "multiply", "multiply_task"}
    for target in ("sync", "async"):
        assert real(runs[target], "trace") == (4, 4, 4)
        for given in (True, False):
            o = predict(runs["exit"], "trace", given)[target]
            assert figures(o)[1:] == (4, 4) and holds(o, (4, 4, 4)), (target, given)
            assert {r["node"] for r in o.reruns} == again, (target, given)
        o = predict(runs["exit"])[target]
        assert {r["node"] for r in o.reruns} == {"call_multiple_subgraphs", "multiply_task"}
    every_prediction_holds(runs, forms=("trace",))


def test_an_entrypoint_that_invokes_a_graph_only_after_its_resume_holds_it(
    tmp_path: Path,
) -> None:
    """test_imp_nested_interrupt's shape on Postgres under `ainvoke` at 0.05 s a write: the
    entrypoint's first invocation makes `@task` calls and pauses; answered, it invokes a
    graph, killed in its `mynode`. The entrypoint's step in the second invocation holds that
    graph and ends with it, but whether an entrypoint's step holds graphs was read from the
    first invocation alone (calls only): the step was taken to end at once, its checkpoint
    to land before `mynode` ran, and from the async recording sync was said to keep 4 and run
    nothing again, where the real sync run kept 3 and ran `mynode` again (3 1 1)."""
    runs = load("imp_nested_interrupt-early-0.05s-postgres", tmp_path)
    assert real(runs["sync"]) == (3, 1, 1)
    for form in ("recorder", "langgraph", "bare"):
        outcome = predict(runs["async"], form)["sync"]
        assert holds(outcome, (3, 1, 1)), (form, figures(outcome), outcome.race)
    every_prediction_holds(runs, forms=("recorder", "langgraph", "bare", "trace"))
