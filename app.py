"""replaylens dashboard: `replaylens serve [PATH ...]` runs `streamlit run app.py -- PATH ...`.

The entry point only sets up navigation and the sidebar; every page lives in pages/ and
draws what the `replaylens` library computes.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the pages import ui_common from here
    sys.path.insert(0, str(HERE))

import streamlit as st  # noqa: E402

import ui_common as ui  # noqa: E402

st.set_page_config(page_title="replaylens", page_icon=":material/replay:", layout="wide")

pages = [
    st.Page(ui.page("threads"), title="Threads", icon=":material/list:", url_path="threads", default=True),
    st.Page(ui.page("thread"), title="Thread", icon=":material/timeline:", url_path="thread"),
    st.Page(ui.page("resume"), title="Resume simulator", icon=":material/replay:", url_path="resume"),
    st.Page(ui.page("runs"), title="Kill-test runs", icon=":material/science:", url_path="runs"),
    st.Page(ui.page("learn"), title="Learn supersteps", icon=":material/school:", url_path="learn"),
]
current = st.navigation(pages)
with ui.friendly_errors():
    ui.sidebar()
current.run()
