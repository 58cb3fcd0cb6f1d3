"""One palette for the whole app, so a colour means the same thing on every page.

Chosen to stay distinguishable for the common colour-vision deficiencies (Okabe-Ito
based) and always paired with a word or an icon, never colour alone.
"""

from __future__ import annotations

STATUS = {
    "completed": "#009E73",
    "resumable": "#E69F00",
    "interrupted": "#8E6CC2",
    "failed": "#D55E00",
    "needs_restart": "#A3001B",
    "unreadable": "#999999",
}
VERDICT = {
    "kept": "#009E73",
    "replays": "#E69F00",
    "restart": "#D55E00",
    "": "#999999",
}
VERDICT_WORDS = {"kept": "kept (not run again)", "replays": "runs again on resume", "restart": "runs again (restart)"}
GRAPH_STATE = {
    "done": "#009E73",
    "reused": "#56B4E9",
    "reruns": "#E69F00",
    "not reached": "#DDDDDD",
}
GRAPH_STATE_WORDS = {
    "done": "done (finished in an earlier superstep)",
    "reused": "reused (finished in the resume step; its writes are re-applied)",
    "reruns": "re-runs (runs again from its first line)",
    "not reached": "not reached yet",
}
MODE = {"sync": "#0072B2", "async": "#E69F00", "exit": "#CC79A7"}
CHECKPOINT = "#0072B2"
LOST = "#A3001B"
WRITE = "#444444"
ORPHAN = "#D55E00"
CRASH = "#A3001B"
WINDOW = "rgba(230,159,0,0.15)"
