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

`open_bundle` refuses a zip that is not exactly such a bundle (odd or duplicate names,
too many entries, a manifest too large or naming files outside itself, sizes past the cap)
before anything is inflated, then extracts into a private temporary folder, hashing each
file as it is written; only when every sha256 matches are the snapshot and the log used,
so the CLI (`replaylens replay bundle.zip --thread T`) and the dashboard (`replaylens
serve bundle.zip`) show the same answers as the originals did. A sha256 is a checksum,
not a signature (CHECKSUM_NOTE): the bundle's own digest is printed to be cited.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import zipfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replaylens.errors import ReplaylensError
from replaylens.times import utc_iso

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
    db: Path | str,
    thread_id: str,
    effects: Path | None,
    out: Path,
    *,
    latency: float | None = None,
    recording: Any = None,
) -> dict[str, Any]:
    """Write the bundle zip at `out` from a SQLite file or a Postgres DSN; return its manifest.
    `recording` (a durability `Recording`) is how the original database was recorded (the
    snapshot is not named by any kill-test manifest); `latency` None models the recorded one."""
    from replaylens import dsn

    if dsn.is_env_ref(db) or dsn.is_dsn(db):
        return make_postgres_bundle(
            str(db), thread_id, effects, Path(out), latency=latency, recording=recording
        )
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
        manifest = _derive_and_zip(
            work, files, stem, thread_id, effects, out, latency=latency, recording=recording,
            manifest={
                "database": str(db.resolve()),
                "backend": "sqlite",
                "sqlite_version": sqlite3.sqlite_version,
                "notes": notes + [
                    "raw/ holds the files as they stood, read with plain reads; a commit in flight can tear them. "
                    f"{stem}.db is a consistent snapshot made with SQLite's backup API from a read-only connection."
                ],
            },
        )  # fmt: skip
    return manifest


def _derive_and_zip(
    work: Path,
    files: list[str],
    stem: str,
    thread_id: str,
    effects: Path | None,
    out: Path,
    *,
    latency: float | None,
    recording: Any,
    manifest: dict[str, Any],
) -> dict[str, Any]:
    """The bundle's second half, whatever the backend: the log, the report, plan and history
    computed from the snapshot `<stem>.db` (already in `files`), the manifest, the zip."""
    from replaylens.analysis.resume import plan_resume
    from replaylens.analysis.status import load_thread
    from replaylens.effects.parse import read_effects
    from replaylens.errors import ThreadNotFound
    from replaylens.export import history, to_json_bytes
    from replaylens.report import incident_markdown
    from replaylens.sources import open_source

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
    notes = manifest.pop("notes", [])
    manifest = {
        "schema": BUNDLE_SCHEMA,
        "created_at": utc_iso(),
        "thread_id": thread_id,
        **manifest,
        "effects_log": str(Path(effects).resolve()) if effects else None,
        "snapshot": f"{stem}.db",
        "effects": f"{stem}.effects.jsonl" if log else None,
        "status": plan.status,
        "verdict": plan.verdict_sentence(),
        "notes": notes,
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


# -- from Postgres -------------------------------------------------------------------------
PG_BUNDLE_TABLES: dict[str, tuple[str, ...]] = {
    "checkpoints": ("thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "type",
                    "checkpoint", "metadata"),
    "checkpoint_blobs": ("thread_id", "checkpoint_ns", "channel", "version", "type", "blob"),
    "checkpoint_writes": ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel",
                          "type", "blob", "task_path"),
}  # fmt: skip
"""The columns a bundle's snapshot keeps, in PostgresSaver's order (its migrations 0-9)."""
PG_BUNDLE_KEYS: dict[str, str] = {
    "checkpoints": "checkpoint_ns, checkpoint_id",
    "checkpoint_blobs": "checkpoint_ns, channel, version",
    "checkpoint_writes": "checkpoint_ns, checkpoint_id, task_id, idx",
}
"""Each table's primary key after thread_id: the order of the rows in the snapshot and raw/."""


def pg_bundle_order(table: str) -> str:
    """ORDER BY of a table's rows in a bundle: its key, text in code-point order (COLLATE "C")."""
    return ", ".join(
        k if k == "idx" else f'{k} COLLATE "C"' for k in PG_BUNDLE_KEYS[table].split(", ")
    )


def postgres_thread_snapshot(
    source: Any, thread_id: str, target: Path, raw: Path
) -> dict[str, Any]:
    """Copy one thread's rows from a PostgresSource, in ONE `REPEATABLE READ, READ ONLY`
    transaction, into `target` (a new SQLite file in PostgresSaver's schema) and into
    `raw/<table>.pgcopy`: the same rows as the server sends them with
    `COPY (SELECT * …) TO STDOUT (FORMAT binary)`, PostgreSQL's own byte-exact row format.
    Returns what the manifest records: server version, synchronous_commit, the snapshot's
    time and transaction snapshot, the isolation the server reports, rows per table."""
    from psycopg import sql

    from replaylens.sources import PG_SNAPSHOT_DDL

    def work(cur: Any) -> dict[str, Any]:
        # The first statement takes the snapshot (REPEATABLE READ): its clock is the snapshot's time.
        cur.execute(
            "SELECT clock_timestamp() AS at, pg_current_snapshot()::text AS xid_snapshot, "
            "current_setting('server_version') AS server_version, "
            "current_setting('synchronous_commit') AS synchronous_commit, "
            "current_setting('transaction_isolation') AS isolation, "
            "current_setting('transaction_read_only') AS read_only, "
            "EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('checkpoint_writes') "
            "AND attname = 'task_path' AND NOT attisdropped) AS has_task_path"
        )
        info = dict(cur.fetchone())
        rows: dict[str, list[tuple[Any, ...]]] = {}
        copies: dict[str, bytes] = {}
        for table, cols in PG_BUNDLE_TABLES.items():
            select = [
                "''" if (c == "task_path" and not info["has_task_path"]) else
                f"{c}::text" if c in ("checkpoint", "metadata") else c
                for c in cols
            ]  # fmt: skip
            cur.execute(
                f"SELECT {', '.join(select)} FROM {table} WHERE thread_id = %s "
                f"ORDER BY {pg_bundle_order(table)}",
                (thread_id,),
            )
            rows[table] = [tuple(r.values()) for r in cur.fetchall()]
            stmt = sql.SQL(
                "COPY (SELECT * FROM {} WHERE thread_id = {} ORDER BY {}) TO STDOUT (FORMAT binary)"
            ).format(sql.Identifier(table), sql.Literal(thread_id), sql.SQL(pg_bundle_order(table)))
            data = bytearray()
            with cur.copy(stmt) as copy:
                for chunk in copy:
                    data += chunk
            copies[table] = bytes(data)
        return {"info": info, "rows": rows, "copies": copies}

    got = source.snapshot_read(work)
    info = got["info"]
    with closing(sqlite3.connect(target)) as conn:
        for ddl in PG_SNAPSHOT_DDL:
            conn.execute(ddl)
        for table, cols in PG_BUNDLE_TABLES.items():
            conn.executemany(
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [
                    tuple(bytes(v) if isinstance(v, memoryview) else v for v in r)
                    for r in got["rows"][table]
                ],
            )
        conn.commit()
    for table, data in got["copies"].items():
        (raw / f"{table}.pgcopy").write_bytes(data)
    return {
        "server_version": str(info["server_version"]),
        "synchronous_commit": str(info["synchronous_commit"]),
        "snapshot_at": info["at"].astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        "transaction_snapshot": str(info["xid_snapshot"]),
        "isolation": f"{str(info['isolation']).upper()}, {'READ ONLY' if info['read_only'] == 'on' else 'READ WRITE'}",
        "rows": {table: len(found) for table, found in got["rows"].items()},
        "raw": [f"raw/{table}.pgcopy" for table in got["copies"]],
    }  # fmt: skip


def make_postgres_bundle(
    dsn: str,
    thread_id: str,
    effects: Path | None,
    out: Path,
    *,
    latency: float | None = None,
    recording: Any = None,
) -> dict[str, Any]:
    """A bundle of one thread of a PostgresSaver database: its rows from one read-only snapshot
    in a SQLite file in PostgresSaver's schema (read by replaylens.sources like the live
    database), the same rows byte for byte as COPY sends them, and the derived documents."""
    from replaylens.sources import open_source

    source = open_source(dsn)
    stem = "postgres"
    try:
        if getattr(source, "kind", "") != "postgres":
            raise BundleError(f"{source.label}: is not a Postgres database.")
        label = source.label
        with tempfile.TemporaryDirectory(prefix="replaylens-bundle-") as tmp:
            work = Path(tmp)
            (work / "raw").mkdir()
            taken = postgres_thread_snapshot(source, thread_id, work / f"{stem}.db", work / "raw")
            notes = list(source.notes)
            source.close()
            files = [*taken.pop("raw"), f"{stem}.db"]
            return _derive_and_zip(
                work, files, stem, thread_id, effects, out, latency=latency, recording=recording,
                manifest={
                    "database": label,  # the DSN without its password
                    "backend": "postgres",
                    **taken,
                    "notes": notes + [
                        f"{stem}.db holds the thread's rows of checkpoints, checkpoint_blobs and checkpoint_writes "
                        f"in PostgresSaver's own schema (JSONB as the server's text of it), read in one "
                        f"{taken['isolation']} transaction at {taken['snapshot_at']}. raw/<table>.pgcopy are the same "
                        "rows from the same snapshot as the server sent them (COPY ... TO STDOUT, FORMAT binary, "
                        "ordered by primary key), byte for byte; `COPY <table> FROM '<file>' (FORMAT binary)` "
                        "loads them into a table of the same columns.",
                    ],
                },
            )  # fmt: skip
    finally:
        source.close()


# -- reading a bundle: the zip is not trusted until every byte of it matched ------------------
MAX_ENTRIES = 64
"""A bundle replaylens writes holds about ten files."""
MAX_MANIFEST_BYTES = 4 * 2**20
MAX_NAME_DEPTH = 4
MAX_RATIO = 200
"""Inflated size per compressed byte past which a large entry is a zip bomb, not a database
(a SQLite file or a log compresses tens of times; zeros a thousand times)."""
RATIO_FROM = 16 * 2**20
MAX_BYTES = 64 * 2**30
"""Total inflated size a bundle may have; the free space of the temporary folder is checked
too, before anything is written."""
_HEX64 = frozenset("0123456789abcdef")
CHECKSUM_NOTE = (
    "A bundle's sha256 is a checksum, not a signature: it shows the files are those its "
    "manifest lists, not who made them (whoever rewrites a file can rewrite the manifest too). "
    "Cite the bundle's own sha256 in the write-up and keep a copy where it cannot be changed."
)


def _name_problem(name: object) -> str | None:
    """Why an entry or manifest name cannot be a file of the bundle (None: it can)."""
    if not isinstance(name, str) or not name:
        return "is not a file name"
    if "\x00" in name or "\\" in name or any(ord(c) < 32 for c in name):
        return "holds a NUL, a backslash or a control character"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "is an absolute path"
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "has an empty, '.' or '..' part"
    if len(parts) > MAX_NAME_DEPTH:
        return f"is nested more than {MAX_NAME_DEPTH} folders deep"
    return None


def _bad(p: Path, what: str) -> BundleError:
    return BundleError(f"{p}: {what}; it is not opened.")


def _check_entries(p: Path, infos: list[zipfile.ZipInfo]) -> dict[str, zipfile.ZipInfo]:
    """The zip's entries by name, after refusing too many, odd names, duplicates and a name
    that is both a file and a folder."""
    if len(infos) > MAX_ENTRIES:
        raise _bad(p, f"the zip holds {len(infos):,} entries, more than a bundle's {MAX_ENTRIES}")
    by_name: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        why = _name_problem(info.filename)
        if why is not None or info.is_dir():
            raise _bad(p, f"the zip entry {info.filename!r} {why or 'is a folder'}")
        if info.filename in by_name:  # unzip reads the first, zipfile the last: never guess
            raise _bad(p, f"the zip holds {info.filename!r} twice")
        by_name[info.filename] = info
    for name in by_name:
        for i in range(1, name.count("/") + 1):
            folder = name.rsplit("/", i)[0]
            if folder in by_name:
                raise _bad(p, f"{folder!r} is both a file and a folder in the zip")
    return by_name


def _read_manifest(p: Path, zf: zipfile.ZipFile, info: zipfile.ZipInfo | None) -> dict[str, Any]:
    if info is None:
        raise BundleError(f"{p}: has no {MANIFEST}; it is not a replaylens bundle.")
    if info.file_size > MAX_MANIFEST_BYTES:
        raise _bad(
            p, f"its {MANIFEST} is {info.file_size:,} bytes, more than {MAX_MANIFEST_BYTES:,}"
        )
    try:
        with zf.open(info) as fh:
            raw = fh.read(MAX_MANIFEST_BYTES + 1)
        if len(raw) > MAX_MANIFEST_BYTES:
            raise _bad(p, f"its {MANIFEST} inflates past {MAX_MANIFEST_BYTES:,} bytes")
        manifest = json.loads(raw)
    except BundleError:
        raise
    except RecursionError:
        raise _bad(p, f"its {MANIFEST} is nested too deeply") from None
    except (ValueError, OSError, zipfile.BadZipFile, NotImplementedError) as exc:
        raise BundleError(
            f"{p}: has no readable {MANIFEST} ({type(exc).__name__}); it is not a replaylens bundle."
        ) from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise BundleError(f"{p}: {MANIFEST} lists no files.")
    return manifest


def _check_manifest(
    p: Path, manifest: dict[str, Any], entries: dict[str, zipfile.ZipInfo]
) -> dict[str, tuple[str, int]]:
    """Every file the manifest lists (name -> (sha256, bytes)), each a well-formed entry of
    the zip of the declared size; the snapshot and the effects log among them."""
    listed: dict[str, tuple[str, int]] = {}
    for name, info in manifest["files"].items():
        why = _name_problem(name)
        if why is not None:
            raise _bad(p, f"the manifest names {name!r}, which {why} (outside the bundle)")
        digest = info.get("sha256") if isinstance(info, dict) else None
        size = info.get("bytes") if isinstance(info, dict) else None
        if not (isinstance(digest, str) and len(digest) == 64 and set(digest) <= _HEX64):
            raise _bad(p, f"the manifest gives {name!r} no sha256")
        if type(size) is not int or size < 0:
            raise _bad(p, f"the manifest gives {name!r} no size in bytes")
        if name not in entries:
            raise BundleError(
                f"{p}: {name} is in the manifest but not in the zip; it is not opened."
            )
        packed = max(1, entries[name].compress_size)
        if size > RATIO_FROM and size / packed > MAX_RATIO:
            raise _bad(
                p,
                f"{name} would inflate {size // packed:,} times ({packed:,} to {size:,} bytes), a zip bomb",
            )
        if entries[name].file_size != size:
            raise _bad(
                p,
                f"{name} is {entries[name].file_size:,} bytes in the zip, the manifest says {size:,}",
            )
        listed[name] = (digest, size)
    extra = sorted(set(entries) - set(listed) - {MANIFEST})
    if extra:
        raise _bad(p, f"the zip holds {extra[0]!r}, which the manifest does not list")
    for key in ("snapshot", "effects"):
        value = manifest.get(key)
        if value is None and key == "effects":
            continue
        if value not in listed:
            raise _bad(
                p, f"the manifest's {key} ({str(value)[:80]!r}) is not one of the files it lists"
            )
    return listed


def _extract(p: Path, zf: zipfile.ZipFile, name: str, digest: str, size: int, folder: Path) -> None:
    """One entry into the private folder: a new file (never through a link), at most `size`
    bytes, hashed while written; refused unless the digest is the manifest's."""
    target = folder.joinpath(*name.split("/"))
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    h = hashlib.sha256()
    written = 0
    with zf.open(name) as fin, os.fdopen(os.open(target, flags, 0o600), "wb") as fout:
        while chunk := fin.read(CHUNK):
            written += len(chunk)
            if written > size:
                raise _bad(p, f"{name} inflates past the {size:,} bytes its manifest gives")
            h.update(chunk)
            fout.write(chunk)
    got = h.hexdigest()
    if written != size or got != digest:
        raise BundleError(
            f"{p}: {name} does not match its sha256 in the manifest ({got[:12]}… against "
            f"{digest[:12]}…): the bundle was changed after it was made; it is not opened."
        )


@dataclass
class OpenedBundle:
    """An extracted, verified bundle; `close()` removes the private folder."""

    folder: Path
    db: Path
    effects: Path | None
    manifest: dict[str, Any]
    _tmp: tempfile.TemporaryDirectory[str]
    path: Path | None = None
    sha256: str = ""
    """The bundle zip's own sha256: what a write-up cites."""

    def close(self) -> None:
        self._tmp.cleanup()

    def citation(self) -> str:
        """`<zip> (sha256 <hex>)`, for reports and notes."""
        return f"{self.path} (sha256 {self.sha256})"


def is_bundle(path: str | Path) -> bool:
    p = Path(path)
    if p.suffix.lower() != ".zip" or not p.is_file():
        return False
    try:
        with zipfile.ZipFile(p) as zf:
            return any(i.filename == MANIFEST for i in zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def open_bundle(path: str | Path) -> OpenedBundle:
    """Verify a bundle and extract it into a private temporary folder.

    Before anything is inflated: at most MAX_ENTRIES entries, each name a plain relative
    path (no '.', '..', NUL, backslash, absolute path, folder entry, duplicate or name that is
    also a folder), the manifest at most MAX_MANIFEST_BYTES, every file it lists (the
    snapshot and the effects log included) an entry of the declared size, no entry it does
    not list, and the total within the cap and the free space. Each file is then hashed as
    it is written, never past its declared size; anything wrong is one sentence and the
    folder is removed. The zip's own sha256 is computed for citing."""
    p = Path(path)
    try:
        zf = zipfile.ZipFile(p)
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        raise BundleError(f"{p}: is not a readable zip file ({type(exc).__name__}).") from None
    tmp = tempfile.TemporaryDirectory(prefix="replaylens-bundle-")
    folder = Path(tmp.name)
    os.chmod(folder, 0o700)
    try:
        with zf:
            entries = _check_entries(p, zf.infolist())
            manifest = _read_manifest(p, zf, entries.get(MANIFEST))
            listed = _check_manifest(p, manifest, entries)
            total = sum(size for _, size in listed.values())
            if total > MAX_BYTES:
                raise _bad(
                    p, f"its files inflate to {total:,} bytes, more than the {MAX_BYTES:,} allowed"
                )
            free = shutil.disk_usage(folder).free
            if total > free:
                raise _bad(
                    p,
                    f"its files inflate to {total:,} bytes and the temporary folder has {free:,} free",
                )
            for name, (digest, size) in listed.items():
                _extract(p, zf, name, digest, size, folder)
    except BundleError:
        tmp.cleanup()
        raise
    except (
        OSError,
        zipfile.BadZipFile,
        EOFError,
        NotImplementedError,
        RuntimeError,
        ValueError,
    ) as exc:
        tmp.cleanup()  # zlib's error, a truncated zip, an encrypted entry: one sentence
        raise BundleError(f"{p}: cannot be read as a bundle ({type(exc).__name__}).") from None
    except BaseException:
        tmp.cleanup()
        raise
    db = folder.joinpath(*str(manifest["snapshot"]).split("/"))
    effects = folder.joinpath(*manifest["effects"].split("/")) if manifest.get("effects") else None
    opened = OpenedBundle(folder, db, effects, manifest, tmp, p, sha256_file(p))
    note = {"bundle": str(p.resolve()), "sha256": opened.sha256,
            "files": {name: digest for name, (digest, _) in listed.items()}}  # fmt: skip
    (folder / BUNDLE_NOTE).write_text(
        json.dumps(note)
    )  # for the pages: what they show came from it
    return opened


BUNDLE_NOTE = "replaylens-bundle.json"
"""Written by open_bundle into its private folder, beside the verified snapshot."""


def bundle_of(db: Path) -> dict[str, Any] | None:
    """The bundle a served database was verified from ({"bundle", "sha256", "files"}), or
    None. Only a folder open_bundle made counts: named `replaylens-bundle-*` in the temporary
    folder, this user's and private, so a note planted beside other evidence shows nothing."""
    folder = Path(db).parent
    try:
        st = folder.lstat()
        if (
            folder.parent.resolve() != Path(tempfile.gettempdir()).resolve()
            or not folder.name.startswith("replaylens-bundle-")
            or st.st_uid != os.geteuid()
            or st.st_mode & 0o077
        ):
            return None
        raw = (folder / BUNDLE_NOTE).read_bytes()[:MAX_MANIFEST_BYTES]
        note = json.loads(raw)
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict) or not isinstance(note.get("sha256"), str):
        return None
    return note
