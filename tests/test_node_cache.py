"""A node cache that outlives the process: which nodes it serves on a resume, read from real
compiled graphs (`node_cache.cached_nodes`), and the kill-test child that reports them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.cache.memory import InMemoryCache
from langgraph.cache.sqlite import SqliteCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import CachePolicy
from whatif_kills import every_prediction_holds, figures, load, plan, real

from replaylens.analysis.node_cache import CACHE_UNSURE, SERVED, cached_nodes
from replaylens.cli import main
from replaylens.examples.langgraph_tests import _waiting_edge_loop


def test_a_persistent_cache_serves_the_nodes_with_a_policy(tmp_path: Path) -> None:
    cache = SqliteCache(path=str(tmp_path / "cache.sqlite"))
    graph = _waiting_edge_loop(CachePolicy()).compile(checkpointer=InMemorySaver(), cache=cache)
    assert cached_nodes(graph) == ["rewrite_query"]


def test_an_in_memory_cache_dies_with_the_process() -> None:
    graph = _waiting_edge_loop(CachePolicy()).compile(
        checkpointer=InMemorySaver(), cache=InMemoryCache()
    )
    assert cached_nodes(graph) == []


def test_a_policy_with_a_ttl_may_have_expired_by_the_resume(tmp_path: Path) -> None:
    cache = SqliteCache(path=str(tmp_path / "cache.sqlite"))
    graph = _waiting_edge_loop(CachePolicy(ttl=60)).compile(
        checkpointer=InMemorySaver(), cache=cache
    )
    assert cached_nodes(graph) == []


def test_no_cache_no_policy_and_what_is_no_graph() -> None:
    assert cached_nodes(_waiting_edge_loop(CachePolicy()).compile()) == []
    assert cached_nodes(_waiting_edge_loop(None).compile()) == []
    assert cached_nodes(object()) == []


def test_the_kill_test_child_reports_the_cached_nodes_before_it_runs(tmp_path: Path) -> None:
    """The child that runs a kill test's graph says which nodes its cache serves before the
    first node starts, so that a run killed at once still names them in its manifest."""
    spec = {
        "graph": "replaylens.examples.langgraph_tests:cached_waiting_edge_loop",
        "db": str(tmp_path / "checkpoints.db"),
        "thread_id": "t",
        "durability": "sync",
        "input": {"visited": []},
    }
    done = subprocess.run(
        [sys.executable, "-m", "replaylens.killtest._child", json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    lines = done.stdout.splitlines()
    said = [line for line in lines if line.startswith("CACHED_NODES ")]
    assert said == ['CACHED_NODES ["rewrite_query"]'], done.stderr[-2000:]
    first_start = next(i for i, line in enumerate(lines) if line.startswith("NODE_START "))
    assert lines.index(said[0]) < first_start


# --- recorded kill tests: the resume took the node from the cache -----------------------
CACHED = "cached_waiting_edge_loop"


def _rewrite_query(plan: Any) -> list[Any]:
    return [a for a in plan.attempts if a.node == "rewrite_query"]


def test_a_kill_tests_manifest_names_the_cached_node_and_the_resume_takes_it_from_there(
    tmp_path: Path,
) -> None:
    """cached_waiting_edge_loop at 0.5 s, killed in ``retriever_two``: under async the
    checkpoint after ``rewrite_query``'s step never landed and the resume loads the input
    checkpoint, whose ``__start__`` hands the same input on; the real resume took
    ``rewrite_query`` from the SqliteCache and its lines did not happen again. Each run's
    manifest names the node, as the child that ran the graph read it."""
    runs = load(f"{CACHED}-early-0.5s", tmp_path)
    assert {m: r.get("cached_nodes") for m, r in runs.items()} == {
        m: ["rewrite_query"] for m in ("sync", "async", "exit")
    }
    told = plan(runs["async"], "recorder")
    assert [(a.verdict, a.reason) for a in _rewrite_query(told)] == [("kept", SERVED)]
    assert figures(told.what_if["async"]) == real(runs["async"])
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def test_without_the_graph_code_the_cached_node_reads_as_running_again(tmp_path: Path) -> None:
    """The database never shows a cache: without the manifest's list (or `--graph`) the same
    task reads as running again, the cautious side."""
    runs = load(f"{CACHED}-early-0.5s", tmp_path)
    bare_entry = {k: v for k, v in runs["async"].items() if k != "cached_nodes"}
    told = plan(bare_entry, "recorder")
    assert [a.verdict for a in _rewrite_query(told)] == ["replays"]


def test_a_cached_node_in_a_later_step_of_the_resume_is_a_stated_guess(tmp_path: Path) -> None:
    """Killed in ``qa`` under async: the resume runs steps before the second round's
    ``rewrite_query``, whose outputs decide its input, so whether the cache serves it is a
    guess (at 0.55 s the resume's join fired a step early and it ran again; at 0.9 s it was
    served). Said so, read as running again, and the what-if's range reaches down to it
    served."""
    runs = load(f"{CACHED}-late-0.5s", tmp_path)
    told = plan(runs["async"], "recorder")
    second = [a for a in _rewrite_query(told) if a.verdict == "replays"]
    assert second and all(a.may_be_cached and CACHE_UNSURE in a.ambiguity for a in second)
    every_prediction_holds(runs, ("recorder", "langgraph", "bare", "trace"), same_progress=True)


def _alone(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """The async run killed in ``retriever_two`` and a folder holding its database at the
    kill alone, away from the manifest that names its cached nodes."""
    entry = load(f"{CACHED}-early-0.5s", tmp_path)["async"]
    alone = tmp_path / "alone"
    alone.mkdir()
    for suffix in ("", "-wal", "-shm"):
        found = Path(entry["db_at_kill"] + suffix)
        if found.exists():
            shutil.copy(found, alone / ("at-kill.db" + suffix))
    return entry, alone


def test_replay_with_the_graph_code_takes_the_cached_node_from_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`replay --graph` asks the graph code which nodes its cache serves: the database alone
    (copied away from its manifest) says the node runs again; with the graph, served."""
    entry, alone = _alone(tmp_path)
    args = ["replay", str(alone / "at-kill.db"), "--thread", entry["thread_id"],
            "--effects", entry["effects_at_kill"], "--json"]  # fmt: skip
    assert main(args) == 0
    without = json.loads(capsys.readouterr().out)
    assert main([*args, "--graph", f"replaylens.examples.langgraph_tests:{CACHED}"]) == 0
    with_graph = json.loads(capsys.readouterr().out)
    assert with_graph["from_graph"]["cached_nodes"] == ["rewrite_query"]

    def verdicts(doc: dict[str, Any]) -> list[str]:
        return [a["verdict"] for a in doc["attempts"] if a["node"] == "rewrite_query"]

    assert verdicts(without) == ["replays"]
    assert verdicts(with_graph) == ["kept"]
    assert (
        main(
            [a for a in args if a != "--json"]
            + ["--graph", f"replaylens.examples.langgraph_tests:{CACHED}"]
        )
        == 0
    )
    said = capsys.readouterr().out
    assert "from the cache rewrite_query (its node cache serves it" in said
    assert "runs again     rewrite_query" not in said


@pytest.mark.usefixtures("fresh_streamlit")
def test_the_thread_page_with_graph_code_says_what_replay_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`serve --graph` asks the graph code for its cached nodes as `replay --graph` does: the
    Thread page's tasks, executions and log lines again are the CLI's, with the graph code
    and without it, and the served node is not in the page's sentence."""
    from app_pages import open_page, texts

    entry, alone = _alone(tmp_path)
    log = alone / "effects.jsonl"
    shutil.copy(entry["effects_at_kill"], log)
    db, tid = str(alone / "at-kill.db"), entry["thread_id"]
    graph = ["--graph", f"replaylens.examples.langgraph_tests:{CACHED}"]

    def cli(extra: list[str]) -> tuple[int, int, int]:
        assert main(["replay", db, "--thread", tid, "--effects", str(log), "--json", *extra]) == 0
        again = json.loads(capsys.readouterr().out)["what_happens_again"]
        return again["tasks_again"], again["executions_again"], again["log_line_count"]

    def page(extra: list[str]) -> str:
        monkeypatch.setenv(
            "REPLAYLENS_SERVE_ARGS", json.dumps([str(alone), "--effects", str(log), *extra])
        )
        return texts(open_page("thread", timeout=120, db=db, thread=tid))

    for extra in ([], graph):
        shown = page(extra)
        tasks, executions, lines = cli(extra)
        for label, value in (("tasks again", tasks), ("executions again", executions),
                             ("log lines again", lines)):  # fmt: skip
            assert f"{label} {value}" in shown, (extra, label, value)
    assert cli([]) == (3, 3, 5)
    assert cli(graph) == (2, 2, 3)
    assert "`rewrite_query` again" not in page(graph)
