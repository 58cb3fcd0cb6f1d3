"""Showing database strings safely: as text, never as markup, and never whole when huge.

Thread ids, node names and channel values come from a file someone else wrote. Streamlit
renders Markdown (links, images, `:red[...]` directives) in most text elements, so a
string from the database is either shown in a text-only element (dataframe, code, json,
text) or escaped here first. Control characters (terminal escapes) are made visible.
"""

from __future__ import annotations

import json
import re
from typing import Any

from replaylens.decode import to_jsonable

MAX_CHARS = 20_000
"""Values longer than this are cut, with a note saying how much was left out."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def visible(text: str) -> str:
    """Control characters as `\\xNN`, so an ANSI escape shows instead of acting."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def md(text: Any) -> str:
    """A database string made inert for st.markdown: every Markdown character escaped."""
    flat = visible(str(text)).replace("\r", " ").replace("\n", " ")
    return _MD_SPECIAL.sub(r"\\\1", flat)


def md_code(text: Any) -> str:
    """A database string as inline code (backticks inside cannot close the span)."""
    flat = visible(str(text)).replace("\n", " ").replace("`", "'")
    return f"`{flat}`"


def truncate(text: str, limit: int = MAX_CHARS) -> tuple[str, str | None]:
    """(text cut to `limit` characters, a note saying how much was left out, or None)."""
    if len(text) <= limit:
        return text, None
    return text[:limit], f"Showing the first {limit:,} of {len(text):,} characters; the rest is left out."


def as_json_text(value: Any, *, indent: int | None = 1) -> str:
    """The JSON-safe view of a decoded value as text (placeholders stay visible as dicts)."""
    return visible(json.dumps(to_jsonable(value), ensure_ascii=False, indent=indent, default=str))


def preview(value: Any, limit: int = 160) -> str:
    """A one-line preview for a table cell."""
    text = value if isinstance(value, str) else as_json_text(value, indent=None)
    text = visible(text).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def md_ticks(sentence: str) -> str:
    """A library sentence that marks names with backticks: names as inline code, the rest escaped."""
    parts = str(sentence).split("`")
    return "".join(md_code(p) if i % 2 else md(p) for i, p in enumerate(parts))


def md_cell(text: Any) -> str:
    """A database string inside a Markdown table cell: inline code, pipes escaped."""
    return md_code(text).replace("|", "\\|")


def safe_filename(name: str, suffix: str) -> str:
    """`replaylens-<thread id reduced to safe characters><suffix>` for a download."""
    core = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:120] or "thread"
    return f"replaylens-{core}{suffix}"
