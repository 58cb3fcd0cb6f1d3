"""One palette for the whole app, so a colour means the same thing on every page.

Thread statuses have their own home, `replaylens.figures.statuses` (word and colour).

Chosen to stay distinguishable for the common colour-vision deficiencies (Okabe-Ito
based) and always paired with a word or an icon, never colour alone.
"""

from __future__ import annotations

VERDICT = {
    "kept": "#009E73",
    "replays": "#E69F00",
    "restart": "#D55E00",
    "lost": "#CC79A7",
    "": "#999999",
}
VERDICT_WORDS = {
    "kept": "kept (not run again)",
    "replays": "runs again on resume",
    "restart": "runs again (restart)",
    "lost": "lost with its input (never run again)",
}
"""`lost`: a task of a fresh input nothing of which was saved: not run again, and not done
either (its work is gone until the input is sent again), so not the green of "kept"."""
REUSED = "#7FCDB8"
"""Kept, and specifically finished in the resume step with its writes re-applied: a light shade
of the timeline's "kept" green, so the graph and the Learn page tell it apart without a new hue."""
GRAPH_STATE = {  # the same meaning has the same colour as on the timeline (VERDICT)
    "done": VERDICT["kept"],
    "reused": REUSED,
    "reruns": VERDICT["replays"],
    "not reached": "#DDDDDD",
}
GRAPH_STATE_WORDS = {
    "done": "done (finished in an earlier superstep)",
    "reused": "reused (finished in the resume step; its writes are re-applied)",
    "reruns": "re-runs (runs again from its first line)",
    "not reached": "not reached yet",
}
LEGEND = {
    "kept: not run again (done, or its writes are reused)": VERDICT["kept"],
    "runs again on resume": VERDICT["replays"],
    "runs again (restart from the input)": VERDICT["restart"],
    "no effects log line / not reached": "#BBBBBB",
    "checkpoint": "#0072B2",
}
"""One legend for every chart and table of the app: meaning -> colour."""


def legend_html() -> str:
    """The legend as swatches (fixed words, no data: safe as HTML)."""
    return " &nbsp; ".join(
        f'<span style="color:{c};font-size:1.1em">■</span> {w}' for w, c in LEGEND.items()
    )


MODE = {"sync": "#0072B2", "async": "#E69F00", "exit": "#CC79A7"}
CHECKPOINT = "#0072B2"
LOST = "#A3001B"
WRITE = "#444444"
ORPHAN = "#D55E00"
CRASH = "#A3001B"
WINDOW = "rgba(230,159,0,0.15)"
