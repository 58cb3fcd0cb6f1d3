"""Comparing recorded kill-test runs: per run, and per mode and write latency.

For each run the database as it stood at the kill and the effects log before and after
the resume are read back, so the numbers are measured, not copied from the manifest:
checkpoints kept at the kill, effect lines, lines repeated (the effects the resume began
again, `replaylens.effects.repeats`, as the manifest counts them: a resume that needs a
restart begins them all again), and the Thread page's "log lines again" measured
(`replaylens.killtest.validate.measure`, the model's unit). The summary table has the shape of the
"what durability modes lose" article: one row per graph, mode and latency, with the
range over the runs, so a reader sees the spread rather than one lucky sample.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import pandas as pd

from replaylens.analysis.durability import MODES
from replaylens.dashboard.catalog import Campaign, CampaignRun
from replaylens.errors import ReplaylensError
from replaylens.paths import AllowList

if TYPE_CHECKING:
    from replaylens.analysis.again import Again

RUN_COLUMNS = [
    "campaign", "run", "graph", "backend", "mode", "latency (ms)", "kill at", "kill delay (s)", "fault point",
    "thread", "checkpoints kept", "effect lines at kill", "effect lines after resume", "lines repeated",
    "tasks re-run", "tasks re-run (predicted)", "effect lines again", "effect lines again (predicted)",
    "predicted from the other modes' runs", "acknowledged lost", "effects source", "resumed", "resume error", "db",
]  # fmt: skip
"""`tasks re-run` and `effect lines again` are measured (`replaylens.killtest.validate.measure`); the
`(predicted)` columns are the model's answer from this run's own evidence; the last
prediction column is what the runs of the other modes, at the same latency, predict for
this run's mode (`analysis.durability`, the one model)."""


def _repeated(run: CampaignRun, at_kill: list[Any], after: list[Any]) -> int:
    """The effects the resume (or the restart it needs) began again, read back from the logs
    by the one count the manifest's `lines_repeated` uses."""
    from replaylens.effects.repeats import count_repeats, needs_restart

    return count_repeats(at_kill, after, restart=needs_restart(run.resume_error))


def _lines(path: Any, thread_id: str) -> list[Any] | None:
    if path is None or not path.exists():
        return None
    from replaylens.effects.parse import read_effects

    return read_effects(path).for_thread(thread_id)


def measure_run(run: CampaignRun, campaign: Campaign, allow: AllowList) -> dict[str, Any]:
    """One row of the runs table, read back from the run's files."""
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.sources import open_source

    backend = run.backend + (f" (server crash, synchronous_commit={run.synchronous_commit})"
                             if run.server_crash else "")  # fmt: skip
    row: dict[str, Any] = {
        "campaign": campaign.name, "run": run.index, "graph": run.graph, "backend": backend, "mode": run.mode,
        "latency (ms)": int(round(run.put_latency * 1000)), "kill at": run.kill_at or "",
        "kill delay (s)": run.kill_delay, "fault point": run.fault_point or "", "thread": run.thread_id,
        "acknowledged lost": run.acked_lost, "effects source": run.effects_source,
        "checkpoints kept": None, "effect lines at kill": run.effect_lines_at_kill,
        "effect lines after resume": run.effect_lines_after_resume, "lines repeated": None,
        "tasks re-run": None, "tasks re-run (predicted)": None, "effect lines again": None,
        "effect lines again (predicted)": None, "predicted from the other modes' runs": "",
        "resumed": run.resume_ok, "resume error": run.resume_error or "",
        "db": allow.key(run.db_at_kill) if run.db_at_kill else "",
    }  # fmt: skip
    row["_predicted"] = {}
    at_kill = _lines(run.effects_at_kill, run.thread_id)
    after = _lines(run.effects_after_resume, run.thread_id)
    if at_kill is not None:
        row["effect lines at kill"] = len(at_kill)
    if after is not None:
        row["effect lines after resume"] = len(after)
        row["lines repeated"] = _repeated(run, at_kill or [], after)
    if run.db_at_kill is not None and run.db_at_kill.exists():
        source = open_source(run.db_at_kill)
        try:
            index = {r.thread_id: r for r in source.thread_index()}
            found = index.get(run.thread_id)
            row["checkpoints kept"] = found.checkpoints if found else 0
            thread = load_thread(source, run.thread_id) if found else None
            if at_kill is not None:
                from replaylens.effects.parse import EffectsLog
                from replaylens.killtest.recorded import recording_for

                log = EffectsLog(str(run.effects_at_kill), at_kill)
                rec = recording_for(run.db_at_kill, run.thread_id)
                plan = plan_resume(
                    thread, log, run.thread_id, latency=run.put_latency, recording=rec
                )
                under = {m: plan.again_under(m) for m in plan.what_if}
                row["_predicted"] = {m: _bounds(a) for m, a in under.items()}
                own = under.get(run.mode)
                if own is not None:
                    row["tasks re-run (predicted)"] = own.figure("tasks")
                    row["effect lines again (predicted)"] = own.figure("lines")
        except ReplaylensError as exc:
            row["resume error"] = row["resume error"] or f"unreadable at kill: {exc}"
        finally:
            source.close()
    if (
        run.db_at_kill is not None
        and run.effects_at_kill is not None
        and run.effects_after_resume is not None
        and run.db_at_kill.exists()
        and run.effects_at_kill.exists()
        and run.effects_after_resume.exists()
    ):
        from replaylens.killtest.validate import measure

        got = measure(
            {
                "thread_id": run.thread_id,
                "db_at_kill": run.db_at_kill,
                "effects_at_kill": run.effects_at_kill,
                "effects": run.effects_after_resume,
                "resume": {"error": run.resume_error},
            }
        )
        row["tasks re-run"], row["effect lines again"] = got.reruns, got.lines
    return row


def _cross(rows: list[dict[str, Any]]) -> None:
    """Fill in what the other modes' runs of the same campaign and latency predict for each run."""
    for row in rows:
        preds = [
            r["_predicted"][row["mode"]]
            for r in rows
            if r is not row
            and r["campaign"] == row["campaign"]
            and r["latency (ms)"] == row["latency (ms)"]
            and r["mode"] != row["mode"]
            and row["mode"] in r["_predicted"]
        ]
        if preds:
            tasks = [v for p in preds for v in p[0]]
            lines = [v for p in preds for v in p[1]]
            row["predicted from the other modes' runs"] = (
                f"tasks {_range(tasks)}, lines {_range(lines)} (from {len(preds)} runs)"
            )


def _bounds(a: Again) -> tuple[tuple[int, int], tuple[int, int]]:
    """A mode's tasks and lines again as (lowest, highest): its range where the evidence
    cannot tell (`Again.span_of`), else its count twice (0 where unknown)."""
    tasks, lines = a.task_count or 0, a.line_count or 0
    return a.span_of("tasks") or (tasks, tasks), a.span_of("lines") or (lines, lines)


def _range(vals: list[int]) -> str:
    lo, hi = min(vals), max(vals)
    return str(lo) if lo == hi else f"{lo}–{hi}"


def runs_frame(campaigns: list[Campaign], allow: AllowList) -> pd.DataFrame:
    rows = [measure_run(run, c, allow) for c in campaigns for run in c.runs]
    _cross(rows)
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def _span(values: pd.Series) -> str:
    """The range over runs of a column of counts, or of figures as `Again.figure` prints them
    ("5", or "5–6" where the evidence cannot tell)."""
    vals = [int(x) for v in values.dropna() for x in str(v).split("–")]
    return _range(vals) if vals else "—"


def columns_first(frame: pd.DataFrame, first: list[str]) -> pd.DataFrame:
    """`frame` with the columns of `first` it has leading, in that order, then the others as
    they were: what a reader acts on stays on screen in a wide table."""
    return frame[[c for c in first if c in frame] + [c for c in frame if c not in first]]


def summary_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """Per graph, mode and latency: the range over runs of each measure (the article's table)."""
    if runs.empty:
        return pd.DataFrame(columns=["graph", "backend", "mode", "latency (ms)", "kill at", "fault point", "runs",
                                     "kill delay (s)", "checkpoints kept", "effect lines after resume",
                                     "lines repeated", "tasks re-run (measured / predicted)",
                                     "effect lines again (measured / predicted)", "acknowledged lost", "resumed",
                                     "errors"])  # fmt: skip
    order = {m: i for i, m in enumerate(MODES)}
    out = []
    keys = ["graph", "backend", "mode", "latency (ms)", "kill at", "fault point"]
    for (graph, backend, mode, latency, kill_at, fault), group in runs.groupby(keys, sort=False):
        errors = Counter(str(e).split(":")[0] for e in group["resume error"] if e)
        delays = [float(d) for d in group["kill delay (s)"].dropna()]
        out.append(
            {
                "graph": graph,
                "backend": backend,
                "mode": mode,
                "latency (ms)": latency,
                "kill at": kill_at,
                "fault point": fault,
                "kill delay (s)": "—"
                if not delays
                else (
                    f"{min(delays):.3f}"
                    if min(delays) == max(delays)
                    else f"{min(delays):.3f}–{max(delays):.3f}"
                ),
                "runs": len(group),
                "checkpoints kept": _span(group["checkpoints kept"]),
                "effect lines after resume": _span(group["effect lines after resume"]),
                "lines repeated": _span(group["lines repeated"]),
                "tasks re-run (measured / predicted)": f"{_span(group['tasks re-run'])} / "
                f"{_span(group['tasks re-run (predicted)'])}",
                "effect lines again (measured / predicted)": f"{_span(group['effect lines again'])} / "
                f"{_span(group['effect lines again (predicted)'])}",
                "acknowledged lost": _span(group["acknowledged lost"]),
                "resumed": f"{int((group['resumed'] == True).sum())}/{len(group)}",  # noqa: E712 - may hold None
                "errors": ", ".join(f"{k} ×{v}" for k, v in errors.items()),
            }
        )
    frame = pd.DataFrame(out)
    frame["_o"] = frame["mode"].map(lambda m: order.get(m, 9))
    return (frame.sort_values(["graph", "backend", "latency (ms)", "kill at", "fault point", "_o"])
            .drop(columns="_o").reset_index(drop=True))  # fmt: skip


VERDICT_COLUMNS = ["campaign", "node", "verdict", "evidence", "runs killed here"]


def node_verdict_frame(campaigns: list[Campaign], allow: AllowList) -> pd.DataFrame:
    """The verdict per node of each campaign (`replaylens.killtest.safety`): safe to repeat,
    repeats an effect, or not deterministic, with the evidence in one sentence. Only effects
    logs inside the allowed folders are read; a run whose log lies elsewhere counts as one
    without a log."""
    from pathlib import Path

    from replaylens.killtest.manifest import ManifestError, load_manifest
    from replaylens.killtest.safety import node_verdicts

    rows = []
    for c in campaigns:
        try:
            manifest = load_manifest(c.path, strict=False)
        except ManifestError:
            continue
        for rec in manifest.runs:
            for key in ("effects", "effects_at_kill"):
                path = getattr(rec, key)
                if path and not allow.contains(Path(path).resolve()):
                    setattr(rec, key, None)
        for v in node_verdicts(manifest, manifest.kill_at or ()):
            rows.append({"campaign": c.name, "node": v.node, "verdict": v.verdict,
                         "evidence": v.evidence, "runs killed here": v.runs_killed_here})  # fmt: skip
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


def campaign_label(campaign: Campaign) -> str:
    """How the picker names a campaign: `fanout (24 runs)`."""
    return f"{campaign.name} ({len(campaign.runs)} runs)"


def resolve_campaigns(wanted: list[str], campaigns: list[Campaign]) -> tuple[list[str], list[str]]:
    """The campaign keys a URL's `campaign=` values name, and the values that name none.

    The URL keeps a campaign by its key, the folder's path (`campaign=sample_dbs/payment`);
    links written before that kept the picker's label (`campaign=fanout (24 runs)`) or the
    bare name, and still open the same campaign."""
    by_key = {c.key: c.key for c in campaigns}
    by_label = {campaign_label(c): c.key for c in campaigns}
    by_name: dict[str, str] = {}
    for c in campaigns:
        by_name.setdefault(c.name, c.key)
    found: list[str] = []
    unknown: list[str] = []
    for value in wanted:
        key = by_key.get(value.rstrip("/")) or by_label.get(value) or by_name.get(value)
        if key is None:
            unknown.append(value)
        elif key not in found:
            found.append(key)
    return found, unknown
