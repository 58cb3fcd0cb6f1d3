"""A node cache that outlives the process: the nodes a resume takes from it, not runs again.

A node with a ``CachePolicy`` in a graph compiled with a cache has its writes stored in that
cache as the task finishes (``SyncPregelLoop.put_writes`` submits ``cache.set``, in every
durability mode, only for writes without an error or an interrupt). When a resume prepares
the same task again, for the same input, ``match_cached_writes`` hands it those writes and
its body does not run: its effects do not happen twice. Nothing in the checkpoint database
shows a cache, so only the graph code tells (``--graph``, or the kill-test harness, which
runs it): `cached_nodes` reads it there, and the verdicts and the what-if take a finished
task of such a node as served (`cache_readings`).

An in-memory cache dies with the process and a policy with a ``ttl`` may have expired by the
time of the resume: neither is counted, so such a node still reads as running again.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from replaylens.analysis.attempts import Attempt

PERSISTENT_CACHES = frozenset({"SqliteCache", "RedisCache"})
"""LangGraph's caches that keep what they hold after the process dies (``langgraph.cache``):
``InMemoryCache`` does not, and a cache of another class is not assumed to."""


def served_for_certain(step: int, loaded_step: int, passes_input: bool) -> bool:
    """Does a task of `step` get the input it had when the resume loads the checkpoint of
    `loaded_step` (in the task's namespace), so that a node cache serves it for certain? It
    was due there (the step after it), or right after it where that checkpoint is an input
    checkpoint whose only task, ``__start__``, hands the input on as it was. In a later step
    its input is whatever the resume's first steps give it (`CACHE_UNSURE`). The one rule
    behind the verdicts (`resume.serve_cached`) and the what-if (`outcomes._cached`)."""
    return step == loaded_step + 1 or (passes_input and step == loaded_step + 2)


SERVED = (
    "served from the node cache: its writes were stored in a cache that outlives the process "
    "(CachePolicy), and a resume takes them for the same input without running the node"
)
"""The reason a verdict gives a finished task of a cached node."""


def cached_nodes(graph: Any) -> list[str]:
    """The nodes of a compiled graph a resume takes from a cache that outlives the process:
    those with a ``CachePolicy`` without a ``ttl`` (their own, or the graph's), where the graph
    was compiled with a persistent cache. Reads attributes only; never raises."""
    try:
        cache = getattr(graph, "cache", None)
        if cache is None or type(cache).__name__ not in PERSISTENT_CACHES:
            return []
        default = getattr(graph, "cache_policy", None)
        out = []
        for name, node in (getattr(graph, "nodes", None) or {}).items():
            policy = getattr(node, "cache_policy", None) or default
            if policy is not None and getattr(policy, "ttl", None) is None:
                out.append(str(name))
        return sorted(out)
    except Exception:  # noqa: BLE001 - a graph that cannot be read has no cache we can name
        return []


CACHE_UNSURE = (
    "its result is in the node cache, but a resume takes it from there only where the steps "
    "it runs first give the node the same input (a node that answers differently, or a join "
    "that fires in another step, changes it): whether it runs again is a guess"
)
"""Why a finished task of a cached node in a step after the resume's first reads as a guess."""


RETURN_UNSURE = (
    "its node's result goes into the node cache as the task returns, and whether it had "
    "returned before the kill the log does not show (its last line ended, but no later step "
    "of the process is placed after it): whether it runs again is a guess"
)
"""Why a finished task of a cached node the log cannot show returned reads as a guess."""

Stored = Literal["", "stored", "maybe"]


def cache_readings(attempts: list[Attempt], cached: Iterable[str]) -> dict[int, Stored]:
    """id(attempt) -> did its task put its writes into the node cache, for every finished
    attempt of a cached node, read in one pass (a log of many tasks asks it for each).
    "stored": the evidence shows it returned, so that its writes (and the cache's copy of
    them) were put: the database holds them, or the log shows a later step of the same
    process begun after it ended. "maybe": it finished, but its return the evidence does not
    show (a bare log places no step). A resume takes a stored task from the cache for the
    same input: certainly where the task is due at the checkpoint the resume loads, a guess
    in a later step (`CACHE_UNSURE`)."""
    nodes = set(cached)
    if not nodes:
        return {}
    # per process and namespace: the starts in time order, with the highest step begun from
    # each on, so that "a later step begun after it ended" is one search
    later: dict[tuple[int | None, str], tuple[list[float], list[int]]] = {}
    rows: dict[tuple[int | None, str], list[tuple[float, int]]] = {}
    for b in attempts:
        if b.step is not None:
            rows.setdefault((b.pid, b.logged_ns or ""), []).append((b.start_ts, b.step))
    for key, found in rows.items():
        found.sort()
        top: list[int] = []
        for _ts, step in reversed(found):
            top.append(max(step, top[-1]) if top else step)
        later[key] = ([ts for ts, _ in found], top[::-1])
    out: dict[int, Stored] = {}
    for a in attempts:
        if a.node not in nodes or a.outcome != "finished":
            continue
        if a.alignment == "orphaned" or (a.task is not None and a.task.done):
            out[id(a)] = "stored"
            continue
        starts, top = later.get((a.pid, a.logged_ns or ""), ([], []))
        i = bisect.bisect_left(starts, a.end_ts)
        returned = a.step is not None and a.pid is not None and i < len(top) and top[i] > a.step
        out[id(a)] = "stored" if returned else "maybe"
    return out
