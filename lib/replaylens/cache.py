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
  stale status is never shown;
- the source's *change marks* when it has them (SQLite: where each table's rowids ended
  when the statuses were saved). With them the next run asks the database which threads
  gained or replaced a row since, one short range read, instead of reading 100,000
  threads' writes keys; the entries of those threads are dropped before anything else, so
  even a run cut short never leaves a changed thread's old status under marks that would
  hide the change. Marks that no longer hold (a marked row deleted) mean every key is
  checked again, as without marks.

The file lives in `REPLAYLENS_CACHE_DIR` (default the platform's user cache folder,
`~/.cache/replaylens` on Linux), never next to the database and never inside a folder of
evidence. It is written to a temporary file and renamed over the old one under an advisory
lock, so two processes never leave half a file; a file that cannot be read is discarded
with a note.

A cache is a file someone could have put there, so it is trusted only as far as it must
be: the folder and the file must belong to this user and be writable by nobody else (a
shared folder's file from another user is ignored, with a note), the file must be a
regular file (opened without following a link, so a FIFO or `/dev/zero` cannot hang or
fill memory), at most `MAX_BYTES`, and of the exact shape this version writes (anything
else is discarded with a note). The database's *content stamp* (for SQLite the header's
file change counter and page count, and the WAL's salts) is stored with the statuses: a
file replaced in place under the same name and inode (`cp`) has another stamp, and every
status is derived again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from replaylens import settings
from replaylens._bulk import collector_paused

if TYPE_CHECKING:
    from replaylens.sources import ThreadIndexRow

CACHE_ENV = "REPLAYLENS_CACHE_DIR"
FORMAT = 4
"""Bumped whenever the stored fields or their meaning change (4: a Pregel built on its own
channels whose last step wrote a channel no node is known to read is `unknown`, not `completed`)."""
MAX_BYTES = 512 * 2**20
"""Largest cache file read: 100,000 threads take about 20 MB."""


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


Entry = tuple[Any, ...]
"""(checkpoint id, writes key, status, latest step, time, pending tasks) of one thread."""


class CachedStatus(NamedTuple):
    """What the Threads page shows of a thread once its latest checkpoint is derived."""

    status: str
    latest_step: int | None
    updated_at: str | None
    pending: tuple[str, ...]


def _version() -> str:
    from replaylens import __version__

    return str(__version__)


def _untrusted(st: os.stat_result, what: str, path: Path) -> str | None:
    """Why a cache file or folder must not be trusted (None: it may be)."""
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return f"The status cache {what} {path} belongs to another user (uid {st.st_uid}); it is ignored."
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"The status cache {what} {path} is writable by other users; it is ignored."
    return None


class StatusCache:
    """The statuses of one database's threads, keyed by latest checkpoint id and writes key."""

    def __init__(
        self,
        database_key: str,
        directory: Path | None = None,
        *,
        content: Callable[[], str | None] | None = None,
    ) -> None:
        self.directory = directory if directory is not None else cache_dir()
        self._content_of = content
        self._content: str | None = None  # the database's content stamp the entries are for
        digest = hashlib.sha256(f"{FORMAT}\0{_version()}\0{database_key}".encode()).hexdigest()[:32]
        self.path = self.directory / f"statuses-{digest}.json"
        self.notes: list[str] = []
        self._entries: dict[str, Entry] | None = None
        self._marks: dict[str, list[Any]] | None = None
        self._stamp: tuple[int, int, int] | None = None  # the file as loaded: skip re-reading it
        self._dirty: dict[str, Entry | None] = {}  # None: the entry is dropped
        self._lock = threading.RLock()  # the dashboard's background job and its pages share one

    # -- reading ---------------------------------------------------------------------
    def _load(self) -> dict[str, Entry]:
        with self._lock:
            if self._entries is not None and self._content_of is not None:
                if self._content_of() != self._content:  # replaced in place since: start over
                    self._entries, self._dirty = None, {}
            if self._entries is None:
                self._content = self._content_of() if self._content_of is not None else None
                self._entries, self._marks, self._stamp = self._read_file()
            return self._entries

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _read_file(
        self,
    ) -> tuple[dict[str, Entry], dict[str, list[Any]] | None, tuple[int, int, int] | None]:
        """The entries, the change marks and the file's stamp (inode, size, mtime)."""
        try:
            raw, stamp = self._read_trusted()
        except FileNotFoundError:
            return {}, None, None
        except OSError as exc:
            self.notes.append(
                f"The status cache {self.path} cannot be read ({exc.strerror}); statuses are derived."
            )
            return {}, None, None
        if raw is None:
            return {}, None, None
        with collector_paused():  # a list per thread, no cycles (see replaylens._bulk)
            parsed = _parse(raw)
        if parsed is None:
            self.notes.append(
                f"The status cache {self.path} was damaged and has been discarded (it is not "
                "what this version writes); every status is derived again."
            )
            with contextlib.suppress(OSError):
                self.path.unlink()
            return {}, None, None
        if parsed[2] != self._content:  # another database under the same name and inode
            return {}, None, stamp
        return parsed[0], parsed[1], stamp

    def _folder_refused(self) -> str | None:
        """Why the cache folder must not be used (None: it may)."""
        try:
            st = os.lstat(self.directory)
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return f"The status cache folder {self.directory} is not a folder (a link or a file); it is ignored."
        return _untrusted(st, "folder", self.directory)

    def _read_trusted(self) -> tuple[bytes | None, tuple[int, int, int] | None]:
        """The file's bytes and stamp, read only from a regular file of this user that nobody
        else can write, opened without following a link and without blocking; (None, None)
        with a note otherwise."""
        refused = self._folder_refused()
        if refused:
            self.notes.append(refused)
            return None, None
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self.path, flags | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            self.notes.append(
                f"The status cache {self.path} cannot be opened as a plain file ({exc.strerror}); it is ignored."
            )
            return None, None
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fd)
            why = (
                None
                if stat.S_ISREG(st.st_mode)
                else f"The status cache {self.path} is not a regular file; it is ignored."
            ) or _untrusted(st, "file", self.path)
            if why is None and st.st_size > MAX_BYTES:
                why = f"The status cache {self.path} is larger than {MAX_BYTES // 2**20} MiB; it is ignored."
            if why is not None:
                self.notes.append(why)
                return None, None
            raw = fh.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            self.notes.append(
                f"The status cache {self.path} grew past {MAX_BYTES // 2**20} MiB; it is ignored."
            )
            return None, None
        return raw, (st.st_ino, st.st_size, st.st_mtime_ns)

    @property
    def marks(self) -> dict[str, list[Any]] | None:
        """The change marks the file was saved with (None: every key must be checked)."""
        self._load()
        return self._marks

    def drop(self, thread_ids: Iterable[str]) -> None:
        """Forget these threads' statuses (they changed): gone from the file at the next save."""
        with self._lock:
            for tid in thread_ids:
                self._dirty[tid] = None

    def matching(
        self, threads: Iterable[ThreadIndexRow], keys: dict[str, str]
    ) -> tuple[dict[str, Entry], list[ThreadIndexRow]]:
        """Split the thread list's rows into those whose stored status still holds (their
        entries, by thread id) and the others, in order.

        A stored status holds when the row's latest checkpoint id is the stored one and so
        is its writes key: the row's own, else `keys`' for it. A thread in neither keeps its
        stored key: the caller asked the keys of every thread that may have changed (all
        of them without change marks; with marks, the threads with rows since)."""
        with self._lock:
            entries, dirty = self._load(), self._dirty
            hits: dict[str, Entry] = {}
            rest: list[ThreadIndexRow] = []
            for r in threads:
                tid = r.thread_id
                entry = dirty[tid] if tid in dirty else entries.get(tid)
                if (
                    entry is None
                    or r.latest_checkpoint_id is None
                    or entry[0] != r.latest_checkpoint_id
                ):
                    rest.append(r)
                    continue
                key = r.writes_key if r.writes_key is not None else keys.get(tid, entry[1])
                if key == entry[1]:
                    hits[tid] = entry
                else:
                    rest.append(r)
            return hits, rest

    def provisional(
        self, threads: Iterable[ThreadIndexRow]
    ) -> tuple[dict[str, CachedStatus], float | None]:
        """The stored statuses of the rows whose latest checkpoint id is still the stored one,
        before anything else is checked (their writes may have changed since), and when the
        file holding them was saved (epoch seconds). What a page may show at once, marked
        "as of <time>, re-checking", until `matching` or a derivation has checked each."""
        with self._lock:
            entries = self._load()
            saved = self._stamp[2] / 1e9 if self._stamp is not None else None
            out: dict[str, CachedStatus] = {}
            for r in threads:
                entry = entries.get(r.thread_id)
                if (
                    entry is not None
                    and r.latest_checkpoint_id is not None
                    and entry[0] == r.latest_checkpoint_id
                ):
                    out[r.thread_id] = CachedStatus(entry[2], entry[3], entry[4], tuple(entry[5]))
            return out, saved  # fmt: skip

    def __len__(self) -> int:
        return len(self._load())

    # -- writing ---------------------------------------------------------------------
    def put(self, thread_id: str, checkpoint_id: str, writes_key: str, value: CachedStatus) -> None:
        with self._lock:
            self._dirty[thread_id] = (
                checkpoint_id,
                writes_key,
                value.status,
                value.latest_step,
                value.updated_at,
                tuple(value.pending),
            )

    def save(self, marks: dict[str, list[Any]] | None = None) -> None:
        """Merge the new entries into the file: temporary file + rename, under a lock.

        `marks` are the source's change marks taken before this run read anything; they are
        stored only if every entry kept is right as of them (the caller's promise), and two
        processes' marks merge to the older of each, so a row neither has seen is always
        after both. Another process may have saved meanwhile; its entries are kept unless
        this one has a newer answer for the same thread. A cache that cannot be written is
        a note, not an error: the statuses shown are right either way.
        """
        with self._lock:
            if not self._dirty and marks == self.marks:
                return
            try:
                refused = self._folder_refused()
                if refused:
                    if refused not in self.notes:
                        self.notes.append(refused)
                    return
                self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
                with self._locked():
                    self._load()
                    if self._stamp == self._file_stamp():  # nobody saved since this one loaded
                        merged, kept = self._entries or {}, marks
                    else:
                        merged, on_disk, _stamp = self._read_file()
                        kept = _older_marks(marks, on_disk)
                    for tid, entry in self._dirty.items():
                        if entry is None:
                            merged.pop(tid, None)
                        else:
                            merged[tid] = entry
                    self._write_atomically(merged, kept)
            except OSError as exc:
                self.notes.append(
                    f"The status cache {self.path} cannot be written ({exc.strerror or exc})."
                )
                return
            self._entries, self._marks, self._stamp = merged, kept, self._file_stamp()
            self._dirty = {}

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        lock_path = self.path.with_suffix(".lock")
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        with os.fdopen(os.open(lock_path, flags, 0o600), "r+b") as fh:  # never through a link
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

    def _write_atomically(
        self, entries: dict[str, Entry], marks: dict[str, list[Any]] | None
    ) -> None:
        data = orjson.dumps(
            {"format": FORMAT, "content": self._content, "entries": entries, "marks": marks}
        )
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


def _older_marks(
    ours: dict[str, list[Any]] | None, theirs: dict[str, list[Any]] | None
) -> dict[str, list[Any]] | None:
    """Marks right for both processes' entries: per table the smaller rowid (None if either
    has none, or they name different tables)."""
    if ours is None or theirs is None or set(ours) != set(theirs):
        return None
    return {t: min(ours[t], theirs[t], key=lambda m: m[0] if m and isinstance(m[0], int) else -1)
            for t in ours}  # fmt: skip


def _is_entry(e: Any) -> bool:
    """(checkpoint id, writes key, status, latest step, time, pending node names)."""
    return (
        type(e) is list and len(e) == 6 and type(e[0]) is str and type(e[1]) is str
        and type(e[2]) is str and (e[3] is None or type(e[3]) is int)
        and (e[4] is None or type(e[4]) is str)
        and type(e[5]) is list and all(type(n) is str for n in e[5])
    )  # fmt: skip


def _parse(
    raw: bytes,
) -> tuple[dict[str, Entry], dict[str, list[Any]] | None, str | None] | None:
    """The entries, marks and content stamp of a cache file, or None when it is not exactly
    what this version writes (any other shape is discarded, never half used)."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if (
        not isinstance(doc, dict)
        or doc.get("format") != FORMAT
        or not isinstance(doc.get("entries"), dict)
        or not (doc.get("content") is None or isinstance(doc.get("content"), str))
    ):
        return None
    entries = doc["entries"]
    if not all(_is_entry(e) for e in entries.values()):
        return None
    marks = doc.get("marks")
    if marks is not None and not (
        isinstance(marks, dict)
        and all(
            isinstance(m, list) and m and all(isinstance(v, int | str) for v in m)
            for m in marks.values()
        )
    ):
        return None
    # Tuples of plain values: the cycle collector stops tracking them at its first look,
    # where 100,000 lists would be walked by every full collection while the page runs.
    return (
        {k: (e[0], e[1], e[2], e[3], e[4], tuple(e[5])) for k, e in entries.items()},
        marks,
        doc.get("content"),
    )


def for_source(
    source: Any, *, enabled: bool = True, evidence: Iterable[Path] = ()
) -> StatusCache | None:
    """The status cache of an open source, or None when turned off or not allowed.

    The cache folder must not lie in a folder of evidence (the database's own folder, or
    a folder the dashboard serves), unless it is the platform's own cache folder: nothing
    is written among the evidence.
    """
    if not enabled:
        return None
    key_of = getattr(source, "cache_identity", None)
    if key_of is None:
        return None
    cache = StatusCache(key_of(), content=getattr(source, "content_stamp", None))
    db_path = getattr(source, "path", None)
    folders = [*evidence, *([db_path.parent] if isinstance(db_path, Path) else [])]
    with contextlib.suppress(OSError):
        here = cache.directory.resolve()
        if here != default_cache_dir().resolve():
            for folder in folders:
                if here.is_relative_to(folder.resolve()):
                    where = (
                        "at the database's own folder"
                        if here == folder.resolve()
                        else f"inside a folder of evidence ({folder})"
                    )
                    source.notes.append(
                        f"{CACHE_ENV} points {where}; the status cache is off so that nothing is "
                        "written among the evidence."
                    )
                    return None
    return cache
