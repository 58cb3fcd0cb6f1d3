"""A stored status may be shown before its check lands, but only marked "as of <time>,
re-checking", never as current; when the check lands it is replaced by the checked status.

The check is held at a gate (the source's first call of the status job, on an event the test
sets), so what the page shows in between is observed, not raced. Threads written by real
LangGraph graphs through SqliteSaver and through PostgresSaver on a real server."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from source_threads import write_threads

from replaylens.analysis.status import summarize_threads
from replaylens.cache import StatusCache
from replaylens.dashboard import views
from replaylens.dashboard.statuses import StatusJob
from replaylens.figures.statuses import status_word
from replaylens.sources import open_source

CHANGED = "payment-interrupted"


class Gated:
    """The real source, whose first change check waits for the test (an event, not a clock)."""

    def __init__(self, source: Any) -> None:
        self._source = source
        self.reached = threading.Event()
        self.release = threading.Event()

    def change_marks(self) -> Any:
        self.reached.set()
        assert self.release.wait(60)
        return self._source.change_marks()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._source, name)


@pytest.fixture(params=["sqlite", "postgres"])
def written(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """(spec, saver) with every example thread written by LangGraph."""
    with pytest.MonkeyPatch.context() as mp, ExitStack() as stack:
        mp.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp_path / "effects.jsonl"))
        mp.setenv("REPLAYLENS_EXAMPLE_SLEEP", "0")
        if request.param == "sqlite":
            conn = sqlite3.connect(tmp_path / "t.db", check_same_thread=False)
            stack.callback(conn.close)
            saver: Any = SqliteSaver(conn)
            spec = str(tmp_path / "t.db")
        else:
            from langgraph.checkpoint.postgres import PostgresSaver

            spec = request.getfixturevalue("pg_cluster").create_database("replaylens_as_of")
            saver = stack.enter_context(PostgresSaver.from_conn_string(spec))
            saver.setup()  # the test's writer; replaylens never calls it
        write_threads(saver, mp)
        yield spec, saver


def test_stored_statuses_show_as_of_until_checked(written: tuple[str, Any], tmp_path: Path) -> None:
    spec, saver = written
    source = open_source(spec)
    try:
        cache = StatusCache(source.cache_identity(), tmp_path / "cache")
        summarize_threads(source, cache=cache)  # a warm cache, saved
        # A write lands on a thread's latest checkpoint: its stored status may no longer hold.
        latest = saver.get_tuple({"configurable": {"thread_id": CHANGED}}).config
        saver.put_writes(latest, [("visited", ["late"])], "late-task-0000")
        truth = {s.thread_id: s.status for s in summarize_threads(source)[0]}  # no cache
        index = source.thread_index()
        gated = Gated(source)
        job = StatusJob(gated, index, StatusCache(source.cache_identity(), tmp_path / "cache"))
        assert gated.reached.wait(60)
        found, _ = job.results()
        provisional, as_of = job.provisional()
        assert not found and set(provisional) == set(truth) and as_of is not None
        rows = views.listing_rows(index, found, None, None, provisional, as_of)
        assert all(r.status == views.DERIVING for r in rows), (
            "nothing is current before it is checked"
        )
        cells = views.threads_frame(rows)["status"].tolist()
        assert all("re-checking" in c and c.startswith(status_word(truth[r.thread_id]))
                   for r, c in zip(rows, cells, strict=True) if r.thread_id != CHANGED)  # fmt: skip
        assert views.clock_ms(as_of)[:8] in cells[0]
        gated.release.set()
        assert job.wait(60)
        found, _ = job.results()
        assert job.provisional()[0] == {}
        assert {t: s.status for t, s in found.items()} == truth
        rows = views.listing_rows(index, found, None, None, *job.provisional())
        cells = views.threads_frame(rows)["status"].tolist()
        assert not any("re-checking" in c for c in cells)
        assert cells == [views.status_label(truth[r.thread_id]) for r in rows]
    finally:
        source.close()
