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
holds that write's name, and those whose barrier holds every arrival while the join's node
is not due (the barrier was written after a later step had filled it): a resume there runs
the tasks before the join again, and the join never fires. For a mode the thread did not
run under, the what-if re-times the puts and asks the same of the join channels the
database names (`join_channels`, `outcomes._widen_for_late_barrier`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from replaylens.channels import JOIN_PREFIX, join_node, join_sources, makes_due
from replaylens.effects.durable import TRIGGERS_KEY
from replaylens.effects.parse import EffectLine
from replaylens.model import Checkpoint, Thread
from replaylens.sources import CheckpointSource


def _arrived(saved: Any) -> set[str]:
    """The names a saved barrier holds: a set (`NamedBarrierValue`), or (set, finished)
    (`NamedBarrierValueAfterFinish`, decoded as a list); nothing for anything else."""
    if isinstance(saved, (tuple, list)) and saved and isinstance(saved[0], (set, frozenset)):
        saved = saved[0]
    if isinstance(saved, (set, frozenset)):
        return {x for x in saved if isinstance(x, str)}
    return set()


def _waits_to_finish(saved: Any) -> bool:
    """A `NamedBarrierValueAfterFinish` (a join into a ``defer=True`` node) not yet finished:
    full or not, its node is due only once the loop finds nothing else to run."""
    return isinstance(saved, (tuple, list)) and len(saved) == 2 and saved[1] is False


def read_stalled_joins(source: CheckpointSource, thread: Thread) -> Thread:
    """Fill `thread.stalled_joins` and `thread.full_joins` from the database (one read of
    channel values per loop whose newest checkpoint has a join channel); returns the thread."""
    found: dict[str, frozenset[str]] = {}
    full: dict[str, frozenset[str]] = {}
    for ns in thread.namespaces.values():
        latest = ns.latest
        if latest is None:
            continue
        writes = [w for w in latest.writes if w.channel.startswith(JOIN_PREFIX)]
        channels = {ch for ch in latest.record.channel_versions if ch.startswith(JOIN_PREFIX)}
        if not writes and not channels:
            continue
        # (a value that does not decode comes back with its error, and says nothing)
        values = source.read_channel_values(thread.thread_id, ns.name, latest.checkpoint_id)
        saved = {
            ch: v.value
            for ch, v in values.items()
            if ch.startswith(JOIN_PREFIX) and v.error is None
        }
        arrived = {ch: _arrived(value) for ch, value in saved.items()}
        stalled = {
            w.channel
            for w in writes
            if isinstance(name := w.decoded().value, str) and name in arrived.get(w.channel, ())
        }
        due = {t.node for t in latest.tasks}
        complete = (
            set()
            if latest.next_unknown  # (what is due cannot be told: say nothing)
            else {
                ch
                for ch, names in arrived.items()
                if names
                and set(join_sources(ch)) <= names
                and join_node(ch) not in due
                and not _waits_to_finish(saved[ch])
            }
        )
        if stalled:
            found[latest.checkpoint_id] = frozenset(stalled)
        if complete:
            full[latest.checkpoint_id] = frozenset(complete)
    thread.stalled_joins = found
    thread.full_joins = full
    return thread


def resume_stops_at_join(thread: Thread) -> str | None:
    """The join node a resume at the root's newest checkpoint will never reach, where that is
    all the resume would do: every task due there is done (its writes saved), and every write
    of theirs that makes a node due goes to a join whose barrier already holds it. None
    otherwise (the resume goes on, or the database does not show this)."""
    root = thread.root
    latest = root.latest if root else None
    if latest is None:
        return None
    stalled = thread.stalled_joins.get(latest.checkpoint_id, frozenset()) | thread.full_joins.get(
        latest.checkpoint_id, frozenset()
    )
    if not stalled or not latest.tasks or not all(t.done for t in latest.tasks):
        return None
    triggers = {w.channel for w in latest.writes if makes_due(w.channel)}
    if not triggers or not triggers <= stalled:
        return None
    return sorted(str(join_node(ch)) for ch in stalled)[0]


def join_never_fires(thread: Thread) -> str | None:
    """The join node a resume at the root's newest checkpoint never runs, though it may run
    tasks before it: the saved barrier already holds every arrival and the node is not due
    there, so no arrival of the resume changes the barrier (test_in_one_fan_out_state_graph_
    waiting_edge_multiple_cond_edge at 0.5 s a write under async, on Postgres, killed in `qa`:
    the checkpoint after the second `rewrite_query` was written after that round's
    retrievers had arrived; the resume ran them again and stopped, `decider` never ran).
    Also the node `resume_stops_at_join` names."""
    stops = resume_stops_at_join(thread)
    if stops is not None:
        return stops
    root = thread.root
    latest = root.latest if root else None
    full = thread.full_joins.get(latest.checkpoint_id) if latest is not None else None
    return sorted(str(join_node(ch)) for ch in full)[0] if full else None


_Lost = TypeVar("_Lost")


def unreached_past_join(
    lost: Sequence[_Lost],
    node: str,
    at_once: bool,
    node_of: Callable[[_Lost], str],
    order: Callable[[_Lost], Any],
) -> Callable[[_Lost], bool]:
    """Which of a lost step's records (effect lines, orphan writes) a resume that stops at the
    join into `node` never reaches: all of them where it stops at once
    (`resume_stops_at_join`); else those from `node`'s first lost run on, in `order` (the
    tasks before the join run again, `join_never_fires`). One rule for the verdicts and for
    the tasks again, so the lines and the writes are cut at the same place."""
    if at_once:
        return lambda _: True
    firsts = [order(x) for x in lost if node_of(x) == node]
    if not firsts:
        return lambda _: False
    cut = min(firsts)
    return lambda x: order(x) >= cut


def join_channels(
    checkpoints: Sequence[Checkpoint], lines: Iterable[EffectLine] = ()
) -> list[tuple[str, set[str]]]:
    """(the join's node, the nodes it waits for) for every join channel the checkpoints name
    (a channel's version or a pending write) or an effect line's ``langgraph_triggers``
    names: under exit nothing but the input checkpoint is saved before a kill, and the log
    is then the only place a join shows."""
    names = {
        ch
        for c in checkpoints
        for ch in [*c.record.channel_versions, *(w.channel for w in c.writes)]
        if ch.startswith(JOIN_PREFIX)
    }
    names |= {ch for line in lines for ch in logged_triggers(line) if ch.startswith(JOIN_PREFIX)}
    return [(str(join_node(ch)), set(join_sources(ch))) for ch in sorted(names)]


def names_triggers(lines: Iterable[EffectLine]) -> bool:
    """Does a line say which channels made its task due (``langgraph_triggers``)? Then a
    join no line names is none; a log that says it of no line cannot tell."""
    return any(line.extra and TRIGGERS_KEY in line.extra for line in lines)


def logged_triggers(line: EffectLine) -> list[str]:
    """The channels a line says made its task due (its ``langgraph_triggers``, as LangGraph's
    run metadata gives them); none where the line does not say or says it in another shape."""
    triggers = line.extra.get(TRIGGERS_KEY) if line.extra else None
    if not isinstance(triggers, (list, tuple)):
        return []
    return [t for t in triggers if isinstance(t, str)]
