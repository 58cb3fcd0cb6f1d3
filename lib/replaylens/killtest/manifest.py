"""The kill-test manifest: the one contract between the campaign that writes DIR/manifest.json
(paths relative to DIR, so a folder can be moved or shipped as a sample) and everything that
reads it (`load_manifest`, `read_manifest`, the dashboard's catalog, `replaylens validate`).
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from replaylens.errors import ReplaylensError
from replaylens.killtest import MODES

MANIFEST = "manifest.json"

Backend = Literal["sqlite", "postgres"]
EffectsSource = Literal["recorder", "callbacks"]
EffectsChoice = Literal["auto", "recorder", "callbacks"]


_RUN_KEYS = (
    "mode",
    "put_latency",
    "run",
    "thread_id",
    "db_at_kill",
    "db_after_resume",
    "effects",
    "effects_at_kill",
    "checkpoints_at_kill",
    "writes_at_kill",
    "effect_lines_at_kill",
    "effect_lines_after_resume",
    "lines_repeated",
    "killed",
    "kill_reason",
    "resume",
)
_PATH_KEYS = ("db_at_kill", "db_after_resume", "effects", "effects_at_kill")


class ManifestError(ReplaylensError):
    """A campaign folder has no readable, well-formed manifest.json."""


# --------------------------------------------------------------------------- manifest model
def _get(obj: dict[str, Any], *names: str) -> Any:
    """The first of `names` present in `obj` (older manifests and hand-made ones differ)."""
    for name in names:
        if name in obj:
            return obj[name]
    return None


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _opt_float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass
class RunRecord:
    """One kill-and-resume run as the manifest records it; paths relative to the campaign.

    Fields after `resume` came with the Postgres and fault-point campaigns; a manifest
    without them reads as SQLite runs killed by the clock with recorder effects.
    """

    mode: str
    put_latency: float = 0.0
    run: int | None = None
    thread_id: str = ""
    db_at_kill: str | None = None
    db_after_resume: str | None = None
    effects: str | None = None
    """The effects log after the resume (of whichever source `effects_source` names)."""
    effects_at_kill: str | None = None
    checkpoints_at_kill: int | None = None
    writes_at_kill: int | None = None
    effect_lines_at_kill: int | None = None
    effect_lines_after_resume: int | None = None
    lines_repeated: int | None = None
    killed: bool | None = None
    kill_reason: str | None = None
    resume: dict[str, Any] = field(default_factory=dict)
    backend: Backend = "sqlite"
    store: str | None = None
    """The SQLite file or the Postgres schema the run wrote (its frozen copy: `<schema>_at_kill`)."""
    kill_at: str | None = None
    kill_delay: float | None = None
    fault_point: str | None = None
    fault_reached: bool | None = None
    effects_source: EffectsSource = "recorder"
    synchronous_commit: str | None = None
    server_crash: bool = False
    acked_checkpoints: int | None = None
    acked_lost: list[str] | None = None
    """Checkpoint ids `put` had returned for, missing from the store right after the kill."""
    run_error: str | None = None
    graph: str | None = None
    cached_nodes: list[str] | None = None
    """Nodes the graph takes from a node cache that outlives the process (`node_cache`), as the
    child that ran it read them; None in manifests written before it was recorded."""

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> RunRecord:
        """Read a run, tolerating the older shapes (`effects` as a pair, `kill` as a dict, aliases)."""
        effects, effects_at_kill = raw.get("effects"), raw.get("effects_at_kill")
        if isinstance(effects, dict):
            effects_at_kill = effects_at_kill or _get(effects, "at_kill", "kill", "before")
            effects = _get(effects, "after_resume", "resume", "after")
        elif isinstance(effects, list | tuple):
            pair = list(effects)
            effects_at_kill = effects_at_kill or (pair[0] if pair else None)
            effects = pair[1] if len(pair) > 1 else None
        elif effects_at_kill is None and effects is not None:
            effects_at_kill, effects = effects, None  # one log named: it is the one at the kill
        effects = effects or raw.get("effects_after_resume")
        kill: dict[str, Any] = raw["kill"] if isinstance(raw.get("kill"), dict) else {}
        resume: dict[str, Any] = raw["resume"] if isinstance(raw.get("resume"), dict) else {}
        backend: Backend = "postgres" if raw.get("backend") == "postgres" else "sqlite"
        source: EffectsSource = (
            "callbacks" if raw.get("effects_source") == "callbacks" else "recorder"
        )
        lost = raw.get("acked_lost")
        cached = raw.get("cached_nodes")
        killed = raw.get("killed", kill.get("killed"))
        return cls(
            mode=str(_get(raw, "mode", "durability") or "?"),
            put_latency=_opt_float(_get(raw, "put_latency", "latency")) or 0.0,
            run=_opt_int(raw.get("run")),
            thread_id=str(raw.get("thread_id") or ""),
            db_at_kill=_opt_str(raw.get("db_at_kill")),
            db_after_resume=_opt_str(_get(raw, "db_after_resume", "db")),
            effects=_opt_str(effects),
            effects_at_kill=_opt_str(effects_at_kill),
            checkpoints_at_kill=_opt_int(raw.get("checkpoints_at_kill")),
            writes_at_kill=_opt_int(raw.get("writes_at_kill")),
            effect_lines_at_kill=_opt_int(raw.get("effect_lines_at_kill")),
            effect_lines_after_resume=_opt_int(raw.get("effect_lines_after_resume")),
            lines_repeated=_opt_int(raw.get("lines_repeated")),
            killed=killed if isinstance(killed, bool) else None,
            kill_reason=_opt_str(raw.get("kill_reason")),
            resume=dict(resume),
            backend=backend,
            store=_opt_str(raw.get("store")),
            kill_at=_opt_str(raw.get("kill_at", kill.get("node"))),
            kill_delay=_opt_float(raw.get("kill_delay", kill.get("delay"))),
            fault_point=_opt_str(raw.get("fault_point")),
            fault_reached=raw.get("fault_reached")
            if isinstance(raw.get("fault_reached"), bool)
            else None,
            effects_source=source,
            synchronous_commit=_opt_str(raw.get("synchronous_commit")),
            server_crash=bool(raw.get("server_crash")),
            acked_checkpoints=_opt_int(raw.get("acked_checkpoints")),
            acked_lost=[str(x) for x in lost] if isinstance(lost, list) else None,
            run_error=_opt_str(raw.get("run_error")),
            graph=_opt_str(raw.get("graph")),
            cached_nodes=[str(x) for x in cached] if isinstance(cached, list) else None,
        )

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        optional = ("run_error", "graph", "cached_nodes")
        return {k: v for k, v in data.items() if not (k in optional and v is None)}

    @property
    def resume_ok(self) -> bool | None:
        ok = self.resume.get("ok")
        return ok if isinstance(ok, bool) else None

    @property
    def resume_error(self) -> str | None:
        return _opt_str(self.resume.get("error"))


@dataclass
class Manifest:
    """A campaign: what was run, on which backend, and every run's record."""

    graph: str
    runs: list[RunRecord]
    backend: Backend = "sqlite"
    dsn: str | None = None
    """The Postgres DSN without password or query; None for SQLite."""
    pg_ephemeral: bool = False
    seed: int | None = None
    """The seed of the kill-delay draws (None when the delay was one fixed value)."""
    kill_delay_range: tuple[float, float] | None = None
    modes: list[str] = field(default_factory=lambda: list(MODES))
    kill_at: list[str] | None = None
    kill_delay: float | None = None
    kill_after: float | None = None
    fault_points: list[str] | None = None
    put_latency: list[float] = field(default_factory=lambda: [0.0])
    synchronous_commit: list[str] | None = None
    server_crash: bool = False
    effects_source: str = "auto"
    input: Any = None
    resume_value: Any = None
    then_inputs: list[Any] | None = None
    """Inputs of further invocations before the kill (each sent once the previous one ended)."""
    kill_from_invocation: int = 0
    """The kill is aimed only from this invocation of a run on (0: the first)."""
    resume_all: bool = False
    """Several pending interrupts were answered at once, not the first one only."""
    api: str = "invoke"
    """How the child ran the graph: `invoke` (LangGraph's sync loop) or `ainvoke` (its async one)."""
    sleep: float | None = None
    python: str | None = None
    langgraph: str | None = None
    langgraph_checkpoint_sqlite: str | None = None
    langgraph_checkpoint_postgres: str | None = None
    server_version: str | None = None
    created: str | None = None
    name: str | None = None
    baseline_effect_lines: int | None = None
    error: str | None = None
    """Why the campaign stopped early, when it did (the runs before it are kept)."""
    folder: str | None = None
    planned_runs: int | None = None
    """How many runs the matrix holds; `runs` lists those that completed (fewer when `error`)."""
    schemas_left: list[str] | None = None
    """Postgres schemas of this campaign still on the server at its end: all of them with
    --keep-schemas, those a failed DROP left otherwise, [] when every one was dropped."""

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Manifest:
        runs = [RunRecord.from_dict(r) for r in raw.get("runs") or [] if isinstance(r, dict)]
        kill_at = raw.get("kill_at")
        rng = raw.get("kill_delay_range")
        for rec in runs:  # campaigns written before per-run kill points: every run shared one
            if rec.kill_at is None and isinstance(kill_at, str):
                rec.kill_at = kill_at
            if rec.kill_delay is None and rec.fault_point is None and rec.kill_at is not None:
                rec.kill_delay = _opt_float(raw.get("kill_delay"))
        return cls(
            graph=str(raw.get("graph") or "?"),
            runs=runs,
            backend="postgres" if raw.get("backend") == "postgres" else "sqlite",
            dsn=_opt_str(raw.get("dsn")),
            pg_ephemeral=bool(raw.get("pg_ephemeral")),
            seed=_opt_int(raw.get("seed")),
            kill_delay_range=(float(rng[0]), float(rng[1]))
            if isinstance(rng, list | tuple) and len(rng) == 2
            else None,
            modes=[str(m) for m in raw.get("modes") or MODES],
            kill_at=[kill_at]
            if isinstance(kill_at, str)
            else (list(kill_at) if isinstance(kill_at, list) else None),
            kill_delay=_opt_float(raw.get("kill_delay")),
            kill_after=_opt_float(raw.get("kill_after")),
            fault_points=list(raw["fault_points"])
            if isinstance(raw.get("fault_points"), list)
            else None,
            put_latency=[
                float(x) for x in raw.get("put_latency") or [0.0] if isinstance(x, int | float)
            ],
            synchronous_commit=raw.get("synchronous_commit")
            if isinstance(raw.get("synchronous_commit"), list)
            else None,
            server_crash=bool(raw.get("server_crash")),
            effects_source=str(raw.get("effects_source") or "auto"),
            input=raw.get("input"),
            resume_value=raw.get("resume_value"),
            then_inputs=list(raw["then_inputs"])
            if isinstance(raw.get("then_inputs"), list)
            else None,
            kill_from_invocation=_opt_int(raw.get("kill_from_invocation")) or 0,
            resume_all=raw.get("resume_all") is True,
            api="ainvoke" if raw.get("api") == "ainvoke" else "invoke",
            sleep=_opt_float(raw.get("sleep")),
            python=_opt_str(raw.get("python")),
            langgraph=_opt_str(raw.get("langgraph")),
            langgraph_checkpoint_sqlite=_opt_str(raw.get("langgraph_checkpoint_sqlite")),
            langgraph_checkpoint_postgres=_opt_str(raw.get("langgraph_checkpoint_postgres")),
            server_version=_opt_str(raw.get("server_version")),
            created=_opt_str(raw.get("created")),
            name=_opt_str(raw.get("name")),
            baseline_effect_lines=_opt_int(raw.get("baseline_effect_lines")),
            error=_opt_str(raw.get("error")),
            folder=_opt_str(raw.get("folder")),
            planned_runs=_opt_int(raw.get("planned_runs")),
            schemas_left=[str(x) for x in raw["schemas_left"]]
            if isinstance(raw.get("schemas_left"), list)
            else None,
        )

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["runs"] = [r.to_dict() for r in self.runs]
        for key in (
            "name",
            "baseline_effect_lines",
            "error",
            "folder",
            "then_inputs",
            "planned_runs",
            "schemas_left",
        ):
            if data[key] is None:
                del data[key]
        if not data["resume_all"]:
            del data["resume_all"]
        if data["api"] == "invoke":
            del data["api"]
        return data

    def write(self, folder: Path) -> None:
        (folder / MANIFEST).write_text(
            json.dumps(self.to_dict(), indent=1, default=str) + "\n", encoding="utf-8"
        )


# --------------------------------------------------------------------------- reading
def load_manifest(folder: str | os.PathLike[str], *, strict: bool = True) -> Manifest:
    """Load DIR/manifest.json (or the file itself) as the typed model, paths made absolute.

    Strict (the default): a manifest whose runs lack the writer's keys or whose files are
    gone is refused in one sentence rather than half drawn. Not strict (the dashboard's
    catalog, which also reads hand-made campaigns): missing keys read as unknown.
    """
    path = Path(folder)
    if path.is_dir():
        path = path / MANIFEST
    if not path.is_file():
        raise ManifestError(
            f"{path} does not exist; a kill-test campaign folder holds a {MANIFEST}."
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path} is not readable JSON ({exc}).") from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("runs"), list)
        or (strict and "graph" not in data)
    ):
        raise ManifestError(
            f"{path} is not a kill-test manifest: it needs 'graph' and a 'runs' list."
        )
    root = path.parent
    if strict:
        for i, entry in enumerate(data["runs"], 1):
            missing = [k for k in _RUN_KEYS if not isinstance(entry, dict) or k not in entry]
            if missing:
                raise ManifestError(f"Run {i} of {path} lacks {', '.join(missing)}.")
    manifest = Manifest.from_dict(data)
    for i, rec in enumerate(manifest.runs, 1):
        for key in _PATH_KEYS:
            value = getattr(rec, key)
            if value is None:
                continue
            file = (root / value).resolve()
            if strict and not file.exists():
                raise ManifestError(
                    f"Run {i} of {path} names {value} as {key}, and that file is missing."
                )
            setattr(rec, key, str(file))
    manifest.folder = str(root.resolve())
    return manifest


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """`load_manifest` as a plain dict (the JSON shape, paths absolute), for scripts."""
    return load_manifest(folder).to_dict()


def latency_label(latency: float) -> str:
    return f"{latency:g}s"


def graph_cache(entry: dict[str, Any]) -> frozenset[str]:
    """The nodes a kill-test run's graph takes from a node cache that outlives the process, as
    its manifest names them (the graph code tells, not the mode: known however the mode is)."""
    named = entry.get("cached_nodes")
    return frozenset(str(n) for n in named) if isinstance(named, list) else frozenset()
