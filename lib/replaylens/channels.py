"""LangGraph's channel names that make a node due: the one place that reads them.

A task hands control on by writing a trigger channel, and the database keeps those writes,
so the graph's edges can be read back without its code:

* ``branch:to:<node>``: an edge (static or conditional) or a ``Command(goto=...)`` to
  `<node>` (LangGraph 0.3.22 on);
* ``start:<node>``: the edge out of ``__start__`` before LangGraph 0.3 (``branch:<a>:<cond>:<node>``
  for a conditional edge then: `analysis.ids.legacy_target`);
* ``join:<a>+<b>:<node>``: the barrier of ``add_edge([a, b], node)`` (``NamedBarrierValue``):
  each source writes its own name into it, and `<node>` is due once every name arrived;
* ``__pregel_tasks``: ``Send`` packets.

`sources.is_scheduling_channel` is a different question (whose saved *values* decide which
task is due, decoded for every checkpoint) and lives with the sources.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Protocol

EDGE_PREFIX = "branch:to:"
"""A write to ``branch:to:<node>`` makes `<node>` due (an edge or a ``Command``'s goto)."""
LEGACY_START_PREFIX = "start:"
"""``start:<node>``: the edge out of ``__start__`` before LangGraph 0.3."""
JOIN_PREFIX = "join:"
"""``join:<a>+<b>:<node>``: the barrier in front of a node with several required sources."""
TASKS = "__pregel_tasks"
"""The channel ``Send`` packets are written to."""
TRIGGER_PREFIXES = ("branch:", JOIN_PREFIX, LEGACY_START_PREFIX, TASKS)
"""Channels whose write makes a node due (edges of every release, joins, ``Send``)."""


def makes_due(channel: str) -> bool:
    """Does a write to `channel` make a node due (rather than change the state)?"""
    return channel.startswith(TRIGGER_PREFIXES)


def edge_to(channel: str) -> str | None:
    """The node a ``branch:to:<node>`` write makes due; None for any other channel."""
    return channel[len(EDGE_PREFIX) :] or None if channel.startswith(EDGE_PREFIX) else None


def routed_to(channel: str) -> str | None:
    """The node an edge's write makes due in any release: ``branch:to:<node>``, or
    ``start:<node>`` from ``__start__`` before 0.3; None for any other channel."""
    if channel.startswith(LEGACY_START_PREFIX):
        return channel[len(LEGACY_START_PREFIX) :] or None
    return edge_to(channel)


def join_node(channel: str) -> str | None:
    """``join:a+b:c`` -> c, the node the barrier makes due; None for any other channel."""
    if not channel.startswith(JOIN_PREFIX):
        return None
    _, sep, end = channel[len(JOIN_PREFIX) :].rpartition(":")
    return end or None if sep else None


def join_sources(channel: str) -> list[str]:
    """``join:a+b:c`` -> [a, b], the nodes whose arrival the barrier waits for."""
    if not channel.startswith(JOIN_PREFIX):
        return []
    starts, sep, _ = channel[len(JOIN_PREFIX) :].rpartition(":")
    return [n for n in starts.split("+") if n] if sep else []


OVERWRITE = "__overwrite__"
"""The key of an ``Overwrite`` written as JSON (``{"__overwrite__": value}``)."""


def is_overwrite(value: object) -> bool:
    """Is a saved write an ``Overwrite`` (LangGraph 1.0 on: the value replaces the channel's,
    bypassing its reducer), decoded as LangGraph's type or written as JSON?"""
    if getattr(value, "type_name", None) == "Overwrite":
        return True
    return isinstance(value, dict) and list(value) == [OVERWRITE]


class SavedWrite(Protocol):
    """A saved write as the sources hand it: its channel, and its value (decoded on reading)."""

    @property
    def channel(self) -> str: ...

    @property
    def value(self) -> object: ...


def overwrites_collide(writes: Iterable[SavedWrite]) -> str | None:
    """The channel that more than one of one superstep's writes overwrite, or None. LangGraph
    raises ``InvalidUpdateError`` ("Can receive only one Overwrite value per super-step")
    while it applies such a step's writes: after every task of the step ended and its writes
    were put, and before the step's checkpoint. Only the values of channels written more
    than once are read (decoding a value is the cost; the verdicts ask this of every step)."""
    writes = list(writes)
    twice = {c for c, n in Counter(w.channel for w in writes).items() if n > 1}
    seen: set[str] = set()
    for w in writes:
        if w.channel in twice and is_overwrite(w.value):
            if w.channel in seen:
                return w.channel
            seen.add(w.channel)
    return None
