"""The validation corpus of graphs modelled on LangGraph's tests (`validate --corpus langgraph-tests`).

Fast checks run every shape in-process (it builds, its kill points are its nodes, it
writes its effects in the three log forms as LangGraph hands the values to a node);
the reduced matrix really SIGKILLs two shapes under every mode, on SQLite and on
Postgres, and holds the judgement to LangGraph's own count of the checkpoints left.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from replaylens.examples.langgraph_tests import CORPUS, LOG_FORMS, SHAPES, form_log
from replaylens.killtest import UPDATE_STATE
from replaylens.killtest.campaign import load_graph_nodes
from replaylens.killtest.corpus import (
    JUDGED_FORMS,
    CorpusPoint,
    CorpusResult,
    CorpusRow,
    failures,
    ok,
    report,
    run_corpus,
)
from replaylens.killtest.harness import scoped_environ


def test_corpus_has_the_shapes_the_issue_asks_for() -> None:
    """At least 15 shapes, each naming the LangGraph test it mirrors, each with an early and a
    late kill point at one of its own nodes (or of a graph one of its nodes invokes in its
    body, which the compiled graph cannot list: such a point's name is among the shape's
    logged node names, checked by the campaign's first run)."""
    assert len(CORPUS) >= 15
    needed = {"waiting_edge_join", "conditional_loop", "command_goto", "send_map_reduce_uneven",
              "nested_graph", "dynamic_interrupt", "checkpoint_recovery", "imp_tasks",
              "retry_policy", "defer_node", "long_chain"}  # fmt: skip
    assert needed <= set(SHAPES)
    for shape in CORPUS:
        doc = getattr(__import__(shape.graph.partition(":")[0], fromlist=["x"]), shape.name).__doc__
        assert shape.mirrors.split("::")[1] in doc, shape.name
        assert len(shape.kills) == 2
        nodes = load_graph_nodes(shape.graph)
        for node, _count, _units in shape.kills:
            assert nodes.can_kill_at(node) or (shape.name, node) in INVOKED_IN_A_BODY, (
                shape.name,
                node,
            )


INVOKED_IN_A_BODY = {("parent_command_nested", "node"), ("stateful_namespace_isolation", "echo"),
                     ("stateful_subgraph_interrupt", "process"),
                     ("stateful_subgraph_interrupt", "respond"), ("child_own_thread", "n"),
                     ("weather_subgraph", "weather_node"), ("subgraph_reenter_interrupt", "subnode_2"),
                     ("double_interrupt_subgraph", "node_2"), ("subgraphs_in_task_entrypoint", "add"),
                     ("subgraphs_in_task_entrypoint", "multiply"),
                     ("stateful_subgraph_interrupt_async", "process"),
                     ("stateful_subgraph_interrupt_async", "respond")}  # fmt: skip
"""Kill points in graphs a node invokes in its body (the compiled graph does not list them)."""


def _run_in_process(tmp_path: Path, name: str) -> list[list[dict]]:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from replaylens.killtest.harness import build_graph, load_target

    shape = SHAPES[name]
    log = tmp_path / f"{name}.effects.jsonl"
    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"):
        graph = build_graph(load_target(shape.graph), InMemorySaver())
        config = {"configurable": {"thread_id": name}}
        try:
            graph.invoke(shape.input, config)
        except RuntimeError:
            assert shape.then, name  # only the recovery shape raises on its first input
        for nxt in shape.then:
            edit = nxt.get(UPDATE_STATE) if isinstance(nxt, dict) else None
            if edit is not None:  # the kill-test child edits the state instead of invoking
                graph.update_state(config, edit["values"], as_node=edit["as_node"])
            else:
                graph.invoke(nxt, config)
        if shape.has_resume_value:
            graph.invoke(Command(resume=shape.resume_value), config)
    return [[json.loads(x) for x in form_log(log, f).read_text().splitlines()] for f in LOG_FORMS]


@pytest.mark.parametrize("name", ["nested_graph", "imp_tasks", "send_map_reduce_uneven"])
def test_three_log_forms_of_one_run(tmp_path: Path, name: str) -> None:
    """One line per phase in each form, with one time stamp; the langgraph form keeps
    LangGraph's namespace verbatim (the task's own `node:task_id` segment last), the bare
    form carries the five keys and nothing else."""
    recorder, langgraph, bare = _run_in_process(tmp_path, name)
    assert len(recorder) == len(langgraph) == len(bare) > 0
    for r, lg, b in zip(recorder, langgraph, bare, strict=True):
        assert r["ts"] == lg["ts"] == b["ts"] and r["phase"] == lg["phase"] == b["phase"]
        assert r["node"] == lg["node"] == b["node"]
        assert set(b) == {"thread_id", "node", "phase", "ts", "pid"}
        last = lg["checkpoint_ns"].split("|")[-1]
        assert last == f"{r['node']}:{r['task_id']}"
        parents = "|".join(lg["checkpoint_ns"].split("|")[:-1])
        assert parents == r["checkpoint_ns"]
        assert lg["step"] == r["step"] and isinstance(lg["langgraph_triggers"], list)
    if name == "nested_graph":
        assert any(lg["checkpoint_ns"].startswith("inner:") and "|inner_1:" in lg["checkpoint_ns"]
                   for lg in langgraph)  # fmt: skip


def _langgraph_checkpoint_count(db: str, thread_id: str, tmp_path: Path) -> int:
    """LangGraph's own answer: SqliteSaver.list over every namespace of a copy of the file."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    copy = tmp_path / f"copy-{Path(db).parent.name}.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(db + suffix).exists():
            shutil.copy2(db + suffix, str(copy) + suffix)
    conn = sqlite3.connect(copy, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        namespaces = {
            row[0]
            for row in conn.execute(
                "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ?", (thread_id,)
            )
        } if conn.execute("SELECT name FROM sqlite_master WHERE name='checkpoints'").fetchone() else set()  # fmt: skip
        return sum(
            len(list(saver.list({"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}})))
            for ns in namespaces
        )
    finally:
        conn.close()


def _bare_claims_match_the_recorder(result: CorpusResult) -> int:
    """A bare log claims an orphan write for every finished attempt whose writes the recorder's
    task ids show orphaned; a claim by name is the task id the recorder logged for the same
    line (same ts); claims among parallel workers of one step are flagged as a choice."""
    from replaylens.effects.parse import read_effects
    from replaylens.killtest.validate import plan_for

    claimed = 0
    for folder in result.folders.values():
        manifest = json.loads((Path(folder) / "manifest.json").read_text())
        for run in manifest["runs"]:
            at_kill = Path(folder) / run["effects_at_kill"]
            truth = {repr(x.ts): x for x in read_effects(at_kill).for_thread(run["thread_id"])}
            entry = {**run, "db_at_kill": str(Path(folder) / run["db_at_kill"])}
            orphaned = sum(1 for a in plan_for(entry, str(at_kill)).attempts
                           if a.alignment == "orphaned" and a.outcome == "finished")  # fmt: skip
            mine = [a for a in plan_for(entry, str(form_log(at_kill, "bare"))).attempts
                    if a.task_id_inferred]  # fmt: skip
            assert len(mine) == orphaned, (run["thread_id"], len(mine), orphaned)
            for a in mine:  # parallel workers' claims are interchangeable, and say so
                if not a.ambiguous:
                    assert a.task_id == truth[repr(a.lines[0].ts)].task_id, (
                        run["thread_id"],
                        a.node,
                    )
            claimed += len(mine)
    return claimed


def _judge_reduced(tmp_path: Path, shape: str, kill: int, backend: str) -> None:
    result = run_corpus(
        [CorpusPoint(SHAPES[shape], kill)], (0.25,), 1, tmp_path / "corpus", backend=backend
    )  # fmt: skip
    text = report(result)
    assert result.kills == 3, text
    for folder in result.folders.values():
        manifest = json.loads((Path(folder) / "manifest.json").read_text())
        for run in manifest["runs"]:
            logs = [form_log(Path(folder) / run["effects_at_kill"], f) for f in LOG_FORMS]
            sizes = {len(p.read_text().splitlines()) for p in logs}
            assert len(sizes) == 1, (run["thread_id"], sizes)
            ours = run["checkpoints_at_kill"]
            db = str(Path(folder) / run["db_at_kill"])
            assert ours == _langgraph_checkpoint_count(db, run["thread_id"], tmp_path), run
    _bare_claims_match_the_recorder(result)
    # The recorder's own log with the mode told: every cross-mode prediction inside.
    told = [f for f in failures(result) if " | recorder | given | " in f]
    assert not told, text
    # Every verdict at the recorded mode, full and bare logs and the trace alike.
    wrong = [w for c in result.verdicts for w in c.wrong]
    assert not wrong, text
    assert {c.form for c in result.verdicts} == set(JUDGED_FORMS)
    assert "span lines with traces" in text
    # The what-if at the recorded mode, which heads every view: the run's own figures.
    assert not [c.figures for c in result.verdicts if c.figures], text
    assert "measured figures (checkpoints kept, tasks re-run, lines again): 6 of 6" in text
    # The inferred reading at home: each run's own mode, predicted without the manifest.
    own = re.search(r"recorded under: (\d+)/(\d+) inside\.", text)
    assert own is not None and int(own.group(2)) >= 9, text


@pytest.mark.slow
def test_reduced_corpus_interrupt_then_crash_sqlite(tmp_path: Path) -> None:
    """Interrupt, Command(resume=...), then the kill in the answered invocation, under
    every mode (3 real SIGKILLs on SQLite)."""
    _judge_reduced(tmp_path, "dynamic_interrupt", 1, "sqlite")


@pytest.mark.slow
def test_reduced_corpus_send_workers_postgres(tmp_path: Path) -> None:
    """Send workers of unequal duration, killed while the slowest runs, under every mode,
    checkpointing to a throw-away Postgres server (3 real SIGKILLs)."""
    _judge_reduced(tmp_path, "send_map_reduce_uneven", 0, "postgres")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--corpus", "nope"], "unknown corpus 'nope'"),
        (["--corpus", "langgraph-tests", "--graphs", "nope"], "no corpus shape nope"),
        (["--corpus", "langgraph-tests", "--judge-only"], "give --out"),
    ],
)
def test_validate_corpus_refuses_bad_options_in_one_sentence(args: list[str], words: str) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "replaylens.cli", "validate", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert words in proc.stderr and "Traceback" not in proc.stderr


def test_the_send_workers_of_cond_edge_after_send_run_to_the_end() -> None:
    """A shape's module-level constants are its own: send_dedupe_on_resume once rebound
    `_SEND_UNITS`, and every worker of cond_edge_after_send raised `KeyError` from then on,
    so campaigns of it judged a graph that failed, not the one LangGraph's test describes."""
    from langgraph.checkpoint.memory import InMemorySaver

    from replaylens.examples.langgraph_tests import SHAPES, cond_edge_after_send

    graph = cond_edge_after_send().compile(checkpointer=InMemorySaver())
    out = graph.invoke(SHAPES["cond_edge_after_send"].input, {"configurable": {"thread_id": "t"}})
    assert out["visited"] == ["one", "two", "two", "three"]


def test_a_shapes_retry_policy_reaches_a_release_by_the_keyword_it_takes() -> None:
    """``add_node`` took a retry policy as ``retry`` before LangGraph 0.4 and as
    ``retry_policy`` since: with the new keyword only, retry_policy's shape could not be built
    on 0.2.76 ("unexpected keyword argument 'retry_policy'"), and every retry shape was left
    out of a kill test on that release. Today's builder takes it as itself; one of 0.3's
    layout gets it as ``retry``."""
    from langgraph.graph import StateGraph
    from langgraph.types import RetryPolicy
    from typing_extensions import TypedDict

    from replaylens.examples.langgraph_tests import _add_node

    class State(TypedDict):
        value: int

    policy = RetryPolicy(max_attempts=2)
    today = StateGraph(State)
    _add_node(today, "node", lambda s: s, retry_policy=policy)
    assert today.nodes["node"].retry_policy == policy

    class BuilderOf03:  # only the signature of LangGraph 0.3's StateGraph.add_node
        def __init__(self) -> None:
            self.calls: list[tuple[str, Any]] = []

        def add_node(self, node: str, action: Any, *, retry: Any = None) -> None:
            self.calls.append((node, retry))

    old = BuilderOf03()
    _add_node(old, "node", lambda s: s, retry_policy=policy)  # type: ignore[arg-type]
    assert old.calls == [("node", policy)]


def test_judge_only_judges_campaigns_at_the_latency_they_were_recorded_at(tmp_path: Path) -> None:
    """`--judge-only` used to judge only the default latencies (0 and 0.25 s) unless told
    otherwise: a folder recorded at 0.65 s printed "no killed run to judge" and nothing said
    why. It now judges the latencies the kept manifests name, and where `--latency` chooses
    none of them it says which there are."""
    import subprocess
    import sys

    name = "max_concurrency_sends-early-0.65s"
    shutil.copytree(Path(__file__).parent / "whatif_kills" / name, tmp_path / name)
    base = [sys.executable, "-m", "replaylens.cli", "validate", "--corpus", "langgraph-tests",
            "--graphs", "max_concurrency_sends", "--judge-only", "--out", str(tmp_path)]  # fmt: skip
    judged = subprocess.run(base, capture_output=True, text=True, timeout=300)
    assert judged.returncode == 0, judged.stderr[-2000:]
    assert "Corpus langgraph-tests on sqlite: 3 kills" in judged.stdout, judged.stdout[:2000]
    other = subprocess.run(
        [*base, "--latency", "0.25"], capture_output=True, text=True, timeout=300
    )
    assert other.returncode == 1
    assert "recorded at 0.65 s; --latency chose none of them" in other.stderr, other.stderr
    assert "Traceback" not in other.stderr


def test_kill_shift_aims_every_kill_later_or_earlier_and_judges_its_own_folders(
    tmp_path: Path,
) -> None:
    """`--kill-shift UNITS` moves every kill point of the chosen shapes (never before its
    node starts) and keeps the campaigns apart from the unshifted ones; `--judge-only` finds
    them only when told the same shift."""
    import subprocess
    import sys

    from replaylens.killtest.corpus import points

    base_units = [p.units for p in points(["max_concurrency_sends"])]
    later = points(["max_concurrency_sends"], shift=0.5)
    assert [p.units for p in later] == [round(u + 0.5, 4) for u in base_units]
    assert [p.units for p in points(["max_concurrency_sends"], shift=-99)] == [0.0, 0.0]
    assert later[0].folder(0.65) == "max_concurrency_sends-early-shift+0.5u-0.65s"
    assert later[0].label.endswith(f"+{base_units[0] + 0.5:g}u")

    kept = Path(__file__).parent / "whatif_kills" / "max_concurrency_sends-early-0.65s"
    shutil.copytree(kept, tmp_path / later[0].folder(0.65))
    base = [sys.executable, "-m", "replaylens.cli", "validate", "--corpus", "langgraph-tests",
            "--graphs", "max_concurrency_sends", "--judge-only", "--out", str(tmp_path)]  # fmt: skip
    unshifted = subprocess.run(base, capture_output=True, text=True, timeout=300)
    assert unshifted.returncode == 1, unshifted.stdout[-2000:]
    shifted = subprocess.run(
        [*base, "--kill-shift", "0.5"], capture_output=True, text=True, timeout=300
    )
    assert shifted.returncode == 0, shifted.stderr[-2000:]
    assert "Corpus langgraph-tests on sqlite: 3 kills" in shifted.stdout, shifted.stdout[:2000]


def test_a_prediction_for_the_recorded_mode_made_without_it_is_judged() -> None:
    """Without a manifest a reader sees the what-if for the mode the thread really ran under
    beside the others: told nothing, that prediction outside what the run itself measured
    is a failure like a cross-mode one (an async run at 1 s on Postgres read as "sync or
    async" was said to keep 7-10 where it kept 6); told the mode, it is the database read as
    it stands, and judged by the verdicts instead."""
    own = dict(point="p", latency=1.0, source="async", target="async", measured=[(6, 2, 3)])
    outside = CorpusRow(**own, predicted=[(7, 2, 3)], races=[None], told="inferred")
    result = CorpusResult(rows=[outside])
    assert [f.split(" | ")[2:5] for f in failures(result)] == [
        ["async → async", "recorder", "inferred"]
    ]
    assert not ok(result)
    told = CorpusRow(**own, predicted=[(7, 2, 3)], races=[None], told="given")
    assert failures(CorpusResult(rows=[told])) == [] and ok(CorpusResult(rows=[told]))
    assert "recorded under: 0/1 inside." in report(result)
