"""Re-timing the recording under a mode, and what had landed at the crash (`schedule`)."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

from replaylens import namespaces
from replaylens.analysis.attempts import Attempt, retried_in_step
from replaylens.analysis.delta import delta_channels
from replaylens.analysis.durability._memo import per_evidence
from replaylens.analysis.durability.evidence import (
    INSTANCE,
    Evidence,
    Put,
    Step,
    base_space,
    cancelled_at_raise,
    node_path,
    span_only,
    task_run,
)
from replaylens.analysis.durability.rules import (
    CLOCK_EPS,
    RACE,
    TICK,
    WRITE_COST,
    Mode,
    Recording,
)


@dataclass
class Schedule:
    landed: set[tuple[str, int, int]]
    written: set[int]  # id(attempt) whose writes landed
    crash: float | None
    landing: dict[tuple[str, int, int], float] = field(default_factory=dict)  # re-timed clock
    kill_start: float | None = None  # the killed attempt's start, re-timed
    queued: set[tuple[str, int, int]] = field(
        default_factory=set
    )  # puts that waited for one before
    mode: Mode | None = None
    stubs: int = 0  # checkpoints saved beside `landed` that no step made (`exit_delta_stubs`)
    closed_spans: set[int] = field(default_factory=set)
    """id(attempt) of trace task spans open at the recorded kill that under this mode (which
    waits for no put) would have closed before the crash, their own runs having ended: an end
    line the recording never wrote (`_returned_after_runs`)."""
    late_ends: dict[int, float] = field(default_factory=dict)
    """id(attempt) -> when (recorded clock) its own runs' lines ended, for a task that ran
    subgraph runs of its own and under this mode returns only after the crash, once those
    loops left (their puts in flight landed): its lines after that moment were never
    written (`_ended_own_runs`)."""
    submitted: dict[tuple[str, int, int], float] = field(default_factory=dict)
    """(ns, inv, step) -> when (re-timed clock) its step ended and its put was submitted."""
    serialized: dict[tuple[str, int, int], float] = field(default_factory=dict)
    """(ns, inv, step) -> when (re-timed clock) its put began, its values read: later than
    `submitted` where it waited for the put before it (`joins.late_barrier_stall`)."""


StepKey = tuple[str, int, int]


def _step_times(ev: Evidence) -> tuple[dict[StepKey, float], dict[StepKey, float | None]]:
    """(ns, inv, step) -> the step's start, and -> its end (None: it never completed)."""
    return (
        {(s.ns, s.inv, s.step): s.start for s in ev.steps},
        {(s.ns, s.inv, s.step): s.end for s in ev.steps},
    )


def _parent_gap(
    times: tuple[dict[StepKey, float], dict[StepKey, float | None]], ns: str, inv: int, holder: int
) -> tuple[float, float] | None:
    """(end of the parent step that held a run of `ns`, start of the parent's next step): the
    span a wait on the run's way out falls in; None where either is not known."""
    starts, ends = times
    parent = ns.rpartition("|")[0]
    pend, nxt = ends.get((parent, inv, holder)), starts.get((parent, inv, holder + 1))
    if pend is None or nxt is None or nxt < pend:
        return None
    return pend, nxt


def _gaps(ev: Evidence) -> list[tuple[float, float, Put]]:
    """(time the put is submitted, time the next step of that loop starts, the put)."""
    starts, ends = _step_times(ev)
    every = sorted(s.start for s in ev.steps)
    out: list[tuple[float, float, Put]] = []
    for p in ev.puts:
        if p.edit:
            continue  # update_state saved it between runs: no loop waited for it
        nxt = starts.get((p.ns, p.inv, p.step + 1))
        if nxt is None and _ends_nested(ev, p):
            # A subgraph's last put: its executor's exit waits for it before the parent's step
            # ends, so the gap runs to the parent step's end (else whatever starts next).
            parent = p.ns.rpartition("|")[0]
            holder = ev.container.get((p.ns, p.inv))
            nxt = ends.get((parent, p.inv, holder)) if holder is not None else None
            if nxt is None:
                later = every[bisect.bisect_right(every, p.submit) :]
                nxt = later[0] if later else None
        out.append((p.submit, nxt if nxt is not None else float("inf"), p))
    return sorted(out, key=lambda g: g[0])


@per_evidence
def _nested_last(ev: Evidence) -> dict[StepKey, list[Put]]:
    """(parent loop, invocation, step) -> the last puts of the subgraph runs that step held.

    The parent's task returns only once the subgraph's executor has waited for its last put
    (under sync and async alike), so the parent step's own put is submitted after that one
    landed, though the log puts both at the moment the subgraph's last task ended."""
    out: dict[StepKey, list[Put]] = {}
    for p in ev.puts:
        if not p.edit and _ends_nested(ev, p):
            holder = ev.holder_of.get((p.ns, p.inv, p.step), ev.container.get((p.ns, p.inv)))
            if holder is not None:
                out.setdefault((p.ns.rpartition("|")[0], p.inv, holder), []).append(p)
    return out


def _parents_last(
    gaps: list[tuple[float, float, Put]], nested: dict[StepKey, list[Put]]
) -> list[tuple[float, float, Put]]:
    """`gaps` in submit order, but each subgraph run's last put before its parent step's put
    (`_nested_last`): the parent's landing is timed after the nested one's."""
    by_put = {id(g[2]): g for g in gaps}
    out: list[tuple[float, float, Put]] = []
    placed: set[int] = set()

    def place(g: tuple[float, float, Put]) -> None:
        if id(g[2]) in placed:
            return
        placed.add(id(g[2]))
        for q in nested.get((g[2].ns, g[2].inv, g[2].step), ()):
            if id(q) in by_put:
                place(by_put[id(q)])
        out.append(g)

    for g in gaps:
        place(g)
    return out


def _exit_waits(ev: Evidence) -> list[tuple[float, float, Put | None]]:
    """(parent step's end, the parent's next step's start, the subgraph's last put) for each
    subgraph loop that raised out of a step (`Evidence.raised_out`: a `ParentCommand`).

    Leaving, the loop still waits for what it saved: under sync and async its
    `BackgroundExecutor.__exit__` waits for the put of the step before (still in flight
    under async), and under exit `_suppress_interrupt` saves that checkpoint then. The
    parent's step ends after that wait, so the gap to its next step holds it."""
    if not ev.raised_out:
        return []
    times = _step_times(ev)
    out: list[tuple[float, float, Put | None]] = []
    for ns, inv, rstep in sorted(ev.raised_out):
        holder = ev.holder_of.get((ns, inv, rstep), ev.container.get((ns, inv)))
        gap = _parent_gap(times, ns, inv, holder) if holder is not None else None
        if gap is None:
            continue
        before = [p for p in ev.puts if p.ns == ns and p.inv == inv and p.step < rstep]
        out.append((*gap, max(before, key=lambda p: p.step) if before else None))
    return out


def _handler_waits(ev: Evidence) -> list[tuple[float, float, list[Put] | None, str]]:
    """(the failure's end, its error handler's start, the puts of the graph the failure raised
    out of, or None for the node's own failure, the handler's loop) for each failure a node's
    error handler took (`evidence.handled_failures`). The gap between the two is a wait: for
    the failure's writes, and for the loop the failure left."""
    out: list[tuple[float, float, list[Put] | None, str]] = []
    by_id = {id(a): a for a in ev.attempts}
    for hid, failed in ev.handlers.items():
        handler = by_id[hid]
        if id(handler) not in ev.step_of or id(failed) not in ev.step_of:
            continue
        ns, inv, step = ev.step_of[id(failed)]
        lane = ev.step_of[id(handler)][0]
        nested = None
        if id(failed) in ev.raised_through:
            nested = [p for p in ev.puts if p.ns == ns and p.inv == inv and p.step < step]
        out.append((failed.end_ts, handler.start_ts, nested, lane))
    return out


def _stable_exit_waits(ev: Evidence) -> list[tuple[float, float, str]]:
    """(parent step's end, the parent's next step's start, the parent's loop) for each run of
    a subgraph that saves on its way out under exit (`Evidence.exit_saved`: one compiled with
    ``checkpointer=True``; before LangGraph 0.5 every one) that ended inside an invocation
    that went on: it saved on its way out (`exit_saves`), and its parent's step waited."""
    if not ev.exit_saved:
        return []
    times = _step_times(ev)
    held = {(ns, inv, h) for (ns, inv, _step), h in ev.holder_of.items() if ns in ev.exit_saved}
    out: list[tuple[float, float, str]] = []
    for ns, inv, holder in sorted(held):
        gap = _parent_gap(times, ns, inv, holder)
        if gap is None:
            continue
        pend, nxt = gap
        parent = ns.rpartition("|")[0]
        if nxt <= pend + CLOCK_EPS or not _logs_own(ev, parent, inv, holder + 1):
            # A parent step that logs nothing of its own (the graph is the node) closes where
            # the run ended and its next step begins there too (a tick on, where that next
            # step logs nothing either: its start is only the model's), its only task the
            # graph's next run: the save shows from the run's last step's end to that run's
            # first start.
            run_end = max(
                (
                    end
                    for (n, i, step), h in ev.holder_of.items()
                    if (n, i, h) == (ns, inv, holder)
                    and (end := times[1].get((n, i, step))) is not None
                ),
                default=pend,
            )
            pend = min(pend, run_end)
            nxt = min(
                (a.start_ts for a in ev.attempts if a.start_ts > pend + CLOCK_EPS), default=nxt
            )
        out.append((pend, nxt, ns.rpartition("|")[0]))
    return out


def _logs_own(ev: Evidence, ns: str, inv: int, step: int) -> bool:
    """Does step `step` of loop `ns` in invocation `inv` have lines of its own?"""
    return any(st.step == step and st.attempts for st in _steps_of(ev).get((ns, inv), []))


@per_evidence
def _steps_of(ev: Evidence) -> dict[tuple[str, int], list[Step]]:
    """The steps of each loop in each invocation, indexed once per evidence."""
    out: dict[tuple[str, int], list[Step]] = {}
    for st in ev.steps:
        out.setdefault((st.ns, st.inv), []).append(st)
    return out


def _ends_nested(ev: Evidence, p: Put) -> bool:
    """Is `p` the last put of a subgraph invocation that returned (its parent step went on)?"""
    if not p.ns:
        return False
    mine = list(_steps_of(ev).get((p.ns, p.inv), ()))
    if p.ns in ev.stable:
        # A `checkpointer=True` subgraph run again keeps its namespace: each run (the parent
        # step that held it) ends with a put its executor waited for.
        # A step that logged nothing of its own (it ran a graph further down) has no holder
        # recorded: it belongs to the run around it, still going while that graph runs.
        run = ev.holder_of.get((p.ns, p.inv, p.step))
        if run is not None:
            mine = [s for s in mine if ev.holder_of.get((s.ns, s.inv, s.step), run) == run]
    return (
        bool(mine) and max(s.step for s in mine) == p.step and all(s.end is not None for s in mine)
    )


def _waited(mode: Mode | None, p: Put, nxt: float, ev: Evidence) -> bool:
    """Does the loop wait for this put? sync after every step (not the input); a subgraph's
    end, under sync and async alike, for its last put (BackgroundExecutor.__exit__)."""
    if nxt == float("inf") or mode not in ("sync", "async"):
        return False
    if _ends_nested(ev, p):
        return True
    return mode == "sync" and p.step >= 0 and not p.input


def _side_by_side(a: str, b: str) -> bool:
    """Do loops `a` and `b` run side by side (neither runs inside the other)? Runs of one
    node path do not: the graphs one task invokes (`p`, `p~1`) and the rounds of a loop
    (`x#1`, `x#2`) follow one another (runs that overlapped take `_LaneClock` instead)."""
    if a == b or not a or not b or a.startswith(b + "|") or b.startswith(a + "|"):
        return False
    for mine, theirs in zip(a.split("|"), b.split("|"), strict=False):
        if mine != theirs:  # where the two lanes part: one node's calls or rounds, or two nodes
            return node_path(mine) != node_path(theirs)
    return False


class _Clock:
    """A clock with waits inserted (or removed) at given moments, read in O(log n).

    Waits sit between a step's end and its loop's next step; they never overlap on one
    process's timeline, so a moment is shifted by every wait before it, the last one
    only as far as the moment reaches into it.
    """

    def __init__(self, partial: bool) -> None:
        self.partial = partial
        self.at: list[float] = []
        self.size: list[float] = []
        self.total: list[float] = [0.0]
        self.lanes: list[tuple[float, float, str]] = []  # (from, to, loop) of each wait

    def add(self, at: float, size: float, lane: str = "") -> None:
        """A wait of `size` at `at` by the loop `lane`. Loops side by side (the `Send`
        workers that each run a subgraph, `evidence.space_keys`) wait at the same time:
        only what a wait reaches beyond another loop's, begun before it, moves the clock.
        A parent and the subgraph it runs wait one after the other."""
        if size <= 0:
            return
        beyond = None
        if lane and self.lanes and any(ln != lane for _fr, _to, ln in self.lanes[-64:]):
            beyond = max(
                (
                    to
                    for fr, to, ln in self.lanes[-64:]
                    if _side_by_side(ln, lane) and fr <= at < to
                ),
                default=None,
            )
        if self.partial and self.lanes:
            # Recorded waits of loops one inside the other (or one after the other) lie on one
            # timeline: a parent's wait measured from its step's end already holds those of
            # the graphs its task ran, which waited before it. Only what lies beyond counts.
            before = max(
                (
                    to
                    for fr, to, ln in self.lanes[-64:]
                    if not _side_by_side(ln, lane) and fr <= at < to
                ),
                default=None,
            )
            if before is not None and (beyond is None or before > beyond):
                beyond = before
        self.lanes.append((at, at + size, lane))
        if beyond is not None:
            at, size = beyond, at + size - beyond
            if size <= 0:
                return
        if self.at and at < self.at[-1]:
            # A wait found out of order (a raised-out subgraph's, `_exit_waits`): rare, so
            # the running totals are rebuilt rather than kept in a tree.
            i = bisect.bisect_right(self.at, at)
            self.at.insert(i, at)
            self.size.insert(i, size)
            self.total = [0.0]
            for w in self.size:
                self.total.append(self.total[-1] + w)
            return
        self.at.append(at)
        self.size.append(size)
        self.total.append(self.total[-1] + size)

    def shift(self, t: float, lane: str = "") -> float:
        i = bisect.bisect_right(self.at, t)
        if i == 0:
            return 0.0
        if not self.partial:
            return self.total[i]  # a wait inserted at `at` moves everything after it in full
        return self.total[i - 1] + min(self.size[i - 1], t - self.at[i - 1])


JOIN_SLACK = 0.05
"""Seconds a worker's last wait may seem to begin after its parent step's end (`_LaneClock`)."""

Run = tuple[float, float]
"""(when a nested loop's run did its last work, when its parent step ended): one clock's time."""


class _LaneClock:
    """`_Clock` for a thread whose subgraph runs overlap (`Send` workers that each run a
    subgraph, `evidence.space_keys`): each loop keeps its own waits.

    A moment of loop L is moved by L's own waits and its ancestors' (they held L's work
    back), and, for each parent step that ran loops side by side and had ended by then,
    by how much the last of them to finish moved: the workers wait at the same time, and
    their parent goes on when the slowest is done, not after the sum of their waits."""

    def __init__(self, partial: bool, runs: dict[str, list[Run]]) -> None:
        self.partial = partial
        self.clocks: dict[str, _Clock] = {}
        self.groups: dict[str, dict[float, list[tuple[str, float]]]] = {}
        self.joins: dict[str, list[float]] = {}
        for lane, spans in runs.items():
            parent = lane.rpartition("|")[0]
            for last, join in spans:
                self.groups.setdefault(parent, {}).setdefault(join, []).append((lane, last))
            self.joins[lane] = sorted(join for _last, join in spans)

    def add(self, at: float, size: float, lane: str = "") -> None:
        self.clocks.setdefault(lane, _Clock(self.partial)).add(at, size, lane)

    def _own(self, lane: str, t: float, join: float | None = None) -> float:
        """The lane's own waits in its run at `t` (the run that joined its parent at `join`,
        where given): those of its earlier runs (one node's graph run again in a later step
        or invocation) moved their parent's join, and the parent's share (`_joined`) holds
        them already."""
        clock = self.clocks.get(lane)
        if clock is None:
            return 0.0
        joins = self.joins.get(lane, ())
        i = bisect.bisect_left(joins, (t if join is None else join) - CLOCK_EPS)
        return clock.shift(t) - (clock.shift(joins[i - 1]) if i else 0.0)

    def _inside(self, lane: str, t: float, below: str = "", join: float | None = None) -> float:
        """How far `lane`'s own waits and those of the loops it ran have moved moment `t` (a
        moment of loop `below`, one of them, when asked for an ancestor's share)."""
        return self._own(lane, t, join) + self._joined(lane, t, below)

    def _joined(self, lane: str, t: float, below: str = "") -> float:
        out = 0.0
        for join, group in self.groups.get(lane, {}).items():
            if join > t + CLOCK_EPS:
                continue
            if join >= t - CLOCK_EPS and any(c == below for c, _last in group):
                # a moment of one of the runs that join there, its last, falls on the join
                # once the recorded waits are taken out: it is still inside its run
                continue
            if self.partial:  # the recorded join, less the re-timed end of the last to finish
                out += max(
                    0.0, join - max(last - self._inside(c, last, join=join) for c, last in group)
                )
            else:  # the re-timed end of the last to finish, past the join
                done = max(
                    last + self._inside(c, join + JOIN_SLACK, join=join) for c, last in group
                )
                out += max(0.0, done - join)
        return out

    def shift(self, t: float, lane: str = "") -> float:
        path = [""]
        for seg in lane.split("|") if lane else []:
            path.append(f"{path[-1]}|{seg}" if path[-1] else seg)
        below = [*path[1:], ""]
        return sum(self._inside(here, t, down) for here, down in zip(path, below, strict=True))


def _runs(ev: Evidence) -> dict[str, list[Run]]:
    """Each nested loop -> (its last step's end, its parent step's end) for each of its runs
    that ended, recorded times."""
    _starts, ends = _step_times(ev)
    steps: dict[tuple[str, int, int], list[float | None]] = {}
    for (ns, inv, step), holder in ev.holder_of.items():
        if (ns, inv, step) in ends:
            steps.setdefault((ns, inv, holder), []).append(ends[(ns, inv, step)])
    out: dict[str, list[Run]] = {}
    for (ns, inv, holder), run in steps.items():
        join = ends.get((ns.rpartition("|")[0], inv, holder))
        if join is not None and run and all(e is not None for e in run):
            out.setdefault(ns, []).append((max(e for e in run if e is not None), join))
    return {ns: sorted(v, key=lambda r: r[1]) for ns, v in out.items()}


def schedule(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    slack: float = 0.0,
    write_cost: float = WRITE_COST,
    spans_returned: bool = False,
    pause_cut: float | None = None,
    queue: bool = True,
    puts_hold_workers: bool = False,
    workers: int = 0,
    cancelled_unsure: bool = False,
    runs_ended: bool = False,
    closed: frozenset[int] = frozenset(),
    input_early: float = 0.0,
    raised_at_apply: bool = False,
) -> Schedule:
    """Re-time the recording under `mode` and say what had landed at the same point of progress.

    `slack` moves the kill, `write_cost` sets what each write takes beyond `latency` (the
    race, `outcomes._race`, asks both). `spans_returned`: a task span open at the kill whose
    own graphs had ended returned as soon as their loops left, whatever the recording says
    (`_returned_after_runs`; `outcomes._widen_for_open_spans` asks it where the recorded
    latency is unknown). `pause_cut`: a moment on the recorded clock at which a run that
    paused was killed while its pause was being saved, where no recording dates the kill
    (`outcomes._widen_for_unknown_pause_kill` asks the earliest the database allows).
    `queue=False`: a task's writes are put as it ends, though the recording shows its step's
    tasks queued behind a busy executor (`queued_writes`; `outcomes._race` asks it where
    the recorded mode's own writes in flight may have kept the workers busy).
    `puts_hold_workers`: under async, a step whose tasks ran in waves (an executor with fewer
    workers than tasks) starts them only once the puts in flight at its start have landed
    (`wave_starts`; `outcomes._widen_for_busy_workers` asks it); with `workers`, so does a
    step of two tasks or more that would find no worker free for one of them, the executor
    having that many workers (`fan_out_starts`): it starts once enough of those puts landed.
    `cancelled_unsure`: a task its step's raise came after, whose writes the database cannot
    show put or not, was cancelled by the raise (`evidence.cancelled_at_raise`; `outcomes._widen_for_cancelled`
    asks it). `runs_ended`: under exit, a subgraph run that saves on its way out whose tasks
    had all finished had left by the kill (`outcomes._widen_for_ended_runs` asks it).
    `closed`: id(attempt) of task spans open at the recorded kill taken as returned, their
    writes saved with the run's pause (`outcomes._widen_for_exit_pause_before_kill`).
    `input_early`: seconds before the recording's estimate at which a root input checkpoint
    the database holds no stamp of was made (`outcomes._race`: an exit recording cannot date
    it; the loop made it before its first task started, by as much as the set-up took).
    `raised_at_apply`: under exit, a step that raised after a task's lines ended raised as
    LangGraph applied its writes, every one put before the save at the raise, where the
    database cannot tell that from a step_timeout (`Evidence.raise_at_apply_unsure`;
    `outcomes._widen_for_raise_at_apply` asks it)."""
    gaps = _gaps(ev)
    side_by_side = _runs_overlap(ev)
    runs = _runs(ev) if side_by_side else {}
    lane_of = {id(a): ev.step_of[id(a)][0] for a in ev.attempts if id(a) in ev.step_of}
    # 1. Remove the recorded mode's own waits: under sync each put delayed its loop's next
    #    step until it landed (chained behind the previous put), capped by the gap seen.
    removed: _Clock | _LaneClock = _LaneClock(True, runs) if side_by_side else _Clock(True)
    if recording.mode in ("sync", "async") and (recording.latency or 0.0) > 0:
        land_rec: dict[tuple[str, int], float] = {}
        for sub, nxt, p in gaps:
            lands = max(sub, land_rec.get((p.ns, p.inv), float("-inf"))) + float(
                recording.latency or 0.0
            )
            land_rec[(p.ns, p.inv)] = lands
            if lands > sub and _waited(recording.mode, p, nxt, ev):
                # The loop waited for this put: all of the gap but the loop's own tick was the wait
                # (the write itself, the thread hand-over), not only the latency. A worker that
                # ran beside others ends when its own put lands, though its parent's step
                # waited for the slowest of them.
                gap = nxt - sub - TICK
                if INSTANCE in p.ns and _ends_nested(ev, p):
                    gap = min(gap, lands - sub + WRITE_COST)
                removed.add(sub, max(0.0, gap), p.ns)
    if recording.mode == "async":
        # Under async the parent's loop waits for nothing of its own between a step's end and
        # its next step: a gap there is the wait of a subgraph run's executor for its last
        # puts (its task returns only then), which the target mode's rule puts back at its own
        # latency. Runs side by side (`Send` workers) take the lane clocks instead.
        times = _step_times(ev)
        for key, nested_puts in _nested_last(ev).items():
            gap = _parent_gap(times, nested_puts[0].ns, key[1], key[2])
            if gap is None or any(INSTANCE in q.ns for q in nested_puts):
                continue
            removed.add(gap[0], max(0.0, gap[1] - gap[0] - TICK), key[0])

    exits = _exit_waits(ev)
    # A handler of the node's own failure waits for the failure's writes only (`put_writes`,
    # whose time no mode changes): the gap the recording shows stays as it is. One whose
    # failure raised out of a graph the node ran waits for that graph's loop to leave too.
    handoffs = [h for h in _handler_waits(ev) if h[2] is not None]
    if (recording.latency or 0.0) > 0:
        for fail_end, handler_start, nested, lane in handoffs:
            if recording.mode in ("sync", "async") or (recording.mode == "exit" and nested):
                removed.add(fail_end, max(0.0, handler_start - fail_end - TICK), lane)

    def parent_of(p: Put | None) -> str:
        return p.ns.rpartition("|")[0] if p is not None else ""

    if (recording.latency or 0.0) > 0:
        for pend, nxt, last in exits:
            if recording.mode == "exit":
                # Under exit the subgraph saved its last checkpoint as it raised out
                # (`_suppress_interrupt`), and the parent's step ended only after that put.
                removed.add(pend, max(0.0, nxt - pend - TICK), parent_of(last))
            elif recording.mode == "async" and last is not None:
                # Under async its executor's exit waited for its last put still in flight;
                # under sync the parent's own put after the step already holds that gap.
                lands = max(last.submit, pend) + float(recording.latency or 0.0)
                removed.add(pend, max(0.0, min(nxt - pend - TICK, lands - pend)), parent_of(last))

    if recording.mode == "exit" and recording.latency != 0:
        for pend, nxt, up in _stable_exit_waits(ev):
            # A `checkpointer=True` subgraph saves as each run ends under exit
            # (`_suppress_interrupt`): the parent's step ended after that put. The gap is
            # that save whatever the latency (a recording whose latency is not known too).
            removed.add(pend, max(0.0, nxt - pend - TICK), up)

    def compute(t: float, lane: str = "") -> float:
        return t - removed.shift(t, lane)

    # 2. Re-time under the target rule: a sync wait shifts everything after it.
    added: _Clock | _LaneClock = (
        _LaneClock(
            False,
            {
                ns: [
                    (compute(end, ns), compute(join, ns.rpartition("|")[0])) for end, join in spans
                ]
                for ns, spans in runs.items()
            },
        )  # fmt: skip
        if side_by_side
        else _Clock(False)
    )

    def target(t: float, lane: str = "") -> float:
        c = compute(t, lane)
        return c + added.shift(c, lane)

    land: dict[tuple[str, int], float] = {}
    landing: dict[tuple[str, int, int], float] = {}
    submitted: dict[tuple[str, int, int], float] = {}
    serialized: dict[tuple[str, int, int], float] = {}
    queued: set[tuple[str, int, int]] = set()

    def handoff_wait(fail_end: float, _start: float, inner: list[Put] | None, lane: str) -> None:
        """An error handler starts once the failure's writes landed (sync and async wait for
        them: `schedule_error_handler`), and, for a failure that raised out of a graph the node
        ran, once that graph's loop left: waiting for its last put in flight (sync, async) or
        saving it on the way out (exit)."""
        t = target(fail_end, lane)
        wait = 0.0
        if mode != "exit":
            last = max((landing.get((q.ns, q.inv, q.step), t) for q in (inner or ())), default=t)
            wait = max(0.0, last - t) + latency + write_cost
        elif inner is not None:
            wait = latency + write_cost
        added.add(compute(fail_end, lane), wait, lane)

    pending_handoffs = sorted(handoffs, key=lambda h: h[0])
    pending_waves: list[tuple[float, str, int]] = []
    if puts_hold_workers and mode == "async":
        waved = wave_starts(ev)
        pending_waves = [(at, lane, 0) for at, lane in waved]
        if workers:
            pending_waves += [
                (at, lane, max(0, workers - tasks))
                for at, lane, tasks in fan_out_starts(ev)
                if (at, lane) not in waved
            ]
            pending_waves.sort()

    def wave_wait(start: float, lane: str, free: int) -> None:
        """Under async each put in flight holds a worker of the executor the step's tasks
        queue on (`BackgroundExecutor`: `_checkpointer_put_after_previous` waits there for
        the put before it): with as few workers as the waves show, the tasks may wait for
        every put submitted before they were; a step that left `free` workers to the puts
        waits until no more than that many are still in flight."""
        t = target(start, lane)
        held = sorted(
            landing[k]
            for k, at in submitted.items()
            if at <= t + CLOCK_EPS and landing[k] > t + CLOCK_EPS
        )
        if len(held) <= free:
            return
        wait = held[len(held) - free - 1] - t
        if wait > 0:
            added.add(compute(start, lane), wait, lane)

    if mode != "exit":
        nested = _nested_last(ev)
        for sub, nxt, p in _parents_last(gaps, nested):
            while pending_handoffs and pending_handoffs[0][0] <= sub:
                handoff_wait(*pending_handoffs.pop(0))  # before the puts it delayed
            while pending_waves and pending_waves[0][0] + CLOCK_EPS < sub:
                wave_wait(*pending_waves.pop(0))  # after the puts submitted as it began
            t = target(sub, p.ns)
            if input_early and p.input and not p.ns and p.checkpoint is None:
                t -= input_early
            for q in nested.get((p.ns, p.inv, p.step), ()):
                t = max(t, landing.get((q.ns, q.inv, q.step), t))
            before = land.get((p.ns, p.inv), float("-inf"))
            if before > t + CLOCK_EPS:
                queued.add((p.ns, p.inv, p.step))
            lands = max(t, before) + latency + write_cost
            land[(p.ns, p.inv)] = lands
            landing[(p.ns, p.inv, p.step)] = lands
            submitted[(p.ns, p.inv, p.step)] = t
            serialized[(p.ns, p.inv, p.step)] = max(t, before)
            if _waited(mode, p, nxt, ev):
                # sync waits after a step, never for the input checkpoint (main.py waits after
                # after_tick only); the first step's put, chained behind it, carries its latency.
                added.add(compute(sub, p.ns), max(0.0, lands - t), p.ns)
            for pend, _nxt, last in exits:
                if last is p:
                    # A subgraph that raised out of its next step: its executor's exit waited
                    # for this put before the parent's step could end.
                    up = parent_of(p)
                    added.add(compute(pend, up), max(0.0, lands - target(pend, up)), up)
    for handoff in pending_handoffs:
        handoff_wait(*handoff)
    for wave in pending_waves:
        wave_wait(*wave)
    # 3. The crash at the same point of progress: the same attempt, the same time into it.
    last_inv = ev.invocations - 1
    by_task = _loops_by_task(ev)
    crash: float | None = None
    # killed while saving its pause: lost where a write takes longer than the time to the kill
    pausing = ev.ending == "paused" and (
        pause_cut is not None
        or (ev.pause_kill is not None and latency + write_cost > (recording.kill_offset or 0.0))
    )
    if pausing and mode == "exit" and not any(p.inv == last_inv for p in ev.puts):
        # The paused invocation made no checkpoint of its own (it went on in a step an earlier
        # one saved, and paused there again): exit's save at the pause skips the checkpoint
        # already saved (`_put_checkpoint`) and puts the writes alone, which land at once.
        pausing = False
    killed = ev.ending == "killed" or pausing
    if pausing and pause_cut is not None:
        crash = target(pause_cut) + slack
    elif pausing:
        # the node started once the step before it ended (under sync, once its put landed)
        lead = latency + write_cost if mode == "sync" else TICK
        crash = target(ev.pause_kill or 0.0) + lead + (recording.kill_offset or 0.0) + slack
    elif ev.ending == "killed" and ev.kill_attempt is not None and ev.kill_offset is not None:
        crash = (
            max(
                target(ev.kill_attempt.start_ts, lane_of.get(id(ev.kill_attempt), "")),
                _progress_inside(ev, ev.kill_attempt, target, lane_of, by_task),
            )
            + ev.kill_offset
            + slack
        )
    elif ev.ending == "killed" and ev.unlogged_kill is not None:
        # aimed a time after a node that logged nothing: it started as its step did, once the
        # step of the last line ended (under sync, once that step's put landed)
        lead = latency + write_cost if mode == "sync" else TICK
        crash = target(ev.unlogged_kill) + lead + (recording.kill_offset or 0.0) + slack
    elif ev.ending == "killed" and ev.kill_anchor is not None and ev.kill_time is not None:
        # aimed a time after a node that logs nothing started: that time after it here too
        crash = target(ev.kill_anchor) + (ev.kill_time - ev.kill_anchor) + slack
    elif ev.ending == "killed" and ev.kill_time is not None:
        crash = (
            target(ev.kill_time) + slack
        )  # no task in flight is known: the moment itself, re-timed
    landed: set[tuple[str, int, int]] = set()
    written: set[int] = set()
    late_ends: dict[int, float] = {}
    stubs = 0
    if mode == "exit":
        landed = exit_saves(ev, last_killed=killed, runs_ended=runs_ended)
        if pausing and crash is not None:
            landed |= _pause_saves_before(ev, crash, latency + write_cost, target)
        stubs = exit_delta_stubs(ev, landed)
    else:
        for p in ev.puts:
            key = (p.ns, p.inv, p.step)
            if not p.ns and p.inv in ev.root_stayed:
                continue  # the root never moved on there (`Evidence.root_stayed`)
            ended = p.inv < last_inv or not killed
            if p.inv in ev.killed_earlier:
                if (
                    p.checkpoint is not None
                ):  # an earlier kill: what landed is what the database holds
                    landed.add(key)
            elif ended or (
                crash is not None and landing.get(key, float("inf")) <= crash + CLOCK_EPS
            ):
                landed.add(key)
            elif crash is None and p.checkpoint is not None:
                # No moment of the kill is known (no task in flight in the log, or no log):
                # what the database holds landed, under any mode that writes checkpoints.
                landed.add(key)
    closed_spans: set[int] = set()
    for a in ev.attempts:
        if id(a) in closed:
            written.add(id(a))
            continue
        if a.outcome == "in flight" and crash is not None and span_only(a):
            # Under exit a span that returned in time only closed (its writes are not saved);
            # with the recorded latency unknown it may have been waiting for its graphs'
            # puts, and the range `closed_spans` feeds takes that reading too.
            unknown_wait = mode == "exit" and recording.latency is None
            asked = None if spans_returned or unknown_wait else recording
            returned = _returned_after_runs(ev, a, target, landing, lane_of, by_task, asked)
            # (a closed span only widens the range, so under exit the latest the kill may
            # have come counts: a moment only the log's last line bounds, `kill_unsure`)
            latest = crash + (ev.kill_unsure if mode == "exit" else 0.0)
            if returned is not None and returned <= latest + CLOCK_EPS:
                (closed_spans if mode == "exit" else written).add(id(a))
            elif returned is None:
                # (closed at a pause only widens the range, under every mode: the latest the
                # kill may have come counts)
                paused = _closed_at_pause(ev, a, target, landing, lane_of, by_task)
                if paused is not None and paused <= crash + ev.kill_unsure + CLOCK_EPS:
                    closed_spans.add(id(a))
            continue
        run = task_run(ev, a)  # the task's writes are put when its last effect ends
        # A failure RetryPolicy retried in the step does not stop the task; one whose error
        # handler a later invocation ran was put as it ended, under sync and async; so was a
        # task whose step raised after it returned (`Attempt.raised_after`, a step_timeout
        # under `invoke`), whose writes under exit the save at the raise, made before it
        # ended, left out; not one the raise cancelled (`ainvoke`: `cancelled_at_raise`).
        if any(
            (
                b.outcome != "finished"
                and id(b) not in ev.retried
                and (mode == "exit" or id(b) not in ev.handled_later)
                and (
                    not b.raised_after
                    or (
                        id(b) not in ev.raise_at_apply
                        and not (raised_at_apply and id(b) in ev.raise_at_apply_unsure)
                        if mode == "exit"
                        else _cancelled(b, cancelled_unsure)
                    )
                )
            )
            or id(b) in ev.halted
            for b in run
        ):
            continue

        if id(run[-1]) in ev.failed_calls:
            continue  # a call that failed saves an error, and runs again on a resume
        end = max(b.end_ts for b in run)
        if (called := _called_after(ev, a, end)) is not None:
            if any(b.outcome != "finished" for b in called):
                continue  # the entrypoint had not returned: a call after its lines had not
            end = max([end, *(b.end_ts for b in called)])
        # None: still queued behind tasks at the end
        put = queued_writes(ev).get(id(a), end) if queue else end
        inv = ev.step_of[id(a)][1]
        if run[-1].outcome != "failed" and _runs_a_subgraph_still(ev, a, by_task):
            # its lines ended, but the subgraph it invoked was still running (a handled
            # failure raised out of that subgraph: its error writes were put as it ended)
            continue
        if recording.mode != "exit" and _went_on_after_own_runs(ev, a, by_task):
            continue
        ended = (inv < last_inv or not killed) and inv not in ev.killed_earlier
        if inv in ev.killed_earlier and mode != "exit" and a.task is not None and a.task.done:
            written.add(id(a))
        elif ended:
            written.add(id(a))
        elif mode != "exit" and crash is not None and put is not None:
            own = _ended_own_runs(ev, a, put, lane_of, by_task)
            if _put_at(ev, a, put, own, target, landing, lane_of) <= crash + CLOCK_EPS:
                written.add(id(a))
            elif own is not None:  # its lines after its runs' end were never written
                late_ends[id(a)] = max(b.end_ts for b in own[1])
    if crash is not None and killed and mode != recording.mode:
        for a, fail_end, inner in _failed_out_holders(ev, by_task):
            # The failure left its graph's loop, which returns only once it saved on its way
            # out (exit) or its puts in flight landed (async); the span of the task that ran
            # it closes then (the recording's own mode shows that as it was).
            t = target(fail_end, lane_of.get(id(a), ""))
            if mode == "exit":
                returns = t + latency + write_cost
            else:
                returns = max((landing.get(k, t) for k in inner), default=t)
            if returns > crash + CLOCK_EPS:
                late_ends[id(a)] = fail_end
    if mode == "exit" and recording.mode != "exit" and ev.ending == "paused":
        # The last invocation paused: under exit each graph the pause left saved on its way
        # out, one after another up the levels, before the span of the task that ran it
        # closed (`_paused_out_holders`). A close after the kill (the schedule's, or the one
        # the recording dates) was never written; where nothing dates it, the run reads as
        # paused in peace, and `outcomes._widen_for_unknown_pause_kill` asks an early kill.
        moment = crash
        if moment is None and ev.pause_kill is not None:
            moment = target(ev.pause_kill) + TICK + (recording.kill_offset or 0.0) + slack
        for a, pause_end, levels in _paused_out_holders(ev, lane_of, by_task) if moment else ():
            closes = target(pause_end, lane_of.get(id(a), "")) + levels * (latency + write_cost)
            if closes > moment + CLOCK_EPS:
                late_ends[id(a)] = pause_end
    if mode == "sync" and crash is not None:
        landed |= _waited_for_before_kill(ev)
    landed |= {(p.ns, p.inv, p.step) for p in ev.puts if p.edit}  # update_state: every mode
    kill_start = (
        target(ev.kill_attempt.start_ts, lane_of.get(id(ev.kill_attempt), ""))
        if ev.kill_attempt is not None
        else None
    )
    return Schedule(
        landed,
        written,
        crash,
        landing,
        kill_start,
        queued,
        mode,
        stubs,
        closed_spans,
        late_ends,
        submitted,
        serialized,
    )


LEAST_WORKERS = 5
"""The fewest workers LangGraph's default executor has: a ``ThreadPoolExecutor`` of
min(32, cpu count + 4) on one CPU (``get_executor_for_config`` where no ``max_concurrency``
is set). The machine's CPUs are in no database or log."""


def _task_starts(ev: Evidence) -> list[tuple[Step, list[float]]]:
    """Each step's tasks' first starts, for the steps of two tasks or more: an error handler
    starts once its failure's writes are put, not when a worker frees, and an entrypoint's
    `@task` calls are made one after another (each when the one before returned)."""
    out: list[tuple[Step, list[float]]] = []
    for st in () if ev.functional else ev.steps:
        starts: dict[tuple[str, object], float] = {}
        for a in st.attempts:
            if namespaces.is_error_handler(a.node):
                continue
            key = (a.node, a.task_id if a.task_id is not None else ev.ordinal.get(id(a)))
            starts[key] = min(starts.get(key, a.start_ts), a.start_ts)
        if len(starts) >= 2:
            out.append((st, list(starts.values())))
    return out


def wave_starts(ev: Evidence) -> list[tuple[float, str]]:
    """(first start, loop) of each step whose tasks ran in waves: two tasks or more, some
    starting well after the first (`queued_writes` reads the same waves), in start order."""
    return sorted(
        (min(starts), st.ns)
        for st, starts in _task_starts(ev)
        if any(t > min(starts) + RACE for t in starts)
    )


def fan_out_starts(ev: Evidence) -> list[tuple[float, str, int]]:
    """(first start, loop, tasks) of each step of two tasks or more, in start order: each
    task takes a worker of the executor (a step of one runs it inline, ``PregelRunner.tick``),
    and under async the puts in flight hold some (`schedule`, `workers`)."""
    return sorted((min(starts), st.ns, len(starts)) for st, starts in _task_starts(ev))


@per_evidence
def queued_writes(ev: Evidence) -> dict[int, float | None]:
    """id(attempt) -> when its task's writes were put, for the tasks of a step that ran in
    waves (more tasks than the executor has workers: ``max_concurrency``, or a fan-out wider
    than the default thread pool); None where they were still waiting at the last line.

    The loop hands a finished task's writes to the same executor as its tasks
    (``PregelLoop.put_writes`` -> ``self.submit``, ``pregel/_loop.py``), behind the tasks
    still queued: a worker that finishes a task takes the next queued task first. The log
    shows that as a task of the step starting the moment another ended, after the step's
    first start (a put under async holds a worker too). Writes are put at the first end no
    queued task followed: a worker was free."""
    out: dict[int, float | None] = {}
    # An entrypoint's `@task` calls are made one after another (each when the one before
    # returned): no queue.
    for st in () if ev.functional else ev.steps:
        tasks: dict[tuple[str, object], list[Attempt]] = {}
        for a in st.attempts:
            if namespaces.is_error_handler(a.node):
                continue  # it starts once its failure's writes are put, not when a worker frees
            key = (a.node, a.task_id if a.task_id is not None else ev.ordinal.get(id(a)))
            tasks.setdefault(key, []).append(a)
        if len(tasks) < 2 or any(a.logged_ns and namespaces.NS_END in a.logged_ns
                                 for a in st.attempts):  # fmt: skip
            continue  # calls, logged under their caller's task: made one after another
        starts = [min(b.start_ts for b in run) for run in tasks.values()]
        later = [t for t in starts if t > min(starts) + RACE]
        if not later:
            continue  # every task started at once: no queue
        ended = [
            max(b.end_ts for b in run)
            for run in tasks.values()
            if all(b.outcome != "in flight" for b in run)
        ]
        ends = sorted(ended)
        for run in tasks.values():
            if any(b.outcome == "in flight" for b in run):
                continue
            mine = max(b.end_ts for b in run)
            free = next(
                (e for e in ends if e >= mine - CLOCK_EPS
                 and not any(e - 1e-3 <= t <= e + RACE for t in later)),
                None,
            )  # fmt: skip
            for b in run:
                out[id(b)] = free
    return out


def _waited_for_before_kill(ev: Evidence) -> set[tuple[str, int, int]]:
    """Under sync, what had certainly landed when the killed task ran, whatever the timing:
    its loop waited for the put of every step before its own (the run loop waits after each
    step, the puts chained in order) and a subgraph's task returned only after its executor
    waited for its puts. A re-timing that puts the kill earlier cannot undo a wait the killed
    task's own start came after. The input checkpoint is not waited for before the first step,
    so a kill in step 0 (an entrypoint's) holds nothing by this rule."""
    a = ev.kill_attempt
    if a is None or id(a) not in ev.step_of or ev.ending != "killed":
        return set()
    kns, kinv, kstep = ev.step_of[id(a)]
    out: set[tuple[str, int, int]] = set()
    for p in ev.puts:
        if p.inv != kinv:
            continue
        if p.ns == kns:
            held = kstep >= 1 and p.step < kstep and _chained_before(ev, p, kstep)
        elif kns and (not p.ns or kns.startswith(p.ns + "|")):
            # a loop above the killed task's: the step of it that held the run down to it
            up = _holding_step(ev, kns, kinv, kstep, p.ns)
            held = up is not None and up >= 1 and p.step < up and _chained_before(ev, p, up)
        elif p.ns and not kns:
            holder = ev.holder_of.get((p.ns, p.inv, p.step), ev.container.get((p.ns, p.inv)))
            held = holder is not None and kstep >= 1 and holder < kstep
        else:
            held = False
        if held:
            out.add((p.ns, p.inv, p.step))
    return out


def _holding_step(ev: Evidence, ns: str, inv: int, step: int, above: str) -> int | None:
    """The step of loop `above` that held (through the loops between) step `step` of `ns`."""
    while ns != above:
        held = ev.holder_of.get((ns, inv, step), ev.container.get((ns, inv)))
        if held is None or not ns:
            return None
        ns, step = ns.rpartition("|")[0], held
    return step


def _chained_before(ev: Evidence, p: Put, step: int) -> bool:
    """Had `p` certainly landed when its loop began `step`? A put the loop waited for had; an
    input checkpoint only when a waited put of its loop came between (chained behind it): a
    later input's `@entrypoint` runs at once, its input checkpoint still in flight."""
    if not p.input:
        return True
    return any(
        q.ns == p.ns and q.inv == p.inv and not q.input and p.step < q.step < step for q in ev.puts
    )


def _runs_overlap(ev: Evidence) -> bool:
    """Did runs of one subgraph overlap in time (`Send` workers that each run it)? Runs one
    after another carry instance marks too (`evidence.space_keys`), but wait one after the
    other: the plain clock re-times them, in O(log n) a moment."""
    spans: dict[tuple[str, int], dict[str, list[float]]] = {}
    for st in ev.steps:
        if INSTANCE not in st.ns:
            continue
        lo, hi = st.start, st.end if st.end is not None else float("inf")
        span = spans.setdefault((base_space(st.ns), st.inv), {}).setdefault(st.ns, [lo, hi])
        span[0], span[1] = min(span[0], lo), max(span[1], hi)
    for runs in spans.values():
        ordered = sorted(runs.values())
        if any(
            later[0] < earlier[1] - 1e-6
            for earlier, later in zip(ordered, ordered[1:], strict=False)
        ):
            return True
    return _nodes_overlap(ev)


@per_evidence
def _nodes_overlap(ev: Evidence) -> bool:
    """Did the runs of two nodes' subgraphs (one step's tasks that each run a graph) overlap
    in time? Each loop waits for its own puts in its own thread."""
    spans: dict[tuple[int, str], list[float]] = {}
    for st in ev.steps:
        if not st.ns:
            continue
        lo, hi = st.start, st.end if st.end is not None else float("inf")
        span = spans.setdefault((st.inv, st.ns), [lo, hi])
        span[0], span[1] = min(span[0], lo), max(span[1], hi)
    ordered = sorted(((inv, lo, hi, ns) for (inv, ns), (lo, hi) in spans.items()))
    open_: list[tuple[int, float, str]] = []
    for inv, lo, hi, ns in ordered:
        open_ = [o for o in open_ if o[0] == inv and o[1] > lo + 1e-6]
        if any(_side_by_side(other, ns) for _inv, _hi, other in open_):
            return True
        open_.append((inv, hi, ns))
    return False


PUT_FIRST = 1e-4
"""Seconds before a task's end at which its writes are re-timed: a wait that begins at that
very moment (the step's put under sync, a subgraph's executor waiting for its last put as
it leaves, ``BackgroundExecutor.__exit__``) comes after ``put_writes`` was called."""


def _put_at(
    ev: Evidence,
    a: Attempt,
    put: float,
    own: tuple[set[str], list[Attempt]] | None,
    target: Callable[[float, str], float],
    landing: dict[tuple[str, int, int], float],
    lane_of: dict[int, str],
) -> float:
    """When `a`'s writes are put under the target mode. A task that ran subgraphs of its own
    (`own`, `_ended_own_runs`: a trace shows its span around them) ends once its last run has
    left, that run's loop waiting for its puts in flight: on the runs' clock, not its own
    lane's, where the waits the runs made are not yet taken out (`Send` workers that each run
    a subgraph)."""
    lane = lane_of.get(id(a), "")
    if own is None:
        # (a wait that begins at its end, its loop's for the step's put, or its subgraph's
        # executor's for its last put in flight, comes after the writes: they were put first)
        return target(put - PUT_FIRST, lane) + PUT_FIRST
    runs, inside = own
    _ns, inv, step = ev.step_of[id(a)]
    left = _runs_left(inside, inv, lambda ns: ns in runs, target, landing, ev)
    # and before its loop's next step began (the lanes' clocks may disagree by a wait)
    after = [
        target(b.start_ts, lane)
        for b in ev.attempts
        if id(b) in ev.step_of
        and ev.step_of[id(b)][:2] == (lane, inv)
        and ev.step_of[id(b)][2] > step
    ]
    return min([left, *after])


def _ended_own_runs(
    ev: Evidence,
    a: Attempt,
    put: float,
    lane_of: dict[int, str],
    by_task: dict[str, set[str]],
) -> tuple[set[str], list[Attempt]] | None:
    """The subgraph runs `a`'s task ran (`_own_runs`) and their attempts before it ended,
    where its end waits for those runs' loops to leave (its writes put as it ended); None
    where it ran none of its own, or no attempt of them is in the log. A task whose lines
    then ended after those runs' end (a trace's span end) wrote them only once it returned
    (`Schedule.late_ends`)."""
    if put != a.end_ts:
        return None
    lane = lane_of.get(id(a), "")
    depth = lane.count("|") + 1 if lane else 0
    runs = _own_runs(ev, a, depth, by_task)
    if not runs:
        return None
    inside = _inside_own_runs(ev, a, ev.step_of[id(a)][1], _in_runs(runs, depth), until=a.end_ts)
    return (runs, inside) if inside else None


def failed_out_spans(ev: Evidence) -> bool:
    """Does a trace's task span of the last invocation close with a failure (a cheap test
    before `_failed_out_holders`)?"""
    last = ev.invocations - 1
    return any(
        a.outcome == "failed" and span_only(a) and ev.step_of.get(id(a), ("", -1, -1))[1] == last
        for a in ev.attempts
    )


def _failed_out_holders(
    ev: Evidence, by_task: dict[str, set[str]]
) -> list[tuple[Attempt, float, list[tuple[str, int, int]]]]:
    """(task, when the failure ended, the puts of its runs) for each trace task span of the
    last invocation that closed after a failure raised out of a subgraph run of its own
    (`_own_runs`): the failure was the last thing its graph did, and the span closed only
    once that graph's loop left. Under exit the loop saved on its way out
    (``_suppress_interrupt`` saves a nested graph that raised), under async it waited for
    its puts in flight (LangGraph 1.2.15, test_error_handler_subgraph_async's shape at 0.3 s
    a write, from async: ``subgraph_node``'s span closed 0.29 s after ``sub_fail_node``
    failed, 5 ms before the kill; under exit that save took the latency, and the real exit
    runs never wrote the span's end)."""
    last = ev.invocations - 1
    out: list[tuple[Attempt, float, list[tuple[str, int, int]]]] = []
    for a in ev.attempts:
        if a.outcome != "failed" or not span_only(a) or id(a) not in ev.step_of:
            continue
        lane, inv, _step = ev.step_of[id(a)]
        if inv != last:
            continue
        depth = lane.count("|") + 1 if lane else 0
        own = _own_runs(ev, a, depth, by_task)
        if not own:
            continue
        in_own = _in_runs(own, depth)
        inside = _inside_own_runs(ev, a, inv, in_own, until=a.end_ts)
        failed = [b for b in inside if b.outcome == "failed" and id(b) not in ev.retried]
        if not failed:
            continue
        fail_end = max(b.end_ts for b in failed)
        if fail_end + CLOCK_EPS < max(b.end_ts for b in inside):
            continue  # its graph went on after the failure (a handler, a retry)
        if a.lines[-1].ts + CLOCK_EPS < fail_end:
            continue
        puts = [(p.ns, p.inv, p.step) for p in ev.puts if p.inv == inv and in_own(p.ns)]
        out.append((a, fail_end, puts))
    return out


def _paused_out_holders(
    ev: Evidence, lane_of: dict[int, str], by_task: dict[str, set[str]]
) -> list[tuple[Attempt, float, int]]:
    """(task, when the pause inside it came, how many graph levels it rose through) for each
    trace task span of the last invocation that closed at a pause inside a subgraph run of its
    own (`_own_runs`): the pause was the last thing its graphs did, and under exit each of
    them saved on its way out (``_suppress_interrupt``), the innermost first, before the span
    of the task that ran it closed. Three levels (test_3_levels_deep_time_travel_to_middle_
    subgraph's shape, LangGraph 1.2.24 at 0.3 s a write), killed 0.32 s after ``ask_2``
    asked: the real exit run closed ``inner`` 0.32 s after the pause and never ``outer``,
    one more save up; read from sync, whose spans closed at once, exit was said to write
    ``outer``'s end too (10 span lines again where 9)."""
    last = ev.invocations - 1
    out: list[tuple[Attempt, float, int]] = []
    for a in ev.attempts:
        if a.outcome != "interrupted" or not span_only(a) or id(a) not in ev.step_of:
            continue
        inv = ev.step_of[id(a)][1]
        in_own = _runs_of(ev, a, lane_of, by_task) if inv == last else None
        if in_own is None:
            continue
        inside = _inside_own_runs(ev, a, inv, in_own, until=a.end_ts)
        if not inside or any(b.outcome not in ("finished", "interrupted") for b in inside):
            continue
        paused = [b for b in inside if b.outcome == "interrupted"]
        if not paused:
            continue
        level = {id(b): namespaces.depth(ev.step_of[id(b)][0]) for b in paused}
        inner = max(level.values())
        pause_end = max(b.end_ts for b in paused if level[id(b)] == inner)
        went_on = any(b.outcome == "finished" and b.end_ts > pause_end + CLOCK_EPS for b in inside)
        if went_on or a.lines[-1].ts + CLOCK_EPS < pause_end:
            continue
        out.append((a, pause_end, inner - namespaces.depth(lane_of.get(id(a), ""))))
    return out


def _returned_after_runs(
    ev: Evidence,
    a: Attempt,
    target: Callable[[float, str], float],
    landing: dict[tuple[str, int, int], float],
    lane_of: dict[int, str],
    by_task: dict[str, set[str]],
    recording: Recording | None,
) -> float | None:
    """When a trace's task span still open at the kill would have returned under the target
    mode: its own subgraph runs (`_own_runs`) had all ended, and it returns once their loops
    left, each waiting for its puts in flight (as `_put_at` dates a span that ended). None
    where it ran no run of its own, or one had not ended, or where the recording itself
    shows the task went on after them: its runs' waits had ended before the recorded kill,
    and its span was still open (a node that invokes a graph, then works on:
    test_double_interrupt_subgraph's ``invoke_sub_agent``), or the recorded mode is unknown.
    `recording` None: the recording is not asked (the span returned once its graphs left).

    Under async a `Send` worker's span stays open after its subgraph's last task, while that
    loop waits for its puts; under sync each put was waited for after its step, and the
    worker returns at once (test_send_to_nested_graphs, killed in the third worker: the real
    sync run did not run the first worker again)."""
    in_own = _runs_of(ev, a, lane_of, by_task)
    if in_own is None:
        return None
    inv, inside = _every_run_attempt(ev, a, in_own)
    if not inside or any(b.outcome != "finished" or id(b) in ev.halted for b in inside):
        return None
    if any(st.inv == inv and st.attempts and in_own(st.ns) for st in _open_steps(ev)):
        return None
    if recording is not None and _went_on_after_runs(
        ev, inv, in_own, max(b.end_ts for b in inside), recording
    ):
        return None
    return _runs_left(inside, inv, in_own, target, landing, ev)


def _closed_at_pause(
    ev: Evidence,
    a: Attempt,
    target: Callable[[float, str], float],
    landing: dict[tuple[str, int, int], float],
    lane_of: dict[int, str],
    by_task: dict[str, set[str]],
) -> float | None:
    """When a trace's task span still open at the kill closes under the target mode, where
    the graph it ran had paused: its last task asked, and the span ends (interrupted) once
    that graph's loop left, its puts in flight landed. Under async the loop waited for the
    puts its steps queued; under sync each was waited for after its step, and the span
    closes at once (stateful_subgraph_forked_turns at 0.25 s from async with a trace: the
    ``sub_node`` span open 0.2 s after ``step_b`` asked closed 2 ms after it under sync, one
    more line again than the recording wrote). None where the graph had not paused last, or
    no line of its runs is in the log."""
    in_own = _runs_of(ev, a, lane_of, by_task)
    if in_own is None:
        return None
    inv, inside = _every_run_attempt(ev, a, in_own)
    if not inside or max(inside, key=lambda b: b.end_ts).outcome != "interrupted":
        return None
    if any(b.outcome not in ("finished", "interrupted") for b in inside):
        return None
    return _runs_left(inside, inv, in_own, target, landing, ev)


def _progress_inside(
    ev: Evidence,
    a: Attempt,
    target: Callable[[float, str], float],
    lane_of: dict[int, str],
    by_task: dict[str, set[str]],
) -> float:
    """When (re-timed) the killed task `a` began, as far as its own subgraph runs' lines
    place it: the latest moment any of them started or ended before the kill, on its run's
    lane, less the recorded time from `a`'s start to it. A task span still open at the kill
    (a trace) dates the kill from its own start; but the runs inside it waited for their
    puts under sync where the recording did not, and the kill came after their last line
    all the same (subgraph_noop_replay_then_input on LangGraph 1.0.10 at 0.3 s a write, from
    async with a trace, killed as ``ask_1`` asked inside ``executor``: dated from
    ``executor``'s start, sync was said to lose the checkpoint where ``ask_1`` was due and run
    ``step_a`` again, 12 3 5, where the real sync run had saved it, 13 2 4). -inf where no
    line of its runs is in the log."""
    if ev.kill_offset is None or id(a) not in ev.step_of:
        return float("-inf")
    in_own = _runs_of(ev, a, lane_of, by_task)
    if in_own is None:
        return float("-inf")
    killed_at = a.start_ts + ev.kill_offset
    inside = _inside_own_runs(ev, a, ev.step_of[id(a)][1], in_own, until=killed_at)
    moments = [
        (t, lane_of.get(id(b), ""))
        for b in inside
        for t in (b.start_ts, b.end_ts)
        if t <= killed_at + CLOCK_EPS
    ]
    return max(
        (target(t, b_lane) - (t - a.start_ts) for t, b_lane in moments), default=float("-inf")
    )


def _every_run_attempt(
    ev: Evidence, a: Attempt, in_own: Callable[[str], bool]
) -> tuple[int, list[Attempt]]:
    """`a`'s invocation, and every attempt of it inside the runs `in_own` names, from `a`'s
    start on (a span still open at the kill has no end to stop at)."""
    inv = ev.step_of[id(a)][1]
    return inv, _inside_own_runs(ev, a, inv, in_own, until=float("inf"))


def _runs_of(
    ev: Evidence, a: Attempt, lane_of: dict[int, str], by_task: dict[str, set[str]]
) -> Callable[[str], bool] | None:
    """Is a namespace key inside a graph run `a`'s task ran? Its own runs where lines name its
    task id (`_own_runs`), else the subgraph named after its node (`_named_after`). None for
    an attempt the evidence placed in no step."""
    if id(a) not in ev.step_of:
        return None
    lane = lane_of.get(id(a), "")
    depth = lane.count("|") + 1 if lane else 0
    runs = _own_runs(ev, a, depth, by_task)
    return _in_runs(runs, depth) if runs else _named_after(ev, a, lane, depth)


def _named_after(ev: Evidence, a: Attempt, lane: str, depth: int) -> Callable[[str], bool] | None:
    """Is a namespace key a run of the subgraph named after `a`'s node (a ``checkpointer=True``
    graph's namespace names no task)? None where another task of the same node ran in `a`'s
    step (`Send` workers): the runs could be either's."""
    _ns, inv, step = ev.step_of[id(a)]
    if any(
        b is not a and b.node == a.node and ev.step_of.get(id(b)) == (lane, inv, step)
        for b in ev.attempts
    ):
        return None
    child = f"{lane}|{a.node}" if lane else a.node

    def named(ns: str) -> bool:
        top = "|".join(ns.split("|")[: depth + 1])
        return ns != lane and base_space(top).partition(namespaces.CALL)[0] == child

    return named


def _in_runs(own: set[str], depth: int) -> Callable[[str], bool]:
    """Is a namespace key inside one of the runs `own` (keys cut to `depth + 1` levels)?"""
    return lambda ns: "|".join(ns.split("|")[: depth + 1]) in own


def _called_after(ev: Evidence, a: Attempt, end: float) -> list[Attempt] | None:
    """The ``@task`` calls an `@entrypoint`'s own lines (`a`, `Evidence.entrypoint`) were
    followed by in its invocation, which its body made before it returned (None for any
    other attempt). Its writes are put when it returns, after the last of them: an
    entrypoint that logs, then calls a task killed mid-effect, had not returned
    (entrypoint_timeout from exit, the resume after the timeout killed in `store`: sync and
    async were said to run `store` alone again, 1 1 1, where they ran the entrypoint again
    from its top, 1 2 5)."""
    if ev.entrypoint is None or a.node != ev.entrypoint or id(a) not in ev.step_of:
        return None
    inv = ev.step_of[id(a)][1]
    return [
        b
        for b in ev.attempts
        if b.node != a.node
        and b.start_ts >= end
        and id(b) in ev.step_of
        and ev.step_of[id(b)][1] == inv
        and (b.logged_ns is None or b.logged_ns.partition(":")[0] == a.node)
    ]


def _went_on_after_own_runs(ev: Evidence, a: Attempt, by_task: dict[str, set[str]]) -> bool:
    """Did `a`'s task log, then run graphs of its own after its last line, and had it still
    not returned in the recording (the database holds no writes of it)? It goes on after
    its lines, for as long as the graphs it invokes take, and more may follow that had not
    logged yet: its writes are not put by the kill (multiple_subgraphs_functional at 0.75 s,
    a `@task` that logs, then invokes the entrypoints `add` and `multiply`, killed before
    `multiply` logged: from async into sync, the task was read as returned when its line
    ended, 1 1 2 where the real sync resume ran it and `add` again, 1 2 4). Not where its
    loop went on to a later step, which it could only once the task returned, nor from an
    exit recording, whose database holds no task's writes (test_parent_command_from_nested_
    subgraph at 2 s: ``parent_first`` logs, then invokes two graphs, and ``parent_second``
    ran after it)."""
    if a.task is not None and a.task.done:
        return False
    ns, inv, step = ev.step_of[id(a)]
    if any(ev.step_of.get(id(b), ("", -1, -1))[:2] == (ns, inv) and ev.step_of[id(b)][2] > step
           for b in ev.attempts):  # fmt: skip
        return False  # its loop went on to a later step: it had returned
    depth = ns.count("|") + 1 if ns else 0
    runs = _own_runs(ev, a, depth, by_task) or _runs_under_node(ev, a, depth)
    if not runs:
        return False
    in_own = _in_runs(runs, depth)
    return any(
        id(b) in ev.step_of
        and ev.step_of[id(b)][1] == inv
        and in_own(ev.step_of[id(b)][0])
        and b.start_ts >= a.end_ts
        for b in ev.attempts
        if b is not a
    )


def _runs_under_node(ev: Evidence, a: Attempt, depth: int) -> set[str]:
    """Where no line names `a`'s task id (a bare log): the runs of graphs under its node's
    namespace (the database names them, ``node:<task id>``) that began while it ran or
    after, in its invocation, where it is its step's only attempt of its node: no other
    task of that node could have run them. LangGraph 1.2.15, multiple_subgraphs_functional
    under `ainvoke` at 0.3 s, a bare log: ``call_multiple_subgraphs`` logs, then invokes
    `add` (its return write in the database under the task's namespace) and `multiply`;
    its own writes were nowhere 0.6 s after its last line, and from async into sync it was
    read as returned as its line ended (2 1 2, where the real sync runs ran it and `add`
    again: 2 2 4)."""
    ns, inv, step = ev.step_of[id(a)]
    if any(
        b is not a and b.node == a.node and ev.step_of.get(id(b)) == (ns, inv, step)
        for b in ev.attempts
    ):
        return set()
    child = f"{ns}|{a.node}" if ns else a.node
    runs: set[str] = set()
    for b in ev.attempts:
        where = ev.step_of.get(id(b))
        if b is a or where is None or where[1] != inv or b.start_ts < a.start_ts:
            continue
        top = "|".join(where[0].split("|")[: depth + 1])
        if top != ns and base_space(top).partition(namespaces.CALL)[0] == child:
            runs.add(top)
    return runs


def _inside_own_runs(
    ev: Evidence, a: Attempt, inv: int, in_own: Callable[[str], bool], *, until: float
) -> list[Attempt]:
    """The attempts of `a`'s invocation that ran inside its own subgraph runs, started
    between its start and `until` (its end, or never for a span still open)."""
    return [
        b
        for b in ev.attempts
        if b is not a
        and id(b) in ev.step_of
        and ev.step_of[id(b)][1] == inv
        and in_own(ev.step_of[id(b)][0])
        and a.start_ts <= b.start_ts <= until
    ]


def _runs_left(
    inside: list[Attempt],
    inv: int,
    landed_in: Callable[[str], bool],
    target: Callable[[float, str], float],
    landing: dict[tuple[str, int, int], float],
    ev: Evidence,
) -> float:
    """When a task's own runs had left under the target mode: a tick after the last of their
    attempts ended and the last put of theirs (`landed_in` says which loops) landed."""
    ends = [target(b.end_ts, ev.step_of[id(b)][0]) for b in inside]
    ends += [t for (ns, i, _s), t in landing.items() if i == inv and landed_in(ns)]
    return max(ends) + TICK


def _went_on_after_runs(
    ev: Evidence, inv: int, in_own: Callable[[str], bool], ended: float, recording: Recording
) -> bool:
    """Did the recording kill a task after its runs' loops had left (their puts in flight
    landed, one after another, at the recorded latency), its span still open? Then it did
    more after them. True too where the recorded mode or the kill moment is not known."""
    if recording.mode is None or ev.crash_ts is None:
        return True
    left = ended
    lag = (recording.latency or 0.0) + WRITE_COST
    if recording.mode != "exit":
        for p in sorted(
            (p for p in ev.puts if p.inv == inv and in_own(p.ns)), key=lambda p: p.submit
        ):
            left = max(left, p.submit) + lag
    elif any(in_own(ns) for ns in ev.exit_saved) or any(
        k[1] == inv and in_own(k[0]) for k in ev.raised_out
    ):
        # under exit a run that raised out, or one of a stable graph, saves on its way out:
        # the span waits for that save (parent_command_stateful under exit, killed 0.05 s
        # after `tool` raised its command out of `alice`, the save taking 0.45 s)
        left += lag
    return left + TICK <= ev.crash_ts


def _loops_by_task(ev: Evidence) -> dict[str, set[str]]:
    """Task id -> the namespace keys (`space_keys`, instance marks kept) of the attempts whose
    logged namespace names that task (a trace, LangGraph's values): once per schedule, for
    `_own_runs`."""
    out: dict[str, set[str]] = {}
    for b in ev.attempts:
        if b.logged_ns and id(b) in ev.step_of:
            for _node, tid in namespaces.segments(b.logged_ns):
                if tid:
                    out.setdefault(tid, set()).add(ev.step_of[id(b)][0])
    return out


def _own_runs(ev: Evidence, a: Attempt, depth: int, by_task: dict[str, set[str]]) -> set[str]:
    """The namespace keys of the subgraph runs `a`'s own task ran: those whose lines name its
    task id in their namespace (`_loops_by_task`), cut to the level below `a`'s loop. Empty
    where no line names it. Its `@task` calls name it too, but run in its own loop: no run of
    a graph."""
    if not a.task_id or id(a) not in ev.step_of:
        return set()
    runs = {"|".join(key.split("|")[: depth + 1]) for key in by_task.get(a.task_id, ())}
    return runs - {ev.step_of[id(a)][0]}


def _runs_a_subgraph_still(ev: Evidence, a: Attempt, by_task: dict[str, set[str]]) -> bool:
    """Did `a`'s task invoke a subgraph (named after its node) whose steps, or those of a
    graph inside it, had not all ended? A node that logs, then calls ``subgraph.invoke()``,
    finishes only when the subgraph does (the second graph it invokes, ``node~1``, too)."""
    ns, inv, step = ev.step_of[id(a)]
    child = f"{ns}|{a.node}" if ns else a.node
    depth = ns.count("|") + 1 if ns else 0
    own = _own_runs(ev, a, depth, by_task)
    for st in _open_steps(ev):
        top = "|".join(st.ns.split("|")[: depth + 1])
        if st.inv != inv or base_space(top).partition(namespaces.CALL)[0] != child:
            continue
        if own and top not in own:
            continue  # a run of the same subgraph by another task (a `Send` worker beside it)
        holder = ev.holder_of.get((st.ns, st.inv, st.step)) if st.ns == top else None
        if holder is None:
            holder = ev.container.get((top, st.inv))
        # a loop with no line of its own (a stable one run in the node's body) has no
        # holder: the run it began after the node started is the node's
        if (step if holder is None and st.start >= a.start_ts else holder) != step:
            continue
        # open work placed in the subgraph: by the log, the database, or a bare line's
        # placement after the subgraph's own lines (the figures follow the placement, which
        # the checkpoint range widens; test_stateful_state_accumulates_with_interrupt from
        # exit at 0.5 s a write: ``respond``, in flight, named by no checkpoint)
        if st.attempts:
            return True
    return False


@per_evidence
def _open_steps(ev: Evidence) -> list[Step]:
    """The steps that never ended (killed, paused, failed), listed once per evidence."""
    return [st for st in ev.steps if st.end is None]


def exit_saves(
    ev: Evidence, last_killed: bool | None = None, runs_ended: bool = False
) -> set[tuple[str, int, int]]:
    """Under exit, each invocation that ended saved its last root checkpoint (if it moved on);
    a subgraph whose loop raised out of a step (`evidence._raised_out`, a `ParentCommand`)
    saved its last checkpoint on the way out, even in the invocation that was then killed:
    ``_suppress_interrupt`` (``pregel/_loop.py``) saves a nested loop under exit when
    ``exc_value is not None``, and the subgraph left before the kill. `last_killed`: did the
    last invocation die before its saves (its ending says, unless the schedule knows it was
    killed while saving its pause)?"""
    saves: set[tuple[str, int, int]] = set()
    built = {(p.ns, p.inv, p.step) for p in ev.puts}
    killed = ev.ending == "killed" if last_killed is None else last_killed
    saves |= _stable_run_saves(ev, built, killed, runs_ended)
    for ns, inv, step in ev.raised_out:
        before = max(
            (k[2] for k in built if k[0] == ns and k[1] == inv and k[2] < step), default=None
        )
        if before is not None and inv not in ev.killed_earlier:
            saves.add((ns, inv, before))
    saves |= _failed_out_saves(ev, built)
    last_inv = ev.invocations - 1
    for inv in range(ev.invocations):
        if (inv == last_inv and killed) or inv in ev.killed_earlier:
            continue
        # (a root step of an ended invocation that a database of sync or async lacks never
        # completed: LangGraph 0.4.10, stateful_subgraph_interrupt's answered turn saved no
        # root checkpoint in any mode)
        done = [
            p
            for p in ev.puts
            if p.ns == ""
            and p.inv == inv
            and not p.edit
            and (p.checkpoint is not None or not ev.puts_kept)
        ]
        if done:
            saves.add(("", inv, max(p.step for p in done)))
        saves |= _paused_subgraph_saves(ev, built, inv)
    return saves


def _cancelled(a: Attempt, unsure: bool) -> bool:
    """Did its step's raise cancel `a` (`evidence.cancelled_at_raise`)? Where the database
    cannot tell, `unsure` answers."""
    told = cancelled_at_raise(a)
    return told if told is not None else unsure


def _failed_out_saves(ev: Evidence, built: set[tuple[str, int, int]]) -> set[tuple[str, int, int]]:
    """Under exit, a subgraph whose task failed for good (no `RetryPolicy` retry in its step)
    left its loop by raising, and saved its last checkpoint on the way out, with the failure's
    write: ``_suppress_interrupt`` saves a nested loop under exit when ``exc_value is not
    None``. The raise came before the kill when anything started after the failure (the parent
    node's error handler, which runs in the parent's step:
    test_node_error_handler_handles_subgraph_internal_failure_async, 1 kept where none had
    been predicted)."""
    out: set[tuple[str, int, int]] = set()
    retried = retried_in_step(ev.attempts)  # (`ev.retried` holds handled failures too)
    for a in ev.attempts:
        ns, inv, step = ev.step_of.get(id(a), ("", 0, 0))
        if not ns or a.outcome != "failed" or id(a) in retried or id(a) in ev.failed_calls:
            continue
        if inv in ev.killed_earlier or not any(b.start_ts > a.end_ts for b in ev.attempts):
            continue
        mine = [k[2] for k in built if k[0] == ns and k[1] == inv and k[2] < step]
        if mine:
            out.add((ns, inv, max(mine)))
    return out


def exit_delta_stubs(ev: Evidence, saves: set[tuple[str, int, int]]) -> int:
    """Under exit, a loop keeps the writes of its `DeltaChannel`s (LangGraph 1.2) on its way
    out, anchored on the checkpoint it loaded; a loop with none saved before it (the thread's
    first run that saves) first saves a stub checkpoint to anchor them (step -2, no parent:
    ``PregelLoop._put_exit_delta_writes``). One more checkpoint in that loop's namespace.

    The database names the delta channels in each checkpoint's metadata
    (`analysis.delta.delta_channels`); a database with none says nothing, and none is added."""
    with_delta = {c.checkpoint_ns for c in ev.db_checkpoints if delta_channels(c)}
    stubs = 0
    for ns in with_delta:
        first = min((inv for n, inv, _step in saves if n == ns), default=None)
        if first is None:
            continue
        if any(p.edit and p.ns == ns and p.inv <= first for p in ev.puts):
            continue  # update_state saved one before: the writes anchor on it
        stubs += 1
    return stubs


def _paused_subgraph_saves(
    ev: Evidence, built: set[tuple[str, int, int]], inv: int
) -> set[tuple[str, int, int]]:
    """Under exit, a subgraph whose task paused at ``interrupt()`` (or raised) saves its last
    checkpoint on the way out, as the root does: ``_suppress_interrupt`` saves a nested loop
    when ``exc_value is not None`` (a `GraphInterrupt` included)."""
    out: set[tuple[str, int, int]] = set()
    stopped = {
        st.ns
        for st in ev.steps
        if st.ns
        and st.inv == inv
        and any(a.outcome in ("interrupted", "failed") or id(a) in ev.halted for a in st.attempts)
    }
    # A subgraph run a resume went on with paused there, though no attempt of it shows a
    # pause (a breakpoint inside it: `Evidence.carried`).
    stopped |= {ns for ns, i in ev.carried if i == inv}
    if inv < len(ev.endings) and ev.endings[inv] == "paused":
        # A pause no line shows (``interrupt()`` before the node's first effect): the loops
        # whose last checkpoint of the invocation still had tasks due were on its way up.
        stopped |= {ns for ns in _open_at_end(ev, inv) if ns}
    # The pause raises through every loop above it (`GraphInterrupt` out of each parent's
    # task), and each of them saves on its way out too (test_doubly_nested_graph_interrupts).
    stopped |= {
        "|".join(ns.split("|")[:k]) for ns in list(stopped) for k in range(1, ns.count("|") + 1)
    }
    for ns in stopped:
        mine = [k[2] for k in built if k[0] == ns and k[1] == inv]
        if mine:
            out.add((ns, inv, max(mine)))
    return out


def _pause_saves_before(
    ev: Evidence, crash: float, lag: float, target: Callable[[float, str], float]
) -> set[tuple[str, int, int]]:
    """Under exit, the saves a pause the kill cut short made before the crash: it rose
    through its graphs one save at a time, the innermost first (`_paused_subgraph_saves`),
    each graph's save taking a write, whether or not that graph had a new checkpoint to save.
    The pause came as the deepest paused task asked (or, where it asked before it logged, a
    tick after the line before it: `Evidence.pause_kill`). Three levels at 0.3 s a write,
    killed 0.32 s after ``ask_2`` asked (test_3_levels_deep_time_travel_to_middle_subgraph's
    shape): the real exit run saved the innermost graph's pause and no more."""
    last = ev.invocations - 1
    paused = [
        a
        for a in ev.attempts
        if a.outcome == "interrupted" and ev.step_of.get(id(a), ("", -1, -1))[1] == last
    ]
    depth = namespaces.depth
    deepest = max((depth(ev.step_of[id(a)][0]) for a in paused), default=0)
    if paused:
        began = max(
            target(a.end_ts, ev.step_of[id(a)][0])
            for a in paused
            if depth(ev.step_of[id(a)][0]) == deepest
        )
    elif ev.pause_kill is not None:
        began = target(ev.pause_kill) + TICK
    else:
        return set()
    built = {(p.ns, p.inv, p.step) for p in ev.puts}
    saves = _paused_subgraph_saves(ev, built, last)
    top = max((depth(ns) for ns, _i, _s in saves), default=deepest)
    return {
        key
        for key in saves
        if began + (max(top, deepest) - depth(key[0]) + 1) * lag <= crash + CLOCK_EPS
    }


def _open_at_end(ev: Evidence, inv: int) -> set[str]:
    """The loops whose last put of invocation `inv` is a checkpoint with tasks still due (or
    one the database does not hold: nothing says the run had ended)."""
    last: dict[str, Put] = {}
    for p in ev.puts:
        if p.inv == inv and not p.edit and (p.ns not in last or p.step > last[p.ns].step):
            last[p.ns] = p
    return {ns for ns, p in last.items() if p.checkpoint is None or p.checkpoint.tasks}


def _stable_run_saves(
    ev: Evidence, built: set[tuple[str, int, int]], killed: bool, runs_ended: bool = False
) -> set[tuple[str, int, int]]:
    """Under exit, a subgraph compiled with ``checkpointer=True`` saves when each of its runs
    ends, returned or not: ``_suppress_interrupt`` (``pregel/_loop.py``) saves a nested loop
    whose namespace has no task id (``all(NS_END not in part for part in
    self.checkpoint_ns)``); before LangGraph 0.5 every nested loop (`Evidence.exit_saved`).
    A run that ended before the kill left its last checkpoint.
    `killed`: did the last invocation die before its saves (`exit_saves`)? `runs_ended`: a run
    whose steps all ended, its tasks all finished, had left (nothing shows whether more was
    due in it: `schedule`'s `runs_ended`)."""
    saves: set[tuple[str, int, int]] = set()
    runs: dict[tuple[str, int, int], list[int]] = {}
    for (ns, inv, step), holder in ev.holder_of.items():
        if ns in ev.exit_saved and inv not in ev.killed_earlier:
            runs.setdefault((ns, inv, holder), []).append(step)
    last_inv = ev.invocations - 1
    for (ns, inv, holder), steps in runs.items():
        later = any(k[0] == ns and k[1] == inv and k[2] > holder for k in runs)
        # the parent went on past the step that ran it: the subgraph's task had returned
        parent = ns.rpartition("|")[0]
        went_on = any(st.ns == parent and st.inv == inv and st.step > holder for st in ev.steps)
        ended = later or went_on or _next_call_began(ev, ns, inv) or inv < last_inv or not killed
        ended = ended or (runs_ended and _tasks_all_finished(ev, ns, inv))
        mine = [s for s in steps if (ns, inv, s) in built]
        if ended and mine:
            saves.add((ns, inv, max(mine)))
    # A stable loop with no line of its own (its only node a graph, run inside a node's
    # body): no step of the loop above is known to hold it, but an invocation that ended
    # ended its run too.
    held = {(ns, inv) for ns, inv, _h in runs}
    for ns, inv in {(k[0], k[1]) for k in built}:
        if ns in ev.exit_saved and (ns, inv) not in held and inv not in ev.killed_earlier:
            # (or, in the killed one, the task that ran it invoked another graph after it, or
            # the loop above went on to a later step: it had returned)
            if (
                inv < last_inv
                or not killed
                or _next_call_began(ev, ns, inv)
                or _parent_went_on(ev, ns, inv)
            ):
                mine = [k[2] for k in built if k[0] == ns and k[1] == inv]
                saves.add((ns, inv, max(mine)))
    return saves


def _tasks_all_finished(ev: Evidence, ns: str, inv: int) -> bool:
    """Did every step of the run `ns` in `inv` end, with every task of it finished?"""
    mine = [st for st in ev.steps if st.ns == ns and st.inv == inv]
    return bool(mine) and all(
        st.end is not None and all(a.outcome == "finished" for a in st.attempts) for st in mine
    )


def _parent_went_on(
    ev: Evidence, ns: str, inv: int, unplaced: frozenset[str] = frozenset()
) -> bool:
    """Did the loop above `ns` begin a later step than every step of `ns` in `inv` began?
    The task that ran `ns` (in its body) had returned, and `ns` with it. A step that holds
    only `unplaced` nodes (a bare log's, which no checkpoint names) does not tell: they may
    be `ns`'s own."""
    mine = [st.start for st in ev.steps if st.ns == ns and st.inv == inv]
    if not mine:
        return False
    parent = ns.rpartition("|")[0]
    last = max(mine)
    return any(
        st.ns == parent
        and st.inv == inv
        and st.start > last
        and any(a.node not in unplaced for a in st.attempts)
        for st in ev.steps
    )


def stable_saves_unplaced(ev: Evidence, unplaced: frozenset[str]) -> int:
    """Under exit, how many of `_stable_run_saves`' saves of the killed invocation rest only
    on the parent going on with `unplaced` nodes: a ``checkpointer=True`` subgraph that logs
    nothing of its own, read as returned because the root ran later nodes, which may have
    been its own (no checkpoint names them, the log names no namespace). Then it had not
    returned, and exit saved nothing of it (subgraph_checkpoint_true under `ainvoke` on
    Postgres at 0.25 s, from async's bare log: 1 kept where the real exit run kept 0)."""
    if not unplaced or ev.ending != "killed":
        return 0
    last_inv = ev.invocations - 1
    built = {(p.ns, p.inv, p.step) for p in ev.puts}
    held = {(ns, inv) for (ns, inv, _s) in ev.holder_of if ns in ev.stable}
    return sum(
        1
        for ns in {k[0] for k in built if k[1] == last_inv}
        if ns in ev.stable
        and (ns, last_inv) not in held
        and last_inv not in ev.killed_earlier
        and not _next_call_began(ev, ns, last_inv)
        and _parent_went_on(ev, ns, last_inv)
        and not _parent_went_on(ev, ns, last_inv, unplaced)
    )


def _next_call_began(ev: Evidence, ns: str, inv: int) -> bool:
    """Did the task that ran subgraph `ns` start another graph after it (``p~1`` after ``p``,
    `namespaces.levels`)? A task calls the graphs it invokes one after another, so the
    earlier one had returned."""
    parent, sep, last = base_space(ns).rpartition(namespaces.NS_SEP)
    name, _, call = last.partition(namespaces.CALL)
    own = int(call) if call.isdigit() else 0
    later = {f"{parent}{sep}{name}{namespaces.CALL}{k}" for k in range(own + 1, own + 8)}
    return any(base_space(st.ns) in later and st.inv == inv for st in ev.steps)
