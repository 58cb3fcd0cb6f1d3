"""`record_effect`: the line a node writes before and after it touches the outside world.

A checkpoint stores state, not side effects. The effects log is the other half of the
evidence, so each line must survive a SIGKILL that arrives a microsecond later: every
line is appended with one `write()` on an `O_APPEND` descriptor under an exclusive
`flock` (safe across threads and processes) and `fsync`-ed before the node goes on.

Use it as a context manager around the effect (writes `start`, then `end` or `error`)::

    from replaylens import record_effect

    def charge(state):
        with record_effect("charge_card", idempotency_key=key):
            payments.charge(...)
        return {"charged": True}

or as a decorator on the node function itself (`@record_effect("charge_card")`), or call
`record_effect.line("note", effect="...")` to write one line with a phase of your own.
The log path comes from `log=` or the `REPLAYLENS_EFFECTS_LOG` environment variable. The
step, node, task id and checkpoint namespace are read from LangGraph's runtime config,
so lines align exactly with the checkpoints.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
import warnings
from collections.abc import Callable
from typing import Any

from replaylens import settings
from replaylens.effects.durable import append_line, task_end_phase, task_fields

__all__ = ["ENV_LOG", "append_line", "record_effect"]

ENV_LOG = "REPLAYLENS_EFFECTS_LOG"


def _runtime_fields() -> dict[str, Any]:
    """thread_id, node, step, task_id and checkpoint_ns of the task that is running now.

    Outside a LangGraph run there is no config; the caller then has to name the node.
    """
    try:
        from langgraph.config import get_config

        config = get_config()
    except Exception:
        return {}
    return task_fields(config.get("metadata") or {}, config.get("configurable") or {})


class record_effect(contextlib.ContextDecorator):  # noqa: N801 - reads as a verb in node code
    """Record a side effect: `start` on entry, `end` on success, `error` on exception."""

    def __init__(
        self,
        effect: str | None = None,
        *,
        log: str | os.PathLike[str] | None = None,
        node: str | None = None,
        idempotency_key: str | None = None,
        **extra: Any,
    ) -> None:
        self.effect = effect
        self.log = log
        self.node = node
        self.idempotency_key = idempotency_key
        self.extra = extra

    # -- writing -----------------------------------------------------------------
    def _path(self) -> str | None:
        path = self.log or settings.get(ENV_LOG) or None
        if not path:
            # A missing log setting must never crash the user's graph: warn once, go on.
            warnings.warn(
                "record_effect has no log file (pass log=... or set REPLAYLENS_EFFECTS_LOG); "
                "effects are not recorded.",
                RuntimeWarning,
                stacklevel=3,
            )
            return None
        return os.fspath(path)

    def write(self, phase: str, **more: Any) -> None:
        """Write one line for this effect with the given phase (any word)."""
        path = self._path()
        if path is None:
            return
        record: dict[str, Any] = {"ts": time.time(), "phase": phase, "pid": os.getpid()}
        record.update(_runtime_fields())
        if self.node:
            record["node"] = self.node
        # Outside a LangGraph run nothing names them: say so rather than invent a name.
        record.setdefault("node", "(not in a LangGraph run: no node given)")
        record.setdefault("thread_id", "(not in a LangGraph run: no thread id)")
        if self.effect:
            record["effect"] = self.effect
        if self.idempotency_key is not None:
            record["idempotency_key"] = self.idempotency_key
        record.update(self.extra)
        record.update(more)
        append_line(path, record)

    @classmethod
    def line(cls, phase: str, effect: str | None = None, **kwargs: Any) -> None:
        """Write a single line (e.g. `record_effect.line("sent", effect="email")`)."""
        known = {k: kwargs.pop(k) for k in ("log", "node", "idempotency_key") if k in kwargs}
        cls(effect, **known, **kwargs).write(phase)

    # -- context manager / decorator ---------------------------------------------
    def __enter__(self) -> record_effect:
        self.write("start")
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        # `interrupt()` pauses (interrupted); `Command(graph=PARENT)` hands on (end)
        phase = task_end_phase(None if exc is None else type(exc).__name__)
        if phase == "error":
            self.write("error", error=f"{type(exc).__name__}: {exc}"[:500])
        else:
            self.write(phase)
        return False

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:  # type: ignore[override]
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self._recreate_cm():
                return func(*args, **kwargs)

        return wrapper
