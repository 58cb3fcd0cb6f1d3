"""`replaylens validate --corpus langgraph-tests`: the what-if on graphs this project did not write.

The corpus is `replaylens.examples.langgraph_tests`: graph shapes modelled on
LangGraph's own test suite, each logging every effect three ways (this project's
recorder, LangGraph's own config values copied verbatim, bare lines). Each shape is
killed at an early and a late node under sync, async and exit, at each checkpoint write
latency, several runs each, by the kill-test campaign (`killtest.campaign`, the same
child, kill-on-event and resume as `replaylens killtest`). Then, per killed run:

* **measured** (`validate.measure_detail`): checkpoints of the thread in the database as
  the kill left it, the tasks the real resume started again, and their effect lines;
* **cross-mode predictions**: the run's recording predicts the other two modes at its
  latency, once per log form and once told the recorded mode (as a manifest tells it)
  and once not (as after a production crash), and each prediction is judged against
  the range the real runs of that mode measured (`validate.Row`);
* **verdicts at the recorded mode**: each effect line before the kill is predicted to
  happen again or not (its attempt's verdict); the truth is whether its task started
  again in the real resume. A line of the langgraph or bare log is matched to the
  recorder's line of the same effect by its time stamp (the three are written with one).

A fourth form is what a tracer sees (`trace`): the task spans LangGraph's callbacks report
(the ones LangSmith, Langfuse and OpenTelemetry exports carry, and `replaylens convert`
turns into a log), one start and one end per task, written by the kill-test child for the
killed run and for the resume. A trace names no effect, so its figures are measured on the
trace itself: the tasks whose spans start again after the kill, and their span lines.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from replaylens.analysis.attempts import group_attempts
from replaylens.analysis.durability import MODES, Mode, Recording
from replaylens.effects.parse import read_effects
from replaylens.effects.repeats import needs_restart
from replaylens.errors import ReplaylensError
from replaylens.examples.langgraph_tests import CORPUS, LOG_FORMS, SHAPES, Shape, form_log
from replaylens.killtest.manifest import graph_cache
from replaylens.killtest.validate import (
    TRACE_AT_KILL,
    TRACE_WHOLE,
    Row,
    _task_of,
    manifest_recording,
    measure_detail,
    numbers,
    plan_for,
)

Told = Literal["given", "inferred"]
JudgedForm = Literal["recorder", "langgraph", "bare", "trace"]
JUDGED_FORMS: tuple[JudgedForm, ...] = (*LOG_FORMS, "trace")
"""The log forms each run is judged from: the three the nodes write, and the trace."""
CORPUS_NAME = "langgraph-tests"
SLEEP = 0.4
"""Seconds of one sleep unit: the corpus's node durations and kill delays are multiples."""
FULL_LATENCIES = (0.0, 0.25)
FULL_RUNS: dict[float, int] = {0.0: 1, 0.25: 2}
"""Runs per mode at each latency. With writes that take no time the runs of one cell agree
(the kill-test reproduction measured no spread at 0 s); at 0.25 s the race shows."""
REDUCED: tuple[tuple[str, int], ...] = (("send_map_reduce_uneven", 0), ("dynamic_interrupt", 1))
"""The default test run's slice: (shape, kill point index), one latency, one run."""
REDUCED_LATENCIES = (0.25,)


@dataclass(frozen=True)
class CorpusPoint:
    shape: Shape
    kill: int
    shift: float = 0.0
    """Sleep units added to the point's delay (`validate --kill-shift`): the same node's start,
    a kill earlier or later than the corpus aims (never before the node starts)."""

    @property
    def node(self) -> str:
        return self.shape.kills[self.kill][0]

    @property
    def count(self) -> int:
        return self.shape.kills[self.kill][1]

    @property
    def units(self) -> float:
        return max(0.0, round(self.shape.kills[self.kill][2] + self.shift, 4))

    @property
    def when(self) -> str:
        return "early" if self.kill == 0 else "late"

    @property
    def label(self) -> str:
        n = "" if self.count == 1 else f":{self.count}"
        return f"{self.shape.name} @ {self.node}{n}+{self.units:g}u"

    def folder(self, latency: float) -> str:
        shifted = f"-shift{self.shift:+g}u" if self.shift else ""
        return f"{self.shape.name}-{self.when}{shifted}-{latency:g}s"


def points(
    shapes: Sequence[str] = (), reduced: bool = False, shift: float = 0.0
) -> list[CorpusPoint]:
    """The kill points of the chosen shapes (all by default), or the reduced slice, each
    `shift` sleep units later (`CorpusPoint.shift`)."""
    if reduced:
        return [CorpusPoint(SHAPES[s], k, shift) for s, k in REDUCED if not shapes or s in shapes]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        raise ValueError(
            f"no corpus shape {', '.join(unknown)}; the shapes are {', '.join(SHAPES)}"
        )
    chosen = [s for s in CORPUS if not shapes or s.name in shapes]
    # Every shape's early kill first: a matrix stopped half way has judged every shape.
    return [CorpusPoint(s, k, shift) for k in range(2) for s in chosen]


@dataclass
class CorpusRow(Row):
    """A `Row` of one log form, told the recorded mode or not."""

    form: JudgedForm = "recorder"
    told: Told = "given"
    shape: str = ""
    when: str = ""


@dataclass
class VerdictCheck:
    """The verdicts at the recorded mode of one killed run, read from one log form."""

    point: str
    shape: str
    when: str
    mode: Mode
    latency: float
    form: JudgedForm
    run: str
    lines: int = 0
    right: int = 0
    by_class: int = 0
    """Lines judged as a class of interchangeable lines (see `_check_verdicts`)."""
    wrong: list[str] = field(default_factory=list)
    guessed: list[str] = field(default_factory=list)
    """Lines the plan said in words were a guess (`Attempt.ambiguous`), given the cautious
    reading (they run again), that the real resume did not run: neither right nor wrong."""
    figures: str = ""
    """Where the what-if at the recorded mode (checkpoints kept, tasks re-run, lines again:
    what the views head the thread with) differs from the measured figures; "" when equal."""


@dataclass
class CorpusResult:
    rows: list[CorpusRow] = field(default_factory=list)
    verdicts: list[VerdictCheck] = field(default_factory=list)
    kills: int = 0
    not_killed: int = 0
    backend: str = "sqlite"
    folders: dict[str, str] = field(default_factory=dict)
    cut: list[str] = field(default_factory=list)
    """Runs and log forms not judged: the kill fell between the appends of one line."""
    failed: list[str] = field(default_factory=list)
    """Campaigns that could not run (the kill-test's one sentence each); the rest went on."""
    raised: list[str] = field(default_factory=list)
    """Killed runs whose resume raised (not for want of a checkpoint): measured as far as the
    resume got, which a prediction of the whole resume may overshoot."""


# --------------------------------------------------------------------------- judging
def _resume_raised(entry: dict[str, Any]) -> bool:
    """The resume of a killed run raised, for another reason than finding no checkpoint."""
    error = (entry.get("resume") or {}).get("error")
    return bool(error) and not needs_restart(error)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:200] if text.strip() else text


def _again_truth(entry: dict[str, Any]) -> tuple[dict[tuple[str, str, str], bool], Any]:
    """Recorder line (ts, phase, node) -> did its task start again in the real resume."""
    tid = entry["thread_id"]
    measured, rerun = measure_detail(entry)
    lines = read_effects(entry["effects_at_kill"]).for_thread(tid)
    truth: dict[tuple[str, str, str], bool] = {}
    for a in group_attempts(lines):
        again = rerun is None or (_task_of(a), a.task_id) in rerun
        for line in a.lines:
            truth[(repr(line.ts), line.phase, line.node)] = again
    return truth, measured


def _check_verdicts(
    entry: dict[str, Any], plan: Any, truth: dict[tuple[str, str, str], bool], check: VerdictCheck
) -> None:
    """Each line's verdict against the truth. A line whose verdict the plan calls a guess
    (`Attempt.ambiguous`: the evidence cannot tell, and the plan takes the reading in which it
    runs again) and that did not run again is counted apart (`VerdictCheck.guessed`), not as
    right; a guess that said "not again" and was wrong is wrong. Lines of attempts the log
    cannot tell apart (`Attempt.peers`: parallel starts of one node without task ids or
    keys, paired by order) are judged as one class per phase: right when as many of them
    happen again as really did, since which one is the open one is a guess the plan says it
    makes."""
    classes: dict[tuple[tuple[int, ...], str], list[tuple[bool, bool | None, str]]] = {}
    for a in plan.attempts:
        predicted = a.verdict in ("replays", "restart")
        for line in a.lines:
            real = truth.get((repr(line.ts), line.phase, line.node))
            what = f"line {line.line} ({line.node} {line.phase})"
            if a.peers:
                classes.setdefault((a.peers, line.phase), []).append((predicted, real, what))
                continue
            check.lines += 1
            if real is None:
                check.wrong.append(f"{what}: no recorder line with its ts")
            elif real == predicted:
                check.right += 1
            elif a.ambiguous and predicted:
                check.guessed.append(f"{what}: {a.ambiguity}; measured not again")
            else:
                check.wrong.append(
                    f"{what}: predicted {'again' if predicted else 'not again'} ({a.verdict}: "
                    f"{a.reason}), measured {'again' if real else 'not again'}"
                )
    for (peers, phase), members in classes.items():
        check.lines += len(members)
        check.by_class += len(members)
        pred = sum(1 for p, _r, _w in members if p)
        real = sum(1 for _p, r, _w in members if r)
        if any(r is None for _p, r, _w in members):
            check.wrong.append(f"{members[0][2]}: no recorder line with its ts")
            continue
        miss = abs(pred - real)
        check.right += len(members) - miss
        if miss:
            check.wrong.append(
                f"{phase} lines {', '.join(str(x) for x in peers)} (one class the log cannot tell "
                f"apart): {pred} predicted again, {real} measured again"
            )


def _own_figures(pred: Any, real: tuple[int, int, int]) -> str:
    """ "" when the what-if at the recorded mode holds the figures the run measured (within its
    range where it says the evidence cannot tell), else both, as a sentence."""
    figures, race = pred
    spans = race or [(v, v) for v in figures]
    if all(lo <= got <= hi for (lo, hi), got in zip(spans, real, strict=True)):
        return ""
    said = " ".join(f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in spans)
    return f"predicted {said}, measured {real[0]} {real[1]} {real[2]} (kept, re-run, lines)"


def traced(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The run as its trace shows it (both logs the callbacks' task spans), or None when the
    run has no trace (recorded before the child wrote one)."""
    at_kill = Path(entry["effects_at_kill"]).with_name(TRACE_AT_KILL)
    whole = Path(entry["effects"]).with_name(TRACE_WHOLE)
    if not (at_kill.is_file() and whole.is_file()):
        return None
    return {**entry, "effects_at_kill": str(at_kill), "effects": str(whole)}


def form_path(entry: dict[str, Any], form: JudgedForm) -> Path:
    """The log of a run's `form` as the kill left it."""
    if form == "trace":
        return Path(entry["effects_at_kill"]).with_name(TRACE_AT_KILL)
    return form_log(entry["effects_at_kill"], form)


def judge_campaign(
    manifest: dict[str, Any], point: CorpusPoint, forms: Sequence[JudgedForm] = JUDGED_FORMS
) -> tuple[list[CorpusRow], list[VerdictCheck], list[str]]:
    """Rows and verdict checks of one campaign (its run paths already absolute), and the runs
    whose log forms the kill left with different line counts (a kill between the appends of
    one line): those forms of those runs are not judged. The trace is measured on itself."""
    killed = [e for e in manifest["runs"] if e["killed"]]
    measured: dict[tuple[int, bool], tuple[int, int, int]] = {}
    truths: dict[tuple[int, bool], dict[tuple[str, str, str], bool]] = {}
    preds: dict[tuple[int, JudgedForm, Told], Any] = {}
    checks: list[VerdictCheck] = []
    cut: list[str] = []
    for e in killed:
        for as_trace, run in ((False, e), (True, traced(e) if "trace" in forms else None)):
            if run is not None:
                truth, m = _again_truth(run)
                truths[(id(e), as_trace)] = truth
                measured[(id(e), as_trace)] = (m.checkpoints, m.reruns, m.lines)
        delay = float(e.get("kill_delay") or 0.0)
        node = str(e.get("kill_at") or "").rpartition(":")[0] or None
        sizes = {f: _size(form_log(e["effects_at_kill"], f)) for f in forms if f != "trace"}
        for form in forms:
            if (id(e), form == "trace") not in measured:
                continue  # no trace of this run
            log = str(form_path(e, form))
            if not Path(log).is_file() and sizes.get(form, 0) == sizes.get("recorder", 0) == 0:
                Path(log).touch()  # killed before any node logged: that form's file was never made
            if form != "trace" and sizes[form] != sizes.get("recorder", sizes[form]):
                cut.append(f"{Path(e['effects_at_kill']).parent.name} ({form}: {sizes[form]} lines, "
                           f"recorder: {sizes['recorder']})")  # fmt: skip
                continue
            release = manifest.get("langgraph")
            given = plan_for(e, log, manifest_recording(e, delay, node, release))
            preds[(id(e), form, "given")] = numbers(given)
            # (the mode, latency and kill moment unknown, as after a production crash; the
            # release that ran it is what the user names, `--langgraph-release`)
            preds[(id(e), form, "inferred")] = numbers(
                plan_for(e, log, Recording(langgraph=release, cached_nodes=graph_cache(e)))
            )
            check = VerdictCheck(point.label, point.shape.name, point.when, e["mode"],
                                 float(e["put_latency"]), form, Path(e["effects_at_kill"]).parent.name)  # fmt: skip
            _check_verdicts(e, given, truths[(id(e), form == "trace")], check)
            check.figures = _own_figures(
                numbers(given)[e["mode"]], measured[(id(e), form == "trace")]
            )
            checks.append(check)
    rows: list[CorpusRow] = []
    # (how far each run got: once by its recorder log, once more with its trace's spans)
    traced_forms = {form == "trace" for form in forms}
    sig = {
        (id(e), as_trace): run_progress(e, "trace" if as_trace else "recorder")
        for e in killed
        for as_trace in traced_forms
    }
    for lat in sorted({float(e["put_latency"]) for e in killed}):
        here = [e for e in killed if float(e["put_latency"]) == lat]
        for form in forms:
            for told in ("given", "inferred"):
                for src in MODES:
                    for tgt in MODES:
                        for point_sig in dict.fromkeys(
                            sig[(id(e), form == "trace")] for e in here if e["mode"] == src
                        ):
                            row = CorpusRow(point.label, lat, src, tgt, form=form, told=told,
                                            shape=point.shape.name, when=point.when)  # fmt: skip
                            mine = [preds[(id(e), form, told)][tgt] for e in here
                                    if e["mode"] == src and sig[(id(e), form == "trace")] == point_sig
                                    and (id(e), form, told) in preds]  # fmt: skip
                            row.predicted = [p[0] for p in mine]
                            row.races = [p[1] for p in mine]
                            row.measured = [measured[(id(e), form == "trace")] for e in here
                                            if e["mode"] == tgt and sig[(id(e), form == "trace")] == point_sig
                                            and (id(e), form == "trace") in measured]  # fmt: skip
                            if row.predicted:
                                rows.append(row)
    return rows, checks, cut


def run_progress(
    entry: dict[str, Any], form: JudgedForm = "recorder"
) -> tuple[tuple[tuple[str, str], int], ...]:
    """How far a run got before its kill: how many lines of each (node, phase) its recorder
    log holds, and for a prediction read from the trace, its task spans too. A prediction is
    judged against runs of the target mode that got exactly as far (the what-if is about a
    crash at the same point of progress); on a loaded machine a kill aimed by the clock can
    land a task end earlier or later. The span of a node that runs no graph of its own
    closes once the node has returned, some 10 ms after the recorder's end line, in every
    mode alike: a kill between the two leaves runs the recorder reads as equally far and
    their traces do not (batch_update_sends on 1.2.24 at 0.15 s a write, kills 0.6 units
    later: the first `Send` worker's span closed before the kill in the sync and async
    runs, not in the exit run): the trace's progress counts those span ends too. A span
    that holds graphs closes once their loops left, which the mode decides, and how often
    a span started or paused may be the mode's doing too (parallel interrupts answered in
    turn): the what-if says those, and they are not counted."""
    lines = read_effects(entry["effects_at_kill"]).for_thread(entry["thread_id"])
    counts = sorted(Counter((x.node, x.phase) for x in lines).items())
    spans = traced(entry) if form == "trace" else None
    if spans is None:
        return tuple(counts)
    traced_lines = read_effects(spans["effects_at_kill"]).for_thread(entry["thread_id"])
    holders = {
        segment.partition(":")[0]
        for x in traced_lines
        for segment in (x.checkpoint_ns or "").split("|")
        if segment
    }
    leaves = Counter(
        ("span of " + x.node, x.phase)
        for x in traced_lines
        if x.phase == "end" and x.node not in holders
    )
    return tuple(counts + sorted(leaves.items()))


def _size(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.is_file() else 0


# --------------------------------------------------------------------------- running
def _absolute(manifest: dict[str, Any], folder: Path) -> dict[str, Any]:
    for entry in manifest["runs"]:
        for key in ("db_at_kill", "db_after_resume", "effects", "effects_at_kill"):
            entry[key] = str(folder / entry[key])
    return manifest


def run_corpus(
    chosen: Sequence[CorpusPoint],
    latencies: Sequence[float],
    runs: int | dict[float, int],
    out: Path,
    *,
    backend: Literal["sqlite", "postgres"] = "sqlite",
    forms: Sequence[JudgedForm] = JUDGED_FORMS,
    sleep: float = SLEEP,
    reuse: bool = False,
    progress: Callable[[str], None] | None = None,
    judge_only: bool = False,
    api: str = "invoke",
) -> CorpusResult:
    """One campaign per kill point and latency (every mode, `runs` runs), then its judgement.

    With `reuse`, a campaign folder already in `out` is judged again instead of run again:
    the model changes, the evidence does not. `judge_only` runs nothing: it judges the
    campaigns `out` holds and skips the rest."""

    result = CorpusResult(backend=backend)
    server = None
    if backend == "postgres":  # one throw-away server for the whole matrix, judged while it runs
        from replaylens.killtest.pgserver import start_server

        server = start_server()
    try:
        dsn = server.create_database("corpus") if server is not None else None
        for point in chosen:
            _run_point(point, latencies, runs, out, result, dsn, forms, sleep,
                       reuse or judge_only, progress, judge_only, api)  # fmt: skip
    finally:
        if server is not None:
            server.stop()
    return result


def _pg_at_kill(dsn: str, schema: str) -> str:
    """The DSN that reads a run's frozen at-kill schema (first on the search_path)."""
    from urllib.parse import quote

    return f"{dsn}?options={quote(f'-c search_path={schema}_at_kill')}"


def _run_campaign(
    point: CorpusPoint,
    folder: Path,
    lat: float,
    n: int,
    dsn: str | None,
    sleep: float,
    api: str,
) -> dict[str, Any]:
    """The kill-test campaign of one kill point at one latency, as the shape describes it."""
    from replaylens.killtest._child import installed_modes
    from replaylens.killtest.campaign import run_campaign

    shape = point.shape
    return run_campaign(
        shape.graph, folder, input_value=shape.input, modes=installed_modes(),
        kill_at=(point.node, point.count),
        kill_delay=round(point.units * sleep, 4), runs=n, put_latencies=(lat,),
        resume_value=shape.resume_value, has_resume_value=shape.has_resume_value,
        sleep=sleep, checkpointer=dsn, keep_schemas=dsn is not None, then_inputs=shape.then,
        kill_from_invocation=shape.kill_from, resume_all=shape.resume_all,
        api="ainvoke" if shape.api == "ainvoke" else api,
    )  # fmt: skip


def _run_point(
    point: CorpusPoint,
    latencies: Sequence[float],
    runs: int | dict[float, int],
    out: Path,
    result: CorpusResult,
    dsn: str | None,
    forms: Sequence[JudgedForm],
    sleep: float,
    reuse: bool,
    progress: Callable[[str], None] | None,
    judge_only: bool = False,
    api: str = "invoke",
) -> None:
    """Run (or with `reuse`, reread) one kill point's campaigns and add their judgement."""
    from replaylens.killtest.manifest import MANIFEST

    for lat in latencies:
        folder = out / point.folder(lat)
        n = runs.get(lat, 1) if isinstance(runs, dict) else runs
        manifest = None
        if reuse and (folder / MANIFEST).is_file():
            manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        fresh = manifest is None
        if manifest is None and judge_only:
            continue
        if manifest is None:
            try:
                manifest = _run_campaign(point, folder, lat, n, dsn, sleep, api)
            except ReplaylensError as exc:
                result.failed.append(f"{point.label} at {lat:g} s: {exc}")
                if progress:
                    progress(f"{point.label} at {lat:g} s: not run: {exc}")
                continue
        _absolute(manifest, folder)

        if manifest.get("backend") == "postgres":
            result.backend = "postgres"
        if fresh and dsn is not None:
            for entry in manifest["runs"]:  # read the frozen schema itself, not its export
                if entry.get("store"):
                    entry["db_at_kill"] = _pg_at_kill(dsn, str(entry["store"]))
        rows, checks, cut = judge_campaign(manifest, point, forms)
        result.cut += [f"{point.label} {lat:g} s: {c}" for c in cut]
        result.rows += rows
        result.verdicts += checks
        result.kills += sum(1 for e in manifest["runs"] if e["killed"])
        result.raised += [f"{point.label} {lat:g} s, {Path(e['effects_at_kill']).parent.name}: "
                          f"{_first_line(e['resume']['error'])}"
                          for e in manifest["runs"] if e["killed"] and _resume_raised(e)]  # fmt: skip
        result.not_killed += sum(1 for e in manifest["runs"] if not e["killed"])
        result.folders[f"{point.label} {lat:g}s"] = str(folder)
        if progress:
            bad = sum(1 for r in rows if r.source != r.target and r.measured
                      for ok in r.inside() if not ok)  # fmt: skip
            total = sum(len(r.predicted) for r in rows if r.source != r.target and r.measured)
            wrong = sum(len(c.wrong) for c in checks)
            progress(
                f"{point.label} at {lat:g} s: {len(manifest['runs'])} runs, {total - bad}/{total} "
                f"cross-mode predictions inside, {wrong} verdict miss(es)"
            )


# --------------------------------------------------------------------------- reporting
def unmatched(rows: Sequence[CorpusRow]) -> int:
    """Cross-mode predictions with no run of the target mode at the same point of progress."""
    return sum(len(r.predicted) for r in rows if r.source != r.target and not r.measured)


def _cross(rows: Sequence[CorpusRow]) -> tuple[int, int]:
    verdicts = [ok for r in rows if r.source != r.target and r.measured for ok in r.inside()]
    return sum(verdicts), len(verdicts)


def _own_mode_inferred(rows: Sequence[CorpusRow]) -> tuple[int, int]:
    """Predictions for the mode a run was recorded under, told nothing (the mode inferred):
    inside the range that run's own mode measured. A reader without a manifest sees this
    prediction beside the others, so it is judged with them (`failures`, `ok`)."""
    inside = [
        ok
        for r in rows
        if r.source == r.target and r.told == "inferred" and r.measured
        for ok in r.inside()
    ]
    return sum(inside), len(inside)


def _frac(pair: tuple[int, int]) -> str:
    return f"{pair[0]}/{pair[1]}" if pair[1] else "-"


def per_shape(result: CorpusResult) -> str:
    """Per graph shape: cross-mode predictions inside, per log form and told/inferred; verdicts."""
    forms = list(dict.fromkeys(r.form for r in result.rows))
    head = ["shape", "kills"]
    head += [f"{f} {t}" for f in forms for t in ("given", "inferred")]
    head += [f"verdict lines {f}" for f in forms]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    shapes = list(dict.fromkeys(r.shape for r in result.rows))
    kills: dict[str, set[str]] = {}
    for c in result.verdicts:
        kills.setdefault(c.shape, set()).add(f"{c.point}/{c.run}")
    for shape in [*shapes, "all"]:
        rows = [r for r in result.rows if shape in ("all", r.shape)]
        checks = [c for c in result.verdicts if shape in ("all", c.shape)]
        n = sum(len(v) for k, v in kills.items() if shape in ("all", k))
        cells = [shape if shape != "all" else "**all**", str(n)]
        for f in forms:
            for t in ("given", "inferred"):
                cells.append(_frac(_cross([r for r in rows if r.form == f and r.told == t])))
        for f in forms:
            mine = [c for c in checks if c.form == f]
            cells.append(_frac((sum(c.right for c in mine), sum(c.lines for c in mine))))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def per_recorded_mode(result: CorpusResult) -> str:
    """Per recorded mode and latency: cross-mode predictions inside, per form and told/inferred."""
    forms = list(dict.fromkeys(r.form for r in result.rows))
    head = ["recorded mode", "latency"] + [f"{f} {t}" for f in forms for t in ("given", "inferred")]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for src in MODES:
        for lat in sorted({r.latency for r in result.rows}):
            rows = [r for r in result.rows if r.source == src and r.latency == lat]
            if not rows:
                continue
            cells = [src, f"{lat:g} s"]
            cells += [_frac(_cross([r for r in rows if r.form == f and r.told == t]))
                      for f in forms for t in ("given", "inferred")]  # fmt: skip
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _span(values: Sequence[tuple[int, int, int]], i: int) -> str:
    vals = sorted({v[i] for v in values})
    if not vals:
        return "-"
    return str(vals[0]) if len(vals) == 1 else f"{vals[0]}-{vals[-1]}"


def failures(result: CorpusResult) -> list[str]:
    """Every cross-mode prediction outside its measured range, and every prediction for the
    mode a run was recorded under made without being told it (`_own_mode_inferred`), one
    line each."""
    out = []
    for r in result.rows:
        if not r.measured or (r.source == r.target and r.told != "inferred"):
            continue
        for p, ok in zip(r.predicted, r.inside(), strict=True):
            if not ok:
                real = " ".join(_span(r.measured, i) for i in range(3))
                out.append(
                    f"{r.point} | {r.latency:g} s | {r.source} → {r.target} | {r.form} | {r.told} | "
                    f"predicted {p[0]} {p[1]} {p[2]} | measured {real}"
                )
    return out


def wide_ranges(result: CorpusResult) -> list[str]:
    """Measured ranges wider than one value: where the race decides, too wide to call one number."""
    seen: dict[tuple[str, float, str], str] = {}
    for r in result.rows:
        if not r.measured or r.form != "recorder" or r.told != "given":
            continue
        spans = [r.span(i) for i in range(3)]
        if any(s is not None and s[0] != s[1] for s in spans):
            seen[(r.point, r.latency, r.target)] = " ".join(_span(r.measured, i) for i in range(3))
    return [f"{p} | {lat:g} s | {mode} | {v}" for (p, lat, mode), v in seen.items()]


def report(result: CorpusResult) -> str:
    given = _cross([r for r in result.rows if r.told == "given"])
    inferred = _cross([r for r in result.rows if r.told == "inferred"])
    full = [c for c in result.verdicts if c.form in ("recorder", "langgraph")]
    bare = [c for c in result.verdicts if c.form == "bare"]
    trace = [c for c in result.verdicts if c.form == "trace"]
    forms = ", ".join(dict.fromkeys(r.form for r in result.rows))
    lines = [
        f"Corpus {CORPUS_NAME} on {result.backend}: {result.kills} kills "
        f"({result.not_killed} runs finished before the kill point and are not judged).",
        f"Cross-mode predictions inside the measured range: {_frac(given)} with the recorded mode "
        f"given, {_frac(inferred)} with it inferred (log forms: {forms}); "
        f"{unmatched(result.rows)} more had no run of the target mode that got as far before "
        "its kill (the same effect lines; for a trace, the same spans of nodes that run no "
        "graph closed too), and are not judged. With the mode inferred, the "
        f"predictions for the mode each run was recorded under: "
        f"{_frac(_own_mode_inferred(result.rows))} inside.",
        f"Verdicts at the recorded mode, effect lines right: {sum(c.right for c in full)} of "
        f"{sum(c.lines for c in full)} with full logs (recorder, langgraph), "
        f"{sum(c.right for c in bare)} of {sum(c.lines for c in bare)} with bare logs, "
        f"{sum(c.right for c in trace)} of {sum(c.lines for c in trace)} span lines with traces "
        f"({sum(c.by_class for c in result.verdicts)} lines of parallel starts the log cannot tell "
        "apart judged by how many of them happen again); "
        f"{sum(len(c.guessed) for c in result.verdicts)} more lines were said to be a guess the "
        "evidence cannot settle (read as running again) and did not run again.",
        "What-if at the recorded mode equal to the measured figures (checkpoints kept, tasks "
        f"re-run, lines again): {sum(not c.figures for c in full)} of {len(full)} runs' full "
        f"logs, {sum(not c.figures for c in bare)} of {len(bare)} bare ones, "
        f"{sum(not c.figures for c in trace)} of {len(trace)} traces.",
        "",
        "## Per graph shape (cross-mode predictions inside / judged; verdict lines right / lines)",
        "",
        per_shape(result),
        "",
        "## Per recorded mode",
        "",
        per_recorded_mode(result),
    ]
    bad = failures(result)
    if bad:
        lines += ["", f"## Predictions outside the measured range ({len(bad)})", "",
                  "| kill point | latency | source → target | log form | mode | predicted (kept, re-run, lines) | measured |",
                  "|---|---|---|---|---|---|---|"]  # fmt: skip
        lines += [
            "| " + b.replace(" | predicted ", " | ").replace(" | measured ", " | ") + " |"
            for b in bad
        ]
    wrong = [(c, w) for c in result.verdicts for w in c.wrong]
    if wrong:
        lines += ["", f"## Verdict lines wrong ({len(wrong)})", ""]
        lines += [
            f"- {c.point}, {c.mode} {c.latency:g} s, {c.form} log, {c.run}: {w}" for c, w in wrong
        ]
    guessed = [(c, g) for c in result.verdicts for g in c.guessed]
    if guessed:
        lines += [
            "",
            f"## Verdict lines said to be a guess, measured the other way ({len(guessed)})",
            "",
        ]
        lines += [
            f"- {c.point}, {c.mode} {c.latency:g} s, {c.form} log, {c.run}: {g}" for c, g in guessed
        ]
    off = [c for c in result.verdicts if c.figures]
    if off:
        lines += ["", f"## What-if at the recorded mode off the measured figures ({len(off)})", ""]
        lines += [
            f"- {c.point}, {c.mode} {c.latency:g} s, {c.form} log, {c.run}: {c.figures}"
            for c in off
        ]
    if result.failed:
        lines += ["", f"## Campaigns that could not run ({len(result.failed)})", ""]
        lines += [f"- {f}" for f in result.failed]
    if result.raised:
        lines += ["", f"## Resumes that raised, measured as far as they got ({len(result.raised)})",
                  ""]  # fmt: skip
        lines += [f"- {r}" for r in result.raised]
    if result.cut:
        lines += ["", f"## Log forms the kill cut apart, not judged ({len(result.cut)})", ""]
        lines += [f"- {c}" for c in result.cut]
    wide = wide_ranges(result)
    if wide:
        lines += ["", "## Measured ranges wider than one value (kept, re-run, lines)", ""]
        lines += [f"- {w}" for w in wide]
    return "\n".join(lines)


def ok(result: CorpusResult) -> bool:
    return (
        not result.failed
        and not failures(result)
        and all(not c.wrong and not c.figures for c in result.verdicts)
    )


def recorded_latencies(out: Path) -> tuple[float, ...]:
    """The write latencies the campaigns kept in `out` were recorded at (their manifests'),
    so `--judge-only` judges what is there unless told which to judge."""
    from replaylens.killtest.manifest import MANIFEST

    found: set[float] = set()
    for manifest in sorted(out.glob(f"*/{MANIFEST}")):
        try:
            values = json.loads(manifest.read_text(encoding="utf-8")).get("put_latency") or []
        except (OSError, ValueError, AttributeError):
            continue  # a folder that is not a campaign: judged (and named) as before
        found.update(float(v) for v in values if isinstance(v, int | float))
    return tuple(sorted(found))


def cmd_corpus(args: Any) -> int:
    """`replaylens validate --corpus langgraph-tests`: run, print the report, exit 1 on a miss."""
    import shutil

    if args.corpus != CORPUS_NAME:
        print(f"replaylens validate: unknown corpus {args.corpus!r}; the corpus is {CORPUS_NAME}.",
              file=sys.stderr)  # fmt: skip
        return 2
    shapes = [s.strip() for s in (args.graphs or "").split(",") if s.strip()]
    try:
        chosen = points(shapes, reduced=args.reduced, shift=getattr(args, "kill_shift", 0.0))
    except ValueError as exc:
        print(f"replaylens validate: {exc}.", file=sys.stderr)
        return 2
    if getattr(args, "judge_only", False) and not args.out:
        print("replaylens validate: --judge-only judges the campaigns of --out DIR; give --out.",
              file=sys.stderr)  # fmt: skip
        return 2
    judge_only = bool(getattr(args, "judge_only", False))
    recorded = recorded_latencies(Path(args.out)) if judge_only else ()
    latencies = args.latency or recorded or (REDUCED_LATENCIES if args.reduced else FULL_LATENCIES)
    runs: int | dict[float, int] = (
        args.runs if args.runs is not None else (1 if args.reduced else FULL_RUNS)
    )
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="replaylens-corpus-"))
    result = run_corpus(
        chosen, latencies, runs, out, backend=args.backend, sleep=args.sleep or SLEEP,
        reuse=args.reuse, progress=lambda line: print(line, file=sys.stderr, flush=True),
        judge_only=judge_only, api=getattr(args, "api", "invoke"),
    )  # fmt: skip
    if not result.kills:
        why = "".join(f" {f}" for f in result.failed)
        if judge_only and args.latency and recorded:
            found = ", ".join(f"{x:g}" for x in recorded)
            why += f" Its campaigns were recorded at {found} s; --latency chose none of them."
        print(f"replaylens validate: no killed run to judge in {out}.{why}", file=sys.stderr)
        return 1
    print(report(result))
    if not args.out and not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    return 0 if ok(result) else 1
