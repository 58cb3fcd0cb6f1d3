"""The sidebar: the data picker (served files, uploads, kill-test campaigns) and the glossary."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from replaylens.analysis.durability import MODE_RULES
from replaylens.dashboard import catalog as cat
from replaylens.dashboard import config as cfg
from replaylens.dashboard.ui.data import allow_list, catalog, config, upload_folder
from replaylens.dashboard.ui.live import upload_ids
from replaylens.dashboard.ui.navigation import navigation_links
from replaylens.paths import PathRefused
from replaylens.text import from_url_value, md, option_text, url_value

log = logging.getLogger("replaylens.app")

GLOSSARY = {
    "superstep": "One round of the graph. Every task due after a checkpoint runs in parallel; when all "
    "have finished, their writes are applied together and the next checkpoint is saved.",
    "checkpoint": "A saved snapshot of the graph's state after a superstep. A resume starts from the "
    "newest one.",
    "task": "One run of one node in one superstep. If a resume re-runs a task, it starts again from "
    "the node's first line.",
    "pending write": "A finished task's output, saved on its own as soon as the task ends, before the "
    "superstep's checkpoint. A resume reuses it instead of running the task again.",
    "orphan write": "A saved task output whose checkpoint never reached the database. A resume ignores "
    "it, so that task runs again.",
    "durability": "When LangGraph saves checkpoints: "
    + "; ".join(f"{m}: {r}" for m, r in MODE_RULES.items())
    + " (async is the default).",
    "replay window": "The stretch of time whose side effects a resume would perform a second time.",
    "effects log": "A JSON Lines file in which each node records 'start' and 'end' around its side "
    "effect (replaylens.record_effect). It is the only record of what happened outside the database.",
    "namespace": "Subgraphs keep their own checkpoints under a namespace named after the parent task.",
}


# -- the data picker -------------------------------------------------------------------
def _uploads() -> list[cat.DataItem]:
    return st.session_state.setdefault("_uploads", [])


def _take_upload(files: list[Any]) -> None:
    """Store uploaded files; the database becomes the selected one, a .jsonl its effects log."""
    if not files:
        return
    signature = tuple(sorted(f.file_id for f in files))
    if st.session_state.get("_upload_sig") == signature:
        return
    st.session_state["_upload_sig"] = signature
    folder = upload_folder()
    dbs = [f for f in files if not f.name.lower().endswith(".jsonl")]
    logs = [f for f in files if f.name.lower().endswith(".jsonl")]
    log_path = cat.save_upload(logs[0].name, logs[0].getvalue(), folder) if logs else None
    allow = allow_list()
    for f in dbs:
        path = cat.save_upload(f.name, f.getvalue(), folder)
        item = cat.DataItem(allow.key(path), path, log_path, None, "uploaded")
        uploads = [u for u in _uploads() if u.key != item.key]
        uploads.append(item)
        st.session_state["_uploads"] = uploads
        st.session_state["_canonical_db"] = item.key
        st.session_state["_db_switched"] = True
    if logs and not dbs:
        st.session_state["_pending_log"] = str(log_path)


def _placed(items: dict[str, cat.DataItem]) -> dict[str, cat.Placed]:
    roots = [Path(f).resolve() for f in config().folders if Path(f).is_dir()]
    catalog_ = catalog()
    return {key: cat.place(item, catalog_, roots) for key, item in items.items()}


SELECT_FITS_CHARS = 30
"""About how many characters the sidebar's select shows (300 px) before it cuts the name."""


def _label_for(
    placed: dict[str, cat.Placed], items: dict[str, cat.DataItem]
) -> Callable[[str], str]:
    def label(key: str) -> str:
        where = placed.get(key)
        item = items.get(key)
        if where is None or item is None:
            return key
        tags = [item.note] if item.note and not item.note.startswith("uploaded") else []
        if item.effects is None:
            tags.append("no effects log")
        return option_text(where.label + (f"  ({', '.join(tags)})" if tags else ""))

    return label


def sidebar() -> None:
    """Draw the data picker and the glossary; remember the chosen database for the page."""
    st.session_state["_item"] = None
    st.session_state["_item_error"] = None
    catalog_ = catalog()
    with st.sidebar:
        navigation_links()
        st.divider()
        picker = st.container()
        with st.expander("Upload a database", expanded=False):
            files = st.file_uploader(
                "A SQLite checkpoint database, and optionally its effects log (.jsonl)",
                type=["db", "sqlite", "sqlite3", "jsonl"],
                accept_multiple_files=True,
                max_upload_size=cfg.MAX_UPLOAD_MB,
                help=f"Up to {cfg.MAX_UPLOAD_MB} MB per file. Files are kept on this server only while "
                "it runs, and are opened read-only.",
                key="upload",
            )
            _take_upload(list(files or []))
            st.session_state["_upload_seen"] = upload_ids(files)
        with st.expander("Words used here"):
            for word, meaning in GLOSSARY.items():
                st.markdown(f"**{word}**: {meaning}")
    items: dict[str, cat.DataItem] = {d.key: d for d in [*catalog_.databases, *_uploads()]}
    raw = st.query_params.get("db")
    if raw and raw not in items:
        try:
            path = allow_list().check(raw)
            if not path.is_file():
                raise PathRefused(
                    f"{raw}: no such database file; pick one from the list in the sidebar."
                )
            key = allow_list().key(path)
            if (
                key not in items
            ):  # a database outside the listed folders but inside the allowed ones
                items[key] = cat.DataItem(key, path, cat.sibling_effects(path) or config().effects)
            st.session_state["_canonical_db"] = key  # the same file under its canonical name
        except PathRefused as exc:
            st.session_state["_item_error"] = (
                cat.UPLOADED_ELSEWHERE.format(name=Path(raw).name)
                if cat.looks_uploaded(raw)
                else str(exc)
            )
    pending = st.session_state.pop("_pending_log", None)
    chosen = st.session_state.get("_sel_db") or raw
    if pending and chosen in items:
        base = items[chosen]
        items[chosen] = cat.DataItem(
            base.key, base.path, Path(pending), base.campaign, "uploaded log"
        )
        st.session_state["_uploads"] = [*(u for u in _uploads() if u.key != chosen), items[chosen]]
    with picker:
        if not items:
            st.info(
                "No checkpoint databases found in "
                + ", ".join(md(str(f)) for f in config().folders)
                + ". Upload one below, or start the app with `replaylens serve FOLDER`."
            )
            return
        placed = _placed(items)
        keys = sorted(items, key=lambda k: placed[k].group)
        key = synced_selectbox(
            "Database",
            keys,
            "db",
            format_func=_label_for(placed, items),
            help="Type to search. Kill-test campaigns are grouped as campaign › mode and latency › run › "
            "at kill or resumed (after the resume); uploads go by their own file name. A database's effects "
            "log is the file next to it named <name>.effects.jsonl.",
        )
        chosen_label = _label_for(placed, items)(key) if key else ""
        if len(chosen_label) > SELECT_FITS_CHARS:
            # The sidebar's select cuts a long name (`fanout › async 250 ms › run 2 › at k…`):
            # "at kill" and "resumed" differ only at the end, so the whole name goes below it.
            st.caption(md(chosen_label))
        if st.session_state.pop("_db_switched", False):
            # The reader switched databases here (picker or upload): the old thread, namespace and
            # checkpoint belong to the other file. A URL (pasted, or a link from another page)
            # keeps its thread, so an unknown id is reported, never silently replaced.
            for param in ("thread", "ns", "checkpoint"):
                st.query_params.pop(param, None)
                st.session_state.pop(f"_sel_{param}", None)
        st.session_state["_item"] = _checked(items.get(key)) if key else None
        for problem in catalog_.problems[:5]:
            st.caption(md(problem))


def _checked(item: cat.DataItem | None) -> cat.DataItem | None:
    """The item if its file still resolves inside the allowed folders, at the moment it is
    opened: a listed name (or a `?db=` naming a listed key) is checked again, because a
    file can be swapped for a symbolic link after the folder was listed."""
    if item is None or item.dsn is not None:
        return item
    try:
        allow_list().check(item.path)
    except PathRefused as exc:
        st.session_state["_item_error"] = str(exc)
        return None
    return item


def current() -> cat.DataItem | None:
    """The database chosen in the sidebar (after a refusal message, if the URL named a bad path)."""
    error = st.session_state.get("_item_error")
    if error:
        st.error(md(error))
    return st.session_state.get("_item")


def synced_selectbox(
    label: str,
    options: list[str],
    param: str,
    *,
    format_func: Callable[[str], str] = str,
    default_index: int = 0,
    container: Any = None,
    help: str | None = None,
) -> str:
    """A selectbox whose value is always in the URL as `?param=value` (the raw value, not its label).

    The URL wins when it names a valid option (a pasted link, a page switch with query
    parameters); otherwise the session's last choice, else `options[default_index]`. The
    value is written back explicitly, so a copied URL names it even when it is the default.
    """
    key = f"_sel_{param}"
    wanted = st.session_state.pop(f"_canonical_{param}", None) or from_url_value(
        st.query_params.get(param), options
    )
    if wanted in options and st.session_state.get(key) != wanted:
        st.session_state[key] = wanted
    elif st.session_state.get(key) not in options:
        st.session_state[key] = options[min(default_index, len(options) - 1)]

    def sync() -> None:
        st.query_params[param] = url_value(st.session_state[key])
        if param == "db":
            st.session_state["_db_switched"] = True

    where = container or st
    value = where.selectbox(
        label, options, key=key, format_func=format_func, on_change=sync, help=help
    )
    if st.query_params.get(param) != url_value(value):
        st.query_params[param] = url_value(value)
    return value
