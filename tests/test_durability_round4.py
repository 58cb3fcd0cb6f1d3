"""The what-if on the fourth held-out round: error handlers, `Send` workers that each run a
subgraph, parallel interrupts answered one at a time, and three inputs on one thread.

Each test judges the model against real SIGKILLs and real resumes recorded in
`tests/whatif_kills/` (`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them
again). The rules are in `analysis/durability` and `analysis/tasks.py`; each docstring there
names the LangGraph source it follows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from whatif_kills import every_prediction_holds as _every_prediction_holds
from whatif_kills import figures as _figures
from whatif_kills import holds as _holds
from whatif_kills import load
from whatif_kills import predict as _predict
from whatif_kills import real as _real

from replaylens.analysis.durability.evidence import INSTANCE
from replaylens.analysis.status import load_thread
from replaylens.killtest.validate import measure_detail
from replaylens.sources import open_source


def _held(runs: dict[str, dict[str, Any]], forms: tuple[str, ...], given: bool) -> None:
    for src in runs.values():
        for form in forms:
            outcomes = _predict(src, form, given)
            for target, real in runs.items():
                o = outcomes[target]
                assert _holds(o, _real(real)), (
                    src["mode"],
                    form,
                    given,
                    target,
                    _figures(o),
                    o.race,
                )


def test_error_handler_runs_again_on_resume_and_the_failed_node_does_not(tmp_path: Path) -> None:
    """error_handler, killed in notify at 0.25 s: under async the checkpoint after the
    handled failure had not landed, and the real resume ran the handler again (2 tasks, 3
    lines) though its writes were saved, never the node that raised; every recording, in
    every log form, told the mode or not, predicts each other mode."""
    runs = load("error_handler-late-0.25s", tmp_path)
    assert _real(runs["async"]) == (3, 2, 3)
    _every_prediction_holds(runs)
    src = open_source(runs["async"]["db_at_kill"])
    try:
        thread = load_thread(src, runs["async"]["thread_id"])
    finally:
        src.close()
    due = {t.node: t for t in thread.root.checkpoints[-1].tasks}
    assert due["charge"].status == "handled" and due["charge"].done
    handler = due["__error_handler__charge"]
    assert handler.status == "finished" and not handler.done  # its writes landed; it runs again
    # The id is LangGraph's own: the one the handler logged when it ran.
    logged = {line["task_id"] for line in map(_json, Path(runs["async"]["effects_at_kill"]).read_text().splitlines())
              if line["node"] == "__error_handler__charge"}  # fmt: skip
    assert logged == {handler.task_id}


def _json(text: str) -> dict[str, Any]:
    import json

    return json.loads(text)


def test_a_third_input_the_kill_took_before_its_checkpoints_is_lost(tmp_path: Path) -> None:
    """multi_turn, killed in the third invocation's first node: under exit (and under async
    at 0.25 s, whose input checkpoint had not landed) nothing of that invocation was saved,
    so a resume goes on from the second invocation's end and runs nothing again."""
    runs = load("multi_turn-early-0.25s", tmp_path)
    assert _real(runs["exit"]) == (2, 0, 0) and _real(runs["async"]) == (8, 0, 0)
    _every_prediction_holds(runs)


def test_send_workers_that_each_run_a_subgraph_are_loops_side_by_side(tmp_path: Path) -> None:
    """send_to_subgraph, killed in the node after three `Send` workers that each ran a
    compiled subgraph: each worker's namespace is a loop of its own (`child#1..#3`), its
    waits overlap the others', and the parent goes on when the slowest is done. With the
    namespaces logged (either form) and the mode given, every prediction holds."""
    runs = load("send_to_subgraph-late-0.25s", tmp_path)
    _held(runs, ("recorder", "langgraph"), True)
    o = _predict(runs["sync"])["async"]
    assert _figures(o) == _real(runs["async"]) == (14, 1, 1)
    # each worker's tasks, told apart by their run (their namespace is the node path)
    again = _predict(runs["sync"])["exit"].reruns
    assert {r.get("run") for r in again if r["checkpoint_ns"] == "generate_joke"} == {1, 2, 3}
    assert not any(INSTANCE in r["checkpoint_ns"] for r in again)


def test_a_worker_started_again_is_not_counted_for_its_sibling(tmp_path: Path) -> None:
    """send_to_subgraph, killed while the second worker generated: the real resume ran that
    worker's generate again and the third worker's edit; the third worker's first generate,
    new after the resume, is not a repeat of the first worker's finished one."""
    runs = load("send_to_subgraph-early-0.25s", tmp_path)
    measured, again = measure_detail(runs["async"])
    assert (measured.reruns, measured.lines) == (2, 2)
    assert again is not None and {key[0][1] for key in again} == {"edit", "generate"}
    _held(runs, ("recorder", "langgraph"), True)


def test_parallel_interrupts_answered_one_at_a_time(tmp_path: Path) -> None:
    """parallel_interrupts, killed in cleanup after the second answer: the two workers'
    subgraphs paused side by side; under exit each saved its own checkpoint on the way out
    (3 kept, not 2), and every mode is predicted from every recording with namespaces."""
    runs = load("parallel_interrupts-late-0.25s", tmp_path)
    assert _real(runs["exit"])[0] == 3
    _held(runs, ("recorder", "langgraph"), True)


def test_a_later_input_of_an_entrypoint_lost_with_its_unsaved_input_checkpoint(
    tmp_path: Path,
) -> None:
    """entrypoint_stateful (round 5), killed 0.2 s into the third input's first call at 0.25 s
    per write: an `@entrypoint` runs at once after its input checkpoint, which no loop waits
    for, so under sync as under async that checkpoint had not landed and the input was lost
    (4 kept, nothing again); every mode is predicted from every recording and log form."""
    runs = load("entrypoint_stateful-early-0.25s", tmp_path)
    assert _real(runs["sync"]) == (4, 0, 0) == _real(runs["async"])
    _every_prediction_holds(runs)


def test_a_breakpoint_inside_a_subgraph_pauses_the_run_the_resume_goes_on_with(
    tmp_path: Path,
) -> None:
    """nested_interrupts_parallel (round 5): `interrupt_before` inside a subgraph beside a plain
    node pauses the thread with no write; the resume goes on with that subgraph's run. Under
    exit the root and the paused subgraph both saved (2 kept), and inner_2 runs again with the
    node after the join (2 tasks, 3 lines)."""
    runs = load("nested_interrupts_parallel-late-0.25s", tmp_path)
    assert _real(runs["exit"]) == (2, 2, 3)
    _every_prediction_holds(runs)
