"""Compare replaylens's reading of the older-LangGraph fixtures with that version's get_state.

The fixtures under tests/compat/<version>/ were written by `make compat-fixtures`: one
database per example graph, and `truth.json` with the writing version's own
`get_state(config)` for every checkpoint and, where recorded (`history`), its
`get_state_history` with the pending writes its saver attached; the history is the truth
where it is there. Nothing here needs an old LangGraph installed.

    .venv/bin/python tests/compat_truth.py     # the per-generation table of the report
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replaylens.analysis.status import load_thread, thread_status
from replaylens.model import Thread
from replaylens.sources import open_source

COMPAT_DIR = Path(__file__).resolve().parent / "compat"


def generations() -> list[str]:
    """The fixture versions, oldest first."""

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in v.split("."))

    return sorted((p.name for p in COMPAT_DIR.iterdir() if (p / "truth.json").exists()), key=key)


def load_truth(version: str) -> dict[str, Any]:
    return json.loads((COMPAT_DIR / version / "truth.json").read_text())


@dataclass
class Outcome:
    """One checkpoint: what LangGraph said and what replaylens derived."""

    version: str
    graph: str
    thread: str
    checkpoint_ns: str
    checkpoint_id: str
    truth: list[tuple[str, str]]  # (name, id), sorted
    derived: list[tuple[str, str]]
    next_unknown: bool

    @property
    def verdict(self) -> str:
        """`match`, `unknown` (we said we cannot tell and claimed nothing wrong) or `mismatch`."""
        if self.derived == self.truth and not self.next_unknown:
            return "match"
        truth_ids = {tid for _, tid in self.truth}
        # An unnamed task ("" : nothing in the file names it) with a true id claims nothing wrong.
        said = all(d in self.truth or (d[0] == "" and d[1] in truth_ids) for d in self.derived)
        if self.next_unknown and said:
            return "unknown"
        return "mismatch"


@dataclass
class ThreadOutcome:
    version: str
    graph: str
    thread: str
    kind: str
    killed: bool
    truth_status: str
    status: str
    generation: str


@dataclass
class Report:
    checkpoints: list[Outcome] = field(default_factory=list)
    threads: list[ThreadOutcome] = field(default_factory=list)


def truth_of(c: dict[str, Any]) -> dict[str, Any]:
    """What the writing release says of one checkpoint: its get_state_history entry where
    recorded, else its get_state."""
    history = c.get("history")
    return history if isinstance(history, dict) and "error" not in history else c


def derived_tasks(
    thread: Thread, ns: str, checkpoint_id: str
) -> tuple[list[tuple[str, str]], bool]:
    cp = thread.find(checkpoint_id, ns)
    if cp is None:
        return [("(checkpoint missing)", checkpoint_id)], False
    return sorted((t.node, t.task_id) for t in cp.tasks), bool(cp.next_unknown)


def compare(version: str) -> Report:
    """Every checkpoint of every thread of every graph of one generation."""
    report = Report()
    truth = load_truth(version)
    for graph, doc in sorted(truth["graphs"].items()):
        source = open_source(str(COMPAT_DIR / version / f"{graph}.sqlite"))
        try:
            for thread_id, entry in sorted(doc["threads"].items()):
                thread = load_thread(source, thread_id)
                for c in entry["checkpoints"]:
                    expected = sorted((t["name"], t["id"]) for t in truth_of(c)["tasks"])
                    got, unknown = derived_tasks(thread, c["checkpoint_ns"], c["checkpoint_id"])
                    report.checkpoints.append(
                        Outcome(
                            version,
                            graph,
                            thread_id,
                            c["checkpoint_ns"],
                            c["checkpoint_id"],
                            expected,
                            got,
                            unknown,
                        )
                    )
                report.threads.append(
                    ThreadOutcome(
                        version,
                        graph,
                        thread_id,
                        entry.get("kind", "?"),
                        bool(entry.get("killed")),
                        entry["status"],
                        thread_status(thread),
                        thread.generation.label if thread.generation else "?",
                    )
                )
        finally:
            source.close()
    return report


def main() -> int:
    rows = []
    for version in generations():
        rep = compare(version)
        verdicts = Counter(o.verdict for o in rep.checkpoints)
        killed = [t for t in rep.threads if t.killed]
        gens = sorted({t.generation for t in rep.threads})
        rows.append(
            (
                version,
                len(rep.checkpoints),
                verdicts["match"],
                verdicts["unknown"],
                verdicts["mismatch"],
                len(rep.threads),
                sum(t.status == "unknown" for t in rep.threads),
                sum(t.status not in (t.truth_status, "unknown") for t in rep.threads),
                len(killed),
                ", ".join(sorted(f"{t.graph}:{t.status}" for t in killed)),
                "; ".join(gens),
            )
        )
        for o in rep.checkpoints:
            if o.verdict != "match":
                print(
                    f"  {version} {o.graph}/{o.thread} ns={o.checkpoint_ns[:14]!r} {o.checkpoint_id[-12:]}: "
                    f"{o.verdict}: truth {o.truth} derived {o.derived}"
                )
        for t in rep.threads:
            if t.status != t.truth_status:
                print(
                    f"  {version} {t.graph}/{t.thread}: status {t.status}, LangGraph says {t.truth_status}"
                )
    print(
        "version | checkpoints | match | unknown | mismatch | threads | status unknown | status wrong"
        " | killed | killed statuses | generation"
    )
    for r in rows:
        print(" | ".join(str(x) for x in r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
