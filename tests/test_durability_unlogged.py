"""A thread the effects log has no line of: the tasks a resume runs come from the database
alone, which cannot tell whether they had begun before the kill.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import figures, holds, load, predict, real


def test_a_task_due_at_the_resume_checkpoint_may_not_have_logged_before_the_kill(
    tmp_path: Path,
) -> None:
    """multiple_subgraphs_same under `ainvoke` at 0.25 s, killed under sync 0.48 s into
    ``call_same_subgraph``: the subgraph's input checkpoint had landed, ``add`` had not yet
    logged its first line. The database names ``call_same_subgraph`` due at the resume
    checkpoint; the real resume ran it again and repeated no line. Said as one task again,
    the what-if of the recording's own mode missed its own resume (3 1 0 where 3 0 0)."""
    runs = load("multiple_subgraphs_same-early-0.25s", tmp_path)
    sync = runs["sync"]
    measured = real(sync, "recorder")
    assert measured == (3, 0, 0)
    for form in ("recorder", "langgraph", "bare"):
        for given in (True, False):
            own = predict(sync, form, given)["sync"]
            assert [r["node"] for r in own.reruns] == ["call_same_subgraph"]
            assert figures(own)[0] == 3
            assert own.race["reruns"] == [0, 1], (form, given)
            assert "no effects-log line of this thread" in own.race["note"]
            assert holds(own, measured), (form, given, own.race)
