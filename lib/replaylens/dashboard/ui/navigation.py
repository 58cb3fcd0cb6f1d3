"""The pages and the navigation between them (`st.navigation` with one `st.Page` each)."""

from __future__ import annotations

import logging
from typing import Any

import streamlit as st

from replaylens.dashboard import screen_path

log = logging.getLogger("replaylens.app")

PAGES: dict[str, tuple[str, str]] = {
    "threads": ("Threads", ":material/list:"),
    "thread": ("Thread", ":material/timeline:"),
    "resume": ("Resume simulator", ":material/replay:"),
    "incident": ("Incident", ":material/crisis_alert:"),
    "storage": ("Storage", ":material/storage:"),
    "runs": ("Kill-test runs", ":material/science:"),
    "learn": ("Learn supersteps", ":material/school:"),
}
"""Every page, in sidebar order: url path -> (title, icon). The first is the default."""


def page(name: str) -> Any:
    """The `st.Page` of one page, for `st.navigation`, `st.switch_page` and `st.page_link`.

    Built from the package's own screen scripts, so it works wherever the wheel is
    installed; equal pages compare equal across reruns (Streamlit keys them by script)."""
    title, icon = PAGES[name]
    return st.Page(screen_path(name), title=title, icon=icon, url_path=name)


def _home() -> None:
    """`/` opens the Threads page with the same query parameters.

    Streamlit serves its default page only at `/`, never under its own url path, so a
    link to `/threads?db=…` would open under a "Page not found" notice. The default page
    is this redirect instead, and every page keeps a url path of its own."""
    st.switch_page(page(next(iter(PAGES))), query_params=st.query_params.to_dict())


def navigation_pages() -> list[Any]:
    """The pages `st.navigation` routes between: the `/` redirect, then every page."""
    return [
        st.Page(_home, title="replaylens", url_path="home", default=True),
        *(page(n) for n in PAGES),
    ]


def navigation_links() -> None:
    """The sidebar's page links (the navigation itself is hidden, so `/` lists no page)."""
    for name in PAGES:
        st.page_link(page(name))


def ensure_navigation() -> None:
    """Make sure the page runs inside app.py's navigation, also on a fresh server's first deep link.

    Streamlit treats a `pages/` folder next to the entry point as an old-style multipage
    app until some session has called `st.navigation`: the first request for `/thread`
    would run pages/thread.py alone, without the sidebar or the page config. Switching
    the flag off and rerunning hands the same URL to app.py, which routes it properly.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
