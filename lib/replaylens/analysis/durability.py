"""The durability what-if: what a crash would have left under each durability mode."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from replaylens.analysis.attempts import TIME_SLACK, Attempt, effect_list
from replaylens.model import Checkpoint, Thread
from replaylens.times import iso_to_epoch

Mode = Literal["sync", "async", "exit"]
MODES: tuple[Mode, ...] = ("sync", "async", "exit")
DEFAULT_LATENCY = 0.25

MODE_RULES: dict[Mode, str] = {
    "sync": "every checkpoint lands before the next superstep starts",
    "async": "checkpoints land in the background, one write latency after their superstep",
    "exit": "nothing of the crashed invocation is saved",
}
"""Each mode's write rule in one line, for tables and the report."""


@dataclass
class ModeOutcome:
    """What a crash at the recorded instant would leave under one durability mode (a model)."""

    mode: Mode
    checkpoints_kept: int
    resume_checkpoint_id: str | None
    resume_step: int | None
    replayed_lines: list[int]
    replayed_effects: dict[str, int]
    window_start: float | None
    window_end: float | None
    restart: bool
    sentence: str
    modelled: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "checkpoints_kept": self.checkpoints_kept,
            "resume_checkpoint_id": self.resume_checkpoint_id,
            "resume_step": self.resume_step,
            "replayed_lines": self.replayed_lines,
            "replayed_line_count": len(self.replayed_lines),
            "replayed_effects": self.replayed_effects,
            "window_start": self.window_start,
            "window_end": self.window_end,
            "restart": self.restart,
            "sentence": self.sentence,
            "modelled": self.modelled,
        }


WHAT_IF_NOTE = (
    "A model, not a recording: it replays the recorded checkpoint and effect timestamps under each "
    "mode's write rule (sync: every checkpoint lands before the next step; async: each checkpoint "
    "lands after the given write latency, one after another; exit: nothing of the crashed "
    "invocation is saved)."
)


def _invocation_boundary(chain: list[Checkpoint]) -> int:
    """Index of the checkpoint the crashed invocation started from (exit keeps what precedes)."""
    for i in range(len(chain) - 1, -1, -1):
        cp = chain[i]
        if cp.source == "input":
            return i
        if i < len(chain) - 1 and any(w.channel in ("__interrupt__", "__resume__") for w in cp.writes):
            return i
    return 0


def _exit_saves(chain: list[Checkpoint], kept: int) -> int:
    """Checkpoints exit mode would hold: one per invocation that ended (returned or paused)."""
    ends = {i - 1 for i, cp in enumerate(chain) if cp.source == "input" and i > 0}
    ends |= {
        i for i, cp in enumerate(chain[:-1])
        if any(w.channel in ("__interrupt__", "__resume__") for w in cp.writes)
    }
    return len([i for i in ends if i <= kept])


def _root_index(a: Attempt, thread: Thread, chain_pos: dict[str, int], n: int) -> int | None:
    """Position in the root lineage of the checkpoint whose step this attempt belongs to."""
    if a.alignment in ("after-latest", "orphaned"):
        return n
    if a.alignment == "before-saved":
        return -1 if n == 0 else 0
    if a.checkpoint is None:
        return None
    ns = a.namespace or ""
    if ns == "":
        return chain_pos.get(a.checkpoint.checkpoint_id)
    # A subgraph attempt belongs to the step of the root task that ran the subgraph.
    first = ns.split("|")[0]
    parent_tid = first.rpartition(":")[2]
    root = thread.root
    if root is None:
        return None
    for cp in root.checkpoints:
        if any(t.task_id == parent_tid for t in cp.tasks):
            return chain_pos.get(cp.checkpoint_id)
    return None


def what_if(thread: Thread | None, attempts: list[Attempt], latency: float) -> tuple[dict[str, ModeOutcome], float | None]:
    chain = thread.root and thread.root.latest and thread.root.lineage(thread.root.latest.checkpoint_id) or []
    stamps = [iso_to_epoch(c.ts) or 0.0 for c in chain]
    line_ts = [line.ts for a in attempts for line in a.lines]
    crash = max(line_ts + stamps) if (line_ts or stamps) else None
    chain_pos = {c.checkpoint_id: i for i, c in enumerate(chain)}
    n = len(chain)
    positions = {id(a): _root_index(a, thread, chain_pos, n) if thread else None for a in attempts}
    outcomes: dict[str, ModeOutcome] = {}
    for mode in MODES:
        if not chain or crash is None:
            kept = -1
        elif mode == "sync":
            kept = max(i for i, s in enumerate(stamps) if s <= crash + TIME_SLACK) if stamps else -1
        elif mode == "async":
            kept, landed = -1, float("-inf")
            for i, s in enumerate(stamps):
                landed = max(s, landed) + latency
                if landed <= crash:
                    kept = i
        else:
            boundary = _invocation_boundary(chain)
            kept = boundary - 1 if chain[boundary].source == "input" else boundary
        exit_cutoff = _exit_cutoff(attempts, positions, kept) if mode == "exit" else None
        replayed: list[Attempt] = []
        for a in attempts:
            pos = positions[id(a)]
            if kept < 0 or pos is None or pos > kept:
                replayed.append(a)
            elif pos == kept and _replays_at_kept(a, mode, exit_cutoff, kept == n - 1):
                replayed.append(a)
        lines = sorted(line.line for a in replayed for line in a.lines)
        effects = Counter(label for a in replayed for label in a.effects)
        window = [line.ts for a in replayed for line in a.lines]
        cp = chain[kept] if 0 <= kept < len(chain) else None
        outcomes[mode] = ModeOutcome(
            mode=mode,
            checkpoints_kept=(_exit_saves(chain, kept) if mode == "exit" else kept + 1) if kept >= 0 else 0,
            resume_checkpoint_id=cp.checkpoint_id if cp else None,
            resume_step=cp.step if cp else None,
            replayed_lines=lines,
            replayed_effects=dict(sorted(effects.items())),
            window_start=min(window) if window else None,
            window_end=crash if window else None,
            restart=kept < 0,
            sentence=_mode_sentence(mode, cp, replayed, kept < 0),
        )
    return outcomes, crash


def _exit_cutoff(attempts: list[Attempt], positions: dict[int, int | None], kept: int) -> float | None:
    """Under exit, writes at an interrupt checkpoint are those saved when the run paused."""
    paused = [a.end_ts for a in attempts if positions[id(a)] == kept and a.outcome == "interrupted"]
    return min(paused) if paused else None


def _replays_at_kept(a: Attempt, mode: str, exit_cutoff: float | None, kept_is_latest: bool) -> bool:
    """Does a task of the checkpoint a resume would load run again under `mode`?"""
    if a.outcome != "finished":
        return True  # in flight, failed or interrupted: it runs again from its first line
    if mode == "exit" and exit_cutoff is not None and a.end_ts > exit_cutoff:
        return True  # finished after the pause, in the invocation whose writes exit never saved
    # The recorded database is the ground truth where it speaks: its writes never landed.
    return kept_is_latest and a.task is not None and a.task.status != "finished"


def _mode_sentence(mode: str, cp: Checkpoint | None, replayed: list[Attempt], restart: bool) -> str:
    what = effect_list(replayed)
    if restart:
        start = "no checkpoint would exist: only a restart from the input, which"
    else:
        start = f"a resume would start after step {cp.step if cp else '?'} and"
    if not what:
        return f"Under {mode}, {start} repeats no recorded side effect."
    return f"Under {mode}, {start} would {what}."
