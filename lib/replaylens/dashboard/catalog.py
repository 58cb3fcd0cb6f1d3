"""Find the databases, effects logs and kill-test campaigns under the served folders.

A folder may hold loose databases (`x.db`, each optionally with `x.effects.jsonl` next to
it) and campaign folders (a `manifest.json` whose runs name their databases and logs).
The manifest's pairing wins over the naming rule, because a campaign keeps several logs
per database (at the kill, after the resume).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replaylens import dsn as dsn_mod
from replaylens import settings
from replaylens.pairing import sibling_effects
from replaylens.paths import AllowList, PathRefused

DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache"}
MAX_DEPTH = 4
MAX_FILES = 2000


@dataclass(frozen=True)
class DataItem:
    """One database the app can open, with the effects log that goes with it (if any)."""

    key: str  # what goes into ?db= (relative to the working folder when inside it)
    path: Path
    effects: Path | None = None
    campaign: str | None = None  # key of the campaign folder it belongs to
    note: str = ""
    dsn: str | None = field(default=None, repr=False, compare=False)  # a Postgres source


def postgres_item(dsn: str, effects: Path | None = None, label: str | None = None) -> DataItem:
    """A Postgres checkpointer given to `replaylens serve`: listed under its label (the
    connection string without its password; `unique_labels` keeps two apart), opened with
    the full string."""

    label = label or dsn_mod.redact(dsn)
    return DataItem(label, Path(dsn_mod.database(dsn)), effects, None, "postgres", dsn)


def postgres_items(dsns: Iterable[str], effects: Path | None = None) -> list[DataItem]:
    """One item per distinct DSN, each under its own key, even when two DSNs differ only
    in their password or query (which the label leaves out)."""

    given = list(dict.fromkeys(dsns))
    return [
        postgres_item(d, effects, label)
        for d, label in zip(given, dsn_mod.unique_labels(given), strict=True)
    ]


@dataclass(frozen=True)
class CampaignRun:
    """One kill-and-resume run of a campaign, as the manifest describes it."""

    index: int
    graph: str
    mode: str
    put_latency: float
    thread_id: str
    db_at_kill: Path | None
    effects_at_kill: Path | None
    db_after_resume: Path | None
    effects_after_resume: Path | None
    effect_lines_at_kill: int | None
    effect_lines_after_resume: int | None
    resume_ok: bool | None
    resume_error: str | None
    backend: str = "sqlite"
    kill_at: str | None = None
    kill_delay: float | None = None
    fault_point: str | None = None
    effects_source: str = "recorder"
    synchronous_commit: str | None = None
    server_crash: bool = False
    checkpoints_at_kill: int | None = None
    acked_lost: int | None = None


@dataclass(frozen=True)
class Campaign:
    key: str
    path: Path
    name: str
    runs: tuple[CampaignRun, ...]
    baseline_effect_lines: int | None = None
    problems: tuple[str, ...] = ()


@dataclass
class Catalog:
    databases: list[DataItem] = field(default_factory=list)
    campaigns: list[Campaign] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def find(self, key: str) -> DataItem | None:
        return next((d for d in self.databases if d.key == key), None)

    def campaign(self, key: str) -> Campaign | None:
        return next((c for c in self.campaigns if c.key == key), None)


def _walk(folder: Path, depth: int = 0) -> Iterable[Path]:
    """Regular files under `folder` (symbolic links to files included, as they are given:
    `discover` resolves each one and keeps it only if it stays inside the allowed folders).
    Links to folders are not followed, and FIFOs, sockets and devices are never listed:
    opening a FIFO blocks forever."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name in SKIP_DIRS:
            continue
        if entry.is_dir() and not entry.is_symlink():
            if depth < MAX_DEPTH:
                yield from _walk(entry, depth + 1)
        elif entry.is_file():
            yield entry


def read_campaign(folder: Path, key: str, allow: AllowList) -> Campaign:
    """A campaign folder's runs, through the kill test's own manifest model, every path
    checked against the allow-list (a manifest may name files anywhere)."""
    from replaylens.killtest.manifest import ManifestError, load_manifest

    problems: list[str] = []
    try:
        manifest = load_manifest(folder, strict=False)
    except ManifestError as exc:
        return Campaign(key, folder, folder.name, (), None, (str(exc),))
    runs: list[CampaignRun] = []
    for i, run in enumerate(manifest.runs):

        def checked(value: str | None, i: int = i) -> Path | None:
            if not value:
                return None
            try:
                return allow.check(Path(value))
            except PathRefused as exc:
                problems.append(f"Run {i + 1}: {exc}")
                return None

        runs.append(
            CampaignRun(
                index=run.run if run.run is not None else i + 1,
                graph=str(run.graph or manifest.graph or "?").rpartition(":")[2],
                mode=run.mode,
                put_latency=run.put_latency,
                thread_id=run.thread_id,
                db_at_kill=checked(run.db_at_kill),
                effects_at_kill=checked(run.effects_at_kill),
                db_after_resume=checked(run.db_after_resume),
                effects_after_resume=checked(run.effects),
                effect_lines_at_kill=run.effect_lines_at_kill,
                effect_lines_after_resume=run.effect_lines_after_resume,
                resume_ok=run.resume_ok,
                resume_error=run.resume_error,
                backend=run.backend,
                kill_at=run.kill_at,
                kill_delay=run.kill_delay,
                fault_point=run.fault_point,
                effects_source=run.effects_source,
                synchronous_commit=run.synchronous_commit,
                server_crash=run.server_crash,
                checkpoints_at_kill=run.checkpoints_at_kill,
                acked_lost=None if run.acked_lost is None else len(run.acked_lost),
            )
        )
    return Campaign(key, folder, manifest.name or folder.name, tuple(runs), manifest.baseline_effect_lines,
                    tuple(problems))  # fmt: skip


def discover(
    folders: Iterable[Path], allow: AllowList, effects_override: Path | None = None
) -> Catalog:
    """Every database and campaign under `folders` (files are taken as given)."""
    cat = Catalog()
    seen: set[Path] = set()
    pairing: dict[Path, tuple[Path | None, str]] = {}
    files: list[Path] = []
    explicit: set[Path] = set()
    for folder in folders:
        try:
            folder = allow.check(folder)
        except PathRefused as exc:
            cat.problems.append(str(exc))
            continue
        if folder.is_file():
            files.append(folder)
            explicit.add(folder)
            continue
        if not folder.is_dir():
            cat.problems.append(f"{folder}: no such file or folder.")
            continue
        refused = 0
        for f in _walk(folder):
            try:
                f = allow.check(
                    f
                )  # a link is listed by what it points at, and only if that is inside
            except PathRefused:
                refused += 1
                continue
            files.append(f)
            if len(files) > MAX_FILES:
                cat.problems.append(
                    f"More than {MAX_FILES} files under {folder}; the rest are not listed."
                )
                break
        if refused:
            cat.problems.append(
                f"{refused} symbolic link(s) under {folder} point outside the folders this app may read; "
                "they are not listed."
            )
    for f in files:
        if f.name == "manifest.json":
            key = allow.key(f.parent)
            camp = read_campaign(f.parent, key, allow)
            cat.campaigns.append(camp)
            cat.problems.extend(camp.problems)
            for run in camp.runs:
                if run.db_at_kill is not None:
                    pairing[run.db_at_kill] = (run.effects_at_kill, key)
                if run.db_after_resume is not None:
                    pairing[run.db_after_resume] = (run.effects_after_resume, key)
    for f in files:
        if not (f.suffix.lower() in DB_SUFFIXES or f in explicit) or f in seen:
            continue
        seen.add(f)
        effects, campaign = pairing.get(f, (None, None))
        effects = effects or sibling_effects(f) or effects_override
        cat.databases.append(DataItem(allow.key(f), f, effects, campaign))
    cat.databases.sort(key=lambda d: (d.campaign is not None, d.key))
    return cat


@dataclass(frozen=True)
class Placed:
    """Where a database sits in the sidebar: its group and its own words."""

    group: tuple[
        Any, ...
    ]  # sort key: Postgres sources, loose files, then campaign, mode, latency, run, moment
    label: str


def _latency(seconds: float) -> str:
    return f"{seconds * 1000:g} ms" if seconds < 1 else f"{seconds:g} s"


def place(item: DataItem, catalog: Catalog, roots: Iterable[Path]) -> Placed:
    """The label a person can tell apart at a glance: `fanout › async 250 ms › run 2 › at kill` (or `resumed`)
    for a campaign run, the file's own name for an upload (never the server's temporary path),
    the path under the served folder for a loose database."""
    if item.dsn is not None:  # a Postgres checkpointer named on the command line: listed first
        return Placed((-1, item.key), item.key)
    if item.note.startswith("uploaded"):
        return Placed((2, item.path.name), f"{item.path.name} (uploaded)")
    camp = catalog.campaign(item.campaign) if item.campaign else None
    if camp is not None:
        for run in camp.runs:
            for moment, path, order in (
                ("at kill", run.db_at_kill, 0),
                ("resumed", run.db_after_resume, 1),
            ):
                if path is not None and path == item.path:
                    label = f"{camp.name} › {run.mode} {_latency(run.put_latency)} › run {run.index} › {moment}"
                    return Placed(
                        (1, camp.name, run.mode, run.put_latency, run.index, order), label
                    )
    shown = item.key
    for root in roots:
        if item.path.is_relative_to(root):
            shown = item.path.relative_to(root).as_posix()
            break
    return Placed((0, shown), shown)


UPLOAD_PREFIX = "replaylens-upload-"


def looks_uploaded(raw: str) -> bool:
    """Does a `?db=` value name a file in some session's upload folder?"""
    return any(part.startswith(UPLOAD_PREFIX) for part in Path(raw).parts)


UPLOADED_ELSEWHERE = (
    "{name} was uploaded in another browser session, or in one that has ended: uploads are private to "
    "the session that sent them and deleted with it. Upload the file again in the sidebar."
)


class UploadFolder:
    """A private folder (mode 0700) for one browser session's uploads.

    Uploaded files are evidence someone sent in: they are kept apart from other sessions
    (no other session can open them, even with a pasted URL) and deleted when the
    session's state is dropped, or at the latest when the server process exits.
    """

    def __init__(self) -> None:

        base = settings.get_path("REPLAYLENS_UPLOAD_DIR")
        if base:
            base.mkdir(parents=True, exist_ok=True)
        self._tmp = tempfile.TemporaryDirectory(prefix=UPLOAD_PREFIX, dir=base or None)
        self.path = Path(self._tmp.name)

    def cleanup(self) -> None:
        self._tmp.cleanup()


def save_upload(name: str, data: bytes, folder: Path) -> Path:
    """Store an uploaded file under its content hash; the name is reduced to a safe basename."""

    digest = hashlib.sha256(data).hexdigest()[:16]
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", Path(name).name)[:80] or "upload"
    target_dir = folder / digest
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / safe
    if not target.exists():
        target.write_bytes(data)
    return target
