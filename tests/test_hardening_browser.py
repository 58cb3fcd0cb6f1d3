"""Issue 14 in real Chromium: hostile strings from the data, symlinks by URL, outside requests.

One `replaylens serve` on a folder of hostile (but real) evidence: a LangGraph database
whose file name and thread id carry Markdown and HTML, an effects log whose `node`
values carry Plotly's pseudo-HTML, a campaign manifest whose `name` and `mode` do, and
a symbolic link to a database outside the folder. Every page is opened; the DOM must
hold no element, link, image or style the data asked for, and every request the page
makes must go to this server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from dashboard_data import CHROMIUM, CHROMIUM_ARGS, serving, wait_idle
from hardening_data import linear_db

pytestmark = pytest.mark.browser
playwright = pytest.importorskip("playwright.sync_api")

EVIL = "evil.example"
NODE = f'<a href="http://{EVIL}/n">N</a><b>B</b><span style="color:red">S</span>'
MD = f"![i](http://{EVIL}/i.png) [l](http://{EVIL}/l) :material/home: :red[R] **M**"
HTML = f"<img src=http://{EVIL}/x.png onerror=alert(1)>"
WWW = f"www.{EVIL}/w www\u2060.{EVIL}/j"
"""Bare addresses GitHub-flavoured Markdown links by itself (issue 27.9: also with a word joiner)."""
THREAD = f"t {MD} {HTML}"
DB_NAME = f"x {MD.replace('/', '_')} {HTML.replace('/', '_')}.db"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile-served")
    served = root / "served"
    db = linear_db(served / DB_NAME, [THREAD, "plain"])
    lines = [{"thread_id": THREAD, "node": NODE, "phase": p, "ts": 1_700_000_000 + i, "effect": MD}
             for i, p in enumerate(("start", "end"))]  # fmt: skip
    db.with_name(db.name[:-3] + ".effects.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines)
    )
    campaign = served / "campaign"
    campaign.mkdir()
    (campaign / "manifest.json").write_text(json.dumps({
        "name": f"{MD} {HTML} {WWW}",
        "graph": "replaylens.examples.graphs:linear",
        "runs": [{"run": 1, "mode": NODE, "thread_id": THREAD, "db_at_kill": str(db), "db_after_resume": str(db),
                  "effect_lines_at_kill": 2, "effect_lines_after_resume": 2, "resume": {"ok": True}}],
    }))  # fmt: skip
    linear_db(root / "outside" / "secret.db", ["secret-thread"])
    (served / "link-out.db").symlink_to(root / "outside" / "secret.db")
    return served


@pytest.fixture(scope="module")
def app(hostile: Path) -> Iterator[tuple[str, Path]]:
    with serving([hostile], cwd=hostile) as url:
        yield url, hostile


@pytest.fixture(scope="module")
def page(app: tuple[str, Path]) -> Iterator[Any]:
    base, _ = app
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        p = context.new_page()
        p.set_default_timeout(60_000)
        p.requests_seen = []  # type: ignore[attr-defined]
        p.on("request", lambda r: p.requests_seen.append(r.url))  # type: ignore[attr-defined]
        yield p
        context.close()
        browser.close()


def open_view(page: Any, base: str, path: str, **params: str) -> None:
    page.goto(f"{base}/{path}" + (f"?{urlencode(params, quote_via=quote)}" if params else ""))
    wait_idle(page, 60_000)
    assert "Traceback" not in page.inner_text("body")


def assert_inert(page: Any, base: str) -> None:
    found = page.evaluate(
        """([evil, base]) => ({
            links: [...document.querySelectorAll('a[href]')].map(a => a.href)
                      .filter(h => h.includes(evil) && !h.startsWith(base + '/')),
            images: [...document.querySelectorAll('img[src], image')].map(i => i.src || i.getAttribute('href') || '')
                       .filter(s => s.includes(evil)),
            styled: [...document.querySelectorAll('[style]')].filter(e => e.textContent === 'S' && /red/.test(e.getAttribute('style'))).length,
            bold: [...document.querySelectorAll('b, strong, tspan[style*="bold"]')].filter(e => e.textContent === 'B' || e.textContent === 'M').length,
            svgLinks: document.querySelectorAll('svg a').length,
            icons: [...document.querySelectorAll('[data-testid="stIconMaterial"]')].filter(e => e.textContent === 'home').length,
        })""",
        [EVIL, base],
    )
    assert found == {
        "links": [],
        "images": [],
        "styled": 0,
        "bold": 0,
        "svgLinks": 0,
        "icons": 0,
    }, found
    outside = [
        u for u in page.requests_seen if not u.startswith((base, "data:", "blob:", "about:"))
    ]
    assert outside == [], outside


def key_of(hostile: Path) -> str:
    return DB_NAME  # served with the folder as working folder: keys are relative to it


def test_threads_page_and_picker_keep_hostile_names_as_text(
    page: Any, app: tuple[str, Path]
) -> None:
    base, hostile = app
    open_view(page, base, "threads", db=key_of(hostile))
    body = page.inner_text("body")
    assert "link-out" not in body and "secret-thread" not in body
    assert_inert(page, base)


@pytest.mark.parametrize("view", ["Checkpoints", "Graph", "Effects", "Report"])
def test_thread_page_tabs_keep_hostile_strings_as_text(
    page: Any, app: tuple[str, Path], view: str
) -> None:
    base, hostile = app
    open_view(page, base, "thread", db=key_of(hostile), thread=THREAD, view=view)
    assert_inert(page, base)
    if (
        view == "Checkpoints"
    ):  # the effect log's node is a lane of the timeline: drawn as its own text
        texts = page.evaluate(
            "() => [...document.querySelectorAll('svg text')].map(t => t.textContent)"
        )
        assert any("<b>B</b>" in t for t in texts), texts[:40]


@pytest.mark.parametrize("path", ["resume", "learn"])
def test_resume_and_learn_pages_keep_hostile_strings_as_text(
    page: Any, app: tuple[str, Path], path: str
) -> None:
    base, hostile = app
    open_view(page, base, path, db=key_of(hostile), thread=THREAD)
    assert_inert(page, base)


def test_runs_page_keeps_manifest_name_and_mode_as_text(page: Any, app: tuple[str, Path]) -> None:
    base, _ = app
    open_view(page, base, "runs")
    page.locator(
        '[data-testid="stMain"] [data-testid="stTooltipIcon"]:visible'
    ).first.hover()  # the Campaigns help: manifest names
    tip = page.locator('[data-testid="stTooltipContent"]')
    tip.wait_for()
    assert f"{EVIL}/i.png" in tip.inner_text()  # shown as text, not fetched as an image
    assert_inert(page, base)


def test_a_link_out_is_refused_by_url(page: Any, app: tuple[str, Path]) -> None:
    base, hostile = app
    for asked in ("link-out.db", str(hostile / "link-out.db")):
        open_view(page, base, "threads", db=asked)
        body = page.inner_text("body")
        assert "secret-thread" not in body
        if asked.startswith("/"):
            assert "refused" in body
