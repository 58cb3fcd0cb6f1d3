"""The persistent status cache: thread statuses kept between runs, outside the evidence.

Deriving a thread's status means reading and walking its latest checkpoint blob (about
80 µs of Python a thread), so a database of 100,000 threads costs seconds on every
open. The status of a thread only changes when its latest root checkpoint or that
checkpoint's pending writes change, so a status is stored with exactly that key:

- one file per database, named by a hash of the database's identity (the resolved path
  and inode of a SQLite file, the redacted DSN of a Postgres database), the decryption
  key's fingerprint and the replaylens version (a new derivation never reads an old
  answer);
- per thread, the latest root checkpoint id and the *writes key* (how many writes that
  checkpoint has, and on SQLite the largest rowid among them, which moves when LangGraph
  replaces an error write in place); a thread whose key differs is derived again, so a
  stale status is never shown.

The file lives in `REPLAYLENS_CACHE_DIR` (default the platform's user cache folder,
`~/.cache/replaylens` on Linux), never next to the database and never inside it. It is
written to a temporary file and renamed over the old one under an advisory lock, so two
processes never leave half a file; a file that cannot be read is discarded with a note.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from replaylens import settings

CACHE_ENV = "REPLAYLENS_CACHE_DIR"
FORMAT = 1
"""Bumped whenever the stored fields or their meaning change."""


def default_cache_dir() -> Path:
    """The platform's user cache folder for replaylens (XDG on Linux)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "replaylens"
    if os.name == "nt":
        base = settings.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "replaylens" / "Cache"
    base = settings.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "replaylens"


def cache_dir() -> Path:
    """`REPLAYLENS_CACHE_DIR` if set, else the platform default."""
    raw = settings.get(CACHE_ENV)
    return Path(raw).expanduser() if raw else default_cache_dir()


@dataclass(frozen=True)
class CachedStatus:
    """What the Threads page shows of a thread once its latest checkpoint is derived."""

    status: str
    latest_step: int | None
    updated_at: str | None
    pending: tuple[str, ...]


def _version() -> str:
    from replaylens import __version__

    return str(__version__)


class StatusCache:
    """The statuses of one database's threads, keyed by latest checkpoint id and writes key."""

    def __init__(self, database_key: str, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else cache_dir()
        digest = hashlib.sha256(f"{FORMAT}\0{_version()}\0{database_key}".encode()).hexdigest()[:32]
        self.path = self.directory / f"statuses-{digest}.json"
        self.notes: list[str] = []
        self._entries: dict[str, list[Any]] | None = None
        self._dirty: dict[str, list[Any]] = {}
        self._lock = threading.RLock()  # the dashboard's background job and its pages share one

    # -- reading ---------------------------------------------------------------------
    def _load(self) -> dict[str, list[Any]]:
        with self._lock:
            if self._entries is None:
                self._entries = self._read_file()
            return self._entries

    def _read_file(self) -> dict[str, list[Any]]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self.notes.append(
                f"The status cache {self.path} cannot be read ({exc.strerror}); statuses are derived."
            )
            return {}
        entries = _parse(raw)
        if entries is None:
            self.notes.append(
                f"The status cache {self.path} was damaged and has been discarded; every status is derived again."
            )
            with contextlib.suppress(OSError):
                self.path.unlink()
            return {}
        return entries

    def get(
        self, thread_id: str, checkpoint_id: str | None, writes_key: str
    ) -> CachedStatus | None:
        """The stored status if the thread's latest checkpoint and writes are unchanged, else None."""
        if checkpoint_id is None:
            return None
        with self._lock:
            entry = self._dirty.get(thread_id) or self._load().get(thread_id)
        if entry is None or entry[0] != checkpoint_id or entry[1] != writes_key:
            return None
        return CachedStatus(entry[2], entry[3], entry[4], tuple(entry[5]))

    def __len__(self) -> int:
        return len(self._load())

    # -- writing ---------------------------------------------------------------------
    def put(self, thread_id: str, checkpoint_id: str, writes_key: str, value: CachedStatus) -> None:
        with self._lock:
            self._dirty[thread_id] = [
                checkpoint_id,
                writes_key,
                value.status,
                value.latest_step,
                value.updated_at,
                list(value.pending),
            ]

    def save(self) -> None:
        """Merge the new entries into the file: temporary file + rename, under a lock.

        Another process may have saved meanwhile; its entries are kept unless this one has
        a newer answer for the same thread. A cache that cannot be written is a note, not
        an error: the statuses shown are right either way.
        """
        with self._lock:
            if not self._dirty:
                return
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
                with self._locked():
                    merged = self._read_file()
                    merged.update(self._dirty)
                    self._write_atomically(merged)
            except OSError as exc:
                self.notes.append(
                    f"The status cache {self.path} cannot be written ({exc.strerror or exc})."
                )
                return
            self._entries = merged
            self._dirty = {}

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        lock_path = self.path.with_suffix(".lock")
        with open(lock_path, "a+b") as fh:
            try:
                import fcntl
            except ImportError:  # Windows: the rename alone keeps the file whole
                yield
                return
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def _write_atomically(self, entries: dict[str, list[Any]]) -> None:
        data = orjson.dumps({"format": FORMAT, "entries": entries})
        fd, tmp = tempfile.mkstemp(prefix=".statuses-", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _parse(raw: bytes) -> dict[str, list[Any]] | None:
    """The entries of a cache file, or None when it is not one this version wrote."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if (
        not isinstance(doc, dict)
        or doc.get("format") != FORMAT
        or not isinstance(doc.get("entries"), dict)
    ):
        return None
    entries = doc["entries"]
    for entry in entries.values():
        if not (
            isinstance(entry, list)
            and len(entry) == 6
            and isinstance(entry[0], str)
            and isinstance(entry[1], str)
            and isinstance(entry[2], str)
            and isinstance(entry[5], list)
        ):
            return None
    return entries


def for_source(source: Any, *, enabled: bool = True) -> StatusCache | None:
    """The status cache of an open source, or None when turned off or not allowed.

    The cache folder must not be the database's own folder: the evidence stays alone.
    """
    if not enabled:
        return None
    key_of = getattr(source, "cache_identity", None)
    if key_of is None:
        return None
    cache = StatusCache(key_of())
    db_path = getattr(source, "path", None)
    if isinstance(db_path, Path):
        with contextlib.suppress(OSError):
            if cache.directory.resolve() == db_path.resolve().parent:
                source.notes.append(
                    f"{CACHE_ENV} points at the database's own folder; the status cache is off so that "
                    "nothing is written next to the evidence."
                )
                return None
    return cache
