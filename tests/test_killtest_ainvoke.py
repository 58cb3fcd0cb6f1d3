"""`--api ainvoke`: the kill test runs a graph on LangGraph's async loop and async saver.

A graph whose nodes are ``async def`` runs only under ``ainvoke`` (``invoke`` refuses it), so a
campaign that kills one mid-node and resumes it proves the child took the async path end to
end: AsyncSqliteSaver wrote the checkpoints the snapshot holds, and the resume re-ran exactly
what LangGraph's async loop had not saved.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from killtest_runs import jsonl

from replaylens.killtest.campaign import run_campaign
from replaylens.killtest.manifest import load_manifest

pytestmark = pytest.mark.slow  # real graphs killed in child processes

ASYNC_GRAPH = """
import asyncio
import operator
from typing import Annotated, TypedDict
from replaylens import record_effect
from replaylens.examples.graphs import chain


class State(TypedDict, total=False):
    visited: Annotated[list[str], operator.add]


def _visit(name):
    async def node(state):
        with record_effect(name):
            await asyncio.sleep(0.3)
        return {"visited": [name]}
    return name, node


def build():
    return chain(State, *map(_visit, ("a", "b", "c")))
"""


def _campaign(tmp_path: Path, api: str) -> Path:
    out = tmp_path / api
    run_campaign("async_nodes:build", out, input_value={"visited": []}, modes=["sync", "exit"],
                 kill_at=["b"], kill_delay=0.15, runs=1, put_latencies=[0.0], api=api)  # fmt: skip
    return out


def _starts(effects_log: str | None) -> Counter[str]:
    """How many times each node's effect started, from the run's whole effects log."""
    assert effects_log is not None
    return Counter(line["node"] for line in jsonl(Path(effects_log)) if line["phase"] == "start")


def test_async_nodes_killed_and_resumed_on_the_async_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "async_nodes.py").write_text(ASYNC_GRAPH, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the child imports the module as the user's shell would
    manifest = load_manifest(_campaign(tmp_path, "ainvoke"))
    assert manifest.api == "ainvoke"
    runs = {r.mode: r for r in manifest.runs}
    assert all(r.killed and not r.run_error for r in runs.values())
    # sync: a's checkpoint landed before b started, so only b runs again.
    assert _starts(runs["sync"].effects) == {"a": 1, "b": 2, "c": 1}
    # exit: nothing was saved before the kill, so the resume (no input) finds nothing to run.
    assert _starts(runs["exit"].effects) == {"a": 1, "b": 1}
    assert runs["exit"].checkpoints_at_kill == 0
    with sqlite3.connect(str(runs["sync"].db_at_kill)) as db:  # the input, START's and a's
        assert db.execute("select count(*) from checkpoints").fetchone()[0] == 3


def test_invoke_refuses_async_nodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: the same graph under the default api never reaches a kill."""
    (tmp_path / "async_nodes.py").write_text(ASYNC_GRAPH, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    manifest = load_manifest(_campaign(tmp_path, "invoke"))
    assert manifest.api == "invoke"
    assert all(not r.killed for r in manifest.runs)
