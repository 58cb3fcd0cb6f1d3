"""What one what-if derives from the thread alone, derived once.

`outcomes.what_if` reads the same thread many times over: a reading per mode the recording
could have been made under, and one more per ambiguity it cannot settle (`evidence.gather`).
Each reading walks the thread's checkpoints for the same facts (the entrypoint, the pauses,
the runs from an earlier checkpoint...), which depend on neither the effects log nor the
recording: on a 3,000-checkpoint thread those walks were a third of the Thread page's plan.

Within `one_reading_scope` a function decorated with `per_thread` computes each of its
answers once. Nothing in the durability model changes a thread while it reads it, and every
answer handed out is a shallow copy where it could be changed (a list, a set, a dict, and
those inside a tuple), so a caller that adds to its answer does not change the next one.
Outside the scope the functions compute as they always did."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_SCOPE: ContextVar[dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] | None] = ContextVar(
    "replaylens_one_reading", default=None
)


@contextmanager
def one_reading_scope() -> Iterator[None]:
    """Share `per_thread` answers until the block ends (a scope inside a scope is the same one)."""
    if _SCOPE.get() is not None:
        yield
        return
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _key_part(arg: Any) -> Any:
    """A set by its members (callers rebuild them), anything hashable as itself, anything
    else (a thread, a list of checkpoints) by identity: the scope keeps the object alive, so
    its id cannot be reused by another object while the scope lasts."""
    if isinstance(arg, set | frozenset):
        return ("set", frozenset(arg))
    if isinstance(arg, str | int | float | bool | type(None)):
        return arg
    if isinstance(arg, tuple) and all(isinstance(x, str | int | type(None)) for x in arg):
        return arg
    return ("id", id(arg))


def _handed_out(value: Any) -> Any:
    if isinstance(value, list | set | dict):
        return value.copy()
    if isinstance(value, tuple) and any(isinstance(x, list | set | dict) for x in value):
        return tuple(x.copy() if isinstance(x, list | set | dict) else x for x in value)
    return value  # kept as it is: a tuple of checkpoints is passed on and known by identity


def per_thread(fn: Callable[P, R]) -> Callable[P, R]:
    """Compute `fn` once per arguments inside `one_reading_scope` (see the module)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        memo = _SCOPE.get()
        if memo is None:
            return fn(*args, **kwargs)
        key = (fn, *map(_key_part, args), *sorted((k, _key_part(v)) for k, v in kwargs.items()))
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = ((*args, *kwargs.values()), fn(*args, **kwargs))
        return _handed_out(hit[1])  # type: ignore[no-any-return]

    return wrapper


E = TypeVar("E")


def per_evidence(fn: Callable[[E], R]) -> Callable[[E], R]:
    """Compute `fn(ev)` once per evidence and keep it on the evidence: the schedules of every
    mode and reading of one `Evidence` ask the same indexes of it, which nothing changes once
    it is built. The answer is handed out as it is (its callers only read it)."""
    slot = f"_per_evidence_{fn.__name__}"

    @functools.wraps(fn)
    def wrapper(ev: E) -> R:
        memo = ev.__dict__
        if slot not in memo:
            memo[slot] = fn(ev)
        return memo[slot]  # type: ignore[no-any-return]

    return wrapper
