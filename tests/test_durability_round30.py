"""The what-if on the thirtieth held-out round: two sibling subgraphs compiled with
``checkpointer=True``, run twice, then run again from the newest checkpoint where the node
before them was due (test_time_travel.py::test_parallel_subgraph_nodes_load_correct_state_on_replay).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from whatif_kills import every_prediction_holds, figures, holds, load, predict, real


def test_a_bare_run_nothing_of_which_landed_is_read_as_input_and_as_a_copy(
    tmp_path: Path,
) -> None:
    """Killed 0.2 s into parent_step of the run from the second input's checkpoint, where the
    copy took 0.25 s to save: the database holds nothing of that run, in either mode. A bare
    log shows parent_step starting again after the thread's end, as a fresh input would; a
    fresh input's checkpoints land under sync before its first node starts (22 kept and
    parent_step again), a copy's do not hold the run back (20 kept, nothing again: the resume
    goes on from the second input's end). Read one way only, sync was 22, 1, 1 where the
    real sync run measured 20, 0, 0; the what-if now gives the range and says why."""
    runs = load("parallel_stateful_subgraphs_replayed-early-0.25s", tmp_path)
    assert real(runs["sync"]) == (20, 0, 0)
    outcome = predict(runs["async"], "bare", given=False)["sync"]
    assert outcome.race["checkpoints_kept"] == [20, 22] and outcome.race["reruns"] == [0, 1]
    assert "run from an earlier checkpoint" in outcome.race["note"]
    assert holds(outcome, real(runs["sync"]))
    # with task ids and steps the log tells the copy's run: one answer, no range
    assert figures(predict(runs["async"], "recorder", given=False)["sync"]) == (20, 0, 0)
    every_prediction_holds(runs)


def test_the_write_latency_read_from_a_sync_log_counts_a_subgraphs_later_runs(
    tmp_path: Path,
) -> None:
    """Killed in sub_b_step of that run, under sync at 0.25 s: the inference reads the write
    latency from how long each step waited after its checkpoint was taken. A subgraph's first
    node waits for two writes, its input checkpoint's and `__start__`'s, in every run — the
    later runs' steps go on from the earlier ones' (input at step 2, not -1) — and counted as
    one, they made the latency 0.5 s and the async what-if 27 kept, where 26 were."""
    runs = load("parallel_stateful_subgraphs_replayed-late-0.25s", tmp_path)
    inference = predict(runs["sync"], given=False)["async"].inference
    assert inference["modes"] == ["sync"]
    assert inference["latency_seconds"] == pytest.approx(0.25, abs=0.05)
    assert holds(predict(runs["sync"], given=False)["async"], real(runs["async"]))
    every_prediction_holds(runs)
