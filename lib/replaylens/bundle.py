"""The evidence bundle: a zip an incident write-up can cite, whose contents cannot drift.

`make_bundle` writes, for one thread:

- `<stem>.db`: a consistent snapshot of the database, made with SQLite's backup API from
  the read-only connection replaylens reads with (`mode=ro&readonly_shm=1` beside a live
  WAL, `immutable=1` without one): it reads pages inside one read transaction, writes only
  the destination, and never blocks a writer or checkpoints the WAL;
- `raw/<name>`, `raw/<name>-wal`, `raw/<name>-shm`: the files byte for byte as they stood,
  read with plain reads (no SQLite involved, so nothing about them changes). A commit in
  flight while they are read can tear them; the snapshot is the consistent copy, the raw
  files are what was on disk;
- `<stem>.effects.jsonl`: the effects log as it stood;
- `report.md`, `plan.json`, `history.json`: the incident report, the `replay --json` plan
  and the history export (`replaylens.export`), computed from the snapshot;
- `manifest.json`: the sha256 and size of every file above, when and from where.

`open_bundle` checks every sha256 against the manifest before anything is read, then
extracts into a private temporary folder, so the CLI (`replaylens replay bundle.zip
--thread T`) and the dashboard (`replaylens serve bundle.zip`) show the same answers as
the originals did.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import sqlite3
import tempfile
import zipfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replaylens.errors import ReplaylensError

MANIFEST = "manifest.json"
BUNDLE_SCHEMA = "replaylens.bundle/1"
CHUNK = 1 << 20


class BundleError(ReplaylensError):
    pass


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _raw_copy(src: Path, dst: Path) -> None:
    """Plain reads into a new file: the original is opened read-only, nothing else."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        shutil.copyfileobj(fin, fout, CHUNK)


def snapshot(source: Any, target: Path) -> None:
    """A consistent copy of a SQLite source via the backup API, from its read-only connection."""
    with closing(source.connect()) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def make_bundle(
    db: Path,
    thread_id: str,
    effects: Path | None,
    out: Path,
    *,
    latency: float | None = None,
    recording: Any = None,
) -> dict[str, Any]:
    """Write the bundle zip at `out`; return its manifest. `recording` (a durability
    `Recording`) is how the original database was recorded (the snapshot is not named by any
    kill-test manifest); `latency` None models the recorded one."""
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.effects.parse import read_effects
    from replaylens.errors import ThreadNotFound
    from replaylens.export import history, to_json_bytes
    from replaylens.report import incident_markdown
    from replaylens.sources import open_source

    db = Path(db)
    stem = db.stem
    with tempfile.TemporaryDirectory(prefix="replaylens-bundle-") as tmp:
        work = Path(tmp)
        (work / "raw").mkdir()
        files: list[str] = []
        # The raw files first (as they stood), then the snapshot.
        for suffix in ("", "-wal", "-shm"):
            src = Path(f"{db}{suffix}")
            if src.exists():
                _raw_copy(src, work / "raw" / src.name)
                files.append(f"raw/{src.name}")
        source = open_source(db)
        try:
            if getattr(source, "kind", "") != "sqlite":
                raise BundleError(
                    f"{db}: a bundle copies a SQLite file; this source is {source.kind}."
                )
            snapshot(source, work / f"{stem}.db")
            notes = list(source.notes)
        finally:
            source.close()
        files.append(f"{stem}.db")
        log = None
        if effects is not None:
            _raw_copy(Path(effects), work / f"{stem}.effects.jsonl")
            files.append(f"{stem}.effects.jsonl")
            log = read_effects(work / f"{stem}.effects.jsonl")
        snap = open_source(work / f"{stem}.db")
        try:
            try:
                thread = load_thread(snap, thread_id)
            except ThreadNotFound:
                if log is None or thread_id not in log.thread_ids:
                    raise
                thread = None
            plan = plan_resume(thread, log, thread_id, latency=latency, recording=recording)
            doc = history(snap, thread, plan, f"{stem}.effects.jsonl" if log else None)
        finally:
            snap.close()
        (work / "report.md").write_text(
            incident_markdown(
                plan,
                database=f"{stem}.db (snapshot in this bundle)",
                effects_log=f"{stem}.effects.jsonl" if log else None,
            )
        )
        (work / "plan.json").write_bytes(to_json_bytes(plan.to_json()))
        (work / "history.json").write_bytes(to_json_bytes(doc))
        files += ["report.md", "plan.json", "history.json"]
        manifest = {
            "schema": BUNDLE_SCHEMA,
            "created_at": dt.datetime.now(dt.UTC)
            .isoformat(timespec="seconds")
            .replace("+00:00", "Z"),
            "thread_id": thread_id,
            "database": str(db.resolve()),
            "effects_log": str(Path(effects).resolve()) if effects else None,
            "snapshot": f"{stem}.db",
            "effects": f"{stem}.effects.jsonl" if log else None,
            "sqlite_version": sqlite3.sqlite_version,
            "status": plan.status,
            "verdict": plan.verdict_sentence(),
            "notes": notes
            + [
                "raw/ holds the files as they stood, read with plain reads; a commit in flight can tear them. "
                f"{stem}.db is a consistent snapshot made with SQLite's backup API from a read-only connection."
            ],
            "files": {
                name: {"sha256": sha256_file(work / name), "bytes": (work / name).stat().st_size}
                for name in files
            },
        }
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1))
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
            zf.write(work / MANIFEST, MANIFEST)
            for name in files:
                zf.write(work / name, name)
        partial.replace(out)
    return manifest


@dataclass
class OpenedBundle:
    """An extracted, verified bundle; `close()` removes the private folder."""

    folder: Path
    db: Path
    effects: Path | None
    manifest: dict[str, Any]
    _tmp: tempfile.TemporaryDirectory[str]

    def close(self) -> None:
        self._tmp.cleanup()


def is_bundle(path: str | Path) -> bool:
    p = Path(path)
    if p.suffix.lower() != ".zip" or not p.is_file():
        return False
    try:
        with zipfile.ZipFile(p) as zf:
            return MANIFEST in zf.namelist()
    except zipfile.BadZipFile:
        return False


def open_bundle(path: str | Path) -> OpenedBundle:
    """Verify every file of the bundle against its manifest, then extract it privately."""
    p = Path(path)
    try:
        zf = zipfile.ZipFile(p)
    except (OSError, zipfile.BadZipFile) as exc:
        raise BundleError(f"{p}: is not a readable zip file ({exc}).") from exc
    tmp = tempfile.TemporaryDirectory(prefix="replaylens-bundle-")
    folder = Path(tmp.name)
    try:
        with zf:
            try:
                manifest = json.loads(zf.read(MANIFEST))
            except (KeyError, ValueError) as exc:
                raise BundleError(
                    f"{p}: has no readable {MANIFEST}; it is not a replaylens bundle."
                ) from exc
            listed = manifest.get("files") if isinstance(manifest, dict) else None
            if not isinstance(listed, dict):
                raise BundleError(f"{p}: {MANIFEST} lists no files.")
            for name, info in listed.items():
                target = (folder / name).resolve()
                if not target.is_relative_to(folder.resolve()) or name.startswith("/"):
                    raise BundleError(f"{p}: the manifest names {name!r}, outside the bundle.")
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    with zf.open(name) as fin, open(target, "wb") as fout:
                        shutil.copyfileobj(fin, fout, CHUNK)
                except KeyError as exc:
                    raise BundleError(
                        f"{p}: {name} is in the manifest but not in the zip."
                    ) from exc
                got = sha256_file(target)
                if got != info.get("sha256"):
                    raise BundleError(
                        f"{p}: {name} does not match its sha256 in the manifest ({got[:12]}… against "
                        f"{str(info.get('sha256'))[:12]}…): the bundle was changed after it was made."
                    )
    except BaseException:
        tmp.cleanup()
        raise
    db = folder / str(manifest.get("snapshot") or "")
    if not db.is_file():
        tmp.cleanup()
        raise BundleError(f"{p}: the manifest names no snapshot database.")
    effects = folder / manifest["effects"] if manifest.get("effects") else None
    # The raw copies stay for whoever wants them, but out of the dashboard's listing.
    return OpenedBundle(folder, db, effects, manifest, tmp)
