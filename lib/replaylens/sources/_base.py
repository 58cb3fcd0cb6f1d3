"""What every checkpoint source (SQLite, Postgres) hands to the model.

A source reads rows and turns each checkpoint blob into a *skeleton*: ids, metadata,
timestamp, channel versions and the few small channel values that decide which tasks
are due (`__pregel_tasks`, `branch:to:*`, `join:*`). Channel values proper stay in the
database until someone asks for them (`read_channel_values`), because an agent thread
can hold a gigabyte of state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import orjson

from replaylens.channels import EDGE_PREFIX, JOIN_PREFIX, TASKS
from replaylens.decode import DecodeResult, decode_typed


# Channels whose values the task derivation needs; everything else is decoded lazily.
def is_scheduling_channel(name: str) -> bool:
    """Channels whose values decide which task is due (decoded for every checkpoint): Send
    packets, branch and join barriers, the input, and 0.2's `branch:a:cond::then` barriers."""
    return (
        name == TASKS
        or name.startswith((EDGE_PREFIX, JOIN_PREFIX))
        or name == "__start__"
        or (name.startswith("branch:") and name.endswith("::then"))
    )


@dataclass
class CheckpointRecord:
    """One row of the checkpoints table, with its blob reduced to a skeleton."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    metadata: dict[str, Any]
    ts: str | None = None
    v: int | None = None
    channel_versions: dict[str, Any] = field(default_factory=dict)
    versions_seen: dict[str, dict[str, Any]] = field(default_factory=dict)
    updated_channels: list[str] | None = None
    # Send packets of checkpoint formats v1 to v3 (LangGraph 0.2 to 0.4): a top-level list,
    # before they moved into the `__pregel_tasks` channel. None when the key is absent.
    pending_sends: list[Any] | None = None
    present_channels: frozenset[str] = frozenset()
    scheduling_values: dict[str, Any] = field(default_factory=dict)
    blob_type: str | None = None
    blob_size: int = 0
    error: str | None = None  # set when the blob could not be read; the rest still loads

    @property
    def step(self) -> int | None:
        step = self.metadata.get("step")
        return step if isinstance(step, int) else None

    @property
    def source(self) -> str | None:
        src = self.metadata.get("source")
        return src if isinstance(src, str) else None


@dataclass
class WriteRecord:
    """One row of the writes table. Small special values are decoded at once, others lazily."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    task_id: str
    task_path: str
    idx: int
    channel: str
    type: str | None
    raw: bytes | None = field(default=None, repr=False)
    aes_key: bytes | None = field(default=None, repr=False)
    _decoded: DecodeResult | None = field(default=None, repr=False)

    def decoded(self) -> DecodeResult:
        if self._decoded is None:
            self._decoded = decode_typed(self.type, self.raw, aes_key=self.aes_key)
        return self._decoded

    @property
    def value(self) -> Any:
        return self.decoded().value

    @property
    def size(self) -> int:
        return len(self.raw) if self.raw is not None else 0


class ThreadIndexRow(NamedTuple):
    """What the thread list shows before anything is decoded (a tuple: the list makes one
    per thread, and a frozen dataclass costs four times as much to build)."""

    thread_id: str
    checkpoints: int
    namespaces: int
    latest_checkpoint_id: str | None
    latest_metadata: dict[str, Any]  # may be left empty: the latest checkpoint's rows carry it
    latest_step: int | None = None  # metadata.step of the latest root checkpoint, read in SQL
    latest_ts: str | None = None  # when the latest root checkpoint was written, if SQL read it
    writes_key: str | None = (
        ""  # the latest checkpoint's writes: count (and largest rowid on SQLite);
    )
    # None: not read yet (the SQLite thread list leaves it to `writes_keys`)

    @property
    def updated_at(self) -> str | None:
        """When the latest root checkpoint was written: as read, else the time inside its id."""
        if self.latest_ts is not None:
            return self.latest_ts
        from replaylens.times import checkpoint_id_time

        return checkpoint_id_time(self.latest_checkpoint_id)


ReopenSpec = tuple[str, bytes | None]
"""What `open_source` needs to open the same database in another process: the path or
DSN, and the decryption key (handed over through a pipe, never a command line)."""

ChangeMarks = dict[str, list[Any]]
"""Per table, the largest rowid and that row's key (see `SqliteSource.change_marks`)."""


@dataclass
class ThreadRows:
    checkpoints: list[CheckpointRecord]
    writes: list[WriteRecord]
    problems: list[str] = field(default_factory=list)


class CheckpointSource(Protocol):
    """The read-only interface the model and analysis are built on."""

    label: str
    kind: str
    notes: list[str]

    def identity(self) -> tuple[Any, ...]: ...

    def cache_identity(self) -> str:
        """Names the database across runs (not its version): the persistent status cache's file."""
        ...

    def writes_keys(self, latest: dict[str, str]) -> dict[str, str]:
        """The writes key of each thread's latest checkpoint (thread id -> checkpoint id)."""
        ...

    def thread_version(self, thread_id: str) -> tuple[Any, ...]:
        """Changes when the thread gains a checkpoint or a write: what a live page polls."""
        ...

    def reopen_spec(self) -> ReopenSpec | None:
        """How another process opens this same database (None: it cannot, e.g. a private
        copy that lives in this process's temporary folder)."""
        ...

    def change_marks(self) -> ChangeMarks | None:
        """Where the tables' rows end now, for `changed_since` in a later run (JSON-able);
        None when this source cannot tell which threads changed."""
        ...

    def changed_since(self, marks: ChangeMarks) -> set[str] | None:
        """The threads with a row added or replaced since `marks` were taken; None when the
        marks no longer hold (rows deleted or renumbered, another file) or so much changed
        that asking every thread is cheaper: the caller then checks every thread."""
        ...

    def thread_index(self) -> list[ThreadIndexRow]: ...

    def orphan_write_tasks(self) -> list[tuple[str, str, str, int, int]]:
        """(thread id, namespace, task id, rows, bytes) of the writes whose checkpoint never landed, in
        one read: the incident fast path and storage forensics both ask it."""
        ...

    def read_thread(self, thread_id: str) -> ThreadRows: ...

    def read_latest(
        self, thread_ids: list[str] | None = None, *, known: dict[str, str] | None = None
    ) -> ThreadRows:
        """The latest root checkpoint of each thread and its writes. `known` maps thread ids to
        their latest checkpoint ids when the caller already has them (from thread_index)."""
        ...

    def read_channel_values(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str
    ) -> dict[str, DecodeResult]: ...

    def close(self) -> None: ...


def key_fingerprint(aes_key: bytes | None) -> str:
    """Which key decrypts the blobs (a hash, never the key): statuses differ with and without it."""
    if aes_key is None:
        return "no-key"
    import hashlib

    return hashlib.sha256(b"replaylens-cache\0" + aes_key).hexdigest()[:16]


def _loads_json(raw: Any) -> Any:
    """orjson first (ten thousand metadata rows on the Threads page); the standard library
    for what orjson refuses but JSON-in-the-wild holds (NaN, integers beyond 64 bits)."""
    data = bytes(raw) if isinstance(raw, memoryview) else raw
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        text = data.decode() if isinstance(data, bytes) else str(data)
        return json.loads(text)


MAX_METADATA_DEPTH = 64
"""LangGraph's metadata is a flat object with small nested values; deeper is not its doing."""
INT64 = 2**63


class _MetadataTooDeep(ValueError):
    pass


class TooDeepJson:
    """What a JSON loader returns for a value nested too deeply to parse (Postgres rows):
    the row still arrives, and parse_metadata says which one was bad."""

    def __repr__(self) -> str:
        return "<JSON nested too deeply>"


def tolerant_json_loads(data: Any) -> Any:
    """json loads for a database driver: a too-deep value is a TooDeepJson, not an error
    that fails the whole query (psycopg parses every jsonb cell of a result)."""
    try:
        return _loads_json(data)
    except RecursionError:
        return TooDeepJson()


def _digits(n: int) -> int:
    """How many decimal digits `n` has, without str() (which refuses beyond 4,300 digits)."""
    import math

    n = abs(n)
    if n == 0:
        return 1
    k = math.floor(math.log10(n))  # a float: may be one off either way near a power of ten
    if 10**k > n:
        k -= 1
    elif 10 ** (k + 1) <= n:
        k += 1
    return k + 1


def _sane(value: Any, depth: int, where: str, problems: list[str]) -> Any:
    """`value` with integers beyond 64 bits made into a marked string; deeper than
    MAX_METADATA_DEPTH raises. Such integers break orjson, pandas and Arrow downstream,
    and a `step` of 4,000 digits is no superstep number."""
    if depth > MAX_METADATA_DEPTH:
        raise _MetadataTooDeep
    if isinstance(value, bool) or value is None or isinstance(value, float | str):
        return value
    if isinstance(value, int):
        if -INT64 <= value < INT64:
            return value
        problems.append(
            f"{where}: metadata holds an integer of {_digits(value):,} digits; it is not used."
        )
        return f"<integer of {_digits(value):,} digits>"
    if isinstance(value, dict):
        return {k: _sane(v, depth + 1, where, problems) for k, v in value.items()}
    if isinstance(value, list):
        return [_sane(v, depth + 1, where, problems) for v in value]
    return value


def parse_metadata(raw: Any, where: str, problems: list[str]) -> dict[str, Any]:
    """Metadata is plain JSON in SQLite (JSONB in Postgres): tolerate junk, say where.

    One bad row (not JSON, nested 100,000 deep, a `step` of 4,000 digits) becomes one
    sentence in `problems` and empty metadata for that row; the rest of the file loads."""
    if raw is None:
        return {}
    if isinstance(raw, TooDeepJson):
        problems.append(
            f"{where}: metadata is nested too deeply to read; it is left out, the rest loads."
        )
        return {}
    try:
        value = raw if isinstance(raw, dict) else _loads_json(raw)
    except RecursionError:
        problems.append(
            f"{where}: metadata is nested too deeply to read; it is left out, the rest loads."
        )
        return {}
    except (ValueError, UnicodeDecodeError) as exc:
        problems.append(f"{where}: metadata is not valid JSON ({exc.__class__.__name__}).")
        return {}
    if not isinstance(value, dict):
        problems.append(f"{where}: metadata is not a JSON object.")
        return {}
    try:
        meta = _sane(value, 0, where, problems)
    except (_MetadataTooDeep, RecursionError):
        problems.append(
            f"{where}: metadata is nested deeper than {MAX_METADATA_DEPTH} levels; it is left out, the rest loads."
        )
        return {}
    step = meta.get("step")
    if step is not None and (not isinstance(step, int) or isinstance(step, bool)):
        if not (isinstance(step, str) and step.startswith("<integer of")):  # already said
            problems.append(
                f"{where}: its step is a {type(step).__name__}, not a superstep number; it is not used."
            )
        meta.pop("step")
    return meta
