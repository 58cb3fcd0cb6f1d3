"""What a first-time user tripped on at 1400 and 1000 pixels (issue 29), in real Chromium.

Served: the demo folder (tests/dashboard_data.py), the bundled `sample_dbs/` campaigns,
and a copy of a demo database without its effects log (a database of one's own). One
Chromium runs as the others do; a second one is started with a fontconfig file that
rejects the colour-emoji font, as on a machine where `make test` never installed it.
Waits use Streamlit's script state (`dashboard_data.wait_idle`), never sleeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboard_data import CHROMIUM, CHROMIUM_ARGS, open_view, serving, tab, url, wait_idle

pytestmark = pytest.mark.browser
playwright = pytest.importorskip("playwright.sync_api")
expect = playwright.expect
WIDTHS = (1400, 1000)
REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_dbs"
NO_EMOJI_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont><glob>*Emoji*</glob></rejectfont></selectfont>
</fontconfig>
"""


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory, demo: Path) -> Path:
    """A folder holding a database with no effects log next to it."""
    import contextlib
    import sqlite3

    folder = tmp_path_factory.mktemp("own")
    source = f"file:{demo / 'crashes' / 'fanout-sync.db'}?mode=ro"
    with (
        contextlib.closing(sqlite3.connect(source, uri=True)) as src,
        contextlib.closing(sqlite3.connect(folder / "mine.db")) as dst,
    ):
        src.backup(dst)  # the WAL's pages too, read-only on the source
    return folder


@pytest.fixture(scope="module")
def site(demo: Path, own: Path) -> Iterator[str]:
    with serving([demo, SAMPLES, own]) as address:
        yield address


@pytest.fixture(scope="module", params=WIDTHS, ids=lambda w: f"{w}px")
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    with tab(browser, request.param, 45_000) as p:
        yield p


@pytest.fixture(scope="module")
def emojiless(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium that cannot find any emoji font (FONTCONFIG_FILE rejects them)."""
    import os

    conf = tmp_path_factory.mktemp("fonts") / "fonts.conf"
    conf.write_text(NO_EMOJI_FONTS)
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    b = browser.browser_type.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, env=env
    )
    yield b
    b.close()


def grid_headers(page: Any, grid: Any) -> list[str]:
    """The columns the data grid has on screen: it draws on a canvas and keeps an
    accessible table of the columns in view only (a column cut at the edge counts)."""
    grid.hover()
    headers = grid.locator('[role="columnheader"]')
    headers.first.wait_for(state="attached")
    return headers.all_inner_texts()


def colour_pixels(png: bytes, hex_colour: str, tolerance: int = 40) -> int:
    """How many pixels of the image are within `tolerance` (per channel) of the colour."""
    import io

    from PIL import Image

    want = tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return sum(
        n
        for n, px in img.getcolors(img.width * img.height)
        if all(abs(a - b) <= tolerance for a, b in zip(px, want, strict=True))
    )


# --------------------------------------------------------------------------- 1: statuses
@pytest.mark.parametrize("width", WIDTHS)
def test_status_colours_show_without_an_emoji_font(
    emojiless: Any, site: str, demo: Path, width: int
) -> None:
    """On a machine without the colour-emoji font, each status of the Threads table is
    still its word on its colour: the grid cell of the failed thread holds the failed red,
    the completed one the completed green. With emoji dots it held an empty box."""
    from replaylens.figures.statuses import status_color

    with tab(emojiless, width, 45_000) as p:
        # The setting works: this browser cannot draw a colour emoji at all.
        drawn = p.evaluate(
            """() => { const c = document.createElement('canvas'); c.width = c.height = 40;
                       const x = c.getContext('2d'); x.font = '32px sans-serif';
                       x.fillText('\\u{1F7E2}', 2, 34);
                       const d = x.getImageData(0, 0, 40, 40).data; let green = 0;
                       for (let i = 0; i < d.length; i += 4)
                         if (d[i + 1] > 120 && d[i] < 120 && d[i + 3] > 200) green++;
                       return green; }"""
        )
        assert drawn == 0, "the emoji font is still visible to this Chromium"
        open_view(p, url(site, "threads", db=str(demo / "examples" / "failing.db")))
        grid = p.locator('[data-testid="stDataFrame"]').first
        expect(grid).to_contain_text("failing-b-raised")
        shot = grid.screenshot()
        for status in ("failed", "completed"):
            assert colour_pixels(shot, status_color(status)) > 40, status


# --------------------------------------------------------------------------- 2: Threads table
def test_threads_table_keeps_what_a_reader_acts_on_on_screen(
    page: Any, site: str, demo: Path
) -> None:
    """At 1000 px "due next", "effect lines", "log lines again" and "open" were off-screen;
    at 1400 "open" was cut at the edge on the fan-out database."""
    open_view(page, url(site, "threads", db=str(demo / "crashes" / "fanout-sync.db")))
    grid = page.locator('[data-testid="stDataFrame"]').first
    shown = grid_headers(page, grid)
    for column in ("due next", "effect lines", "log lines again", "open"):
        assert column in shown, (column, shown)
    # The grid lists a column cut at its right edge too: "open" must be followed by one.
    assert shown.index("open") < len(shown) - 1 or not overflows(grid), shown
    if page.viewport_size["width"] >= 1400:
        assert not overflows(grid), shown  # every column whole, nothing to scroll to


def overflows(grid: Any) -> bool:
    return grid.locator(".dvn-scroller").evaluate("e => e.scrollWidth > e.clientWidth + 1")


def test_threads_table_without_a_log_says_so_in_words(page: Any, site: str, own: Path) -> None:
    open_view(page, url(site, "threads", db=str(own / "mine.db")))
    expect(page.get_by_text("No effects log next to this database").first).to_be_visible()
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.hover()
    cells = grid.locator('[role="gridcell"]')
    cells.first.wait_for(state="attached")
    texts = cells.all_inner_texts()
    assert "no effects log" in texts, texts
    assert "None" not in texts, texts


def sample_run(campaign: str, mode: str, latency: float = 0.0) -> tuple[str, str]:
    """(database at the kill, thread id) of a bundled campaign's first run in that cell."""
    from replaylens.killtest.manifest import load_manifest

    run = next(r for r in load_manifest(SAMPLES / campaign).runs
               if r.mode == mode and r.put_latency == latency)  # fmt: skip
    return str(run.db_at_kill), run.thread_id


# --------------------------------------------------------------------------- 4: Report tab
def test_report_tab_shows_the_report_rendered_and_its_markdown_beside(page: Any, site: str) -> None:
    db, thread = sample_run("payment", "sync")
    open_view(page, url(site, "thread", db=db, thread=thread, view="Report"))
    rendered = page.locator(".st-key-report_rendered")
    expect(rendered).to_contain_text("Resume report for thread")
    text = rendered.inner_text()
    for escape in ("\\:", "\\/", "\\.", "\\(", "**"):
        assert escape not in text, escape
    link = rendered.get_by_role("link", name="Thread view")
    assert link.get_attribute("href").startswith("http://127.0.0.1")
    source = page.locator(".st-key-report_source [data-testid='stCode']")
    expect(source).to_contain_text("# Resume report for thread")
    assert "127\\.0\\.0\\.1" not in source.inner_text()  # the address is a link target
    assert source.evaluate(  # wrapped, not cut at the right edge
        "e => ![e, ...e.querySelectorAll('*')].some(x => x.scrollWidth > x.clientWidth + 1)"
    )
    a, b = rendered.bounding_box(), source.bounding_box()
    assert b["x"] >= a["x"] + a["width"] - 1 and abs(a["y"] - b["y"]) < 60, (a, b)  # beside


# --------------------------------------------------------------------------- 7: Effects table
def test_effects_table_shows_key_log_line_and_pid(page: Any, site: str) -> None:
    db, thread = sample_run("payment", "sync")
    open_view(page, url(site, "thread", db=db, thread=thread, view="Effects"))
    grid = page.locator('[data-testid="stDataFrame"]').filter(has_text="charge_card").first
    expect(grid).to_be_visible()
    shown = grid_headers(page, grid)
    for column in ("idempotency key", "log line no.", "pid"):
        assert column in shown, (column, shown)
    assert shown.index("pid") < len(shown) - 1 or not overflows(grid), shown


def test_checkpoint_table_shows_its_notes_beside_the_tasks_due(page: Any, site: str) -> None:
    """At 1000 px the notes column ("a resume starts here", a fork, an edit) sat after the
    time and the write count, off-screen: the row a resume loads looked like any other. It
    comes right after the tasks due, on screen at both widths."""
    db, thread = sample_run("payment", "sync")
    open_view(page, url(site, "thread", db=db, thread=thread, view="Checkpoints"))
    grid = page.locator('[data-testid="stDataFrame"]').filter(has_text="a resume starts here")
    expect(grid).to_have_count(1)
    shown = grid_headers(page, grid.first)
    assert "next tasks" in shown and "notes" in shown, shown
    assert shown.index("notes") < len(shown) - 1 or not overflows(grid.first), shown


# --------------------------------------------------------------------------- 8: Resume cards
def test_resume_cards_line_up_and_cut_no_word(page: Any, site: str) -> None:
    """At 1000 px the three mode cards' rows were at different heights, the exit card's
    "times again" column was cut, and `request_approval` wrapped mid-word."""
    db, thread = sample_run("payment", "sync")
    open_view(page, url(site, "resume", db=db, thread=thread, mode="sync"))
    labels = page.locator('[data-testid="stMain"] [data-testid="stMetricLabel"]').filter(
        has_text="checkpoints kept"
    )
    expect(labels).to_have_count(3)
    tops = {round(label.bounding_box()["y"]) for label in labels.all()}
    assert len(tops) == 1, tops
    cards = page.locator('[class*="st-key-mode_card_"]')
    for card in cards.all():
        assert card.evaluate(
            "e => ![e, ...e.querySelectorAll('*')].some(x => x.scrollWidth > x.clientWidth + 1)"
        ), card.inner_text()
    broken = page.locator('[data-testid="stMain"] code').evaluate_all(
        "cs => cs.filter(c => c.getClientRects().length > 1).map(c => c.textContent)"
    )
    assert not broken, broken
    expect(page.get_by_text("request_approval").first).to_be_visible()


# --------------------------------------------------------------------------- 9: first paint
def test_cold_thread_page_fetches_no_code_highlighter_for_hidden_tabs(
    browser: Any, site: str
) -> None:
    """A resumable thread's first view shows no code: the Time travel tab, drawn on every
    load, fetched the syntax highlighter (1.5 MB) before the page was done."""
    db, thread = sample_run("fanout", "async", 0.25)
    address = url(site, "thread", db=db, thread=thread)
    warm = browser.new_context()
    open_view(warm.new_page(), address)
    warm.close()
    with tab(browser) as p:
        scripts: list[str] = []
        p.on("request", lambda r: scripts.append(r.url.rsplit("/", 1)[-1]))
        open_view(p, address)
        p.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=60_000)
        assert not [s for s in scripts if s.startswith("StreamlitSyntaxHighlighter")], scripts
        # The tab still draws when opened.
        p.get_by_role("tab", name="Time travel").click()
        wait_idle(p)
        expect(p.get_by_text(re.compile("Resume")).first).to_be_visible()
