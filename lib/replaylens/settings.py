"""Every environment variable replaylens reads, declared once, in the style of Datasette's
`SETTINGS`: a name, a default, and a sentence saying what it changes.

Code reads a setting through `get(NAME)` (or `get_path`, `get_float`), never through
`os.environ` directly, so this table is the whole list; the README's "Settings" table is
generated from it (`replaylens settings` prints it) and a test checks that no module reads
a `REPLAYLENS_` variable that is not declared here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Audience = Literal["user", "internal"]


@dataclass(frozen=True)
class Setting:
    name: str
    default: str
    help: str
    audience: Audience = "user"


SETTINGS: tuple[Setting, ...] = (
    Setting("REPLAYLENS_EFFECTS_LOG", "",
            "Where `record_effect` appends its JSON Lines; unset, the recorder warns once and records nothing."),
    Setting("LANGGRAPH_AES_KEY", "",
            "The key LangGraph's encrypted serializer used; with it, `+aes` blobs decode, without it they are "
            "shown as encrypted."),
    Setting("REPLAYLENS_SQLITE_MMAP_MB", "",
            "How much of a SQLite file is read through a read-only memory map, in MiB (unset: up to SQLite's "
            "2 GiB ceiling); 0 turns mapping off where a memory limit counts mapped file pages."),
    Setting("REPLAYLENS_UPLOAD_DIR", "",
            "The folder under which each browser session's private upload folder is made; unset, the "
            "system's temporary folder."),
    Setting("REPLAYLENS_EXAMPLE_SLEEP", "0",
            "Seconds each node of the bundled example graphs sleeps, so a kill test can land inside it."),
    Setting("REPLAYLENS_EXAMPLE_FAIL", "1",
            "0 makes the example `failing` graph's node succeed (to resume it after a failure)."),
    Setting("REPLAYLENS_PG_BINDIR", "",
            "A folder holding PostgreSQL's `initdb` and `postgres`, for `killtest --pg-ephemeral` and the tests' "
            "throw-away server; unset, Debian's /usr/lib/postgresql/*/bin, then `pg_config --bindir`, then PATH."),
    Setting("REPLAYLENS_SERVE_ARGS", "",
            "How `replaylens serve` hands its arguments to the Streamlit process.", "internal"),
    Setting("REPLAYLENS_SERVE_DSNS", "",
            "How `replaylens serve` hands Postgres connection strings to the Streamlit process (never argv).",
            "internal"),
    Setting("REPLAYLENS_KILLTEST_DSN", "",
            "How `replaylens killtest` hands a Postgres connection string to its child processes (never argv).",
            "internal"),
)  # fmt: skip
BY_NAME = {s.name: s for s in SETTINGS}


def get(name: str) -> str:
    """The setting's value from the environment, or its default ("" means unset)."""
    return os.environ.get(name, BY_NAME[name].default).strip()


def get_path(name: str) -> Path | None:
    """A folder or file setting, or None when unset."""
    value = get(name)
    return Path(value) if value else None


def get_float(name: str, fallback: float) -> float:
    """A number setting; a value that is not a number counts as unset."""
    try:
        return float(get(name))
    except ValueError:
        return fallback


def markdown_table() -> str:
    """The user-facing settings as a Markdown table, for the README and `replaylens settings`."""
    rows = ["| variable | default | what it changes |", "|---|---|---|"]
    rows += [f"| `{s.name}` | {f'`{s.default}`' if s.default else 'unset'} | {s.help} |"
             for s in SETTINGS if s.audience == "user"]  # fmt: skip
    return "\n".join(rows)
