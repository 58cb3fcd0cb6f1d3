"""What a person sees at a glance, in real Chromium, at 1400 and at 1000 pixels.

The answer to "what happens twice" sits at the top of a thread (verdict, next move, the
"what happens again" table), an unknown thread id shows the thread list and nothing
else, campaign databases read as campaign › mode › run › moment, and nothing is cut at
1000 pixels. Waits use Streamlit's script state (`dashboard_data.wait_idle`), never sleeps.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboard_data import main_text, open_view, tab, url, wait_idle

pytestmark = pytest.mark.browser
playwright = pytest.importorskip("playwright.sync_api")
expect = playwright.expect
WIDTHS = (1400, 1000)


@pytest.fixture(scope="module", params=WIDTHS, ids=lambda w: f"{w}px")
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    with tab(browser, request.param, 45_000) as p:
        yield p


def not_cut(locator: Any) -> bool:
    """The element shows all of its text: no ellipsis, no overflow hidden past its box, in it
    or in any box nested in it (Streamlit cuts a metric's label in an inner one)."""
    return not locator.evaluate(
        "e => [e, ...e.querySelectorAll('*')].some(x => x.scrollWidth > x.clientWidth + 1)"
    )


def test_unknown_thread_shows_the_list_and_nothing_else(
    page: Any, base_url: str, demo: Path
) -> None:
    open_view(page, url(base_url, "thread", db=str(demo / "examples" / "linear.db"), thread="nope"))
    expect(page.get_by_text("is not in linear.db").first).to_be_visible()
    expect(page.get_by_text("Nothing is shown for it").first).to_be_visible()
    body = main_text(page)
    assert "linear-done" in body  # the threads that exist, to pick from
    for other in (
        "Superstep timeline",
        "Resuming this thread",
        "checkpoints\n",
        "What happens again",
    ):
        assert other not in body, other
    expect(page.get_by_role("tab")).to_have_count(0)
    assert "thread=nope" in page.url  # not rewritten to another thread


def test_failed_thread_shows_its_exception_and_next_move_at_the_top(
    page: Any, base_url: str, demo: Path
) -> None:
    open_view(
        page,
        url(
            base_url, "thread", db=str(demo / "examples" / "failing.db"), thread="failing-b-raised"
        ),
    )
    failed = page.get_by_text("failed with:").first
    expect(failed).to_be_visible()
    expect(page.get_by_text("RuntimeError").first).to_be_visible()
    expect(page.get_by_text("graph.invoke(None, config)").first).to_be_visible()
    timeline = page.get_by_text("Superstep timeline").first
    assert (
        failed.bounding_box()["y"] < timeline.bounding_box()["y"]
    )  # above the chart, not on a tab


def test_interrupted_thread_shows_the_question_and_the_command(
    page: Any, base_url: str, demo: Path
) -> None:
    open_view(page, url(base_url, "thread", db=str(demo / "examples" / "payment.db"),
                        thread="payment-waiting-for-approval"))  # fmt: skip
    expect(page.get_by_text("is waiting for an answer to:").first).to_be_visible()
    expect(page.get_by_text("invoice_id").first).to_be_visible()
    expect(page.get_by_text(re.compile(r"graph\.invoke\(Command\(resume=")).first).to_be_visible()


def test_what_happens_again_is_one_vocabulary_and_one_count(
    page: Any, base_url: str, demo: Path
) -> None:
    open_view(page, url(base_url, "thread", db=str(demo / "crashes" / "payment-sync.db"),
                        thread="payment-sync-killed", mode="sync"))  # fmt: skip
    verdict = page.get_by_text(re.compile("Resuming this thread will run")).first
    expect(verdict).to_contain_text("charge again (charge_card once)")
    assert "lines)" not in verdict.inner_text()
    expect(page.get_by_text("What happens again").first).to_be_visible()
    expect(page.get_by_text("Tasks re-run in the resume step").first).to_be_visible()
    # Every row's answer to "would the key dedupe" is read whole, wrapped, at both widths.
    from replaylens.analysis.again import again_rows
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.effects.parse import read_effects
    from replaylens.sources import open_source

    db = demo / "crashes" / "payment-sync.db"
    source = open_source(db)
    try:
        thread = load_thread(source, "payment-sync-killed")
    finally:
        source.close()
    log = read_effects(db.with_name("payment-sync.effects.jsonl"))
    rows = again_rows(plan_resume(thread, log, "payment-sync-killed", latency=0.25))
    tables = page.locator('[data-testid="stTable"]')
    shown = " ".join(" ".join(t.inner_text().split()) for t in tables.all())
    assert rows and all(r.dedupe in shown for r in rows), (shown, [r.dedupe for r in rows])
    for table in tables.all():
        assert table.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), table.inner_text()
    tasks = page.locator('[data-testid="stMetric"]').filter(has_text="tasks again")
    effects = page.locator('[data-testid="stMetric"]').filter(has_text="executions again")
    assert tasks.locator('[data-testid="stMetricValue"]').inner_text().strip() != "0"
    assert effects.locator('[data-testid="stMetricValue"]').inner_text().strip() == "1"
    for label in page.locator('[data-testid="stMetricLabel"]').all():
        assert not_cut(label), label.inner_text()


def test_every_mode_button_fits_in_the_mode_control(page: Any, base_url: str, demo: Path) -> None:
    open_view(
        page,
        url(
            base_url,
            "thread",
            db=str(demo / "crashes" / "payment-sync.db"),
            thread="payment-sync-killed",
        ),
    )
    main = page.locator('[data-testid="stMain"]').bounding_box()
    group = page.get_by_role("radiogroup", name="Replay window shown for")
    for mode in ("sync", "async", "exit"):
        box = group.get_by_role("radio", name=mode, exact=True).bounding_box()
        assert box is not None and box["x"] + box["width"] <= main["x"] + main["width"], mode
        assert box["width"] >= 30, mode


def test_learn_buttons_keep_their_words(page: Any, base_url: str, demo: Path) -> None:
    open_view(page, url(base_url, "learn", db=str(demo / "examples" / "fanout.db")))
    for name in ("Previous", "Next"):
        button = page.get_by_role("button", name=name)
        expect(button).to_be_visible()
        assert not_cut(button), name
        assert name in button.inner_text()
    assert "__start__" not in main_text(page)


def test_campaign_databases_read_as_campaign_mode_run_and_moment(
    page: Any, base_url: str, demo: Path
) -> None:
    import json

    manifest = json.loads((demo / "campaign-linear" / "manifest.json").read_text())
    run0 = manifest["runs"][0]
    db = str(demo / "campaign-linear" / run0["db_at_kill"])
    open_view(page, url(base_url, "thread", db=db, thread=run0["thread_id"]))
    picker = page.get_by_role("combobox", name="Database")
    expect(page.get_by_text("Kill-test run: campaign-linear").first).to_be_visible()
    expect(page.get_by_role("link", name="Back to its campaign")).to_be_visible()
    expect(picker).to_have_value(re.compile(r"^campaign-linear › \w+ \d+ ms › run \d+ › at kill$"))
    # The select cuts a name this long in the 300 px sidebar: the whole name stands under it,
    # wrapped, never cut (its box is as wide as its text needs).
    label = picker.input_value()
    whole = page.locator(
        '[data-testid="stSidebar"] [data-testid="stCaptionContainer"]', has_text=label
    )
    expect(whole).to_be_visible()
    assert (
        whole.first.evaluate("e => e.scrollWidth <= e.clientWidth && e.innerText.trim()") == label
    )


def test_a_status_tile_filters_the_table_and_the_url_is_a_deep_link(
    page: Any, browser: Any, base_url: str, demo: Path
) -> None:
    """The tile's filter is written into the URL as Streamlit's bind="query-params" writes a
    list (`status=failed`, one `status=` per value), and that URL opened in a fresh browser
    shows the same filtered table."""
    open_view(page, url(base_url, "threads", db=str(demo / "examples" / "failing.db")))
    page.get_by_role("button", name="show only failed").click()
    wait_idle(page)
    table = page.locator('[data-testid="stDataFrame"]').first
    expect(table).to_contain_text("failing-b-raised")
    expect(table).not_to_contain_text("failing-done")
    expect(page).to_have_url(re.compile(r"[?&]status=failed(&|$)"))
    fresh = browser.new_context(viewport=page.viewport_size)
    try:
        shared = fresh.new_page()
        open_view(shared, page.url)
        table = shared.locator('[data-testid="stDataFrame"]').first
        expect(table).to_contain_text("failing-b-raised")
        expect(table).not_to_contain_text("failing-done")
        expect(shared.locator('[data-testid="stMultiSelect"]')).to_contain_text("failed")
    finally:
        fresh.close()


def test_a_status_link_keeps_its_filter_where_no_thread_has_that_status(
    page: Any, base_url: str, demo: Path
) -> None:
    """A shared `status=failed` link on a database (or at a moment, while statuses are still
    being worked out) with no failed thread must not silently show every thread."""
    address = url(base_url, "threads", db=str(demo / "examples" / "linear.db"), status="failed")
    open_view(page, address)
    expect(page.get_by_text("No thread matches the search and status filter")).to_be_visible()
    expect(page.locator('[data-testid="stDataFrame"]')).to_have_count(0)
    expect(page).to_have_url(re.compile(r"[?&]status=failed(&|$)"))


def test_cold_thread_page_loads_no_code_for_hidden_tabs(
    browser: Any, base_url: str, demo: Path
) -> None:
    """A fresh browser on a warm server: the chart is drawn, and no script is fetched for what
    the first view does not show (Graphviz for a plain chain, other tabs)."""
    address = url(
        base_url, "thread", db=str(demo / "crashes" / "fanout-sync.db"), thread="fanout-sync-killed"
    )
    warm = browser.new_context()
    open_view(warm.new_page(), address)
    warm.close()
    with tab(browser) as p:
        scripts: list[str] = []
        p.on(
            "request",
            lambda r: scripts.append(r.url.rsplit("/", 1)[-1]) if r.url.endswith(".js") else None,
        )
        start = time.monotonic()
        open_view(p, address)
        p.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=60_000)
        drawn = time.monotonic() - start
        print(f"cold Thread page drawn in {drawn:.1f} s, {len(scripts)} scripts")
        assert any(s.startswith("PlotlyChart") for s in scripts)
        assert not [s for s in scripts if s.startswith("GraphVizChart")], scripts


def test_kill_test_charts_show_their_titles_axes_and_legends_whole(
    page: Any, base_url: str, demo: Path
) -> None:
    """Every chart of the Kill-test runs page keeps its title, axis titles, mode names and legend
    inside its own box (Plotly clips what sticks out of the SVG), at 1400 and 1000 px."""
    open_view(page, url(base_url, "runs"))
    charts = page.locator('[data-testid="stMain"] .js-plotly-plot')
    expect(charts.first).to_be_visible()
    assert charts.count() >= 4
    for chart in charts.all():
        chart.scroll_into_view_if_needed()
        outside = chart.evaluate(
            """e => {
                const box = e.getBoundingClientRect();
                return [...e.querySelectorAll('.gtitle, .xtitle, .ytitle, .xtick text, .legendtext')]
                    .filter(t => t.textContent.trim())
                    .filter(t => { const b = t.getBoundingClientRect();
                                   return b.left < box.left - 1 || b.right > box.right + 1; })
                    .map(t => t.textContent);
            }"""
        )
        assert not outside, outside


def test_resume_simulator_mode_boxes_cut_no_label(page: Any, base_url: str, demo: Path) -> None:
    """Each mode's box is a third of the page: its metrics wrap rather than read "c…"."""
    open_view(page, url(base_url, "resume", db=str(demo / "crashes" / "payment-sync.db"),
                        thread="payment-sync-killed", mode="sync"))  # fmt: skip
    labels = page.locator('[data-testid="stMain"] [data-testid="stMetricLabel"]')
    expect(labels.filter(has_text="checkpoints kept")).to_have_count(3)
    for label in labels.all():
        assert not_cut(label), label.inner_text()


def test_orphan_writes_show_their_task_and_channel_first(
    page: Any, base_url: str, demo: Path
) -> None:
    """At 1000 px the missing checkpoint's and the task's long ids used to push the task path
    and the channel (what a reader looks for) out of the table's view."""
    open_view(page, url(base_url, "thread", db=str(demo / "crashes" / "fanout-async-slowput.db"),
                        thread="fanout-async-slowput-killed", view="Writes"))  # fmt: skip
    expect(page.get_by_text(re.compile(r"\d+ orphan write\(s\)")).first).to_be_visible()
    missing = page.locator('[role="columnheader"]', has_text="missing checkpoint")
    table = page.locator('[data-testid="stDataFrame"]').filter(has=missing)
    headers = table.locator('[role="columnheader"]')
    expect(headers.first).to_have_text("task path")
    # The grid draws on a canvas; its hidden accessible table gives the columns' order.
    assert headers.all_inner_texts()[:4] == ["task path", "channel", "value", "bytes"]


def test_incident_key_table_reads_whole_at_both_widths(
    page: Any, base_url: str, demo: Path
) -> None:
    """The incident's "would the downstream service drop the repeats" table: each row's
    "what it means" sentence is shown whole (wrapped), not cut by a data grid at 1000 px."""
    from replaylens.analysis.incident import KEY_VERDICT_WORDS

    open_view(page, url(base_url, "incident", db=str(demo / "crashes" / "payment-sync.db")))
    expect(page.get_by_text("Would the downstream service drop the repeats?")).to_be_visible()
    tables = page.locator('[data-testid="stTable"]')
    shown = " ".join(" ".join(t.inner_text().split()) for t in tables.all())
    meant = [words for words in KEY_VERDICT_WORDS.values() if words in shown]
    assert meant, shown
    for table in tables.all():
        assert table.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), table.inner_text()


def test_storage_largest_threads_table_spans_the_page(page: Any, base_url: str, demo: Path) -> None:
    """Thread ids are long: in half the page at 1000 px the size and the open link were cut
    off, so the largest-threads table takes the whole width."""
    open_view(page, url(base_url, "storage", db=str(demo / "crashes" / "payment-sync.db")))
    heading = page.get_by_role("heading", name="Largest threads")
    expect(heading).to_be_visible()
    grid = page.locator(
        '[data-testid="stElementContainer"]', has=page.locator('[data-testid="stDataFrame"]')
    )
    # The page's content width: the title's box spans it.
    content = page.locator(
        '[data-testid="stElementContainer"]', has=page.get_by_role("heading", name="Storage")
    )
    full = content.first.bounding_box()
    below = [g.bounding_box() for g in grid.all()]
    top = heading.bounding_box()["y"]
    first = min((b for b in below if b and b["y"] > top), key=lambda b: b["y"])
    assert first["width"] >= 0.9 * full["width"], (first, full)
