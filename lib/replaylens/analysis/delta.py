"""Values of `DeltaChannel` channels (LangGraph 1.2, beta), folded from the ancestors' writes.

A `DeltaChannel` stores no value in most checkpoints: `channel_values` holds a
`_DeltaSnapshot` every `snapshot_frequency` updates and nothing in between, and LangGraph
rebuilds the value by replaying the writes saved on the checkpoint's ancestors through
the channel's reducer (`DeltaChannel.replay_writes`, `get_delta_channel_history`). The
checkpoint metadata names such channels (`counters_since_delta_snapshot`).

The reducer is code and is not stored. Two are recognised from the data: message lists
(every element has an `id`, as `add_messages` needs) are folded by message id (a
message replaces the one with its id; a `RemoveMessage` removes it), other lists are
concatenated. The result is marked as folded and says how; a channel whose writes are not
lists is shown as its write history instead of an empty value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from replaylens.decode import DecodeResult, Placeholder
from replaylens.model import Checkpoint, Namespace, Thread

Fold = Literal["messages", "concat", "history"]
COUNTERS_KEY = "counters_since_delta_snapshot"


@dataclass
class FoldedValue:
    """How a delta channel's value was rebuilt, for the views (value shown beside the note)."""

    channel: str
    fold: Fold
    value: Any
    note: str
    history: list[dict[str, Any]] = field(default_factory=list)


def delta_channels(cp: Checkpoint) -> set[str]:
    counters = cp.record.metadata.get(COUNTERS_KEY)
    return {str(k) for k in counters} if isinstance(counters, dict) else set()


def thread_delta_channels(thread: Thread) -> set[str]:
    """Every channel any checkpoint of the thread names as a delta channel."""
    return {
        ch for ns in thread.namespaces.values() for c in ns.checkpoints for ch in delta_channels(c)
    }


def exit_delta_step(task_id: str, task_path: str, channel: str, delta: set[str]) -> int | None:
    """The superstep of a `DeltaChannel` write LangGraph saved on the loop's way out under
    durability exit, or None for any other write.

    Such writes are anchored on the checkpoint the run loaded (or on a stub it saved) under
    synthetic task ids (``pregel/_checkpoint.py``): the anchor's own superstep keeps its task
    path and puts the step in the id's first group (``exit_delta_task_id``:
    ``00000004-…``); later supersteps get ``ffffffff-…`` ids and a ``~~<step>~`` path prefix
    (``exit_delta_late_task_id``). They are the channel's values, not tasks."""
    if channel not in delta:
        return None
    head = task_id.partition("-")[0]
    if task_id.startswith("ffffffff-") and task_path.startswith("~~"):
        step = task_path[2:].partition("~")[0]
        return int(step) if step.isdigit() else None
    if len(head) == 8 and head.isdigit() and not task_path.startswith("~~"):
        return int(head)
    return None


def _snapshot(result: DecodeResult | None) -> tuple[bool, Any]:
    """(is there a stored value, the value) of a delta channel's blob at one checkpoint."""
    if result is None or result.error:
        return False, None
    value = result.value
    if isinstance(value, Placeholder) and value.kind == "delta":
        return True, value.payload
    return True, value  # a plain value: a thread migrated from a BinaryOperatorAggregate


def _message_id(item: Any) -> str | None:
    mid = item.get("id") if isinstance(item, dict) else getattr(item, "id", None)
    return mid if isinstance(mid, str) and mid else None


def _is_removal(item: Any) -> bool:
    kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
    return kind == "remove"


def _fold_messages(base: list[Any], writes: list[list[Any]]) -> list[Any]:
    out = list(base)
    where = {_message_id(m): i for i, m in enumerate(out)}
    for batch in writes:
        for item in batch:
            mid = _message_id(item)
            if _is_removal(item):
                out = [m for m in out if _message_id(m) != mid]
                where = {_message_id(m): i for i, m in enumerate(out)}
            elif mid in where:
                out[where[mid]] = item
            else:
                where[mid] = len(out)
                out.append(item)
    return out


def _recognise(base: Any, writes: list[Any]) -> Fold:
    values = ([base] if isinstance(base, list) and base else []) + writes
    if not all(isinstance(v, list) for v in writes) or not isinstance(base, list):
        return "history"
    items = [item for v in values for item in v]
    if (
        items
        and all(_message_id(item) is not None for item in items)
        and any(not isinstance(item, str | int | float) for item in items)
    ):
        return "messages"
    return "concat"


def fold_channel(ns: Namespace, cp: Checkpoint, channel: str, read: Any) -> FoldedValue:
    """Rebuild `channel` at `cp`: the newest snapshot on its lineage, then the writes saved
    on that checkpoint and every later ancestor (they made the next checkpoint), in order.

    `read(checkpoint) -> dict[str, DecodeResult]` reads one checkpoint's stored values."""
    lineage = ns.lineage(cp.checkpoint_id)
    base: Any = []
    start = 0
    where = "with no snapshot, from the thread's first write"
    for i in range(len(lineage) - 1, -1, -1):
        stored, value = _snapshot(read(lineage[i]).get(channel))
        if stored:
            base, start = value, i
            where = f"from the snapshot at step {lineage[i].step}"
            break
    history: list[dict[str, Any]] = []
    writes: list[Any] = []
    for anc in lineage[start:-1]:
        rows = sorted(
            (w for w in anc.writes if w.channel == channel),
            key=lambda w: (w.task_path, w.task_id, w.idx),
        )
        for w in rows:
            writes.append(w.value)
            history.append(
                {
                    "checkpoint_id": anc.checkpoint_id,
                    "step": anc.step,
                    "writer": anc.writer_of(w)[0],
                    "value": w.value,
                }
            )
    fold = _recognise(base, writes)
    counted = f"{len(writes)} write(s) {where}"
    if fold == "messages":
        return FoldedValue(
            channel,
            fold,
            _fold_messages(base, writes),
            f"folded ({counted}) by message id, as add_messages does: the reducer is not stored",
            history,
        )
    if fold == "concat":
        value = list(base)
        for batch in writes:
            value.extend(batch)
        return FoldedValue(
            channel,
            fold,
            value,
            f"folded ({counted}) by list concatenation, assumed: the reducer is not stored",
            history,
        )
    return FoldedValue(
        channel,
        fold,
        None,
        f"not folded: its writes are not lists, so the reducer cannot be recognised; "
        f"{counted}, shown as its write history",
        history,
    )


def state_values(source: Any, thread: Thread, cp: Checkpoint) -> dict[str, DecodeResult]:
    """`source.read_channel_values` with every delta channel folded (marked in `note`)."""
    cache: dict[str, dict[str, DecodeResult]] = {}

    def read(c: Checkpoint) -> dict[str, DecodeResult]:
        if c.checkpoint_id not in cache:
            cache[c.checkpoint_id] = source.read_channel_values(
                thread.thread_id, c.checkpoint_ns, c.checkpoint_id
            )
        return cache[c.checkpoint_id]

    values = dict(read(cp))
    ns = thread.namespaces.get(cp.checkpoint_ns)
    if ns is None:
        return values
    snapshots = {
        k for k, v in values.items() if isinstance(v.value, Placeholder) and v.value.kind == "delta"
    }
    for channel in sorted(delta_channels(cp) | snapshots):
        folded = fold_channel(ns, cp, channel, read)
        shown = (
            folded.value
            if folded.fold != "history"
            else [
                {"step": h["step"], "writer": h["writer"], "value": h["value"]}
                for h in folded.history
            ]
        )
        values[channel] = DecodeResult(shown, None, folded.note)
    return values
