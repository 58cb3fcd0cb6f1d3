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
from typing import Any, Protocol

import orjson

from replaylens.decode import DecodeResult, decode_typed


# Channels whose values the task derivation needs; everything else is decoded lazily.
def is_scheduling_channel(name: str) -> bool:
    return name == "__pregel_tasks" or name.startswith(("branch:to:", "join:")) or name == "__start__"


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


@dataclass(frozen=True)
class ThreadIndexRow:
    """What the thread list shows before anything is decoded."""

    thread_id: str
    checkpoints: int
    namespaces: int
    latest_checkpoint_id: str | None
    latest_metadata: dict[str, Any]  # may be left empty: the latest checkpoint's rows carry it


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

    def thread_index(self) -> list[ThreadIndexRow]: ...

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


def _loads_json(raw: Any) -> Any:
    """orjson first (ten thousand metadata rows on the Threads page); the standard library
    for what orjson refuses but JSON-in-the-wild holds (NaN, integers beyond 64 bits)."""
    data = bytes(raw) if isinstance(raw, memoryview) else raw
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        text = data.decode() if isinstance(data, bytes) else str(data)
        return json.loads(text)


def parse_metadata(raw: Any, where: str, problems: list[str]) -> dict[str, Any]:
    """Metadata is plain JSON in SQLite (JSONB in Postgres): tolerate junk, say where."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    try:
        value = _loads_json(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        problems.append(f"{where}: metadata is not valid JSON ({exc.__class__.__name__}).")
        return {}
    if not isinstance(value, dict):
        problems.append(f"{where}: metadata is not a JSON object.")
        return {}
    return value
