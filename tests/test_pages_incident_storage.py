"""The pages of issue 18 (Incident, Storage) under streamlit.testing's AppTest, on real databases."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_pages import open_page, texts

pytestmark = pytest.mark.usefixtures("apptest_env")


def test_incident_page_shows_the_newest_crash_and_its_impact(demo: Path) -> None:
    at = open_page("incident", db=str(demo / "crashes" / "payment-sync.db"))
    text = texts(at)
    assert "would run `charge_card` 1 time" in text, text
    assert "times again 1" in text
    threads = at.dataframe[-1].value
    assert list(threads["thread"]) == ["payment-sync-killed"]
    assert threads["open"].iloc[0].startswith("./thread?")
    # how long it has been idle, in units a reader takes in, not a raw count of seconds
    idle = threads["idle for"].iloc[0]
    assert re.fullmatch(r"\d+ (d|h|min|s)( \d+ (h|min|s))?|just now", idle), idle
    impact = at.dataframe[0].value
    assert impact.to_dict("records") == [
        {"effect": "charge_card", "node": "charge", "times again": 1, "threads": 1}
    ]


def test_incident_page_filters_and_every_thread(demo: Path) -> None:
    at = open_page("incident", db=str(demo / "examples" / "payment.db"))
    at.segmented_control(key="pick").set_value("Every thread").run()
    assert not at.exception
    every = at.dataframe[-1].value
    assert len(every) >= 2
    at.text_input(key="inc_text").set_value("no-such-text").run()
    assert "No thread matches these filters" in texts(at)


def test_incident_page_without_database() -> None:
    open_page("incident", db="/nonexistent/x.db")


def test_storage_page_measures_without_writing(demo: Path) -> None:
    db = demo / "examples" / "payment.db"
    before = {
        s: Path(f"{db}{s}").stat().st_mtime_ns
        for s in ("", "-wal", "-shm")
        if Path(f"{db}{s}").exists()
    }
    at = open_page("storage", db=str(db))
    text = texts(at)
    assert "would free" in text and "prune frees" in text
    assert "thread" in at.dataframe[0].value.columns and "open" in at.dataframe[0].value.columns
    after = {
        s: Path(f"{db}{s}").stat().st_mtime_ns
        for s in ("", "-wal", "-shm")
        if Path(f"{db}{s}").exists()
    }
    assert before == after


def test_thread_page_time_travel_tab(demo: Path) -> None:
    at = open_page(
        "thread",
        db=str(demo / "crashes" / "payment-sync.db"),
        thread="payment-sync-killed",
        view="Time travel",
    )
    text = texts(at)
    assert "Resuming from this checkpoint re-runs `charge`" in text, text
    code = "\n".join(str(c.value) for c in at.code)
    assert '"checkpoint_id"' in code and "invoke(None, config)" in code
    # The latest checkpoint has no later steps, so no "likely" lines: no "+0 likely" under the count.
    (again,) = [m for m in at.metric if m.label == "lines again"]
    assert not again.delta, again.delta
    at.segmented_control(key="tt_move").set_value("fork").run()
    assert not at.exception
    assert "update_state" in "\n".join(str(c.value) for c in at.code)
