"""The superstep timeline of one thread: who ran when, what landed, what a resume repeats.

One lane per node (per subgraph namespace), one lane of checkpoint markers per
namespace. Bars are task attempts from the effects log (coloured by what a resume does
to them); without a log, each task is drawn from the checkpoint it started at to the
next one. Writes rows carry no timestamp, so a task's write marker sits at the end of
its attempt (or at the next checkpoint) and the hover says so.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from replaylens import namespaces
from replaylens.analysis.verdicts import LOST_INPUT
from replaylens.figures import colors
from replaylens.model import NULL_TASK_ID, Thread, channel_label
from replaylens.text import plotly_text
from replaylens.times import checkpoint_id_time, iso_to_epoch

if TYPE_CHECKING:
    from replaylens.analysis.plan import ResumePlan

MIN_BAR_SECONDS = 0.004
ENDING_LINE = {
    "killed": "crash (last record)",
    "unknown": "last record: the crash came later (when is unknown)",
    "raised": "failed here",
    "paused": "paused for an answer",
}

AFTER_LAST_RECORD = "ran after the last record (when: unknown)"
"""The legend name of a task due after the newest checkpoint of a thread with no effects log:
nothing dates it, nor the crash, so it is drawn past the last record, hatched, not to a time."""
UNKNOWN_TAIL = 0.08
"""How far past the last record such a task is drawn, as a share of the thread's span."""

CHECKPOINT_TASK = "task with no log line (drawn from checkpoints)"
"""The legend name of a task the effects log has no line for: drawn from the checkpoint it
started at to the next one (every task, when there is no log)."""


@dataclass(frozen=True)
class Bar:
    lane: str
    start: float
    end: float
    category: str  # legend entry: a verdict word, or CHECKPOINT_TASK
    color: str
    hover: str
    in_flight: bool = False
    slot: int = 0  # which of the lane's sub-rows: parallel tasks (Send) each get their own
    slots: int = 1


@dataclass(frozen=True)
class Mark:
    lane: str
    ts: float
    kind: str  # checkpoint | lost | write | orphan | killed
    hover: str
    text: str = ""
    checkpoint_id: str = ""


@dataclass
class TimelineData:
    """Everything the figure draws, as plain values (epoch seconds, lane names)."""

    lanes: list[str] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    crash_ts: float | None = None
    windows: dict[str, tuple[float, float]] = field(default_factory=dict)
    ending: str = (
        "killed"  # killed | returned | raised | paused | unknown: names the line at crash_ts
    )
    unplaced: int = 0
    """Checkpoints the mode's model keeps that left no trace to place them by (never landed
    in the recording, no write hangs off them): counted in the banner, not drawn."""

    def add_lane(self, lane: str) -> str:
        if lane not in self.lanes:
            self.lanes.append(lane)
        return lane


def _e(text: Any) -> str:
    """Database text inside Plotly's pseudo-HTML: escaped, so tags and links stay text."""
    return plotly_text(text)


def ns_prefix(ns: str) -> str:
    """`sub:1234|inner:5678` -> `sub › inner` (task ids dropped)."""
    return namespaces.label(ns)


def lane_for(ns: str, node: str) -> str:
    """The lane (a category value, drawn as a tick label: escaped like every Plotly text)."""
    prefix = ns_prefix(ns)
    return plotly_text(f"{prefix} › {node}" if prefix else node)


def checkpoint_lane(ns: str) -> str:
    return plotly_text(f"checkpoints ({ns_prefix(ns)})") if ns else "checkpoints"


def build_timeline_data(
    thread: Thread | None, plan: ResumePlan | None = None, mode: str | None = None
) -> TimelineData:
    """Lay out one thread (and its resume plan, when there is one) on lanes and times.

    With `mode`, the thread is drawn as that durability mode would have left it (the
    plan's `what_if[mode]`, one model for every page): checkpoints it would have lost
    are drawn as lost, task attempts coloured by whether that mode's resume re-runs them,
    and only that mode's replay window is shaded.
    """
    data = TimelineData()
    outcome = (getattr(plan, "what_if", None) or {}).get(mode) if mode else None
    data.ending = getattr(outcome, "ending", "killed") if outcome is not None else _ending_of(plan)
    attempts = list(getattr(plan, "attempts", []) or [])
    attempt_by_task: dict[str, Any] = {}
    for a in attempts:
        tid = a.task.task_id if getattr(a, "task", None) is not None else a.task_id
        if tid:
            attempt_by_task[tid] = a  # the latest attempt wins: that is when its writes landed
    crash = getattr(plan, "crash_ts", None)
    status = getattr(plan, "status", None)
    if status != "completed":
        data.crash_ts = crash
    # Without an effects log the last thing dated is the newest checkpoint: the crash came
    # after it, at a moment nothing records, so the line there is the last record, not the crash.
    unknown = data.ending == "killed" and not getattr(plan, "effects_given", True)
    if unknown:
        data.ending = "unknown"
    if thread is not None:
        _lay_out_checkpoints(data, thread, attempt_by_task, crash, unknown_after=unknown)
    if outcome is not None:
        kept = set(outcome.kept_checkpoint_ids)
        data.marks = [
            Mark(
                m.lane,
                m.ts,
                "lost",
                m.hover.replace("<b>checkpoint,", f"<b>lost under {_e(mode)}: checkpoint,", 1),
                m.text,
            )
            if m.kind == "checkpoint" and m.checkpoint_id not in kept
            else m
            for m in data.marks
        ]
    if outcome is not None and thread is not None and not outcome.as_recorded:
        _would_keep(data, thread, outcome, mode or "")
    again = set(outcome.replayed_lines) if outcome is not None else None
    dated = [m.ts for m in data.marks if m.kind in ("checkpoint", "lost")]
    for a in attempts:
        ns = a.namespace if a.namespace is not None else (a.logged_ns or "")
        lane = data.add_lane(lane_for(ns, a.node))
        end = a.end_ts
        in_flight = a.outcome == "in flight"
        if in_flight and crash is not None:
            end = max(end, _gone_by(a, attempts, crash, dated))
        verdict = a.verdict or ""
        if again is not None:
            runs_again = any(line.line in again for line in a.lines)
            verdict = ("restart" if outcome.restart else "replays") if runs_again else "kept"
        if verdict == "kept" and a.reason == LOST_INPUT and (outcome is None or outcome.lost_input):
            verdict = "lost"
        word = colors.VERDICT_WORDS.get(verdict, "not judged")
        lines = ", ".join(str(line.line) for line in a.lines)
        hover = (
            f"<b>{_e(a.node)}</b> attempt {a.attempt}<br>outcome: {_e(a.outcome)}<br>"
            f"on resume: {_e(word)}<br>{_e(a.reason)}<br>effects: {_e(', '.join(a.effects))}"
            f"<br>log lines {lines} · pid {a.pid}"
        )
        data.bars.append(
            Bar(
                lane,
                a.start_ts,
                end,
                word,
                colors.VERDICT.get(verdict, "#999999"),
                hover,
                in_flight,
            )
        )
        if in_flight:  # a bar this short can vanish on a long time axis; the marker cannot
            data.marks.append(
                Mark(
                    lane,
                    a.start_ts,
                    "killed",
                    f"<b>{_e(a.node)}</b> was still running here (started, never ended)",
                )
            )
    for name, o in (getattr(plan, "what_if", None) or {}).items():
        if (
            o.window_start is not None
            and o.window_end is not None
            and (mode is None or name == mode)
        ):
            data.windows[name] = (o.window_start, o.window_end)
    data.bars = stack_parallel(data.bars)
    return data


def _gone_by(attempt: Any, attempts: list[Any], crash: float, dated: list[float]) -> float:
    """Until when an attempt that never ended is drawn: the crash, unless another process
    wrote after it started (a resume runs in a fresh process). Then its process was killed
    before that line, at a moment nothing records, and the attempt is drawn to the last
    sign of that process (its own log lines, the checkpoints written before the resume):
    drawn to the crash, a killed attempt of a thread resumed later looked as if it ran on
    beside the resume."""
    pid = attempt.pid
    if pid is None:
        return crash
    later = [
        line.ts
        for other in attempts
        for line in other.lines
        if line.ts > attempt.start_ts and line.pid is not None and line.pid != pid
    ]
    if not later:
        return crash
    resumed = min(later)
    alive = [
        line.ts
        for other in attempts
        for line in other.lines
        if line.pid == pid and line.ts < resumed
    ] + [t for t in dated if t < resumed]
    return min(max([attempt.start_ts, *alive]), crash)


def _ending_of(plan: Any) -> str:
    """How the recorded run ended, for the label of the line drawn where it stopped."""
    outcomes = list((getattr(plan, "what_if", None) or {}).values())
    return getattr(outcomes[0], "ending", "killed") if outcomes else "killed"


def stack_parallel(bars: list[Bar]) -> list[Bar]:
    """Give overlapping bars of one lane their own sub-rows, so three `Send` tasks of one node
    running at once show as three bars, not one."""
    from dataclasses import replace

    by_lane: dict[str, list[int]] = {}
    for i, b in enumerate(bars):
        by_lane.setdefault(b.lane, []).append(i)
    out = list(bars)
    for indexes in by_lane.values():
        ends: list[float] = []  # per sub-row, when its last bar ends
        slot_of: dict[int, int] = {}
        for i in sorted(indexes, key=lambda i: (bars[i].start, bars[i].end)):
            b = bars[i]
            free = next((k for k, end in enumerate(ends) if end <= b.start), None)
            if free is None:
                ends.append(b.end)
                free = len(ends) - 1
            else:
                ends[free] = b.end
            slot_of[i] = free
        if len(ends) > 1:
            for i, slot in slot_of.items():
                out[i] = replace(bars[i], slot=slot, slots=len(ends))
    return out


def _lay_out_checkpoints(
    data: TimelineData,
    thread: Thread,
    attempt_by_task: dict[str, Any],
    crash: float | None,
    *,
    unknown_after: bool = False,
) -> None:
    dated = [
        t for ns in thread.namespaces.values() for c in ns.checkpoints if (t := iso_to_epoch(c.ts))
    ]
    tail = max((max(dated) - min(dated)) * UNKNOWN_TAIL, 0.02) if dated else 0.02
    for ns in thread.namespaces.values():
        cp_lane = data.add_lane(checkpoint_lane(ns.name))
        for cp in ns.checkpoints:
            ts = iso_to_epoch(cp.ts)
            if ts is None:
                continue
            tasks = ", ".join(f"{t.label} ({t.status})" for t in cp.tasks) or "nothing"
            data.marks.append(
                Mark(
                    cp_lane,
                    ts,
                    "checkpoint",
                    f"<b>checkpoint, step {cp.step}</b> ({_e(cp.source)})<br>{_e(cp.checkpoint_id)}"
                    f"<br>due next: {_e(tasks)}",
                    f"{cp.step}",
                    cp.checkpoint_id,
                )  # fmt: skip
            )
            child_ts = [
                t for t in (iso_to_epoch(ns.by_id[c].ts) for c in cp.children if c in ns.by_id) if t
            ]
            next_ts = min(child_ts) if child_ts else None
            for task in [*cp.tasks, *cp.calls]:  # calls on their own lanes, not as tasks of `next`
                lane = data.add_lane(lane_for(ns.name, task.node or "unnamed @task calls"))
                attempt = attempt_by_task.get(task.task_id)
                if attempt is None and next_ts is None and unknown_after:
                    data.bars.append(
                        Bar(
                            lane,
                            ts,
                            ts + tail,
                            AFTER_LAST_RECORD,
                            "#BBBBBB",
                            f"<b>{_e(task.label)}</b> step {task.step}: {_e(task.status)}<br>due after the newest "
                            "checkpoint, the last record: without an effects log, when it ran and when the crash "
                            "came are unknown",
                            in_flight=not task.done,
                        )  # fmt: skip
                    )
                elif attempt is None:
                    end = next_ts
                    if end is None:  # no next checkpoint: a pending task runs until the crash
                        running = not task.done and crash is not None and crash > ts
                        end = crash if running and crash is not None else ts + MIN_BAR_SECONDS
                    data.bars.append(
                        Bar(
                            lane,
                            ts,
                            end,
                            CHECKPOINT_TASK,
                            "#BBBBBB",
                            f"<b>{_e(task.label)}</b> step {task.step}: {_e(task.status)}<br>drawn from the "
                            "checkpoint it started at to the next one (no effects log line for it)",
                        )  # fmt: skip
                    )
                writes = [w for w in cp.writes if w.task_id == task.task_id]
                if writes:
                    at = (
                        attempt.end_ts
                        if attempt is not None
                        else (next_ts or (ts + tail if unknown_after else ts))
                    )
                    chans = ", ".join(sorted({channel_label(w.channel) for w in writes}))
                    data.marks.append(
                        Mark(
                            lane,
                            at,
                            "write",
                            f"<b>{len(writes)} write(s) of {_e(task.label)}</b><br>{_e(chans)}<br>saved against "
                            f"step {cp.step}'s checkpoint (time approximate: writes rows carry no timestamp)",
                        )  # fmt: skip
                    )
            update_ts = [
                t
                for t in (
                    iso_to_epoch(ns.by_id[c].ts)
                    for c in cp.children
                    if c in ns.by_id and ns.by_id[c].source == "update"
                )
                if t
            ]
            for update in cp.updates:
                data.marks.append(
                    Mark(
                        cp_lane,
                        min(update_ts) if update_ts else ts,
                        "write",
                        f"<b>{_e(update.label)}</b> (update_state, not a task)<br>{_e(', '.join(update.channels))}"
                        f"<br>{_e(update.how)}",
                    )
                )
            nulls = [w for w in cp.writes if w.task_id == NULL_TASK_ID]
            if nulls:
                data.marks.append(
                    Mark(
                        cp_lane,
                        ts,
                        "write",
                        f"{len(nulls)} write(s) of an update or resume command",
                    )
                )
    for w in thread.orphan_writes:
        attempt = attempt_by_task.get(w.task_id)
        lane = data.add_lane(
            lane_for(w.checkpoint_ns, attempt.node) if attempt else "orphan writes"
        )
        at = attempt.end_ts if attempt is not None else crash
        if at is None:
            continue
        data.marks.append(
            Mark(
                lane,
                at,
                "orphan",
                f"<b>orphan write</b>: {_e(channel_label(w.channel))}<br>its checkpoint {_e(w.checkpoint_id)} "
                "never landed, so a resume ignores it and the task runs again",
                "",
                w.checkpoint_id,
            )  # fmt: skip
        )


def _would_keep(data: TimelineData, thread: Thread, outcome: Any, mode: str) -> None:
    """Draw the checkpoints a modelled mode keeps that never landed in this recording.

    Such a checkpoint was made (its id is the one the orphan writes hang off, its time is in
    the id) and lost; the mode's model says it would have landed (`checkpoints_kept` counts
    it). Puts land in order, so the first ids the count covers are drawn as landed there, and
    their writes are no orphans under that mode: the banner's count, the diamonds and the
    crosses say the same."""
    if mode == "exit" and outcome.ending == "killed":
        # A kill under exit leaves no write at all (put_writes is skipped until the end). What
        # exit keeps that this recording never made (a `DeltaChannel`'s stub) has no time.
        data.marks = [m for m in data.marks if m.kind not in ("orphan", "write")]
        drawn = sum(1 for m in data.marks if m.kind == "checkpoint")
        data.unplaced = max(0, outcome.checkpoints_kept - drawn)
        return
    drawn = sum(1 for m in data.marks if m.kind == "checkpoint")
    extra = outcome.checkpoints_kept - drawn
    if extra <= 0:
        return
    spaces = {w.checkpoint_id: w.checkpoint_ns for w in thread.orphan_writes}
    would = sorted(spaces)[:extra]
    for cid in would:
        when = iso_to_epoch(checkpoint_id_time(cid) or "")
        if when is None:
            continue
        data.marks.append(
            Mark(
                data.add_lane(checkpoint_lane(spaces[cid])),
                when,
                "checkpoint",
                f"<b>kept under {_e(mode)} (model)</b>: checkpoint {_e(cid)} was made and never landed in "
                "this recording; under this mode it lands, with the writes saved against it",
                "",
                cid,
            )
        )
    kept = set(would)
    data.marks = [m for m in data.marks if not (m.kind == "orphan" and m.checkpoint_id in kept)]
    data.unplaced = outcome.checkpoints_kept - sum(1 for m in data.marks if m.kind == "checkpoint")


def _when(ts: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, dt.UTC).replace(tzinfo=None)


def _dates(stamps: list[float]) -> np.ndarray:
    """Epoch seconds as UTC datetime64[us]: Plotly takes a NumPy array whole, while a list
    of datetimes is checked item by item."""
    return (
        np.round(np.asarray(stamps, dtype="float64") * 1e6).astype("int64").astype("datetime64[us]")
    )


def _texts(values: list[str]) -> np.ndarray:
    return np.asarray(values, dtype=object)


MARK_STYLE = {
    "checkpoint": {
        "symbol": "diamond",
        "size": 13,
        "color": colors.CHECKPOINT,
        "name": "checkpoint landed",
    },
    "lost": {
        "symbol": "diamond-open",
        "size": 13,
        "color": colors.LOST,
        "name": "checkpoint lost under this mode",
    },
    "write": {"symbol": "line-ns-open", "size": 16, "color": colors.WRITE, "name": "writes saved"},
    "orphan": {"symbol": "x", "size": 14, "color": colors.ORPHAN, "name": "orphan write"},
    "killed": {
        "symbol": "star",
        "size": 15,
        "color": colors.CRASH,
        "name": "started, never finished",
    },
}


def focus_range(data: TimelineData, mode: str | None) -> tuple[float, float] | None:
    """Seconds to show around the crash when the thread waited a long time before it (a pause
    for a human): from the end of that pause (or the newest checkpoint before the crash, or
    the replay window's start, whichever is earliest) to the crash, padded.

    None when the whole thread already fits, or when nothing paused: zoomed into a busy
    thread (a subgraph's eight lanes), most lanes were left empty.
    """
    if data.crash_ts is None:
        return None
    crash = data.crash_ts
    stamps = [m.ts for m in data.marks if m.kind == "checkpoint" and m.ts <= crash]
    lo = max(stamps) if stamps else crash
    if mode and mode in data.windows:
        lo = min(lo, data.windows[mode][0])
    times = [b.start for b in data.bars] + [m.ts for m in data.marks]
    if not times:
        return None
    span = crash - min(times)
    pause = _longest_pause(data, crash)
    if pause is None or pause[1] - pause[0] < span / 2:
        return None
    lo = min(lo, pause[1])
    pad = max((crash - lo) * 0.15, 0.05)
    if span <= 3 * (crash - lo + 2 * pad):
        return None
    return lo - pad, crash + pad


def _longest_pause(data: TimelineData, until: float) -> tuple[float, float] | None:
    """The longest stretch before `until` in which no bar ran and no mark was made."""
    spans = sorted(
        [(b.start, b.end) for b in data.bars if b.start <= until]
        + [(m.ts, m.ts) for m in data.marks if m.ts <= until]
    )
    best: tuple[float, float] | None = None
    reach = None
    for start, end in spans:
        if (
            reach is not None
            and start > reach
            and (best is None or start - reach > best[1] - best[0])
        ):
            best = (reach, start)
        reach = end if reach is None else max(reach, end)
    return best


def _uniform(values: list[Any]) -> Any:
    """One value for the whole trace when every bar shares it: Plotly validates style lists
    item by item (0.3 s for a 3,000-checkpoint thread), a scalar once."""
    first = values[0] if values else None
    return first if all(v == first for v in values) else values


LANE_HEIGHT = 0.7  # of one lane, in category units: the bars of a lane share it


def _slot_geometry(bars: list[Bar]) -> dict[str, Any]:
    """Bar width and offset per bar: one sub-row each when tasks of a lane ran in parallel."""
    if all(b.slots == 1 for b in bars):
        return {"width": 0.6}
    widths = [LANE_HEIGHT / b.slots for b in bars]
    offsets = [-LANE_HEIGHT / 2 + b.slot * w for b, w in zip(bars, widths, strict=True)]
    return {"width": np.asarray(widths) * 0.9, "offset": np.asarray(offsets)}


def _label_positions(marks: list[Mark]) -> list[str]:
    """Step numbers above and below in turn where checkpoints sit close together, so "-1" and
    "0" written a few milliseconds apart do not print over each other."""
    order = sorted(range(len(marks)), key=lambda i: (marks[i].lane, marks[i].ts))
    out = ["top center"] * len(marks)
    flip = False
    previous: Mark | None = None
    for i in order:
        m = marks[i]
        flip = (not flip) if previous is not None and previous.lane == m.lane else False
        out[i] = "bottom center" if flip else "top center"
        previous = m
    return out


CLOSE_SHARE = 0.04
"""Checkpoints of one lane closer than this share of the shown time are one diamond: 13-pixel
diamonds a few milliseconds apart drew over each other and over their step numbers."""


def merge_close(marks: list[Mark], shown: tuple[float, float] | None) -> list[Mark]:
    """Checkpoint (and lost-checkpoint) marks of a lane that would overlap at the shown time
    span, as one mark: its label lists the steps (`-1, 0`), its hover every checkpoint."""
    if not marks or shown is None or shown[1] <= shown[0]:
        return marks
    gap = (shown[1] - shown[0]) * CLOSE_SHARE
    out: list[Mark] = []
    for m in sorted(marks, key=lambda m: (m.lane, m.kind, m.ts)):
        last = out[-1] if out else None
        if (last is not None and last.lane == m.lane and last.kind == m.kind
                and m.kind in ("checkpoint", "lost") and m.ts - last.ts < gap):  # fmt: skip
            out[-1] = Mark(last.lane, last.ts, last.kind, f"{last.hover}<br><br>{m.hover}",
                           f"{last.text}, {m.text}" if m.text else last.text, last.checkpoint_id)  # fmt: skip
        else:
            out.append(m)
    return out


def timeline_figure(
    data: TimelineData, *, mode: str | None = None, title: str | None = None
) -> go.Figure:
    """Draw `data`; the replay window of `mode` (sync, async or exit) is shaded."""
    traces: list[dict[str, Any]] = []
    by_category: dict[str, list[Bar]] = {}
    for bar in data.bars:
        by_category.setdefault(bar.category, []).append(bar)
    for category, bars in by_category.items():
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "y": _texts([b.lane for b in bars]),
                "base": _dates([b.start for b in bars]),
                "x": np.asarray(
                    [max(b.end - b.start, MIN_BAR_SECONDS) * 1000 for b in bars], dtype="float64"
                ),
                "marker": {
                    "color": _uniform([b.color for b in bars]),
                    "pattern": {
                        "shape": _uniform(["/" if b.in_flight else "" for b in bars]),
                        "fgcolor": "#7a4d00",
                        "bgcolor": _uniform([b.color for b in bars]),
                        "solidity": 0.25,
                    },
                    "line": {"width": 0},
                },
                "opacity": 0.9 if category != CHECKPOINT_TASK else 0.5,
                "name": category,
                "hovertext": _texts([b.hover for b in bars]),
                "hoverinfo": "text",
                **_slot_geometry(bars),
            }
        )
    zoom = focus_range(data, mode)
    moments = [b.start for b in data.bars] + [b.end for b in data.bars] + [m.ts for m in data.marks]
    shown = zoom or ((min(moments), max(moments)) if moments else None)
    for kind, style in MARK_STYLE.items():
        marks = [m for m in data.marks if m.kind == kind]
        if kind in ("checkpoint", "lost"):
            marks = merge_close(marks, shown)
        if not marks:
            continue
        traces.append(
            {
                "type": "scatter",
                "x": _dates([m.ts for m in marks]),
                "y": _texts([m.lane for m in marks]),
                "mode": "markers+text" if kind in ("checkpoint", "lost") else "markers",
                "text": _texts([m.text for m in marks]) if kind in ("checkpoint", "lost") else None,
                "textposition": _texts(_label_positions(marks))
                if kind in ("checkpoint", "lost")
                else "top center",
                "textfont": {"size": 10, "color": style["color"]},
                "marker": {
                    "symbol": style["symbol"],
                    "size": style["size"],
                    "color": style["color"],
                    "line": {"width": 2, "color": style["color"]},
                },
                "name": style["name"],
                "hovertext": _texts([m.hover for m in marks]),
                "hoverinfo": "text",
                "cliponaxis": False,  # a step number above the top lane stays whole
            }
        )
    # One Figure built from plain dicts: add_trace() would deep-copy every array again.
    fig = go.Figure(data=traces)
    if mode and mode in data.windows:
        start, end = data.windows[mode]
        fig.add_shape(
            type="rect",
            xref="x",
            yref="paper",
            x0=_when(start),
            x1=_when(max(end, start + MIN_BAR_SECONDS)),
            y0=0,
            y1=1,
            fillcolor=colors.WINDOW,
            line={"width": 0},
            layer="below",
        )
        fig.add_annotation(
            # at the window's end, reading leftwards: the window ends at the crash, at the
            # right of the zoomed view, where a label reading rightwards was cut off
            x=_when(max(end, start + MIN_BAR_SECONDS)),
            y=1.0,
            xref="x",
            yref="paper",
            text=f"replay window under {_e(mode)}",
            showarrow=False,
            xanchor="right",
            yanchor="bottom",
            yshift=14,
            font={"color": "#9a6700", "size": 11},
        )
    if data.crash_ts is not None:
        fig.add_shape(
            type="line",
            xref="x",
            yref="paper",
            x0=_when(data.crash_ts),
            x1=_when(data.crash_ts),
            y0=0,
            y1=1,
            line={"color": colors.CRASH, "width": 2, "dash": "dash"},
        )
        label = ENDING_LINE.get(data.ending, "crash (last record)")
        fig.add_annotation(
            x=_when(data.crash_ts),
            y=1.0,
            xref="x",
            yref="paper",
            text=label,
            showarrow=False,
            xanchor="right",
            yanchor="bottom",
            font={"color": colors.CRASH, "size": 11},
        )
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(data.lanes)), title=None)
    fig.update_xaxes(title={"text": "time (UTC)", "standoff": 6}, type="date")
    if zoom is not None:
        fig.update_xaxes(range=[_when(zoom[0]), _when(zoom[1])])
    fig.update_layout(
        barmode="overlay",
        height=max(300, 170 + 38 * len(data.lanes)),
        margin={"l": 10, "r": 10, "t": 60 if title else 44, "b": 120},
        # Anchored to the bottom of the whole figure, not the plot: it can never cover the ticks.
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0},
        title=title,
        hoverlabel={"align": "left"},
    )
    return fig


def lanes_of(fig: go.Figure) -> list[str]:
    """The lanes a built figure shows, top first (for tests and captions)."""
    arr: Iterable[str] = fig.layout.yaxis.categoryarray or ()
    return list(reversed(list(arr)))
