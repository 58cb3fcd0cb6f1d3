"""Kill-test runs as strip plots: every run is a visible point, per mode and write latency."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from replaylens.analysis.durability import MODES
from replaylens.figures import colors
from replaylens.text import plotly_text

MODE_ORDER = MODES
METRICS = {
    "checkpoints kept": "Checkpoints in the database at the kill",
    "effect lines after resume": "Effect lines after the resume finished",
    "tasks re-run": "Tasks re-run by the resume (measured)",
    "effect lines again": "Effect lines of those tasks (measured)",
}
PREDICTED = {
    "tasks re-run": "tasks re-run (predicted)",
    "effect lines again": "effect lines again (predicted)",
}
"""The model's answer for a measured column, drawn next to each measured point."""


def _figure_bounds(value: object) -> tuple[float | None, float | None]:
    """A predicted figure as the views print it ("5", or "5–6" where the evidence cannot
    tell; None or NaN where there is none) as (lowest, highest)."""
    if value is None or (isinstance(value, float) and value != value):
        return None, None
    parts = [float(x) for x in str(value).split("–")]
    return min(parts), max(parts)


def runs_strip(runs: pd.DataFrame, metric: str) -> go.Figure:
    """One point per run (x: mode, jittered by latency; colour: latency); customdata = row number.

    The row number lets a click on a point open that run on the Thread page.
    """
    fig = go.Figure()
    if runs.empty or metric not in runs:
        fig.add_annotation(
            text="No runs to show", showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper"
        )
        return fig
    modes = [m for m in MODE_ORDER if m in set(runs["mode"])] + sorted(
        set(runs["mode"]) - set(MODE_ORDER)
    )
    latencies = sorted(set(runs["latency (ms)"]))
    campaigns = sorted(set(runs["campaign"])) if "campaign" in runs else []
    several = len(campaigns) > 1  # then each campaign gets its own marker shape and legend entry
    palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"]
    width = 0.6 / max(len(latencies), 1)
    groups = [
        (li, latency, camp)
        for li, latency in enumerate(latencies)
        for camp in (campaigns if several else [None])
    ]
    for li, latency, camp in groups:
        part = runs[
            (runs["latency (ms)"] == latency)
            & ((runs["campaign"] == camp) if camp is not None else True)
        ]
        part = part.reset_index().rename(columns={"index": "row"})
        if part.empty:
            continue
        offsets = [(li - (len(latencies) - 1) / 2) * width for _ in range(len(part))]
        jitter = [((i % 5) - 2) * width / 8 for i in range(len(part))]
        xs = [modes.index(m) + o + j for m, o, j in zip(part["mode"], offsets, jitter, strict=True)]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=part[metric],
                mode="markers",
                marker={
                    "size": 12,
                    "color": palette[li % len(palette)],
                    "line": {"width": 1, "color": "white"},
                    "symbol": CAMPAIGN_SYMBOLS[campaigns.index(camp) % len(CAMPAIGN_SYMBOLS)]
                    if camp
                    else "circle",
                },
                name=(f"{plotly_text(camp)} · " if camp else "") + f"{latency} ms write latency",
                customdata=part["row"],
                hovertext=[
                    (f"{plotly_text(camp)} · " if camp else "")
                    + f"run {r} · {plotly_text(m)} · {latency} ms<br>{plotly_text(metric)}: {v}"
                    f"<br>thread {plotly_text(t)}<br>click to open it on the Thread page"
                    for r, m, v, t in zip(
                        part["run"], part["mode"], part[metric], part["thread"], strict=True
                    )
                ],
                hoverinfo="text",
            )
        )
        predicted = PREDICTED.get(metric)
        if predicted in part:
            bounds = [_figure_bounds(v) for v in part[predicted]]
            fig.add_trace(
                go.Scatter(
                    x=[x + width / 4 for x in xs],
                    y=[hi for _lo, hi in bounds],
                    # a range where the evidence cannot tell: the cross at its top, a bar down
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": [0] * len(bounds),
                        "arrayminus": [
                            hi - lo if lo is not None and hi is not None else 0 for lo, hi in bounds
                        ],
                        "width": 4,
                        "color": palette[li % len(palette)],
                    },  # fmt: skip
                    mode="markers",
                    marker={
                        "size": 12,
                        "symbol": "x-thin-open",
                        "line": {"width": 2, "color": palette[li % len(palette)]},
                    },
                    name=f"{latency} ms: predicted",
                    hoverinfo="text",
                    hovertext=[
                        f"run {r} · {plotly_text(m)} · {latency} ms<br>predicted {plotly_text(metric)}: {v}"
                        for r, m, v in zip(part["run"], part["mode"], part[predicted], strict=True)
                    ],
                )
            )
    fig.update_xaxes(tickvals=list(range(len(modes))), ticktext=[plotly_text(m) for m in modes], range=[-0.6, len(modes) - 0.4],
                     title="durability mode")  # fmt: skip
    # The long sentence is the chart's title (wrapped); the axis says the short name, so
    # neither is cut in a third of the page.
    fig.update_yaxes(title=metric, rangemode="tozero", tickformat="d", **_whole_ticks(runs[metric]))
    fig.update_layout(
        title={"text": _wrap(METRICS.get(metric, metric)), "font": {"size": 14}}, height=440,
        margin={"l": 10, "r": 10, "t": 70, "b": 110},
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0}, clickmode="event+select",
        shapes=[{"type": "rect", "xref": "x", "yref": "paper", "x0": i - 0.45, "x1": i + 0.45, "y0": 0, "y1": 1,
                 "fillcolor": colors.MODE.get(m, "#999999"), "opacity": 0.06, "line": {"width": 0}}
                for i, m in enumerate(modes)],
    )  # fmt: skip
    return fig


CAMPAIGN_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "star")


def _wrap(text: str, width: int = 28) -> str:
    """A title in lines of about `width` characters (Plotly does not wrap titles itself)."""
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "<br>".join([*lines, line])


BACKEND_SYMBOL = {"sqlite": "circle", "postgres": "diamond"}


def _whole_ticks(values: pd.Series) -> dict[str, float]:
    """One tick per whole number for small counts: Plotly would print 0, 0, 1, 1, 1."""
    top = pd.to_numeric(values, errors="coerce").max()
    return {"dtick": 1} if pd.notna(top) and top <= 10 else {}


def repeats_by_kill_moment(runs: pd.DataFrame, metric: str = "lines repeated") -> go.Figure:
    """`metric` (lines repeated, checkpoints kept) against the drawn kill delay, one trace
    per backend and mode, and per campaign when several are compared (each its own marker
    shape and legend entry: one line through two campaigns' points read as one curve).

    With `--kill-delay LOW..HIGH` every run lands at its own moment of the node, so the
    window in which `async` has not yet saved the previous checkpoint shows as a step in
    the curve. Runs killed at a fault point (no delay) are left out; customdata = row.
    """
    fig = go.Figure()
    timed = runs.dropna(subset=["kill delay (s)", metric]) if not runs.empty else runs
    if timed.empty:
        fig.add_annotation(text="No run was killed at a measured delay", showarrow=False, x=0.5, y=0.5,
                           xref="paper", yref="paper")  # fmt: skip
        return fig
    timed = timed.reset_index().rename(columns={"index": "row"})
    campaigns = sorted(set(timed["campaign"])) if "campaign" in timed else []
    several = len(campaigns) > 1  # then one line per campaign too, named in the legend
    keys = ["campaign", "backend", "mode"] if several else ["backend", "mode"]
    for group, part in timed.groupby(keys, sort=True):
        camp, backend, mode = group if several else (None, *group)
        part = part.sort_values("kill delay (s)")
        symbol = (
            CAMPAIGN_SYMBOLS[campaigns.index(camp) % len(CAMPAIGN_SYMBOLS)]
            if several
            else BACKEND_SYMBOL.get(str(backend).split(" ")[0], "square")
        )
        named = f"{plotly_text(camp)} · " if several else ""
        fig.add_trace(
            go.Scatter(
                x=part["kill delay (s)"], y=part[metric], mode="lines+markers",
                name=f"{named}{plotly_text(backend)} · {plotly_text(mode)}",
                line={"color": colors.MODE.get(str(mode), "#999999"), "width": 1,
                      "dash": "solid" if str(backend).startswith("sqlite") else "dot"},
                marker={"size": 10, "symbol": symbol,
                        "color": colors.MODE.get(str(mode), "#999999"), "line": {"width": 1, "color": "white"}},
                customdata=part["row"],
                hovertext=[
                    f"{named}run {r} · {plotly_text(backend)} · {plotly_text(mode)}<br>killed {d:.3f}s after "
                    f"{plotly_text(k)} started<br>{plotly_text(metric)}: {v}<br>click to open it on the Thread page"
                    for r, d, k, v in zip(part["run"], part["kill delay (s)"], part["kill at"], part[metric],
                                          strict=True)
                ],
                hoverinfo="text",
            )
        )  # fmt: skip
    fig.update_xaxes(title="kill moment (s into the node)", rangemode="tozero")
    fig.update_yaxes(
        title=metric, rangemode="tozero", tickformat="d", **_whole_ticks(timed[metric])
    )
    fig.update_layout(title={"text": _wrap(f"{metric.capitalize()} against the kill moment, per backend and mode", 30),
                             "font": {"size": 14}}, height=440,
                      margin={"l": 10, "r": 10, "t": 70, "b": 110},
                      legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0},
                      clickmode="event+select")  # fmt: skip
    return fig
