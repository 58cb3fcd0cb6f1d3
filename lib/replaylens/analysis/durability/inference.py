"""Which durability mode made the evidence, told from the evidence itself (`infer_mode`).

A production crash comes without a kill-test manifest: the recorded mode is unknown. The
rules of the package docstring leave traces that tell the modes apart:

* **exit** writes nothing while an invocation runs: a checkpoint saved during an
  invocation that was killed, or two loop checkpoints of one invocation, rule it out. A
  killed invocation that finished steps (the log shows the next step started) and left
  no checkpoint at all points to it (async would have had to take longer for every write
  than the whole run took).
* **sync** starts the next superstep only once the step's checkpoint has landed: a task
  of step n+1 that started while checkpoint n is missing from the database rules it out.
  Its waits show as a gap between a checkpoint's `ts` (taken when the step ended, before
  the write) and the first start of the next step, as long as the write took.
* **async** starts the next step at once (a gap of a few milliseconds after `ts`) and may
  lose its newest checkpoints in a kill.

When a write takes no time, sync and async leave the same evidence and behave alike; the
inference says so and keeps both. Where it cannot be told, every mode it could have been
is kept, and the what-if gives the range over them.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Literal

from replaylens.analysis.attempts import Attempt
from replaylens.analysis.durability.evidence import Evidence, gather
from replaylens.analysis.durability.rules import MODES, RACE, TICK, Mode, Recording
from replaylens.model import Thread
from replaylens.times import iso_to_epoch

Sureness = Literal["certain", "likely", "unknown"]
WAIT_SEEN = 0.1
"""Seconds between a checkpoint's `ts` and the next step's first start above which the loop
waited for the write (sync); async recordings of the example graphs show under 10 ms, and
up to 30 ms on a loaded machine."""
EXIT_PATIENCE = 2.0
"""Seconds of finished steps without any checkpoint after which async is not believed
(every write would have had to take longer than that): exit is then the likely mode."""


@dataclass
class Inference:
    """The modes the evidence could have been recorded under, and on what that rests."""

    modes: tuple[Mode, ...]
    sure: Sureness
    reasons: list[str] = field(default_factory=list)
    latency: float | None = None  # the write latency the sync waits show, when they do
    async_slower_than: float | None = None
    """Where async is left only on a slow store (the killed invocation finished steps and
    left no checkpoint): the seconds each write must have taken."""

    @property
    def mode(self) -> Mode | None:
        """The one mode, when only one is left."""
        return self.modes[0] if len(self.modes) == 1 else None

    def sentence(self) -> str:
        which = " or ".join(self.modes)
        head = (
            f"recorded mode inferred: {which} ({self.sure})"
            if self.mode
            else f"recorded mode unknown: it could have been {which}"
        )
        return head + (": " + "; ".join(self.reasons) if self.reasons else "")

    def to_json(self) -> dict[str, object]:
        return {
            "modes": list(self.modes),
            "sure": self.sure,
            "reasons": self.reasons,
            "latency_seconds": self.latency,
        }


def infer_mode(ev: Evidence) -> Inference:
    """The modes `ev` is consistent with (see the module docstring)."""
    possible: set[Mode] = set(MODES)
    reasons: list[str] = []
    async_slower_than: float | None = None
    roots = [s for s in ev.steps if s.ns == ""]
    last = ev.invocations - 1
    killed = ev.ending == "killed"
    # --- exit: one checkpoint per ended invocation, none of a killed one
    per_inv: dict[int, int] = {}  # root checkpoints saved per invocation, of any source
    for s in roots:
        if s.checkpoint is not None:
            per_inv[s.inv] = per_inv.get(s.inv, 0) + 1
    killed_invs = set(ev.killed_earlier) | ({last} if killed else set())
    during_kill = [i for i in killed_invs if per_inv.get(i)]
    if during_kill or any(n > 1 for n in per_inv.values()):
        possible.discard("exit")
        reasons.append(
            "checkpoints were saved while an invocation ran"
            + (" (in one that was killed)" if during_kill else "")
            + ": not exit"
        )
    # --- sync: the next step never starts before this step's checkpoint landed
    started = {s.step for s in roots if s.inv == last and s.attempts}
    saved = {s.step for s in roots if s.inv == last and s.checkpoint is not None}
    finished_unsaved = sorted(
        s.step
        for s in roots
        if s.inv == last and s.step >= 0 and s.end is not None and s.checkpoint is None
    )
    if killed and ev.attempts:
        skipped = [n for n in finished_unsaved if n + 1 in started and n not in saved]
        if skipped:
            possible.discard("sync")
            reasons.append(
                f"step {skipped[0] + 1} started although the checkpoint of step {skipped[0]} "
                "is not in the database: not sync"
            )
        if skipped and not saved and "exit" in possible:
            ran = _span_without_checkpoint(ev)
            if ran >= EXIT_PATIENCE:
                possible.discard("async")
                possible.discard("sync")
                reasons.append(
                    f"the killed invocation ran {ran:.1f} s of finished steps and left no "
                    "checkpoint: exit (async would have needed every write to take longer)"
                )
            else:
                async_slower_than = ran
                reasons.append(
                    "the killed invocation finished steps and left no checkpoint: exit, or "
                    f"async with writes slower than {ran:.2f} s"
                )
    # --- sync against async: the gap between a checkpoint's ts and the next step's start
    gaps = _gaps_after_checkpoints(ev)
    latency: float | None = None
    if gaps and {"sync", "async"} <= possible:
        mid = statistics.median(gaps)
        latency = max(0.0, mid - TICK)
        if min(gaps) > WAIT_SEEN:
            possible.discard("async")
            reasons.append(
                f"each step started {mid * 1000:.0f} ms (median of {len(gaps)}) after the "
                "previous checkpoint was taken: the loop waited for each write (sync)"
            )
        elif max(gaps) < WAIT_SEEN:
            reasons.append(
                f"steps started {mid * 1000:.0f} ms after each checkpoint was taken (median of "
                f"{len(gaps)}): async, or sync on a store that writes that fast (the two then "
                "behave alike)"
            )
        else:
            reasons.append(
                f"steps started {min(gaps) * 1000:.0f}-{max(gaps) * 1000:.0f} ms after each "
                "checkpoint was taken: sync and async cannot be told apart"
            )
    elif not gaps and {"sync", "async"} <= possible:
        reasons.append(
            "no step of the log follows a saved checkpoint: sync and async cannot be told apart"
        )
    modes = tuple(m for m in MODES if m in possible) or MODES
    if len(modes) == 1:
        sure: Sureness = "certain" if not _only_likely(reasons) else "likely"
    elif (
        len(modes) == 2
        and set(modes) == {"sync", "async"}
        and latency is not None
        and latency < WAIT_SEEN
    ):
        sure = "likely"  # fast writes: the two are the same
    else:
        sure = "unknown"
    return Inference(modes, sure, reasons, latency, async_slower_than)


def _only_likely(reasons: list[str]) -> bool:
    return any("would have needed" in r or "median" in r for r in reasons)


def _gaps_after_checkpoints(ev: Evidence) -> list[float]:
    """Seconds from each saved checkpoint's ts to the first start of the next step of its loop.

    Every namespace counts: the durability is handed to subgraphs through the config
    (``pregel/main.py``, ``stream``: "set durability mode for subgraphs"), and a subgraph's
    loop under sync waits for its own puts after each step as the root does (the same
    ``stream`` loop runs it). A root whose only node is a subgraph logs no step of its own."""
    by_key = {(s.ns, s.inv, s.step): s for s in ev.steps}
    out: list[float] = []
    for (ns, inv, step), s in by_key.items():
        if s.checkpoint is None or s.checkpoint.source != "loop":
            continue
        nxt = by_key.get((ns, inv, step + 1))
        if nxt is None or not nxt.attempts:
            continue
        taken = iso_to_epoch(s.checkpoint.ts)
        if taken is None:
            continue
        gap = min(a.start_ts for a in nxt.attempts) - taken
        before = by_key.get((ns, inv, step - 1))
        if (
            before is not None
            and before.checkpoint is not None
            and (step == 0 or before.checkpoint.source == "input")
        ):
            # `__start__`'s put is chained behind the input checkpoint's, taken a tick before
            # (`_checkpointer_put_after_previous`): the first node waited for both writes —
            # in every invocation, and in every run of a `checkpointer=True` subgraph, whose
            # steps go on from its last run's (an input checkpoint at step 2, `__start__`'s
            # at 3: test_parallel_subgraph_nodes_load_correct_state_on_replay).
            gap /= 2
        if -RACE < gap < 30.0:
            out.append(max(0.0, gap))
    return out


def _span_without_checkpoint(ev: Evidence) -> float:
    """Seconds from the first finished root step of the last invocation to the crash."""
    last = ev.invocations - 1
    ends = [s.end for s in ev.steps if s.ns == "" and s.inv == last and s.end is not None]
    if not ends or ev.crash_ts is None:
        return 0.0
    return max(0.0, ev.crash_ts - min(e for e in ends))


def infer_recorded_mode(
    thread: Thread | None, attempts: list[Attempt], status: str = "resumable"
) -> Inference:
    """`infer_mode` for a thread and its effect-log attempts, for pages and the CLI."""
    return infer_mode(gather(thread, attempts, status, Recording()))
