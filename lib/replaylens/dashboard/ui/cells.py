"""Data-grid columns drawn the same way on every page (Streamlit's column configs)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from replaylens.figures.statuses import STATUS_WORDS, status_options


def status_column(help_: str | None = None) -> Any:
    """A status cell as a coloured pill holding its word (`figures.statuses`): the grid
    draws the pill itself, so no emoji font is needed and the word is always there."""
    words, colours = status_options(list(STATUS_WORDS))
    return st.column_config.MultiselectColumn(
        "status", options=words, color=colours, help=help_, disabled=True, width=104
    )
