"""Showing database strings safely: as text, never as markup, and never whole when huge.

Thread ids, node names and channel values come from a file someone else wrote. Streamlit
renders Markdown (links, images, `:red[...]` directives) in most text elements, so a
string from the database is either shown in a text-only element (dataframe, code, json,
text) or escaped here first. Control characters (terminal escapes) are made visible.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from typing import Any

from replaylens.decode import to_jsonable

MAX_CHARS = 20_000
"""Values longer than this are cut, with a note saying how much was left out."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
"""C0/C1 controls, zero-width and direction overrides (which reorder what a reader sees)."""
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def visible(text: str) -> str:
    """Control characters as `\\xNN`, so an ANSI escape shows instead of acting."""
    return _CONTROL.sub(
        lambda m: (
            f"\\x{ord(m.group()):02x}" if ord(m.group()) <= 0xFF else f"\\u{ord(m.group()):04x}"
        ),
        text,
    )


_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9])(:)(?=//)|(?<=w)(?=ww\.)|(@)(?=[a-z0-9])")


def md(text: Any, *, line_start: bool = True) -> str:
    """A database string made inert for st.markdown: every Markdown character escaped.

    GitHub-flavoured Markdown also turns bare `http://…`, `www.…` and `a@b` into links,
    escapes or not; a word joiner (U+2060, invisible) after `:`, `www.` and `@` stops it."""
    flat = visible(str(text)).replace("\r", " ").replace("\n", " ").replace("\t", " ")
    # Leading spaces as no-break spaces: four of them would start a code block.
    if line_start:
        flat = re.sub(r"^ +", lambda m: "\u00a0" * len(m.group()), flat)
    flat = _AUTOLINK.sub(lambda m: m.group() + "\u2060", flat)
    return _MD_SPECIAL.sub(r"\\\1", flat)


def md_code(text: Any) -> str:
    """A database string as inline code (backticks inside cannot close the span)."""
    flat = visible(str(text)).replace("\n", " ").replace("`", "'")
    return f"`{flat}`"


def truncate(text: str, limit: int = MAX_CHARS) -> tuple[str, str | None]:
    """(text cut to `limit` characters, a note saying how much was left out, or None)."""
    if len(text) <= limit:
        return text, None
    return text[
        :limit
    ], f"Showing the first {limit:,} of {len(text):,} characters; the rest is left out."


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
    return "".join(md_code(p) if i % 2 else md(p, line_start=i == 0) for i, p in enumerate(parts))


def md_cell(text: Any) -> str:
    """A database string inside a Markdown table cell: inline code, pipes escaped."""
    return md_code(text).replace("|", "\\|")


def safe_filename(name: str, suffix: str) -> str:
    """`replaylens-<thread id reduced to safe characters><suffix>` for a download."""
    core = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:120] or "thread"
    return f"replaylens-{core}{suffix}"


MAX_URL_VALUE = 512
"""Longest value put into a URL as is. Streamlit's server refuses a request line over
64 KB ("Invalid HTTP request received."), and a thread id can be 100 KB long."""
DIGEST_PREFIX = "sha256-"


def url_value(value: str) -> str:
    """`value` for a query parameter: itself when short, else `sha256-<hex>` of it, which
    `from_url_value` maps back to the one option it names."""
    if len(value) <= MAX_URL_VALUE:
        return value

    return DIGEST_PREFIX + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def from_url_value(given: str | None, options: list[str]) -> str | None:
    """The option a URL value names: itself, or the long option whose digest it is."""
    if (
        given is None
        or not given.startswith(DIGEST_PREFIX)
        or len(given) != len(DIGEST_PREFIX) + 64
    ):
        return given
    return next((o for o in options if len(o) > MAX_URL_VALUE and url_value(o) == given), given)


# -- one escaper per renderer that is not Markdown ------------------------------------------
FORMULA_START = "=+-@"
"""A spreadsheet reads a cell as a formula when its first character that is not blank is one
of these: LibreOffice and Excel skip leading spaces, tabs, carriage returns and line feeds."""


def csv_cell(value: Any) -> Any:
    """A value for a CSV download: text that a spreadsheet would run as a formula (`=`, `+`,
    `-` or `@` first, after any spaces, tabs, CR or LF) gets a leading `'`, which makes it
    text; everything else is left as it is."""
    if isinstance(value, str) and value.lstrip(" \t\r\n")[:1] in tuple(FORMULA_START):
        return "'" + value
    return value


def plotly_text(text: Any) -> str:
    """Database text for Plotly labels, hovers, ticks and category values.

    Plotly reads `<a href>`, `<b>`, `<br>`, `<span style>` in every text it draws
    (pseudo-HTML) and decodes entities; escaping `& < > "` leaves the words as written."""

    return html.escape(visible(str(text)).replace("\n", " "), quote=True)


def dot_text(text: Any) -> str:
    """Database text for a graphviz label (quoted, passed through `graphviz.nohtml`).

    Inside a quoted DOT string a backslash starts an escape (`\\N` is the node's id,
    `\\l` a line break); doubled, it stays a backslash. New lines become spaces."""
    return visible(str(text)).replace("\\", "\\\\").replace("\n", " ")


_DIRECTIVE = re.compile(r":(?=[A-Za-z/]+[\[/:])")


def option_text(text: Any) -> str:
    """Database text as a widget option or label: controls visible, and Streamlit's
    `:material/…:` and `:red[…]` directives broken by a zero-width joiner after the colon,
    which these elements would otherwise rewrite into icons and colours."""
    return _DIRECTIVE.sub(":\u2060", visible(str(text)).replace("\n", " "))
