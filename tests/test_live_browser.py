"""Pages that follow a running agent: real Chromium, a real LangGraph writer in another process.

The writer (examples/live_writer.py) invokes a real graph with a SqliteSaver as fast as
it can while the Threads page, then the Thread page, is open. Each page must show the
writer's checkpoints without a reload: counts that grow while it writes, and the final
count within 2 s of its last commit; the writer sees no `database is locked`, and the
folder holds nothing but the writer's own files.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from dashboard_data import REPO, serving, tab, wait_idle

from replaylens.sources import open_source

pytestmark = pytest.mark.browser
playwright = pytest.importorskip("playwright.sync_api")
expect = playwright.expect
FOLLOW_LIMIT_MS = 2_000
"""The target: a new checkpoint is on the open page within 2 s of its commit."""


@pytest.fixture(scope="module")
def live_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("live")


def start_writer(db: Path, seconds: float, thread: str | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'lib'}"}
    args = [
        sys.executable,
        "-m",
        "examples.live_writer",
        str(db),
        str(seconds),
        *([thread] if thread else []),
    ]
    writer = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    return writer


def finish(writer: subprocess.Popen[str]) -> dict[str, Any]:
    assert writer.stdout is not None
    report = json.loads(writer.stdout.readline())
    assert writer.wait(timeout=60) == 0
    return report


@pytest.fixture(scope="module")
def server(live_folder: Path) -> Iterator[str]:
    # The first writer run creates the database, so the server lists it from the start.
    finish(start_writer(live_folder / "live.db", 0))
    finish(start_writer(live_folder / "live.db", 0, "grows"))
    with serving([live_folder]) as url:
        yield url


@pytest.fixture(scope="module")
def page(server: str, browser: Any) -> Iterator[Any]:
    with tab(browser) as p:
        yield p


def metric(page: Any, label: str) -> Any:
    """A metric's value; during a redraw the previous run's element is still there, marked stale."""
    fresh = page.locator(
        '[data-testid="stElementContainer"]:not([data-stale="true"]) [data-testid="stMetric"]'
    )
    # By its exact label: other metrics ("checkpoints kept" per mode) contain the word too.
    named = page.locator('[data-testid="stMetricLabel"]').get_by_text(
        re.compile(rf"(^|\s){re.escape(label)}$")
    )
    return fresh.filter(has=named).locator('[data-testid="stMetricValue"]')


def value(page: Any, label: str) -> int:
    return int(metric(page, label).inner_text().replace(",", ""))


def settle_within_limit(page: Any, label: str, want: int) -> float:
    """Seconds until the page shows `want` (asserting it is within FOLLOW_LIMIT_MS)."""
    started = time.perf_counter()
    expect(metric(page, label)).to_have_text(shown_as(want), timeout=FOLLOW_LIMIT_MS)
    return time.perf_counter() - started


def shown_as(n: int) -> re.Pattern[str]:
    return re.compile(rf"^({n}|{n:,})$")


def folder_names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def follow_a_live_writer(page: Any, server: str, db: str, url_db: dict[str, str]) -> float:
    """The Threads page, then the Thread page, open while a real writer commits to `db`: each
    shows the new checkpoints without a reload, the last within FOLLOW_LIMIT_MS of the
    writer's last commit; returns how long the Thread page's live caption took."""
    # -- the Threads page, while the writer adds one thread per run
    page.goto(f"{server}/threads?{urlencode(url_db, quote_via=quote)}")
    wait_idle(page)
    first = value(page, "completed")
    writer = start_writer(db, 3)
    expect(metric(page, "completed")).not_to_have_text(
        shown_as(first), timeout=FOLLOW_LIMIT_MS + 4_000
    )
    report = finish(writer)
    source = open_source(db)
    threads = len(source.thread_index())
    source.close()
    assert threads == first + report["runs"], "every run of the writer is a new completed thread"
    settle_within_limit(page, "completed", threads)
    assert report["locked"] == 0, report

    # -- the Thread page, while the writer keeps adding checkpoints to that same thread
    # The live caption follows every poll; the page below redraws when it has been idle as
    # long as it took to draw (a writer that never pauses must not keep it busy for good).
    page.goto(f"{server}/thread?{urlencode({**url_db, 'thread': 'grows'}, quote_via=quote)}")
    wait_idle(page)
    live = page.get_by_text(re.compile(r"live: [\d,]+ checkpoints"))
    expect(live).to_be_visible()
    first_seen = live.inner_text()
    writer = start_writer(db, 3, "grows")
    expect(live).not_to_have_text(first_seen, timeout=FOLLOW_LIMIT_MS + 2_000)
    report = finish(writer)
    source = open_source(db)
    checkpoints = source.thread_version("grows")[0]
    source.close()
    started = time.perf_counter()
    expect(live).to_contain_text(f"live: {checkpoints:,} checkpoints", timeout=FOLLOW_LIMIT_MS)
    caption_seconds = time.perf_counter() - started
    # The whole page, once idle: its redraw takes as long as drawing this thread does (seconds
    # at thousands of checkpoints); the 2 s promise is the live caption above.
    expect(metric(page, "checkpoints")).to_have_text(shown_as(checkpoints), timeout=30_000)
    assert report["locked"] == 0, report
    assert "Traceback" not in page.inner_text("body")
    return caption_seconds


def test_open_pages_follow_a_live_writer(page: Any, server: str, live_folder: Path) -> None:
    db = live_folder / "live.db"
    caption_seconds = follow_a_live_writer(page, server, str(db), {"db": str(db)})
    print(
        f"live caption caught up {caption_seconds:.2f} s after the writer's last commit was counted"
    )
    # Nothing but the writer's own files next to the database (the status cache lives elsewhere).
    assert folder_names(live_folder) <= {"live.db", "live.db-wal", "live.db-shm"}, folder_names(
        live_folder
    )


def test_open_pages_follow_a_live_writer_on_postgres(pg_cluster: Any, browser: Any) -> None:
    """The same on Postgres: a PostgresSaver writer in another process, the dashboard
    serving the DSN (its reads are read-only transactions, so the writer is never blocked)."""
    dsn = pg_cluster.create_database("replaylens_live")
    finish(start_writer(dsn, 0))  # the writer owns the database: its setup() makes the tables
    finish(start_writer(dsn, 0, "grows"))
    with serving([dsn]) as url:  # type: ignore[list-item]
        with tab(browser) as page:
            seconds = follow_a_live_writer(page, url, dsn, {})
    print(f"postgres: live caption caught up {seconds:.2f} s after the writer's last commit")
