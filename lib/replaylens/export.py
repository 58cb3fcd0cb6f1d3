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

import datetime as dt
from collections.abc import Iterator
from typing import Any

import orjson

SCHEMA = "replaylens.history/1"


def history(source: Any, thread: Any, plan: Any, effects_path: str | None, *, values: bool = False) -> dict[str, Any]:
    """The history document of one thread (thread None: known only from the effects log)."""
    from replaylens import __version__
    from replaylens.cli import thread_to_json

    doc = thread_to_json(source, thread, with_values=values) if thread is not None else {
        "checkpoints": [], "orphan_writes": [], "namespaces": [], "problems": []}
    checkpoints = []
    for cp in doc["checkpoints"]:
        by_task: dict[str, list[dict[str, Any]]] = {}
        for w in cp.pop("writes"):
            by_task.setdefault(w.pop("task_id"), []).append(w)
        cp["writes_by_task"] = by_task
        checkpoints.append(cp)
    verdicts = {line.line: (a.verdict, a.attempt, a.reason) for a in plan.attempts for line in a.lines}
    effects = []
    for a in plan.attempts:
        for line in a.lines:
            verdict, attempt, reason = verdicts[line.line]
            effects.append({**line.to_json(), "verdict": verdict, "attempt": attempt, "reason": reason})
    effects.sort(key=lambda e: e["line"])
    return {
        "header": {
            "schema": SCHEMA, "thread_id": plan.thread_id, "database": getattr(source, "label", ""),
            "effects_log": effects_path,
            "exported_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "status": plan.status, "replaylens": __version__,
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
