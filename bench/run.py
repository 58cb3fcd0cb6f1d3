"""Benchmark for issue 7: replaylens against LangGraph's own API on the same files.

Run it with `.venv/bin/python bench/run.py` (what `make bench` should call). It builds the
fixtures of `bench/fixtures.py` when they are missing (cached in `bench/.cache/`), runs
every measurement several times, prints one table and writes it to `bench/RESULTS.md`.

How it measures, so that the numbers can be trusted:

- Same data on both sides. LangGraph's `SqliteSaver` runs `setup()` (it writes: WAL mode,
  CREATE TABLE IF NOT EXISTS, ALTER TABLE), so its routes read a byte-for-byte copy of
  each fixture made in `bench/.cache/scratch/` at the start of the run; replaylens reads
  the cached fixture itself, read-only. The cached fixtures are never written.
- Fresh process per measurement. Each in-process row runs in a new Python process that
  imports what it needs first (imports are not timed there), then repeats the work
  (a fresh `open_source` / `SqliteSaver` every time). Before that process starts the
  page cache is dropped (`echo 3 > /proc/sys/vm/drop_caches`) when the kernel allows it,
  so the first repetition is a *cold* read from disk; the others are *warm* (page cache
  warm, no in-process cache: nothing but the OS cache carries over). When dropping is not
  allowed the table says "page cache warm" instead of "cold".
- Whole-process rows time the command from spawn to exit (interpreter start and imports
  included), stdout to a file; the first run after dropping the cache is the cold one.
- Ratios are LangGraph's time over replaylens's, warm median over warm median, with the
  cold ratio beside it; a ratio target must hold for both. The GROUP BY floor rows give
  replaylens's time over the floor's (the target is at most 3x).
- LangGraph's routes are written as its docs show them: `graph.get_state_history(config)`,
  `checkpointer.list(config)`, `graph.get_state(config)` with a compiled graph and a
  `SqliteSaver.from_conn_string(path)` checkpointer. Listing threads has no LangGraph API;
  the route is the one a user writes: thread ids from `checkpointer.list(None)`, then
  `get_state` per thread for its status. That last part is timed on a sample of 200
  threads and extrapolated; the table says so.

Options: `--repeat N` (replaylens, default 5), `--lg-repeat N` (LangGraph routes, default 3),
`--only ROW[,ROW]`, `--no-drop`, `--no-write`, `--profile WORKER` (cProfile one repetition).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import fixtures as fx  # noqa: E402

PY = sys.executable
REPLAYLENS = str(Path(PY).with_name("replaylens"))
SCRATCH = fx.CACHE / "scratch"
RESULTS = HERE / "RESULTS.md"
STATUS_SAMPLE = 200
LOAD_AT_START: list[str] = []
EFFECTS_THREAD = "loop-failed-00000"  # a thread whose resume re-runs a failed task
REPLAY_COUNTS_THREADS = 300  # what the Threads page plans at most (ui/loading.py)


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
            return {"checkpoints": thread.checkpoint_count, "tasks": tasks, "status": thread_status(thread)}
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
    go.Figure(data=[{"type": "bar", "x": [1.0], "y": ["a"]}, {"type": "scatter", "x": [1.0], "y": ["a"]}])
    pandas.DataFrame({"step": [1], "source": ["loop"]})

    def run() -> dict[str, Any]:
        source = open_source(p["db"])
        try:
            thread = load_thread(source, p["tid"])
            plan = plan_resume(thread, None, p["tid"])
            fig = timeline_figure(build_timeline_data(thread, plan), mode="sync")
            resume_id = plan.resume_checkpoint.checkpoint_id if plan.resume_checkpoint else None
            frame = views.checkpoints_frame(thread.namespaces[""], resume_id)
            return {"checkpoints": thread.checkpoint_count, "rows": len(frame), "traces": len(fig.data)}
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


def w_floor(p: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The bare GROUP BY over the checkpoints' primary key: the floor of any thread list.
    Opened the way replaylens opens this file (read-only, immutable: it has no -wal)."""
    import sqlite3
    from urllib.parse import quote

    uri = f"file:{quote(str(Path(p['db']).resolve()))}?mode=ro&immutable=1"

    def run() -> dict[str, Any]:
        conn = sqlite3.connect(uri, uri=True)
        try:
            rows = conn.execute("SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id").fetchall()
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
            "lines": len(log.lines), "attempts": len(plan.attempts), "replayed_lines": len(plan.replayed_lines),
            "status": plan.status, "parts": {"read_effects": t1 - t0, "load_thread": t2 - t1, "plan_resume": t3 - t2},
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
        return {"after_imports_mb": base / 1024, "values_read": len(kept),
                "peak_private_mb": mem.peak_anon_kb / 1024, "peak_file_mapped_mb": mem.peak_file_kb / 1024}

    return run


# Where the time goes: library functions timed by wrapping them in the worker process
# (the library itself is not touched). Nested entries are included in their parents.
BREAKDOWNS: dict[str, list[tuple[str, str, str]]] = {
    "thread": [
        ("replaylens.sources._sqlite", "SqliteSource.read_thread", "SqliteSource.read_thread (SQL fetch of every blob + the two below)"),
        ("replaylens.sources._sqlite", "fill_skeleton", "  _skeleton.fill_skeleton (msgpack skip of channel_values)"),
        ("replaylens.sources._sqlite", "parse_metadata", "  _base.parse_metadata (json)"),
        ("replaylens.analysis.status", "build_thread", "model.build_thread"),
        ("replaylens.analysis.status", "annotate_thread", "tasks.annotate_thread (derive_tasks, task ids)"),
    ],
    "threads": [
        ("replaylens.sources._sqlite", "SqliteSource.thread_index", "SqliteSource.thread_index (GROUP BY + latest metadata)"),
        ("replaylens.sources._sqlite", "SqliteSource.read_latest", "SqliteSource.read_latest (latest rows + their writes)"),
        ("replaylens.sources._sqlite", "fill_skeleton", "  _skeleton.fill_skeleton"),
        ("replaylens.sources._sqlite", "parse_metadata", "_base.parse_metadata (json, both queries)"),
        ("replaylens.analysis.status", "build_thread", "model.build_thread (once per thread)"),
        ("replaylens.analysis.status", "TriggerMap", "tasks.TriggerMap (once per thread)"),
        ("replaylens.analysis.status", "_TriggerCache.for_checkpoint", "status._TriggerCache.for_checkpoint (per thread)"),
        ("replaylens.analysis.status", "annotate_checkpoint", "tasks.annotate_checkpoint (once per thread)"),
    ],
    "effects": [
        ("replaylens.effects.parse", "read_effects", "parse.read_effects"),
        ("replaylens.analysis.status", "load_thread", "status.load_thread (one thread)"),
        ("replaylens.analysis.resume", "plan_resume", "resume.plan_resume (one thread)"),
        ("replaylens.effects.parse", "EffectsLog.for_thread", "  EffectsLog.for_thread (first call indexes the log)"),
    ],
    "replay_counts": [
        ("replaylens.effects.parse", "EffectsLog.for_thread", "EffectsLog.for_thread (scans all lines, once per thread)"),
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
            steps = [("load_thread", lambda ctx: load_thread(ctx["src"], p["tid"])),
                     ("resume.plan_resume", lambda ctx: plan_resume(ctx["load_thread"], None, p["tid"])),
                     ("timeline.build_timeline_data", lambda ctx: build_timeline_data(ctx["load_thread"],
                                                                                      ctx["resume.plan_resume"])),
                     ("timeline.timeline_figure (plotly)", lambda ctx: timeline_figure(
                         ctx["timeline.build_timeline_data"], mode="sync")),
                     ("views.checkpoints_frame (pandas)", lambda ctx: views.checkpoints_frame(
                         ctx["load_thread"].namespaces[""], None))]
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
                lines = [x for n, objs in decoded for x in parse._fast_batch(range(n, n + len(objs)), objs) or ()]
                t3 = time.perf_counter()
                parse._timestamp_problems(lines, "log")
                t4 = time.perf_counter()
            acc["parse._line_batches (read and split the file in blocks)"] = t1 - t0
            acc["orjson.loads (per line, mapped over each block)"] = t2 - t1
            acc["parse._fast_batch (check and build a block at a time)"] = t3 - t2
            acc["parse._timestamp_problems"] = t4 - t3
    else:
        inner = {"thread": w_rl_thread, "threads": w_rl_threads, "effects": w_rl_effects,
                 "replay_counts": w_rl_replay_counts}[what](p)

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


# ======================================================================================
# The driver
# ======================================================================================
def child_env() -> dict[str, str]:
    """The environment of every measured process. Bytecode goes to a cache of its own
    (bench/.cache/pycache) so that no process pays for compiling modules a user's
    installation would have compiled already (this machine sets PYTHONDONTWRITEBYTECODE)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(fx.CACHE / "pycache")
    return env


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.can_drop = not args.no_drop and self._drop_caches()
        self.cold = "cold" if self.can_drop else "page cache warm"
        self.tiny: dict[str, str] = {}  # fixture path -> a tiny file of the same shape (warm-ups)
        self.env = child_env()

    @staticmethod
    def _drop_caches() -> bool:
        try:
            os.sync()
            with open("/proc/sys/vm/drop_caches", "w") as fh:
                fh.write("3\n")
            return True
        except OSError:
            return False

    def drop(self) -> None:
        if self.can_drop:
            self._drop_caches()

    def note(self, msg: str) -> None:
        print(f"[bench] {msg}", file=sys.stderr, flush=True)

    def _tiny(self, text: str) -> str:
        for big, small in self.tiny.items():
            text = text.replace(big, small)
        return text

    def _run_worker(self, name: str, params_json: str, repeat: int) -> dict[str, Any]:
        cmd = [PY, str(Path(__file__).resolve()), "--worker", name, "--params", params_json, "--repeat", str(repeat)]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=self.env)
        if proc.returncode != 0:
            raise SystemExit(f"worker {name} failed:\n{proc.stderr[-3000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def worker(self, name: str, params: dict[str, Any], repeat: int) -> dict[str, Any]:
        """Warm-up on the tiny files (bytecode, lazy imports), drop the page cache, then run
        the measurement `repeat` times in one fresh process."""
        params_json = json.dumps(params)
        if self.tiny:
            self._run_worker(name, self._tiny(params_json), 1)
        self.drop()
        t0 = time.perf_counter()
        out = self._run_worker(name, params_json, repeat)
        t = out["times"]
        self.note(f"{name}: cold {t[0]:.3f} s, warm {', '.join(f'{x:.3f}' for x in t[1:])} "
                  f"({time.perf_counter() - t0:.1f} s wall)")
        return {"cold": t[0], "warm": statistics.median(t[1:]) if len(t) > 1 else t[0], "times": t,
                "info": out["info"]}

    def process(self, name: str, cmd: list[str], repeat: int) -> dict[str, Any]:
        """Time a whole process, spawn to exit (after a warm-up run on the tiny files); the
        first run follows a page-cache drop. The stdout of the last run is kept."""
        times = []
        if self.tiny:
            subprocess.run([self._tiny(c) for c in cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           cwd=ROOT, env=self.env, check=True)
        out_path = Path(tempfile.mkstemp(prefix="bench-out-", dir=SCRATCH)[1])
        try:
            for i in range(repeat):
                if i == 0:
                    self.drop()
                with open(out_path, "wb") as fh:
                    t0 = time.perf_counter()
                    proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.PIPE, cwd=ROOT, env=self.env)
                    times.append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    raise SystemExit(f"{name} failed: {proc.stderr.decode()[-2000:]}")
            output = json.loads(out_path.read_bytes())
        finally:
            out_path.unlink(missing_ok=True)
        self.note(f"{name}: cold {times[0]:.3f} s, warm {', '.join(f'{x:.3f}' for x in times[1:])}")
        return {"cold": times[0], "warm": statistics.median(times[1:]) if len(times) > 1 else times[0],
                "times": times, "output": output}


def make_tiny(src: Path, dst: Path, where: str, params: tuple[Any, ...] = ()) -> None:
    """A small checkpoint database with the rows of `src` matching `where` (warm-ups)."""
    import sqlite3
    from urllib.parse import quote

    fx._remove_db(dst)
    conn = sqlite3.connect(dst, isolation_level=None, uri=True)
    try:
        conn.execute("ATTACH DATABASE ? AS s", (f"file:{quote(str(src))}?mode=ro&immutable=1",))
        for (sql,) in conn.execute(
            "SELECT sql FROM s.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
        ).fetchall():
            conn.execute(sql)
        for table in ("checkpoints", "writes"):
            conn.execute(f"INSERT INTO main.{table} SELECT * FROM s.{table} WHERE {where}", params)
        conn.execute("DETACH DATABASE s")
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()


# -- whole-process scripts for LangGraph's routes (what a user would run) -------------
LG_THREADS_SCRIPT = """
import json, sys
from langgraph.checkpoint.sqlite import SqliteSaver
with SqliteSaver.from_conn_string(sys.argv[1]) as checkpointer:
    ids = sorted({t.config["configurable"]["thread_id"] for t in checkpointer.list(None)})
json.dump(ids, sys.stdout)
"""

FLOOR_SCRIPT = """
import json, sqlite3, sys
from urllib.parse import quote
conn = sqlite3.connect("file:" + quote(sys.argv[1]) + "?mode=ro&immutable=1", uri=True)
rows = conn.execute("SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id").fetchall()
json.dump([{"thread_id": t, "checkpoints": n} for t, n in rows], sys.stdout)
"""

LG_HISTORY_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[3])
from langgraph.checkpoint.sqlite import SqliteSaver
from fixtures import tool_loop  # the user's own graph module
with SqliteSaver.from_conn_string(sys.argv[1]) as checkpointer:
    graph = tool_loop().compile(checkpointer=checkpointer)
    history = [
        {"checkpoint_id": s.config["configurable"]["checkpoint_id"], "step": s.metadata.get("step"),
         "next": [{"node": t.name, "task_id": t.id, "error": bool(t.error)} for t in s.tasks]}
        for s in graph.get_state_history({"configurable": {"thread_id": sys.argv[2]}})
    ]
json.dump(history, sys.stdout)
"""


def machine() -> dict[str, str]:
    from importlib.metadata import version

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "unknown"
    try:
        kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
        ram = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, IndexError, ValueError):
        pass
    import sqlite3

    disk = shutil.disk_usage(fx.CACHE)
    commit = "unknown"
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "lib"], capture_output=True,
                               text=True, check=True).stdout.strip()
        commit += " (with uncommitted changes in lib/)" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        pass
    return {
        "CPU": f"{cpu}, {os.cpu_count()} cores",
        "RAM": ram,
        "OS": f"{platform.system()} {platform.release()}",
        "Python": platform.python_version(),
        "SQLite": sqlite3.sqlite_version,
        "langgraph": version("langgraph"),
        "langgraph-checkpoint": version("langgraph-checkpoint"),
        "langgraph-checkpoint-sqlite": version("langgraph-checkpoint-sqlite"),
        "replaylens": f"{version('replaylens')}, commit {commit}",
        "disk free": f"{disk.free / 1e9:.0f} GB",
        "load average (1, 5, 15 min) at the start": LOAD_AT_START[0] if LOAD_AT_START else "?",
        "load average (1, 5, 15 min) at the end": ", ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


# -- formatting -----------------------------------------------------------------------
def _s(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def _cell(r: dict[str, Any] | None, cold_label: str) -> str:
    if r is None:
        return "—"
    if "text" in r:
        return r["text"]
    return f"{_s(r['warm'])} warm, {_s(r['cold'])} {cold_label}"


class Row:
    def __init__(self, key: str, label: str, rl: dict[str, Any] | None, lg: dict[str, Any] | None,
                 target: str, kind: str = "faster", min_ratio: float | None = None,
                 max_seconds: float | None = None, max_over_floor: float | None = None,
                 max_value: float | None = None, lg_label: str = "", note: str = "") -> None:
        self.key, self.label, self.rl, self.lg, self.target = key, label, rl, lg, target
        self.kind, self.min_ratio, self.max_seconds, self.max_over_floor = kind, min_ratio, max_seconds, max_over_floor
        self.max_value = max_value
        self.lg_label, self.note = lg_label, note

    def ratios(self) -> tuple[float, float] | None:
        if not self.rl or not self.lg or "warm" not in self.rl or "warm" not in self.lg:
            return None
        if self.kind == "floor":
            return self.rl["warm"] / self.lg["warm"], self.rl["cold"] / self.lg["cold"]
        return self.lg["warm"] / self.rl["warm"], self.lg["cold"] / self.rl["cold"]

    def ratio_text(self) -> str:
        r = self.ratios()
        if r is None:
            return "—"
        if self.kind == "floor":
            return f"{r[0]:.1f}x the floor ({r[1]:.1f}x cold)"

        def one(x: float) -> str:
            return f"{x:.1f}x faster" if x >= 1 else f"{1 / x:.1f}x slower"

        return f"{one(r[0])} ({one(r[1])} cold)"

    def verdict(self) -> str:
        """PASS, or FAIL with the criteria that failed; "info" for rows without a target."""
        failed: list[str] = []
        checked = False
        r = self.ratios()
        if self.min_ratio is not None and r:
            checked = True
            if r[0] < self.min_ratio:
                failed.append(f"warm ratio < {self.min_ratio:g}x")
            if r[1] < self.min_ratio:
                failed.append(f"cold ratio < {self.min_ratio:g}x")
        if self.max_over_floor is not None and r:
            checked = True
            if r[0] > self.max_over_floor:
                failed.append(f"warm > {self.max_over_floor:g}x floor")
            if r[1] > self.max_over_floor:
                failed.append(f"cold > {self.max_over_floor:g}x floor")
        if self.max_seconds is not None and self.rl and "cold" in self.rl:
            checked = True
            for which in ("warm", "cold"):
                if self.rl[which] >= self.max_seconds:
                    failed.append(f"{which} ≥ {_s(self.max_seconds)}")
        if self.max_value is not None and self.rl and "value" in self.rl:
            checked = True
            if self.rl["value"] >= self.max_value:
                failed.append("over the limit")
        if not checked:
            return "info"
        return "PASS" if not failed else "FAIL (" + "; ".join(failed) + ")"


def render_breakdowns(breakdowns: list[tuple[str, dict[str, Any]]]) -> str:
    """Warm medians of each wrapped function's time, as a share of the run."""
    if not breakdowns:
        return ""
    out = ["### Where the time goes", "",
           "The last (warm) run of each measurement again, in a fresh process, with the library's functions "
           "wrapped by timers in that process (the library is not changed; the wrappers add a little).", "",
           "| measurement | function | time | share |", "|---|---|---|---|"]
    for label, result in breakdowns:
        warm = result["info"]  # the last run; the worker returns the facts of its last run
        total = warm["total"]
        out.append(f"| {label} | (whole run) | {_s(total)} | 100% |")
        top = 0.0
        for name, secs in warm["parts"].items():
            nested = name.startswith("  ")
            aside = "not part of the total" in name
            top += 0.0 if nested or aside else secs
            out.append(f"| | `{name.strip()}`{' (within the line above)' if nested else ''} "
                       f"| {_s(secs)} | {'—' if aside else f'{100 * secs / total:.0f}%'} |")
        if warm["parts"] and total - top > 0.005:
            out.append(f"| | (the rest: not in the functions above) | {_s(total - top)} | "
                       f"{100 * (total - top) / total:.0f}% |")
    return "\n".join(out) + "\n"


def render(rows: list[Row], cold_label: str) -> str:
    head = "| measurement | replaylens | LangGraph route | ratio | target | result |\n|---|---|---|---|---|---|\n"
    lines = []
    for r in rows:
        lg = _cell(r.lg, cold_label)
        if r.lg_label:
            lg = f"{r.lg_label}: {lg}"
        lines.append(f"| {r.label} | {_cell(r.rl, cold_label)} | {lg} | {r.ratio_text()} | {r.target} | {r.verdict()} |")
    return head + "\n".join(lines) + "\n"


# -- the run --------------------------------------------------------------------------
def latest_checkpoint_id(db: Path, tid: str) -> str:
    import sqlite3
    from urllib.parse import quote

    conn = sqlite3.connect(f"file:{quote(str(db))}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(
            "SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''", (tid,)
        ).fetchone()[0]
    finally:
        conn.close()


def run_bench(args: argparse.Namespace) -> int:
    stamp = fx.ensure_fixtures()
    big = stamp["big"]
    b = Bench(args)
    LOAD_AT_START.append(", ".join(f"{x:.2f}" for x in os.getloadavg()))
    b.note(f"load average at the start: {LOAD_AT_START[0]}")
    R, L = args.repeat, args.lg_repeat
    only = set(args.only.split(",")) if args.only else None

    def want(key: str) -> bool:
        return only is None or key in only

    SCRATCH.mkdir(parents=True, exist_ok=True)
    big_copy, many_copy = SCRATCH / "big-thread-langgraph.db", SCRATCH / "many-threads-langgraph.db"
    b.note("copying the fixtures for LangGraph's routes (its SqliteSaver writes to the file it opens) ...")
    for src, dst in ((fx.BIG_DB, big_copy), (fx.MANY_DB, many_copy)):
        fx._remove_db(dst)
        shutil.copyfile(src, dst)

    tid = big["thread_id"]
    big_p = {"db": str(fx.BIG_DB), "tid": tid}
    big_lg = {"db": str(big_copy), "tid": tid}
    cid = latest_checkpoint_id(fx.BIG_DB, tid)
    all_ids = sorted(fx.thread_ids())
    sample = all_ids[:: max(1, len(all_ids) // STATUS_SAMPLE)][:STATUS_SAMPLE]

    # Tiny files of the same shape: every measured command runs once on them first, so
    # bytecode is compiled and lazy imports are done before anything is timed.
    b.note("making tiny copies for the warm-up runs ...")
    tiny_big, tiny_many = SCRATCH / "tiny-big.db", SCRATCH / "tiny-many.db"
    make_tiny(fx.BIG_DB, tiny_big, "checkpoint_id IN (SELECT checkpoint_id FROM s.checkpoints "
              "ORDER BY checkpoint_id LIMIT 10) OR checkpoint_id = ?", (cid,))
    keep = [*sample[:: max(1, len(sample) // 20)], EFFECTS_THREAD]
    make_tiny(fx.MANY_DB, tiny_many, f"thread_id IN ({', '.join('?' * len(keep))})", tuple(keep))
    tiny_log = SCRATCH / "tiny.effects.jsonl"
    with open(fx.EFFECTS, "rb") as src, open(tiny_log, "wb") as dst:
        dst.writelines(line for _, line in zip(range(2000), src, strict=False))
    for big_file, small in ((fx.BIG_DB, tiny_big), (fx.MANY_DB, tiny_many), (fx.EFFECTS, tiny_log),
                            (big_copy, SCRATCH / "tiny-big-langgraph.db"),
                            (many_copy, SCRATCH / "tiny-many-langgraph.db")):
        if small.suffix == ".db" and "langgraph" in small.name:
            shutil.copyfile(tiny_big if "big" in small.name else tiny_many, small)
        b.tiny[str(big_file)] = str(small)
    rows: list[Row] = []
    checks: list[str] = []
    breakdowns: list[tuple[str, dict[str, Any]]] = []
    cl = b.cold

    try:
        # -- the 1 GB thread -----------------------------------------------------------
        if want("thread"):
            rl = b.worker("rl_thread", big_p, R)
            hist = b.worker("lg_history", big_lg, L)
            lst = b.worker("lg_saver_list", big_lg, L)
            checks.append(f"1 GB thread: replaylens {rl['info']['checkpoints']} checkpoints "
                          f"({rl['info']['status']}), get_state_history {hist['info']['checkpoints']} snapshots "
                          f"({hist['info']['status']}), checkpointer.list {lst['info']['checkpoints']} tuples")
            rows.append(Row("thread", "Thread page data, 1 GB thread: `load_thread` (checkpoints, next tasks, statuses)",
                            rl, hist, "< 1.5 s cold; ≥ 4x", min_ratio=4, max_seconds=1.5,
                            lg_label="`list(graph.get_state_history(config))`"))
            rows.append(Row("thread", "same, against `checkpointer.list(config)`", rl, lst, "—",
                            lg_label="`list(checkpointer.list(config))`"))
            disk = b.worker("read_file", big_p, R)
            rows.append(Row("thread", f"Disk floor: reading the {disk['info']['bytes'] / 1e9:.2f} GB file "
                            "sequentially, nothing else (any reader that touches every blob pays this)",
                            disk, None, "—"))
            full = b.worker("rl_thread_full", big_p, R)
            rows.append(Row("thread", "Thread page computations: `load_thread` + `plan_resume` + timeline figure + "
                            "checkpoint table (pandas)", full, hist, "< 1.5 s cold; ≥ 4x", min_ratio=4, max_seconds=1.5,
                            lg_label="`get_state_history`"))
            b.lg_hist = hist
        if want("values"):
            v = b.worker("rl_values", {**big_p, "cid": cid}, R)
            lgv = b.worker("lg_get_state", {**big_lg, "cid": cid}, L)
            checks.append(f"latest checkpoint's state: replaylens {v['info']['messages']} messages, "
                          f"get_state {lgv['info']['messages']} messages")
            rows.append(Row("values", f"One checkpoint's full state (the latest, {v['info']['messages']:,} messages): "
                            "`read_channel_values`",
                            v, lgv, "< 0.3 s", max_seconds=0.3,
                            lg_label="`graph.get_state(config with checkpoint_id)`"))

        # -- the many-threads database -------------------------------------------------
        many_p = {"db": str(fx.MANY_DB), "sample": sample}
        many_lg = {"db": str(many_copy), "sample": sample}
        if want("threads"):
            rl = b.worker("rl_threads", many_p, R)
            ids = b.worker("lg_thread_ids", many_lg, L)
            st = b.worker("lg_status_sample", many_lg, L)
            floor = b.worker("floor", many_p, R)
            n = rl["info"]["threads"]
            scale = n / len(sample)
            extrap = {k: ids[k] + st[k] * scale for k in ("cold", "warm")}
            agree = sum(rl["info"]["sample_status"].get(t) == s for t, s in st["info"]["sample_status"].items())
            checks.append(f"many threads: replaylens {n} threads / {rl['info']['checkpoints']} checkpoints "
                          f"{rl['info']['statuses']}; checkpointer.list(None) {ids['info']['threads']} thread ids; "
                          f"GROUP BY {floor['info']['threads']} threads / {floor['info']['checkpoints']} checkpoints; "
                          f"statuses of the {len(sample)} sampled threads agree with get_state on {agree}")
            size = f"{n:,} threads, {rl['info']['checkpoints']:,} checkpoints"
            rows.append(Row("threads", f"Threads page, every thread's status ({size}): `summarize_threads`", rl, ids,
                            "< 2 s cold; ≥ 20x", min_ratio=20, max_seconds=2,
                            lg_label="thread ids only, `{t.config[...]['thread_id'] for t in checkpointer.list(None)}`"))
            rows.append(Row("threads", "same, against ids + a status per thread", rl, extrap, "—",
                            lg_label=f"ids + `graph.get_state` per thread (extrapolated from {len(sample)} threads: "
                            f"{_s(st['warm'])} warm)"))
            rows.append(Row("threads", "same, against the bare GROUP BY (in process)", rl, floor, "≤ 3x the floor",
                            kind="floor", max_over_floor=3,
                            lg_label="floor, `SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id`"))

        # -- whole processes ------------------------------------------------------------
        if want("cli"):
            cli = b.process("replaylens threads --json", [REPLAYLENS, "threads", str(fx.MANY_DB), "--json"], R)
            lgp = b.process("LangGraph threads script", [PY, "-c", LG_THREADS_SCRIPT, str(many_copy)], L)
            flp = b.process("GROUP BY script", [PY, "-c", FLOOR_SCRIPT, str(fx.MANY_DB)], R)
            checks.append(f"whole process: `threads --json` listed {len(cli['output'])} threads, the LangGraph "
                          f"script {len(lgp['output'])}, the GROUP BY script {len(flp['output'])}")
            rows.append(Row("cli", "`replaylens threads DB --json`, whole process", cli, lgp, "≥ 20x", min_ratio=20,
                            lg_label="python script: `checkpointer.list(None)` thread ids"))
            rows.append(Row("cli", "same, against the GROUP BY as a whole process", cli, flp, "≤ 3x the floor",
                            kind="floor", max_over_floor=3, lg_label="python script: sqlite3 GROUP BY"))
            tcli = b.process("replaylens thread --json",
                             [REPLAYLENS, "thread", str(fx.BIG_DB), "--thread", tid, "--json"], R)
            hp = b.process("LangGraph history script", [PY, "-c", LG_HISTORY_SCRIPT, str(big_copy), tid, str(HERE)], L)
            checks.append(f"whole process: `thread --json` printed {len(tcli['output']['checkpoints'])} checkpoints, "
                          f"the get_state_history script {len(hp['output'])}")
            rows.append(Row("cli", "`replaylens thread DB --thread T --json`, 1 GB thread, whole process", tcli, hp,
                            "≥ 4x", min_ratio=4, lg_label="python script: `get_state_history`"))

        # -- the effects log ------------------------------------------------------------
        if want("effects"):
            eff_p = {"db": str(fx.MANY_DB), "log": str(fx.EFFECTS), "tid": EFFECTS_THREAD}
            e = b.worker("rl_effects", eff_p, R)
            parts = e["info"]["parts"]
            checks.append(f"effects: {e['info']['lines']:,} lines parsed; {EFFECTS_THREAD}: "
                          f"{e['info']['attempts']} attempts, {e['info']['replayed_lines']} lines replay, "
                          f"{e['info']['status']}")
            rows.append(Row("effects", f"Effects log, {e['info']['lines']:,} lines: `read_effects` + `load_thread` + "
                            f"`plan_resume` of one thread (last run: read {_s(parts['read_effects'])}, load "
                            f"{_s(parts['load_thread'])}, plan {_s(parts['plan_resume'])})", e, None, "< 5 s",
                            max_seconds=5))
            rc = b.worker("rl_replay_counts", eff_p, max(2, R // 2))
            rows.append(Row("effects", f"Threads page 'would replay' column with that log: `replay_counts` for "
                            f"{rc['info']['threads']} threads (log already parsed)", rc, None, "—"))

        # -- memory ---------------------------------------------------------------------
        if want("rss"):
            m = b.worker("rl_rss", big_p, 1)
            lg_hist = getattr(b, "lg_hist", None) or b.worker("lg_history", big_lg, 1)
            info = m["info"]
            private, mapped = info["peak_private_mb"], info["peak_file_mapped_mb"]
            rows.append(Row("rss", "Peak memory of a dashboard-like process (streamlit, pandas, plotly imported; "
                            "Thread page computed; 5 checkpoints' state decoded) on the 1 GB thread: private memory "
                            "(what the process holds); its RSS also counts the database pages SQLite maps read-only",
                            {"text": f"{private:.0f} MB private (RSS {info['maxrss_mb']:.0f} MB, of which up to "
                                     f"{mapped:.0f} MB mapped file pages; after imports {info['after_imports_mb']:.0f} MB)",
                             "value": private / 1024},
                            {"text": f"RSS {lg_hist['info']['maxrss_mb']:.0f} MB (its SQLite maps nothing)"},
                            "< 1 GB", max_value=1.0, lg_label="`get_state_history` process"))
        # -- where the time goes (warm, library functions wrapped in the worker) -----------
        if want("breakdown"):
            eff_p = {"db": str(fx.MANY_DB), "log": str(fx.EFFECTS), "tid": EFFECTS_THREAD}
            for what, params, label, n in (
                ("thread", big_p, "load_thread, 1 GB thread", R),
                ("thread_page", big_p, "Thread page computations, 1 GB thread", R),
                ("threads", {**many_p, "sample": []}, "summarize_threads, 10,240 threads", R),
                ("effects", eff_p, "read_effects (1M lines) + load_thread + plan_resume", 2),
                ("effects_parse", eff_p, "read_effects in stages (1M lines)", 2),
                ("replay_counts", eff_p, "replay_counts, 300 threads", 2),
            ):
                out = b.worker("rl_breakdown", {**params, "what": what}, n)
                breakdowns.append((label, out))
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)  # the copies and tiny files, 2 GB

    table = render(rows, cl)
    shares = render_breakdowns(breakdowns)
    info = machine()
    print()
    print(table)
    print(shares)
    for c in checks:
        print(f"check: {c}")
    print("machine: " + "; ".join(f"{k} {v}" for k, v in info.items()))
    if not args.no_write and only is None:
        write_results(table + "\n" + shares, info, stamp, checks, cl, args)
        print(f"\nwrote {RESULTS.relative_to(ROOT)}")
    return 0


def write_results(table: str, info: dict[str, str], stamp: dict[str, Any], checks: list[str], cold: str,
                  args: argparse.Namespace) -> None:
    big, many = stamp["big"], stamp["many"]
    when = time.strftime("%Y-%m-%d %H:%M %Z")
    md = [
        "# Benchmark results (issue 7)",
        "",
        f"Written by `.venv/bin/python bench/run.py` on {when}. replaylens rows: {args.repeat} runs, "
        f"LangGraph rows: {args.lg_repeat} runs; the first run of each is {cold} "
        + ("(page cache dropped, fresh process), " if cold == "cold" else "(the page cache could not be dropped), ")
        + "the others warm (median shown). Ratios: warm median over warm median, cold ratio beside it; "
        "a ratio target must hold for both.",
        "",
        "## Machine",
        "",
        *[f"- {k}: {v}" for k, v in info.items()],
        "",
        "## Fixtures (bench/fixtures.py, cached in bench/.cache/)",
        "",
        f"- 1 GB thread: {big['checkpoints']:,} checkpoints, {big['writes']:,} writes, "
        f"{big['bytes'] / 1e9:.2f} GB; one invoke of a real agent/tool loop ({big['tool_calls']:,} tool calls, "
        f"{big['message_chars']}-character messages, whole message list in every checkpoint), durability sync.",
        f"- Many threads: {many['threads']:,} threads, {many['checkpoints']:,} checkpoints, {many['writes']:,} writes, "
        f"{many['bytes'] / 1e9:.2f} GB; 10 template threads recorded by real graphs (completed, failed, interrupted, "
        "stopped by the recursion limit; loop, payment, fanout, subgraph, Send, failing), their rows copied under new "
        "thread ids, interleaved by checkpoint id.",
        f"- Effects log: {many['effect_lines']:,} lines ({many['effects_bytes'] / 1e6:.0f} MB), the templates' recorded "
        "lines replicated per thread id.",
        "",
        "## Results",
        "",
        table,
        "Sanity checks (both sides read the same data):",
        "",
        *[f"- {c}" for c in checks],
        "",
        "LangGraph's routes ran on byte-for-byte copies of the fixtures (its `SqliteSaver.setup()` writes); "
        "replaylens read the fixtures read-only. In-process rows exclude imports; whole-process rows include "
        "interpreter start-up and imports (bytecode compiled beforehand by a warm-up run on tiny files).",
        "",
        "Cold means the guest's page cache was dropped before the process started; on a virtual disk the host "
        "may still cache the file, so compare cold numbers with the disk-floor row of the same run. Other work "
        "on the machine adds noise (see the load averages above); the warm medians are the steadier numbers.",
        "",
    ]
    RESULTS.write_text("\n".join(md))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="Runs per replaylens measurement (first is cold).")
    parser.add_argument("--lg-repeat", type=int, default=3, help="Runs per LangGraph measurement (first is cold).")
    parser.add_argument("--only", help="Comma-separated rows: thread,values,threads,cli,effects,rss,breakdown.")
    parser.add_argument("--no-drop", action="store_true", help="Do not drop the page cache (no cold runs).")
    parser.add_argument("--no-write", action="store_true", help="Do not write bench/RESULTS.md.")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--params", help=argparse.SUPPRESS)
    parser.add_argument("--profile", metavar="WORKER",
                        help=f"cProfile one run of a worker and print the top functions: {', '.join(WORKERS)}.")
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(args.worker, json.loads(args.params), args.repeat, profile=False)
        return 0
    if args.profile:
        fx.ensure_fixtures()
        tid = fx.BIG_THREAD_ID
        params = {"db": str(fx.BIG_DB), "tid": tid, "cid": latest_checkpoint_id(fx.BIG_DB, tid)}
        if args.profile in {"rl_threads", "floor", "rl_effects", "rl_replay_counts"}:
            params = {"db": str(fx.MANY_DB), "log": str(fx.EFFECTS), "tid": EFFECTS_THREAD, "sample": []}
        elif args.profile.startswith("lg_"):
            raise SystemExit("profile the replaylens workers; LangGraph's need a scratch copy")
        worker_main(args.profile, params, 1, profile=True)
        return 0
    return run_bench(args)


if __name__ == "__main__":
    sys.exit(main())
