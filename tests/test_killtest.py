"""End to end: `replaylens killtest` really kills, snapshots, resumes and counts correctly.

The manifest's numbers are recounted here straight from the effects log files and the
SQLite snapshots, so a test passes only if what the command reports is what the files
hold. One tiny campaign (linear graph, sync and exit, one run each) keeps it under a
minute; the error cases check the one-sentence, exit-2 contract.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from killtest_runs import jsonl, run_killtest

from replaylens.killtest.manifest import ManifestError, read_manifest
from replaylens.killtest.summary import summarize

pytestmark = pytest.mark.slow  # real graphs killed in child processes

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def campaign(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("killtest") / "campaign"
    proc = run_killtest(
        "replaylens.examples.graphs:linear",
        "--out",
        str(out),
        "--modes",
        "sync,exit",
        "--kill-at",
        "c",
        "--runs",
        "1",
        "--sleep",
        "0.2",
        "--input",
        '{"visited": []}',
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_manifest_matches_the_files(
    campaign: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, _ = campaign
    raw = json.loads((out / "manifest.json").read_text())
    assert raw["graph"] == "replaylens.examples.graphs:linear"
    assert raw["langgraph"] and raw["langgraph_checkpoint_sqlite"] and raw["python"]
    assert [r["mode"] for r in raw["runs"]] == ["sync", "exit"]
    for run in raw["runs"]:
        for key in ("db_at_kill", "db_after_resume", "effects", "effects_at_kill"):
            assert not Path(run[key]).is_absolute()
        assert run["killed"] is True
        at_kill = jsonl(out / run["effects_at_kill"])
        after = jsonl(out / run["effects"])
        assert run["effect_lines_at_kill"] == len(at_kill)
        assert run["effect_lines_after_resume"] == len(after)
        assert after[: len(at_kill)] == at_kill  # the log only grows
        started = [(e["node"], e.get("step")) for e in at_kill if e["phase"] == "start"]
        repeated = sum(
            1
            for e in after[len(at_kill) :]
            if e["phase"] == "start" and (e["node"], e.get("step")) in started
        )
        if "EmptyInputError" in (run["resume"]["error"] or ""):
            repeated = len(started)  # no checkpoint: the restart begins every effect again
        assert run["lines_repeated"] == repeated
        # killed in c: c started and did not end
        assert [e["node"] for e in at_kill if e["phase"] == "start"] == ["a", "b", "c"]
        assert not any(e["node"] == "c" and e["phase"] == "end" for e in at_kill)
        for key in ("db_at_kill", "db_after_resume"):
            assert (out / run[key]).read_bytes()[:16] == b"SQLite format 3\x00"

    sync, exit_ = raw["runs"]
    assert sync["checkpoints_at_kill"] > 0
    assert sync["resume"]["ok"] is True and sync["lines_repeated"] == 1  # c started again
    assert exit_["checkpoints_at_kill"] == 0
    assert exit_["resume"]["ok"] is False
    assert exit_["resume"]["error"].startswith("EmptyInputError")
    assert exit_["effect_lines_after_resume"] == exit_["effect_lines_at_kill"]


def test_snapshot_holds_the_checkpoints_it_reports(
    campaign: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, _ = campaign
    sync = json.loads((out / "manifest.json").read_text())["runs"][0]
    snapshot = out / sync["db_at_kill"]
    # Count on a copy: opening the snapshot itself would checkpoint its WAL away.
    copy = snapshot.with_name("count-copy.db")
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{snapshot}{suffix}")
        if src.exists():
            Path(f"{copy}{suffix}").write_bytes(src.read_bytes())
    with sqlite3.connect(copy) as conn:
        (n,) = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = ?", (sync["thread_id"],)
        ).fetchone()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
    assert n == sync["checkpoints_at_kill"]


def test_summary_printed_and_reusable(
    campaign: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, proc = campaign
    assert "[1/2] sync 0s run 1: killed in c" in proc.stderr
    assert (
        "[2/2] exit 0s run 1: killed in c +0.100s, 0 checkpoints, resume failed (EmptyInputError"
        in proc.stderr
    )
    header = next(line for line in proc.stdout.splitlines() if line.startswith("backend"))
    assert "checkpoints" in header and "repeated" in header and "kill delay" in header
    assert any(
        line.split()[:2] == ["sqlite", "exit"] and "EmptyInputError" in line
        for line in proc.stdout.splitlines()
    )
    manifest = read_manifest(out)
    assert Path(manifest["runs"][0]["db_at_kill"]).is_absolute()
    rows = summarize(manifest)
    assert [(r["mode"], r["runs"]) for r in rows] == [("sync", 1), ("exit", 1)]
    assert rows[1]["checkpoints_at_kill_max"] == 0 and rows[0]["lines_repeated_min"] == 1


def test_read_manifest_refuses_a_missing_or_bad_manifest(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="does not exist"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(ManifestError, match="not readable JSON"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text('{"graph": "x:y", "runs": [{"mode": "sync"}]}')
    with pytest.raises(ManifestError, match="Run 1 .* lacks"):
        read_manifest(tmp_path)


@pytest.mark.parametrize(
    ("graph", "kill_at", "expected"),
    [
        ("no_such_module.graphs:linear", "c", "Cannot import module 'no_such_module.graphs'"),
        ("replaylens.examples.graphs:no_such_graph", "c", "has no attribute 'no_such_graph'"),
    ],
)
def test_errors_are_one_sentence_and_exit_2(
    tmp_path: Path, graph: str, kill_at: str, expected: str
) -> None:
    proc = run_killtest(graph, "--out", str(tmp_path / "out"), "--kill-at", kill_at, cwd=REPO)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out" / "runs").exists()


def test_a_kill_point_no_run_reaches_stops_the_campaign_after_one_run(tmp_path: Path) -> None:
    """A name the graph does not list may be a node of a graph invoked inside a node's body,
    so the campaign starts; its first run aimed there tells a typo, in one sentence."""
    out = tmp_path / "out"
    proc = run_killtest("replaylens.examples.graphs:linear", "--out", str(out), "--kill-at", "zz",
                        "--modes", "sync", "--runs", "2", "--sleep", "0.05", cwd=REPO)  # fmt: skip
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "lists no node 'zz'" in lines[0], proc.stderr
    assert "check the name" in lines[0] and "Traceback" not in proc.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["runs"]) == 1 and "lists no node 'zz'" in manifest["error"]


def test_a_kill_point_a_raising_run_never_reached_names_the_error(tmp_path: Path) -> None:
    """A first run that raised before the kill point tells nothing about the name: the
    sentence gives the error, not "check the name" (0.2.76 could not build a shape's inner
    graph, a `NameError`, and the campaign blamed the kill point)."""
    out = tmp_path / "out"
    proc = run_killtest("replaylens.examples.graphs:linear", "--out", str(out), "--kill-at", "zz",
                        "--modes", "sync", "--runs", "2", "--sleep", "0.05",
                        "--input", '{"visited": 5}', cwd=REPO)  # fmt: skip
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "lists no node 'zz'" in line and "raised before reaching it: TypeError" in line, line
    assert "check the name" not in line and "Traceback" not in proc.stderr


def test_a_node_of_a_graph_invoked_inside_a_node_is_a_kill_point(tmp_path: Path) -> None:
    """test_parent_command_from_nested_subgraph: `node` belongs to two graphs that
    parent_first invokes in its body; the compiled parent does not list it, its second start
    (child_1's) is where the kill lands."""
    out = tmp_path / "out"
    graph = "replaylens.examples.langgraph_tests:parent_command_nested"
    proc = run_killtest(graph, "--out", str(out), "--kill-at", "node:2", "--modes", "sync",
                        "--runs", "1", "--sleep", "0.2", "--input", '{"jump_from_idx": 2}',
                        cwd=REPO)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (run,) = json.loads((out / "manifest.json").read_text())["runs"]
    assert run["killed"] and run["kill_at"] == "node:2" and run["resume"]["ok"], run


def test_older_manifests_read_through_the_model() -> None:
    """The bundled samples predate backends and per-run kill points: they read as SQLite runs
    that all share the campaign's kill point, and the model writes back what it read."""
    from replaylens.killtest.manifest import Manifest, load_manifest

    raw = json.loads((REPO / "sample_dbs" / "fanout" / "manifest.json").read_text())
    manifest = load_manifest(REPO / "sample_dbs" / "fanout")
    assert manifest.backend == "sqlite" and len(manifest.runs) == len(raw["runs"])
    assert {(r.backend, r.kill_at, r.kill_delay, r.effects_source) for r in manifest.runs} == {
        ("sqlite", raw["kill_at"], raw["kill_delay"], "recorder")
    }
    assert [r.lines_repeated for r in manifest.runs] == [r["lines_repeated"] for r in raw["runs"]]
    assert Manifest.from_dict(manifest.to_dict()) == manifest


def test_the_durability_mode_reaches_langgraph_by_the_parameter_its_release_has() -> None:
    """LangGraph 0.6 and later take ``durability=``; 0.3.27 to 0.5 took ``checkpoint_during``
    (async or exit), earlier releases nothing (`_child.durability_kwargs`). With today's release
    installed every mode is passed as itself; the campaigns recorded with 0.4.10 in
    `tests/whatif_kills/` ran only the two modes it has, both killed."""
    from replaylens.killtest._child import durability_kwargs, installed_modes

    assert installed_modes() == ("sync", "async", "exit")
    for mode in installed_modes():
        assert durability_kwargs({"durability": mode}) == {"durability": mode}
    with pytest.raises(ValueError, match="cannot run under durability 'eventually': it runs sync"):
        durability_kwargs({"durability": "eventually"})
    root = Path(__file__).parent / "whatif_kills"
    old = sorted(root.glob("*-lg0.4.10"))
    assert old
    for folder in old:
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["langgraph"] == "0.4.10"
        assert manifest["modes"] == ["async", "exit"]
        assert {r["mode"] for r in manifest["runs"] if r["killed"]} == {"async", "exit"}


def test_a_pause_is_read_from_the_tasks_where_the_state_names_no_interrupts(
    tmp_path: Path,
) -> None:
    """LangGraph 0.2's ``StateSnapshot`` has no ``interrupts`` field and its output names no
    ``__interrupt__``: the runner read every pause as a finished graph and never sent the
    resume (`dynamic_interrupt` on 0.2.76: "the graph finished before the kill point"). The
    pending interrupts are those of the state's tasks there (`_child._pending`), and several
    without ids take one answer (`_child._resume_command`)."""
    from types import SimpleNamespace

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command, interrupt
    from typing_extensions import TypedDict

    from replaylens.killtest._child import _outcome, _pending, _resume_command

    class State(TypedDict, total=False):
        answer: str

    def ask(state: State) -> State:
        return {"answer": interrupt("which one?")}

    graph = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({}, config)
    state = app.get_state(config)
    assert state.interrupts
    as_in_0_2 = SimpleNamespace(tasks=state.tasks)  # a 0.2 snapshot: tasks, no `interrupts`
    assert _pending(as_in_0_2) == _pending(state) == tuple(state.interrupts)
    assert _outcome({"answer": None}, lambda: _pending(as_in_0_2))["interrupted"] is True
    assert _outcome({"answer": "x"}, lambda: ())["interrupted"] is False
    spec = {"resume_value": "a"}
    without_ids = (SimpleNamespace(value="q1"), SimpleNamespace(value="q2"))
    assert _resume_command(spec, without_ids) == Command(resume="a")
    two = (state.interrupts[0], state.interrupts[0].__class__(value="q2", id="other"))
    assert _resume_command(spec, two) == Command(resume={state.interrupts[0].id: "a"})


@pytest.mark.parametrize(
    ("graph", "durability", "due"),
    [
        # an ``async def`` node, on the event loop: under exit LangGraph still saved on the
        # way out, with ``agent`` due where the cancel stopped it
        ("cancelled_invocation_resumed", "exit", "agent"),
        # a plain node, on the worker thread ``ainvoke`` runs it on, where no event loop runs
        # (test_cancel_ainvoke_with_sync_node): the thread runs on, its writes never put
        ("cancelled_sync_node", "sync", "first"),
    ],
)
def test_a_node_can_cancel_its_invocation_as_a_callers_timeout_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, graph: str, durability: str, due: str
) -> None:
    """`cancel_invocation` from inside a node cancels the child's ``ainvoke`` the way
    ``asyncio.wait_for`` timing out would (test_checkpoint_put_after_cancellation): the child
    reports an invocation that ended by ``CancelledError``, never a crash, and the thread's
    latest checkpoint has the cancelled node due, with no write of it."""
    import contextlib

    from replaylens.analysis.status import load_thread
    from replaylens.examples.graphs import ENV_SLEEP
    from replaylens.killtest._child import run
    from replaylens.sources import open_source

    monkeypatch.setenv(ENV_SLEEP, "0.05")
    db = tmp_path / "cancelled.sqlite"
    spec = {
        "api": "ainvoke",
        "graph": f"replaylens.examples.langgraph_tests:{graph}",
        "db": str(db),
        "thread_id": "t1",
        "input": {"visited": []},
        "durability": durability,
    }
    result = run(spec)
    assert result["ok"] is False and result["error"].startswith("CancelledError"), result
    with contextlib.closing(open_source(str(db))) as source:
        latest = load_thread(source, "t1").root.latest
    assert latest is not None and [t.node for t in latest.tasks] == [due]
    assert not latest.tasks[0].writes


def test_a_child_that_dies_before_saving_anything_is_named_with_its_error(tmp_path: Path) -> None:
    """A child that fails before its saver wrote anything (LangGraph 0.5.4 with
    langgraph-checkpoint-sqlite 2.0.11 under `ainvoke`: its `AsyncSqliteSaver` asks aiosqlite
    0.22's connection for `is_alive`, and every run died so) left an empty database, and the
    campaign said only that the snapshot "is empty (0 bytes), not a checkpoint database". The
    sentence now names the run and the child's own error. Here the graph's module cannot be
    imported in the child (it is in the campaign's own process, which lists the nodes). A
    module that raises as the campaign itself imports it is one sentence too."""
    (tmp_path / "child_fails.py").write_text(
        "import sys\n"
        "from replaylens.examples.graphs import linear\n"
        "if getattr(sys.modules['__main__'].__spec__, 'name', '') == 'replaylens.killtest._child':\n"
        "    raise RuntimeError('this graph cannot be built in the kill test child')\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    proc = run_killtest("child_fails:linear", "--out", str(out), "--kill-at", "c", "--modes",
                        "sync", "--runs", "1", "--sleep", "0.05", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "run sync-" in line and "before the kill point and saved nothing" in line, line
    assert "RuntimeError: this graph cannot be built in the kill test child" in line, line
    assert "Traceback" not in proc.stderr
    (tmp_path / "never_imports.py").write_text("raise RuntimeError('no graph here')\n")
    proc = run_killtest("never_imports:graph", "--out", str(tmp_path / "o2"), "--kill-at", "c",
                        cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "Importing module 'never_imports'" in line and "RuntimeError: no graph here" in line
