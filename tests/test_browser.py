"""The app as a person uses it: `replaylens serve` on a free port, driven by headless Chromium.

Waits use Streamlit's own state attribute on the stApp element (see
`dashboard_data.wait_idle`) and Playwright's auto-waiting assertions, never sleeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from dashboard_data import tab, wait_idle

pytestmark = pytest.mark.browser
playwright = pytest.importorskip("playwright.sync_api")
expect = playwright.expect


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    """One tab for the module: the app's scripts and styles load once (Chromium here renders in software)."""
    with tab(browser) as p:
        yield p


def url(base: str, path: str, **params: str) -> str:
    return f"{base}/{path}" + (f"?{urlencode(params, quote_via=quote)}" if params else "")


def open_view(page: Any, address: str) -> None:
    page.goto(address)
    wait_idle(page)
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert "Traceback" not in page.inner_text("body")


PAGES = [
    ("Threads", "Threads", "Search thread id"),
    ("Thread", "Thread", "Superstep timeline"),
    ("Resume simulator", "Resume simulator", "The three durability modes"),
    ("Kill-test runs", "Kill-test runs", "Per mode and latency"),
    ("Learn supersteps", "Learn supersteps", "Pick the superstep in which the kill lands"),
]


def test_every_page_opens_from_the_navigation(page: Any, base_url: str, demo: Path) -> None:
    open_view(page, url(base_url, "threads", db=str(demo / "examples" / "fanout.db")))
    for link, title, seen in PAGES:
        page.get_by_role("link", name=link, exact=True).click()
        expect(page.locator('[data-testid="stMain"] h1').first).to_have_text(title)
        wait_idle(page)
        expect(page.get_by_text(seen).first).to_be_visible()
        expect(page.locator('[data-testid="stException"]')).to_have_count(0)
        # The database chosen in the sidebar follows the reader from page to page.
        expect(page.get_by_role("combobox", name="Database")).to_have_value(
            re.compile(r"fanout\.db")
        )


def test_every_page_has_its_own_url_without_a_not_found_notice(
    page: Any, base_url: str, demo: Path
) -> None:
    db = str(demo / "examples" / "fanout.db")
    for path, title, _ in [
        ("threads", "Threads", None),
        ("thread", "Thread", None),
        ("", "Threads", None),
    ]:
        open_view(page, url(base_url, path, db=db))
        expect(page.locator('[data-testid="stMain"] h1').first).to_have_text(title)
        expect(page.get_by_text("Page not found")).to_have_count(0)
    # `/` hands its query parameters to the Threads page, so an old link keeps its database.
    expect(page.get_by_role("combobox", name="Database")).to_have_value(re.compile(r"fanout\.db"))


def test_deep_link_opens_the_same_checkpoint_and_tab(page: Any, base_url: str, demo: Path) -> None:
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    thread = load_thread(open_source(demo / "examples" / "linear.db"), "linear-done")
    assert thread.root is not None
    cp = thread.root.checkpoints[2]
    open_view(page, url(base_url, "thread", db=str(demo / "examples" / "linear.db"), thread="linear-done",
                        checkpoint=cp.checkpoint_id, view="State"))  # fmt: skip
    picker = page.get_by_role("combobox", name="Checkpoint to inspect")
    expect(picker).to_have_value(re.compile(re.escape(cp.checkpoint_id[-8:]) + "$"))
    expect(page.get_by_role("tab", name="State", selected=True)).to_be_visible()
    expect(page.get_by_text("State at this checkpoint")).to_be_visible()
    # The URL keeps naming the view, so it can be pasted into a write-up.
    assert "thread=linear-done" in page.url and cp.checkpoint_id in page.url


def test_bad_urls_get_a_sentence_not_a_traceback(page: Any, base_url: str, demo: Path) -> None:
    open_view(page, url(base_url, "thread", db=str(demo / "examples" / "linear.db"), thread="nope"))
    expect(page.get_by_text("is not in linear.db").first).to_be_visible()
    open_view(page, url(base_url, "threads", db="/etc/passwd"))
    expect(page.get_by_text("refused because it is outside the folders").first).to_be_visible()
    open_view(page, url(base_url, "threads", db=str(demo / "bad" / "not-a-db.db")))
    expect(page.get_by_text("is not a SQLite database").first).to_be_visible()


def test_changing_the_durability_mode(page: Any, base_url: str, demo: Path) -> None:
    open_view(page, url(base_url, "resume", db=str(demo / "crashes" / "payment-sync.db"),
                        thread="payment-sync-killed", mode="sync"))  # fmt: skip
    expect(page.get_by_text("▶ sync")).to_be_visible()
    expect(page.get_by_text("Under exit, a resume would start").first).to_be_visible()
    page.get_by_role("radiogroup", name="Highlight mode").get_by_role(
        "radio", name="exit", exact=True
    ).click()
    expect(page.get_by_text("▶ exit")).to_be_visible()
    wait_idle(page)
    expect(page.get_by_text("▶ sync")).to_have_count(0)
    assert "mode=exit" in page.url
    expect(page.get_by_text("Timeline under exit")).to_be_visible()


def test_upload_a_database_with_its_effects_log(
    page: Any, base_url: str, demo: Path, tmp_path: Path
) -> None:
    import sqlite3

    from replaylens.killtest.harness import snapshot_db

    copy = snapshot_db(demo / "crashes" / "payment-sync.db", tmp_path / "uploaded-payment.db")
    with sqlite3.connect(copy) as conn:  # one self-contained file, as someone would upload it
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    log = tmp_path / "uploaded-payment.effects.jsonl"
    log.write_bytes((demo / "crashes" / "payment-sync.effects.jsonl").read_bytes())
    open_view(page, url(base_url, "thread"))
    page.get_by_text("Upload a database").click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        [str(copy), str(log)]
    )
    expect(page.get_by_text("Resuming this thread will run").first).to_be_visible()
    wait_idle(page)
    expect(page.get_by_text("charge_card").first).to_be_visible()
    # The deep link is written by the script run after the upload: waited for, not read at once.
    page.wait_for_url(re.compile(r".*uploaded-payment\.db.*"))


def test_learn_page_steps_through_supersteps(page: Any, base_url: str, demo: Path) -> None:
    open_view(page, url(base_url, "learn", db=str(demo / "examples" / "fanout.db"), step="2"))
    expect(page.get_by_text("3 tasks ran in parallel")).to_be_visible()
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_text("What happened in superstep 3")).to_be_visible()
