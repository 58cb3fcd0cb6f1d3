"""Which effects log belongs to a checkpoint database: one rule for the CLI and the dashboard.

A kill-test campaign folder's manifest names each run's database and log (at the kill and
after the resume); a loose database `x.db` is paired with `x.effects.jsonl` (or `x.jsonl`)
beside it. `replay`, `report`, `incident`, `export`, `bundle`, `threads` and the dashboard
all ask `effects_for`, so they read the same log for the same file.
"""

from __future__ import annotations

from pathlib import Path


def sibling_effects(db: Path) -> Path | None:
    """`x.db` -> `x.effects.jsonl` (or `x.jsonl`); `x.at-kill.db` also -> `x.effects.at-kill.jsonl`."""
    stem = db.name[: -len(db.suffix)] if db.suffix else db.name
    names = [f"{stem}.effects.jsonl", f"{stem}.jsonl"]
    base, dot, tag = stem.rpartition(".")
    if dot:
        names.append(f"{base}.effects.{tag}.jsonl")
    for name in names:
        candidate = db.with_name(name)
        if candidate.is_file():
            return candidate
    return None


def effects_for(db: Path) -> Path | None:
    """The effects log paired with `db`: the run's log when a kill-test manifest up to two
    folders above names this database, else the sibling `<name>.effects.jsonl`."""
    from replaylens.killtest.campaign import ManifestError, load_manifest

    resolved = db.resolve()
    for folder in list(resolved.parents)[:3]:
        if not (folder / "manifest.json").is_file():
            continue
        try:
            manifest = load_manifest(folder, strict=False)
        except ManifestError:
            continue
        for run in manifest.runs:
            for named_db, named_log in (
                (run.db_at_kill, run.effects_at_kill),
                (run.db_after_resume, run.effects),
            ):
                if named_db and named_log and Path(named_db).resolve() == resolved:
                    log = Path(named_log)
                    return log if log.is_file() else None
    return sibling_effects(db)
