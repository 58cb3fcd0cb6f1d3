"""The what-if and the verdicts on the eighteenth held-out round: functional graphs an
`@task` call invokes one after another (test_multiple_subgraphs_functional).

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, figures, load, predict, real

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
    assert figures(predict(runs["exit"])["sync"]) == (4, 2, 3)
    every_prediction_holds(runs, forms=("recorder", "langgraph"))
