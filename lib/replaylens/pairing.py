"""Which effects log belongs to a checkpoint database: one rule for the CLI and the dashboard.

A kill-test campaign folder's manifest names each run's database and log (at the kill and
after the resume); a loose database `x.db` is paired with `x.effects.jsonl` (or `x.jsonl`)
beside it, or a trace (`x.traces.jsonl`, `x.traces.pb`, …). `replay`, `report`, `incident`, `export`, `bundle`, `threads` and the dashboard
all ask `effects_for`, so they read the same log for the same file.
"""

from __future__ import annotations

from pathlib import Path

EVIDENCE_SUFFIXES = (
    ".jsonl", ".json", ".jsonl.gz", ".jsonl.zst", ".json.gz", ".json.zst",
    ".pb", ".pb.gz", ".pb.zst", ".parquet",
)  # fmt: skip
"""File name endings of effects evidence: an effects log, or a trace (OTLP JSON or protobuf,
LangSmith runs, Langfuse observations, compressed), as `read_effects` sniffs them."""


def is_evidence_name(name: str) -> bool:
    """Whether a file name ends like effects evidence (not a database): for the uploader."""
    return name.lower().endswith(EVIDENCE_SUFFIXES)


def sibling_effects(db: Path) -> Path | None:
    """`x.db` -> `x.effects.jsonl` (or `x.jsonl`); `x.at-kill.db` also -> `x.effects.at-kill.jsonl`;
    then a trace beside it: `x.traces.jsonl`, `x.traces.pb`, ... (any of EVIDENCE_SUFFIXES),
    or a compressed `x.effects.jsonl.gz`."""
    stem = db.name[: -len(db.suffix)] if db.suffix else db.name
    names = [f"{stem}.effects.jsonl", f"{stem}.jsonl"]
    base, dot, tag = stem.rpartition(".")
    if dot:
        names.append(f"{base}.effects.{tag}.jsonl")
    names += [f"{stem}.effects{suffix}" for suffix in EVIDENCE_SUFFIXES[1:]]
    names += [f"{stem}.traces{suffix}" for suffix in EVIDENCE_SUFFIXES]
    for name in names:
        candidate = db.with_name(name)
        if candidate.is_file():
            return candidate
    return None


def effects_for(db: Path) -> Path | None:
    """The effects log paired with `db`: the run's log when a kill-test manifest up to two
    folders above names this database, else the sibling `<name>.effects.jsonl`."""
    from replaylens.killtest.manifest import ManifestError, load_manifest

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
