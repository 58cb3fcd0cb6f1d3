"""The Learn page's picture: supersteps as columns, tasks as boxes, checkpoints between them.

Colours say what a SIGKILL in the selected superstep leaves under the selected mode:
kept (its result is in a saved checkpoint), reused (finished in the killed step, its
writes saved), runs again, killed mid-task, not started yet.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from replaylens.figures import colors
from replaylens.text import plotly_text

FATE_COLOR = {  # the app's one palette (figures/colors.py): the same meaning, the same colour
    "kept": colors.VERDICT["kept"],
    "reused": colors.REUSED,
    "reruns": colors.VERDICT["replays"],
    "killed": colors.ORPHAN,
    "not started": colors.GRAPH_STATE["not reached"],
}
FATE_WORDS = {
    "kept": "kept: in a saved checkpoint",
    "reused": "finished, writes saved: reused",
    "reruns": "runs again on resume",
    "killed": "killed mid-task: runs again",
    "not started": "not started yet",
}
CHECKPOINT_COLOR = {"saved": colors.CHECKPOINT, "lost": colors.ORPHAN, "not yet": "#BBBBBB"}
CHECKPOINT_WORDS = {"saved": "checkpoint saved after the step", "lost": "checkpoint lost by the kill",
                    "not yet": "checkpoint not written yet"}  # fmt: skip


def superstep_figure(lessons: list[Any], selected: int, mode: str) -> go.Figure:
    """Columns = supersteps; the kill lands in lessons[selected] (tasks of later steps not started)."""
    fig = go.Figure()
    if not lessons:
        return fig
    chosen = lessons[selected].modes.get(mode)
    if chosen is None:  # no model for this step (a thread without timings)
        return fig
    fates = chosen.fates
    checkpoints = chosen.checkpoints
    lanes: list[str] = []
    boxes: dict[str, list[tuple[float, str, str]]] = {k: [] for k in FATE_COLOR}
    for lesson in lessons:
        count: dict[str, int] = {}
        for j, task in enumerate(lesson.tasks):
            if task.node == "__start__":
                continue
            lane = plotly_text(task.node)  # a category value: drawn as a tick label
            if lane not in lanes:
                lanes.append(lane)
            fate = fates.get((lesson.step, j), "not started")
            n = count.get(task.node, 0)
            count[task.node] = n + 1
            x = lesson.step + (n * 0.12)
            hover = (f"<b>{plotly_text(task.node)}</b>, superstep {lesson.step}<br>{FATE_WORDS[fate]}"
                     f"<br>writes: {plotly_text(', '.join(task.channels) or 'none')}")  # fmt: skip
            boxes[fate].append((x, lane, hover))
    for fate, items in boxes.items():
        if not items:
            continue
        fig.add_trace(go.Scatter(
            x=[i[0] for i in items], y=[i[1] for i in items], mode="markers", name=FATE_WORDS[fate],
            marker={"symbol": "square", "size": 26, "color": FATE_COLOR[fate], "line": {"width": 1, "color": "#333"}},
            hovertext=[i[2] for i in items], hoverinfo="text",
        ))  # fmt: skip
    steps = [lesson.step for lesson in lessons]
    cp_x = [s + 0.5 for s in steps if s in checkpoints]
    cp_state = [checkpoints[s] for s in steps if s in checkpoints]
    for state in CHECKPOINT_COLOR:  # one legend entry per diamond colour, grey ones included
        xs = [x for x, c in zip(cp_x, cp_state, strict=True) if c == state]
        if not xs:
            continue
        fig.add_trace(go.Scatter(
            x=xs, y=[lanes[0] if lanes else ""] * len(xs), mode="markers+text",
            marker={"symbol": "diamond", "size": 16, "color": CHECKPOINT_COLOR[state]},
            text=[{"saved": "saved", "lost": "lost", "not yet": ""}[state]] * len(xs), textposition="top center",
            name=CHECKPOINT_WORDS[state],
            hovertext=[f"checkpoint after step {int(x - 0.5)}: {state}" for x in xs],
            hoverinfo="text",
        ))  # fmt: skip
    kill_step = lessons[selected].step
    fig.add_shape(
        type="rect",
        xref="x",
        yref="paper",
        x0=kill_step - 0.4,
        x1=kill_step + 0.4,
        y0=0,
        y1=1,
        fillcolor="rgba(213,94,0,0.08)",
        line={"color": "#D55E00", "width": 1, "dash": "dot"},
    )
    fig.add_annotation(
        x=kill_step,
        y=1,
        xref="x",
        yref="paper",
        text="SIGKILL here",
        showarrow=False,
        yanchor="bottom",
        font={"color": "#D55E00"},
    )
    fig.update_xaxes(
        tickvals=steps,
        ticktext=[f"superstep {s}" for s in steps],
        range=[min(steps) - 0.6, max(steps) + 0.9],
    )
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(lanes)))
    fig.update_layout(height=max(240, 110 + 48 * len(lanes)), margin={"l": 10, "r": 10, "t": 30, "b": 30},
                      legend={"orientation": "h", "y": -0.2}, title=None)  # fmt: skip
    return fig
