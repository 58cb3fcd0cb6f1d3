"""Assemble the resume plan of one thread: alignment, verdicts, checks and the what-if.

Each job has its own module (`attempts`, `align`, `verdicts`, `checks`, `durability`);
the plan's types are in `plan`. This module only puts them together.
"""

from __future__ import annotations

import dataclasses

from replaylens.analysis.align import align, split_runs
from replaylens.analysis.attempts import LOST_STEP, Attempt, group_attempts, number_attempts
from replaylens.analysis.checks import find_duplicates, idempotency_findings
from replaylens.analysis.durability import (
    DEFAULT_LATENCY,
    Recording,
    lost_input_attempts,
    one_reading_scope,
    subgraph_writes_reused,
    what_if,
)
from replaylens.analysis.durability.evidence import answered_below
from replaylens.analysis.joins import join_never_fires, resume_stops_at_join
from replaylens.analysis.node_cache import (
    CACHE_UNSURE,
    RETURN_UNSURE,
    SERVED,
    cache_readings,
    served_for_certain,
)
from replaylens.analysis.plan import ResumePlan
from replaylens.analysis.status import load_thread, thread_status
from replaylens.analysis.tasks import START
from replaylens.analysis.verdicts import (
    JOINED_GUESS,
    judge,
    judge_past_join,
    resumed_namespaces,
    take_unsure_replays,
)
from replaylens.effects.parse import EffectLine, EffectsLog
from replaylens.errors import ThreadNotFound
from replaylens.model import Checkpoint, Task, Thread
from replaylens.sources import CheckpointSource


def what_if_latency(latency: float | None, recording: Recording | None) -> float:
    """The write latency the what-if models: the one given, else the recorded one (a kill-test
    manifest names it), else DEFAULT_LATENCY. The CLI and the dashboard both start here, so a
    run recorded at 0 ms is modelled at 0 ms by both."""
    if latency is not None:
        return latency
    if recording is not None and recording.latency is not None:
        return recording.latency
    return DEFAULT_LATENCY


def source_backend(source: CheckpointSource) -> dict[str, object]:
    """What the plan says of the store: its kind, its (redacted) label and, on Postgres, the
    server's own durability settings (`synchronous_commit`, `fsync`)."""
    settings = source.server_settings() if hasattr(source, "server_settings") else {}
    return {"kind": getattr(source, "kind", "?"), "database": source.label, **settings}


def serve_cached(
    attempts: list[Attempt], recording: Recording | None, resumed: dict[str, Checkpoint]
) -> None:
    """A task a resume would run again whose result a node cache that outlives the process
    holds is served from it, its body not run, where it is due at the checkpoint the resume
    loads (its input is that checkpoint's); in a later step that is a guess (`node_cache`)."""
    cached = (recording or Recording()).cached_nodes
    if not cached:
        return
    readings = cache_readings(attempts, cached)
    for a in attempts:
        reading = readings.get(id(a), "") if a.verdict == "replays" else ""
        if not reading:
            continue
        due = _due_at(a, resumed.get(a.namespace or ""))
        if reading == "stored" and due:
            a.verdict, a.reason = "kept", SERVED
        else:
            a.may_be_cached = True
            a.flag(CACHE_UNSURE if reading == "stored" else RETURN_UNSURE)


def _due_at(a: Attempt, loaded: Checkpoint | None) -> bool:
    """Is `a`'s task one a node cache serves for certain from the checkpoint the resume
    loads in its namespace (`node_cache.served_for_certain`)? An attempt the log placed at a
    checkpoint is due there or not; one it did not place is read by its step."""
    if loaded is None:
        return False
    if a.task is not None and a.checkpoint is not None:
        return a.checkpoint.checkpoint_id == loaded.checkpoint_id
    passes_input = bool(loaded.tasks) and all(t.node == START for t in loaded.tasks)
    return (
        not a.namespace
        and a.step is not None
        and loaded.step is not None
        and served_for_certain(a.step, loaded.step, passes_input)
    )


def plan_resume(
    thread: Thread | CheckpointSource | None,
    effects: EffectsLog | list[EffectLine] | None,
    thread_id: str,
    *,
    latency: float | None = None,
    recording: Recording | None = None,
    source: CheckpointSource | None = None,
) -> ResumePlan:
    """Everything a resume of `thread_id` from the database as it stands would do.

    `thread` is the loaded thread, None when only the effects log knows it, or the source
    itself (the thread is then loaded from it; an unknown thread the log knows needs a
    restart, one nobody knows raises ThreadNotFound). With a source (as `thread` or as
    `source`) the plan carries its backend: kind, label and Postgres `synchronous_commit`.
    `latency` None models the recorded write latency (see `what_if_latency`)."""
    if thread is not None and not isinstance(thread, Thread):
        source = thread
        try:
            thread = load_thread(source, thread_id)
        except ThreadNotFound:
            known = (
                effects.thread_ids
                if isinstance(effects, EffectsLog)
                else {e.thread_id for e in effects or ()}
            )
            if thread_id not in known:
                raise
            thread = None
    with one_reading_scope():  # its what-ifs read the same thread: derive its facts once
        plan = _plan(thread, effects, thread_id, what_if_latency(latency, recording), recording)
    if source is not None:
        plan.backend = source_backend(source)
    return plan


def _process_went_on(
    effects: EffectsLog | list[EffectLine] | None, lines: list[EffectLine]
) -> bool:
    """Did the process that wrote the thread's last line write more after it (another
    thread's lines)? Then it was alive after this thread's last line, and no kill cut short
    what the thread's invocation was saving then (`Recording.went_on`)."""
    if effects is None or not lines:
        return False
    last = max(lines, key=lambda e: e.ts)
    if last.pid is None:
        return False
    if isinstance(effects, EffectsLog):
        later = effects.last_ts_of(last.pid)
    else:
        later = max((e.ts for e in effects if e.pid == last.pid), default=None)
    return later is not None and later > last.ts


def _plan(
    thread: Thread | None,
    effects: EffectsLog | list[EffectLine] | None,
    thread_id: str,
    latency: float,
    recording: Recording | None,
) -> ResumePlan:
    lines: list[EffectLine]
    if effects is None:
        lines = []
    elif isinstance(effects, EffectsLog):
        lines = effects.for_thread(thread_id)
    else:
        lines = [e for e in effects if e.thread_id == thread_id]
    attempts = group_attempts(lines)
    if _process_went_on(effects, lines):
        recording = dataclasses.replace(recording or Recording(), went_on=True)
    # What the evidence is and cannot show (a trace cannot show a killed task): the verdict says it.
    source = effects.source if isinstance(effects, EffectsLog) else ""
    limits = list(effects.limits) if isinstance(effects, EffectsLog) else []
    has_checkpoint = (
        thread is not None and thread.root is not None and thread.root.latest is not None
    )
    if not has_checkpoint:
        for a in attempts:
            a.verdict = "restart"
            a.reason = "no checkpoint exists: invoke(None) raises EmptyInputError; a restart repeats everything"
        number_attempts(attempts)
        outcomes, crash = what_if(
            thread or Thread(thread_id, {}),
            attempts,
            latency,
            status="needs_restart",
            recording=recording,
        )
        return ResumePlan(
            thread_id,
            "needs_restart",
            None,
            [],
            [],
            [],
            thread.orphan_writes if thread else [],
            attempts,
            effects is not None,
            find_duplicates(attempts),
            idempotency_findings(attempts),
            outcomes,
            latency,
            crash,
            recording=recording or Recording(),
            evidence_source=source,
            evidence_limits=limits,
        )
    assert thread is not None and thread.root is not None
    align(attempts, thread, names=(recording or Recording()).named_nodes)
    resumed = resumed_namespaces(thread)
    lineage_ids = {
        ns.name: {c.checkpoint_id for c in ns.lineage(ns.latest.checkpoint_id)}
        if ns.latest
        else set()
        for ns in thread.namespaces.values()
    }
    status = thread_status(thread)
    lost = _lost_with_input(thread, attempts, status, recording)
    reuse_below = subgraph_writes_reused(recording or Recording())
    for a in attempts:
        judge(a, thread, resumed, lineage_ids, lost, reuse_below)
    judge_past_join(thread, attempts)
    serve_cached(attempts, recording, resumed)
    split = split_runs(attempts, thread)  # a bare log's lines of one node as tasks of their own
    if split is not None:
        lost_split = _lost_with_input(thread, split, status, recording)
        for a in split:
            judge(a, thread, resumed, lineage_ids, lost_split, reuse_below)
        judge_past_join(thread, split)
        serve_cached(split, recording, resumed)
        take_unsure_replays(attempts, split, JOINED_GUESS)
    reruns = [
        (ns, t)
        for ns, cp in resumed.items()
        for t in cp.tasks
        if not t.done or (ns and not reuse_below)
    ]
    reused = [
        (ns, t)
        for ns, cp in resumed.items()
        for t in cp.tasks
        if t.done and (reuse_below or not ns)
    ]
    outcomes, crash = what_if(thread, attempts, latency, status=status, recording=recording)
    unmatched = unmatched_reruns(reruns, attempts)
    recorded_outcome = None
    rec = recording or Recording()
    if rec.mode in outcomes and rec.latency is not None and rec.latency != latency:
        at_recorded, _ = what_if(thread, attempts, rec.latency, status=status, recording=rec)
        recorded_outcome = at_recorded.get(rec.mode)
    return ResumePlan(
        thread_id=thread_id,
        status=status,
        resume_checkpoint=thread.root.latest,
        subgraph_resumes=[cp for ns, cp in resumed.items() if ns],
        reruns=reruns,
        reused=reused,
        orphan_writes=thread.orphan_writes,
        attempts=attempts,
        effects_given=effects is not None,
        duplicates=find_duplicates(attempts),
        idempotency_findings=idempotency_findings(attempts),
        what_if=outcomes,
        latency=latency,
        crash_ts=crash,
        recording=recording or Recording(),
        recorded_outcome=recorded_outcome,
        today_reruns=[(ns, t) for ns, t in reused if t.today_task_id],
        generation=thread.generation,
        unmatched_reruns=unmatched,
        answered_below=status == "interrupted" and answered_below(thread),
        stops_at_join=join_never_fires(thread),
        stops_at_once=resume_stops_at_join(thread) is not None,
        evidence_source=source,
        evidence_limits=limits,
    )


UNSAVED_ALIGNMENTS = (*LOST_STEP, "none")
"""How an attempt of an invocation of which no checkpoint was saved can align: with no
checkpoint of its own, it falls after the latest one, on orphan writes, in a new run of its
graph, or nowhere."""


def _lost_with_input(
    thread: Thread, attempts: list[Attempt], status: str, recording: Recording | None
) -> set[int]:
    """The attempts a resume never runs because their fresh input was lost with them
    (the durability model's rule); only asked when some attempt has no saved checkpoint."""
    if not any(a.alignment in UNSAVED_ALIGNMENTS for a in attempts):
        return set()
    return lost_input_attempts(thread, attempts, status, recording or Recording())


def unmatched_reruns(reruns: list[tuple[str, Task]], attempts: list[Attempt]) -> list[str]:
    """Tasks a resume re-runs that no attempt was given, although the log shows their node
    started and judged every such start kept: the reassuring answer would be a guess."""
    out: list[str] = []
    given = {
        a.task.task_id
        for a in attempts
        if a.task is not None and a.verdict in ("replays", "restart")
    }
    for _, task in reruns:
        if task.task_id in given or not task.node:
            continue
        kept = [a for a in attempts if a.node == task.node and a.verdict == "kept"]
        if kept and not any(a.task is task for a in attempts):
            lines = ", ".join(str(a.lines[0].line) for a in kept)
            out.append(
                f"`{task.node}` runs again (task {task.task_id}), and the log shows `{task.node}` starting "
                f"(lines {lines}) but cannot tell which start belongs to it."
            )
    return out
