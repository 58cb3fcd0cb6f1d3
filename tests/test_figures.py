"""Figure builders, tested on what they return (traces, shapes, DOT text), on real databases."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread
from replaylens.dashboard.learn import build_lesson
from replaylens.effects.parse import read_effects
from replaylens.figures.graph import graph_dot, infer_graph, lineage_dot
from replaylens.figures.runs import runs_strip
from replaylens.figures.supersteps import superstep_figure
from replaylens.figures.timeline import (
    CHECKPOINT_TASK,
    TimelineData,
    build_timeline_data,
    lanes_of,
    timeline_figure,
)
from replaylens.sources import open_source


def load(db: Path, thread_id: str, latency: float = 0.25):  # noqa: ANN201 - (thread, plan)
    source = open_source(db)
    try:
        thread = load_thread(source, thread_id)
    finally:
        source.close()
    log = db.with_name(db.stem + ".effects.jsonl")
    plan = plan_resume(
        thread, read_effects(log) if log.exists() else None, thread_id, latency=latency
    )
    return thread, plan


def test_timeline_of_a_killed_fanout_has_lanes_crash_and_windows(demo: Path) -> None:
    thread, plan = load(demo / "crashes" / "fanout-async-slowput.db", "fanout-async-slowput-killed")
    data = build_timeline_data(thread, plan)
    assert data.crash_ts == plan.crash_ts is not None
    assert set(data.windows) >= {"sync", "async", "exit"}
    p3 = [b for b in data.bars if b.lane == "p3"]
    assert p3 and p3[0].in_flight and p3[0].category == "runs again on resume"
    # Whether p1 and p2 are kept depends on where the background writer was at the kill:
    # each bar must say what the plan's verdict for that task says.
    words = {"kept": "kept (not run again)", "replays": "runs again on resume"}
    expected = {a.node: words[a.verdict] for a in plan.attempts if a.node in ("p1", "p2")}
    drawn = {b.lane: b.category for b in data.bars if b.lane in ("p1", "p2")}
    assert set(expected) == {"p1", "p2"} and drawn == expected
    fig = timeline_figure(data, mode="async")
    assert lanes_of(fig)[:2] == ["checkpoints", "__start__"] and "p3" in lanes_of(fig)
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert len(rects) == 1 and len(lines) == 1  # the async window and the crash
    names = {t.name for t in fig.data}
    assert {"checkpoint landed", "writes saved"} <= names
    async_start, _ = data.windows["async"]
    sync_start, _ = data.windows["sync"]
    assert async_start <= sync_start  # async never loses less than sync


def test_timeline_of_a_completed_thread_has_no_crash_and_draws_every_task(demo: Path) -> None:
    thread, plan = load(demo / "examples" / "subgraph.db", "subgraph-done")
    data = build_timeline_data(thread, plan)
    assert data.crash_ts is None
    fig = timeline_figure(data, mode="sync")
    assert not [s for s in fig.layout.shapes if s.type == "line"]
    assert "checkpoints (sub)" in lanes_of(fig) and "sub › s2" in lanes_of(fig)


def test_timeline_without_an_effects_log_draws_tasks_between_checkpoints(demo: Path) -> None:
    source = open_source(demo / "examples" / "linear.db")
    thread = load_thread(source, "linear-done")
    data = build_timeline_data(thread, plan_resume(thread, None, "linear-done"))
    assert {b.lane for b in data.bars} >= {"a", "b", "c", "d"}
    assert all(b.category == CHECKPOINT_TASK for b in data.bars)


def test_timeline_hover_text_escapes_names_from_the_database() -> None:
    line = SimpleNamespace(line=1, ts=100.0)
    attempt = SimpleNamespace(
        node="<img src=x onerror=alert(1)>", namespace="", logged_ns="", lines=[line], task=None, task_id=None,
        end_ts=101.0, start_ts=100.0, outcome="finished", verdict="kept", reason="<b>why</b>", effects=["<a href=x>"],
        attempt=1, pid=7,
    )  # fmt: skip
    plan = SimpleNamespace(attempts=[attempt], crash_ts=101.0, status="resumable", what_if={})
    data = build_timeline_data(None, plan)
    hover = data.bars[0].hover
    assert "<img" not in hover and "&lt;img" in hover and "&lt;a href=x&gt;" in hover


def test_empty_timeline_data_still_draws() -> None:
    fig = timeline_figure(TimelineData())
    assert fig.layout.height >= 260


def test_graph_of_a_killed_fanout_colours_what_a_resume_does(demo: Path) -> None:
    thread, plan = load(demo / "crashes" / "fanout-sync.db", "fanout-sync-killed")
    shape = infer_graph(thread, plan)
    assert shape.nodes[("", "p3")] == "reruns"
    assert shape.nodes[("", "p1")] == shape.nodes[("", "p2")] == "reused"
    assert shape.nodes[("", "start")] == "done"
    assert shape.nodes[("", "join")] == "not reached"
    assert (("", "p3"), ("", "join"), "join") in shape.edges  # from the barrier's name
    dot = graph_dot(thread, plan)
    assert dot.startswith("digraph") and "p3\nreruns" in dot and "::" not in dot


def test_graph_shows_send_edges_and_subgraph_clusters(demo: Path) -> None:
    thread, plan = load(demo / "examples" / "send_map_reduce.db", "send_map_reduce-done")
    assert "style=dashed label=Send" in graph_dot(
        thread, plan
    ) or "label=Send style=dashed" in graph_dot(thread, plan)
    thread, plan = load(demo / "examples" / "subgraph.db", "subgraph-done")
    assert "subgraph cluster_sub" in graph_dot(thread, plan)


def test_lineage_shows_the_fork_as_two_branches(demo: Path) -> None:
    thread, _ = load(demo / "examples" / "linear.db", "linear-forked")
    root = thread.root
    assert root is not None and root.latest is not None
    dot = lineage_dot(root, resume_id=root.latest.checkpoint_id)
    assert "fork: 2 branches" in dot and "resume here" in dot
    assert dot.count("->") == len(root.checkpoints) - 1


def test_runs_strip_has_a_point_per_run_and_row_numbers_for_clicks() -> None:
    runs = pd.DataFrame(
        {
            "mode": ["sync", "async", "async", "exit"],
            "latency (ms)": [0, 0, 250, 0],
            "run": [1, 2, 3, 4],
            "thread": ["t1", "t2", "<b>t3</b>", "t4"],
            "lines repeated": [1, 1, 6, 0],
        }
    )
    fig = runs_strip(runs, "lines repeated")
    assert sum(len(t.x) for t in fig.data) == 4
    assert sorted(int(c) for t in fig.data for c in t.customdata) == [0, 1, 2, 3]
    assert list(fig.layout.xaxis.ticktext) == ["sync", "async", "exit"]
    assert not any("<b>t3" in h for t in fig.data for h in t.hovertext)
    assert runs_strip(runs.iloc[0:0], "lines repeated").layout.annotations


def test_a_predicted_range_is_drawn_as_a_cross_at_its_top_and_a_bar_down() -> None:
    """The runs page's predicted columns print `Again.figure` ("1–3" where the evidence cannot
    tell): the chart draws the range, not a category named "1–3"."""
    runs = pd.DataFrame(
        {
            "mode": ["sync", "async"],
            "latency (ms)": [250, 250],
            "run": [1, 2],
            "thread": ["t1", "t2"],
            "tasks re-run": [1, 2],
            "tasks re-run (predicted)": ["1", "1–3"],
        }
    )
    fig = runs_strip(runs, "tasks re-run")
    predicted = next(t for t in fig.data if t.name.endswith("predicted"))
    assert list(predicted.y) == [1.0, 3.0]
    assert list(predicted.error_y.arrayminus) == [0.0, 2.0]
    assert "1–3" in predicted.hovertext[1]


def test_superstep_figure_marks_the_killed_task_and_lost_checkpoints(demo: Path) -> None:
    thread, plan = load(demo / "examples" / "fanout.db", "fanout-done")
    lessons = [
        ls for ls in build_lesson(thread, plan) if any(t.node != "__start__" for t in ls.tasks)
    ]
    index = next(i for i, ls in enumerate(lessons) if ls.parallel)
    fig = superstep_figure(lessons, index, "sync")
    names = {t.name for t in fig.data}
    assert "killed mid-task: runs again" in names and "finished, writes saved: reused" in names
    fig = superstep_figure(lessons, index, "exit")
    diamonds = next(t for t in fig.data if t.name.startswith("checkpoint"))
    assert "lost" in list(diamonds.text)


def test_style_lists_collapse_only_when_every_bar_agrees() -> None:
    """A mixed list (one in-flight bar among finished ones) must stay per bar, or the
    hatching that marks the task killed mid-run would spread to every bar or vanish."""
    from replaylens.figures.timeline import _uniform

    assert _uniform(["#aaa", "#aaa", "#aaa"]) == "#aaa"
    assert _uniform(["", "/", ""]) == ["", "/", ""]
    assert _uniform([]) is None


def test_parallel_send_tasks_are_drawn_as_one_bar_each(demo: Path) -> None:
    """send_map_reduce fans out three `work` tasks that run at once: three bars, three sub-rows."""
    thread, plan = load(demo / "examples" / "send_map_reduce.db", "send_map_reduce-done")
    data = build_timeline_data(thread, plan)
    work = [b for b in data.bars if b.lane == "work"]
    assert len(work) == 3
    assert sorted(b.slot for b in work) == [0, 1, 2] and {b.slots for b in work} == {3}
    fig = timeline_figure(data)
    trace = next(t for t in fig.data if t.type == "bar" and "work" in list(t.y))
    assert len(set(trace.offset)) > 1  # each bar at its own height, not stacked on one line


def test_timeline_axis_names_its_time_zone_and_the_legend_sits_below_the_ticks(demo: Path) -> None:
    thread, plan = load(demo / "crashes" / "fanout-sync.db", "fanout-sync-killed")
    fig = timeline_figure(build_timeline_data(thread, plan), mode="sync")
    assert fig.layout.xaxis.title.text == "time (UTC)"
    assert fig.layout.legend.yref == "container" and fig.layout.legend.yanchor == "bottom"
    labels = next(t for t in fig.data if t.name == "checkpoint landed")
    # Successive step numbers alternate above and below their diamonds, so -1 and 0 never overlap.
    assert list(labels.textposition[:2]) == ["top center", "bottom center"]


def test_graph_colours_tasks_of_a_lost_step_as_re_running(demo: Path) -> None:
    """Killed under async with a slow store: p1 and p2 finished, but their step's checkpoint never
    landed (orphan writes). The graph must say they run again, not "not reached"."""
    from replaylens.figures import colors

    thread, plan = load(demo / "crashes" / "fanout-async-slowput.db", "fanout-async-slowput-killed")
    assert thread.orphan_writes
    nodes = infer_graph(thread, plan).nodes
    assert nodes[("", "p1")] == "reruns" and nodes[("", "p2")] == "reruns"
    # One meaning, one colour: the graph's "re-runs" is the timeline's "runs again on resume".
    assert colors.GRAPH_STATE["reruns"] == colors.VERDICT["replays"]
    assert colors.GRAPH_STATE["done"] == colors.VERDICT["kept"]


SAMPLES = Path(__file__).resolve().parent.parent / "sample_dbs"


@pytest.mark.parametrize("graph_name", ["fanout", "send_map_reduce"])
def test_graph_of_a_lost_step_has_every_edge_langgraph_draws(graph_name: str) -> None:
    """Killed under async with a 250 ms store: the fan-out step's checkpoint never landed, so
    its writes are orphans. `p3` (killed) never wrote, but the barrier `join:p1+p2+p3:join`
    that p1 and p2 wrote names it; the `Send` tasks' paths hold only a packet index. Every edge
    of LangGraph's own drawing of the graph (but the edge to END, which no write records)
    must be there, with or without the effects log."""
    from replaylens.examples import graphs

    db = SAMPLES / graph_name / "runs" / "async-0.25s-1" / "at-kill.db"
    source = open_source(db)
    try:
        (row,) = source.thread_index()
        thread = load_thread(source, row.thread_id)
    finally:
        source.close()
    assert thread.orphan_writes  # the step really was lost
    real = {(e.source, e.target) for e in getattr(graphs, graph_name)().compile().get_graph().edges
            if e.target != "__end__"}  # fmt: skip
    log = db.with_name("at-kill.effects.jsonl")
    for plan in (None, plan_resume(thread, read_effects(log), row.thread_id, latency=0.25)):
        drawn = {(a[1], b[1]) for a, b, _ in infer_graph(thread, plan).edges}
        assert drawn >= real, sorted(real - drawn)


def test_every_status_has_one_word_and_one_colour_and_no_glyph() -> None:
    """Status words and colours live in one home (`figures.statuses`), used by the pages and
    the figures: each status the analysis can give has a word and a colour there, and no
    word leans on a symbol or emoji glyph (a machine without the emoji font drew boxes)."""
    from replaylens.analysis.status import STATUSES
    from replaylens.dashboard import views
    from replaylens.figures import colors, statuses

    for status in STATUSES:
        word = statuses.status_word(status)
        assert word.replace(" ", "").isalpha(), word
        assert re.fullmatch(r"#[0-9A-F]{6}", statuses.status_color(status)), status
        assert statuses.status_md(status).endswith(f"-badge[{word}]")
        assert views.status_label(status) == word
    assert not hasattr(colors, "STATUS")  # the second copy is gone


def test_kill_moment_chart_keeps_one_line_per_campaign() -> None:
    """Comparing two campaigns, each line joins one campaign's runs only and the legend names
    the campaign: one line through both campaigns' points read as a single curve."""
    from replaylens.dashboard.campaigns import runs_frame
    from replaylens.dashboard.catalog import discover
    from replaylens.figures.runs import repeats_by_kill_moment
    from replaylens.paths import AllowList

    cat = discover([SAMPLES], AllowList.build([SAMPLES]))
    chosen = [c for c in cat.campaigns if c.name in ("fanout", "linear")]
    runs = runs_frame(chosen, AllowList.build([SAMPLES]))
    assert set(runs["campaign"]) == {"fanout", "linear"}
    for metric in ("lines repeated", "checkpoints kept"):
        fig = repeats_by_kill_moment(runs, metric)
        for trace in fig.data:
            owners = set(runs.loc[list(trace.customdata), "campaign"])
            assert len(owners) == 1, (trace.name, owners)
            assert trace.name.startswith(f"{owners.pop()} · "), trace.name


def _sample(campaign: str, run_folder: str, moment: str = "at-kill", with_log: bool = True):  # noqa: ANN202
    """(thread, plan) of a bundled campaign's run, at the kill or after the resume."""
    folder = SAMPLES / campaign / "runs" / run_folder
    db = folder / ("at-kill.db" if moment == "at-kill" else "checkpoints.db")
    log = folder / ("at-kill.effects.jsonl" if moment == "at-kill" else "effects.jsonl")
    source = open_source(db)
    try:
        (row,) = source.thread_index()
        thread = load_thread(source, row.thread_id)
    finally:
        source.close()
    return thread, plan_resume(thread, read_effects(log) if with_log else None, row.thread_id)


def test_without_a_log_the_crash_moment_is_unknown_past_the_last_record() -> None:
    """A database of one's own, no effects log: the line sits at the newest checkpoint, the
    last thing dated. It must say the crash came later, and the task that was running is
    drawn past it as undated, not as a bar ending at a crash time nobody recorded."""
    from replaylens.figures.timeline import AFTER_LAST_RECORD

    thread, plan = _sample("fanout", "sync-0s-1", with_log=False)
    data = build_timeline_data(thread, plan)
    assert data.ending == "unknown"
    fig = timeline_figure(data)
    said = [a.text for a in fig.layout.annotations]
    assert any("crash came later" in t and "unknown" in t for t in said), said
    last = max(m.ts for m in data.marks if m.kind == "checkpoint")
    due = [b for b in data.bars if b.start >= last]
    assert due and all(b.category == AFTER_LAST_RECORD for b in due), due
    # With the log the crash is dated by it: the same line reads as the crash.
    thread, plan = _sample("fanout", "sync-0s-1")
    assert build_timeline_data(thread, plan).ending == "killed"


def test_killed_attempts_end_before_the_resume_process_starts() -> None:
    """The failing graph killed in b, then resumed (b raises again): the killed process's
    attempts of b and b2 were drawn as running on until the resume failed, beside it."""
    thread, plan = _sample("failing", "sync-0s-b1-1", moment="after-resume")
    data = build_timeline_data(thread, plan)
    killed = [a for a in plan.attempts if a.outcome == "in flight"]
    assert killed
    resumed = min(line.ts for a in plan.attempts for line in a.lines if line.pid != killed[0].pid)
    drawn = [b for b in data.bars if b.in_flight]
    assert drawn and all(b.end <= resumed for b in drawn), [
        (b.lane, b.end - resumed) for b in drawn
    ]


def test_auto_zoom_leaves_no_lane_mostly_empty_on_the_subgraph_thread() -> None:
    """Killed in s2 with no pause before it: zoomed to the last moments, 4 of the 8 lanes
    (root checkpoints, __start__, prepare, the subgraph's __start__) showed nothing."""
    from replaylens.figures.timeline import focus_range

    for mode in (None, "sync"):
        thread, plan = _sample("subgraph", "sync-0s-s21-1")
        data = build_timeline_data(thread, plan, mode)
        zoom = focus_range(data, mode)
        if zoom is None:
            continue
        lo, hi = zoom
        busy = {b.lane for b in data.bars if b.end >= lo and b.start <= hi}
        busy |= {m.lane for m in data.marks if lo <= m.ts <= hi}
        empty = [lane for lane in data.lanes if lane not in busy]
        assert len(empty) <= len(data.lanes) // 3, empty
    # A real pause (the approval thread waits seconds for a human) still zooms.
    thread, plan = _sample("payment", "sync-0s-1")
    assert focus_range(build_timeline_data(thread, plan, "sync"), "sync") is not None


def test_approval_thread_checkpoints_neither_overlap_nor_lose_their_step_labels() -> None:
    """The approval thread writes checkpoints -1 and 0 milliseconds apart, then waits for a
    human: their diamonds printed over each other. Close ones are one diamond labelled with
    both steps, and no step label is clipped by the plot area."""
    from replaylens.figures.timeline import CLOSE_SHARE

    thread, plan = _sample("payment", "sync-0s-1")
    for mode in (None, "sync"):
        fig = timeline_figure(build_timeline_data(thread, plan, mode), mode=mode)
        shown = fig.layout.xaxis.range
        diamonds = [
            t
            for t in fig.data
            if t.name in ("checkpoint landed", "checkpoint lost under this mode")
        ]
        assert diamonds
        for trace in diamonds:
            assert trace.cliponaxis is False
            xs = sorted(pd.to_datetime(list(trace.x)))
            lo, hi = (
                (pd.to_datetime(shown[0]), pd.to_datetime(shown[1])) if shown else (xs[0], xs[-1])
            )
            seen = [x for x in xs if lo <= x <= hi]
            gaps = [(b - a).total_seconds() for a, b in zip(seen, seen[1:], strict=False)]
            span = (hi - lo).total_seconds()
            assert all(g >= span * CLOSE_SHARE for g in gaps), (mode, gaps, span)
        labels = [t for trace in diamonds for t in trace.text]
        assert any("," in t for t in labels) or mode == "sync", labels  # "-1, 0" as one
