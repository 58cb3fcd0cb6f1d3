"""The app's few style rules (fixed CSS, no data in it), set once per page run.

Streamlit's wide layout keeps 5 rem of padding on each side of the page at any window
width: at 1000 px, beside the 300 px sidebar, that left 540 px for tables of nine
columns and three mode cards. Below 1200 px the padding shrinks to 1.5 rem (650 px of
content), as Streamlit itself does on a phone.
"""

from __future__ import annotations

import streamlit as st

STYLE = """
<style>
@media (max-width: 1200px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1.5rem; padding-right: 1.5rem; }
}
/* Inline code (an identifier) is never broken mid-word ("request_appro" + "val"); code
   blocks keep their own wrapping. */
[data-testid="stMain"] :not(pre) > code { overflow-wrap: normal; word-break: normal; }
/* The report's Markdown, beside the report, wraps a long path anywhere rather than cut it. */
.st-key-report_source pre, .st-key-report_source pre code { overflow-wrap: anywhere; }
</style>
"""


def apply() -> None:
    """Send the style rules (a style-only st.html takes no room on the page). The rules may
    hold no "<" but their tags': the browser-side sanitiser drops a style element whose
    text looks like markup."""
    st.html(STYLE)
