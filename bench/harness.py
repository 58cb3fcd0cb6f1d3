"""The benchmark's harness: where files live, fresh worker processes, cold and warm runs,
whole-process timing, the machine description.

Every measured process is started by `Bench` (one per measurement, after a page-cache
drop when allowed); `run.py --worker NAME` is the entry point those processes run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
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
RESULTS_INTRO = (
    "# Benchmark results\n\n"
    "One current table per benchmark, each rewritten by its script's latest run (with that run's\n"
    "date, machine and versions). Earlier runs are in git: `git log -p bench/RESULTS.md`.\n"
)
STATUS_SAMPLE = 200
LOAD_AT_START: list[str] = []
EFFECTS_THREAD = "loop-failed-00000"  # a thread whose resume re-runs a failed task
REPLAY_COUNTS_THREADS = 300  # what the Threads page plans at most (ui/loading.py)


def write_section(heading: str, text: str) -> None:
    """Put `text` (starting with the `## heading` line) in RESULTS.md in place of that
    benchmark's previous section, leaving the other benchmarks' sections as they are: the
    file holds each benchmark's latest run, and its history is in git."""
    import re

    old = RESULTS.read_text() if RESULTS.exists() else RESULTS_INTRO
    body = text.rstrip() + "\n"
    pattern = re.compile(re.escape(heading) + r".*?(?=\n## |\Z)", re.S)
    if heading in old:
        new = pattern.sub(lambda _m: body, old)
    else:
        new = old.rstrip() + "\n\n" + body
    RESULTS.write_text(new)


def load_average() -> str:
    """The load average now (1, 5, 15 min), as the sections of RESULTS.md print it."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def run_facts(
    command: str, started: float, load_start: str, extra: dict[str, str] | None = None
) -> str:
    """The lines under a section's heading for a script that is not `run.py`: the command,
    when it ran (UTC) and for how long, then the machine, its load at the start and the end
    (the machine is shared: a figure means little without the load beside it) and the
    versions. `started` is the `time.time()` of the start."""
    info = machine()
    info["load average (1, 5, 15 min) at the start"] = load_start
    info.update(extra or {})
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started))
    head = f"Latest run: `{command}` on {when}, {time.time() - started:.0f} s wall."
    return "\n".join([head, "", *[f"- {k}: {v}" for k, v in info.items()]])


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
        cmd = [
            PY,
            str(HERE / "run.py"),
            "--worker",
            name,
            "--params",
            params_json,
            "--repeat",
            str(repeat),
        ]
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
        self.note(
            f"{name}: cold {t[0]:.3f} s, warm {', '.join(f'{x:.3f}' for x in t[1:])} "
            f"({time.perf_counter() - t0:.1f} s wall)"
        )
        return {
            "cold": t[0],
            "warm": statistics.median(t[1:]) if len(t) > 1 else t[0],
            "times": t,
            "info": out["info"],
        }

    def process(self, name: str, cmd: list[str], repeat: int) -> dict[str, Any]:
        """Time a whole process, spawn to exit (after a warm-up run on the tiny files); the
        first run follows a page-cache drop. The stdout of the last run is kept."""
        times = []
        if self.tiny:
            subprocess.run(
                [self._tiny(c) for c in cmd],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=ROOT,
                env=self.env,
                check=True,
            )
        out_path = Path(tempfile.mkstemp(prefix="bench-out-", dir=SCRATCH)[1])
        try:
            for i in range(repeat):
                if i == 0:
                    self.drop()
                with open(out_path, "wb") as fh:
                    t0 = time.perf_counter()
                    proc = subprocess.run(
                        cmd, stdout=fh, stderr=subprocess.PIPE, cwd=ROOT, env=self.env
                    )
                    times.append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    raise SystemExit(f"{name} failed: {proc.stderr.decode()[-2000:]}")
            output = json.loads(out_path.read_bytes())
        finally:
            out_path.unlink(missing_ok=True)
        self.note(f"{name}: cold {times[0]:.3f} s, warm {', '.join(f'{x:.3f}' for x in times[1:])}")
        return {
            "cold": times[0],
            "warm": statistics.median(times[1:]) if len(times) > 1 else times[0],
            "times": times,
            "output": output,
        }


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

    disk = shutil.disk_usage(fx.CACHE if fx.CACHE.exists() else ROOT)
    commit = "unknown"

    def git(*args: str) -> str:
        run = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
        )
        return run.stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "lib")
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


def latest_checkpoint_id(db: Path, tid: str) -> str:
    import sqlite3
    from urllib.parse import quote

    conn = sqlite3.connect(f"file:{quote(str(db))}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(
            "SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''",
            (tid,),
        ).fetchone()[0]
    finally:
        conn.close()
