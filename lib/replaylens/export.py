"""A thread's whole history as one document: checkpoints, writes per task, effect lines with
their verdicts, and the resume plan. Like Temporal's "download event history".

Schema `replaylens.history/1` (JSON; NDJSON is the same records one per line):

- `header`: `schema`, `thread_id`, `database`, `effects_log` (path or null), `exported_at`
  (ISO-8601 UTC), `status` (as `replay --json`), `replaylens` (version).
- `checkpoints`: oldest first per namespace (root first), each with `checkpoint_id`,
  `checkpoint_ns`, `parent_checkpoint_id`, `step`, `source`, `ts`, `metadata`,
  `updated_channels`, `children`, `next` (the tasks due after it: `node`, `task_id`, `status`,
  `kind`, `derived`) and `writes_by_task` (task id -> its writes: `channel`, `idx`, `type`,
  `bytes`, and `value` for control channels such as `__error__` and `__interrupt__`, or for
  every channel with `values=True`).
- `orphan_writes`: writes whose checkpoint never landed (ignored by a resume).
- `effects`: every effect line of the thread as written (`line`, `thread_id`, `node`,
  `phase`, `ts`, optional keys), plus `verdict` (`kept`, `replays`, `restart`), `attempt`
  and `reason`. Empty without an effects log.
- `plan`: the `replay --json` document (reruns, reused, what-if per durability mode).

NDJSON records carry `"record"`: `header`, `checkpoint` (one per checkpoint, with its
`writes_by_task`), `orphan_write`, `effect`, `plan`, in that order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from replaylens import __version__
from replaylens.analysis.delta import state_values
from replaylens.analysis.status import thread_status, unknown_reason
from replaylens.decode import to_jsonable
from replaylens.model import CONTROL_CHANNELS, channel_label
from replaylens.times import utc_iso

SCHEMA = "replaylens.history/1"


def history(
    source: Any, thread: Any, plan: Any, effects_path: str | None, *, values: bool = False
) -> dict[str, Any]:
    """The history document of one thread (thread None: known only from the effects log)."""

    doc = (
        thread_to_json(source, thread, with_values=values)
        if thread is not None
        else {"checkpoints": [], "orphan_writes": [], "namespaces": [], "problems": []}
    )
    checkpoints = []
    for cp in doc["checkpoints"]:
        by_task: dict[str, list[dict[str, Any]]] = {}
        for w in cp.pop("writes"):
            by_task.setdefault(w.pop("task_id"), []).append(w)
        cp["writes_by_task"] = by_task
        checkpoints.append(cp)
    verdicts = {
        line.line: (a.verdict, a.attempt, a.reason) for a in plan.attempts for line in a.lines
    }
    effects = []
    for a in plan.attempts:
        for line in a.lines:
            verdict, attempt, reason = verdicts[line.line]
            effects.append(
                {**line.to_json(), "verdict": verdict, "attempt": attempt, "reason": reason}
            )
    effects.sort(key=lambda e: e["line"])
    return {
        "header": {
            "schema": SCHEMA,
            "thread_id": plan.thread_id,
            "database": getattr(source, "label", ""),
            "effects_log": effects_path,
            "exported_at": utc_iso(),
            "status": plan.status,
            "replaylens": __version__,
        },
        "checkpoints": checkpoints,
        "orphan_writes": doc["orphan_writes"],
        "effects": effects,
        "plan": plan.to_json(),
        "problems": doc.get("problems", []),
    }


def to_ndjson(doc: dict[str, Any]) -> Iterator[bytes]:
    """The same document as NDJSON records, one per line (see the module docstring)."""
    yield _line({"record": "header", **doc["header"]})
    for cp in doc["checkpoints"]:
        yield _line({"record": "checkpoint", **cp})
    for w in doc["orphan_writes"]:
        yield _line({"record": "orphan_write", **w})
    for e in doc["effects"]:
        yield _line({"record": "effect", **e})
    yield _line({"record": "plan", **doc["plan"]})


def _line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS) + b"\n"


def to_json_bytes(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n"


# -- the thread as JSON (`replaylens thread --json`, and the history export) ---------
def _write_json(w: Any, with_values: bool) -> dict[str, Any]:

    out: dict[str, Any] = {
        "task_id": w.task_id,
        "task_path": w.task_path,
        "idx": w.idx,
        "channel": w.channel,
        "label": channel_label(w.channel),
        "type": w.type,
        "bytes": w.size,
    }
    if with_values or w.channel in CONTROL_CHANNELS:
        result = w.decoded()
        out["value"] = to_jsonable(result.value)
        if result.error:
            out["decode_error"] = result.error
    return out


def thread_to_json(source: Any, thread: Any, *, with_values: bool) -> dict[str, Any]:
    """The `replaylens thread --json` document (a contract other tools rely on), also the
    thread part of the history export: one JSON form of a thread, here rather than in the CLI."""

    checkpoints = []
    for ns in thread.namespaces.values():
        for cp in ns.checkpoints:
            item: dict[str, Any] = {
                "checkpoint_id": cp.checkpoint_id,
                "checkpoint_ns": cp.checkpoint_ns,
                "parent_checkpoint_id": cp.parent_checkpoint_id,
                "step": cp.step,
                "source": cp.source,
                "ts": cp.ts,
                "metadata": to_jsonable(cp.record.metadata),
                "updated_channels": cp.record.updated_channels,
                "children": cp.children,
                "next": [
                    {
                        "node": t.node,
                        "label": t.label,
                        "task_id": t.task_id,
                        "status": t.status,
                        "kind": t.kind,
                        "derived": t.derived,
                        **({"today_task_id": t.today_task_id} if t.today_task_id else {}),
                        **({"note": t.note} if t.note else {}),
                        **({"calls": [c.call_json() for c in t.calls]} if t.calls else {}),
                    }
                    for t in cp.tasks
                ],
                "next_unknown": cp.next_unknown,
                "updates": [u.to_json() for u in cp.updates],
                "writes": [
                    {**_write_json(w, with_values), "writer": cp.writer_of(w)[0]} for w in cp.writes
                ],
            }
            if cp.unreadable:
                item["unreadable"] = cp.unreadable
            if cp.task_notes:
                item["notes"] = cp.task_notes
            if with_values and not cp.unreadable:
                values = state_values(source, thread, cp)
                item["values"] = {k: to_jsonable(v.value) for k, v in values.items()}
                if notes := {k: v.note for k, v in values.items() if v.note}:
                    item["value_notes"] = notes  # folded DeltaChannel values: how they were rebuilt
            checkpoints.append(item)
    checkpoints.sort(
        key=lambda c: (c["checkpoint_ns"].count("|"), c["checkpoint_ns"], c["checkpoint_id"])
    )
    return {
        "thread_id": thread.thread_id,
        "status": thread_status(thread),
        "unknown_reason": unknown_reason(thread.root.latest if thread.root else None) or None,
        "generation": thread.generation.to_json() if thread.generation else None,
        "namespaces": list(thread.namespaces),
        "checkpoints": checkpoints,
        "orphan_writes": [
            {
                "checkpoint_ns": w.checkpoint_ns,
                "checkpoint_id": w.checkpoint_id,
                **_write_json(w, with_values),
            }
            for w in thread.orphan_writes
        ],
        "problems": thread.problems,
    }
