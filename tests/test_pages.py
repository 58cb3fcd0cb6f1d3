"""Every page under streamlit.testing's AppTest, on real databases, including bad input.

The app reads its `replaylens serve` arguments from REPLAYLENS_SERVE_ARGS here (AppTest
cannot pass argv). Streamlit's caches are cleared before each test so that no test sees
another's data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from app_pages import open_page, texts
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.usefixtures("apptest_env")


def frame(at: AppTest, index: int = 0) -> Any:
    return at.dataframe[index].value


def frame_with(at: AppTest, column: str) -> Any:
    """The first table (data grid or static) with `column`: tables above it (what happens again)
    come and go by thread."""
    return next(d.value for d in [*at.dataframe, *at.table] if column in d.value.columns)


# -- Threads ----------------------------------------------------------------------------
def test_threads_page_lists_threads_attention_first(demo: Path) -> None:
    at = open_page("threads", db=str(demo / "examples" / "failing.db"))
    df = frame(at)
    assert list(df["thread"]) == ["failing-b-raised", "failing-done"]
    assert list(df["status"]) == ["failed", "completed"]
    link = df["open"].iloc[0]
    assert link.startswith("./thread?db=") and "failing.db&thread=failing-b-raised" in link
    assert str(at.query_params["db"]).endswith("examples/failing.db")


def test_threads_page_counts_lines_that_would_replay(demo: Path) -> None:
    at = open_page("threads", db=str(demo / "crashes" / "payment-sync.db"))
    row = frame(at).iloc[0]
    assert row["status"] == "resumable" and row["log lines again"] >= 1 and row["effect lines"] == 7


def test_threads_page_filters_by_search_and_status(demo: Path) -> None:
    at = open_page("threads", db=str(demo / "examples" / "payment.db"))
    at.text_input(key="q").input("waiting").run()
    assert list(frame(at)["thread"]) == ["payment-waiting-for-approval"]
    at.text_input(key="q").input("nothing-like-this").run()
    assert "No thread matches" in texts(at)


def test_threads_page_shows_threads_known_only_from_the_effects_log(demo: Path) -> None:
    at = open_page("threads", db=str(demo / "crashes" / "linear-exit.db"))
    assert list(frame(at)["status"]) == ["needs restart"]


# -- Thread -----------------------------------------------------------------------------
def test_thread_page_deep_link_shows_timeline_tables_and_report(demo: Path) -> None:
    at = open_page(
        "thread",
        db=str(demo / "crashes" / "fanout-sync.db"),
        thread="fanout-sync-killed",
        mode="sync",
    )
    body = texts(at)
    assert "resumable" in body and "Resuming this thread will run `p3` again" in body
    assert at.selectbox(key="_sel_thread").value == "fanout-sync-killed"
    again = frame_with(at, "times again")
    assert list(again["node"]) == ["p3"] and list(again["times again"]) == [1]
    checkpoints = frame_with(at, "next tasks")
    assert list(checkpoints["step"]) == [-1, 0, 1]
    assert "p3 (pending)" in checkpoints["next tasks"].iloc[-1]
    # Only the open tab runs (a cold page loads no code for tabs nobody looks at).
    assert not [d for d in at.dataframe if "task status" in d.value.columns]
    assert not [b for b in at.get("download_button") if b.key in ("dl_report", "dl_json")]
    params = {
        "db": str(demo / "crashes" / "fanout-sync.db"),
        "thread": "fanout-sync-killed",
        "mode": "sync",
    }
    writes = frame_with(open_page("thread", **params, view="Writes"), "task status")
    assert {"p1", "p2"} <= set(writes["task"])
    at = open_page("thread", **params, view="Report")
    downloads = [b.proto.label for b in at.get("download_button")]
    assert any("Markdown" in d for d in downloads) and any("JSON" in d for d in downloads), (
        downloads
    )
    report = "\n".join(c.value for c in at.code)
    assert "# Resume report for thread `fanout-sync-killed`" in report
    assert "./thread?" in report or "http" in report


def test_thread_page_opens_a_given_checkpoint_and_its_state(demo: Path) -> None:
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    thread = load_thread(open_source(demo / "examples" / "linear.db"), "linear-done")
    assert thread.root is not None
    second = thread.root.checkpoints[2]
    at = open_page("thread", db=str(demo / "examples" / "linear.db"), thread="linear-done",
                   checkpoint=second.checkpoint_id, view="State")  # fmt: skip
    assert at.selectbox(key="_sel_checkpoint").value == second.checkpoint_id
    state = frame_with(at, "characters")
    assert "visited" in set(state["channel"])


def test_thread_page_unknown_thread_in_the_url_says_so(demo: Path) -> None:
    at = open_page("thread", db=str(demo / "examples" / "linear.db"), thread="no-such-thread")
    assert any("no-such-thread" in e.value.replace("\\", "") and "is not in linear.db" in e.value.replace("\\", "")
               for e in at.error)  # fmt: skip
    # No fallback to another thread's analysis (dangerous after an incident): the list, nothing else.
    assert not [s for s in at.selectbox if s.key == "_sel_thread"]
    assert not at.tabs and not at.metric
    assert any("linear-done" in m.value for m in at.markdown)
    assert at.query_params.get("thread") == "no-such-thread"  # the URL is not rewritten


def test_thread_page_for_a_thread_without_checkpoints(demo: Path) -> None:
    at = open_page(
        "thread", db=str(demo / "crashes" / "linear-exit.db"), thread="linear-exit-killed"
    )
    body = texts(at)
    assert "needs restart" in body and "EmptyInputError" in body


def test_thread_page_subgraph_namespace(demo: Path) -> None:
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    sub = [
        n
        for n in load_thread(
            open_source(demo / "examples" / "subgraph.db"), "subgraph-done"
        ).namespaces
        if n
    ][0]
    at = open_page("thread", db=str(demo / "examples" / "subgraph.db"), thread="subgraph-done")
    options = at.selectbox(key="_sel_ns").options
    assert len(options) == 2 and "root graph" in options[0]
    at.selectbox(key="_sel_ns").set_value(sub).run()
    assert not at.exception
    assert "s1" in " ".join(frame_with(at, "next tasks")["next tasks"])


def test_thread_page_shows_database_strings_as_text(demo: Path) -> None:
    tid = "<b>bold</b>[click](javascript:alert(1))"
    at = open_page("thread", db=str(demo / "examples" / "hostile.db"), thread=tid, view="State")
    import re

    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info, *at.success]:
        outside_code = re.sub(r"`[^`]*`", "", element.value)  # code spans are inert
        assert "](javascript" not in outside_code and "<b>" not in outside_code, element.value
    at.selectbox(key="channel").set_value("visited").run()
    assert any("Showing the first 20,000" in c.value for c in at.caption)
    assert any("<script>" in c.value for c in at.code)  # shown, as code text


# -- Resume simulator -------------------------------------------------------------------
def test_resume_page_compares_the_three_modes(demo: Path) -> None:
    at = open_page(
        "resume", db=str(demo / "crashes" / "payment-sync.db"), thread="payment-sync-killed"
    )
    body = texts(at)
    for mode in ("sync", "async", "exit"):
        assert f"Under {mode}, " in body
    assert "charge_card" in body
    labels = [b.proto.label for b in at.get("download_button")]
    assert any("Markdown" in b for b in labels) and any("JSON" in b for b in labels)


def test_resume_page_latency_and_mode_change_the_view(demo: Path) -> None:
    at = open_page("resume", db=str(demo / "crashes" / "fanout-async-slowput.db"),
                   thread="fanout-async-slowput-killed", mode="exit", latency="0")  # fmt: skip
    assert "▶ exit" in texts(at)
    kept_fast = [m.value for m in at.metric if m.label == "checkpoints kept"]
    at.slider(key="latency").set_value(1000).run()
    kept_slow = [m.value for m in at.metric if m.label == "checkpoints kept"]
    assert kept_slow[1] <= kept_fast[1]  # async keeps fewer checkpoints with a slower store


# -- Kill-test runs ---------------------------------------------------------------------
def test_runs_page_recomputes_the_table(demo: Path) -> None:
    at = open_page("runs")
    summary = frame(at, 0)
    assert list(summary["mode"]) == ["sync", "async", "exit"]
    assert summary.set_index("mode").loc["exit", "resumed"] == "0/2"
    runs = frame(at, 1)
    assert len(runs) == 6 and all(link.startswith("./thread?db=") for link in runs["open"])
    charts = at.get("plotly_chart")
    # Four strips (tasks re-run, lines again added); every run of the demo campaign was killed
    # at one delay, so no curve against the kill moment is drawn, and the page says why.
    assert len(charts) == 4
    assert any("--kill-delay LOW..HIGH" in c.value for c in at.caption)
    # Repeats against the kill moment: one trace per backend and mode, x = each run's kill delay
    # as the manifest records it, y = the lines repeated counted from the run's own logs.
    from replaylens.figures.runs import repeats_by_kill_moment

    spec = json.loads(repeats_by_kill_moment(runs, "lines repeated").to_json())
    manifest = json.loads((demo / "campaign-linear" / "manifest.json").read_text())
    delays: dict[str, list[float]] = {}
    for run in manifest["runs"]:
        delays.setdefault(f"sqlite · {run['mode']}", []).append(run["kill"]["delay"])

    def values(v: Any) -> list[float]:  # Plotly ships arrays as base64 typed arrays
        if isinstance(v, dict):
            import base64

            import numpy as np

            return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).tolist()
        return list(v)

    traces = {t["name"]: (values(t["x"]), values(t["y"])) for t in spec["data"]}
    assert set(traces) == set(delays)
    for name, (xs, ys) in traces.items():
        assert sorted(xs) == sorted(delays[name])
        mode = name.split(" · ")[1]
        assert sorted(ys) == sorted(runs[runs["mode"] == mode]["lines repeated"])
    # measured and predicted repeats side by side, in the same units, for every killed run
    killed = runs[runs["resumed"].notna()]
    assert killed["tasks re-run"].notna().all() and killed["tasks re-run (predicted)"].notna().all()
    assert (
        killed["effect lines again"].astype(str) == killed["effect lines again (predicted)"]
    ).all()


def test_runs_page_without_campaigns_says_what_to_do(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(demo / "examples")]))
    at = open_page("runs")
    assert "No kill-test campaign found" in texts(at)


# -- Learn ------------------------------------------------------------------------------
def test_learn_page_walks_through_supersteps(demo: Path) -> None:
    at = open_page("learn", db=str(demo / "examples" / "fanout.db"), step="2")
    body = texts(at)
    assert (
        "3 tasks ran in parallel" in body and "If SIGKILL hit in the middle of superstep 2" in body
    )
    assert "Reused (not run)" in body
    at.button(key="next").click().run()
    assert "superstep 3" in texts(at)
    at.segmented_control(key="mode").set_value("exit").run()
    assert "EmptyInputError" in texts(at)


# -- bad input --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("not-a-db.db", "is not a SQLite database"),
        ("empty.db", "is empty (0 bytes)"),
        ("other-app.db", "not a LangGraph checkpoint database"),
    ],
)
def test_files_that_are_not_checkpoint_databases_get_a_sentence(
    demo: Path, name: str, message: str
) -> None:
    for page in ("threads", "thread", "resume", "learn"):
        at = open_page(page, db=str(demo / "bad" / name))
        assert any(message in e.value.replace("\\", "") for e in at.error), (
            page,
            [e.value for e in at.error],
        )


def test_database_without_threads_says_what_to_do(demo: Path) -> None:
    at = open_page("threads", db=str(demo / "bad" / "no-threads.db"))
    assert "holds no threads yet" in texts(at)
    at = open_page("thread", db=str(demo / "bad" / "no-threads.db"))
    assert "holds no threads yet" in texts(at)


def test_corrupt_blob_and_bad_effect_lines_are_reported_and_the_rest_loads(demo: Path) -> None:
    at = open_page("threads", db=str(demo / "bad" / "corrupt-blob.db"))
    assert list(frame(at)["status"]) == ["unreadable"]
    labels = " ".join(e.label for e in at.expander)
    assert (
        "bad line(s) in the effects log" in labels and "problem(s) reading the database" in labels
    )
    at = open_page("thread", db=str(demo / "bad" / "corrupt-blob.db"), view="State")
    assert any("cannot be decoded" in e.value for e in at.error)
    at = open_page("thread", db=str(demo / "bad" / "corrupt-blob.db"), view="Timeline")
    assert not at.exception


@pytest.mark.parametrize(
    "path", ["../../etc/passwd", "/etc/passwd", "examples/../examples/linear.db"]
)
def test_paths_outside_the_allowed_folders_are_refused(path: str) -> None:
    at = open_page("threads", db=path)
    assert any("refused" in e.value for e in at.error)


def test_upload_a_database_and_its_effects_log(demo: Path) -> None:
    at = open_page("threads")
    db = demo / "crashes" / "payment-sync.db"
    from replaylens.killtest.harness import snapshot_db

    copy = snapshot_db(db, demo.parent / "upload-src" / "payment.db")
    import sqlite3

    with sqlite3.connect(copy) as conn:  # fold the WAL in, as an uploaded single file would be
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    files = [
        ("payment.db", copy.read_bytes(), "application/octet-stream"),
        (
            "payment.effects.jsonl",
            (demo / "crashes" / "payment-sync.effects.jsonl").read_bytes(),
            "text/plain",
        ),
    ]
    at.file_uploader(key="upload").set_value(files).run()
    assert not at.exception
    assert list(frame(at)["thread"]) == ["payment-sync-killed"]
    assert frame(at)["effect lines"].iloc[0] == 7


def test_upload_of_a_text_file_is_refused_politely(demo: Path) -> None:
    at = open_page("threads")
    at.file_uploader(key="upload").set_value(
        ("notes.db", b"hello, not sqlite", "application/octet-stream")
    ).run()
    assert not at.exception
    assert any("is not a SQLite database" in e.value.replace("\\", "") for e in at.error)


def test_a_kill_test_run_opens_at_its_recorded_latency(demo: Path) -> None:
    """A run recorded at 0 ms per checkpoint write opens with the model at 0 ms, so the recorded
    mode reads "as recorded", not "model at 250 ms" beside the recording's own mode."""
    manifest = json.loads((demo / "campaign-linear" / "manifest.json").read_text())
    run = manifest["runs"][0]
    at = open_page(
        "thread", db=str(demo / "campaign-linear" / run["db_at_kill"]), thread=run["thread_id"]
    )
    assert at.slider(key="latency").value == round(run["put_latency"] * 1000)
    assert run["put_latency"] * 1000 != 250  # else the old default would pass too
    body = texts(at)
    assert f"Under {run['mode']}, " in body and "(as recorded:" in body, body


def test_thread_and_resume_pages_say_the_timeline_opens_zoomed_to_the_crash() -> None:
    """The approval thread waits seconds for a human before the crash, so its timeline opens
    on the last moments; both pages that draw it say so, and how to see the whole thread
    (the Resume simulator drew it zoomed without a word)."""
    from replaylens.dashboard.ui.widgets import ZOOM_CAPTION

    db = Path(__file__).resolve().parents[1] / "sample_dbs/payment/runs/sync-0s-1/at-kill.db"
    for page in ("thread", "resume"):
        at = open_page(page, db=str(db), thread="killtest-sync-0s-1", mode="sync")
        assert ZOOM_CAPTION in texts(at), page
