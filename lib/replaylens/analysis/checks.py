"""Checks across attempts: tasks that ran twice, and the two classic idempotency-key mistakes."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from replaylens.analysis.attempts import Attempt


def find_duplicates(attempts: list[Attempt]) -> list[list[Attempt]]:
    groups: dict[tuple[Any, ...], list[Attempt]] = defaultdict(list)
    for a in attempts:
        key = a.key
        if key is None and a.task_id:
            key = ("task", a.task_id)
        if key is not None:
            groups[key].append(a)
    dups = []
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda x: x.start_ts)
        for a in group:
            a.duplicate = True
        finished = [a for a in group if a.outcome == "finished"]
        task = group[0].task
        if task is not None and task.output_writes and finished:
            # Ordinary writes are INSERT OR IGNORE: the first attempt to finish keeps its rows.
            for a in group:
                a.won = a is finished[0]
        dups.append(group)
    return dups


def idempotency_findings(attempts: list[Attempt]) -> list[str]:
    findings: list[str] = []
    by_task: dict[tuple[Any, ...], list[Attempt]] = defaultdict(list)
    for a in attempts:
        by_task[a.key or ("task", a.task_id, a.node, a.step)].append(a)
    for group in by_task.values():
        keys_per_attempt = [
            {(line.label, line.idempotency_key) for line in a.lines if line.idempotency_key}
            for a in group
        ]
        if len(group) > 1:
            by_effect: dict[str, set[str]] = defaultdict(set)
            for keys in keys_per_attempt:
                for effect, key in keys:
                    by_effect[effect].add(key)
            for effect, keys in sorted(by_effect.items()):
                if len(keys) > 1:
                    lines = sorted(
                        line.line for a in group for line in a.lines if line.label == effect
                    )
                    findings.append(
                        f"`{effect}` used {len(keys)} different idempotency keys across {len(group)} attempts "
                        f"of one task (lines {', '.join(map(str, lines))}): the key is generated inside the "
                        "node, so deduplication never engages. Derive it from the thread id, step and a "
                        "business id."
                    )
    operations: dict[str, set[tuple[Any, ...]]] = defaultdict(set)
    where: dict[str, list[int]] = defaultdict(list)
    for a in attempts:
        op_task = a.key or (a.node, a.step)
        for line in a.lines:
            if line.idempotency_key:
                operations[line.idempotency_key].add(
                    (line.label, op_task[1:] if a.key else op_task)
                )
                where[line.idempotency_key].append(line.line)
    for key, ops in sorted(operations.items()):
        labels = {op[0] for op in ops}
        if len(ops) > 1 and (len(labels) > 1 or len({op[1] for op in ops}) > 1):
            findings.append(
                f"Idempotency key {key[:16]}… is shared by {len(ops)} different operations "
                f"({', '.join(sorted(labels))}; lines {', '.join(map(str, sorted(set(where[key]))))}): the "
                "downstream service will treat the second as a repeat and silently drop it. Add the "
                "business id to the key."
            )
    return findings
