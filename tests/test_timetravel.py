"""Resume from a chosen checkpoint: the preview against what real LangGraph re-executes.

Each real resume runs on a fresh copy of the database and its effects log (a resume
writes), with the config the snippet gives; the start lines it appends are compared,
node by node, with the lines the preview says happen again (certain + likely).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread
from replaylens.analysis.timetravel import TimeTravel, preview, snippet
from replaylens.effects.parse import read_effects
from replaylens.examples.graphs import failing, fanout, linear, payment, subgraph
from replaylens.killtest.harness import scoped_environ
from replaylens.sources import open_source

TID = "t"


def _env(log: Path) -> AbstractContextManager[None]:
    return scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0")


def _record(
    folder: Path,
    builder: Callable[[], Any],
    payload: Any,
    then: Callable[[Any, SqliteSaver], None] | None = None,
) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    db, log = folder / "g.db", folder / "g.effects.jsonl"
    with _env(log):
        conn = sqlite3.connect(db, check_same_thread=False)
        saver = SqliteSaver(conn)
        graph = builder().compile(checkpointer=saver)
        try:
            graph.invoke(payload, {"configurable": {"thread_id": TID}}, durability="sync")
        except RuntimeError:
            pass  # the failing graph
        if then is not None:
            then(graph, saver)
        conn.close()
    return db, log


def _preview(db: Path, log: Path, cid: str, ns: str = "") -> TimeTravel:
    source = open_source(db)
    try:
        thread = load_thread(source, TID)
    finally:
        source.close()
    plan = plan_resume(thread, read_effects(log), TID)
    found = preview(thread, plan.attempts, cid, ns)
    assert found is not None
    return found


def _predicted(tt: TimeTravel) -> Counter[str]:
    return Counter(a.node for a, _how in tt.again)


def _real(
    db: Path,
    log: Path,
    tmp: Path,
    builder: Callable[[], Any],
    config: Callable[[Any], dict[str, Any]],
) -> Counter[str]:
    """Run the resume for real on copies; the nodes whose start lines it appended."""
    tmp.mkdir(parents=True, exist_ok=True)
    cdb, clog = tmp / "g.db", tmp / "g.effects.jsonl"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            shutil.copy2(f"{db}{suffix}", f"{cdb}{suffix}")
    shutil.copy2(log, clog)
    n = len(clog.read_text().splitlines())
    with _env(clog):
        conn = sqlite3.connect(cdb, check_same_thread=False)
        graph = builder().compile(checkpointer=SqliteSaver(conn))
        try:
            graph.invoke(None, config(graph))
        except RuntimeError:
            pass
        finally:
            conn.close()
    new = [json.loads(x) for x in clog.read_text().splitlines()[n:]]
    return Counter(x["node"] for x in new if x["phase"] == "start")


def _root_ids(db: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [
            r[0]
            for r in conn.execute(
                "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id",
                (TID,),
            )
        ]
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("name", "builder", "payload"),
    [
        ("linear", linear, {"visited": []}),
        ("fanout", fanout, {"visited": []}),
        ("failing", failing, {"visited": []}),
    ],
)
def test_every_root_checkpoint_predicted_equals_real(
    tmp_path: Path, name: str, builder: Callable[[], Any], payload: Any
) -> None:
    db, log = _record(tmp_path / "rec", builder, payload)
    ids = _root_ids(db)
    assert len(ids) >= 3
    for i, cid in enumerate(ids):
        tt = _preview(db, log, cid)
        real = _real(
            db,
            log,
            tmp_path / f"run{i}",
            builder,
            lambda _g, c=cid: {"configurable": {"thread_id": TID, "checkpoint_id": c}},
        )
        assert _predicted(tt) == real, (name, i, tt.sentence())
        # Certain: every task due at the checkpoint, finished ones too (their writes are ignored).
        assert Counter(a.node for a, how in tt.again if how == "certain") <= real


def test_latest_checkpoint_with_an_id_reruns_finished_tasks_too(tmp_path: Path) -> None:
    """The failing graph's latest checkpoint holds b failed and b2 finished: invoke(None) re-runs b only,
    invoke(None, {checkpoint_id: latest}) re-runs both, as the preview says."""
    db, log = _record(tmp_path / "rec", failing, {"visited": []})
    latest = _root_ids(db)[-1]
    tt = _preview(db, log, latest)
    statuses = {t.node: t.status for t in tt.reruns}
    assert "finished" in statuses.values() and "failed" in statuses.values(), statuses
    with_id = _real(
        db,
        log,
        tmp_path / "a",
        failing,
        lambda _g: {"configurable": {"thread_id": TID, "checkpoint_id": latest}},
    )
    without = _real(
        db, log, tmp_path / "b", failing, lambda _g: {"configurable": {"thread_id": TID}}
    )
    assert set(with_id) == set(statuses)
    assert set(without) == {n for n, s in statuses.items() if s != "finished"}


def test_subgraph_checkpoint_reruns_the_whole_subgraph(tmp_path: Path) -> None:
    db, log = _record(tmp_path / "rec", subgraph, {"visited": []})
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    subs = conn.execute(
        "SELECT checkpoint_ns, checkpoint_id, metadata FROM checkpoints WHERE checkpoint_ns != '' "
        "ORDER BY checkpoint_id"
    ).fetchall()
    conn.close()
    ns, cid, _meta = next(r for r in subs if json.loads(r[2]).get("step") == 1)  # s1 done, s2 due
    tt = _preview(db, log, cid, ns)
    assert tt.anchor is not tt.target and [t.node for t in tt.reruns] == ["sub"]

    def config(graph: Any) -> dict[str, Any]:
        history = graph.get_state_history({"configurable": {"thread_id": TID, "checkpoint_ns": ns}})
        return next(s.config for s in history if s.config["configurable"]["checkpoint_id"] == cid)

    real = _real(db, log, tmp_path / "run", subgraph, config)
    assert real["s1"] == 1  # the whole subgraph, not only the steps after the chosen checkpoint
    assert _predicted(tt) == real
    assert "whole subgraph" in tt.sentence()


def test_update_state_fork(tmp_path: Path) -> None:
    def fork(graph: Any, _saver: SqliteSaver) -> None:
        history = list(graph.get_state_history({"configurable": {"thread_id": TID}}))
        at_b = next(s for s in history if s.next == ("b",))
        graph.update_state(at_b.config, {"visited": ["edited"]}, as_node="a")

    db, log = _record(tmp_path / "rec", linear, {"visited": []}, then=fork)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    cid = next(
        r[0]
        for r in conn.execute(
            "SELECT checkpoint_id, metadata FROM checkpoints WHERE checkpoint_ns = ''"
        )
        if json.loads(r[1]).get("source") == "update"
    )
    conn.close()
    tt = _preview(db, log, cid)
    assert [t.node for t in tt.reruns] == ["b"]
    real = _real(
        db,
        log,
        tmp_path / "run",
        linear,
        lambda _g: {"configurable": {"thread_id": TID, "checkpoint_id": cid}},
    )
    # The fork's own steps never ran before, so no recorded line is "again"; the real run
    # performs b, c and d for the first time on the new branch.
    assert _predicted(tt) == Counter()
    assert real == Counter({"b": 1, "c": 1, "d": 1})


def test_interrupt_is_asked_again_from_an_earlier_checkpoint(tmp_path: Path) -> None:
    db, log = _record(tmp_path / "rec", payment, {"invoice_id": "inv-1", "amount": 3.0})
    ids = _root_ids(db)
    tt = _preview(db, log, ids[-1])
    assert [t.node for t in tt.reruns] == ["approve"] and any("asks again" in n for n in tt.notes)
    real = _real(
        db,
        log,
        tmp_path / "run",
        payment,
        lambda _g: {"configurable": {"thread_id": TID, "checkpoint_id": ids[-1]}},
    )
    assert _predicted(tt) == real == Counter({"approve": 1})


def test_snippets_quote_ids_as_data() -> None:
    hostile = 'x"}}); import os; ({"'
    code = snippet("resume_from", hostile, "c1")
    scope: dict[str, Any] = {}
    exec(code.splitlines()[0], {}, scope)  # the config line alone: it must stay one dict literal
    assert scope["config"] == {"configurable": {"thread_id": hostile, "checkpoint_id": "c1"}}
    for move in ("resume", "resume_from", "answer_interrupt", "fork"):
        text = snippet(move, "t-1", "c-1", "")  # type: ignore[arg-type]
        compile(text.replace("{...}", "{}").replace("resume=...", "resume=None"), move, "exec")
    assert "get_state_history" in snippet("resume_from", "t", "c", "sub:1")
