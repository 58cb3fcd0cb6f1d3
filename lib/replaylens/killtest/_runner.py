"""Start a graph in a child process, watch its node starts, and kill -9 it on cue.

The point is evidence a crash really leaves: the child is killed with a real SIGKILL
(no `finally`, no `atexit`, no flush), so the database and the effects log hold exactly
what a deployment killing a worker would leave. Nothing is simulated or mocked.

`run_child` aims the kill at "`kill_delay` seconds after the Nth start of node X" (as
announced by the child's NODE_START lines), held back until named sibling nodes have
written (their WRITES lines), or at "`kill_after` seconds after start";
`snapshot_db` then copies the database with its `-wal`/`-shm` sidecars byte for byte,
before anything (a resume, a viewer) opens it and checkpoints the WAL away.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from replaylens.killtest._child import (
    CACHED_NODES,
    FAULT,
    NODE_START,
    RESULT,
    WATCH_STDIN,
    WRITES,
)

CHILD_MODULE = "replaylens.killtest._child"
STDERR_TAIL_CHARS = 4000

# Variables the child must only get from the caller: a value inherited by accident
# (a test that set REPLAYLENS_EXAMPLE_FAIL for an in-process run) would change the run.
_OWNED_ENV_PREFIXES = ("REPLAYLENS_EXAMPLE_", "REPLAYLENS_EFFECTS_LOG")


@dataclass
class ChildSpec:
    """What the child runs: one `invoke` of one graph on one thread of one database.

    `input=None` resumes the thread; `resume=True` sends `Command(resume=resume_value)`
    instead of `input`. `put_latency` delays every checkpoint `put` (a slow backend).
    `store` replaces `db` with a store spec (``{"kind": "postgres", "schema", ...}``; the
    DSN travels in the child's environment); `fault` names a fault point
    (``{"point", "node", "hold"}``); `acks` and `callbacks_log` are files the child
    appends to (acknowledged writes; task starts and ends seen by callbacks).
    """

    graph: str
    db: str | os.PathLike[str]
    thread_id: str
    durability: str = "async"
    input: Any = None
    resume: bool = False
    resume_value: Any = None
    put_latency: float = 0.0
    recursion_limit: int = 25
    store: dict[str, Any] | None = None
    fault: dict[str, Any] | None = None
    acks: str | None = None
    callbacks_log: str | None = None
    configurable: dict[str, Any] | None = None
    """Extra `configurable` keys of every invocation (the thread id stays the campaign's)."""
    resume_all: bool = False
    """With several interrupts pending, answer every one at once (``{id: value}`` for each),
    as LangGraph's test_multi_resume does, instead of the first one only."""
    api: str = "invoke"
    """`invoke` (LangGraph's sync loop and saver) or `ainvoke` (its async ones)."""

    def to_json(self) -> str:
        """The JSON object `_child` reads from argv[1] (never a password: see DSN_ENV)."""
        data: dict[str, Any] = {
            "graph": self.graph,
            "db": os.fspath(self.db),
            "thread_id": self.thread_id,
            "durability": self.durability,
            "input": self.input,
            "put_latency": self.put_latency,
            "recursion_limit": self.recursion_limit,
        }
        for key in ("store", "fault", "acks", "callbacks_log", "configurable"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.api != "invoke":
            data["api"] = self.api
        if self.resume:
            data["resume_value"] = self.resume_value
            if self.resume_all:
                data["resume_all"] = True
        return json.dumps(data)


@dataclass(frozen=True)
class NodeStart:
    """One NODE_START line: the node, its superstep, seconds after the child started."""

    node: str
    step: int
    at: float


@dataclass
class ChildOutcome:
    """What happened to one child: killed or not, what it reported, how it exited."""

    killed: bool
    kill_reason: str | None
    node_starts: list[NodeStart] = field(default_factory=list)
    result: dict[str, Any] | None = None
    returncode: int | None = None
    stderr_tail: str = ""
    timed_out: bool = False
    elapsed: float = 0.0
    fault: str | None = None
    cached_nodes: list[str] | None = None  # the graph's nodes a persistent node cache serves
    """The FAULT line's text when the child killed itself at a fault point."""

    @property
    def error(self) -> str | None:
        """The child's "ExceptionType: message", or None (success, or no RESULT line)."""
        return None if self.result is None else self.result.get("error")

    def started(self, node: str) -> int:
        """How many tasks of `node` the child started."""
        return sum(1 for s in self.node_starts if s.node == node)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form, for reports and for debugging a failed test."""
        return asdict(self)


def repo_paths() -> list[str]:
    """lib/ (where `replaylens` lives) and the folder above it (where `examples/` lives)."""
    lib_dir = Path(__file__).resolve().parents[2]
    return [str(lib_dir), str(lib_dir.parent)]


def child_env(
    effects_log: str | os.PathLike[str] | None = None,
    extra: Mapping[str, str] | None = None,
    pythonpath: Sequence[str | os.PathLike[str]] = (),
) -> dict[str, str]:
    """The environment for a child: this one, minus inherited REPLAYLENS_EXAMPLE_* knobs.

    PYTHONPATH gets `pythonpath`, lib/ and the repo root, and the current directory (so a
    user's `module:attr` imports as it would in their shell), then whatever was there.
    Build it in the thread that owns `os.environ`; reading it while another thread
    changes it is a race.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OWNED_ENV_PREFIXES)}
    paths = [os.fspath(p) for p in pythonpath] + repo_paths() + [os.getcwd()]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env["PYTHONUNBUFFERED"] = "1"
    if effects_log is not None:
        env["REPLAYLENS_EFFECTS_LOG"] = os.fspath(effects_log)
    env.update(extra or {})
    return env


def _pump(stream: IO[str], sink: queue.Queue[tuple[float, str] | None]) -> None:
    """Forward lines with their arrival time; None marks EOF (the child is gone)."""
    try:
        for line in stream:
            sink.put((time.monotonic(), line.rstrip("\n")))
    finally:
        sink.put(None)


def _drain_tail(stream: IO[str], tail: collections.deque[str]) -> None:
    """Keep the last lines of stderr; an undrained pipe would block the child."""
    for line in stream:
        tail.append(line)


def run_child(
    spec: ChildSpec | Mapping[str, Any],
    *,
    kill_at: tuple[str, int] | None = None,
    kill_delay: float = 0.0,
    kill_after: float | None = None,
    kill_after_writes_of: Sequence[str] = (),
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
    on_kill: Callable[[], None] | None = None,
) -> ChildOutcome:
    """Run one child to its end or to its kill, and report what it said and how it died.

    `kill_at=("c", 1)` SIGKILLs the child `kill_delay` seconds after its 1st NODE_START
    of `c`, but not before every node in `kill_after_writes_of` has had its writes land
    (a kill that must spare finished siblings waits for their writes, not for the clock);
    `kill_after` SIGKILLs it that many seconds after start; the earlier wins.
    A child still alive at `timeout` is killed too (`timed_out=True`). If the child has
    already finished when a kill falls due, it is not killed (`killed=False`): the caller
    must check, as a kill aimed at a node that never ran is a different experiment.
    `on_kill` runs just before the child's SIGKILL (a campaign crashes the database
    server there, so that both die at one moment).
    """
    payload = spec.to_json() if isinstance(spec, ChildSpec) else json.dumps(dict(spec))
    proc = subprocess.Popen(  # in this process's group; its stdin is its watchdog's pipe
        [sys.executable, "-m", CHILD_MODULE, payload, WATCH_STDIN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
        env=dict(env) if env is not None else child_env(),
    )
    start = time.monotonic()
    assert proc.stdout is not None and proc.stderr is not None
    lines: queue.Queue[tuple[float, str] | None] = queue.Queue()
    tail: collections.deque[str] = collections.deque(maxlen=200)
    readers = [
        threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True),
        threading.Thread(target=_drain_tail, args=(proc.stderr, tail), daemon=True),
    ]
    for reader in readers:
        reader.start()

    outcome = ChildOutcome(killed=False, kill_reason=None)
    try:
        aim = _Aim(kill_at, kill_delay, frozenset(kill_after_writes_of), kill_after)
        _watch(proc, outcome, lines, start, aim, timeout, on_kill)
    finally:  # SIGINT, SIGTERM (see stop_on_signals) or an error here: the child goes too
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        with contextlib.suppress(OSError):
            proc.stdin.close()  # type: ignore[union-attr]
    for reader in readers:
        reader.join(timeout=5)
    proc.stdout.close()
    proc.stderr.close()
    outcome.stderr_tail = "".join(tail)[-STDERR_TAIL_CHARS:]
    return outcome


@dataclass(frozen=True)
class _Aim:
    """Where `run_child` aims the kill (see its docstring)."""

    kill_at: tuple[str, int] | None
    kill_delay: float
    after_writes_of: frozenset[str]
    kill_after: float | None


def _watch(
    proc: subprocess.Popen[str],
    outcome: ChildOutcome,
    lines: queue.Queue[tuple[float, str] | None],
    start: float,
    aim: _Aim,
    timeout: float,
    on_kill: Callable[[], None] | None,
) -> None:
    """Read the child's lines until it ends, killing it when the kill falls due."""
    kill_at, kill_delay, kill_after = aim.kill_at, aim.kill_delay, aim.kill_after
    kill_due: float | None = None if kill_after is None else start + kill_after
    kill_why = None if kill_after is None else f"{kill_after:g}s after start"
    give_up = start + timeout
    starts_of: collections.Counter[str] = collections.Counter()
    written: set[str] = set()
    node_due: tuple[float, str] | None = None  # the node-start kill, until the writes are in

    def kill(reason: str, planned: bool = True) -> None:
        if not outcome.killed and proc.poll() is None:  # not reaped: the pid is still ours
            if on_kill is not None and planned:
                on_kill()
            os.kill(proc.pid, signal.SIGKILL)
            outcome.killed = True
            outcome.kill_reason = reason

    while True:
        deadlines = [give_up] if outcome.killed else [give_up, kill_due or give_up]
        try:
            item = lines.get(timeout=max(0.0, min(deadlines) - time.monotonic()))
        except queue.Empty:
            item = ()
        if item is None:
            break
        if item:
            arrived, line = item
            if line.startswith(NODE_START + " "):
                node, _, step = line[len(NODE_START) + 1 :].rpartition(" ")
                outcome.node_starts.append(NodeStart(node, int(step), arrived - start))
                starts_of[node] += 1
                if kill_at is not None and (node, starts_of[node]) == tuple(kill_at):
                    why = f"{kill_delay:g}s after start #{starts_of[node]} of {node!r}"
                    node_due = (arrived + kill_delay, why)
            elif line.startswith(WRITES + " "):
                written.add(line[len(WRITES) + 1 :].rpartition(" ")[0])
            elif line.startswith(FAULT + " "):
                outcome.fault = line[len(FAULT) + 1 :]
            elif line.startswith(RESULT + " "):
                outcome.result = json.loads(line[len(RESULT) + 1 :])
            elif line.startswith(CACHED_NODES + " "):
                outcome.cached_nodes = json.loads(line[len(CACHED_NODES) + 1 :])
            if node_due is not None and aim.after_writes_of <= written:
                due, why = max(node_due[0], arrived), node_due[1]
                if aim.after_writes_of:
                    why += f", once {', '.join(sorted(aim.after_writes_of))} had written"
                if kill_due is None or due < kill_due:
                    kill_due, kill_why = due, why
                node_due = None
        now = time.monotonic()
        if not outcome.killed and kill_due is not None and now >= kill_due:
            kill(kill_why or "kill")
        if not outcome.killed and now >= give_up:
            kill(f"timeout after {timeout:g}s", planned=False)
            outcome.timed_out = outcome.killed
        if now >= give_up + 5:  # stdout held open by a grandchild: stop waiting for EOF
            break

    try:  # stdout closed; the exit follows (a killed child is already on its way out)
        outcome.returncode = proc.wait(timeout=max(1.0, give_up - time.monotonic()))
    except subprocess.TimeoutExpired:
        kill(f"timeout after {timeout:g}s", planned=False)
        outcome.timed_out = outcome.killed
        outcome.returncode = proc.wait()
    outcome.elapsed = time.monotonic() - start
    if outcome.fault is not None and not outcome.killed and outcome.returncode == -signal.SIGKILL:
        outcome.killed = True  # it killed itself at the fault point
        outcome.kill_reason = f"fault {outcome.fault}"


SIDECARS = ("-wal", "-shm", "-journal")


def snapshot_db(db: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Copy `db` and its existing -wal/-shm/-journal files to `dest`, byte for byte.

    Call it after the kill and before anything opens the database: the first connection
    to open it replays and checkpoints the WAL, and the evidence as it stood is gone.
    Stale sidecars at `dest` are removed so they cannot be mistaken for the copied ones.
    """
    src, out = Path(db), Path(dest)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, out)
    for suffix in SIDECARS:
        side_src = Path(f"{src}{suffix}")
        side_out = Path(f"{out}{suffix}")
        if side_src.exists():
            shutil.copy2(side_src, side_out)
        elif side_out.exists():
            side_out.unlink()
    return out


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """SIGTERM and SIGINT raise KeyboardInterrupt in the main thread for the duration, so
    every `finally` runs: the graph child is killed (run_child), the throw-away server
    stopped and its folder removed (PgServer.stop). Python's default for SIGTERM ends the
    process with none of them, and a process started in the background by a shell inherits
    SIGINT ignored (Python then installs no KeyboardInterrupt for it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def scoped_environ(**values: str) -> Iterator[None]:
    """Set environment variables for an in-process run (example nodes read them), then
    restore them. Not thread-safe: use it from one thread while no other reads os.environ."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
