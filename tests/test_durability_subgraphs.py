"""The durability what-if's rules for subgraphs, slow stores and logs without namespaces,
each checked on real SIGKILLs of the langgraph-tests corpus (`examples/langgraph_tests.py`).

Each campaign kills a corpus shape under two modes (one run each, a short sleep unit) and
the recording of one mode predicts the other, which really ran: the prediction must lie in
what the real run measured. The rules are in `analysis/durability` (each docstring names
the LangGraph source it follows):

* a subgraph as a graph's first node runs in the root's step 1, and a namespace no parent
  task holds is a subgraph, not `@task` calls (`evidence._place_nested`);
* a subgraph step left by `Command(graph=PARENT)` puts nothing, and under exit the subgraph
  saves its last checkpoint on the way out (`evidence._raised_out`, `schedule.exit_saves`);
* a subgraph compiled with ``checkpointer=True`` run twice is two parent tasks, and under
  exit each run that ended saved (`evidence._split_runs`, `schedule._stable_run_saves`);
* a log that names no namespace gives the checkpoints kept as a range, and says why
  (`outcomes._widen_for_unplaced`);
* sync's waits are read in a subgraph's loop too (`inference._gaps_after_checkpoints`);
* async puts queued behind each other make a race whose span the what-if gives
  (`outcomes._queued`, `rules.WRITE_COST_SPAN`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replaylens.analysis.durability import Recording
from replaylens.examples.langgraph_tests import SHAPES, form_log
from replaylens.killtest.campaign import run_campaign
from replaylens.killtest.corpus import CorpusPoint, _absolute, _progress
from replaylens.killtest.validate import manifest_recording, measure, plan_for

pytestmark = pytest.mark.slow  # real graphs killed in child processes

SLEEP = 0.1
"""Seconds of one sleep unit: a quarter of the corpus's, the kill points keep their order."""


def _campaign(
    tmp_path: Path,
    shape: str,
    kill: int,
    modes: tuple[str, ...],
    latency: float,
    sleep: float = SLEEP,
) -> dict[str, dict[str, Any]]:
    """One real run per mode, killed at the shape's kill point: mode -> its manifest entry."""
    point = CorpusPoint(SHAPES[shape], kill)
    folder = tmp_path / point.folder(latency)
    s = point.shape
    manifest = run_campaign(
        s.graph, folder, input_value=s.input, modes=modes, kill_at=(point.node, point.count),
        kill_delay=round(point.units * sleep, 4), runs=1, put_latencies=(latency,),
        resume_value=s.resume_value, has_resume_value=s.has_resume_value, sleep=sleep,
        then_inputs=s.then, kill_from_invocation=s.kill_from,
    )  # fmt: skip
    manifest = _absolute(json.loads((folder / "manifest.json").read_text()), folder)
    runs = {e["mode"]: e for e in manifest["runs"]}
    assert all(runs[m]["killed"] for m in modes), manifest["runs"]
    return runs


def _predict(entry: dict[str, Any], form: str = "recorder", given: bool = True) -> Any:
    """The what-if of one recording, told its mode as a manifest tells it (or not)."""
    log = str(form_log(entry["effects_at_kill"], form))
    node = str(entry["kill_at"]).rpartition(":")[0]
    rec = manifest_recording(entry, float(entry["kill_delay"]), node) if given else Recording()
    return plan_for(entry, log, rec).what_if


def _figures(outcome: Any) -> tuple[int, int, int]:
    return (outcome.checkpoints_kept, len(outcome.reruns), len(outcome.replayed_lines))


def _real(entry: dict[str, Any]) -> tuple[int, int, int]:
    m = measure(entry)
    return (m.checkpoints, m.reruns, m.lines)


def test_parent_command_subgraph_first_node_and_its_exit_save(tmp_path: Path) -> None:
    """parent_command, killed in node_b_parent after the subgraph routed the parent with
    Command(graph=PARENT): from the exit recording (an empty root, the subgraph's own save)
    sync is predicted exactly (root -1, 0, 1 and the subgraph's -1, 0, 1; node_b_parent
    again), and from the sync recording exit keeps the subgraph's save (1, not 0)."""
    runs = _campaign(tmp_path, "parent_command", 1, ("sync", "exit"), 0.0)
    sync, exit_ = runs["sync"], runs["exit"]
    assert _real(exit_)[0] == 1  # the subgraph saved on the way out of ParentCommand
    assert _figures(_predict(exit_)["sync"]) == _real(sync)
    assert _figures(_predict(sync)["exit"]) == _real(exit_)
    # A bare log cannot place node_a_child or node_b_parent: the count is a range, said so.
    bare = _predict(exit_, "bare")["sync"]
    lo, hi = bare.race["checkpoints_kept"]
    assert lo <= _real(sync)[0] <= hi and lo < hi, bare.race
    assert "names no namespace" in bare.race["note"] and "subgraphs" in bare.race["note"]
    assert "range" in bare.basis["checkpoints_kept"]


def test_checkpointer_true_subgraph_run_twice(tmp_path: Path) -> None:
    """subgraph_checkpoint_true, killed in the subgraph's second run: sync keeps both runs'
    history (10) and re-runs inner_2 only; exit keeps the first run's save (1) and restarts."""
    runs = _campaign(tmp_path, "subgraph_checkpoint_true", 1, ("sync", "exit"), 0.0)
    sync, exit_ = runs["sync"], runs["exit"]
    assert _figures(_predict(exit_)["sync"]) == _real(sync)
    assert _figures(_predict(sync)["exit"]) == _real(exit_)
    assert _real(exit_)[0] == 1


def test_subgraph_first_node_and_its_sync_waits(tmp_path: Path) -> None:
    """parent_command killed in the subgraph's first node on a slow store. From the exit
    recording (nothing in the database, only the subgraph's lines) sync is predicted exactly:
    the subgraph runs in the root's step 1, after `__start__` (root -1, 0 and the subgraph's
    -1, 0 kept). From the sync recording, with nothing told: the root logs nothing, the
    subgraph's steps show the waits, so the mode inferred is sync."""
    runs = _campaign(tmp_path, "parent_command", 0, ("sync", "exit"), 0.25)
    assert _figures(_predict(runs["exit"])["sync"]) == _real(runs["sync"]) == (4, 1, 1)
    outcome = _predict(runs["sync"], given=False)["sync"]
    assert outcome.inference["modes"] == ["sync"], outcome.inference


def test_async_queue_of_puts_is_a_race(tmp_path: Path) -> None:
    """long_chain late, on a slow store: ten steps shorter than one write, so under async the
    puts queue; from the exit recording async is a race over the writes' cost, its span
    holding what the real async run kept. At the corpus's own unit (0.4 s) about five puts
    have landed at the kill: the sixth put's landing moves by 6 x 50 ms over the span, more
    than the 260 ms between two landings, so one of them crosses the kill. The real async
    run is compared only when it got as far as the exit run (the same lines before its kill:
    a kill aimed by the clock can land a task end later on a loaded machine)."""
    runs = _campaign(tmp_path, "long_chain", 1, ("async", "exit"), 0.25, sleep=0.4)
    outcome = _predict(runs["exit"])["async"]
    assert outcome.race and "queue" in outcome.race["note"], outcome.race
    if _progress(runs["async"]) == _progress(runs["exit"]):
        real = _real(runs["async"])
        for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines")):
            lo, hi = outcome.race[key]
            assert lo <= real[i] <= hi, (key, outcome.race, real)
