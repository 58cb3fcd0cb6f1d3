"""LangGraph's durability modes as this model uses them: names, constants, the recording.

The rules themselves, with their source locations, are the package docstring
(`replaylens.analysis.durability`).
"""

from __future__ import annotations

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
RACE = 0.05
"""Seconds either side of the kill within which a landing write is a race the recording
cannot decide (the kill's own latency: the parent sees the task start, sleeps, signals)."""


@dataclass(frozen=True)
class Recording:
    """What is known of how the evidence was made; a kill-test manifest knows all three."""

    mode: Mode | None = None
    latency: float | None = None
    kill_offset: float | None = None  # seconds into the killed task attempt (kill_delay)
    origin: str = ""
    kill_node: str | None = None  # the node the kill was aimed at; the offset counts from its start

    @property
    def known(self) -> bool:
        return self.mode is not None


def is_recorded(recording: Recording, mode: Mode, latency: float) -> bool:
    """Is (mode, latency) the way the evidence was made? Latency does not matter to exit."""
    if recording.mode != mode:
        return False
    if mode == "exit":
        return True
    return recording.latency is not None and abs(recording.latency - latency) < 1e-9
