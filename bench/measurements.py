"""The measurements: one worker function per row, each run in a fresh process by the harness.

Each `w_NAME(params)` imports what it needs (not timed), then returns a callable doing
the timed work once and returning a small dict of facts the driver checks against the
other side (counts, statuses). `worker_main` repeats it and prints the times as JSON.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import EFFECTS_THREAD, REPLAY_COUNTS_THREADS, STATUS_SAMPLE, fx  # noqa: F401

# ======================================================================================
# Workers: one measurement, run in a fresh process. Each returns a callable doing the
# timed work once and returning a small dict of facts (checked against the other side).
# ======================================================================================
_KEEP_OPEN: list[Any] = []  # open checkpointers of a worker, alive until it exits


def _lg_status(snap: Any) -> str:
    """A thread's status from LangGraph's StateSnapshot, the way a user would derive it."""
    if snap.created_at is None:
        return "needs_restart"
    if not snap.next and not snap.tasks:
        return "completed"
    if any(t.error for t in snap.tasks):
        return "failed"
    if snap.interrupts or any(t.interrupts for t in snap.tasks):
        return "interrupted"
    return "resumable"


def w_read_file(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The disk floor: read the whole file sequentially in 4 MB chunks, nothing else."""

    def run() -> dict[str, Any]:
        n = 0
        with open(p["db"], "rb", buffering=0) as fh:
            while chunk := fh.read(4 << 20):
                n += len(chunk)
        return {"bytes": n}

    return run


def w_rl_thread(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Thread page data: checkpoints, next tasks and their statuses (load_thread)."""
    from replaylens.analysis.status import load_thread, thread_status
    from replaylens.sources import open_source

    def run() -> dict[str, Any]:
        source = open_source(p["db"])
        try:
            thread = load_thread(source, p["tid"])
            tasks = sum(len(cp.tasks) for ns in thread.namespaces.values() for cp in ns.checkpoints)
            return {
                "checkpoints": thread.checkpoint_count,
                "tasks": tasks,
                "status": thread_status(thread),
            }
        finally:
            source.close()

    return run


def w_rl_thread_full(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The Thread page's computations: load_thread, the resume plan, the timeline (data and
    plotly figure) and the checkpoint table (pandas), without Streamlit's rendering."""
    import pandas
    import plotly.graph_objects as go

    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.dashboard import views
    from replaylens.figures.timeline import build_timeline_data, timeline_figure
    from replaylens.sources import open_source

    # The dashboard process has drawn figures and tables before it opens this thread, and
    # Plotly imports a trace type's validators at its first use: done here, like imports,
    # so that "cold" means a cold reader and a cold disk, not a first-ever figure.
    go.Figure(
        data=[{"type": "bar", "x": [1.0], "y": ["a"]}, {"type": "scatter", "x": [1.0], "y": ["a"]}]
    )
    pandas.DataFrame({"step": [1], "source": ["loop"]})

    def run() -> dict[str, Any]:
        source = open_source(p["db"])
        try:
            thread = load_thread(source, p["tid"])
            plan = plan_resume(thread, None, p["tid"])
            fig = timeline_figure(build_timeline_data(thread, plan), mode="sync")
            resume_id = plan.resume_checkpoint.checkpoint_id if plan.resume_checkpoint else None
            frame = views.checkpoints_frame(thread.namespaces[""], resume_id)
            return {
                "checkpoints": thread.checkpoint_count,
                "rows": len(frame),
                "traces": len(fig.data),
            }
        finally:
            source.close()

    return run


def w_rl_values(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """One checkpoint's full state (the State tab), the source already open."""
    from replaylens.sources import open_source

    source = open_source(p["db"])

    def run() -> dict[str, Any]:
        values = source.read_channel_values(p["tid"], "", p["cid"])
        return {"channels": len(values), "messages": len(values["messages"].value)}

    return run


def w_rl_threads(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Threads page data: every thread with its status (summarize_threads)."""
    from replaylens.analysis.status import summarize_threads
    from replaylens.sources import open_source

    def run() -> dict[str, Any]:
        source = open_source(p["db"])
        try:
            summaries, _ = summarize_threads(source)
        finally:
            source.close()
        counts: dict[str, int] = {}
        for s in summaries:
            counts[s.status] = counts.get(s.status, 0) + 1
        sample = set(p.get("sample", []))
        return {
            "threads": len(summaries),
            "checkpoints": sum(s.checkpoints for s in summaries),
            "statuses": counts,
            "sample_status": {s.thread_id: s.status for s in summaries if s.thread_id in sample},
        }

    return run


def w_rl_first_screen(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The Threads page's first screen (issue 17), as the page builds it: the SQL thread list
    (ids, counts, latest step and checkpoint id), every thread's row sorted by attention, and
    the first page's table (pandas, 1,000 rows, their times from the checkpoint ids), before
    any status is derived."""
    from replaylens.dashboard import views
    from replaylens.sources import open_source

    def run() -> dict[str, Any]:
        source = open_source(p["db"])
        try:
            index = source.thread_index()
        finally:
            source.close()
        frame = views.table_page(views.listing_rows(index, {}), 1)[1]
        return {
            "threads": len(index),
            "checkpoints": sum(r.checkpoints for r in index),
            "rows": len(frame),
        }

    return run


def w_rl_thread_index(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The SQL part of the first screen alone: `thread_index` (no table)."""
    from replaylens.sources import open_source

    def run() -> dict[str, Any]:
        source = open_source(p["db"])
        try:
            index = source.thread_index()
        finally:
            source.close()
        return {"threads": len(index), "checkpoints": sum(r.checkpoints for r in index)}

    return run


def _status_counts(summaries: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for s in summaries:
        counts[s.status] = counts.get(s.status, 0) + 1
    return counts


def w_rl_statuses_cold_cache(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Every status with an empty status cache: derive all, then save the cache file."""
    import shutil
    import tempfile

    from replaylens.analysis.status import summarize_threads
    from replaylens.cache import StatusCache
    from replaylens.sources import open_source

    def run() -> dict[str, Any]:
        folder = Path(tempfile.mkdtemp(prefix="bench-cache-", dir=p["scratch"]))
        try:
            source = open_source(p["db"])
            try:
                summaries, _ = summarize_threads(
                    source, cache=StatusCache(source.cache_identity(), folder)
                )
            finally:
                source.close()
            size = sum(f.stat().st_size for f in folder.glob("statuses-*.json"))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return {
            "threads": len(summaries),
            "statuses": _status_counts(summaries),
            "cache_bytes": size,
        }

    return run


def w_rl_statuses_warm_cache(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Every status with a warm cache in which a share of the threads (p["changed"]) no longer
    match: their stored checkpoint id is replaced, what the thread list shows for a thread
    that gained a checkpoint, so their writes keys are asked and they are read and derived
    again (the change marks, kept, name no thread: the fixture does not change). The cache
    is filled once before timing; each repetition restores it, invalidates a different share
    (not timed) and times, with p["phase"]:

    - "whole": `replaylens threads` in a process already started: open the source, the
      thread list, every status, the saved cache file;
    - "statuses": what the Threads page waits for after its first screen: its status job
      (`StatusJob`) given the thread list in hand, to the saved cache file.
    """
    import shutil
    import tempfile

    import orjson

    from replaylens.analysis.status import summarize_threads
    from replaylens.cache import StatusCache
    from replaylens.dashboard.statuses import StatusJob
    from replaylens.sources import open_source

    folder = Path(tempfile.mkdtemp(prefix="bench-cache-", dir=p["scratch"]))
    source = open_source(p["db"])
    key = source.cache_identity()
    summarize_threads(source, cache=StatusCache(key, folder))
    source.close()
    (path,) = folder.glob("statuses-*.json")
    pristine = orjson.loads(path.read_bytes())
    ids = sorted(pristine["entries"])
    every = max(1, round(1 / p["changed"]))
    rep = [0]

    def run() -> dict[str, Any]:
        doc = {**pristine, "entries": dict(pristine["entries"])}
        changed = ids[rep[0] % every :: every]
        rep[0] += 1
        for tid in changed:
            doc["entries"][tid] = ["stale-" + doc["entries"][tid][0], *doc["entries"][tid][1:]]
        path.write_bytes(orjson.dumps(doc))
        t0 = time.perf_counter()
        src = open_source(p["db"])
        try:
            if p.get("phase", "whole") == "whole":
                summaries, _ = summarize_threads(src, cache=StatusCache(key, folder))
                t1 = t0
            else:  # the page's own status job, given the thread list its first screen read
                index = src.thread_index()
                t1 = time.perf_counter()
                job = StatusJob(src, index, StatusCache(key, folder))
                job.wait()
                found, _ = job.results()
                summaries = [found[r.thread_id] for r in index]
        finally:
            src.close()
        t2 = time.perf_counter()
        if rep[0] == p["repeat"]:
            shutil.rmtree(folder, ignore_errors=True)
        return {
            "elapsed": t2 - t1,
            "threads": len(summaries),
            "statuses": _status_counts(summaries),
            "changed": len(changed),
            "marks": pristine.get("marks") is not None,
        }

    return run


def w_pg_floor(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Postgres: the bare GROUP BY, in a read-only transaction like replaylens's."""
    import psycopg

    def run() -> dict[str, Any]:
        with psycopg.connect(p["db"]) as conn:
            conn.read_only = True
            rows = conn.execute(
                "SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id"
            ).fetchall()
        return {"threads": len(rows), "checkpoints": sum(n for _, n in rows)}

    return run


def w_lg_pg_list(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """LangGraph on Postgres: thread ids from `PostgresSaver.list(None, limit=...)` (its
    setup() already ran when the fixture was built; list() only reads)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    def run() -> dict[str, Any]:
        with PostgresSaver.from_conn_string(p["db"]) as saver:
            n, ids = 0, set()
            for t in saver.list(None, limit=p["limit"]):
                ids.add(t.config["configurable"]["thread_id"])
                n += 1
        return {"threads": len(ids), "checkpoints": n}

    return run


def w_floor(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The bare GROUP BY over the checkpoints' primary key: the floor of any thread list.
    Opened the way replaylens opens this file (read-only, immutable: it has no -wal)."""
    import sqlite3
    from urllib.parse import quote

    uri = f"file:{quote(str(Path(p['db']).resolve()))}?mode=ro&immutable=1"

    def run() -> dict[str, Any]:
        conn = sqlite3.connect(uri, uri=True)
        try:
            rows = conn.execute(
                "SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id"
            ).fetchall()
        finally:
            conn.close()
        return {"threads": len(rows), "checkpoints": sum(n for _, n in rows)}

    return run


def w_lg_history(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """LangGraph: list(graph.get_state_history(config)) over the big thread (a copy)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    def run() -> dict[str, Any]:
        with SqliteSaver.from_conn_string(p["db"]) as saver:
            graph = fx.tool_loop().compile(checkpointer=saver)
            history = list(graph.get_state_history({"configurable": {"thread_id": p["tid"]}}))
        return {"checkpoints": len(history), "status": _lg_status(history[0]) if history else None}

    return run


def w_lg_saver_list(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """LangGraph: list(checkpointer.list(config)) over the big thread (a copy)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    def run() -> dict[str, Any]:
        with SqliteSaver.from_conn_string(p["db"]) as saver:
            tuples = list(saver.list({"configurable": {"thread_id": p["tid"]}}))
        return {"checkpoints": len(tuples)}

    return run


def w_lg_get_state(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """LangGraph: graph.get_state(config with checkpoint_id) (a copy), graph compiled first."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    cm = SqliteSaver.from_conn_string(p["db"])
    saver = _KEEP_OPEN.append(cm) or cm.__enter__()
    graph = fx.tool_loop().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": p["tid"], "checkpoint_id": p["cid"]}}

    def run() -> dict[str, Any]:
        snap = graph.get_state(config)
        return {"channels": len(snap.values), "messages": len(snap.values["messages"])}

    return run


def w_lg_thread_ids(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """LangGraph: the thread ids, from checkpointer.list(None) (a copy)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    def run() -> dict[str, Any]:
        with SqliteSaver.from_conn_string(p["db"]) as saver:
            ids = {t.config["configurable"]["thread_id"] for t in saver.list(None)}
        return {"threads": len(ids)}

    return run


def w_lg_status_sample(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """LangGraph: graph.get_state(config) for a sample of threads (each with its graph)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    cm = SqliteSaver.from_conn_string(p["db"])
    saver = _KEEP_OPEN.append(cm) or cm.__enter__()
    graphs = {name: fx.TEMPLATES[name][0]().compile(checkpointer=saver) for name in fx.TEMPLATES}

    def run() -> dict[str, Any]:
        statuses = {}
        for tid in p["sample"]:
            snap = graphs[fx.template_of(tid)].get_state({"configurable": {"thread_id": tid}})
            statuses[tid] = _lg_status(snap)
        return {"threads": len(statuses), "sample_status": statuses}

    return run


def w_rl_effects(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """1M-line effects log: read_effects, then load_thread + plan_resume of one thread. Timed
    from the start of read_effects to the end of plan_resume; freeing the previous
    repetition's log happens before that span (reported as "elapsed")."""
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.effects.parse import read_effects
    from replaylens.sources import open_source

    held: list[Any] = []

    def run() -> dict[str, Any]:
        # The previous repetition's million lines are freed before the clock starts, and
        # this one's after it stops: freeing is not parsing (the dashboard keeps the log).
        held.clear()
        t0 = time.perf_counter()
        log = read_effects(p["log"])
        t1 = time.perf_counter()
        source = open_source(p["db"])
        try:
            thread = load_thread(source, p["tid"])
        finally:
            source.close()
        t2 = time.perf_counter()
        plan = plan_resume(thread, log, p["tid"])
        t3 = time.perf_counter()
        held.extend((log, thread, plan))
        return {
            "lines": len(log.lines),
            "attempts": len(plan.attempts),
            "replayed_lines": len(plan.replayed_lines),
            "status": plan.status,
            "parts": {"read_effects": t1 - t0, "load_thread": t2 - t1, "plan_resume": t3 - t2},
            "elapsed": t3 - t0,
        }

    return run


def w_rl_replay_counts(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Threads page with an effects log: 'would replay' for the first 300 threads (the
    dashboard's replay_counts), the log already parsed."""
    from replaylens.analysis.status import summarize_threads
    from replaylens.dashboard.loading import replay_counts
    from replaylens.effects.parse import read_effects
    from replaylens.sources import open_source

    log = read_effects(p["log"])
    source = open_source(p["db"])
    summaries, _ = summarize_threads(source)
    ids = [s.thread_id for s in summaries]

    def run() -> dict[str, Any]:
        counts = replay_counts(source, ids, set(ids), log, 0.25)
        return {"threads": len(counts), "replayed_lines": sum(counts.values())}

    return run


class _MemorySampler:
    """Samples /proc/self/status every 2 ms: the peak of private (anonymous) memory and of
    the file pages mapped into the process. SQLite maps the database read-only (mmap), so
    RSS counts the pages of the file it touched; those are the kernel's page cache, shared
    and reclaimable, and a read() of the same bytes would have put them in the cache too.
    What the process itself holds (decoded state, Python objects) is the private part."""

    def __init__(self) -> None:
        import threading

        self.peak_anon_kb = self.peak_file_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("RssAnon:"):
                    self.peak_anon_kb = max(self.peak_anon_kb, int(line.split()[1]))
                elif line.startswith("RssFile:"):
                    self.peak_file_kb = max(self.peak_file_kb, int(line.split()[1]))

    def _run(self) -> None:
        while not self._stop.wait(0.002):
            self._sample()

    def __enter__(self) -> _MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


def w_rl_rss(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Peak memory of a dashboard-like process browsing the big thread: the dashboard's
    imports, the Thread page computations, then five checkpoints' full state. Reports the
    peak RSS and, sampled alongside, the peaks of private memory and of mapped file pages."""
    import pandas  # noqa: F401  - the dashboard process has these loaded
    import plotly.graph_objects  # noqa: F401
    import streamlit  # noqa: F401

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    page = w_rl_thread_full(p)
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    def run() -> dict[str, Any]:
        with _MemorySampler() as mem:
            page()
            source = open_source(p["db"])
            thread = load_thread(source, p["tid"])
            cps = thread.namespaces[""].checkpoints
            kept = []  # the dashboard's cache keeps what it decoded
            for i in (0, len(cps) // 4, len(cps) // 2, 3 * len(cps) // 4, len(cps) - 1):
                kept.append(source.read_channel_values(p["tid"], "", cps[i].checkpoint_id))
            source.close()
        return {
            "after_imports_mb": base / 1024,
            "values_read": len(kept),
            "peak_private_mb": mem.peak_anon_kb / 1024,
            "peak_file_mapped_mb": mem.peak_file_kb / 1024,
        }

    return run


# Where the time goes: library functions timed by wrapping them in the worker process
# (the library itself is not touched). Nested entries are included in their parents.
BREAKDOWNS: dict[str, list[tuple[str, str, str]]] = {
    "thread": [
        (
            "replaylens.sources._sqlite",
            "SqliteSource.read_thread",
            "SqliteSource.read_thread (SQL fetch of every blob + the two below)",
        ),
        (
            "replaylens.sources._sqlite",
            "fill_skeleton",
            "  _skeleton.fill_skeleton (msgpack skip of channel_values)",
        ),
        ("replaylens.sources._sqlite", "parse_metadata", "  _base.parse_metadata (json)"),
        ("replaylens.analysis.status", "build_thread", "model.build_thread"),
        (
            "replaylens.analysis.status",
            "annotate_thread",
            "tasks.annotate_thread (derive_tasks, task ids)",
        ),
    ],
    "threads": [
        (
            "replaylens.sources._sqlite",
            "SqliteSource.thread_index",
            "SqliteSource.thread_index (GROUP BY + one seek per thread)",
        ),
        (
            "replaylens.sources._sqlite",
            "SqliteSource.read_latest",
            "SqliteSource.read_latest (latest rows + their writes)",
        ),
        ("replaylens.sources._sqlite", "fill_skeleton", "  _skeleton.fill_skeleton"),
        (
            "replaylens.sources._sqlite",
            "parse_metadata",
            "_base.parse_metadata (json, both queries)",
        ),
        ("replaylens.analysis.status", "build_thread", "model.build_thread (once per thread)"),
        ("replaylens.analysis.status", "TriggerMap", "tasks.TriggerMap (once per thread)"),
        (
            "replaylens.analysis.status",
            "_TriggerCache.for_checkpoint",
            "status._TriggerCache.for_checkpoint (per thread)",
        ),
        (
            "replaylens.analysis.status",
            "annotate_checkpoint",
            "tasks.annotate_checkpoint (once per thread)",
        ),
    ],
    "effects": [
        ("replaylens.effects.parse", "read_effects", "parse.read_effects"),
        ("replaylens.analysis.status", "load_thread", "status.load_thread (one thread)"),
        ("replaylens.analysis.resume", "plan_resume", "resume.plan_resume (one thread)"),
        (
            "replaylens.effects.parse",
            "EffectsLog.for_thread",
            "  EffectsLog.for_thread (first call indexes the log)",
        ),
    ],
    "replay_counts": [
        (
            "replaylens.effects.parse",
            "EffectsLog.for_thread",
            "EffectsLog.for_thread (scans all lines, once per thread)",
        ),
        ("replaylens.dashboard.loading", "load_thread_staged", "loading.load_thread_staged"),
        ("replaylens.analysis.align", "align", "align.align"),
        ("replaylens.analysis.durability", "what_if", "durability.what_if"),
    ],
}


def _wrap_for_breakdown(spec: list[tuple[str, str, str]], acc: dict[str, float]) -> None:
    import importlib

    for module_name, attr_path, label in spec:
        try:
            owner: Any = importlib.import_module(module_name)
            *parents, attr = attr_path.split(".")
            for part in parents:
                owner = getattr(owner, part)
            func = getattr(owner, attr)
        except (ImportError, AttributeError):
            continue  # renamed in the library: that line is left out

        def timed(*a: Any, _f: Any = func, _label: str = label, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return _f(*a, **k)
            finally:
                acc[_label] = acc.get(_label, 0.0) + time.perf_counter() - t0

        setattr(owner, attr, timed)


def w_rl_breakdown(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """One of the measurements above with its library functions timed (shares of a run)."""
    acc: dict[str, float] = {}
    what = p["what"]
    _wrap_for_breakdown(BREAKDOWNS.get(what, []), acc)
    if what == "thread_page":
        from replaylens.analysis.resume import plan_resume
        from replaylens.analysis.status import load_thread
        from replaylens.dashboard import views
        from replaylens.figures.timeline import build_timeline_data, timeline_figure
        from replaylens.sources import open_source

        def inner() -> None:
            steps = [
                ("load_thread", lambda ctx: load_thread(ctx["src"], p["tid"])),
                ("resume.plan_resume", lambda ctx: plan_resume(ctx["load_thread"], None, p["tid"])),
                (
                    "timeline.build_timeline_data",
                    lambda ctx: build_timeline_data(ctx["load_thread"], ctx["resume.plan_resume"]),
                ),
                (
                    "timeline.timeline_figure (plotly)",
                    lambda ctx: timeline_figure(ctx["timeline.build_timeline_data"], mode="sync"),
                ),
                (
                    "views.checkpoints_frame (pandas)",
                    lambda ctx: views.checkpoints_frame(ctx["load_thread"].namespaces[""], None),
                ),
            ]
            ctx: dict[str, Any] = {"src": open_source(p["db"])}
            for label, step in steps:
                t0 = time.perf_counter()
                ctx[label] = step(ctx)
                acc[label] = acc.get(label, 0.0) + time.perf_counter() - t0
            ctx["src"].close()
    elif what == "effects_parse":
        from replaylens.effects import parse

        def inner() -> None:
            # The stages of read_effects, each over the whole log in turn (no per-call
            # timers, so no timer overhead): each stage's time is what it adds. Private names: if the library
            # renames them, this breakdown says so instead of guessing.
            needed = ("_line_batches", "_fast_batch", "_timestamp_problems", "_gc_paused")
            if not all(hasattr(parse, n) for n in needed):
                acc["(parse internals renamed: no breakdown)"] = 0.0
                return
            import orjson

            t0 = time.perf_counter()
            with open(p["log"], "rb") as fh:
                batches = [(n, raws) for n, raws in parse._line_batches(fh) if raws]
            t1 = time.perf_counter()
            with parse._gc_paused():
                decoded = [(n, list(map(orjson.loads, raws))) for n, raws in batches]
                t2 = time.perf_counter()
                lines = [
                    x
                    for n, objs in decoded
                    for x in parse._fast_batch(range(n, n + len(objs)), objs) or ()
                ]
                t3 = time.perf_counter()
                parse._timestamp_problems(lines, "log")
                t4 = time.perf_counter()
            acc["parse._line_batches (read and split the file in blocks)"] = t1 - t0
            acc["orjson.loads (per line, mapped over each block)"] = t2 - t1
            acc["parse._fast_batch (check and build a block at a time)"] = t3 - t2
            acc["parse._timestamp_problems"] = t4 - t3
    else:
        inner = {
            "thread": w_rl_thread,
            "threads": w_rl_threads,
            "effects": w_rl_effects,
            "replay_counts": w_rl_replay_counts,
        }[what](p)

    order = [label for _, _, label in BREAKDOWNS.get(what, [])]

    def run() -> dict[str, Any]:
        acc.clear()
        t0 = time.perf_counter()
        inner()
        total = time.perf_counter() - t0
        parts = {k: acc[k] for k in order if k in acc}
        parts.update({k: v for k, v in acc.items() if k not in parts})
        return {"total": total, "parts": parts}

    return run


WORKERS: dict[str, Callable[[dict[str, Any]], Callable[[], dict[str, Any]]]] = {
    name[2:]: fn for name, fn in globals().items() if name.startswith("w_") and callable(fn)
}


def worker_main(name: str, params: dict[str, Any], repeat: int, profile: bool) -> None:
    run = WORKERS[name](params)
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.runcall(run)
        total = time.perf_counter() - t0
        print(f"{name}: {total:.3f} s under cProfile", file=sys.stderr)
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(35)
        return
    times, info = [], {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        info = run()
        measured = time.perf_counter() - t0
        # A worker may time its own span when work around it is not part of the measurement
        # (freeing the previous repetition's result); it says so in its docstring.
        times.append(info.pop("elapsed", measured))
    info["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"times": times, "info": info}))
