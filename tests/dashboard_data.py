"""Real checkpoint databases for the dashboard's tests and screenshots.

Every database is written by an example graph under real LangGraph and SqliteSaver (no
hand-forged rows); the crash cases come from a child process killed with a real SIGKILL
in the middle of a node (`replaylens.killtest.harness.run_child`). The folder looks like
what `sample_dbs/` will hold:

    demo/
      examples/<graph>.db + <graph>.effects.jsonl     finished, paused, failed threads
      crashes/<name>.db + <name>.effects.jsonl         killed mid-node, not resumed
      campaign-linear/manifest.json + runs/...          a small kill-test campaign
      bad/not-a-db.db, empty.db, corrupt.db, ...        inputs the app must refuse politely

Built once per process (`demo_folder()`), because interpreter start-up of the children
dominates: about 15 s on two cores.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # `examples` lives at the repo root
    sys.path.insert(0, str(REPO))

from corpus import spared  # noqa: E402
from replaylens.killtest.harness import (  # noqa: E402
    ChildSpec,
    build_graph,
    child_env,
    make_saver,
    run_child,
    scoped_environ,
    snapshot_db,
)

KILL_SLEEP = 0.4
_lock = threading.Lock()
_built: dict[str, Path] = {}


def _run_examples(out: Path) -> None:
    """Finished, interrupted, failed and forked threads, in-process (no kill needed)."""
    from langgraph.types import Command

    from replaylens.examples.graphs import ALL, DEFAULT_INPUTS

    out.mkdir(parents=True, exist_ok=True)
    for name in ("linear", "fanout", "payment", "failing", "subgraph", "send_map_reduce", "loop"):
        db, log = out / f"{name}.db", out / f"{name}.effects.jsonl"
        # fanout's siblings finish 1/10 and 2/10 of the sleep into p3's: at 10 ms a loaded
        # machine's scheduling blurs that order, which Learn's parallel lesson relies on
        sleep = "0.2" if name == "fanout" else "0.01"
        with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP=sleep):
            saver = make_saver(str(db))
            try:
                graph = build_graph(ALL[name], saver)
                cfg = {"configurable": {"thread_id": f"{name}-done"}}
                with scoped_environ(REPLAYLENS_EXAMPLE_FAIL="0"):
                    graph.invoke(DEFAULT_INPUTS[name], cfg, durability="sync")
                    if name == "payment":
                        graph.invoke(Command(resume=True), cfg, durability="sync")
                        paused = {"configurable": {"thread_id": "payment-waiting-for-approval"}}
                        graph.invoke(DEFAULT_INPUTS[name], paused, durability="sync")
                if name == "failing":
                    with (
                        scoped_environ(REPLAYLENS_EXAMPLE_FAIL="1"),
                        contextlib.suppress(RuntimeError),
                    ):
                        failed = {"configurable": {"thread_id": "failing-b-raised"}}
                        graph.invoke(DEFAULT_INPUTS[name], failed, durability="sync")
                if name == "linear":
                    _fork(graph)
            finally:
                saver.conn.close()


def _fork(graph: Any) -> None:
    """Time travel on linear: the checkpoint before `c` gets a second child."""
    cfg = {"configurable": {"thread_id": "linear-forked"}}
    graph.invoke({"visited": []}, cfg, durability="sync")
    before_c = next(s for s in graph.get_state_history(cfg) if s.next == ("c",))
    forked = graph.update_state(before_c.config, {"visited": ["edited-before-c"]})
    graph.invoke(None, forked, durability="sync")


@dataclass
class _Kill:
    graph: str
    mode: str
    latency: float
    db: Path
    log: Path
    thread_id: str
    node: str
    delay: float


KILL_POINTS = {"linear": ("c", 0.2), "fanout": ("p3", 0.3), "payment": ("charge", 0.2)}


def _prepare(
    folder: Path,
    stem: str,
    graph: str,
    mode: str,
    latency: float,
    fault: dict[str, Any] | None = None,
) -> tuple[_Kill, ChildSpec]:
    from replaylens.examples.graphs import ALL, DEFAULT_INPUTS

    folder.mkdir(parents=True, exist_ok=True)
    db, log = folder / f"{stem}.db", folder / f"{stem}.effects.jsonl"
    thread = f"{stem}-killed"
    if graph == "payment":  # reach the interrupt first, then the child approves and is killed
        with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
            saver = make_saver(str(db))
            try:
                build_graph(ALL[graph], saver).invoke(
                    DEFAULT_INPUTS[graph], {"configurable": {"thread_id": thread}}, durability=mode
                )
            finally:
                saver.conn.close()
        spec = ChildSpec(
            "replaylens.examples.graphs:payment",
            db,
            thread,
            mode,
            resume=True,
            resume_value=True,
            put_latency=latency,
        )
    else:
        spec = ChildSpec(
            f"replaylens.examples.graphs:{graph}",
            db,
            thread,
            mode,
            DEFAULT_INPUTS[graph],
            put_latency=latency,
            fault=fault,
        )
    node, delay = KILL_POINTS[graph]
    return _Kill(graph, mode, latency, db, log, thread, node, delay), spec


def _kill(job: _Kill, spec: ChildSpec, env: dict[str, str], *, resume: bool) -> dict[str, Any]:
    """SIGKILL mid-node; optionally keep the evidence and resume on the original."""
    outcome = run_child(
        spec,
        kill_at=(job.node, 1),
        kill_delay=job.delay,
        kill_after_writes_of=spared(job.graph, job.mode),
        timeout=60,
        env=env,
    )
    lines_at_kill = _count_lines(job.log)
    info: dict[str, Any] = {"killed": outcome.killed, "effect_lines_at_kill": lines_at_kill}
    if not resume:
        return info
    snap = snapshot_db(job.db, job.db.with_name(job.db.stem + ".at-kill.db"))
    snap_log = job.log.with_name(job.db.stem + ".at-kill.effects.jsonl")
    shutil.copy2(job.log, snap_log) if job.log.exists() else snap_log.touch()
    again = ChildSpec(spec.graph, job.db, job.thread_id, job.mode, None, put_latency=job.latency)
    res = run_child(again, timeout=60, env=env)
    info.update(
        db_at_kill=snap, effects_at_kill=snap_log,
        effect_lines_after_resume=_count_lines(job.log),
        resume={"ok": bool(res.result and res.result.get("ok")), "error": res.error},
    )  # fmt: skip
    return info


def _count_lines(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip()) if path.exists() else 0


def _campaign(
    root: Path, jobs: list[tuple[_Kill, ChildSpec, dict[str, str]]], results: list[dict[str, Any]]
) -> None:
    runs = []
    for (job, _spec, _env), info in zip(jobs, results, strict=True):
        runs.append({
            "graph": job.graph,
            "mode": job.mode,
            "put_latency": job.latency,
            "thread_id": job.thread_id,
            "kill": {"node": job.node, "delay": job.delay, "killed": info["killed"]},
            "db_at_kill": os.path.relpath(info["db_at_kill"], root),
            "db_after_resume": os.path.relpath(job.db, root),
            "effects": {
                "at_kill": os.path.relpath(info["effects_at_kill"], root),
                "after_resume": os.path.relpath(job.log, root),
            },
            "effect_lines_at_kill": info["effect_lines_at_kill"],
            "effect_lines_after_resume": info["effect_lines_after_resume"],
            "resume": info["resume"],
        })  # fmt: skip
    manifest = {"name": root.name, "graph": "linear", "baseline_effect_lines": 8, "runs": runs}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1))


def _bad_inputs(out: Path, good_db: Path) -> None:
    """Files that are not usable databases: each must give a sentence, not a traceback."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "not-a-db.db").write_text("this is a text file, not SQLite\n")
    (out / "empty.db").write_bytes(b"")
    with contextlib.closing(sqlite3.connect(out / "other-app.db")) as conn, conn:
        conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    # A real LangGraph schema with no rows (SqliteSaver.setup() on an empty file).
    from langgraph.checkpoint.sqlite import SqliteSaver

    with contextlib.closing(
        sqlite3.connect(out / "no-threads.db", check_same_thread=False)
    ) as conn:
        SqliteSaver(conn).setup()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    # A real database whose latest checkpoint blob of one thread was damaged afterwards
    # (as a disk or a bad copy would), plus an effects log with broken lines.
    corrupt = out / "corrupt-blob.db"
    snapshot_db(good_db, corrupt)
    with contextlib.closing(sqlite3.connect(corrupt)) as conn, conn:
        cid = conn.execute(
            "SELECT MAX(checkpoint_id) FROM checkpoints WHERE checkpoint_ns = ''"
        ).fetchone()[0]
        conn.execute(
            "UPDATE checkpoints SET checkpoint = X'DE0102' WHERE checkpoint_id = ?", (cid,)
        )
    log = good_db.with_name(good_db.stem + ".effects.jsonl")
    text = log.read_text() if log.exists() else ""
    (out / "corrupt-blob.effects.jsonl").write_text(
        text + "{not json\n" + json.dumps({"node": "x", "phase": "start"}) + "\n"
    )


def _hostile(out: Path) -> None:
    """A thread whose id and values carry markup: the app must show them as text."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.examples.graphs import linear

    db, log = out / "hostile.db", out / "hostile.effects.jsonl"
    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
        conn = sqlite3.connect(db, check_same_thread=False)
        try:
            graph = linear().compile(checkpointer=SqliteSaver(conn))
            tid = "<b>bold</b>[click](javascript:alert(1))"
            graph.invoke(
                {"visited": ["<script>alert(1)</script>", "x" * 30000]},
                {"configurable": {"thread_id": tid}},
                durability="sync",
            )
        finally:
            conn.close()


def build_demo(root: Path) -> Path:
    """Write the whole demo folder under `root` and return it."""
    root.mkdir(parents=True, exist_ok=True)
    crashes = root / "crashes"
    campaign = root / "campaign-linear"
    crash_jobs = [
        # The checkpoint of `start`'s step (the one p1..p3 start from) is held in flight until
        # the kill, so p1's and p2's writes are orphans however loaded the machine is: with
        # the 0.25 s latency alone, a slow start of p1 let that put land first (no orphan).
        _prepare(
            crashes,
            "fanout-async-slowput",
            "fanout",
            "async",
            0.25,
            fault={"point": "put-in-flight", "node": "start", "hold": 30.0},
        ),  # fmt: skip
        _prepare(crashes, "fanout-sync", "fanout", "sync", 0.0),
        _prepare(crashes, "payment-sync", "payment", "sync", 0.0),
        _prepare(crashes, "linear-exit", "linear", "exit", 0.0),
    ]
    camp_jobs = []
    for mode in ("sync", "async", "exit"):
        for i in range(2):
            camp_jobs.append(_prepare(campaign / "runs", f"linear-{mode}-{i}", "linear", mode, 0.0))
    jobs = [
        (j, s, child_env(j.log, {"REPLAYLENS_EXAMPLE_SLEEP": str(KILL_SLEEP)}))
        for j, s in crash_jobs
    ]
    cjobs = [
        (j, s, child_env(j.log, {"REPLAYLENS_EXAMPLE_SLEEP": str(KILL_SLEEP)}))
        for j, s in camp_jobs
    ]
    with ThreadPoolExecutor(max_workers=3) as pool:
        crash_f = [pool.submit(_kill, j, s, e, resume=False) for j, s, e in jobs]
        camp_f = [pool.submit(_kill, j, s, e, resume=True) for j, s, e in cjobs]
        _run_examples(root / "examples")
        _hostile(root / "examples")
        for f in crash_f:
            f.result()
        _campaign(campaign, cjobs, [f.result() for f in camp_f])
    _bad_inputs(root / "bad", root / "examples" / "fanout.db")
    return root


def demo_folder() -> Path:
    """The demo folder, built once per process (or taken from REPLAYLENS_DEMO_DIR)."""
    with _lock:
        if "demo" not in _built:
            given = os.environ.get("REPLAYLENS_DEMO_DIR")
            if given and (Path(given) / "campaign-linear" / "manifest.json").exists():
                _built["demo"] = Path(given)
            else:
                base = Path(given) if given else Path(tempfile.mkdtemp(prefix="replaylens-demo-"))
                if not given:
                    import atexit

                    atexit.register(shutil.rmtree, base, True)
                _built["demo"] = build_demo(base / "demo" if not given else base)
        return _built["demo"]


if __name__ == "__main__":  # python tests/dashboard_data.py DIR
    print(build_demo(Path(sys.argv[1] if len(sys.argv) > 1 else "demo-out")))


# --------------------------------------------------------------------------- the app
def free_port() -> int:
    import socket

    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    paths: list[Path],
    port: int,
    *,
    extra: list[str] | None = None,
    timeout: float = 60,
    program: list[str] | None = None,
    cwd: Path = REPO,
    env: dict[str, str] | None = None,
) -> Any:
    """`replaylens serve PATHS --port N` in a child process; returns it once the port answers.

    By default the checkout's own code runs (`python -m replaylens.cli`); `program` names
    another `replaylens` (an installed wheel's) and `env` replaces the environment."""
    import subprocess
    import time
    import urllib.request

    cmd = [*(program or [sys.executable, "-m", "replaylens.cli"]), "serve", *map(str, paths), "--port", str(port),
           *(extra or [])]  # fmt: skip
    if env is None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO / "lib"), os.environ.get("PYTHONPATH", "")]),
        }
        env.pop(  # the test process's own config must not leak into the server
            "REPLAYLENS_SERVE_ARGS", None
        )
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"replaylens serve exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}"
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    stop_server(proc)
    raise RuntimeError("replaylens serve did not answer in time")


@contextlib.contextmanager
def serving(paths: list[Path], **kwargs: Any) -> Iterator[str]:
    """`replaylens serve PATHS` on a free port for the block: yields its base URL, stops it after."""
    port = free_port()
    server = start_server(paths, port, **kwargs)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(server)


def stop_server(proc: Any) -> None:
    """Stop the server and Streamlit under it (its own process group, started above)."""
    import signal
    import subprocess

    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip


@contextlib.contextmanager
def tab(browser: Any, width: int = 1400, timeout: float = 30_000) -> Iterator[Any]:
    """One tab of its own context, `width` by 1000 pixels, whose waits give up after `timeout`
    ms (Playwright's own default is 30 s); the context is closed when the block ends."""
    context = browser.new_context(viewport={"width": width, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(timeout)
        yield page
    finally:
        context.close()


def wait_idle(page: Any, timeout: float = 30_000) -> None:
    """Wait until Streamlit has finished running the page (its own state attribute, not a sleep).

    The page must also show its title: right after a navigation the attribute can still
    read `notRunning` from before the run started.
    """
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                && document.querySelector('[data-testid="stMain"] h1') !== null
                && document.querySelector('[data-testid="stSkeleton"]') === null;
        }""",
        timeout=timeout,
    )


def url(base: str, path: str, **params: str | list[str]) -> str:
    """A page's address on a test server, its query parameters encoded as the app reads them."""
    from urllib.parse import quote, urlencode

    return f"{base}/{path}" + (
        f"?{urlencode(params, quote_via=quote, doseq=True)}" if params else ""
    )


def open_view(page: Any, address: str) -> None:
    """Open a page in the browser, wait for Streamlit to finish it, and fail on a traceback."""
    from playwright.sync_api import expect

    page.goto(address)
    wait_idle(page, 60_000)
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


def main_text(page: Any) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()
