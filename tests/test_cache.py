"""The persistent status cache: never stale, damaged files discarded, --no-cache, atomic saves.

The databases are written by real LangGraph graphs (SqliteSaver, durability="sync");
statuses with the cache are compared with statuses derived without it.
"""

from __future__ import annotations

import json
import multiprocessing
import operator
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from replaylens import cache as status_cache
from replaylens.analysis.status import summarize_threads
from replaylens.examples.graphs import chain
from replaylens.sources import open_source

REPO = Path(__file__).resolve().parents[1]


class State(TypedDict):
    seen: Annotated[list[str], operator.add]


def statuses(db: Path, cache: status_cache.StatusCache | None) -> dict[str, tuple[str, int | None]]:
    source = open_source(db)
    try:
        summaries, _ = summarize_threads(source, cache=cache)
    finally:
        source.close()
    return {s.thread_id: (s.status, s.latest_step) for s in summaries}


def cache_for(db: Path, folder: Path, *, stamp: bool = True) -> status_cache.StatusCache:
    """The database's cache; `stamp=False` leaves out its content stamp (which alone would
    discard every entry once the file changed), to test the change marks by themselves."""
    source = open_source(db)
    try:
        return status_cache.StatusCache(
            source.cache_identity(), folder, content=source.content_stamp if stamp else None
        )
    finally:
        source.close()


def linear_graph(saver: SqliteSaver, hook: Any = None) -> Any:
    def a(state: State) -> dict[str, Any]:
        return {"seen": ["a"]}

    def b(state: State) -> dict[str, Any]:
        if hook is not None:
            hook()
        return {"seen": ["b"]}

    return chain(State, ("a", a), ("b", b)).compile(checkpointer=saver)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Two completed threads written by a real graph."""
    path = tmp_path / "db" / "checkpoints.db"
    path.parent.mkdir()
    conn = sqlite3.connect(path, check_same_thread=False)
    graph = linear_graph(SqliteSaver(conn))
    for tid in ("t1", "t2"):
        graph.invoke({"seen": []}, {"configurable": {"thread_id": tid}}, durability="sync")
    conn.close()
    return path


def test_a_thread_that_gained_a_checkpoint_is_derived_again(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    first = statuses(db, cache_for(db, folder))
    assert first == {"t1": ("completed", 2), "t2": ("completed", 2)}
    assert len(cache_for(db, folder)) == 2, "both statuses were stored"

    # t1 runs again to the end: a new latest checkpoint whose writes key ("0:", no writes)
    # equals the old one's, so only the checkpoint id says that the thread changed.
    conn = sqlite3.connect(db, check_same_thread=False)
    linear_graph(SqliteSaver(conn)).invoke(
        {"seen": []}, {"configurable": {"thread_id": "t1"}}, durability="sync"
    )
    conn.close()
    with_cache = statuses(db, cache_for(db, folder))
    assert with_cache == statuses(db, None)
    assert with_cache == {"t1": ("completed", 6), "t2": ("completed", 2)}


def test_a_write_without_a_new_checkpoint_changes_the_key(db: Path, tmp_path: Path) -> None:
    """Inside node b the checkpoint before b has landed (sync): the thread is resumable then.
    b raises: LangGraph adds an error write to the *same* checkpoint, and only the writes
    key tells the cache that the thread changed."""
    folder = tmp_path / "cache"
    seen_inside: dict[str, Any] = {}

    def look() -> None:
        seen_inside.update(statuses(db, cache_for(db, folder)))
        raise RuntimeError("card declined")

    conn = sqlite3.connect(db, check_same_thread=False)
    with pytest.raises(RuntimeError):
        linear_graph(SqliteSaver(conn), hook=look).invoke(
            {"seen": []}, {"configurable": {"thread_id": "t3"}}, durability="sync"
        )
    conn.close()
    assert seen_inside["t3"] == ("resumable", 1), seen_inside
    after = statuses(db, cache_for(db, folder))
    assert after["t3"] == ("failed", 1), (
        "the cached 'resumable' must not be shown after the error write"
    )
    assert after == statuses(db, None)


def test_a_damaged_cache_file_is_discarded_with_a_note(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    statuses(db, cache_for(db, folder))
    cache = cache_for(db, folder)
    cache.path.write_bytes(b'{"format": 1, "entries": {"t1": ["x"')  # cut off mid-write
    source = open_source(db)
    summaries, problems = summarize_threads(source, cache=cache)
    source.close()
    assert {s.thread_id: s.status for s in summaries} == {"t1": "completed", "t2": "completed"}
    assert any("damaged and has been discarded" in p for p in problems), problems
    assert json.loads(cache.path.read_bytes())["entries"].keys() == {"t1", "t2"}, "rewritten whole"


def poison(cache: status_cache.StatusCache, db: Path, status: str) -> None:
    """Store a wrong status under the thread list's real key (what a stale cache would hold)."""
    source = open_source(db)
    index = source.thread_index()
    keys = source.writes_keys({r.thread_id: r.latest_checkpoint_id for r in index})
    for row in index:
        cache.put(row.thread_id, row.latest_checkpoint_id, keys[row.thread_id],
                  status_cache.CachedStatus(status, 99, None, ()))  # fmt: skip
    source.close()
    cache.save()


def run_cli(*args: str, cache_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, status_cache.CACHE_ENV: str(cache_dir), "PYTHONPATH": str(REPO / "lib")}
    return subprocess.run([sys.executable, "-m", "replaylens.cli", *args], capture_output=True, text=True,
                          env=env, timeout=120, check=True)  # fmt: skip


def test_no_cache_neither_reads_nor_writes_the_cache(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    run_cli("threads", str(db), "--json", "--no-cache", cache_dir=folder)
    assert not folder.exists() or not list(folder.glob("statuses-*.json")), (
        "--no-cache wrote a cache file"
    )
    # A cache that answers wrongly under the right keys: the default run trusts it (which
    # proves the CLI reads it), --no-cache does not.
    poison(cache_for(db, folder), db, "interrupted")
    cached = json.loads(run_cli("threads", str(db), "--json", cache_dir=folder).stdout)
    assert {t["status"] for t in cached} == {"interrupted"}
    fresh = json.loads(run_cli("threads", str(db), "--json", "--no-cache", cache_dir=folder).stdout)
    assert {t["thread_id"]: t["status"] for t in fresh} == {"t1": "completed", "t2": "completed"}


def test_the_cache_is_never_written_next_to_the_database(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(status_cache.CACHE_ENV, str(db.parent))
    before = sorted(p.name for p in db.parent.iterdir())
    source = open_source(db)
    assert status_cache.for_source(source) is None
    assert any("own folder" in n for n in source.notes)
    source.close()
    assert sorted(p.name for p in db.parent.iterdir()) == before


def _save_many(args: tuple[str, str, int]) -> None:
    folder, key, worker = args
    for i in range(40):
        c = status_cache.StatusCache(key, Path(folder))
        c.put(f"w{worker}-{i}", "cp", "0:", status_cache.CachedStatus("completed", i, None, ()))
        c.save()


def test_two_processes_saving_at_once_leave_a_whole_file(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        pool.map(_save_many, [(str(tmp_path), "db", 0), (str(tmp_path), "db", 1)])
    c = status_cache.StatusCache("db", tmp_path)
    assert len(c) == 80 and not c.notes, "every entry of both processes survives, the file parses"
    assert not list(tmp_path.glob(".statuses-*.tmp")), "no temporary file is left behind"


def latest_tuple(saver: SqliteSaver, thread_id: str, back: int = 0) -> Any:
    """The saver's own tuple of a thread's latest checkpoint, or of one `back` steps before."""
    return list(saver.list({"configurable": {"thread_id": thread_id}}))[back]


def test_a_checkpoint_put_again_under_its_id_is_derived_again(db: Path, tmp_path: Path) -> None:
    """`SqliteSaver.put` is INSERT OR REPLACE: putting an existing checkpoint id again (a
    descendant's config, as LangGraph's delta-channel note warns) changes what the latest
    checkpoint says without a new id or a new write. The change marks see the replaced row."""
    folder = tmp_path / "cache"
    assert statuses(db, cache_for(db, folder))["t1"] == ("completed", 2)
    conn = sqlite3.connect(db, check_same_thread=False)
    saver = SqliteSaver(conn)
    latest, before_b = latest_tuple(saver, "t1"), latest_tuple(saver, "t1", back=1)
    checkpoint = {**before_b.checkpoint, "id": latest.checkpoint["id"]}  # b due again
    saver.put(before_b.parent_config, checkpoint, before_b.metadata, {})
    conn.close()
    assert statuses(db, None)["t1"] == ("resumable", 1), "the replaced row says b is due"
    assert statuses(db, cache_for(db, folder)) == statuses(db, None)


def test_marks_that_no_longer_hold_mean_every_key_is_checked(db: Path, tmp_path: Path) -> None:
    """The marks point at the newest rows. Deleting the thread that holds them lets SQLite
    hand the same rowids out again, so a write after the delete may sit below the mark:
    the cache must notice the marked row is gone and check every thread's writes key.

    Inside node b of t3 (its checkpoint before b has landed): thread x runs to the end
    (its rows are now the newest), the statuses are cached (t3 resumable), x is deleted,
    then b raises: the error write takes a rowid below the mark, and thread y's rows climb
    past it."""
    folder = tmp_path / "cache"

    def inside_b() -> None:
        other = sqlite3.connect(db, check_same_thread=False)
        saver = SqliteSaver(other)
        linear_graph(saver).invoke(
            {"seen": []}, {"configurable": {"thread_id": "x"}}, durability="sync"
        )
        assert statuses(db, cache_for(db, folder, stamp=False))["t3"] == ("resumable", 1)
        saver.delete_thread("x")
        other.close()
        raise RuntimeError("card declined")

    conn = sqlite3.connect(db, check_same_thread=False)
    with pytest.raises(RuntimeError):
        linear_graph(SqliteSaver(conn), hook=inside_b).invoke(
            {"seen": []}, {"configurable": {"thread_id": "t3"}}, durability="sync"
        )
    (error_rowid,) = conn.execute("SELECT MAX(rowid) FROM writes").fetchone()
    # Thread y then runs: the rowids climb past the mark again, so only the marked row's
    # key (gone) tells that the rows below the mark are not the ones the cache saw.
    linear_graph(SqliteSaver(conn)).invoke(
        {"seen": []}, {"configurable": {"thread_id": "y"}}, durability="sync"
    )
    (top,) = conn.execute("SELECT MAX(rowid) FROM writes").fetchone()
    conn.close()
    marks = cache_for(db, folder, stamp=False).marks
    assert marks is not None and error_rowid <= marks["writes"][0] < top, (
        "a reused rowid below the mark"
    )
    after = statuses(db, cache_for(db, folder, stamp=False))
    assert after["t3"] == ("failed", 1), (
        "the cached 'resumable' must not be shown after the error write"
    )
    assert after == statuses(db, None)


def test_statuses_derived_in_a_second_process_equal_those_derived_in_one(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past PARALLEL_MIN_THREADS the second half of the threads is derived by a second
    process (`_derive_worker`, JSON both ways). Lowered to 1 here: the statuses are those
    one process derives, the child really ran, and a child that cannot open the database
    (it exits with an error) leaves the parent to derive its half."""
    from replaylens.analysis import status

    conn = sqlite3.connect(db, check_same_thread=False)
    graph = linear_graph(SqliteSaver(conn))
    for i in range(6):
        config = {"configurable": {"thread_id": f"p{i}"}}
        if i % 2:
            graph.invoke({"seen": []}, config, durability="sync", interrupt_before=["b"])
        else:
            graph.invoke({"seen": []}, config, durability="sync")
    conn.close()
    one = statuses(db, None)
    assert set(one.values()) == {("completed", 2), ("resumable", 1)}

    children: list[Any] = []
    started = status._start_helper
    monkeypatch.setattr(status, "PARALLEL_MIN_THREADS", 1)
    monkeypatch.setattr(
        status, "_start_helper", lambda *a: children.append(started(*a)) or children[-1]
    )
    two = statuses(db, None)
    assert two == one
    assert len(children) == 1 and children[0] is not None and children[0].proc.returncode == 0

    from replaylens.sources._sqlite import SqliteSource

    monkeypatch.setattr(SqliteSource, "reopen_spec", lambda self: (str(tmp_path / "gone.db"), None))
    assert statuses(db, None) == one
    assert children[-1].proc.returncode != 0, "the child failed, and the parent derived its half"
