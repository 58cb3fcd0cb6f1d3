"""Resume safety, measured: which side effects a campaign's real resumes performed twice, and
a verdict per node from that evidence.

Everything here reads a finished campaign (its manifest and the effects logs each run kept
at the kill and after the resume); nothing is predicted. A *repeat* is an effect whose
`start` line the resume wrote again for the same task (node, step, namespace and effect
name) after the kill had already seen one. Its idempotency key tells whether the
downstream service could have deduplicated it:

- `dedupes`: every attempt sent the same key, so a service that honours keys charges once;
- `changes`: the attempts sent different keys (a key built from time or randomness, the
  classic mistake): no service can deduplicate it;
- `missing`: at least one attempt sent no key;
- `unproven`: the resume found no checkpoint, so only a restart from the input is possible
  and it would perform the effect again; its key was never seen on a second attempt.

The verdict per node (`node_verdicts`) is `safe to repeat` (no recorded effect repeated,
or every repeat carries a key that dedupes), `repeats an effect`, or `not deterministic`
(two attempts of the same task sent different keys or different values), each with the
evidence behind it in one sentence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from replaylens.effects.parse import EffectLine, read_effects
from replaylens.effects.repeats import (
    RepeatKey,
    needs_restart,
    repeat_key,
    repeated_starts,
    start_lines,
    task_id,
)
from replaylens.killtest.manifest import Manifest, RunRecord, latency_label

KeyVerdict = Literal["dedupes", "changes", "missing", "unproven"]
NodeWord = Literal["safe to repeat", "repeats an effect", "not deterministic"]
FailOn = Literal["repeat", "repeat-without-key"]
FAIL_ON: tuple[FailOn, ...] = ("repeat", "repeat-without-key")

_RUNTIME_KEYS = frozenset({"error", "span_id", "trace_id", "parent_span_id", "inferred"})
"""Keys of a start line that say how it was recorded, not what the effect sent."""


@dataclass(frozen=True)
class Repeat:
    """One effect that a real resume performed again, in one run of a campaign."""

    node: str
    effect: str
    mode: str
    kill_moment: str
    times: int
    """How many times it happened in all: before the kill and after the resume."""
    keys: tuple[str | None, ...]
    """The idempotency key of each attempt, oldest first (None: the attempt sent none)."""
    key: KeyVerdict
    values_differ: tuple[str, ...] = ()
    """Keys of the effect line whose values differed between attempts."""
    restart: bool = False
    """The resume found no checkpoint: the count is what a restart from the input repeats."""
    run_folder: str | None = None
    thread_id: str = ""

    @property
    def deduped(self) -> bool:
        return self.key == "dedupes" and not self.values_differ

    @property
    def deterministic(self) -> bool:
        return self.key != "changes" and not self.values_differ

    def key_text(self) -> str:
        shown = sorted({k for k in self.keys if k is not None})
        if not shown:
            return "(none)"
        return " / ".join(shown)

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "effect": self.effect,
            "mode": self.mode,
            "kill_moment": self.kill_moment,
            "times": self.times,
            "idempotency_keys": list(self.keys),
            "key": self.key,
            "key_dedupes": self.deduped,
            "values_differ": list(self.values_differ),
            "restart": self.restart,
            "run_folder": self.run_folder,
            "thread_id": self.thread_id,
        }


@dataclass(frozen=True)
class NodeVerdict:
    """What the campaign's evidence says about one node."""

    node: str
    verdict: NodeWord
    evidence: str
    runs_killed_here: int
    repeats: tuple[Repeat, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "verdict": self.verdict,
            "evidence": self.evidence,
            "runs_killed_here": self.runs_killed_here,
            "repeats": [r.to_json() for r in self.repeats],
        }


def kill_moment(rec: RunRecord) -> str:
    """Where a run was killed, in the words of the campaign's options."""
    if rec.fault_point:
        return f"{rec.fault_point}" + (f" in {rec.kill_at}" if rec.kill_at else "")
    if rec.kill_at:
        delay = f" +{rec.kill_delay:g}s" if rec.kill_delay else ""
        return f"{rec.kill_at}{delay}"
    return rec.kill_reason or "not killed"


def kill_node(rec: RunRecord) -> str | None:
    """The node a run was aimed at: `charge` for the manifest's `charge:1` (its 1st start)."""
    return node_of(rec.kill_at) if rec.kill_at else None


def node_of(kill_at: str) -> str:
    node, _, nth = kill_at.rpartition(":")
    return node if node and nth.isdigit() else kill_at


def _named(lines: Iterable[EffectLine]) -> list[EffectLine]:
    """The lines that name an effect: the verdicts are per effect, and a task's own start
    line (callbacks, traces) names none."""
    return [line for line in lines if line.effect]


def _payload(line: EffectLine) -> dict[str, str]:
    return {k: repr(v) for k, v in line.extra.items() if k not in _RUNTIME_KEYS}


def _key_verdict(keys: Sequence[str | None], restart: bool) -> KeyVerdict:
    if any(k is None for k in keys):
        return "missing"
    if restart:
        return "unproven"
    return "dedupes" if len(set(keys)) == 1 else "changes"


def _differing_values(starts: Sequence[EffectLine]) -> tuple[str, ...]:
    payloads = [_payload(line) for line in starts]
    names = set().union(*payloads)
    return tuple(sorted(n for n in names if len({p.get(n) for p in payloads}) > 1))


def _original(again: EffectLine, candidates: list[EffectLine]) -> tuple[EffectLine | None, bool]:
    """The attempt before the kill that `again` repeats, and whether that pairing is certain.

    Parallel tasks of one node in one step (`Send` workers, parallel `@task` calls) share
    node, step and effect: the same task id pairs them for certain; else the attempt with the
    same payload and key (a deterministic task repeats itself); else, only when one attempt
    is left, that one (certain, and any difference in what it sent is evidence)."""
    if (tid := task_id(again)) is not None:
        same = [c for c in candidates if task_id(c) == tid]
        if same:
            return same[0], True
    alike = [
        c for c in candidates
        if _payload(c) == _payload(again) and c.idempotency_key == again.idempotency_key
    ]  # fmt: skip
    if alike:
        return alike[0], len(candidates) == 1 or len(alike) == 1
    if len(candidates) == 1:
        return candidates[0], True
    return None, False


def _thread_lines(path: str | None, thread_id: str) -> list[EffectLine]:
    if not path or not Path(path).is_file():
        return []
    return read_effects(path).for_thread(thread_id)


def run_repeats(rec: RunRecord) -> list[Repeat]:
    """The effects one run's resume performed again (a restart's, when no checkpoint existed:
    then every effect the killed run had begun happens again, its key not yet seen twice)."""
    before = _thread_lines(rec.effects_at_kill, rec.thread_id)
    after = _thread_lines(rec.effects, rec.thread_id)
    restart = needs_restart((rec.resume or {}).get("error"))
    by_task: dict[RepeatKey, list[EffectLine]] = {}
    for line in _named(start_lines(before)):
        by_task.setdefault(repeat_key(line), []).append(line)
    pairs: list[tuple[list[EffectLine], bool]] = []
    if restart:
        pairs = [([line], True) for lines in by_task.values() for line in lines]
    else:
        chains: dict[int, list[EffectLine]] = {}
        unpaired: dict[RepeatKey, list[EffectLine]] = {}
        for line in _named(repeated_starts(before, after)):
            key = repeat_key(line)
            left = unpaired.setdefault(key, list(by_task[key]))
            first, certain = _original(line, left or by_task[key])
            if first is None:
                first, certain = (left or by_task[key])[0], False
            if first in left:
                left.remove(first)
            chain = chains.setdefault(id(first), [first])
            chain.append(line)
            if not certain:
                chain.append(_UNCERTAIN)
        pairs = [
            ([ln for ln in c if ln is not _UNCERTAIN], _UNCERTAIN not in c) for c in chains.values()
        ]
    folder = str(Path(rec.effects).parent) if rec.effects else None
    out = []
    for attempts, certain in pairs:
        keys = tuple(line.idempotency_key for line in attempts)
        first = attempts[0]
        out.append(
            Repeat(
                node=first.node,
                effect=str(first.effect),
                mode=rec.mode,
                kill_moment=kill_moment(rec),
                times=len(attempts) + (1 if restart else 0),
                keys=keys,
                key=_key_verdict(keys, restart),
                values_differ=_differing_values(attempts) if certain else (),
                restart=restart,
                run_folder=folder,
                thread_id=rec.thread_id,
            )
        )
    return out


_UNCERTAIN: Any = object()
"""Marks a chain whose pairing only order decided: what it sent is no evidence."""


def campaign_repeats(manifest: Manifest) -> list[Repeat]:
    """Every repeat of every run that was killed, in the manifest's order."""
    return [r for rec in manifest.runs if rec.killed for r in run_repeats(rec)]


def failing(repeats: Iterable[Repeat], fail_on: FailOn, allow: Iterable[str] = ()) -> list[Repeat]:
    """The repeats that fail a check: `repeat` fails every repeat whose key does not dedupe;
    `repeat-without-key` only those where an attempt sent no key. Effects (or nodes) named
    in `allow` never fail it."""
    allowed = set(allow)
    chosen = []
    for r in repeats:
        if r.effect in allowed or r.node in allowed:
            continue
        if fail_on == "repeat" and not r.deduped:
            chosen.append(r)
        elif fail_on == "repeat-without-key" and r.key == "missing":
            chosen.append(r)
    return chosen


def _node_sentence(word: NodeWord, repeats: Sequence[Repeat], killed_here: int) -> str:
    where = f"killed here in {killed_here} run(s)" if killed_here else "never killed here"
    if word == "safe to repeat":
        if not repeats:
            return f"No recorded effect of this node happened twice ({where})."
        effects = ", ".join(sorted({r.effect for r in repeats}))
        return f"{effects} happened again, always with the same idempotency key ({where})."
    if word == "not deterministic":
        r = next(r for r in repeats if not r.deterministic)
        what = (
            f"different idempotency keys ({r.key_text()})"
            if r.key == "changes"
            else "different values of " + ", ".join(r.values_differ)
        )
        return (
            f"Two attempts of the same task of {r.effect} sent {what} "
            f"under {r.mode}, killed at {r.kill_moment}: a key or payload built from time or "
            f"randomness, which no downstream service can deduplicate ({where})."
        )
    r = next(r for r in repeats if not r.deduped)
    key = {
        "missing": "with no idempotency key",
        "unproven": "its key never seen on a second attempt",
    }.get(r.key, "and its key does not dedupe")
    if r.restart:
        return (
            f"{r.effect} would happen again on the restart {r.mode} needs after a kill at "
            f"{r.kill_moment} (the resume found no checkpoint), {key} ({where})."
        )
    return f"{r.effect} happened {r.times} times under {r.mode}, killed at {r.kill_moment}, {key} ({where})."


def node_verdicts(manifest: Manifest, nodes: Sequence[str] = ()) -> list[NodeVerdict]:
    """One verdict per node: the nodes given (a graph's own, in its order), then any other
    node the campaign's logs name."""
    repeats = campaign_repeats(manifest)
    order = list(dict.fromkeys([*map(node_of, nodes), *(r.node for r in repeats)]))
    killed = {
        n: sum(1 for rec in manifest.runs if rec.killed and kill_node(rec) == n) for n in order
    }
    out = []
    for node in order:
        mine = tuple(r for r in repeats if r.node == node)
        if any(not r.deterministic for r in mine):
            word: NodeWord = "not deterministic"
        elif any(not r.deduped for r in mine):
            word = "repeats an effect"
        else:
            word = "safe to repeat"
        out.append(
            NodeVerdict(node, word, _node_sentence(word, mine, killed[node]), killed[node], mine)
        )
    return out


_NOT_DEDUPED: dict[KeyVerdict, str] = {
    "dedupes": "no: values differ",
    "changes": "no: key changes",
    "missing": "no",
    "unproven": "unproven (restart)",
}

TABLE_HEADERS = ("node", "mode", "kill moment", "effect", "times", "idempotency key", "deduped")


def repeat_rows(repeats: Iterable[Repeat]) -> list[tuple[str, ...]]:
    """The rows a developer reads first: node, mode, kill moment, effect, how many times it
    happened, its key and whether the key deduped."""
    return [
        (
            r.node,
            r.mode,
            r.kill_moment,
            r.effect,
            f"{r.times}" + (" (restart)" if r.restart else ""),
            r.key_text(),
            "yes" if r.deduped else _NOT_DEDUPED[r.key],
        )
        for r in repeats
    ]


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A fixed-width table for the terminal and pytest's failure report."""
    widths = [
        max(len(h), *(len(row[i]) for row in rows)) if rows else len(h)
        for i, h in enumerate(headers)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join([line, rule, *body])


def junit_cases(
    manifest: Manifest, fail_on: FailOn, allow: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """One test case per kill point and mode: its name, its runs and the repeats that fail it."""
    cases: dict[tuple[str, str, float], dict[str, Any]] = {}
    for rec in manifest.runs:
        where = rec.kill_at or rec.fault_point or "no kill point"
        case = cases.setdefault(
            (where, rec.mode, rec.put_latency),
            {
                "name": f"{where} [{rec.mode}, {latency_label(rec.put_latency)}]",
                "failures": [],
                "runs": 0,
            },
        )
        case["runs"] += 1
        if rec.killed:
            case["failures"] += failing(run_repeats(rec), fail_on, allow)
    return list(cases.values())


def junit_xml(
    manifest: Manifest,
    fail_on: FailOn,
    allow: Iterable[str] = (),
    suite: str = "replaylens.resume_safety",
) -> str:
    """A JUnit XML report, one test case per node and mode, for any CI system."""
    from xml.sax.saxutils import escape, quoteattr

    cases = junit_cases(manifest, fail_on, allow)
    failures = sum(1 for c in cases if c["failures"])
    parts = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<testsuites><testsuite name={quoteattr(suite)} tests="{len(cases)}" failures="{failures}" errors="0">',
    ]
    for c in cases:
        parts.append(
            f"<testcase classname={quoteattr(suite)} name={quoteattr(_xml_safe(c['name']))}>"
        )
        if c["failures"]:
            table = text_table(TABLE_HEADERS, repeat_rows(c["failures"]))
            message = f"{len(c['failures'])} effect(s) happened again on resume"
            parts.append(
                f"<failure message={quoteattr(message)}>{escape(_xml_safe(table))}</failure>"
            )
        parts.append("</testcase>")
    parts.append("</testsuite></testsuites>")
    return "\n".join(parts) + "\n"


def _xml_safe(text: str) -> str:
    """XML 1.0 forbids most control characters, even escaped: replace them visibly."""
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 0x20 else f"\\x{ord(ch):02x}" for ch in text)
