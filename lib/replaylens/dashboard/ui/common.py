"""Streamlit glue shared by the pages: configuration, the data picker, caching, errors.

One of the three modules of `replaylens.dashboard` that import Streamlit (with app.py
and the screens); everything it computes comes from the core. The pages call these
helpers, then draw.

Caching: a source is opened once per file version (path, size, mtime), decoded threads
and resume plans are kept in a per-process LRU inside `st.cache_resource`, so moving
between pages or widgets never re-reads the file. `st.cache_resource.clear()` clears it.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from replaylens import settings
from replaylens.analysis.durability import MODE_RULES, Recording
from replaylens.analysis.durability import MODES as DURABILITY_MODES
from replaylens.dashboard import catalog as cat
from replaylens.dashboard import config as cfg
from replaylens.dashboard import loading, screen_path
from replaylens.errors import EffectsLogError, ReplaylensError
from replaylens.paths import AllowList, PathRefused
from replaylens.sources import file_identity
from replaylens.text import from_url_value, md, option_text, url_value

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
MODES = DURABILITY_MODES

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


def under_test() -> bool:
    """True inside streamlit.testing's AppTest (whose argv is pytest's, not ours)."""
    from streamlit import config as st_config

    try:  # st.get_option refuses hidden options such as this one; the config module does not
        return bool(st_config.get_option("global.appTest"))
    except Exception:  # noqa: BLE001 - an unknown option means a normal run
        return False


# -- configuration and catalogue -------------------------------------------------------
@st.cache_resource(show_spinner=False)
def _config(signature: str) -> cfg.ServeConfig:
    return cfg.from_environment(sys.argv[1:], under_test=under_test())


def config() -> cfg.ServeConfig:
    """The operator's choices (`replaylens serve` arguments), parsed once per process."""
    return _config(settings.get(cfg.ENV_ARGS) + "\0" + " ".join(sys.argv[1:]))


def upload_folder() -> Path:
    """This browser session's private upload folder, removed when the session goes away."""
    box = st.session_state.get("_upload_folder")
    if box is None:
        box = st.session_state["_upload_folder"] = cat.UploadFolder()
    return box.path


def allow_list() -> AllowList:
    """The operator's folders plus this session's upload folder."""
    return config().allow.with_root(upload_folder())


@st.cache_resource(ttl=15, show_spinner=False)
def _catalog(signature: str, _conf: cfg.ServeConfig) -> cat.Catalog:
    """Shared, not copied: st.cache_data unpickled the whole catalogue (a Path per database)
    on every run of every page, 0.12 s before the header on the bundled samples. Nothing
    changes a catalogue once built."""
    found = cat.discover(_conf.folders, _conf.allow, _conf.effects)
    found.databases[:0] = cat.postgres_items(_conf.dsns, _conf.effects)
    return found


def catalog() -> cat.Catalog:
    conf = config()
    return _catalog(repr((conf.folders, conf.effects, conf.allow.roots)), conf)


# -- small LRU for decoded threads and plans --------------------------------------------
class _LRU:
    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        return None

    def put(self, key: Any, value: Any) -> Any:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


@st.cache_resource(show_spinner=False)
def _store() -> _LRU:
    return _LRU(48)


@st.cache_resource(max_entries=32, show_spinner=False)
def _source(path: str, stat: tuple[Any, ...]) -> Any:
    from replaylens.sources import open_source

    return open_source(path)


def open_item(item: cat.DataItem) -> Any:
    """The read-only source of a database (SourceError if it is not one)."""
    if item.dsn is not None:
        return _postgres_source(item.dsn)
    path = allow_list().check(item.path)  # resolved: the file a link points at, if it is allowed
    return _source(str(path), file_identity(path))


@st.cache_resource(max_entries=8, show_spinner=False)
def _postgres_source(dsn: str) -> Any:
    """One read-only Postgres source per connection string; it notices new commits itself
    (identity() changes), so cached thread views stay current."""
    from replaylens.sources import open_source

    return open_source(dsn)  # hashed as the cache key in memory only; never shown


# -- the thread list and its statuses ----------------------------------------------------
POLL_SECONDS = 0.5
"""How often an open Threads or Thread page asks whether a live database changed."""
QUIET_POLL_SECONDS = 1.5
"""How often it asks of a database no writer has open (a writer that starts is seen then)."""
FIRST_WAIT_SECONDS = 0.3
"""The Threads page waits this long for the statuses before drawing without them: a small
database never shows the "deriving" state, a large one shows its first screen at once."""


@st.cache_resource(show_spinner=False)
def _shared() -> dict[str, Any]:
    """Per-process registry of status caches and status jobs (one per database)."""
    return {"lock": threading.Lock(), "caches": {}, "jobs": {}, "replays": {}}


def status_cache(source: Any) -> Any:
    """The persistent status cache of a source (None with `serve --no-cache`)."""
    if config().no_cache:
        return None
    from replaylens import cache

    shared = _shared()
    ident = source.cache_identity()
    with shared["lock"]:
        if ident not in shared["caches"]:
            shared["caches"][ident] = cache.for_source(source)
        return shared["caches"][ident]


def thread_index(item: cat.DataItem) -> list[Any]:
    """The thread list from SQL alone (ids, counts, latest step and time), per database version."""
    source = open_item(item)
    key = ("index", source.identity())
    hit = _store().get(key)
    return hit if hit is not None else _store().put(key, source.thread_index())


def status_job(item: cat.DataItem) -> Any:
    """The background derivation of this database version's statuses (started on first use)."""
    from replaylens.dashboard.statuses import StatusJob

    source = open_item(item)
    ident = source.identity()
    index = thread_index(item)
    shared = _shared()
    with shared["lock"]:
        found = shared["jobs"].get(source.cache_identity())
        if found is not None and found[0] == ident:
            return found[1]
    job = StatusJob(source, index, status_cache(source))
    with shared["lock"]:
        shared["jobs"][source.cache_identity()] = (ident, job)
    return job


def summaries(item: cat.DataItem) -> tuple[list[Any], list[str]]:
    """Every thread's status, waiting for the background job (cached ones are instant)."""
    from replaylens.errors import SourceError

    job = status_job(item)
    if not job.progress().finished:
        with st.spinner(f"Working out the status of {len(job.index):,} threads…"):
            job.wait()
    progress = job.progress()
    if progress.error:
        raise SourceError(progress.error)
    found, problems = job.results()
    return [found[r.thread_id] for r in job.index], problems


def thread_version(item: cat.DataItem, thread_id: str) -> tuple[Any, ...]:
    """Changes when the thread gains a checkpoint or a write (one index range query)."""
    return open_item(item).thread_version(thread_id)


REDRAW_EVERY_SECONDS = 15.0
"""While a thread keeps growing, its page redraws at most this often (or 5x its draw time)."""


def _follow(item: cat.DataItem, thread_id: str | None, seen: Any, shown: str | None) -> None:
    """Poll; on a change, say so at once and redraw the page when that does not starve the poll.

    The Threads page redraws when it has been idle as long as it took to draw. The Thread
    page's live caption follows every poll; the page below redraws once the thread has
    stopped changing for one poll, or every REDRAW_EVERY_SECONDS while it keeps growing,
    because a redraw of a long thread takes seconds and no poll runs meanwhile."""
    if _upload_ids(st.session_state.get("upload")) != st.session_state.get("_upload_seen"):
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


def _upload_ids(files: Any) -> list[str]:
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
        shared = _shared()
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


def effects(item: cat.DataItem) -> tuple[Any, str | None]:
    """(EffectsLog or None, a sentence if the log could not be read at all)."""
    if item.effects is None:
        return None, None
    try:
        path = allow_list().check(item.effects)
    except PathRefused as exc:
        return None, str(exc)
    key = ("effects", file_identity(path))
    hit = _store().get(key)
    if hit is not None:
        return hit, None
    from replaylens.effects.parse import read_effects

    try:
        return _store().put(key, read_effects(path)), None
    except EffectsLogError as exc:
        return None, str(exc)


def effects_label(item: cat.DataItem) -> str | None:
    """The effects log as the report names it: beside the database's own key when the two
    sit in one folder, else by file name. Never the server's absolute path."""
    if item.effects is None:
        return None
    if item.dsn is None and item.effects.parent == item.path.parent:
        return (
            str(Path(item.key).parent / item.effects.name) if "/" in item.key else item.effects.name
        )
    return item.effects.name


def download_name(item: cat.DataItem, thread_id: str, suffix: str) -> str:
    """A download's file name that says which run it is: campaign, mode, latency, run and
    moment for a kill-test database (every campaign's run 1 has the same thread id), else
    the database's own name, then the thread."""
    from replaylens.text import safe_filename

    where = cat.place(item, catalog(), [])
    if item.campaign:
        prefix = where.label.replace(" › ", "-").replace(", ", "-")
    else:
        prefix = item.path.stem
    return safe_filename(f"{prefix}-{thread_id}", suffix)


def _bar(text: str) -> tuple[Any, Callable[[float, str], None]]:
    bar = st.progress(0.0, text=text)

    def report(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=message)

    return bar, report


def thread(item: cat.DataItem, thread_id: str) -> Any:
    """The decoded thread, loaded with a progress bar the first time, then from the cache."""
    source = open_item(item)
    key = ("thread", source.cache_identity(), thread_id, thread_version(item, thread_id))
    hit = _store().get(key)
    if hit is not None:
        return hit
    bar, report = _bar("Opening the thread…")
    try:
        return _store().put(key, loading.load_thread_staged(source, thread_id, report))
    finally:
        bar.empty()


def plan(item: cat.DataItem, thread_id: str, thread_obj: Any, latency: float) -> Any:
    """The resume plan of a thread, cached for that very thread object (a live thread's newer
    load gets its own plan, never one made from an older load)."""
    from replaylens.analysis.resume import plan_resume

    log_, _ = effects(item)
    source = open_item(item)
    rec = recording(item, thread_id)
    key = ("plan", source.cache_identity(), id(thread_obj),
           file_identity(item.effects) if item.effects else None, thread_id, round(latency, 3), rec)  # fmt: skip
    hit = _store().get(key)
    if hit is not None and hit[0] is thread_obj:
        return hit[1]
    return _store().put(
        key, (thread_obj, plan_resume(thread_obj, log_, thread_id, latency=latency, recording=rec))
    )[1]


def replay_counts(
    item: cat.DataItem, thread_ids: list[str], known: set[str], latency: float
) -> dict[str, int]:
    log_, _ = effects(item)
    if log_ is None:
        return {}
    source = open_item(item)
    key = (
        "replays",
        source.identity(),
        file_identity(item.effects) if item.effects else None,
        round(latency, 3),
    )
    hit = _store().get(key)
    if hit is not None:
        return hit
    # A thread's version in the list; without its writes key (SQLite leaves it out of the
    # list), the database's version stands in, so no memo outlives a write.
    versions = {
        r.thread_id: (r.latest_checkpoint_id, r.writes_key, r.checkpoints)
        if r.writes_key is not None
        else (r.latest_checkpoint_id, source.identity())
        for r in thread_index(item)
    }
    shared = _shared()
    with shared["lock"]:
        memo = shared["replays"].setdefault((source.cache_identity(), key[2]), {})
    bar, report = _bar("Planning resumes…")
    try:
        counts = loading.replay_counts(
            source, thread_ids, known, log_, latency, report, memo=memo, versions=versions
        )
        return _store().put(key, counts)
    finally:
        bar.empty()


def cached(name: str, item: cat.DataItem, compute: Callable[[], Any]) -> Any:
    """`compute()` once per version of the database and its effects log (the Incident and
    Storage pages: whole-database answers), then from the per-process LRU."""
    source = open_item(item)
    key = (name, source.identity(), file_identity(item.effects) if item.effects else None)
    hit = _store().get(key)
    if hit is not None:
        return hit
    return _store().put(key, compute())


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
            st.session_state["_upload_seen"] = _upload_ids(files)
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


# -- links, errors, small widgets --------------------------------------------------------
def link(page: str, **params: Any) -> str:
    """A relative URL of a view (paste-able into a write-up once joined with the app's address)."""
    clean = {k: url_value(str(v)) for k, v in params.items() if v is not None and v != ""}
    return f"./{page}" + (f"?{urlencode(clean)}" if clean else "")


def absolute(url: str) -> str:
    """`./thread?…` -> `http://host:port/thread?…`, using the address the browser used."""
    base = ""
    with contextlib.suppress(Exception):
        base = str(st.context.url or "")
    if not base:
        return url
    root = base.split("?")[0]
    root = root[: root.rfind("/") + 1] if "/" in root[8:] else root + "/"
    return root + url.removeprefix("./")


@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    """Any error becomes a sentence in the page; the rest of the app keeps working."""
    try:
        yield
    except ReplaylensError as exc:
        st.error(md(str(exc)))
    except Exception as exc:  # noqa: BLE001 - never show a raw traceback to the reader
        log.exception("page failed")
        st.error(
            f"This view could not be drawn ({md(type(exc).__name__)}: {md(str(exc)[:300])}). The rest of "
            "the app still works: pick another database or thread in the sidebar."
        )


def need_database() -> cat.DataItem | None:
    """The chosen database, or an empty-state message saying what to do next."""
    item = current()
    if item is None:
        st.info(
            "Pick a checkpoint database in the sidebar, or upload one there. "
            "`replaylens serve FOLDER` serves every database in FOLDER."
        )
    return item


def thread_picker(
    item: cat.DataItem, *, label: str = "Thread", container: Any = None
) -> str | None:
    """A thread selector bound to `?thread=`; an unknown id in the URL gets a sentence."""
    summaries_, _ = summaries(item)
    log_, _ = effects(item)
    ids = [s.thread_id for s in summaries_]
    if log_ is not None:
        ids += sorted(set(log_.thread_ids) - set(ids))
    raw = from_url_value(st.query_params.get("thread"), ids)
    where = container or st
    if raw and raw not in ids:
        # After an incident, showing another thread's analysis under this id would be
        # dangerous: say so, list the threads that exist, and draw nothing else.
        st.error(
            f"Thread {md_quote(raw)} is not in {md(item.path.name)}"
            + (" or its effects log" if log_ is not None else "")
            + ". Nothing is shown for it; open one of the threads below."
        )
        unknown_thread_list(item, ids)
        return None
    if not ids:
        st.info(
            f"{md(item.path.name)} holds no threads yet. Run a graph with a SqliteSaver on it, or pick another database."
        )
        return None
    return synced_selectbox(
        label,
        ids,
        "thread",
        container=where,
        format_func=option_text,
        help="A thread is one conversation or run of the graph (its thread_id).",
    )


def unknown_thread_list(item: cat.DataItem, ids: list[str]) -> None:
    """The database's threads as links to the current page, after an unknown-thread error.

    Plain Markdown links (ids escaped, URLs percent-encoded), so they read and click like
    text; the Threads page pages and searches the full list."""
    page_name = next((n for n in PAGES if st.session_state.get("_page") == n), "thread")
    shown = ids[:MAX_LISTED_THREADS]
    st.markdown("\n".join(f"- [{md(t)}]({link(page_name, db=item.key, thread=t)})" for t in shown))
    if len(ids) > len(shown):
        st.caption(
            f"The first {len(shown)} of {len(ids)} threads; the Threads page searches them all."
        )


MAX_LISTED_THREADS = 50


WHY_CAPTION = {
    "re-run in the resume step": "Tasks re-run in the resume step: due after the checkpoint a resume loads, "
    "with no saved output (in flight, failed or waiting at interrupt()).",
    "step whose checkpoint was lost": "Steps whose checkpoint was lost: these tasks finished, but the "
    "checkpoint after their superstep never reached the database, so a resume runs them again.",
    "restart from the input": "Restart from the input: no checkpoint exists, so everything runs again.",
}


def verdict_block(plan: Any, thread_obj: Any) -> None:
    """The answer at the top of a per-thread page: the verdict, what stopped the thread with the
    code for the next move, and the "what happens again" table, all from the same plan."""
    from replaylens.analysis.again import next_moves
    from replaylens.dashboard import views
    from replaylens.text import md_code, md_ticks

    frames = views.again_frames(plan) if plan.effects_given else {}
    alarming = bool(frames) or plan.replayed_lines or plan.status in ("failed", "needs_restart")
    (st.warning if alarming else st.success)(md_ticks(plan.verdict_sentence()))
    for move in next_moves(plan, thread_obj):
        with st.container(border=True, key=f"next_move_{move.kind}"):
            if move.kind == "failed":
                st.markdown(f":red[**{md_code(move.node)} failed with:**]")
                st.code(
                    move.detail or "(no exception text was saved)", language="text", wrap_lines=True
                )
                st.markdown(
                    "**Next move**, once the cause is fixed (re-runs the failed task from its first line):"
                )
            else:
                st.markdown(f":violet[**{md_code(move.node)} is waiting for an answer to:**]")
                st.code(move.detail, language="json", wrap_lines=True)
                st.markdown(
                    "**Next move**: answer it (the value you pass becomes interrupt()'s return value):"
                )
            st.code(move.code, language="python", wrap_lines=True)
    if frames:
        st.markdown(
            "**What happens again**",
            help="times again: executions of the node that repeat this effect (tasks, not log lines).",
        )
        for why, frame in frames.items():
            st.caption(WHY_CAPTION.get(why, why))
            wrapping_table(frame)


def wrapping_table(frame: Any) -> None:
    """A static table, not a data grid: its few rows wrap their sentences ("would the key
    dedupe", "what it means") instead of cutting them at 1000 px. Its cells are Markdown,
    so every string is escaped."""
    st.table(frame.map(lambda v: md(v) if isinstance(v, str) else v), hide_index=True,
             border="horizontal")  # fmt: skip


def open_tab(tab: Any) -> Iterator[None]:
    """`for _ in open_tab(tabs[i]):` runs the body inside the tab only when it is the one shown.

    Tabs bound to the URL know which one is open, so the others need not compute or send
    anything: a cold Thread page then loads no chart code (Graphviz, the code highlighter)
    for tabs nobody looks at. `open` is None when Streamlit cannot tell; then every tab runs."""
    if tab.open is False:
        return
    with tab:
        yield


def campaign_banner(item: cat.DataItem) -> None:
    """A kill-test run's database says which run it is (campaign, recorded mode and latency,
    run, at the kill or after the resume) and links back to its campaign."""
    if not item.campaign:
        return
    where = cat.place(item, catalog(), [])
    with st.container(horizontal=True, vertical_alignment="center", key="campaign_banner"):
        st.info(
            f"Kill-test run: {md(where.label)} (the mode and latency it was recorded with).",
            icon=":material/science:",
            width="stretch",
        )
        st.page_link(page("runs"), label="Back to its campaign", icon=":material/arrow_back:",
                     query_params={"campaign": item.campaign})  # fmt: skip


def metric_row(metrics: list[tuple[str, Any, str]], *, key: str) -> None:
    """Metrics side by side that wrap to a second line instead of cutting their labels
    ("would rep…") when the page is narrow: (label, value, help) each."""
    with st.container(horizontal=True, wrap=True, gap="medium", key=key):
        for label, value, help_ in metrics:
            st.metric(label, value, help=help_, width=150)


def md_quote(text: str) -> str:
    return "“" + md(text[:200]) + "”"


def mode_picker(
    container: Any = None, *, label: str = "Durability mode", default: str | None = "async"
) -> str | None:
    """The durability mode to show; None while nobody has picked one and none was recorded."""
    where = container or st
    return where.segmented_control(
        label, list(MODES), default=default, key="mode", bind="query-params",
        help="When LangGraph saves checkpoints. " + " ".join(f"{m}: {r}." for m, r in MODE_RULES.items()),
    )  # fmt: skip


def recording(item: cat.DataItem, thread_id: str) -> Recording:
    """How this thread was recorded, when a kill-test manifest next to the database says so."""
    from replaylens.killtest.recorded import recording_for

    path = getattr(item, "path", None)
    return recording_for(path, thread_id) if path is not None else Recording()


LATENCY_DEFAULT_MS = 250


def latency_picker(container: Any = None, recorded: float | None = None) -> float:
    """The write latency the durability model uses, in seconds. It starts at the recorded one
    when a kill-test manifest names it: a run recorded at 0 ms read "model at 250 ms" beside
    its own recorded mode, where a reader expects the recording."""
    where = container or st
    start = LATENCY_DEFAULT_MS if recorded is None else min(1000, round(recorded * 1000 / 50) * 50)
    ms = where.slider(
        "Checkpoint write latency (ms)", 0, 1000, start, step=50, key="latency",
        bind="query-params",
        help="How long one checkpoint takes to reach the database. Local SQLite: a few ms; a networked "
        "Postgres or hosted service: 50-500 ms. Under async, a crash loses the checkpoints still on their way.",
    )  # fmt: skip
    return float(ms) / 1000.0


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


def thread_header(
    item: cat.DataItem, mode_label: str
) -> tuple[str | None, str | None, float, list[Any]]:
    """The row every per-thread page starts with: thread, durability mode, write latency.

    The mode defaults to the recorded one when a kill-test manifest names it; otherwise
    no mode is chosen and the page says the mode was not recorded and asks for one.
    Returns (thread id or None, mode or None, latency, the database's thread summaries)."""
    # The thread id gets the row's width; mode and latency share the next one, so the three
    # mode buttons never lose `exit` at 1000 pixels.
    thread_id = thread_picker(item)
    if not thread_id:
        return None, None, 0.25, []
    rec = recording(item, thread_id)
    below = st.columns([1, 1])
    mode = mode_picker(below[0], label=mode_label, default=rec.mode)
    latency = latency_picker(below[1], rec.latency if rec.known else None)
    if rec.known:
        below[0].caption(
            f"Recorded under **{rec.mode}**"
            + (f" at {rec.latency * 1000:g} ms per checkpoint write" if rec.latency else "")
            + " (kill-test manifest)."
        )
    elif mode is None:
        st.info(
            "The durability mode this thread ran under was not recorded (no kill-test manifest names it). "
            "Pick the mode your run used above to see what it left and what a resume would replay."
        )
    summaries_, _ = summaries(item)
    return thread_id, mode, latency, summaries_
