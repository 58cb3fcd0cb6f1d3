"""A thread the effects log has no line of: the tasks a resume runs come from the database
alone, which cannot tell whether they had begun before the kill.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from whatif_kills import figures, holds, load, plan, predict, real


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


def test_the_header_gives_the_range_the_recorded_modes_what_if_gives(tmp_path: Path) -> None:
    """One answer: the same kill's header (`what_happens_again`, which the Thread page, the
    Incident page, `replay` and every `--json` print) said 1 task re-run where the recorded
    mode's own what-if said 0-1 (and the database's own answer, the mode unknown, said 1
    where every mode's what-if said 0-1); and weather_subgraph under sync at 0 s, a bare log, said 3
    lines again where the what-if said 1-3 (two starts the log cannot tell apart). Each view
    now prints the range, and why."""
    from replaylens.analysis.again import again_under, what_happens_again

    sync = load("multiple_subgraphs_same-early-0.25s", tmp_path)["sync"]
    for given in (True, False):
        p = plan(sync, "recorder", given)
        header = what_happens_again(p)
        assert (header.figure("tasks"), header.figure("lines")) == ("0–1", None), given
        assert "whether they had begun before the kill" in header.span_why
        # told the mode, its card is the header; not told, every mode's card says unknown
        assert again_under(p, "sync").figure("tasks") == ("0–1" if given else None)
        assert header.to_json()["range"] == {"tasks": [0, 1]}
    weather = load("weather_subgraph-early-0s", tmp_path)["sync"]
    p = plan(weather, "bare")
    lo, hi = p.what_if["sync"].race["replayed_lines"]
    header = what_happens_again(p)
    assert header.span_of("lines") == (lo, hi) == (1, 3)
    assert header.figure("lines") == again_under(p, "sync").figure("lines") == "1–3"
    assert header.figure("checkpoints_kept") == "6"  # the database's own count, no range


@pytest.mark.usefixtures("fresh_streamlit")
def test_every_view_of_the_thread_gives_the_tasks_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same kill opened as a user opens it: the Thread page's "tasks again", the Resume
    simulator's "tasks that re-run" and `replay` say 0–1 (the manifest tells the mode);
    `incident --json`, which reads no manifest, names the task and the same range."""
    from app_pages import open_page

    from replaylens.cli import main

    runs = load("multiple_subgraphs_same-early-0.25s", tmp_path)
    sync = runs["sync"]
    db, tid = str(sync["db_at_kill"]), sync["thread_id"]
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(tmp_path)]))
    thread = dict((m.label, m.value) for m in open_page("thread", db=db, thread=tid).metric)
    assert thread["tasks again"] == "0–1", thread
    resume = dict((m.label, m.value) for m in open_page("resume", db=db, thread=tid).metric)
    assert resume["tasks that re-run"] == "0–1", resume
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["incident", db, "--effects", str(sync["effects_at_kill"]), "--json"])
    row = next(t for t in json.loads(out.getvalue())["threads"] if t["thread_id"] == tid)
    assert (row["reruns"], row["tasks_again"], row["range"]) == (
        ["call_same_subgraph"],
        1,
        {"tasks": [0, 1]},
    )
