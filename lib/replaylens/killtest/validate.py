"""`replaylens validate`: the durability what-if checked against real kills.

For every example graph and kill point, a kill-test campaign (`replaylens.killtest`)
SIGKILLs the graph under sync, async and exit at each checkpoint write latency, several
runs each. Every recording then predicts the other two modes at its latency
(`analysis.durability.what_if`, told the recorded mode, latency and kill moment, as a
kill-test manifest tells the dashboard), and each prediction is compared with the range
the real runs of that mode measured: checkpoints kept, tasks re-run, effect lines again.
A prediction outside the measured range is a bug of the model.

The measurement uses the same units as the prediction:

* **checkpoints kept**: checkpoints of the thread (every namespace) in the database as
  the kill left it;
* **tasks re-run**: tasks (namespace, node, step) that had started before the kill and
  started again in the resume. The same task id is the same task; when the step's
  checkpoint never landed the re-run gets new ids, and the tasks are matched by count;
* **effect lines again**: the effect-log lines, before the kill, of those tasks;
* a resume that raised ``EmptyInputError`` (no checkpoint) stands for a restart from the
  input, which runs every task of the log again; that is what the model predicts.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replaylens import namespaces
from replaylens.analysis.attempts import Attempt, group_attempts
from replaylens.analysis.durability import MODES, RACE, Mode, Recording
from replaylens.effects.parse import EffectLine, read_effects
from replaylens.effects.repeats import line_place, loop_path, needs_restart, start_lines, task_id
from replaylens.killtest.manifest import graph_cache

if TYPE_CHECKING:
    from replaylens.analysis.plan import ResumePlan


@dataclass(frozen=True)
class KillPoint:
    """One campaign: a graph killed `delay` seconds after the `count`th start of `node`."""

    graph: str
    node: str
    delay: float
    count: int = 1
    input: Any = None
    resume_value: Any = None
    has_resume_value: bool = False

    @property
    def label(self) -> str:
        return f"{self.graph} @ {self.node}{'' if self.count == 1 else f':{self.count}'}+{self.delay:g}s"


def _pt(graph: str, node: str, delay: float, **kw: Any) -> KillPoint:
    return KillPoint(graph, node, delay, **kw)


FULL_MATRIX: tuple[KillPoint, ...] = (
    _pt("linear", "c", 0.25),
    _pt("fanout", "p3", 0.3),
    _pt("send_map_reduce", "reduce", 0.25),
    _pt("loop", "tool", 0.25),
    _pt("subgraph", "s2", 0.25),
    _pt("payment", "charge", 0.25, resume_value=True, has_resume_value=True),
    # `killtest` aims only at graph nodes: the functional calls are reached from the
    # entrypoint's start (fetch_record runs 0-0.5 s into it, store_record 0.5-1 s).
    _pt("failing", "b", 0.25),
    _pt("functional", "pipeline", 0.75),
    # second kill moments: early in a node, early or late in the run
    _pt("linear", "b", 0.05),
    _pt("subgraph", "finish", 0.1),
    _pt("fanout", "join", 0.1),
    _pt("send_map_reduce", "work", 0.1),
    _pt("loop", "agent", 0.1, count=2),
    _pt("functional", "pipeline", 0.2),
)
"""Every example graph, then a second kill moment (early in a node) for most of them."""

FULL_LATENCIES = (0.0, 0.25, 1.0)
REDUCED_MATRIX: tuple[KillPoint, ...] = (_pt("linear", "c", 0.15), _pt("fanout", "p3", 0.2))
REDUCED_LATENCIES = (0.25,)
TRACE_AT_KILL, TRACE_WHOLE = "at-kill.callbacks.effects.jsonl", "callbacks.effects.jsonl"
"""The kill-test child's callbacks log (task spans, what a tracer sees) as the kill left it,
and with the resume."""


@dataclass
class Measured:
    checkpoints: int
    reruns: int
    lines: int


@dataclass
class Row:
    """One (kill point, latency, source mode -> target mode) comparison."""

    point: str
    latency: float
    source: Mode
    target: Mode
    predicted: list[tuple[int, int, int]] = field(default_factory=list)  # one per source run
    races: list[tuple[tuple[int, int], ...] | None] = field(
        default_factory=list
    )  # the race's spans, if any
    measured: list[tuple[int, int, int]] = field(default_factory=list)  # one per target run

    def span(self, i: int) -> tuple[int, int] | None:
        vals = [m[i] for m in self.measured]
        return (min(vals), max(vals)) if vals else None

    def inside(self) -> list[bool]:
        """One verdict per prediction: every one of its three numbers inside the measured range
        (or, where the model says a race decides, its span overlapping the measured one)."""
        out = []
        for n, p in enumerate(self.predicted):
            race = self.races[n] if n < len(self.races) else None
            ok = True
            for i in range(3):
                span = self.span(i)
                lo, hi = race[i] if race else (p[i], p[i])
                ok = ok and span is not None and lo <= span[1] and span[0] <= hi
            out.append(ok)
        return out

    def raced(self) -> int:
        return sum(1 for r in self.races if r)


# --------------------------------------------------------------------------- measuring
def _task_of(a: Attempt) -> tuple[str, str, int | None]:
    return (loop_path(a.lines[0]), a.node, a.step)


def measure(entry: dict[str, Any]) -> Measured:
    """What one real kill and resume did, in the units of the prediction."""
    return measure_detail(entry)[0]


RerunKey = tuple[tuple[str, str, int | None], str | None]
"""A task that started again: ((namespace without task ids, node, step), task id)."""


def measure_detail(entry: dict[str, Any]) -> tuple[Measured, set[RerunKey] | None]:
    """`measure`, with the tasks that started again (None: a restart runs every one)."""
    from replaylens.analysis.status import load_thread
    from replaylens.errors import ThreadNotFound
    from replaylens.sources import open_source

    tid = entry["thread_id"]
    source = open_source(entry["db_at_kill"])
    saved: set[str] = set()  # root tasks whose writes the database at the kill holds
    resumed_from: int | None = None  # the step of the root checkpoint a resume starts at
    try:
        thread = load_thread(source, tid)
        checkpoints = thread.checkpoint_count
        root = thread.namespaces.get("")
        saved = {t.task_id for c in (root.checkpoints if root else []) for t in c.tasks if t.done}
        steps = [c.step for c in (root.checkpoints if root else []) if c.step is not None]
        resumed_from = max(steps, default=None)
    except ThreadNotFound:
        checkpoints = 0
    finally:
        source.close()
    before = read_effects(entry["effects_at_kill"]).for_thread(tid)
    after = read_effects(entry["effects"]).for_thread(tid)[len(before) :]
    pre = group_attempts(before)
    if needs_restart((entry.get("resume") or {}).get("error")):
        tasks = {(_task_of(a), a.task_id) for a in pre}
        return Measured(checkpoints, len(tasks), sum(len(a.lines) for a in pre)), None
    again = start_lines(after)
    rerun: set[RerunKey] = set()
    by_key: dict[tuple[str, str, int | None], list[Attempt]] = {}
    for a in pre:
        by_key.setdefault(_task_of(a), []).append(a)
    seen_spaces = {a.logged_ns for a in pre if a.logged_ns}
    # A subgraph namespace the resume entered again kept its runner's task id; its tasks
    # are repeated under that namespace or not at all (a later run of the same subgraph,
    # a loop's next round, is new work).
    reentered = {line_place(line).checkpoint_ns for line in again} - {""}
    # Each invocation of a kill-test run is a process of its own: a task an earlier process
    # finished belongs to an invocation that ended, which no resume runs again.
    killed_pid = _killed_pid(entry, before)
    ended_before = {
        a.task_id
        for a in pre
        if killed_pid is not None
        and a.lines[0].pid not in (None, killed_pid)
        and a.outcome == "finished"
    }
    # A step the resume ran again from the same checkpoint keeps its tasks' ids (LangGraph
    # derives them from that checkpoint, a call's from its caller and order): where one task
    # of a step started again under its own id, a start there under a new id is a task the
    # killed run had not reached (an entrypoint's next `@task` call), not a repeat.
    # (per run of a loop: one `Send` worker's subgraph keeping its ids says nothing of its
    # sibling's, whose step ran again from an earlier checkpoint under new ids)
    known = {a.task_id for a in pre if a.task_id}
    kept_steps = {
        (line_place(line).checkpoint_ns, line.step) for line in again if task_id(line) in known
    }
    for key, attempts in by_key.items():
        ids = {a.task_id for a in attempts}
        space_of = {a.task_id: a.logged_ns for a in attempts}
        starts = [line for line in again if (loop_path(line), line.node, line.step) == key]
        same = {task_id(line) for line in starts if task_id(line) in ids}
        rerun |= {(key, i) for i in same}
        rest = sorted(
            (i for i in ids if i not in same),
            key=lambda i: (_finished_first(attempts, i), _first_start(attempts, i)),
        )
        new = {
            task_id(line): line_place(line).checkpoint_ns
            for line in starts
            if task_id(line) not in ids
        }
        for space in (sp for sp in new.values() if (sp, key[2]) not in kept_steps):
            # A start under a new task id repeats a task whose id changed (its loop started
            # over from an earlier checkpoint). In a loop that ran before the kill under the
            # same namespace (one `Send` worker's subgraph of several), only that loop's
            # tasks can be the one repeated; the other workers' are not.
            # A task run inside a root task whose writes the database holds belongs to a
            # step a resume does not run again (LangGraph hands those writes back).
            pool = [
                i
                for i in rest
                if i not in ended_before
                and _root_task(space_of.get(i), i) not in saved
                and (
                    space_of.get(i) == space
                    or (space not in seen_spaces and space_of.get(i) not in reentered)
                )
            ]
            if pool:
                rerun.add((key, pool[0]))
                rest.remove(pool[0])
    still_open = [a for a in pre if a.task_id is None or a.task_id not in ended_before]
    rerun |= _persistent_reruns(still_open, again, rerun)
    killed = [a for a in still_open if a.lines[0].pid == killed_pid]
    if resumed_from is not None and _inside_invocation(killed, resumed_from):
        lost = [a for a in killed if a.task_id not in saved]
        rerun |= _shifted_reruns(lost, again, rerun, set(by_key))
    lines = sum(len(a.lines) for a in pre if (_task_of(a), a.task_id) in rerun)
    return Measured(checkpoints, len(rerun), lines), rerun


def _killed_pid(entry: dict[str, Any], before: list[EffectLine]) -> int | None:
    """The process the kill took: the last task start the callbacks saw (they see nodes that
    log nothing, such as one that only invokes graphs), else the effects log's last line."""
    callbacks = Path(entry["effects_at_kill"]).with_name(TRACE_AT_KILL)
    if callbacks.is_file():
        seen = read_effects(callbacks).for_thread(entry["thread_id"])
        if seen and seen[-1].pid is not None:
            return seen[-1].pid
    return before[-1].pid if before else None


def _persistent_reruns(
    pre: list[Attempt], again: list[EffectLine], rerun: set[RerunKey]
) -> set[RerunKey]:
    """Re-runs inside a subgraph compiled with ``checkpointer=True``: its namespace is a stable
    name (``inner``, no task id) and its steps go on across its runs, so when the parent task
    runs it again the repeated effects carry new step numbers. Per node of such a namespace,
    the latest attempts before the kill that no start matched by step are paired with the
    earliest starts after it that matched nothing, unless some start there matched by step
    (the subgraph resumed at its own checkpoint rather than running again from its start)."""
    out: set[RerunKey] = set()
    used = {(k[0], k[1], k[2]) for k, _ in rerun}
    for ns in {loop_path(a.lines[0]) for a in pre}:
        if (
            not ns
            or ":"
            in (
                a_ns := next(
                    a.lines[0].checkpoint_ns or "" for a in pre if loop_path(a.lines[0]) == ns
                )
            )
            or not a_ns
        ):
            continue
        if any(
            k[0] == ns for k in used if any(x.step == k[2] for x in again if loop_path(x) == ns)
        ):
            continue  # it resumed at its own checkpoint: the steps match, nothing to pair
        for node in {a.node for a in pre if loop_path(a.lines[0]) == ns}:
            left = [a for a in pre if loop_path(a.lines[0]) == ns and a.node == node
                    and (_task_of(a), a.task_id) not in rerun]  # fmt: skip
            starts = [x for x in again if loop_path(x) == ns and x.node == node
                      and (ns, node, x.step) not in used]  # fmt: skip
            left.sort(key=lambda a: a.start_ts, reverse=True)
            out |= {(_task_of(a), a.task_id) for a in left[: len(starts)]}
    return out


def _inside_invocation(killed: list[Attempt], resumed_from: int) -> bool:
    """Whether the checkpoint a resume starts at was saved by the killed invocation (at or
    after the checkpoint its first root step was planned from). A resume from one an earlier
    invocation left (exit saved nothing of the killed one) goes on with that invocation's
    work: the killed invocation's tasks are lost, not repeated, whatever starts after."""
    steps = [a.step for a in killed if not loop_path(a.lines[0]) and a.step is not None]
    return bool(steps) and resumed_from >= min(steps) - 1


def _shifted_reruns(
    lost: list[Attempt],
    again: list[EffectLine],
    rerun: set[RerunKey],
    steps_run: set[tuple[str, str, int | None]],
) -> set[RerunKey]:
    """Re-runs of root tasks whose resume no longer kept the killed run's step numbers.

    A resume re-does a step from the checkpoint the database holds, so it normally keeps the
    killed run's steps. Where that checkpoint holds a later state than the run had at its step
    (LangGraph 0.4's async saves serialize a join's barrier set after later writes have filled
    it, so the join's node runs a step early), the same nodes start again one or more steps
    off: decider before the kill at step 4, after the resume at step 3. Per node, the killed
    run's lost root tasks that no start matched (oldest first) are paired with the resume's
    root starts at steps where the killed run had no task of that node (earliest first), as
    far as the killed run had got: the resuming process only, and no step past its last."""
    out: set[RerunKey] = set()
    left = [a for a in lost if not loop_path(a.lines[0]) and a.step is not None
            and (_task_of(a), a.task_id) not in rerun]  # fmt: skip
    if not left or not again:
        return out
    frontier = max(a.step for a in left if a.step is not None)
    resuming = again[0].pid
    unexplained = [
        line
        for line in again
        if not loop_path(line)
        and line.pid == resuming
        and line.step is not None
        and line.step <= frontier
        and ("", line.node, line.step) not in steps_run
    ]
    for node in dict.fromkeys(a.node for a in left):
        mine = sorted((a for a in left if a.node == node), key=lambda a: a.start_ts)
        starts = [line for line in unexplained if line.node == node]
        out |= {(_task_of(a), a.task_id) for a in mine[: len(starts)]}
    return out


def _finished_first(attempts: list[Attempt], tid: str | None) -> int:
    """Unfinished tasks are the ones a new start re-runs first."""
    return 0 if all(a.outcome != "finished" for a in attempts if a.task_id == tid) else 1


def _first_start(attempts: list[Attempt], tid: str | None) -> float:
    """When task `tid` first started: among tasks alike, a loop started over from an earlier
    checkpoint repeats the earliest first (and the order no longer depends on a set's)."""
    return min((a.start_ts for a in attempts if a.task_id == tid), default=float("inf"))


def _root_task(logged_ns: str | None, tid: str | None) -> str | None:
    """The root task an attempt ran in: the task id of its namespace's first level (a
    subgraph run's), or its own at the root."""
    return namespaces.segments(logged_ns)[0][1] if logged_ns else tid


def plan_for(
    entry: dict[str, Any], effects: str | None = None, recording: Recording | None = None
) -> ResumePlan:
    """The resume plan of one recording from its database at the kill and an effects log
    (default: the run's own), told `recording` (default: unknown, as after a real crash)."""
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.errors import ThreadNotFound
    from replaylens.sources import open_source

    tid = entry["thread_id"]
    source = open_source(entry["db_at_kill"])
    try:
        try:
            thread = load_thread(source, tid)
        except ThreadNotFound:
            thread = None
        latency = float(entry["put_latency"])
        return plan_resume(
            thread,
            read_effects(effects or entry["effects_at_kill"]),
            tid,
            latency=latency,
            recording=recording or Recording(),
        )
    finally:
        source.close()


def manifest_recording(
    entry: dict[str, Any], kill_delay: float, kill_node: str | None, release: str | None = None
) -> Recording:
    """What a kill-test manifest tells about one run: its mode, latency and kill moment, and
    the LangGraph release that ran it (the manifest's `langgraph`)."""
    return Recording(
        entry["mode"],
        float(entry["put_latency"]),
        kill_delay,
        "kill-test manifest",
        kill_node,
        langgraph=release,
        cached_nodes=graph_cache(entry),
    )


Prediction = tuple[tuple[int, int, int], Any]
"""(checkpoints kept, tasks re-run, effect lines again), and the race's spans or None."""


def numbers(plan: ResumePlan) -> dict[str, Prediction]:
    """Every mode's three numbers from a plan's what-if."""
    return {
        m: (
            o.figures,
            tuple(tuple(o.race[k]) for k in ("checkpoints_kept", "reruns", "replayed_lines"))
            if o.race
            else None,
        )
        for m, o in plan.what_if.items()
    }


def predict(
    entry: dict[str, Any],
    kill_delay: float,
    kill_node: str | None = None,
    release: str | None = None,
) -> dict[str, Prediction]:
    """Every mode's prediction from one recording, told how it was recorded."""
    told = manifest_recording(entry, kill_delay, kill_node, release)
    return numbers(plan_for(entry, recording=told))


def compare(manifest: dict[str, Any], point: str) -> list[Row]:
    """Rows for one campaign: each killed recording's predictions against the real ranges."""
    killed = [e for e in manifest["runs"] if e["killed"]]
    measured = {id(e): measure(e) for e in killed}
    preds = {}
    for e in killed:  # newer manifests draw a kill moment per run
        delay = e.get("kill_delay", manifest.get("kill_delay"))
        node = str(e.get("kill_at") or manifest.get("kill_at") or "").rpartition(":")[0] or None
        preds[id(e)] = predict(e, float(delay or 0.0), node, manifest.get("langgraph"))
    rows: list[Row] = []
    for lat in sorted({float(e["put_latency"]) for e in killed}):
        for src in MODES:
            for tgt in MODES:
                row = Row(point, lat, src, tgt)
                mine = [
                    preds[id(e)][tgt]
                    for e in killed
                    if e["mode"] == src and e["put_latency"] == lat
                ]
                row.predicted = [p[0] for p in mine]
                row.races = [p[1] for p in mine]
                row.measured = [
                    (m.checkpoints, m.reruns, m.lines)
                    for e in killed
                    if e["mode"] == tgt and e["put_latency"] == lat
                    for m in [measured[id(e)]]
                ]
                if row.predicted:
                    rows.append(row)
    return rows


# --------------------------------------------------------------------------- running
def run_matrix(
    points: Sequence[KillPoint],
    latencies: Sequence[float],
    runs: int,
    out: Path,
    *,
    sleep: float = 0.5,
    progress: Callable[[str], None] | None = None,
    reuse: bool = False,
) -> list[Row]:
    """One campaign per kill point (all modes and latencies), then the comparison rows."""
    from replaylens.examples.graphs import DEFAULT_INPUTS
    from replaylens.killtest.campaign import run_campaign

    rows: list[Row] = []
    from replaylens.killtest.manifest import MANIFEST

    for point in points:
        folder = out / point.label.replace(" @ ", "-").replace("+", "-").replace(":", "_")
        if reuse and (folder / MANIFEST).is_file():
            manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
            if sorted(set(manifest["put_latency"])) == sorted(set(latencies)):
                rows += _rows_of(manifest, folder, point, progress)
                continue
        manifest = run_campaign(
            f"replaylens.examples.graphs:{point.graph}",
            folder,
            input_value=point.input
            if point.input is not None
            else DEFAULT_INPUTS.get(point.graph, {}),
            kill_at=(point.node, point.count),
            kill_delay=point.delay,
            runs=runs,
            put_latencies=latencies,
            resume_value=point.resume_value,
            has_resume_value=point.has_resume_value,
            sleep=sleep,
        )
        rows += _rows_of(manifest, folder, point, progress)
    return rows


def _rows_of(
    manifest: dict[str, Any], folder: Path, point: KillPoint, progress: Callable[[str], None] | None
) -> list[Row]:
    for entry in manifest["runs"]:
        for key in ("db_at_kill", "db_after_resume", "effects", "effects_at_kill"):
            entry[key] = str(folder / entry[key])
    found = compare(manifest, point.label)
    if progress:
        bad = sum(1 for r in found if r.source != r.target for ok in r.inside() if not ok)
        progress(
            f"{point.label}: {len(manifest['runs'])} runs, {bad} cross-mode predictions outside"
        )
    return found


def _fmt(values: Sequence[tuple[int, int, int]], i: int) -> str:
    vals = sorted({v[i] for v in values})
    if not vals:
        return "-"
    return str(vals[0]) if len(vals) == 1 else f"{vals[0]}-{vals[-1]}"


def table(rows: Sequence[Row]) -> str:
    """The Markdown table: per kill point, source -> target, predicted vs measured, inside?"""
    out = [
        "| kill point | latency | source → target | checkpoints kept (pred / real) | tasks re-run (pred / real) "
        "| effect lines again (pred / real) | inside |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r.source == r.target:
            continue
        inside = r.inside()
        verdict = "no measured run" if not r.measured else f"{sum(inside)}/{len(inside)}"
        if r.raced():
            verdict += f" ({r.raced()} a race)"
        out.append(
            f"| {r.point} | {r.latency:g} s | {r.source} → {r.target} | "
            + " | ".join(f"{_fmt(r.predicted, i)} / {_fmt(r.measured, i)}" for i in range(3))
            + f" | {verdict} |"
        )
    cross = [ok for r in rows if r.source != r.target and r.measured for ok in r.inside()]
    same = [ok for r in rows if r.source == r.target and r.measured for ok in r.inside()]
    raced = sum(r.raced() for r in rows if r.source != r.target and r.measured)
    wide = [
        r
        for r in rows
        if r.source != r.target
        and r.measured
        and any((s := r.span(i)) is not None and s[0] != s[1] for i in range(3))
    ]
    out += [
        "",
        f"Cross-mode predictions inside the measured range: {sum(cross)} of {len(cross)} "
        f"({len(cross) - sum(cross)} outside). Recorded mode re-predicted: {sum(same)} of {len(same)} inside.",
        f"Rows whose measured range is not a single value (the race decides): {len(wide)}. Predictions the "
        f"model itself calls a race (a write landing within {RACE * 1000:g} ms of the kill; judged by their span): "
        f"{raced}.",
    ]
    return "\n".join(out)


def summary(rows: Sequence[Row]) -> str:
    """Per kill point: cross-mode predictions inside / outside, races, measured ranges wider than one value."""
    out = [
        "| kill point | latencies | cross-mode predictions | inside | outside | called a race "
        "| measured range not one value |",
        "|---|---|---|---|---|---|---|",
    ]
    points = list(dict.fromkeys(r.point for r in rows))
    for point in points:
        mine = [r for r in rows if r.point == point and r.source != r.target and r.measured]
        verdicts = [ok for r in mine for ok in r.inside()]
        wide = sum(
            1
            for r in mine
            if any((sp := r.span(i)) is not None and sp[0] != sp[1] for i in range(3))
        )
        lats = ", ".join(f"{lat:g}" for lat in sorted({r.latency for r in mine}))
        out.append(
            f"| {point} | {lats} s | {len(verdicts)} | {sum(verdicts)} | {len(verdicts) - sum(verdicts)} "
            f"| {sum(r.raced() for r in mine)} | {wide} rows |"
        )
    return "\n".join(out)


def outside(rows: Sequence[Row]) -> list[str]:
    """Every cross-mode prediction outside its measured range, in words."""
    bad: list[str] = []
    for r in rows:
        if r.source == r.target or not r.measured:
            continue
        for p, ok in zip(r.predicted, r.inside(), strict=True):
            if not ok:
                bad.append(
                    f"{r.point} {r.latency:g}s {r.source}->{r.target}: predicted {p}, measured "
                    f"{[r.span(i) for i in range(3)]}"
                )
    return bad


def cmd_validate(args: Any) -> int:
    """Run the matrix, print the table; exit 1 when a prediction falls outside."""
    if getattr(args, "corpus", None):
        from replaylens.killtest.corpus import cmd_corpus

        return cmd_corpus(args)
    if getattr(args, "backend", "sqlite") != "sqlite":
        print("replaylens validate: --backend postgres runs the corpus (--corpus langgraph-tests).",
              file=sys.stderr)  # fmt: skip
        return 2
    args.runs = 3 if args.runs is None else args.runs
    args.sleep = 0.5 if args.sleep is None else args.sleep
    points = REDUCED_MATRIX if args.reduced else FULL_MATRIX
    if args.graphs:
        wanted = {g.strip() for g in args.graphs.split(",")}
        points = tuple(p for p in points if p.graph in wanted)
    latencies = (
        REDUCED_LATENCIES
        if args.reduced and args.latency is None
        else (args.latency or FULL_LATENCIES)
    )
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="replaylens-validate-"))
    rows = run_matrix(
        points,
        latencies,
        args.runs,
        out,
        sleep=args.sleep,
        reuse=args.reuse,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(summary(rows))
    print()
    print(table(rows))
    if not args.out and not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if outside(rows) else 0


def register_validate(sub: Any) -> None:
    """Add `validate` to the `replaylens` subparsers."""
    from replaylens.killtest._cli import _float_list

    p = sub.add_parser(
        "validate",
        help="Kill the example graphs under every durability mode and check the what-if against them.",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument(
        "--runs",
        type=int,
        default=None,
        help="Runs per mode and latency (default 3; the corpus: 1 at 0 s and 2 at 0.25 s, reduced 1).",
    )
    p.add_argument(
        "--corpus",
        default="",
        metavar="NAME",
        help="Validate on a corpus of graphs this project did not write: langgraph-tests "
        "(shapes modelled on LangGraph's own tests, judged from logs in three forms and from "
        "the task spans a tracer sees).",
    )
    p.add_argument(
        "--backend",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="With --corpus: where the killed graphs checkpoint (postgres: a throw-away server).",
    )
    p.add_argument(
        "--latency",
        type=_float_list,
        default=None,
        metavar="SECONDS",
        help="Checkpoint write latencies, separated by commas (default 0,0.25,1; the corpus: 0,0.25).",
    )
    p.add_argument(
        "--graphs",
        default="",
        help="Only these example graphs (or corpus shapes), separated by commas.",
    )
    p.add_argument(
        "--reduced",
        action="store_true",
        help="A small matrix (two kill points, one run per mode at 0.25 s): a quick live check.",
    )
    p.add_argument(
        "--sleep",
        type=float,
        default=None,
        help="Seconds each example node stays open (default 0.5; the corpus's unit: 0.4).",
    )
    p.add_argument("--out", default="", metavar="DIR", help="Keep the campaigns in DIR.")
    p.add_argument("--keep", action="store_true", help="Keep the temporary campaigns folder.")
    p.add_argument(
        "--reuse",
        action="store_true",
        help="With --out: re-judge campaigns already in DIR instead of running them again "
        "(the model changes, the evidence does not).",
    )
    p.add_argument(
        "--judge-only",
        action="store_true",
        help="With --corpus and --out: run no kill, judge the campaigns DIR holds (skip the "
        "rest), at the latencies they were recorded at unless --latency says which.",
    )
    p.add_argument(
        "--api",
        choices=("invoke", "ainvoke"),
        default="invoke",
        help="With --corpus: run each graph with graph.invoke (LangGraph's sync loop, the default) "
        "or graph.ainvoke (its async loop, with AsyncSqliteSaver or AsyncPostgresSaver).",
    )
    p.add_argument(
        "--kill-shift",
        type=float,
        default=0.0,
        metavar="UNITS",
        help="With --corpus: aim every kill this many sleep units (--sleep, 0.4 s by default) later than the "
        "corpus's points, or earlier if negative (never before the node starts), to kill at "
        "moments the recorded campaigns do not; give it again with --judge-only.",
    )
    p.set_defaults(func=cmd_validate)
