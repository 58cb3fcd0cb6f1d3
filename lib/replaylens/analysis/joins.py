"""Joins a resume will not fire: a barrier saved with an arrival from the step after it.

`add_edge([a, b], c)` makes a `NamedBarrierValue` channel (``join:a+b:c``) whose saved value
is the set of names that arrived. Its ``checkpoint()`` hands the put the live set, and under
async a put queued behind the one before is serialized only when that one has landed
(``_checkpointer_put_after_previous``, langgraph/pregel/_loop.py): by then a task of the next
step may have added its name. The checkpoint then holds, in its barrier, the arrival that one
of its own pending writes makes. A resume at it hands that write back, the barrier changes
nothing, the channel's version does not move, and the join's node is never triggered
(test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge at 0.5 s a write under
async, on Postgres: resumed where `retriever_one` was due, its writes saved, LangGraph ended
the thread as completed without running `decider` or anything after it).

The database shows it: this module reads the saved barrier of each loop's newest checkpoint
that has a pending write to a join channel, and names the channels whose barrier already
holds that write's name.
"""

from __future__ import annotations

from typing import Any

from replaylens.model import Thread
from replaylens.sources import CheckpointSource

JOIN_PREFIX = "join:"
"""LangGraph's name for the channel of a waiting edge (``join:a+b:c``)."""
TRIGGER_PREFIXES = ("branch:", "join:", "start:", "__pregel_tasks")
"""Channels whose write makes a node due (edges, joins, a graph's start, `Send` packets)."""


def _arrived(saved: Any) -> set[str]:
    """The names a saved barrier holds: a set (`NamedBarrierValue`), or (set, finished)
    (`NamedBarrierValueAfterFinish`); nothing for anything else."""
    if isinstance(saved, tuple) and saved and isinstance(saved[0], (set, frozenset)):
        saved = saved[0]
    if isinstance(saved, (set, frozenset)):
        return {x for x in saved if isinstance(x, str)}
    return set()


def read_stalled_joins(source: CheckpointSource, thread: Thread) -> Thread:
    """Fill `thread.stalled_joins` from the database (one read of channel values per loop
    whose newest checkpoint has a pending write to a join channel); returns the thread."""
    found: dict[str, frozenset[str]] = {}
    for ns in thread.namespaces.values():
        latest = ns.latest
        if latest is None:
            continue
        joins = [w for w in latest.writes if w.channel.startswith(JOIN_PREFIX)]
        if not joins:
            continue
        # (a value that does not decode comes back with its error, and says nothing)
        values = source.read_channel_values(thread.thread_id, ns.name, latest.checkpoint_id)
        stalled = set()
        for w in joins:
            saved = values.get(w.channel)
            name = w.decoded().value
            if saved is not None and saved.error is None and name in _arrived(saved.value):
                stalled.add(w.channel)
        if stalled:
            found[latest.checkpoint_id] = frozenset(stalled)
    thread.stalled_joins = found
    return thread


def resume_stops_at_join(thread: Thread) -> str | None:
    """The join node a resume at the root's newest checkpoint will never reach, where that is
    all the resume would do: every task due there is done (its writes saved), and every write
    of theirs that makes a node due goes to a join whose barrier already holds it. None
    otherwise (the resume goes on, or the database does not show this)."""
    root = thread.root
    latest = root.latest if root else None
    if latest is None or latest.checkpoint_id not in thread.stalled_joins:
        return None
    if not latest.tasks or not all(t.done for t in latest.tasks):
        return None
    stalled = thread.stalled_joins[latest.checkpoint_id]
    triggers = {w.channel for w in latest.writes if w.channel.startswith(TRIGGER_PREFIXES)}
    if not triggers or not triggers <= stalled:
        return None
    return sorted(ch.rpartition(":")[2] for ch in stalled)[0]
