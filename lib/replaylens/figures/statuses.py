"""How a thread status looks, on every page and chart: its word and its colour.

The one home of this rule (the pages, the tables and the figures all read it here). A
status is never carried by an emoji or a symbol glyph: a machine without the colour-emoji
font draws 🟢 as an empty box, so the word is always there, and the colour is drawn by
the renderer itself (a Streamlit badge, a data-grid pill, a Plotly marker), never by a
character of a font the machine may lack. The colours are Okabe-Ito based and each is
paired with its word, never colour alone.
"""

from __future__ import annotations

from typing import Literal

StreamlitColor = Literal["green", "orange", "violet", "red", "gray", "blue"]

STATUS_WORDS: dict[str, str] = {
    "completed": "completed",
    "resumable": "resumable",
    "interrupted": "interrupted",
    "failed": "failed",
    "needs_restart": "needs restart",
    "unreadable": "unreadable",
    "unknown": "unknown",
    "deriving": "deriving…",
}
"""`deriving` is no status: the Threads page shows it while a thread's status is being worked out."""

STATUS_COLORS: dict[str, str] = {
    "completed": "#009E73",
    "resumable": "#E69F00",
    "interrupted": "#8E6CC2",
    "failed": "#D62728",
    "needs_restart": "#A3001B",
    "unreadable": "#999999",
    "unknown": "#0072B2",  # blue: undecided, never the reassuring green
    "deriving": "#BBBBBB",
}
"""Hex colours, for figures, CSS and the data grid's pills."""

STATUS_MD_COLORS: dict[str, StreamlitColor] = {
    "completed": "green",
    "resumable": "orange",
    "interrupted": "violet",
    "failed": "red",
    "needs_restart": "red",
    "unreadable": "gray",
    "unknown": "blue",
    "deriving": "gray",
}
"""The nearest of Streamlit's Markdown colours (headings, metric labels, badges)."""

OTHER_COLOR = "#999999"


def status_word(status: str) -> str:
    """`needs_restart` -> `needs restart`; a status this table does not know keeps its name."""
    return STATUS_WORDS.get(status, status.replace("_", " "))


def status_color(status: str) -> str:
    return STATUS_COLORS.get(status, OTHER_COLOR)


def status_md(status: str) -> str:
    """The status as a coloured Streamlit badge (drawn with CSS: any font shows it). A
    fixed word, never database text, so it needs no escaping."""
    return f":{STATUS_MD_COLORS.get(status, 'gray')}-badge[{status_word(status)}]"


def status_options(statuses: list[str]) -> tuple[list[str], list[str]]:
    """The words and their colours, in the same order: a data grid's pill column
    (`st.column_config.MultiselectColumn(options=..., color=...)`) draws each status as a
    coloured pill holding its word."""
    words = [status_word(s) for s in statuses]
    return words, [status_color(s) for s in statuses]
