"""What the pages read, opened once and cached: the `serve` configuration, the catalogue of
what can be opened, sources (one per file version), the thread list and its statuses,
decoded threads, resume plans and effects logs.

A source is opened once per file version (path, size, mtime); decoded threads and resume
plans are kept in a per-process LRU inside `st.cache_resource`, so moving between pages or
widgets never re-reads the file. `st.cache_resource.clear()` clears it.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from replaylens import settings
from replaylens.analysis.durability import Recording
from replaylens.dashboard import catalog as cat
from replaylens.dashboard import config as cfg
from replaylens.dashboard import loading
from replaylens.errors import EffectsLogError
from replaylens.paths import AllowList, PathRefused
from replaylens.sources import file_identity

log = logging.getLogger("replaylens.app")


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
def lru() -> _LRU:
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


@st.cache_resource(show_spinner=False)
def shared_state() -> dict[str, Any]:
    """Per-process registry of status caches and status jobs (one per database)."""
    return {"lock": threading.Lock(), "caches": {}, "jobs": {}, "replays": {}}


def status_cache(source: Any) -> Any:
    """The persistent status cache of a source (None with `serve --no-cache`)."""
    if config().no_cache:
        return None
    from replaylens import cache

    shared = shared_state()
    ident = source.cache_identity()
    with shared["lock"]:
        if ident not in shared["caches"]:
            shared["caches"][ident] = cache.for_source(source, evidence=allow_list().roots)
        return shared["caches"][ident]


def thread_index(item: cat.DataItem) -> list[Any]:
    """The thread list from SQL alone (ids, counts, latest step and time), per database version."""
    source = open_item(item)
    key = ("index", source.identity())
    hit = lru().get(key)
    return hit if hit is not None else lru().put(key, source.thread_index())


def status_job(item: cat.DataItem) -> Any:
    """The background derivation of this database version's statuses (started on first use)."""
    from replaylens.dashboard.statuses import StatusJob

    source = open_item(item)
    ident = source.identity()
    index = thread_index(item)
    shared = shared_state()
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


def effects(item: cat.DataItem) -> tuple[Any, str | None]:
    """(EffectsLog or None, a sentence if the log could not be read at all)."""
    if item.effects is None:
        return None, None
    try:
        path = allow_list().check(item.effects)
    except PathRefused as exc:
        return None, str(exc)
    key = ("effects", file_identity(path))
    hit = lru().get(key)
    if hit is not None:
        return hit, None
    from replaylens.effects.parse import read_effects

    try:
        return lru().put(key, read_effects(path)), None
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
    hit = lru().get(key)
    if hit is not None:
        return hit
    bar, report = _bar("Opening the thread…")
    try:
        return lru().put(key, loading.load_thread_staged(source, thread_id, report))
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
    hit = lru().get(key)
    if hit is not None and hit[0] is thread_obj:
        return hit[1]
    return lru().put(
        key,
        (
            thread_obj,
            plan_resume(thread_obj, log_, thread_id, latency=latency, recording=rec, source=source),
        ),
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
    hit = lru().get(key)
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
    shared = shared_state()
    with shared["lock"]:
        memo = shared["replays"].setdefault((source.cache_identity(), key[2]), {})
    bar, report = _bar("Planning resumes…")
    try:
        counts = loading.replay_counts(
            source, thread_ids, known, log_, latency, report, memo=memo, versions=versions,
            recording=lambda tid: recording(item, tid),
        )  # fmt: skip
        return lru().put(key, counts)
    finally:
        bar.empty()


def cached(name: str, item: cat.DataItem, compute: Callable[[], Any]) -> Any:
    """`compute()` once per version of the database and its effects log (the Incident and
    Storage pages: whole-database answers), then from the per-process LRU."""
    source = open_item(item)
    key = (name, source.identity(), file_identity(item.effects) if item.effects else None)
    hit = lru().get(key)
    if hit is not None:
        return hit
    return lru().put(key, compute())


def recording(item: cat.DataItem, thread_id: str) -> Recording:
    """How this thread was recorded, when a kill-test manifest next to the database says so,
    with what the graph code chosen in the sidebar tells (the nodes a node cache serves, its
    node names), as `replay --graph` does."""
    from replaylens.killtest.recorded import recording_for

    path = getattr(item, "path", None)
    told = recording_for(path, thread_id) if path is not None else Recording()
    facts = graph_facts(item)
    return told.told_by_graph(*facts) if facts is not None else told


def graph_facts(item: cat.DataItem) -> tuple[list[str], list[str]] | None:
    """What the chosen graph code tells that no database shows (`from_graph.graph_facts`),
    asked once per graph and database version; None without graph code, or where it cannot
    answer (the Thread page says why)."""
    from replaylens.analysis.from_graph import GraphError
    from replaylens.analysis.from_graph import graph_facts as ask
    from replaylens.dashboard.ui.picker import graph_ref  # (picker imports this module)

    graph = graph_ref()
    if not graph:
        return None
    source = open_item(item)
    key = ("graph-facts", graph, source.identity())
    hit = lru().get(key)
    if hit is None:
        try:
            hit = lru().put(key, ask(source, graph))
        except GraphError:
            hit = lru().put(key, ())  # (asked once: the Thread page says why it cannot answer)
    return hit or None
