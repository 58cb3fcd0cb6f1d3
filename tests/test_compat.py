"""Databases written by LangGraph 0.2.28 to 1.2.24 (tests/compat/, made by `make compat-fixtures`)
read as that version's own get_state read them.

The truth files hold each writing version's get_state for every checkpoint; nothing here
needs an old LangGraph installed. The last test resumes an old database with today's
LangGraph (the one installed) to check what the reader says about migrated task ids.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from compat_truth import COMPAT_DIR, Report, compare, generations, load_truth, truth_of

from replaylens.analysis.status import load_thread
from replaylens.sources import open_source

REPO = Path(__file__).resolve().parents[1]
VERSIONS = generations()


def _minor(version: str) -> tuple[int, int]:
    major, minor, *_ = (int(p) for p in version.split("."))
    return major, minor


def _legacy(version: str) -> bool:
    """Edge channels named after their source (before LangGraph 0.3.22; 0.3.22 and 0.3.23
    write checkpoint v2 with today's `branch:to:` channels)."""
    return tuple(int(p) for p in version.split(".")) < (0, 3, 22)


def test_every_generation_has_fixtures() -> None:
    """0.2 (early and late), 0.3 (old channel names, v2 with branch:to: channels, format v3),
    0.4, 0.6, 1.0 and today's 1.2; the migration-test graph and a `then` barrier on 0.2 and on
    the v2 branch:to: layout."""
    assert {_minor(v) for v in VERSIONS} >= {(0, 2), (0, 3), (0, 4), (0, 6), (1, 0), (1, 2)}
    assert len([v for v in VERSIONS if _minor(v) == (0, 2)]) == 2
    assert {"0.3.20", "0.3.23", "0.3.34"} <= set(VERSIONS)
    for version in ("0.2.28", "0.2.76", "0.3.23"):
        assert {"migration", "then"} <= set(load_truth(version)["graphs"]), version


@pytest.fixture(scope="module", params=VERSIONS)
def report(request: pytest.FixtureRequest) -> tuple[str, Report]:
    return request.param, compare(request.param)


def test_next_tasks_equal_get_state(report: tuple[str, Report]) -> None:
    """On every checkpoint the derived tasks (names and ids) are LangGraph's, or the reader
    says it cannot know and claims nothing LangGraph does not (never a wrong task)."""
    version, rep = report
    assert rep.checkpoints, f"{version}: no checkpoint compared"
    bad = [o for o in rep.checkpoints if o.verdict == "mismatch"]
    assert not bad, "\n".join(
        f"{o.graph}/{o.thread} {o.checkpoint_id}: {o.truth} != {o.derived}" for o in bad
    )
    if not _legacy(version):  # from v3 on every trigger channel names its node: no guessing
        assert all(o.verdict == "match" for o in rep.checkpoints)
    named = {graph: _names_in_rows(version, graph) for graph in {o.graph for o in rep.checkpoints}}
    for o in rep.checkpoints:
        if o.verdict != "unknown":
            continue
        # "Unknown" is allowed only where the rows cannot tell: nothing is due (the last node
        # of a finished run looks like a node whose edge was never seen), or a due node is
        # named nowhere in the file (it never finished anywhere).
        missing = {name for name, _ in o.truth} - named[o.graph]
        assert not o.truth or missing, (
            f"{o.graph}/{o.thread} {o.checkpoint_id}: said unknown, rows name {o.truth}"
        )


def _names_in_rows(version: str, graph: str) -> set[str]:
    """Every node name the database's rows mention: nodes that ran (versions_seen, metadata
    writes), channels written, channels of writes rows."""
    names: set[str] = set()
    source = open_source(str(COMPAT_DIR / version / f"{graph}.sqlite"))
    try:
        for row in source.thread_index():
            thread = load_thread(source, row.thread_id)
            for ns in thread.namespaces.values():
                for cp in ns.checkpoints:
                    names |= set(cp.record.versions_seen) | set(cp.record.channel_versions)
                    names |= set(cp.record.metadata.get("writes") or {})
                    names |= {w.channel for w in cp.writes}
    finally:
        source.close()
    return names


def test_killed_threads_are_never_completed(report: tuple[str, Report]) -> None:
    version, rep = report
    killed = [t for t in rep.threads if t.killed]
    assert len(killed) >= 5, f"{version}: the fixture lost its killed runs"
    for t in killed:
        assert t.status != "completed", f"{version} {t.graph}: killed thread called completed"
        assert t.status == t.truth_status, (
            f"{version} {t.graph}: {t.status} != LangGraph's {t.truth_status}"
        )


def test_statuses_equal_langgraph_or_say_unknown(report: tuple[str, Report]) -> None:
    """A status differs from LangGraph's only where the rows cannot tell the next task, and
    then it is "unknown" with its reason in one sentence, never "completed" or "resumable"."""
    from replaylens.analysis.status import unknown_reason

    version, rep = report
    for t in rep.threads:
        source = open_source(str(COMPAT_DIR / version / f"{t.graph}.sqlite"))
        try:
            latest = load_thread(source, t.thread).root.latest
        finally:
            source.close()
        reason = unknown_reason(latest)
        if t.status == t.truth_status:
            assert not reason
            continue
        assert _legacy(version) and t.status == "unknown", (
            f"{version} {t.graph}/{t.thread}: {t.status} where LangGraph says {t.truth_status}"
        )
        assert latest.next_unknown and reason.startswith("Status unknown: ")
        assert "--graph module:attribute" in reason


def _expected_generation(version: str) -> tuple[str, str]:
    minor = _minor(version)
    if minor == (0, 2):
        return (
            "LangGraph 0.2 (checkpoint v1)"
            if version == "0.2.28"
            else "LangGraph 0.2 to 0.3.18 (checkpoint v2)",
            ("SHA-1 over only the triggers that fired"),
        )
    if _legacy(version):
        return "LangGraph 0.3.19 to 0.3.21 (checkpoint v2)", "xxh3 over all of a node's triggers"
    if tuple(int(p) for p in version.split(".")) < (0, 3, 24):
        return (
            "LangGraph 0.3.22 to 0.3.23 (checkpoint v2 with branch:to: channels)",
            "xxh3 over all of a node's triggers",
        )
    if minor in ((0, 3), (0, 4)):
        return "LangGraph 0.3.24 to 0.4 (checkpoint v3)", "xxh3 over all of a node's triggers"
    return "LangGraph 0.5 or later (checkpoint v4)", "xxh3 over all of a node's triggers"


@pytest.mark.parametrize("version", VERSIONS)
def test_generation_is_detected(version: str) -> None:
    label, rule = _expected_generation(version)
    truth = load_truth(version)
    for graph, doc in truth["graphs"].items():
        source = open_source(str(COMPAT_DIR / version / f"{graph}.sqlite"))
        try:
            assert source.has_task_path == ("task_path" in doc["writes_columns"])
            for thread_id in doc["threads"]:
                gen = load_thread(source, thread_id).generation
                assert gen is not None and gen.label.startswith(label), (graph, thread_id, gen)
                assert gen.id_rule == rule, (graph, thread_id, gen.id_rule)
                assert gen.sends == (
                    "__pregel_tasks" if _minor(version) >= (0, 5) else "pending_sends"
                )
        finally:
            source.close()


@pytest.mark.parametrize("version", [v for v in VERSIONS if _legacy(v)])
def test_today_langgraph_resume_of_a_legacy_database(version: str, tmp_path: Path) -> None:
    """The reader says today's LangGraph hashes other ids for a pre-v3 fan-out killed in p3,
    so p1 and p2's writes are not found: the installed LangGraph's get_state and a real resume
    agree (p1, p2 and p3 all run again)."""
    db = tmp_path / "fanout.sqlite"
    shutil.copy2(COMPAT_DIR / version / "fanout.sqlite", db)
    source = open_source(str(db))
    try:
        thread = load_thread(source, "killed")
    finally:
        source.close()
    latest = thread.root.latest
    predicted = {t.today_task_id for t in latest.tasks}
    rerun_predicted = {t.node for t in latest.tasks if t.today_task_id}
    assert thread.generation.today_ids_differ and None not in predicted

    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import compat_graphs
    finally:
        sys.path.remove(str(REPO / "scripts"))
    markers = tmp_path / "markers"
    markers.mkdir()
    conn = sqlite3.connect(str(db), check_same_thread=False)
    try:
        graph = compat_graphs.compile_graph("fanout", conn)
        config = {"configurable": {"thread_id": "killed"}}
        assert {t.id for t in graph.get_state(config).tasks} == predicted
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(compat_graphs.ENV_MARKERS, str(markers))
            graph.invoke(None, config)
    finally:
        conn.close()
    ran = {m.name for m in markers.iterdir()}
    assert rerun_predicted == {"p1", "p2", "p3"}
    assert rerun_predicted <= ran
    # The plan, its JSON and the report say the same: p1 and p2 (reused by the old version) run again.
    from replaylens.analysis.resume import plan_resume

    plan = plan_resume(thread, None, "killed")
    reused = {t.node for _, t in plan.reused}
    assert (
        {t["node"] for t in plan.to_json()["today_reruns"]}
        == reused
        == ran & reused
        == {"p1", "p2"}
    )
    from replaylens.report import incident_markdown

    report = incident_markdown(plan, database=db.name, effects_log=None)
    assert "With today's LangGraph, `p1`, `p2` run again too" in report


@pytest.mark.parametrize("version", [v for v in VERSIONS if _legacy(v)])
def test_lone_killed_legacy_thread_is_unknown(version: str, tmp_path: Path) -> None:
    """Without a finished thread of the same graph beside it, a pre-v3 thread killed in c holds
    no trace of the edge b->c: the reader must say "unknown" (the rows cannot tell a finished
    run from one killed before a node that never ran), never "completed" nor a reassuring
    "resumable" that re-runs nothing (LangGraph says resumable, next c)."""
    db = tmp_path / "linear.sqlite"
    shutil.copy2(COMPAT_DIR / version / "linear.sqlite", db)
    conn = sqlite3.connect(str(db))  # a private copy: the committed fixture is never written
    conn.execute("DELETE FROM checkpoints WHERE thread_id != 'killed'")
    conn.execute("DELETE FROM writes WHERE thread_id != 'killed'")
    conn.commit()
    conn.close()
    truth = load_truth(version)["graphs"]["linear"]["threads"]["killed"]
    assert truth["killed"] and truth["latest"]["next"] == ["c"]
    source = open_source(str(db))
    try:
        thread = load_thread(source, "killed")
    finally:
        source.close()
    from replaylens.analysis.status import thread_status

    assert thread_status(thread) == "unknown"
    assert thread.root.latest.next_unknown
    assert "c" not in {t.node for t in thread.root.latest.tasks}  # nothing invented either


@pytest.mark.parametrize("version", VERSIONS)
def test_thread_list_agrees_with_thread_page(version: str) -> None:
    """One truth: the Threads list (latest checkpoints only) and the thread page give every
    thread the same status and the same pending tasks, old formats included."""
    from replaylens.analysis.status import summarize_threads, thread_status, unknown_reason

    for graph in load_truth(version)["graphs"]:
        source = open_source(str(COMPAT_DIR / version / f"{graph}.sqlite"))
        try:
            summaries, _ = summarize_threads(source)
            assert summaries
            for row in summaries:
                thread = load_thread(source, row.thread_id)
                assert row.status == thread_status(thread), (graph, row.thread_id)
                assert row.pending == tuple(
                    t.node or t.label for t in thread.root.latest.pending_tasks
                ), (graph, row.thread_id)
                assert row.next_unknown == bool(thread.root.latest.next_unknown), (
                    graph,
                    row.thread_id,
                )
                assert row.reason == unknown_reason(thread.root.latest), (graph, row.thread_id)
        finally:
            source.close()


def _marker_node(marker: str, nodes: set[str]) -> str:
    """Start markers name the node, numbered where one node runs several times (work3, tool2)."""
    return marker if marker in nodes else marker.rstrip("0123456789")


@pytest.mark.parametrize("version", VERSIONS)
def test_resume_plan_equals_what_that_version_reran(version: str) -> None:
    """For every killed thread, the plan's "runs again" and "writes reused" equal what a
    resume with the writing version really ran (recorded when the fixtures were made):
    each re-run task ran once, a reused task did not run. Skipped per node where the graph
    runs the node again in a later step (the loop) or it is a subgraph (no marker of its own)."""
    from collections import Counter

    from replaylens.analysis.resume import plan_resume

    checked = 0
    for graph, doc in load_truth(version)["graphs"].items():
        entry = doc["threads"].get("killed")
        if not entry or not entry.get("killed"):
            continue
        source = open_source(str(COMPAT_DIR / version / f"{graph}.sqlite"))
        try:
            thread = load_thread(source, "killed")
        finally:
            source.close()
        plan = plan_resume(thread, None, "killed")
        reruns = Counter(t.node for _, t in plan.reruns)
        reused = Counter(t.node for _, t in plan.reused)
        ran = Counter(_marker_node(m, set(reruns) | set(reused)) for m in entry["resume_ran"])
        subgraphs = {ns.split(":")[0] for ns in thread.namespaces if ns}
        for node in set(reruns) | set(reused):
            if node in subgraphs or graph == "loop":
                continue
            assert ran[node] == reruns[node], (graph, node, dict(ran), dict(reruns), dict(reused))
            checked += 1
        assert plan.status == "resumable"
    assert checked >= 5


def test_thread_page_says_which_generation_wrote_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard's thread page names the generation and today's extra re-runs, as the CLI does."""
    import json

    import streamlit as st
    from app_pages import open_page, shown

    version = next(v for v in VERSIONS if _minor(v) == (0, 2))
    folder = COMPAT_DIR / version
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(folder)]))
    st.cache_data.clear()
    st.cache_resource.clear()
    try:
        at = open_page("thread", db=str(folder / "fanout.sqlite"), thread="killed")
        info = shown(at, "info")
    finally:
        st.cache_data.clear()
        st.cache_resource.clear()
    assert "LangGraph 0.2 (checkpoint v1)" in info
    assert "With today's LangGraph, p1, p2 run again too" in info
    assert "Written by an old LangGraph, LangGraph 0.2 (checkpoint v1)" in info


OUTPUT_EXCLUDED = {"__error__", "__interrupt__", "__scheduled__", "__resume__"}


@pytest.mark.parametrize("version", VERSIONS)
def test_task_statuses_equal_langgraph_results(version: str) -> None:
    """A derived task is "finished" exactly where the writing release would reuse it: where
    its saver attached an output write to the checkpoint for that task id (recorded from
    its own list call, `history.pending_writes`), else where its get_state gives the task a
    result. LangGraph 0.2.28 gives no result at all and saved no writes for the last task of
    a step: such a task is pending, as that release lists it, never called finished."""
    truth = load_truth(version)
    compared = 0
    for graph, doc in truth["graphs"].items():
        source = open_source(str(COMPAT_DIR / version / f"{graph}.sqlite"))
        try:
            for thread_id, entry in doc["threads"].items():
                thread = load_thread(source, thread_id)
                for c in entry["checkpoints"]:
                    cp = thread.find(c["checkpoint_id"], c["checkpoint_ns"])
                    by_id = {t.task_id: t for t in cp.tasks}
                    attached = (c.get("history") or {}).get("pending_writes")
                    for t in truth_of(c)["tasks"]:
                        if t["id"] not in by_id:
                            continue  # a task the rows cannot name (see test_next_tasks_equal_get_state)
                        finished = by_id[t["id"]].status == "finished"
                        if attached is not None:
                            reused = any(
                                tid == t["id"] and chan not in OUTPUT_EXCLUDED
                                for tid, chan in attached
                            )
                        else:
                            reused = t["has_result"]
                        assert finished == reused, (graph, thread_id, c["checkpoint_id"], t)
                        compared += 1
        finally:
            source.close()
    assert compared > 50


@pytest.mark.parametrize("version", [v for v in VERSIONS if _legacy(v)])
def test_an_edge_proven_to_lead_nowhere_lets_a_legacy_thread_complete(version: str) -> None:
    """In the loop graph `agent` ran three times before its last run, and each time the next
    step ran without reading `agent`'s own channel (it routes through a conditional edge):
    that proves the channel leads nowhere, so the finished thread is "completed", as LangGraph
    says, not "next task unknown"; in the list as on the thread page."""
    from replaylens.analysis.status import summarize_threads, thread_status

    truth = load_truth(version)["graphs"]["loop"]["threads"]["done"]
    assert truth["status"] == "completed"
    source = open_source(str(COMPAT_DIR / version / "loop.sqlite"))
    try:
        thread = load_thread(source, "done")
        summaries, _ = summarize_threads(source)
    finally:
        source.close()
    assert thread_status(thread) == "completed" and not thread.root.latest.next_unknown
    assert {s.thread_id: s.status for s in summaries}["done"] == "completed"


@pytest.mark.parametrize("version", [v for v in VERSIONS if _minor(v) >= (0, 4) or v == "0.3.34"])
def test_ids_listed_count_against_what_langgraph_lists(version: str) -> None:
    """`replaylens thread` said "0 of 3 written ids reproduced" on a current database whose
    ids equal get_state's. Every id written there is one LangGraph lists at that checkpoint
    (checked against the recorded truth), so the count must be all of them, as the CLI says."""
    truth = load_truth(version)
    for graph, doc in truth["graphs"].items():
        db = COMPAT_DIR / version / f"{graph}.sqlite"
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            rows = conn.execute(
                "SELECT DISTINCT thread_id, checkpoint_id, task_id FROM writes WHERE task_id != ?",
                ("00000000-0000-0000-0000-000000000000",),
            ).fetchall()
        finally:
            conn.close()
        listed = {
            (tid, c["checkpoint_id"], t["id"])
            for tid, entry in doc["threads"].items()
            for c in entry["checkpoints"]
            for t in truth_of(c)["tasks"]
        }
        assert set(rows) <= listed, (version, graph, set(rows) - listed)
        source = open_source(str(db))
        try:
            for thread_id in doc["threads"]:
                gen = load_thread(source, thread_id).generation
                assert gen.ids_written >= sum(1 for r in rows if r[0] == thread_id)
                assert gen.ids_today == gen.ids_reproduced == gen.ids_written, (graph, thread_id)
                if gen.ids_written:
                    assert gen.ids_sentence() == (
                        f"{gen.ids_written} of {gen.ids_written} written task ids are ids "
                        "LangGraph lists today"
                    )
        finally:
            source.close()


@pytest.mark.usefixtures("fresh_streamlit")
def test_unknown_in_every_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """One sentence, everywhere: the thread list (and its JSON), the thread JSON, the plan and
    its verdict, and the Threads page, which says how to decide it."""
    import json

    from app_pages import open_page, shown

    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import summarize_threads, unknown_reason
    from replaylens.export import thread_to_json

    folder = COMPAT_DIR / "0.2.28"
    source = open_source(str(folder / "linear.sqlite"))
    try:
        thread = load_thread(source, "done")
        reason = unknown_reason(thread.root.latest)
        summaries = {s.thread_id: s for s in summarize_threads(source)[0]}
        exported = thread_to_json(source, thread, with_values=False)
    finally:
        source.close()
    assert reason.startswith("Status unknown: ") and "'d'" in reason
    assert summaries["done"].status == "unknown" and summaries["done"].reason == reason
    assert summaries["done"].to_json()["unknown_reason"] == reason
    assert exported["status"] == "unknown" and exported["unknown_reason"] == reason
    plan = plan_resume(thread, None, "done")
    assert plan.status == "unknown" and plan.verdict_sentence() == reason
    assert plan.to_json()["unknown_reason"] == reason
    assert "re-runs no task" not in plan.verdict_sentence()

    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(folder)]))
    at = open_page("threads", db=str(folder / "linear.sqlite"))
    warned = shown(at, "warning")
    assert "1 thread(s) have status **unknown**" in warned
    assert "--graph module:attribute" in warned
    table = at.dataframe[0].value
    assert list(table["status"]) == [
        "resumable",
        "unknown",
    ]  # next to what needs attention


@pytest.mark.usefixtures("fresh_streamlit")
def test_thread_page_says_unknown_as_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Thread page's verdict for an unknown thread is its reason, in a warning, never a
    green success box."""
    import json

    from app_pages import open_page, shown

    folder = COMPAT_DIR / "0.2.28"
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(folder)]))
    at = open_page("thread", db=str(folder / "linear.sqlite"), thread="done")
    warned = shown(at, "warning")
    assert "Status unknown: the rows cannot tell whether this run finished." in warned
    assert not any("Status unknown" in str(e.value) for e in at.success)
