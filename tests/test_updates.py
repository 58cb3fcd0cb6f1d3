"""update_state / bulk_update_state forks, functional calls and nested subgraphs: `next`
equals LangGraph's `get_state` on every checkpoint, and no task is ever named "?".

Real graphs on a real SqliteSaver: time travel to the checkpoint before `c`, an edit
applied as `a` on the fork, a `bulk_update_state` of two supersteps (as `b`, then as `c`
and `d` together), a functional entrypoint with parallel @task calls, and a graph whose
subgraph holds another subgraph. Every task replaylens lists after a checkpoint,
derived or not, is compared with `graph.get_state(config).tasks` for that checkpoint.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from evidence_files import private_copy
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import StateGraph
from langgraph.types import StateUpdate
from source_threads import expected_status
from typing_extensions import TypedDict

from replaylens.analysis.status import load_thread
from replaylens.examples.graphs import chain, functional_parallel, linear
from replaylens.sources import open_source


class Trail(TypedDict, total=False):
    trail: Annotated[list[str], lambda a, b: a + b]


def _step(name: str) -> Any:
    def node(state: Trail) -> dict[str, Any]:
        return {"trail": [name]}

    node.__name__ = name
    return node


def nested() -> StateGraph:
    """outer: pre -> mid (subgraph: m1 -> inner (subgraph: i1 -> i2)) -> post."""
    inner = chain(Trail, ("i1", _step("i1")), ("i2", _step("i2")))
    mid = chain(Trail, ("m1", _step("m1")), ("inner", inner.compile()))
    return chain(Trail, ("pre", _step("pre")), ("mid", mid.compile()), ("post", _step("post")))


UPDATES_AS = {"a", "b", "c", "d"}
"""The nodes the writes below are applied as (what the database should show)."""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("updates") / "updates.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    graph = linear().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "upd"}}
    graph.invoke({"visited": []}, cfg)
    before_c = next(s for s in graph.get_state_history(cfg) if s.next == ("c",))
    forked = graph.update_state(before_c.config, {"visited": ["edited"]})
    forked = graph.update_state(forked, {"visited": ["as-a"]}, as_node="a")
    graph.invoke(None, forked)
    graph.bulk_update_state(
        cfg,
        [
            [StateUpdate({"visited": ["as-b"]}, "b")],
            [StateUpdate({"visited": ["as-c"]}, "c"), StateUpdate({"visited": ["as-d"]}, "d")],
        ],
    )
    functional_parallel(saver).invoke({"n": 4}, {"configurable": {"thread_id": "func"}})
    nested().compile(checkpointer=saver).invoke(
        {"trail": []}, {"configurable": {"thread_id": "nested"}}
    )
    conn.close()
    yield path


def graphs(saver: SqliteSaver) -> dict[str, Any]:
    return {
        "upd": linear().compile(checkpointer=saver),
        "func": functional_parallel(saver),
        "nested": nested().compile(checkpointer=saver),
    }


def test_next_equals_get_state_on_every_checkpoint(db: Path, tmp_path: Path) -> None:
    conn = sqlite3.connect(private_copy(db, tmp_path / "lg.db"), check_same_thread=False)
    by_thread = graphs(SqliteSaver(conn))
    source = open_source(db)
    compared = 0
    namespaces = set()
    mismatches = []
    for tid, graph in by_thread.items():
        thread = load_thread(source, tid)
        for ns in thread.namespaces.values():
            namespaces.add(ns.name.count("|"))
            for cp in ns.checkpoints:
                config = {
                    "configurable": {
                        "thread_id": tid,
                        "checkpoint_ns": ns.name,
                        "checkpoint_id": cp.checkpoint_id,
                    }
                }
                want = sorted(
                    (t.name, t.id, expected_status(t)) for t in graph.get_state(config).tasks
                )
                got = sorted(
                    (t.node, t.task_id, t.status) for t in cp.tasks
                )  # every task, derived or not
                compared += 1
                if want != got:
                    mismatches.append(
                        f"{tid} ns={ns.name!r} step={cp.step} {cp.source}: {want} != {got}"
                    )
    source.close()
    conn.close()
    assert not mismatches, "\n".join(mismatches)
    assert compared >= 20 and namespaces == {0, 1}, (
        compared,
        namespaces,
    )  # root, mid and mid|inner


def test_updates_are_state_updates_applied_as_their_node(db: Path) -> None:
    source = open_source(db)
    thread = load_thread(source, "upd")
    source.close()
    updates = [u for cp in thread.root.checkpoints for u in cp.updates]
    assert {u.as_node for u in updates} == UPDATES_AS
    assert all(u.label == f"state update applied as {u.as_node}" for u in updates)
    phantom = {u.task_id for u in updates} - {
        t.task_id for cp in thread.root.checkpoints for t in cp.tasks
    }
    assert phantom, "the updates with generated ids must not be tasks of any checkpoint"


def test_functional_calls_hang_under_the_entrypoint(db: Path) -> None:
    source = open_source(db)
    thread = load_thread(source, "func")
    source.close()
    first = thread.root.checkpoints[0]
    assert [t.node for t in first.tasks] == ["batch"]
    assert [c.call_index for c in first.tasks[0].calls] == [0, 1, 2, 3, 4]
    assert all(c.status == "finished" and c.reused_on_resume for c in first.tasks[0].calls)


def cli_json(*args: str) -> Any:
    proc = subprocess.run(
        [sys.executable, "-m", "replaylens.cli", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def strings(doc: Any) -> Iterator[str]:
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for v in doc.values():
            yield from strings(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from strings(v)


def test_no_question_mark_names_in_the_cli(db: Path) -> None:
    for tid in ("upd", "func", "nested"):
        doc = cli_json("thread", str(db), "--thread", tid)
        assert "?" not in set(strings(doc)), tid
        for cp in doc["checkpoints"]:
            for task in cp["next"]:
                assert task["label"] and "?" not in task["label"]
            for w in cp["writes"]:
                assert "?" not in w["writer"]
    upd = cli_json("thread", str(db), "--thread", "upd")
    assert {u["as_node"] for cp in upd["checkpoints"] for u in cp["updates"]} == UPDATES_AS


def test_the_chain_caption_names_the_edits_in_line(tmp_path: Path) -> None:
    """A pause before a node, then ``update_state`` on the latest checkpoint: the history does
    not fork, and the sentence under the checkpoint table says the edit is in line (not
    "no update_state"); a thread without edits says neither."""
    from replaylens.dashboard.views import chain_caption

    path = tmp_path / "edit.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    graph = linear().compile(checkpointer=SqliteSaver(conn), interrupt_before=["c"])
    cfg = {"configurable": {"thread_id": "edit"}}
    graph.invoke({"visited": []}, cfg)
    graph.update_state(cfg, {"visited": ["edited"]})
    graph.invoke({"visited": []}, {"configurable": {"thread_id": "plain"}})
    conn.close()
    source = open_source(path)  # read-only
    try:
        edited = load_thread(source, "edit").root
        plain = load_thread(source, "plain").root
    finally:
        source.close()
    assert edited is not None and plain is not None and not edited.forks
    edit_steps = [c.step for c in edited.checkpoints if c.source == "update"]
    assert len(edit_steps) == 1
    assert f"1 of them written by update_state (step {edit_steps[0]})" in chain_caption(edited)
    assert "update_state (step" not in chain_caption(plain)
