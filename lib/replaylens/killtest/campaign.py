"""Kill-test campaigns: many real SIGKILLs of one graph, the evidence kept, the resumes judged.

One run = a fresh database and effects log, a child process killed at a chosen point, a
byte-for-byte snapshot of what the crash left (database with its WAL, effects log), and a
resume in a brand new process against the original database. A campaign repeats that per
durability mode, per checkpoint `put` latency and per run, because the outcome of a kill
is a distribution (where the background writer happened to be), not a constant.

`run_campaign` writes `DIR/manifest.json` (paths relative to DIR, so a campaign folder can
be moved or shipped as a sample); `read_manifest` loads one back for the dashboard and
`summarize` reduces it to one row per mode and latency.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from replaylens.errors import ReplaylensError, ThreadNotFound
from replaylens.killtest import MODES
from replaylens.killtest._runner import (
    ChildOutcome,
    ChildSpec,
    child_env,
    repo_paths,
    run_child,
    snapshot_db,
)

MANIFEST = "manifest.json"
CHILD_TIMEOUT = 120.0
MAX_RESUME_ANSWERS = 3
"""How often a run answers an interrupt with --resume-value before giving up on it."""

_RUN_KEYS = (
    "mode", "put_latency", "run", "thread_id", "db_at_kill", "db_after_resume", "effects",
    "effects_at_kill", "checkpoints_at_kill", "writes_at_kill", "effect_lines_at_kill",
    "effect_lines_after_resume", "lines_repeated", "killed", "kill_reason", "resume",
)
_PATH_KEYS = ("db_at_kill", "db_after_resume", "effects", "effects_at_kill")


class KilltestError(ReplaylensError):
    """A kill test cannot start (bad graph path, unknown node, bad option)."""


class ManifestError(ReplaylensError):
    """A campaign folder has no readable, well-formed manifest.json."""


# --------------------------------------------------------------------------- checks
def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def load_graph_nodes(graph: str) -> list[str]:
    """Import `graph` here, in the parent, and list its node names (subgraphs included).

    Checking before any child starts turns a typo into one sentence instead of a dozen
    runs that each report the same ImportError from a child's RESULT line.
    """
    from replaylens.killtest._child import build_graph, load_target

    module_name, sep, attr = graph.partition(":")
    if not sep or not module_name or not attr:
        raise KilltestError(f"The graph must be given as 'package.module:attr', not {graph!r}.")
    for path in [os.getcwd(), *repo_paths()]:
        if path not in sys.path:
            sys.path.append(path)
    try:
        target = load_target(graph)
    except ImportError as exc:
        raise KilltestError(f"Cannot import module {module_name!r} for graph {graph!r}: {exc}.") from None
    except AttributeError:
        raise KilltestError(f"Module {module_name!r} has no attribute {attr!r}.") from None
    try:
        from langgraph.checkpoint.memory import InMemorySaver

        compiled = build_graph(target, InMemorySaver())
    except Exception as exc:  # noqa: BLE001 - any failure here means "not a graph"
        raise KilltestError(f"{graph!r} does not give a LangGraph graph ({type(exc).__name__}: {exc}).") from None
    names: list[str] = list(getattr(compiled, "nodes", {}))
    try:  # nodes of subgraphs can be kill points too (their starts are announced)
        for _ns, subgraph in compiled.get_subgraphs(recurse=True):
            names += [n for n in subgraph.nodes if n not in names]
    except Exception:  # noqa: BLE001 - best effort; the top-level nodes are enough
        pass
    return names


def parse_kill_at(value: str | None) -> tuple[str, int] | None:
    """`NODE` or `NODE:N` -> (node, N); N counts the node's starts in one child, from 1."""
    if value is None:
        return None
    node, sep, count = value.rpartition(":")
    if not sep:
        return value, 1
    if not count.isdigit() or int(count) < 1 or not node:
        raise KilltestError(f"--kill-at must be NODE or NODE:N with N a positive whole number, not {value!r}.")
    return node, int(count)


# --------------------------------------------------------------------------- evidence
def _starts(lines: Sequence[Any]) -> list[tuple[str, int | None]]:
    return [(e.node, e.step) for e in lines if e.phase == "start"]


def count_effects(at_kill: Path, after: Path, thread_id: str) -> dict[str, int]:
    """Effect lines before and after the resume, and the start lines the resume repeated.

    A start line written after the kill whose (node, step) already had a start line
    before it is a side effect begun twice: the number the whole experiment is about.
    """
    from replaylens.effects.parse import read_effects

    before = read_effects(at_kill).for_thread(thread_id) if at_kill.exists() else []
    total = read_effects(after).for_thread(thread_id) if after.exists() else []
    seen = set(_starts(before))
    repeated = sum(1 for key in _starts(total[len(before):]) if key in seen)
    return {
        "effect_lines_at_kill": len(before),
        "effect_lines_after_resume": len(total),
        "lines_repeated": repeated,
    }


def count_checkpoints(db: Path, thread_id: str) -> tuple[int, int]:
    """(checkpoints, writes) of `thread_id` in `db`, read through the read-only source."""
    from replaylens.sources import open_source

    source = open_source(db)
    try:
        row = next((r for r in source.thread_index() if r.thread_id == thread_id), None)
        if row is None:
            return 0, 0
        try:
            writes = len(source.read_thread(thread_id).writes)
        except ThreadNotFound:
            writes = 0
        return row.checkpoints, writes
    finally:
        source.close()


# --------------------------------------------------------------------------- one run
def _latency_label(latency: float) -> str:
    return f"{latency:g}s"


def _answer_interrupts(
    first: ChildOutcome, spec: ChildSpec, resume_value: Any, env: dict[str, str], **kill: Any
) -> ChildOutcome:
    """While the child stopped at an interrupt (not killed), answer it in a new child.

    That is how a kill point behind a human approval is reached: the payment graph stops
    in `approve` first, and only the answered run gets as far as `charge`.
    """
    outcome = first
    for _ in range(MAX_RESUME_ANSWERS):
        if outcome.killed or not (outcome.result or {}).get("interrupted"):
            break
        answer = ChildSpec(
            spec.graph, spec.db, spec.thread_id, spec.durability, resume=True,
            resume_value=resume_value, put_latency=spec.put_latency,
        )
        outcome = run_child(answer, timeout=CHILD_TIMEOUT, env=env, **kill)
    return outcome


def run_one(
    folder: Path,
    graph: str,
    mode: str,
    put_latency: float,
    run: int,
    *,
    input_value: Any,
    kill_at: tuple[str, int] | None,
    kill_delay: float,
    kill_after: float | None,
    resume_value: Any = None,
    has_resume_value: bool = False,
    sleep: float = 0.5,
) -> dict[str, Any]:
    """One kill and one resume; returns the manifest entry (paths relative to `folder`)."""
    rel = Path("runs") / f"{mode}-{_latency_label(put_latency)}-{run}"
    run_dir = folder / rel
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    db, log = run_dir / "checkpoints.db", run_dir / "effects.jsonl"
    at_kill_db, at_kill_log = run_dir / "at-kill.db", run_dir / "at-kill.effects.jsonl"
    thread_id = f"killtest-{mode}-{_latency_label(put_latency)}-{run}"
    env = child_env(log, {"REPLAYLENS_EXAMPLE_SLEEP": f"{sleep:g}"})
    kill = {"kill_at": kill_at, "kill_delay": kill_delay, "kill_after": kill_after}

    spec = ChildSpec(graph, db, thread_id, mode, input_value, put_latency=put_latency)
    outcome = run_child(spec, timeout=CHILD_TIMEOUT, env=env, **kill)
    if has_resume_value:
        outcome = _answer_interrupts(outcome, spec, resume_value, env, **kill)
    if not db.exists():  # the child died before SqliteSaver created the file
        db.touch()
    snapshot_db(db, at_kill_db)
    if log.exists():
        shutil.copy2(log, at_kill_log)
    else:
        at_kill_log.touch()

    resume: dict[str, Any]
    if outcome.killed:
        again = run_child(
            ChildSpec(graph, db, thread_id, mode, None, put_latency=put_latency),
            timeout=CHILD_TIMEOUT, env=env,
        )
        if has_resume_value:
            again = _answer_interrupts(again, spec, resume_value, env)
        resume = {"ok": bool(again.result and again.result.get("ok")), "error": _error_of(again)}
    else:
        resume = {"ok": None, "error": None, "skipped": "the graph finished before the kill point"}
    if not log.exists():
        log.touch()

    checkpoints, writes = count_checkpoints(at_kill_db, thread_id)
    entry: dict[str, Any] = {
        "mode": mode,
        "put_latency": put_latency,
        "run": run,
        "thread_id": thread_id,
        "db_at_kill": str(rel / at_kill_db.name),
        "db_after_resume": str(rel / db.name),
        "effects": str(rel / log.name),
        "effects_at_kill": str(rel / at_kill_log.name),
        "checkpoints_at_kill": checkpoints,
        "writes_at_kill": writes,
        **count_effects(at_kill_log, log, thread_id),
        "killed": outcome.killed,
        "kill_reason": outcome.kill_reason,
        "resume": resume,
    }
    if not outcome.killed and outcome.result and not outcome.result.get("ok"):
        entry["run_error"] = outcome.error
    return entry


def _error_of(outcome: ChildOutcome) -> str | None:
    if outcome.result is not None:
        return outcome.error
    return f"the resume child exited with code {outcome.returncode} and no result"


def progress_line(index: int, total: int, entry: dict[str, Any], kill_node: str | None) -> str:
    """The one line per run a person watching the campaign reads."""
    head = f"[{index}/{total}] {entry['mode']} {_latency_label(entry['put_latency'])} run {entry['run']}: "
    if not entry["killed"]:
        return head + "not killed: the graph finished before the kill point"
    where = f"killed in {kill_node}" if kill_node else "killed"
    resume = entry["resume"]
    tail = "resumed ok" if resume["ok"] else f"resume failed ({resume['error']})"
    return f"{head}{where}, {entry['checkpoints_at_kill']} checkpoints, {tail}"


# --------------------------------------------------------------------------- campaign
def run_campaign(
    graph: str,
    out: str | os.PathLike[str],
    *,
    input_value: Any = None,
    modes: Sequence[str] = MODES,
    kill_at: str | tuple[str, int] | None = None,
    kill_delay: float | None = None,
    kill_after: float | None = None,
    runs: int = 1,
    put_latencies: Sequence[float] = (0.0,),
    resume_value: Any = None,
    has_resume_value: bool = False,
    sleep: float = 0.5,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run every (mode, latency, run), write DIR/manifest.json and return the manifest.

    Runs go one after another on purpose: a kill is aimed by the clock, and parallel
    children competing for the CPU would move where it lands.
    """
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise KilltestError(f"--modes takes sync, async and exit, not {','.join(bad) or 'nothing'}.")
    if runs < 1:
        raise KilltestError("--runs must be at least 1.")
    if any(lat < 0 for lat in put_latencies):
        raise KilltestError("--put-latency cannot be negative.")
    target = parse_kill_at(kill_at) if isinstance(kill_at, str) or kill_at is None else kill_at
    if target is None and kill_after is None:
        raise KilltestError("Give a kill point with --kill-at NODE[:N] or --kill-after SECONDS.")
    nodes = load_graph_nodes(graph)
    if target is not None and target[0] not in nodes:
        known = ", ".join(n for n in nodes if not n.startswith("__"))
        raise KilltestError(f"The graph {graph!r} has no node {target[0]!r}; its nodes are {known}.")
    delay = sleep / 2 if kill_delay is None else kill_delay

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    plan = [(m, lat, n) for lat in put_latencies for m in modes for n in range(1, runs + 1)]
    entries: list[dict[str, Any]] = []
    for index, (mode, latency, n) in enumerate(plan, 1):
        entry = run_one(
            folder, graph, mode, latency, n, input_value=input_value, kill_at=target,
            kill_delay=delay, kill_after=kill_after, resume_value=resume_value,
            has_resume_value=has_resume_value, sleep=sleep,
        )
        entries.append(entry)
        if progress is not None:
            progress(progress_line(index, len(plan), entry, target[0] if target else None))

    manifest: dict[str, Any] = {
        "graph": graph,
        "python": platform.python_version(),
        "langgraph": _version("langgraph"),
        "langgraph_checkpoint_sqlite": _version("langgraph-checkpoint-sqlite"),
        "modes": list(modes),
        "kill_at": None if target is None else f"{target[0]}:{target[1]}",
        "kill_delay": delay,
        "kill_after": kill_after,
        "put_latency": list(put_latencies),
        "input": input_value,
        "resume_value": resume_value if has_resume_value else None,
        "sleep": sleep,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "runs": entries,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


# --------------------------------------------------------------------------- reading
def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """Load DIR/manifest.json (or the file itself), check it, make its paths absolute.

    The dashboard opens the files a manifest names, so a manifest whose runs lack keys
    or whose files are gone is refused here, in one sentence, rather than half drawn.
    """
    path = Path(folder)
    if path.is_dir():
        path = path / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{path} does not exist; a kill-test campaign folder holds a {MANIFEST}.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path} is not readable JSON ({exc}).") from None
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list) or "graph" not in data:
        raise ManifestError(f"{path} is not a kill-test manifest: it needs 'graph' and a 'runs' list.")
    root = path.parent
    for i, entry in enumerate(data["runs"], 1):
        missing = [k for k in _RUN_KEYS if not isinstance(entry, dict) or k not in entry]
        if missing:
            raise ManifestError(f"Run {i} of {path} lacks {', '.join(missing)}.")
        for key in _PATH_KEYS:
            file = (root / entry[key]).resolve()
            if not file.exists():
                raise ManifestError(f"Run {i} of {path} names {entry[key]} as {key}, and that file is missing.")
            entry[key] = str(file)
    data["folder"] = str(root.resolve())
    return data


def _stats(values: list[float]) -> tuple[float | None, float | None, float | None]:
    if not values:
        return None, None, None
    med = statistics.median(values)
    return min(values), (int(med) if float(med).is_integer() else med), max(values)


def summarize(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (mode, put_latency): min/median/max of what the killed runs left.

    Runs that were not killed (the graph finished first) are counted apart and kept out
    of the statistics: they measure a different experiment.
    """
    groups: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for entry in manifest["runs"]:
        groups.setdefault((entry["mode"], float(entry["put_latency"])), []).append(entry)
    mode_order = {m: i for i, m in enumerate(manifest.get("modes") or MODES)}
    rows: list[dict[str, Any]] = []
    for (mode, latency), entries in sorted(groups.items(), key=lambda kv: (kv[0][1], mode_order.get(kv[0][0], 9))):
        killed = [e for e in entries if e["killed"]]
        row: dict[str, Any] = {
            "mode": mode,
            "put_latency": latency,
            "runs": len(entries),
            "killed": len(killed),
            "not_killed": len(entries) - len(killed),
            "resumed_ok": sum(1 for e in killed if e["resume"].get("ok")),
            "resume_errors": sorted({str(e["resume"]["error"]).split(":")[0] for e in killed if e["resume"].get("error")}),
        }
        for key in ("checkpoints_at_kill", "writes_at_kill", "effect_lines_at_kill",
                    "effect_lines_after_resume", "lines_repeated"):
            lo, med, hi = _stats([e[key] for e in killed])
            row[f"{key}_min"], row[f"{key}_median"], row[f"{key}_max"] = lo, med, hi
        rows.append(row)
    return rows


def _span(row: dict[str, Any], key: str) -> str:
    lo, med, hi = row[f"{key}_min"], row[f"{key}_median"], row[f"{key}_max"]
    return "-" if lo is None else f"{lo}/{med}/{hi}"


def summary_table(manifest: dict[str, Any]) -> str:
    """The summary as fixed-width text (min/median/max), printed at the end of a campaign."""
    headers = ["mode", "put latency", "killed", "checkpoints", "writes", "lines at kill",
               "lines after", "repeated", "resumed ok"]
    cells = [
        [r["mode"], _latency_label(r["put_latency"]), f"{r['killed']}/{r['runs']}",
         _span(r, "checkpoints_at_kill"), _span(r, "writes_at_kill"), _span(r, "effect_lines_at_kill"),
         _span(r, "effect_lines_after_resume"), _span(r, "lines_repeated"),
         f"{r['resumed_ok']}/{r['killed']}" + (f" ({', '.join(r['resume_errors'])})" if r["resume_errors"] else "")]
        for r in summarize(manifest)
    ]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    out.append("(min/median/max over the killed runs; 'repeated' counts start lines of a (node, step) "
               "that had already started before the kill)")
    not_killed = sum(r["not_killed"] for r in summarize(manifest))
    if not_killed:
        out.append(f"{not_killed} run(s) were not killed because the graph finished before the kill point.")
    return "\n".join(out)
