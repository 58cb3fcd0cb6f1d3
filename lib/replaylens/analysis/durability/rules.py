"""LangGraph's durability modes as this model uses them: names, constants, the recording.

The rules themselves, with their source locations, are the package docstring
(`replaylens.analysis.durability`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

Mode = Literal["sync", "async", "exit"]
MODES: tuple[Mode, ...] = ("sync", "async", "exit")
DEFAULT_LATENCY = 0.25
Ending = Literal["killed", "returned", "raised", "paused"]
TICK = 0.004
"""Seconds between one step's end and the next step's start when nothing is waited for
(apply writes, prepare tasks), as async recordings of the example graphs show."""
WRITE_COST = 0.01
"""Seconds a checkpoint write takes beyond the latency (serializing, SQLite's commit): a put
that lands at the very moment of the kill is taken as lost, as the kill tests measure."""
WRITE_COST_SPAN = (0.0, 0.05)
"""The least and most a checkpoint write takes beyond the latency, for the race: puts of one
loop run one after another (``_checkpointer_put_after_previous`` in ``pregel/_loop.py`` waits
for the previous put's future), so under async on a slow store they queue, and each queued
put lands only after every one before it: the error in one write's cost adds up along the
queue. Sync recordings of the langgraph-tests corpus on a loaded 2-core machine show the
write, the commit and the thread hand-over taking 3 to 158 ms beyond a 250 ms latency
(median 27 ms, 75 steps); an exit or async recording shows no write's duration at all."""
RACE = 0.05
"""Seconds either side of the kill within which a landing write is a race the recording
cannot decide (the kill's own latency: the parent sees the task start, sleeps, signals)."""

CLOCK_EPS = 1e-6
"""Seconds within which two moments of the recorded clock are one: epoch seconds as floats
carry about 2.4e-7 s of rounding (1.8e9 s in a double), so a moment re-timed by sums and
differences lands that far from the same moment read directly (send_to_subgraph at 2 s a
write: the last worker's end and its parent step's end, one moment, 2.4e-7 s apart, and the
slower workers' waits taken as past the join)."""


@dataclass(frozen=True)
class Recording:
    """What is known of how the evidence was made; a kill-test manifest knows all three."""

    mode: Mode | None = None
    latency: float | None = None
    kill_offset: float | None = None  # seconds into the killed task attempt (kill_delay)
    origin: str = ""
    kill_node: str | None = None  # the node the kill was aimed at; the offset counts from its start
    went_on: bool = False
    """The process that wrote the thread's last log line wrote more lines after it (other
    threads'): it was alive after this thread's last line (`resume._process_went_on`)."""
    langgraph: str | None = None
    """The LangGraph release that wrote the database and resumes it (a kill-test manifest's
    `langgraph`); None: not known, today's rules are assumed (`subgraph_writes_reused`)."""
    cached_nodes: frozenset[str] = frozenset()
    """Nodes whose finished tasks a resume takes from a node cache that outlives the process
    (`node_cache.cached_nodes`: the graph code or a kill-test manifest tells); the database
    never shows one."""
    graph_nodes: frozenset[str] = frozenset()
    """The nodes the graph code names, its subgraphs' too (`from_graph`: `--graph`, the
    dashboard's graph code)."""

    @property
    def known(self) -> bool:
        return self.mode is not None

    @property
    def named_nodes(self) -> frozenset[str]:
        """Node names known beside the log's (the graph code's, the node a kill was aimed
        at): tried on the tasks the database leaves unnamed (`align.name_tasks_from_log`),
        where the id LangGraph derives from a name is the proof."""
        return self.graph_nodes | ({self.kill_node} if self.kill_node else set())

    def told_by_graph(self, cached_nodes: Collection[str], nodes: Collection[str]) -> Recording:
        """This recording with what the graph code tells that no database shows: the nodes a
        node cache serves (where it names any, else the manifest's) and its node names."""
        return dataclasses.replace(
            self,
            cached_nodes=frozenset(cached_nodes) or self.cached_nodes,
            graph_nodes=frozenset(nodes),
        )


SUBGRAPH_WRITES_REUSED_SINCE = (1, 2, 16)
"""The first LangGraph release whose subgraphs hand the writes saved on the checkpoint they
resume from back to the tasks that made them. Up to 1.2.15 every subgraph task's config
carries the key `checkpoint_id` (set to None, ``prepare_single_task`` in
``pregel/_algo.py``), so a subgraph's loop starts with ``is_replaying = CONFIG_KEY_CHECKPOINT_ID
in config[CONF]`` true (``PregelLoop.__init__`` in ``pregel/_loop.py``), and its first tick
skips ``_match_writes``: the finished tasks of the step a subgraph resumes run again, under
every mode. From 1.2.16 ``is_replaying`` is true only for time travel (``_first``), and
``_reapply_writes_to_succeeded_nodes`` gives the writes back. A root graph resumed without a
checkpoint id reuses them in every release."""


INFERRED = "inferred from the evidence"
"""`Recording.origin` of a mode the what-if inferred (one candidate of several), not given."""

FORK_COPY_SINCE = (1, 1, 7)
"""The first LangGraph release whose run from an earlier checkpoint (``invoke(None, config
with its checkpoint_id)``, time travel) saves a copy of it first, source ``fork``, one step
on (``PregelLoop._first``: ``self._put_checkpoint({"source": "fork"})``). Up to 1.1.6 the run
goes on from that checkpoint itself and saves nothing until its first step's put."""


EVERY_RUN_SAVED_ON_EXIT_BEFORE = (0, 5, 0)
"""Before LangGraph 0.5 a run saved as it ended (``checkpoint_during=False``, exit's way)
saved every subgraph run on its way out too: ``_suppress_interrupt`` (``pregel/loop.py``,
0.4.10) asks only ``if not self.checkpoint_during``. From 0.5.0 a nested loop saves there
only if it raised or paused, or was compiled with ``checkpointer=True``."""


DURABILITY_MODES_SINCE = (0, 6, 0)
"""The first LangGraph release with durability modes (``durability=`` on ``invoke`` and
``stream``; `killtest._child.durability_kwargs` runs them)."""

CHECKPOINT_DURING_SINCE = (0, 3, 27)
"""From this release to 0.5 a run is told ``checkpoint_during``: True puts every step's
checkpoint in the background (async's way), False saves as the run ends (exit's). Before it a
run always saved async's way."""


def mode_in_release(recording: Recording, mode: Mode) -> str:
    """How the release that wrote the thread runs `mode`, in words, where it is one before
    durability modes (`DURABILITY_MODES_SINCE`); "" from 0.6, or where the release is not
    known. A mode that release has no way to run is what an upgrade would give."""
    known = release(recording.langgraph)
    if known is None or known >= DURABILITY_MODES_SINCE:
        return ""
    name = f"LangGraph {recording.langgraph}"
    if known >= CHECKPOINT_DURING_SINCE and mode != "sync":
        return f"{name} runs it as checkpoint_during={mode == 'async'}"
    if mode == "async":
        return f"{name} saves this way always (it has no durability setting)"
    return f"{name} has no {mode} mode, which came with LangGraph 0.6: this is what upgrading would give"


def release(version: str | None) -> tuple[int, ...] | None:
    """A release string ("1.2.15", "0.6.11") as numbers; None where it does not read as one."""
    if not version:
        return None
    parts: list[int] = []
    for piece in version.strip().split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit()) if piece[:1].isdigit() else ""
        if not digits or not piece.startswith(digits):
            break
        parts.append(int(digits))
    return tuple(parts) if len(parts) >= 2 else None


def subgraph_writes_reused(recording: Recording) -> bool:
    """Does a subgraph resumed from its own checkpoint reuse the writes saved on it (LangGraph
    1.2.16 and later), or run those tasks again (`SUBGRAPH_WRITES_REUSED_SINCE`)? A release
    that is not known is taken as today's; the plan says so (`release_assumption`)."""
    known = release(recording.langgraph)
    return known is None or known >= SUBGRAPH_WRITES_REUSED_SINCE


def saves_fork_copy(recording: Recording) -> bool:
    """Does a run from an earlier checkpoint begin by saving a copy of it
    (`FORK_COPY_SINCE`)? A release that is not known is taken as today's."""
    known = release(recording.langgraph)
    return known is None or known >= FORK_COPY_SINCE


def every_run_saved_on_exit(recording: Recording) -> bool:
    """Does every subgraph run save its last checkpoint on its way out under exit
    (`EVERY_RUN_SAVED_ON_EXIT_BEFORE`)? A release that is not known is taken as today's."""
    known = release(recording.langgraph)
    return known is not None and known < EVERY_RUN_SAVED_ON_EXIT_BEFORE


def release_assumption(recording: Recording) -> str:
    """Which release's rule for a subgraph's saved writes the plan follows, in words."""
    since = ".".join(map(str, SUBGRAPH_WRITES_REUSED_SINCE))
    if release(recording.langgraph) is None:
        return (
            f"The LangGraph release that wrote this thread is not known: this plan follows "
            f"{since} and later, where a subgraph resumed from its own checkpoint reuses the "
            f"writes saved on it. Up to {_before(SUBGRAPH_WRITES_REUSED_SINCE)} those tasks run "
            "again."
        )
    if subgraph_writes_reused(recording):
        return (
            f"Written by LangGraph {recording.langgraph}: a subgraph resumed from its own "
            "checkpoint reuses the writes saved on it."
        )
    return (
        f"Written by LangGraph {recording.langgraph}: up to "
        f"{_before(SUBGRAPH_WRITES_REUSED_SINCE)} a subgraph resumed from its own checkpoint "
        "runs its finished tasks of that step again (their saved writes are not handed back)."
    )


def _before(version: tuple[int, ...]) -> str:
    """The release just before `version`, as LangGraph numbered it (1.2.16 -> 1.2.15)."""
    return ".".join(map(str, (*version[:-1], version[-1] - 1)))


def is_recorded(recording: Recording, mode: Mode, latency: float) -> bool:
    """Is (mode, latency) the way the evidence was made? Latency does not matter to exit."""
    if recording.mode != mode:
        return False
    if mode == "exit":
        return True
    return recording.latency is not None and abs(recording.latency - latency) < 1e-9
