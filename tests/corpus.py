"""A corpus of real checkpoint databases, written by real graphs run by real LangGraph.

No mocks: every database here was written by `SqliteSaver` under a real `invoke`, and the
crash cases by a child process killed with a real SIGKILL in the middle of a node (see
`replaylens.killtest`). The readers and the analysis are tested against what LangGraph
actually leaves on disk, orphan writes and all, not against what we think it leaves.

Runs that involve no kill are done in-process (fast); each kill scenario is a chain of
child processes (kill, snapshot, resume) and the scenarios run in parallel, because
interpreter start-up (importing LangGraph, about 1.5 s of CPU) dominates the build.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from replaylens.killtest.harness import (
    ChildOutcome,
    ChildSpec,
    NodeStart,
    build_graph,
    child_env,
    make_saver,
    run_child,
    scoped_environ,
    snapshot_db,
)

REPO_ROOT = Path(__file__).resolve().parents[1]


def writes_before_task_path(table: str) -> str:
    """The DDL of SqliteSaver's `writes` table before it had `task_path` (as
    langgraph-checkpoint-sqlite 2.0.11, LangGraph 0.6.11's, still lays it out), named `table`."""
    return f"""
    CREATE TABLE {table} (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL DEFAULT '',
        checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        channel TEXT NOT NULL,
        type TEXT,
        value BLOB,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
    );
    """


if str(REPO_ROOT) not in sys.path:  # `examples` lives at the repo root, not in lib/
    sys.path.insert(0, str(REPO_ROOT))

MODES = ("sync", "async", "exit")
KILL_SLEEP = 0.5
"""REPLAYLENS_EXAMPLE_SLEEP for the kill runs: every node is open this long."""
SLOW_PUT = 0.25
"""Checkpoint `put` latency for the killed_slow_put runs (a networked backend)."""
WORKERS = 3
"""Kill scenarios run at once. Children mostly sleep inside nodes, so 3 fit on 2 cores."""
CHILD_TIMEOUT = 60.0

# graph -> (node to kill in, seconds after its start). Each node sleeps KILL_SLEEP, so
# the kill lands in the middle; fanout's p3 sleeps the whole of it while p1 and p2
# (0.1 and 0.2 of it) finish, and its kill also waits for their writes (SPARED).
KILL_POINTS: dict[str, tuple[str, float]] = {
    "linear": ("c", 0.25),
    "fanout": ("p3", 0.3),
    "payment": ("charge", 0.25),
    "subgraph": ("s2", 0.25),
    "send_map_reduce": ("reduce", 0.25),
    "loop": ("tool", 0.25),
    "failing": ("b", 0.25),
    "functional": ("store_record", 0.25),
}
SPARED: dict[str, tuple[str, ...]] = {"fanout": ("p1", "p2")}
"""Siblings a kill must find finished: it waits for their writes to land (the child's WRITES
lines), so a loaded machine that runs them late delays the kill instead of failing the test.
Not under `exit`, which writes nothing before the run ends: there is no write to wait for."""
PARALLEL_KILLS: dict[str, tuple[str, float]] = {
    "send_uneven": ("work", 0.6),
    "functional_parallel": ("work", 0.6),
    "nested_subgraph": ("i2", 0.25),
}
"""Parallel tasks of one node, killed while the slow one (item 4, 1.5 s) runs and the other
three (0.1 s at most) have finished; the resume must re-run item 4 only. And a subgraph
inside a subgraph, killed in the innermost node."""
PARALLEL_MODES = ("sync", "async")
SLOW_PUT_GRAPHS = ("fanout", "linear")
SLOW_PUT_MODES = ("async", "sync")
ORPHAN_PUT = 0.8
"""`put` latency of the orphan scenario: longer than a node, so writes overtake checkpoints."""


@dataclass(frozen=True)
class KillScenario:
    """One kill: which graph, mode and backend latency, and where the kill lands."""

    stem: str
    graph: str
    mode: str
    put_latency: float
    kill_node: str
    kill_delay: float
    variant: str = "plain"
    after_writes: tuple[str, ...] = ()


def spared(graph: str, mode: str) -> tuple[str, ...]:
    """The nodes whose writes a kill of `graph` under `mode` waits for (see SPARED)."""
    return () if mode == "exit" else SPARED.get(graph, ())


def kill_scenarios() -> list[KillScenario]:
    """Every kill of the corpus, slowest first (so the pool finishes together)."""
    plan = [
        # async with puts slower than a node: the input checkpoint lands at 0.8 s, the
        # step-1 one (chained after it) at 1.6 s, and the kill at ~1.1 s (c started at
        # 1.0 s): the writes of a and b hang off checkpoints that never landed.
        KillScenario(
            "linear-async-orphan", "linear", "async", ORPHAN_PUT, "c", 0.1, "orphan_writes"
        ),
    ]
    plan += [
        KillScenario(f"{g}-{m}-slowput", g, m, SLOW_PUT, *KILL_POINTS[g], after_writes=spared(g, m))
        for g in SLOW_PUT_GRAPHS
        for m in SLOW_PUT_MODES
    ]
    plan += [
        KillScenario(
            f"{g}-{m}",
            g,
            m,
            0.0,
            *PARALLEL_KILLS[g],
            "nested" if g == "nested_subgraph" else "parallel",
        )
        for g in PARALLEL_KILLS
        for m in PARALLEL_MODES
    ]
    plan += [
        KillScenario(f"{g}-{m}", g, m, 0.0, *KILL_POINTS[g], after_writes=spared(g, m))
        for g in sorted(KILL_POINTS, key=lambda g: g != "payment")
        for m in MODES
    ]
    # A second fresh input on a thread whose first invocation raised, killed in `b` under
    # exit: nothing of the second invocation is saved, so its input is lost with it and a
    # resume goes on from the first one's checkpoint (re-running its failed `b`, not the
    # second input's tasks).
    plan.append(KillScenario("failing-exit-second-input", "failing", "exit", 0.0, "b", 0.25,
                             "second_input"))  # fmt: skip
    return plan


KINDS = ("completed", "interrupted", "failed", "killed", "killed_slow_put", "resumed_after_kill")


@dataclass
class CorpusEntry:
    """One database (or one view of one) and what was done to make it.

    For kind `killed` / `killed_slow_put`, `db` and `effects_log` are the copies taken
    right after the SIGKILL (the evidence as it stood; `snapshot` is the same file).
    The matching `resumed_after_kill` entry points at the original files after a fresh
    process resumed the thread; both carry the kill's and the resume's `ChildOutcome`.
    `mode` is "mixed" for a database that holds one thread per durability mode.
    `variant` says what is special about the file: "plain", "fork" (time travel),
    "rollback_journal" (journal_mode=DELETE), "legacy_no_task_path", "orphan_writes"
    (a kill while a slow async `put` lagged: writes under checkpoints that never landed),
    or "second_input" (the kill in a second fresh input after a first invocation raised).
    """

    name: str
    graph: str
    mode: str
    db: Path
    effects_log: Path
    thread_ids: list[str]
    kind: str
    variant: str = "plain"
    snapshot: Path | None = None
    kill: ChildOutcome | None = None
    resume: ChildOutcome | None = None


class Corpus(list[CorpusEntry]):
    """The entries, plus where they live and how long they took to make."""

    root: Path
    build_seconds: float

    def get(self, name: str) -> CorpusEntry:
        """The entry called `name` (KeyError if there is none)."""
        for entry in self:
            if entry.name == name:
                return entry
        raise KeyError(name)

    def of_kind(self, kind: str) -> list[CorpusEntry]:
        """All entries of one kind."""
        return [e for e in self if e.kind == kind]


# --------------------------------------------------------------------------- in-process


@contextlib.contextmanager
def _graph(name: str, db: Path) -> Iterator[Any]:
    """The example graph `name` compiled on a SqliteSaver for `db`; closed afterwards."""
    from replaylens.examples.graphs import ALL

    saver = make_saver(str(db))
    try:
        yield build_graph(ALL[name], saver)
    finally:
        saver.conn.close()


def _config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


def _invoke(graph: Any, payload: Any, thread_id: str, mode: str) -> Any:
    """Invoke; an exception is part of the run being recorded, so it is returned."""
    try:
        return graph.invoke(payload, _config(thread_id), durability=mode)
    except Exception as exc:  # noqa: BLE001 - the failing graph fails on purpose
        return exc


def _build_in_process(root: Path) -> list[CorpusEntry]:
    """Completed, interrupted, failed and forked threads: no kill, so no child needed."""
    from langgraph.types import Command

    from replaylens.examples.graphs import ALL, DEFAULT_INPUTS

    out_dir = root / "completed"
    out_dir.mkdir(parents=True, exist_ok=True)
    entries: list[CorpusEntry] = []
    for name in ALL:
        db, log = out_dir / f"{name}.db", out_dir / f"{name}.effects.jsonl"
        with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
            with _graph(name, db) as graph:
                for mode in MODES:
                    thread = f"{name}-{mode}"
                    with scoped_environ(REPLAYLENS_EXAMPLE_FAIL="0"):
                        _invoke(graph, DEFAULT_INPUTS[name], thread, mode)
                        if name == "payment":  # stops at approve; approve it
                            _invoke(graph, Command(resume=True), thread, mode)
                    entries.append(CorpusEntry(thread, name, mode, db, log, [thread], "completed"))
                    if name == "payment":
                        thread = f"payment-interrupted-{mode}"
                        _invoke(graph, DEFAULT_INPUTS[name], thread, mode)
                        entries.append(
                            CorpusEntry(thread, name, mode, db, log, [thread], "interrupted")
                        )
                    if name == "failing":
                        thread = f"failing-failed-{mode}"
                        with scoped_environ(REPLAYLENS_EXAMPLE_FAIL="1"):
                            _invoke(graph, DEFAULT_INPUTS[name], thread, mode)
                        entries.append(CorpusEntry(thread, name, mode, db, log, [thread], "failed"))
                if name == "linear":
                    entries.append(_fork(graph, db, log))
    return entries


def _fork(graph: Any, db: Path, log: Path) -> CorpusEntry:
    """Time travel: finish linear, edit the checkpoint before `c`, and resume from it.

    The checkpoint after `b` then has two children (the original run's and the
    `update_state` one), and `c` and `d` ran twice on the thread, once per branch.
    """
    thread = "linear-fork"
    graph.invoke({"visited": []}, _config(thread), durability="sync")
    before_c = next(s for s in graph.get_state_history(_config(thread)) if s.next == ("c",))
    forked = graph.update_state(before_c.config, {"visited": ["edited-before-c"]})
    graph.invoke(None, forked, durability="sync")
    return CorpusEntry(thread, "linear", "sync", db, log, [thread], "completed", "fork")


# --------------------------------------------------------------------------- derived
def _derived(root: Path, entries: list[CorpusEntry]) -> list[CorpusEntry]:
    """Copies of finished databases in the storage shapes a reader must also accept."""
    out_dir = root / "derived"
    out_dir.mkdir(parents=True, exist_ok=True)

    def threads_of(graph: str) -> list[str]:
        return [e.thread_ids[0] for e in entries if e.graph == graph and e.kind == "completed"]

    linear = next(e for e in entries if e.graph == "linear")
    journal = snapshot_db(linear.db, out_dir / "rollback_journal.db")
    # SqliteSaver.setup() forces WAL, so the graph cannot write a DELETE-mode file;
    # convert the copy instead, through a connection of our own.
    with contextlib.closing(sqlite3.connect(journal)) as conn:
        (journal_mode,) = conn.execute("PRAGMA journal_mode=DELETE").fetchone()
    if journal_mode.lower() != "delete":
        raise RuntimeError(f"could not switch {journal} to journal_mode=DELETE")

    smr = next(e for e in entries if e.graph == "send_map_reduce")
    legacy = snapshot_db(smr.db, out_dir / "legacy_no_task_path.db")
    # The writes table as SqliteSaver created it before `task_path` existed.
    with contextlib.closing(sqlite3.connect(legacy)) as conn, conn:
        conn.executescript(
            writes_before_task_path("writes_legacy")
            + """
            INSERT INTO writes_legacy
                SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value
                FROM writes;
            DROP TABLE writes;
            ALTER TABLE writes_legacy RENAME TO writes;
            """
        )
    return [
        CorpusEntry(
            "linear-rollback-journal",
            "linear",
            "mixed",
            journal,
            linear.effects_log,
            threads_of("linear"),
            "completed",
            "rollback_journal",
        ),
        CorpusEntry(
            "send_map_reduce-legacy",
            "send_map_reduce",
            "mixed",
            legacy,
            smr.effects_log,
            threads_of("send_map_reduce"),
            "completed",
            "legacy_no_task_path",
        ),
    ]


# --------------------------------------------------------------------------- kills
@dataclass
class _KillJob:
    """Everything a worker needs, prepared in the main thread (env included)."""

    scenario: KillScenario
    db: Path
    log: Path
    thread_id: str
    env: dict[str, str]
    first: ChildSpec


def _prepare_kill(root: Path, sc: KillScenario) -> _KillJob:
    """Lay out the files of one kill scenario; payment is first run to its interrupt."""
    from replaylens.examples.graphs import DEFAULT_INPUTS

    out_dir = root / "killed"
    out_dir.mkdir(parents=True, exist_ok=True)
    db, log = out_dir / f"{sc.stem}.db", out_dir / f"{sc.stem}.effects.jsonl"
    thread = f"{sc.stem}-killed"
    target = f"replaylens.examples.graphs:{sc.graph}"
    if sc.graph == "payment":
        # The kill is aimed at `charge`, after approval: reach the interrupt here
        # (no kill involved, so in-process), then the child sends Command(resume=True).
        with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
            with _graph(sc.graph, db) as compiled:
                _invoke(compiled, DEFAULT_INPUTS[sc.graph], thread, sc.mode)
        first = ChildSpec(
            target,
            db,
            thread,
            sc.mode,
            resume=True,
            resume_value=True,
            put_latency=sc.put_latency,
        )
    else:
        if sc.variant == "second_input":
            # The first invocation raises in `b` (in-process, no kill); the child's second
            # input on the same thread runs with the failure switched off.
            with scoped_environ(
                REPLAYLENS_EFFECTS_LOG=str(log),
                REPLAYLENS_EXAMPLE_SLEEP="0",
                REPLAYLENS_EXAMPLE_FAIL="1",
            ):
                with _graph(sc.graph, db) as compiled:
                    _invoke(compiled, DEFAULT_INPUTS[sc.graph], thread, sc.mode)
        first = ChildSpec(
            target, db, thread, sc.mode, DEFAULT_INPUTS[sc.graph], put_latency=sc.put_latency
        )
    knobs = {"REPLAYLENS_EXAMPLE_SLEEP": str(KILL_SLEEP)}
    if sc.variant == "second_input":
        knobs["REPLAYLENS_EXAMPLE_FAIL"] = "0"
    env = child_env(log, knobs)
    return _KillJob(sc, db, log, thread, env, first)


def _run_kill(job: _KillJob) -> list[CorpusEntry]:
    """Kill mid-node, snapshot the evidence, resume in a fresh process on the original.

    The resume uses the same durability mode and the same (slow or not) backend.
    """
    sc = job.scenario
    kill = run_child(
        job.first,
        kill_at=(sc.kill_node, 1),
        kill_delay=sc.kill_delay,
        kill_after_writes_of=sc.after_writes,
        timeout=CHILD_TIMEOUT,
        env=job.env,
    )
    snap = snapshot_db(job.db, job.db.with_name(f"{sc.stem}.at-kill.db"))
    snap_log = job.log.with_name(f"{sc.stem}.at-kill.effects.jsonl")
    if job.log.exists():
        shutil.copy2(job.log, snap_log)
    else:
        snap_log.touch()
    resume_spec = ChildSpec(
        job.first.graph, job.db, job.thread_id, sc.mode, None, put_latency=sc.put_latency
    )
    resume = run_child(resume_spec, timeout=CHILD_TIMEOUT, env=job.env)
    common: dict[str, Any] = {
        "graph": sc.graph,
        "mode": sc.mode,
        "thread_ids": [job.thread_id],
        "variant": sc.variant,
        "snapshot": snap,
        "kill": kill,
        "resume": resume,
    }
    kind = "killed_slow_put" if sc.put_latency > 0 else "killed"
    return [
        CorpusEntry(f"{sc.stem}-killed", db=snap, effects_log=snap_log, kind=kind, **common),
        CorpusEntry(
            f"{sc.stem}-resumed",
            db=job.db,
            effects_log=job.log,
            kind="resumed_after_kill",
            **common,
        ),
    ]


# --------------------------------------------------------------------------- build
def build_corpus(root: Path, *, workers: int = WORKERS) -> Corpus:
    """Write every database of the corpus under `root` and describe them.

    Kill scenarios start first (in worker threads, each driving child processes) and the
    in-process runs go on in this thread meanwhile; the env of every child is fixed
    before that, since the in-process runs change `os.environ`.
    """
    started = time.monotonic()
    root.mkdir(parents=True, exist_ok=True)
    jobs = [_prepare_kill(root, sc) for sc in kill_scenarios()]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="killtest") as pool:
        futures: list[Future[list[CorpusEntry]]] = [pool.submit(_run_kill, j) for j in jobs]
        entries = _build_in_process(root)
        entries += _derived(root, entries)
        for future in futures:
            entries += future.result()
    corpus = Corpus(entries)
    corpus.root = root
    corpus.build_seconds = time.monotonic() - started
    return corpus


def shared_corpus(root: Path) -> Corpus:
    """The corpus under `root`, built by whichever test process asks first and read back by
    the others (pytest-xdist's workers share `root`). The build runs real graphs for about
    two minutes and a CPU and a half; once per session, not once per worker.

    `shared_build` makes the others wait for the first build;
    `corpus.json` describes what it wrote, and is written last, so a build that died leaves
    nothing to read and the next process builds again."""
    described = root / "corpus.json"
    with shared_build(root):
        if described.exists():
            return _read_corpus(described)
        if root.exists():
            shutil.rmtree(root)
        built = build_corpus(root)
        _write_corpus(built, described)
        return built


@contextlib.contextmanager
def shared_build(root: Path) -> Iterator[None]:
    """Hold an exclusive `flock` on a file beside `root` for the block: the test processes
    that build one shared folder take turns, and the others wait for the first build."""
    import fcntl

    root.parent.mkdir(parents=True, exist_ok=True)
    with (root.parent / f"{root.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _write_corpus(corpus: Corpus, path: Path) -> None:
    """Describe the built entries in JSON (paths as strings, the children's outcomes whole)."""
    entries = []
    for entry in corpus:
        item = asdict(entry)
        for key in ("db", "effects_log", "snapshot"):
            item[key] = None if item[key] is None else str(item[key])
        entries.append(item)
    described = {"root": str(corpus.root), "build_seconds": corpus.build_seconds}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**described, "entries": entries}))
    tmp.replace(path)


def _read_corpus(path: Path) -> Corpus:
    """The corpus `_write_corpus` described, its entries rebuilt field for field."""
    described = json.loads(path.read_text())
    entries = []
    for item in described["entries"]:
        for key in ("db", "effects_log", "snapshot"):
            item[key] = None if item[key] is None else Path(item[key])
        for key in ("kill", "resume"):
            if item[key] is not None:
                starts = [NodeStart(**s) for s in item[key].pop("node_starts")]
                item[key] = ChildOutcome(**item[key], node_starts=starts)
        entries.append(CorpusEntry(**item))
    corpus = Corpus(entries)
    corpus.root = Path(described["root"])
    corpus.build_seconds = described["build_seconds"]
    return corpus


def replay_process(entry: CorpusEntry, *args: str) -> subprocess.CompletedProcess[str]:
    """`replaylens replay DB --thread T [args …]` on the entry's first thread, as a separate
    process, the way scripts call it."""
    command = [sys.executable, "-m", "replaylens.cli", "replay", str(entry.db)]
    return subprocess.run(
        [*command, "--thread", entry.thread_ids[0], *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def replay_json(entry: CorpusEntry, *extra: str) -> dict:
    """`replaylens replay --effects LOG --json [extra …]`, its JSON read back."""
    proc = replay_process(entry, "--effects", str(entry.effects_log), "--json", *extra)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


if __name__ == "__main__":  # build into a folder to look at: python tests/corpus.py DIR
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "corpus-out")
    built = build_corpus(target)
    for item in built:
        extra = ""
        if item.kill is not None and item.resume is not None:
            extra = f" kill={item.kill.kill_reason!r} resume_error={item.resume.error!r}"
        print(f"{item.kind:20} {item.name:36} {item.db}{extra}")
    print(f"built {len(built)} entries in {built.build_seconds:.1f}s under {target}")
