"""SQLite evidence for the tests: a database left by a real writer (LangGraph's SqliteSaver,
SIGKILLed or closed), a fingerprint that shows no byte or mtime changed, and a private copy
for code that writes when it opens a file."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SIDE = ("", "-wal", "-shm", "-journal")


def fingerprint(db: Path) -> dict[str, tuple[str, int, int]]:
    out = {}
    for suffix in SIDE:
        p = Path(f"{db}{suffix}")
        if p.exists():
            st = p.stat()
            out[suffix or "db"] = (
                hashlib.sha256(p.read_bytes()).hexdigest(),
                st.st_size,
                st.st_mtime_ns,
            )
    return out


def private_copy(db: Path, copy: Path) -> Path:
    """`db` with its -wal, -shm and -journal copied to `copy` (stale files there removed),
    for code that writes when it opens a file: LangGraph's saver, or SQLite itself."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
        if Path(f"{db}{suffix}").exists():
            shutil.copy2(f"{db}{suffix}", f"{copy}{suffix}")
    return copy


def run_python(
    code: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'lib'}", **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=check,
    )


WRITE_AND_KILL = """
    import os, sqlite3, signal
    from langgraph.checkpoint.sqlite import SqliteSaver
    from replaylens.examples.graphs import linear
    conn = sqlite3.connect({db!r}, check_same_thread=False)
    graph = linear().compile(checkpointer=SqliteSaver(conn))
    for i in range({threads}):
        graph.invoke({{"visited": []}}, {{"configurable": {{"thread_id": f"t{{i}}"}}}}, durability="sync")
    {tail}
"""


def make_db(tmp_path: Path, *, kill: bool, threads: int = 2) -> Path:
    db = tmp_path / "evidence.db"
    tail = "os.kill(os.getpid(), signal.SIGKILL)" if kill else "conn.close()"
    proc = run_python(
        WRITE_AND_KILL.format(db=str(db), threads=threads, tail=tail),
        env={"REPLAYLENS_EFFECTS_LOG": str(tmp_path / "effects.jsonl")},
        check=False,
    )
    assert proc.returncode == (-9 if kill else 0), proc.stderr
    return db
