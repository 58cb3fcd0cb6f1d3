"""Live pages: the polling that redraws an open page when its database changes."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import streamlit as st

from replaylens.dashboard import catalog as cat
from replaylens.dashboard.ui.data import (
    open_item,
    shared_state,
    thread_version,
    under_test,
    upload_folder,
)
from replaylens.errors import ReplaylensError

log = logging.getLogger("replaylens.app")

POLL_SECONDS = 0.5
"""How often an open Threads or Thread page asks whether a live database changed."""
QUIET_POLL_SECONDS = 1.5
"""How often it asks of a database no writer has open (a writer that starts is seen then)."""
FIRST_WAIT_SECONDS = 0.3
"""The Threads page waits this long for the statuses before drawing without them: a small
database never shows the "deriving" state, a large one shows its first screen at once."""

REDRAW_EVERY_SECONDS = 15.0
"""While a thread keeps growing, its page redraws at most this often (or 5x its draw time)."""


def _follow(item: cat.DataItem, thread_id: str | None, seen: Any, shown: str | None) -> None:
    """Poll; on a change, say so at once and redraw the page when that does not starve the poll.

    The Threads page redraws when it has been idle as long as it took to draw. The Thread
    page's live caption follows every poll; the page below redraws once the thread has
    stopped changing for one poll, or every REDRAW_EVERY_SECONDS while it keeps growing,
    because a redraw of a long thread takes seconds and no poll runs meanwhile."""
    if upload_ids(st.session_state.get("upload")) != st.session_state.get("_upload_seen"):
        # A file dropped on the uploader while this fragment ran reaches the session as a
        # fragment rerun, which never runs the sidebar that takes the upload: run it all.
        st.rerun(scope="app")
    chosen = st.session_state.get("_item")
    if chosen is None or chosen.key != item.key:
        return  # the reader moved to another database meanwhile (an upload, the sidebar)
    now_token = change_token(item, thread_id)
    previous = st.session_state.get("_follow_last")
    st.session_state["_follow_last"] = now_token
    if thread_id is not None and now_token[0] == "thread":
        count, step = now_token[1][0], now_token[1][-1]
        st.caption(f":material/sensors: live: {count:,} checkpoints in the database, latest step "
                   f"{step if step is not None else '—'} (polled every {poll_interval(item) or POLL_SECONDS:g} s)"
                   + (f"; {shown}" if now_token != seen and shown else ""))  # fmt: skip
    if now_token == seen:
        return
    drawn_in, drawn_at = st.session_state.get("_page_timing", (0.0, 0.0))
    idle = time.perf_counter() - drawn_at
    if thread_id is None:
        due = idle >= drawn_in
    else:
        due = now_token == previous or idle >= max(REDRAW_EVERY_SECONDS, 5 * drawn_in)
    if due:
        st.rerun(scope="app")


def upload_ids(files: Any) -> list[str]:
    """The uploader's files, by id (what the last full run took, or what the session holds now)."""
    return [str(getattr(f, "file_id", f)) for f in (files or [])]


def page_started() -> None:
    """Mark the start of a page run (a live page measures how long it takes to draw)."""
    st.session_state["_page_start"] = time.perf_counter()


def threads_token(identity: Any, progress: Any) -> Any:
    """The Threads page's change token: the database version it read, how far its statuses were."""
    return (
        "threads",
        identity,
        progress.done if progress else None,
        progress.finished if progress else None,
    )


def change_token(item: cat.DataItem, thread_id: str | None = None) -> Any:
    """What a live page compares between polls. The Threads page: the database's version
    (file sizes and times on SQLite, the snapshot on Postgres) and how far its statuses
    are; a Thread page: that thread's version only, so writes to other threads cost one
    index query, not a reload."""
    try:
        if thread_id is not None:
            return ("thread", thread_version(item, thread_id))
        source = open_item(item)
        ident = source.identity()
        shared = shared_state()
        with shared["lock"]:
            found = shared["jobs"].get(source.cache_identity())
        return threads_token(
            ident, found[1].progress() if found is not None and found[0] == ident else None
        )
    except ReplaylensError as exc:
        return ("error", str(exc))


def follow(
    item: cat.DataItem, seen: Any, thread_id: str | None = None, shown: str | None = None
) -> None:
    """Rerun the page when what it shows changed: a fragment polling every POLL_SECONDS.

    `seen` is `change_token` taken before the page read anything, so a commit that lands
    while the page draws is noticed at the next poll. `shown` says what the page drew
    (for the live caption while a redraw is due)."""
    started = st.session_state.get("_page_start")
    now = time.perf_counter()
    st.session_state["_page_timing"] = (now - started if started is not None else 0.0, now)
    if under_test():
        return
    every = poll_interval(item)
    if every is not None:
        st.fragment(_follow, run_every=every)(item, thread_id, seen, shown)


def poll_interval(item: cat.DataItem) -> float | None:
    """How often the page asks whether this database changed, or None: never.

    Postgres, or SQLite with a `-wal` or `-journal` beside it (a writer has it open;
    LangGraph's saver uses WAL, whose file goes away when the last writer closes):
    POLL_SECONDS. A quiet SQLite file: QUIET_POLL_SECONDS, enough to see a writer start
    (the next poll then runs fast). An uploaded copy never changes: no poll. Fewer polls
    also leave fewer moments at which a poll can coincide with a file dropped on the
    uploader (a fragment rerun then swallows the upload; see the README's limits)."""
    if item.dsn is not None:
        return POLL_SECONDS
    if item.path.parent == upload_folder():
        return None
    live = any(Path(f"{item.path}{suffix}").exists() for suffix in ("-wal", "-journal"))
    return POLL_SECONDS if live else QUIET_POLL_SECONDS
