"""Each mode's outcome: the resume what landed leaves, task by task, and the what-if itself."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from replaylens import namespaces
from replaylens.analysis.align import paired_newest, realigned, split_runs
from replaylens.analysis.attempts import Attempt, effect_counts
from replaylens.analysis.durability._memo import one_reading_scope, per_evidence
from replaylens.analysis.durability.evidence import (
    INSTANCE,
    QUEUED_UNSURE,
    RAISE_UNSURE,
    REPLAY_START_UNSURE,
    Evidence,
    Put,
    base_space,
    cancelled_at_raise,
    gather,
    node_path,
    nodes_named_by_level,
    run_from_earlier,
    span_only,
    taken_at,
    task_run,
)
from replaylens.analysis.durability.inference import WAIT_SEEN, Inference, infer_mode
from replaylens.analysis.durability.rules import (
    INFERRED,
    MODES,
    RACE,
    TICK,
    WRITE_COST,
    WRITE_COST_SPAN,
    Ending,
    Mode,
    Recording,
    is_recorded,
)
from replaylens.analysis.durability.schedule import (
    LEAST_WORKERS,
    Schedule,
    failed_out_spans,
    fan_out_starts,
    queued_writes,
    schedule,
    stable_saves_unplaced,
    wave_starts,
)
from replaylens.analysis.durability.words import KIND_UNSURE, mode_sentence, unlogged_tasks_note
from replaylens.analysis.joins import join_channels, join_never_fires, names_triggers
from replaylens.analysis.node_cache import CACHE_UNSURE, Stored, cache_readings, served_for_certain
from replaylens.model import Checkpoint, Namespace, Task, Thread
from replaylens.times import checkpoint_id_epoch, iso_to_epoch


@dataclass
class ModeOutcome:
    """What a crash at the recorded point of progress would leave under one durability mode."""

    mode: Mode
    latency: float
    checkpoints_kept: int
    resume_checkpoint_id: str | None
    resume_step: int | None
    reruns: list[dict[str, Any]]
    replayed_lines: list[int]
    replayed_effects: dict[str, int]
    window_start: float | None
    window_end: float | None
    restart: bool
    sentence: str
    as_recorded: bool
    ending: Ending = "killed"
    kept_checkpoint_ids: list[str] = field(default_factory=list)
    lost_checkpoint_ids: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    race: dict[str, Any] = field(default_factory=dict)
    """min/max of each count where the evidence cannot decide between outcomes: a write
    landing within `RACE` of the kill, or a recorded mode that could have been several."""
    lost_branch: bool = False
    """The killed run went on from an earlier checkpoint and this mode saved nothing of it:
    the resume never runs that branch (`Evidence.replays`); work is lost, not repeated."""
    lost_input: bool = False
    """The killed invocation was a later fresh input and this mode saved nothing of it, not
    even its input checkpoint (`lost_inputs`): the resume never runs it; the input is lost."""
    basis: dict[str, str] = field(default_factory=dict)
    """Where each figure comes from, in words: `checkpoints_kept`, `reruns`, `replayed_lines`."""
    inference: dict[str, Any] = field(default_factory=dict)
    """With the recorded mode unknown: the modes it could have been, how sure, on what that
    rests (`Inference.to_json`); empty when a manifest or the user named the mode."""

    @property
    def figures(self) -> tuple[int, int, int]:
        """(checkpoints kept, tasks re-run, effect lines again): the three figures a range
        stretches and the validation compares with what real runs measured."""
        return (self.checkpoints_kept, len(self.reruns), len(self.replayed_lines))

    @property
    def assumptions(self) -> dict[str, list[str]]:
        return {"used": self.used, "assumed": self.assumed}

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "latency_seconds": self.latency,
            "as_recorded": self.as_recorded,
            "ending": self.ending,
            "checkpoints_kept": self.checkpoints_kept,
            "resume_checkpoint": (
                None
                if self.restart
                else {"checkpoint_id": self.resume_checkpoint_id, "step": self.resume_step}
            ),
            "resume_checkpoint_id": self.resume_checkpoint_id,
            "resume_step": self.resume_step,
            "reruns": self.reruns,
            "replayed_lines": self.replayed_lines,
            "replayed_line_count": len(self.replayed_lines),
            "replayed_effects": self.replayed_effects,
            "window_start": self.window_start,
            "window_end": self.window_end,
            "restart": self.restart,
            "sentence": self.sentence,
            "kept_checkpoint_ids": self.kept_checkpoint_ids,
            "lost_checkpoint_ids": self.lost_checkpoint_ids,
            "assumptions": self.assumptions,
            "race": self.race or None,
            "lost_branch": self.lost_branch,
            "lost_input": self.lost_input,
            "basis": self.basis,
            "recorded_mode_inference": self.inference or None,
        }


def _resume_steps(landed: set[tuple[str, int, int]]) -> dict[str, int]:
    """The step of the latest landed checkpoint per namespace (what a resume loads)."""
    out: dict[str, tuple[int, int]] = {}
    for ns, inv, step in landed:
        if ns not in out or (inv, step) > out[ns]:
            out[ns] = (inv, step)
    return {ns: v[1] for ns, v in out.items()}


def _attempts_of_last(ev: Evidence) -> list[Attempt]:
    """The attempts of the thread's last invocation (the one a kill cut short, if any)."""
    last = ev.invocations - 1
    return [a for a in ev.attempts if id(a) in ev.step_of and ev.step_of[id(a)][1] == last]


def _root_resumed_at(landed: set[tuple[str, int, int]]) -> tuple[int, int] | None:
    """(invocation, step) of the newest root checkpoint that landed, where a resume goes on;
    None where none did (a restart)."""
    roots = [(inv, step) for ns, inv, step in landed if ns == ""]
    return max(roots) if roots else None


def _reruns(ev: Evidence, sched: Schedule, keep_dropped: bool = False) -> list[Attempt]:
    """The attempts whose task a resume from what landed would run again (`keep_dropped`:
    reading no run of a stable graph as dropped, `_widen_for_forked_stable`)."""
    resume = _resume_steps(sched.landed)
    at = _root_resumed_at(sched.landed)
    if at is None:  # a restart (no checkpoint: invoke(None) raises) repeats everything
        return list(ev.attempts)
    r_inv, r = at
    lost = lost_inputs(ev, sched.landed)
    # A run from an earlier checkpoint (or an input sent to one) after an invocation leaves
    # that one's work in the history the branch left: a resume goes on along the branch,
    # whatever their steps.
    branched = ev.replays | ev.branch_inputs
    behind = {i for i in range(r_inv) if any(i < j <= r_inv for j in branched)}
    # Writes belong to the task, not to one attempt of it: a task paused at interrupt() and
    # answered in a later invocation is finished once the answered attempt's writes landed.
    again = {
        id(a): ev.step_of[id(a)][1] not in lost
        and ev.step_of[id(a)][1] not in behind
        and (
            keep_dropped
            or not _dropped_stable_run(ev, sched.landed, *ev.step_of[id(a)][:2], (r_inv, r))
        )
        and _runs_again(ev, sched, resume, a, *ev.step_of[id(a)], r, branches=keep_dropped)
        for a in ev.attempts
    }
    done = {_task_key(a, ev) for a in ev.attempts if not again[id(a)]}
    return [
        a
        for a in ev.attempts
        if again[id(a)]
        and _task_key(a, ev) not in done
        and not (_cached(ev, a) and _due_at_resume(ev, resume, a, r_inv, r))
    ]


def _cached(ev: Evidence, a: Attempt, reading: str = "stored") -> bool:
    """Did `a`'s task put its result into a node cache that outlives the process (`reading`
    "maybe": may it have)?"""
    if not ev.cached_nodes:
        return False
    found = _cache_readings(ev).get(id(a), "")
    return found == "stored" or (reading == "maybe" and found == "maybe")


@per_evidence
def _cache_readings(ev: Evidence) -> dict[int, Stored]:
    return cache_readings(ev.attempts, ev.cached_nodes)


def _due_at_resume(ev: Evidence, resume: dict[str, int], a: Attempt, r_inv: int, r: int) -> bool:
    """Is `a`'s task due at the checkpoint the resume loads (its input that checkpoint's, so
    a node cache serves it for certain)? A root task of the step after it; a subgraph's task
    is left a guess (`_widen_for_cache`)."""
    ns, inv, step = ev.step_of[id(a)]
    if ns != "" or inv < r_inv or resume.get("") != r:
        return False
    # (an input checkpoint of a StateGraph holds ``__start__`` alone, which hands the input on)
    passes_input = not ev.functional and any(
        p.input and not p.ns and p.inv == r_inv and p.step == r for p in ev.puts
    )
    return served_for_certain(step, r, passes_input)


def _dropped_stable_run(
    ev: Evidence,
    landed: set[tuple[str, int, int]],
    ns: str,
    inv: int,
    resumed_at: tuple[int, int],
    *,
    history: bool = True,
) -> bool:
    """Is `ns` (or a loop above it) a `checkpointer=True` graph whose run in invocation `inv`
    left no checkpoint, though an earlier run of it did, and whose task the resume runs in
    its first step? The resume runs the task that invokes it again, with LangGraph's
    resuming flag (``CONFIG_KEY_RESUMING``, passed down to a graph a task invokes): the graph
    goes on from its latest checkpoint, the earlier run's end, where nothing is due, and
    drops the new input. That run's tasks never run again; their work is lost, not repeated
    (test_stateful_namespace_isolation's veggie graph, killed before its second run's input
    checkpoint landed: on every release, 0.2.76, whose loop never drops the flag, and 0.6.11
    under `ainvoke` at 0.5 s, whose loop hands it to its first step's tasks as today's does).
    Not in a thread run from an earlier checkpoint (`evidence.run_from_earlier`): which of
    the graph's checkpoints the resume loads, the database does not tell. The flag lives for
    the first step of each loop the resume enters only (a loop drops it after its first
    tick): a task that invokes the graph in a later
    step of the loop above, after that loop first finished an earlier one, hands it a fresh
    input, and the run's tasks run again (test_stateful_subgraph_loads_state_across_ticks,
    killed in the subgraph's node under async, whose checkpoint after the step before had
    not landed; test_three_level_nested_subgraph_loads_state_on_replay, one level down).
    `history=False` leaves the thread's history out: such a run, whether or not the thread
    was run from an earlier checkpoint (`_widen_for_forked_stable`)."""
    if history and run_from_earlier(ev.db_checkpoints):
        return False
    parts = ns.split("|")
    for k in range(1, len(parts) + 1):
        top = "|".join(parts[:k])
        if top not in ev.stable or any(key[0] == top and key[1] == inv for key in landed):
            continue
        # where the loop right above resumes: its latest landed checkpoint
        above = top.rpartition("|")[0]
        loaded = max(((k[1], k[2]) for k in landed if k[0] == above), default=resumed_at)
        held_at = ev.container.get((top, inv))
        # (a resume went on from that checkpoint: its steps count on from it, and so do the
        # resume's after the kill, also when it was saved by an invocation before — a run
        # from a middle graph's own checkpoint that paused, then its answer, killed:
        # test_3_levels_deep_middle_has_interrupts under exit)
        went_on = loaded[0] == inv or (inv < len(ev.kinds) and ev.kinds[inv] == "resume")
        if held_at is not None and went_on and held_at > loaded[1] + 1:
            continue  # its task runs after that loop's first step: a fresh input
        before = [key for key in landed if key[0] == top and key[1] < inv]
        if before and _run_had_ended(ev, max(before, key=lambda key: (key[1], key[2]))):
            return True
    return False


def _run_had_ended(ev: Evidence, key: tuple[str, int, int]) -> bool:
    """Was the checkpoint at `key` the end of its loop's run (nothing due there)? A run that
    paused there goes on from it on a resume instead (its due task runs again)."""
    put = next((p for p in ev.puts if (p.ns, p.inv, p.step) == key), None)
    if put is not None and put.checkpoint is not None:
        return not put.checkpoint.tasks
    return key[1] < len(ev.endings) and ev.endings[key[1]] == "returned"


def lost_inputs(ev: Evidence, landed: set[tuple[str, int, int]]) -> set[int]:
    """Later fresh-input invocations, and runs from an earlier checkpoint, of which no root
    checkpoint landed (not even the input checkpoint, or the copy): the input is lost with
    them, so a resume (`invoke(None)`) goes on from what an earlier invocation saved and
    never runs their tasks; sending that input again would.
    A subgraph's checkpoint of that invocation does not help: a resume starts from the
    root's latest (a ``checkpointer=True`` subgraph saves when its run returns, under exit too).

    `landed` holds (namespace, invocation, step) of the checkpoints a mode kept: a
    schedule's for a modelled mode, the database's own for the recorded resume."""
    # An update_state checkpoint dated inside the invocation was no part of it (written
    # between invocations, kept in every mode): it does not make the input resumable.
    edits = {(p.ns, p.inv, p.step) for p in ev.puts if p.edit}
    # A run from an earlier checkpoint that saved nothing, not even the copy it began with,
    # is lost the same way: a resume goes on along the older branch.
    copied = {p.inv for p in ev.puts if p.replay}
    out: set[int] = set()
    for inv in range(1, ev.invocations):
        if ev.kinds[inv] != "input" and inv not in copied:
            continue
        if not any(k[1] == inv and k[0] == "" and k not in edits for k in landed):
            out.add(inv)
    return out


def _held(ev: Evidence) -> set[tuple[str, int, int]]:
    """(namespace, invocation, step) of the checkpoints the database holds: what the recorded
    resume goes on from."""
    return {(p.ns, p.inv, p.step) for p in ev.puts if p.checkpoint is not None}


def _killed_input_lost(ev: Evidence, landed: set[tuple[str, int, int]]) -> bool:
    """Was the invocation the kill ended a later fresh input that saved nothing (`lost_inputs`)?"""
    return ev.ending == "killed" and ev.invocations - 1 in lost_inputs(ev, landed)


def lost_input_attempts(
    thread: Thread | None, attempts: list[Attempt], status: str, recording: Recording
) -> set[int]:
    """id() of the attempts (aligned, not yet judged) of invocations lost with their input in
    the database as it stands: what the verdicts take from `lost_inputs`, so the recorded
    resume and every modelled mode follow the one rule."""
    ev = gather(thread, attempts, status, recording)
    lost = lost_inputs(ev, _held(ev))
    if not lost:
        return set()
    return {id(a) for a in ev.attempts if ev.step_of[id(a)][1] in lost}


def _handler(a: Attempt) -> bool:
    """An error handler's attempt: a resume from the checkpoint before its step runs it
    again, saved writes or not (`Task.done`)."""
    return namespaces.is_error_handler(a.node)


def _runs_again(
    ev: Evidence,
    sched: Schedule,
    resume: dict[str, int],
    a: Attempt,
    ns: str,
    inv: int,
    step: int,
    r: int,
    branches: bool = False,
) -> bool:
    """Does `a` (a task of loop `ns`, invocation `inv`, step `step`) run again on a resume
    from what landed? `branches`: a subgraph loop whose latest landed checkpoint is an
    earlier invocation's counts as not landed for `a` (a thread run from an edit numbers its
    stable graphs' steps on the new branch alike with the old: `_widen_for_forked_stable`)."""
    if ns == "":
        if sched.mode == "exit" and inv == ev.invocations - 1 and id(a) in ev.pushed_by_command:
            return False  # the Command's writes were lost with the killed invocation
        return step > r + 1 or (step == r + 1 and (id(a) not in sched.written or _handler(a)))
    holder = ev.holder_of.get((ns, inv, step), ev.container.get((ns, inv)))
    if holder is None:
        return True  # its parent step is unknown: assume it runs again
    # The holder is a step of the loop right above (the root's, or a subgraph's for a graph
    # two levels down): compare it with where that loop's resume goes on.
    parent = ns.rpartition("|")[0]
    up = r if not parent else resume.get(parent)
    if branches and parent and up is not None and _landed_before(sched, parent, inv):
        up = None
    if up is None:  # nothing of the loop above landed: it runs the step again only if its task does
        return _loop_runs_again(ev, resume, parent, inv, holder, r)
    if holder <= up:
        return False
    if holder > up + 1 or ns not in resume or (branches and _landed_before(sched, ns, inv)):
        return True  # the subgraph starts over: its parent task is new, or nothing of it landed
    inner = resume[ns]
    if step != inner + 1:
        return step > inner + 1
    if id(a) not in sched.written or _handler(a):
        return True
    # Its writes are saved on the checkpoint its subgraph resumes from. A release that runs
    # a re-entered subgraph's finished tasks again (`rules.SUBGRAPH_WRITES_REUSED_SINCE`)
    # runs it again, if the subgraph is re-entered at all.
    if ev.subgraph_writes_reused:
        return False
    if parent and not _holder_done(ev, sched, parent, inv, holder):
        # The loop above is itself a subgraph the resume re-enters, at the checkpoint where
        # the task that ran this graph is due: that release runs the finished task again,
        # and this graph with it, whatever it saved above (`verdicts._holder_rerun`;
        # parent_command_deeply_nested on 1.0.10 under `ainvoke` at 0.3 s, from sync into
        # async: ``child_2``'s checkpoint after ``sub_child_2``'s step had not landed, and
        # the resume ran ``sub_sub_child`` again, 8 2 3 where 8 1 1 was said).
        return True
    return not _holder_done(ev, sched, ns, inv, step)


def _holder_done(ev: Evidence, sched: Schedule, ns: str, inv: int, step: int) -> bool:
    """Did the task running subgraph `ns` (its run of invocation `inv` that holds `step`) end
    with its writes saved in the loop above? A resume reuses them and does not re-enter the
    subgraph, whatever the subgraph's own checkpoint holds. So it did when every task of that
    run finished and the invocation went on past it (its end saves the writes under every
    mode), or when the run left `step` by raising a `Command(graph=PARENT)` whose writes,
    the raising tasks', landed."""
    holder = ev.holder_of.get((ns, inv, step), ev.container.get((ns, inv)))
    run = [
        b
        for b in ev.attempts
        if ev.step_of.get(id(b), ("", -1, 0))[:2] == (ns, inv)
        and ev.holder_of.get(ev.step_of[id(b)], ev.container.get((ns, inv))) == holder
    ]
    if not run:
        return False
    unfinished = [b for b in run if b.outcome != "finished" or id(b) in ev.halted]
    handled = {id(f) for f in ev.handlers.values()}
    if unfinished and all(b.outcome == "failed" and id(b) in handled for b in unfinished):
        # its failure raised out to the node's error handler, which ran: the failure was
        # saved first, and a resume runs the handler for it, not the task
        return True
    if unfinished:
        return False
    # (a run read as paused, re-timed to die on its way out at a given moment, had not ended)
    ended = inv < ev.invocations - 1 or (ev.ending != "killed" and sched.crash is None)
    if ended and inv not in ev.killed_earlier:
        return True
    same = [b for b in run if ev.step_of[id(b)][2] == step]
    return (ns, inv, step) in ev.raised_out and all(id(b) in sched.written for b in same)


def _landed_before(sched: Schedule, ns: str, inv: int) -> bool:
    """Is the latest landed checkpoint of loop `ns` an invocation's before `inv`?"""
    mine = [k[1] for k in sched.landed if k[0] == ns]
    return bool(mine) and max(mine) < inv


def _loop_runs_again(
    ev: Evidence, resume: dict[str, int], ns: str, inv: int, step: int, r: int
) -> bool:
    """Does loop `ns` run its step `step` again on a resume? The root runs the steps after the
    one it resumes from; a subgraph with nothing landed runs from its start when the task of
    the loop above that runs it does (its own holder, and so on up)."""
    if not ns:
        return step > r
    holder = ev.holder_of.get((ns, inv, step), ev.container.get((ns, inv)))
    if holder is None:
        return True
    parent = ns.rpartition("|")[0]
    up = r if not parent else resume.get(parent)
    if up is None:
        return _loop_runs_again(ev, resume, parent, inv, holder, r)
    return holder > up


def _task_key(a: Attempt, ev: Evidence) -> tuple[str, str, int, str]:
    ns, _inv, step = ev.step_of[id(a)]
    run = [a, *task_run(ev, a)]
    if id(a) in ev.halted:  # it paused; the same task began again in a later invocation
        run += [
            b
            for b in ev.attempts
            if b.node == a.node and ev.step_of[id(b)][::2] == (ns, step) and b is not a
        ]
    ids = [b.task_id or (b.task.task_id if b.task else "") for b in run]
    tid = next((t for t in ids if t), "")  # one effect of the task aligned names them all
    return (ns, a.node, step, tid or f"#{ev.ordinal.get(id(a), 0)}")


def _rerun_list(replayed: Iterable[Attempt], ev: Evidence) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str, int, str], dict[str, Any]] = {}
    ids: set[str] = set()  # a task id names one task, whichever run of its loop holds it
    for a in sorted(replayed, key=lambda x: x.start_ts):
        key = _task_key(a, ev)
        known = not key[3].startswith("#")
        if key in seen or (known and key[3] in ids):
            continue
        if known:
            ids.add(key[3])
        seen[key] = {
            "node": a.node,
            "step": key[2],
            "checkpoint_ns": base_space(key[0]),
            "task_id": key[3] if known else None,
        }
        if INSTANCE in key[0]:
            # one of several runs of that subgraph side by side (`evidence.space_keys`)
            seen[key]["run"] = int(key[0].rpartition(INSTANCE)[2].partition("|")[0])
    return list(seen.values())


def _outcome(
    mode: Mode,
    latency: float,
    ev: Evidence,
    replayed: list[Attempt],
    kept_ids: list[str],
    count: int,
    resume_cp: Checkpoint | None,
    resume_step: int | None,
    restart: bool,
    as_recorded: bool,
    used: list[str],
    assumed: list[str],
    lost_branch: bool = False,
    lost_input: bool = False,
) -> ModeOutcome:
    lines = sorted(line.line for a in replayed for line in a.lines)
    # Executions, as the sentence counts them (`effect_counts`): two attempts of one task in
    # the log (an interrupted node asked again) are one execution, not two.
    effects: Counter[str] = Counter()
    for per_node in effect_counts(replayed).values():
        effects.update(per_node)
    kept_set = set(kept_ids)
    window = [line.ts for a in replayed for line in a.lines]
    all_ids = [c.checkpoint_id for c in ev.db_checkpoints]
    reruns = _rerun_list(replayed, ev) if ev.attempts else _db_reruns(ev, resume_cp, restart)
    return ModeOutcome(
        mode=mode,
        latency=latency,
        checkpoints_kept=count,
        resume_checkpoint_id=resume_cp.checkpoint_id if resume_cp else None,
        resume_step=resume_step,
        reruns=reruns,
        replayed_lines=lines,
        replayed_effects=dict(sorted(effects.items())),
        window_start=min(window) if window and ev.ending == "killed" else None,
        window_end=(ev.crash_ts if window and ev.ending == "killed" else None),
        restart=restart,
        sentence=mode_sentence(
            mode,
            resume_step,
            replayed,
            restart,
            ev.ending,
            logged=bool(ev.attempts),
            kept=count,
            lost_branch=lost_branch,
            lost_input=lost_input,
        ),  # fmt: skip
        as_recorded=as_recorded,
        ending=ev.ending,
        kept_checkpoint_ids=kept_ids,
        lost_checkpoint_ids=[i for i in all_ids if i not in kept_set],
        used=list(used),
        assumed=list(assumed),
        basis=_basis(ev, mode, as_recorded, restart),
        lost_branch=lost_branch,
        lost_input=lost_input,
    )


def _db_reruns(ev: Evidence, resume_cp: Checkpoint | None, restart: bool) -> list[dict[str, Any]]:
    """Without an effects log, the tasks a resume runs again as the database names them: the
    unfinished tasks due at the resume checkpoint, or every root task for a restart."""
    root = [c for c in ev.db_checkpoints if not c.checkpoint_ns]
    due = root if restart else [c for c in root if resume_cp is not None and c is resume_cp]
    out: dict[str, dict[str, Any]] = {}
    for c in sorted(due, key=lambda c: c.step if c.step is not None else -2):
        for t in c.tasks:
            if t.node.startswith("__"):
                continue  # `__start__` and LangGraph's own tasks are not the user's work
            if (restart or not t.done) and t.task_id not in out:
                out[t.task_id] = {
                    "node": t.node,
                    "step": t.step,
                    "checkpoint_ns": "",
                    "task_id": t.task_id,
                }
    return list(out.values())


def _basis(ev: Evidence, mode: Mode, as_recorded: bool, restart: bool) -> dict[str, str]:
    """Which figures come from the database alone, the effects log, or the model of `mode`."""
    if ev.attempts:
        kept = (
            "the database as it stands"
            if as_recorded
            else "the model: the log's task times re-timed under this mode"
        )
        return {
            "checkpoints_kept": kept,
            "reruns": "the effects log's task attempts",
            "replayed_lines": "the effects log",
        }
    if as_recorded or mode != "exit":
        kept = (
            "the database alone: every saved checkpoint (without an effects log the kill moment "
            "is taken just after the last one landed)"
        )
    else:
        kept = "the model alone: exit saves nothing of an invocation that was killed"
    return {
        "checkpoints_kept": kept,
        "reruns": (
            "the database alone: every task its checkpoints name, for a restart"
            if restart
            else "the database alone: the unfinished tasks due at the resume checkpoint"
        ),
        "replayed_lines": "unknown: no effects-log line of this thread",
    }


def modelled(
    mode: Mode, latency: float, ev: Evidence, recording: Recording
) -> tuple[ModeOutcome, Schedule]:
    sched = schedule(ev, mode, latency, recording)
    replayed = _reruns(ev, sched)
    resume = _resume_steps(sched.landed)
    restart = "" not in resume
    step = resume.get("")
    kept_ids = [
        p.checkpoint.checkpoint_id
        for p in ev.puts
        if (p.ns, p.inv, p.step) in sched.landed and p.checkpoint is not None
    ]
    count = len(sched.landed) + sched.stubs
    if mode != "exit" and sched.crash is None:
        # No moment of the kill is known: every checkpoint the database holds landed under a
        # mode that writes them (`schedule`'s rule), also those no put carries. Without a
        # log nothing splits the thread into invocations, so two runs of one subgraph share
        # (namespace, step) and one put stands for both checkpoints.
        carried = set(kept_ids)
        missing = [c.checkpoint_id for c in ev.db_checkpoints if c.checkpoint_id not in carried]
        kept_ids += missing
        count += len(missing)
    resume_cp = (
        None
        if restart
        else next(
            (c for c in reversed(ev.db_checkpoints) if not c.checkpoint_ns and c.step == step),
            None,
        )
    )
    assumed = list(ev.assumed)
    if mode != "exit" and latency > 0:
        assumed.append(f"every checkpoint write takes {latency:g} s")
    used = list(ev.used)
    # the killed invocation ran from an earlier checkpoint and nothing of it landed, not even
    # the copy it began with: a resume goes on from the run before it (`Evidence.replays`)
    last = ev.invocations - 1
    lost_branch = last in ev.replays and not any(k[0] == "" and k[1] == last for k in sched.landed)
    lost_input = _killed_input_lost(ev, sched.landed)
    out = _outcome(
        mode,
        latency,
        ev,
        replayed,
        kept_ids,
        count,
        resume_cp,
        step,
        restart,
        False,
        used,
        assumed,
        lost_branch,
        lost_input,
    )
    unwritten = _closed_after_lost_pause(ev, sched, recording.kill_node)
    if unwritten:
        out.replayed_lines = [n for n in out.replayed_lines if n not in unwritten]
        out.assumed.append(
            f"the kill came while the pause was being saved: {len(unwritten)} span end(s) of "
            "the tasks around the paused one, which close only once the save is done, were "
            "not written under this mode"
        )
    _drop_lines_after_return(ev, sched, out)
    out.race = _race(ev, mode, latency, recording, out, sched)
    if out.race:
        out.assumed.append(out.race["note"])
    _widen_exit_for_kill_race(ev, mode, recording, replayed, out)
    _widen_for_closed_spans(ev, sched, replayed, out)
    _widen_for_unplaced(ev, mode, sched, replayed, out)
    _widen_for_runs(ev, mode, out)
    _widen_for_late_barrier(ev, mode, latency, recording, sched, out)
    _widen_for_joined(ev, replayed, out)
    _widen_for_unlogged(ev, out)
    _widen_for_forked_stable(ev, sched, replayed, out)
    _widen_for_killed_in_saved_step(ev, sched, replayed, out)
    _widen_for_open_spans(ev, mode, latency, recording, sched, out)
    _widen_for_unknown_pause_kill(ev, mode, latency, recording, sched, out)
    _widen_for_dated_pause_kill(ev, mode, latency, recording, sched, out)
    _widen_for_busy_workers(ev, mode, latency, recording, sched, out)
    _widen_for_cancelled(ev, mode, latency, recording, sched, out)
    _widen_for_raise_at_apply(ev, mode, latency, recording, sched, out)
    _widen_for_exit_return(ev, mode, latency, recording, out)
    _widen_for_ended_runs(ev, mode, latency, recording, out)
    _widen_for_exit_pause_before_kill(ev, mode, latency, recording, sched, out)
    _widen_for_cache(ev, replayed, out, [a for a in replayed if _cached(ev, a, "maybe")])
    return out, sched


def _widen_exit_for_kill_race(
    ev: Evidence, mode: Mode, recording: Recording, replayed: list[Attempt], out: ModeOutcome
) -> None:
    """Under exit nothing of the killed invocation is saved, so no write races the kill
    (`_race` asks none); the kill races the tasks' own lines. A real kill lands within RACE
    of its aim: a line the recording wrote in the RACE before the moment the aim dates may
    not have been written by a run of exit killed at the same aim, and a task whose every
    line falls there may not have started. The lines again (and tasks again) are the range
    down to without them (batch_update_sends on 1.2.24 under `ainvoke` at 0.15 s a write,
    kills 0.6 units later, from sync's trace: the first `Send` worker's span closed 14 ms
    before the dated kill; in the real exit run that worker took 24 ms longer and the kill
    came before its span closed, 3 lines again where 4)."""
    if (
        mode != "exit"
        or ev.ending != "killed"
        or ev.kill_chosen  # a moment chosen on the recorded clock is exact
        or recording.kill_offset is None
        or ev.crash_ts is None
        or ev.kill_unsure > 0
    ):
        return
    logged = [line.ts for a in ev.attempts for line in a.lines]
    if not logged or ev.crash_ts <= max(logged):
        return  # the log's last line dates the kill (no aim did): no line came after it
    early = ev.crash_ts - RACE
    near = {line.line for a in replayed for line in a.lines if early < line.ts <= ev.crash_ts}
    if not near & set(out.replayed_lines):
        return
    unstarted = [a for a in replayed if a.lines and all(line.line in near for line in a.lines)]
    spans = _spans(out)
    spans["replayed_lines"][0] = min(
        spans["replayed_lines"][0], len(set(out.replayed_lines) - near)
    )
    spans["reruns"][0] = min(spans["reruns"][0], len(out.reruns) - len(_rerun_list(unstarted, ev)))
    note = (
        f"a real kill lands within {RACE * 1000:g} ms of its aim: {len(near)} line(s) the "
        "recording wrote that close before it may not have been written by a run of exit "
        f"killed at the same aim: {spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} "
        "lines again"
    )
    _say_range(out, spans, note)


def _widen_for_exit_pause_before_kill(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    sched: Schedule,
    out: ModeOutcome,
) -> None:
    """Say the figures as a range where, under exit, the killed invocation may have paused and
    saved before the kill: in the recording only task spans waiting for their own graphs'
    puts were open (under exit they close at once, `Schedule.closed_spans`), and every other
    task of it had ended, one at a pause. Exit's loop then returned at that pause and saved
    it with the finished tasks' writes, which land at once (LangGraph 0.5.4 under `ainvoke`
    with Postgres at 0.6 s a write, multi_resume read from async's trace: the finished
    worker's span waited for its graph's puts; under exit the run paused and saved first,
    and only the two paused workers ran again: 4 4 16 where 4 6 23 was said)."""
    if mode != "exit" or ev.ending != "killed" or not sched.closed_spans:
        return
    mine = _attempts_of_last(ev)
    flying = {id(a) for a in mine if a.outcome == "in flight"}
    if not flying or not flying <= sched.closed_spans:
        return
    if not any(a.outcome == "interrupted" for a in mine) or any(
        a.outcome not in ("finished", "interrupted", "in flight") for a in mine
    ):
        return
    paused = dataclasses.replace(ev, ending="paused")
    fig = _schedule_figures(
        paused, schedule(paused, mode, latency, recording, closed=frozenset(flying))
    )
    if fig == out.figures:
        return
    spans = _stretched(_spans(out), fig)
    note = (
        "under exit the spans open at the kill, which only waited for their graphs' writes, "
        "close at once, and every task of the killed invocation had ended, one at a pause: "
        "the run may have paused and saved before the kill, "
        f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept, "
        f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks again"
    )
    _say_range(out, spans, note)


def _widen_for_ended_runs(
    ev: Evidence, mode: Mode, latency: float, recording: Recording, out: ModeOutcome
) -> None:
    """Say the checkpoints kept as a range where, under exit, a subgraph run that saves on its
    way out (`Evidence.exit_saved`) had finished every task it logged by the kill, but nothing
    shows whether it had left: its last step may have had nothing more due (LangGraph 0.4.10,
    send_to_subgraph killed in the second `Send` worker's ``generate``: the first worker's
    run had ended and saved, 1 kept where 0 was said)."""
    if mode != "exit" or ev.ending != "killed" or not ev.exit_saved:
        return
    fig = _schedule_figures(ev, schedule(ev, mode, latency, recording, runs_ended=True))
    if fig == out.figures:
        return
    spans = _stretched(_spans(out), fig)
    note = (
        "a subgraph run that saves on its way out under exit had finished every task it "
        "logged by the kill; whether it had left, and saved, the evidence does not show: "
        f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept"
    )
    _say_range(out, spans, note)


def _widen_for_exit_return(
    ev: Evidence, mode: Mode, latency: float, recording: Recording, out: ModeOutcome
) -> None:
    """Say the lines again as a range where, under exit, the kill came about when a task whose
    graph a failure left returned: that graph saved on its way out first, and the task's span
    closed only then (`schedule._failed_out_holders`). Exit keeps what it keeps whenever the
    kill came, so `_race` asks nothing of it; this end line is the one figure the moment
    moves (LangGraph 1.2.15, test_error_handler_subgraph_async's shape at 0.3 s a write: the
    save landed some 20 ms after the kill)."""
    if mode != "exit" or ev.ending != "killed" or not failed_out_spans(ev):
        return
    seen = {out.figures}
    for slack, cost in _race_variants(ev, mode, latency, recording):
        seen.add(_schedule_figures(ev, schedule(ev, mode, latency, recording, slack, cost)))
    if len(seen) == 1:
        return
    spans = _spans(out)
    for figures in seen:
        _stretched(spans, figures)
    note = (
        "the kill came about when a task whose subgraph a failure left returned, which under "
        "exit waits for that subgraph's save on its way out: its span's end was written or "
        f"not, {spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
    )
    _say_range(out, spans, note)


def _widen_for_cancelled(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    sched: Schedule,
    out: ModeOutcome,
) -> None:
    """Say the figures as a range where a task's step raised after its lines ended and the
    database cannot show whether the raise waited for it or cancelled it
    (`evidence.cancelled_at_raise`): under sync and async its writes were put as it ended,
    or never.

    test_timeout_with_parent_command under `ainvoke` at 0.5 s a write, killed in the second
    input's ``slow``: the first input's ``slow`` overran the step's timeout, and `ainvoke`
    cancelled it (its thread ran on and logged its end) and saved its error. The exit
    recording holds no write of it: read as `invoke` reads it, async had put its writes and a
    resume ran nothing again (2 0 0), where the real async run re-ran it (2 1 2)."""
    if mode == "exit" or not any(cancelled_at_raise(a) is None for a in ev.attempts):
        return
    _widen_for_schedule(
        ev,
        sched,
        schedule(ev, mode, latency, recording, cancelled_unsure=True),
        out,
        "a task ran on past its step's raise (a step_timeout), and the database holds no "
        "write of it to show whether the raise waited for it (`invoke`: its writes put as it "
        "ended) or cancelled it (`ainvoke`: never put)",
    )


def _widen_for_raise_at_apply(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    sched: Schedule,
    out: ModeOutcome,
) -> None:
    """Under exit, say the figures as a range where a step raised after its tasks' lines
    ended and two of them wrote one channel that nothing shows taking several values a step
    (`Evidence.raise_at_apply_unsure`): LangGraph raising as it applied their writes (a
    ``LastValue`` written twice) saved them all at the raise; a step_timeout, raising while
    the last one ran, did not save that one's.

    test_invoke_two_processes_two_in_two_out_invalid's two nodes writing the plain key
    `hello`, recorded under sync, killed in the second input: read as a step_timeout, exit
    was said to run the second node again (1 1 2) where the real exit resume ran nothing
    (1 0 0): the save at the raise held both writes."""
    if mode != "exit" or not ev.raise_at_apply_unsure:
        return
    _widen_for_schedule(
        ev,
        sched,
        schedule(ev, mode, latency, recording, raised_at_apply=True),
        out,
        "a step raised after its tasks' lines ended, and two of them wrote the same channel: "
        "LangGraph raising as it applied their writes (one value per step) saved them all at "
        "the raise, a step_timeout raising while the last one ran did not save its writes; "
        "the database cannot tell which",
    )


def _widen_for_schedule(
    ev: Evidence, sched: Schedule, alt: Schedule, out: ModeOutcome, why: str
) -> None:
    """Widen `out` to hold what `alt`, the same mode re-timed under another reading of what
    the recording cannot show, lands and runs again, saying `why` and the range of
    checkpoints kept and tasks again; nothing where the two schedules agree."""
    if alt.landed == sched.landed and alt.written == sched.written:
        return
    spans = _stretched(_spans(out), _schedule_figures(ev, alt))
    if all(low == high for low, high in spans.values()):
        return
    note = (
        f"{why}: "
        f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept, "
        f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks again"
    )
    _say_range(out, spans, note)


def _widen_for_busy_workers(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    sched: Schedule,
    out: ModeOutcome,
) -> None:
    """Say the figures as a range where a step's tasks ran in waves and async's puts would be
    in flight as it starts: the puts run on the executor the tasks queue on, each holding a
    worker (waiting there for the put before it), so with few workers the tasks wait for them,
    and how long the recording (sync or exit, whose puts held no worker then) cannot show.
    At one end no put holds a worker; at the other the step waits for every put in flight.

    test_max_concurrency's six `Send` workers, two at a time, at 1.5 s a write, killed in
    ``collect``: re-timed from sync and exit, nothing had landed by the kill (0 kept, 7 tasks
    and 13 lines again); the real async run's workers ran one at a time once the input
    checkpoint's put had freed a worker, and it kept 2, ``collect`` alone again.

    So may a step of two tasks or more whose tasks all started at once in the recording:
    under async on a slow store the puts queued behind one another each hold a worker, and
    the default executor has as few as `LEAST_WORKERS` (its size follows the machine's CPUs,
    which nothing recorded shows). join_loop_cond_edge on LangGraph 1.0.10 and Postgres at
    0.65 s a write, killed in ``qa``: five puts in flight when the loop's second fan-out
    began left one worker of six, so ``retriever_two`` started only as ``analyzer_one``
    ended; re-timed from sync, async kept 4 and ran 7 tasks again where the real run, that
    much later to the kill, kept 5 and ran 6."""
    if mode != "async" or latency <= 0:
        return
    if wave_starts(ev):
        why = (
            "a step's tasks ran in waves (fewer workers than tasks), and under this mode the "
            "checkpoint writes in flight hold workers of the same executor: how long its tasks "
            "waited for them the recording cannot show"
        )
    elif fan_out_starts(ev):
        why = (
            "under this mode the checkpoint writes in flight each hold a worker of the "
            "executor a step's tasks run on, and how many workers it has (from "
            f"{LEAST_WORKERS}, by the machine's CPUs) nothing recorded shows: a task may have "
            "waited for one"
        )
    else:
        return  # (no step of two tasks or more: the second schedule would be the first)
    alt = schedule(ev, mode, latency, recording, puts_hold_workers=True, workers=LEAST_WORKERS)
    _widen_for_schedule(ev, sched, alt, out, why)


def _widen_for_unknown_pause_kill(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    sched: Schedule,
    out: ModeOutcome,
) -> None:
    """Say the figures as a range where the last invocation paused and nothing dates the
    kill: the process may have died as soon as its last line was written and what the
    database holds of it had landed, and a mode that saves the pause later (async's puts
    queued behind the steps it never waited for, or exit's save on the way out) lost it
    then; where the paused task logged nothing before it asked, under async it asked a tick
    after the step before it ended, not after the recorded mode's wait for that step's put
    (`_unlogged_pause_began`), and that kill is the earliest. At the other end it lived on,
    and the pause was saved under every mode. Where the same process logged other threads'
    lines after this thread's last one (`Recording.went_on`), it lived on: the pause reads as
    clean, as a returned invocation does (the sample payment-approved.db's thread awaiting
    approval).

    round 37's stateful_subgraph_forked_turns from sync at 0.25 s a write, read without its
    manifest: the database holds the pause, and the real async run kept 19 checkpoints where
    a clean pause keeps 20; the real exit run kept 12 and ran ``step_b`` again."""
    if ev.ending != "paused" or ev.pause_kill is not None or recording.kill_offset is not None:
        return
    if recording.went_on:
        return  # its process logged other threads' lines after: read as a clean pause
    if mode == recording.mode:
        return  # the database is the recorded mode's own answer
    last = ev.invocations - 1
    lag = (recording.latency or 0.0) + WRITE_COST
    saved = [p.submit + lag for p in ev.puts if p.inv == last and p.checkpoint is not None]
    logged = [line.ts for a in _attempts_of_last(ev) for line in a.lines]
    if not saved and not logged:
        return
    cut = max(saved + logged)  # the earliest kill: after the last line and the last save held
    alts = [schedule(ev, mode, latency, recording, pause_cut=cut)]
    if mode == "exit":
        # the pause rises through its graphs one save at a time, the innermost first
        # (`schedule._paused_out_holders`): a kill between two saves finds the spans of the
        # tasks around the outer graphs open
        levels = max(
            (
                namespaces.depth(ev.step_of[id(a)][0])
                for a in _attempts_of_last(ev)
                if a.outcome == "interrupted"
            ),
            default=0,
        )
        lag = latency + WRITE_COST
        alts += [
            schedule(ev, mode, latency, recording, pause_cut=cut + k * lag + TICK)
            for k in range(1, levels + 1)
        ]
    began = _unlogged_pause_began(ev) if mode == "async" else None
    if began is not None:
        # the paused task logged nothing before it asked: the recorded mode's wait for the
        # put before it is no gap of the log, and under async it asked a tick after the step
        # before it ended, its put still queued (`Evidence.pause_kill`, killed at once)
        # At once, and at moments while the puts queued before it were in flight: the
        # lines again need not be monotonic in the moment, a span closing in between
        # (subgraph_noop_replay_then_input at 0.25 s from sync with a trace, the mode
        # inferred: killed 0.2 s after ``ask_1`` asked, the real async run ran 2 tasks and
        # 3 lines again, where at once says 3 and 5 and a clean pause 2 and 4)
        asked = dataclasses.replace(ev, pause_kill=began)
        lag = latency + WRITE_COST
        for offset in (0.0, 0.25 * lag, 0.5 * lag, 0.75 * lag, lag, 2 * lag):
            at = dataclasses.replace(recording, kill_offset=offset)
            alts.append(schedule(asked, mode, latency, at))
    alts = [
        a for a in alts if not (a.landed >= sched.landed and a.stubs >= sched.stubs) or a.late_ends
    ]
    if not alts:
        return
    spans = _spans(out)
    for alt in alts:
        replayed = _reruns(ev, alt)
        unwritten = _closed_after_lost_pause(ev, alt, recording.kill_node, cut_short=True)
        if mode == "exit":  # (spans the pause closes only after it: `late_ends`)
            unwritten |= _unwritten_lines(ev, alt)
        lines = sum(1 for a in replayed for line in a.lines if line.line not in unwritten)
        spans = _stretched(
            spans, (len(alt.landed) + alt.stubs, len(_rerun_list(replayed, ev)), lines)
        )
    if all(low == high for low, high in spans.values()):
        return
    note = (
        "the run paused, but nothing dates the kill: if the process died as soon as it paused "
        "(after its last line, and after what the database holds had landed under the mode it "
        "ran under), this mode, which saves the pause later, "
        f"lost it: {spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints "
        f"kept, {spans['reruns'][0]}-{spans['reruns'][1]} tasks again"
    )
    _say_range(out, spans, note)


def _widen_for_dated_pause_kill(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    sched: Schedule,
    out: ModeOutcome,
) -> None:
    """Say the figures as a range where the last invocation reads as paused (every task it
    logged ended, and what the database holds of its pause had landed under the recorded
    mode) but the recording dates the kill a given time after the aimed node first started
    in it, after its last line: a mode that saves the pause later may still have been on its
    way out then (under async a task that ran a graph returns only once that graph's puts
    landed), and lost what it had not put. At the other end the pause was saved in time, as
    the recorded mode's was.

    LangGraph 0.5.4 under `ainvoke` with Postgres at 0.6 s a write, test_multi_resume's
    shape, killed 0.6 s after the answered invocation's first ``get_human_input`` started:
    the three `Send` workers' lines had ended and exit had saved the pause (the finished
    worker's writes with it) by then, so from exit nothing was said to run again under async
    (11 0 0), where the real async run, still saving, ran all three workers again (8 3 14)."""
    if ev.pause_moment is None or mode == recording.mode:
        return
    _widen_for_schedule(
        ev,
        sched,
        schedule(ev, mode, latency, recording, pause_cut=ev.pause_moment),
        out,
        f"the kill was dated {recording.kill_offset:g} s after {recording.kill_node} first "
        "started in the last invocation, after its last line: under this mode the run may "
        "still have been saving its pause then",
    )


def _unlogged_pause_began(ev: Evidence) -> float | None:
    """When the task that paused the last invocation began, on the recorded clock before any
    wait for a put, where it logged no line of its own before it asked (a trace's span of it
    may be there): the end of the last line of its invocation before it. None where the
    paused task's own lines date its pause.

    test_subgraph_first_interrupt_travel's fork on Postgres under `ainvoke` at 2 s a write,
    from sync with the mode inferred: ``ask_2`` asks before it logs; under sync it began once
    the step before had been saved, 2 s after ``ask_1``'s last line; the real async run asked
    at once and was killed with that step's checkpoint still being written (10 kept where a
    kill after the save keeps 11)."""
    mine = _attempts_of_last(ev)
    stopped = [a for a in mine if a.outcome == "interrupted"]
    paused = [a for a in stopped if not any(_holds(ev, a, b) for b in stopped)]
    if not all(span_only(a) for a in paused):
        return None
    began = min((a.start_ts for a in paused), default=float("inf"))
    ends = [a.end_ts for a in mine if a not in stopped and a.end_ts <= began]
    return max(ends, default=None)


def _widen_for_open_spans(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    sched: Schedule,
    out: ModeOutcome,
) -> None:
    """Say the tasks again as a range where a trace's task span was open at the kill after
    its own graphs had ended, and the recorded waits cannot tell why: with the recorded mode
    or latency unknown, it was either still waiting for its graphs' puts (and under this
    mode returned in time) or doing more work after them (`schedule._went_on_after_runs`).
    test_send_to_nested_graphs from async at 0.25 s with the mode inferred: a worker's span
    open 0.6 s after its subgraph's last task; the real sync run did not re-run it."""
    if mode == "exit" or (recording.mode is not None and recording.latency is not None):
        return
    if not any(a.outcome == "in flight" and span_only(a) for a in ev.attempts):
        return  # (no open span: nothing to ask a second schedule)
    alt = schedule(ev, mode, latency, recording, spans_returned=True)
    if alt.written <= sched.written:
        return
    _kept, tasks, lines = _schedule_figures(ev, alt)
    spans = _spans(out)
    spans["reruns"][0] = min(spans["reruns"][0], tasks)
    spans["replayed_lines"][0] = min(spans["replayed_lines"][0], lines)
    note = (
        "a task span was open at the kill after its own graphs had ended: it was waiting for "
        "their last writes (and under this mode returned in time) or went on working, which "
        "the unknown recorded write latency cannot tell: "
        f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks again"
    )
    _say_range(out, spans, note)


def _drop_lines_after_return(ev: Evidence, sched: Schedule, out: ModeOutcome) -> None:
    """A task that ran subgraph runs of its own returns, under a mode that waits for puts,
    only once those runs' loops left (async's executor waits for the puts in flight): where
    that came after the crash, its lines after its runs' (a trace's span end) were never
    written under this mode, and are not lines again (send_to_subgraph at 0.5 s a write,
    from exit: the first worker's span closed before the kill there, not under async)."""
    late = _unwritten_lines(ev, sched)
    if not late & set(out.replayed_lines):
        return
    out.replayed_lines = [n for n in out.replayed_lines if n not in late]
    out.assumed.append(
        f"{len(late)} line(s) of tasks that under {out.mode} return only once their own "
        "subgraph runs' puts land, after the crash, were never written"
    )


def _widen_for_closed_spans(
    ev: Evidence, sched: Schedule, replayed: list[Attempt], out: ModeOutcome
) -> None:
    """A trace's task span open at the recorded kill, waiting for its own runs' puts, closes
    at once under exit, which waits for none (`Schedule.closed_spans`): before the crash, its
    end is one more line again that the recording never wrote, and cannot number. The lines
    again are the range up to that many more (send_to_subgraph at 0.5 s from async: the
    first worker's span, open 0.6 s after its graph's last task, closed under exit, 14 lines
    again where the recording holds 13)."""
    extra = sum(1 for a in replayed if id(a) in sched.closed_spans)
    if not extra:
        return
    spans = _spans(out)
    spans["replayed_lines"][1] += extra
    note = (
        f"{extra} task span(s) open at the kill, waiting for their own graphs' writes, close "
        f"at once under {out.mode}: their end lines, which the recording never wrote, would "
        f"run again too: {spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} lines again"
    )
    _say_range(out, spans, note)


def _unwritten_lines(ev: Evidence, sched: Schedule) -> set[int]:
    """The lines `_drop_lines_after_return` leaves out: after their task's own runs' lines,
    of a task that returns after the crash under the schedule's mode."""
    return {
        line.line
        for a in ev.attempts
        if id(a) in sched.late_ends
        for line in a.lines
        if line.ts > sched.late_ends[id(a)]
    }


def _closed_after_lost_pause(
    ev: Evidence, sched: Schedule, kill_node: str | None, *, cut_short: bool = False
) -> set[int]:
    """Line numbers of a trace's spans that closed around a pause whose save the kill cut
    short under this mode (`Evidence.pause_kill`, a put of the last invocation lost).

    The paused task's own span ends as it raises; the span of the task that ran its graph
    ends only after that graph's loop left: under async once its puts in flight landed,
    under exit once it saved on the way out. A kill during that write finds it open (round
    37's stateful_subgraph_forked_turns from sync at 0.25 s a write: the real async and
    exit runs' traces had no end of ``sub_node``'s span). Under sync the put was waited for
    before the step could pause, and the span closed.

    `kill_node`: the node the recording aimed the kill at, which paused. None where no
    recording names it and `cut_short` asks (`_widen_for_unknown_pause_kill`): the paused
    tasks are then those whose spans hold no other paused task's graph."""
    if not cut_short and (ev.pause_kill is None or not kill_node):
        return set()
    last = ev.invocations - 1
    if all((p.ns, p.inv, p.step) in sched.landed for p in _pause_saves(ev, sched, last)):
        return set()
    mine = _attempts_of_last(ev)
    stopped = [a for a in mine if a.outcome == "interrupted"]
    if kill_node:
        paused = [a for a in stopped if a.node == kill_node]
    else:
        paused = [a for a in stopped if not any(_holds(ev, a, b) for b in stopped)]
    if not paused:
        return set()
    raised = max(a.end_ts for a in paused)
    own = {id(a) for a in paused}
    return {
        a.lines[-1].line
        for a in mine
        if id(a) not in own
        and a.outcome == "interrupted"
        and a.lines
        and all(line.describes_task for line in a.lines)
        and a.lines[-1].ts > raised
    }


def _pause_saves(ev: Evidence, sched: Schedule, inv: int) -> list[Put]:
    """The puts of invocation `inv` its pause waits for under the schedule's mode: every one
    under sync and async; under exit, which saves nothing as the steps go, the last of each
    loop, saved on its way out (round 62's subgraph_noop_replay_then_input from sync, a trace
    whose kill came in a later invocation it shows nothing of: the steps exit never saves
    read as a pause cut short, and the span of the task that ran the paused subgraph as never
    closed under exit, 3 lines again where 4)."""
    mine = [p for p in ev.puts if p.inv == inv]
    if sched.mode != "exit":
        return mine
    last: dict[str, Put] = {}
    for p in mine:
        if p.ns not in last or p.step > last[p.ns].step:
            last[p.ns] = p
    return list(last.values())


def _holds(ev: Evidence, a: Attempt, b: Attempt) -> bool:
    """Did `b` run inside a graph `a`'s task ran? Its loop is under `a`'s node, one level below
    `a`'s own loop (`Evidence.step_of`, instance marks and call counters left out)."""
    if a is b or id(a) not in ev.step_of or id(b) not in ev.step_of:
        return False
    own = node_path(ev.step_of[id(a)][0])
    chain = f"{own}{namespaces.NS_SEP}{a.node}" if own else a.node
    inner = node_path(ev.step_of[id(b)][0])
    return inner == chain or inner.startswith(chain + namespaces.NS_SEP)


def _widen_for_killed_in_saved_step(
    ev: Evidence, sched: Schedule, replayed: list[Attempt], out: ModeOutcome
) -> None:
    """Say the tasks again as a range where a log without task ids or namespaces filed the
    line in flight at the kill in a subgraph step this mode saved. No step with a task in
    flight completes, so that filing is the guess: the line was another run's of the same
    subgraph (`Send` workers that each run it, which a bare log cannot tell apart), whose
    step was not saved, and a resume runs its task again (test_parallel_interrupts_double
    from exit: sync and async nothing again where the real runs re-ran the killed worker)."""
    killed = ev.kill_attempt
    if killed is None or ev.ending != "killed" or killed.outcome != "in flight":
        return
    if any(a is killed for a in replayed) or id(killed) not in ev.step_of:
        return
    if any(a.task_id or a.logged_ns is not None for a in ev.attempts):
        return
    ns, inv, step = ev.step_of[id(killed)]
    resume = _resume_steps(sched.landed)
    if not ns or ns not in resume or step > resume[ns] or inv in lost_inputs(ev, sched.landed):
        return
    spans = _spans(out)
    spans["reruns"][1] += 1
    spans["replayed_lines"][1] += len(killed.lines)
    note = (
        f"the log names no task ids: the line in flight at the kill ({killed.node}) was filed "
        "in a step of its subgraph this mode saves, which no step with a task in flight is; "
        "it may be another run's of that subgraph, run again on a resume: "
        f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks and "
        f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
    )
    _say_range(out, spans, note)
    out.basis["reruns"] = out.basis.get("reruns", "") + (
        " (a range: the log cannot tell which run of the subgraph was killed)"
    )


NESTING_CHECKPOINTS = 3
"""Checkpoints one level of subgraph adds at most that a flat reading of the log does not
count: the subgraph's input checkpoint and its `__start__` step (``PregelLoop._first``, its
own loop), and, once it returned, the parent step that ran it (the parent's ``after_tick``)."""


def _unplaced(ev: Evidence) -> list[str]:
    """Nodes of a log that names no namespace which no checkpoint of the database names as a
    task: nothing shows whether they ran in the root or inside a subgraph."""
    if not ev.attempts or any(a.logged_ns is not None for a in ev.attempts):
        return []
    # Named as a task: a node seen only in a subgraph's `versions_seen` is placed there
    # (`evidence._subgraph_nodes`), but which run of the subgraph it was, nothing says.
    named = {t.node for c in ev.db_checkpoints for t in c.tasks}
    return sorted({a.node for a in ev.attempts if a.node not in named})


def _nesting_levels(ev: Evidence) -> int:
    """How many levels of subgraph an unplaced node could sit below the root: one more than
    the deepest namespace the database holds (a graph inside the deepest saved one keeps no
    checkpoint of its own when it has no checkpointer of its own and the run saved on exit).
    A call counter is no level: ``p:<id>|1``, the second graph one task invoked, is as deep
    as ``p:<id>`` (read as two, test_multiple_subgraphs_mixed_state_graph's range from a bare
    log reached 25 checkpoints kept where the database held 7)."""
    deepest = max((namespaces.depth(c.checkpoint_ns) for c in ev.db_checkpoints), default=0)
    return deepest + 1


def _overlapping(ev: Evidence, node: str) -> int:
    """How many attempts of `node` began while another attempt of it was running."""
    runs = sorted((a.start_ts, a.end_ts) for a in ev.attempts if a.node == node)
    count, reach = 0, float("-inf")
    for start, end in runs:
        if start < reach - 1e-6:
            count += 1
        reach = max(reach, end)
    return count


def _widen_for_unplaced(
    ev: Evidence, mode: Mode, sched: Schedule, replayed: list[Attempt], out: ModeOutcome
) -> None:
    """Say the checkpoints kept as a range where the log cannot place its nodes (`_unplaced`).

    A subgraph's loop saves checkpoints of its own under sync and async (the durability is
    handed down through the config, ``pregel/main.py``, ``stream``), and an exit database of a
    killed run is empty: a bare log and such a database cannot tell a flat graph from one whose
    nodes run in subgraphs. The tasks and lines again stand (a resume re-enters a subgraph at
    its own checkpoint, `_runs_again`); the checkpoints kept could be up to
    `NESTING_CHECKPOINTS` more per node that could be a subgraph's. Under a release that
    runs a re-entered subgraph's finished tasks again (`rules.SUBGRAPH_WRITES_REUSED_SINCE`)
    they do not: the reading that puts such a node in a subgraph re-enters it, the flat one
    may not, and the tasks and lines again reach down to what reusing them leaves."""
    nodes = _unplaced(ev)
    if mode == "exit":
        _widen_exit_for_unplaced(ev, nodes, out)
        return
    if not nodes or ev.ending != "killed":
        return
    low = out.race.get("checkpoints_kept", [out.checkpoints_kept] * 2)
    # Attempts of one node that overlapped may each be a run of its own (`Send` workers that
    # each run a subgraph): those runs save their own input, `__start__` and step checkpoints
    # where the flat reading counts one step for all of them.
    side = sum(_overlapping(ev, node) for node in nodes)
    # Each attempt may be a run of a subgraph of its own (a node that invokes the same graph
    # in turn, test_multiple_subgraphs; a graph called once per parent step), at every level
    # the database shows and one below (`_nesting_levels`).
    rooted = nodes_named_by_level(ev.db_checkpoints)[0]  # they ran in the root
    runs = sum(1 for a in ev.attempts if a.node in nodes and a.node not in rooted)
    levels = _nesting_levels(ev)
    high = max(low[1], out.checkpoints_kept) + NESTING_CHECKPOINTS * levels * runs + side
    lo = min(low[0], out.checkpoints_kept)
    calls = {a.node for a in ev.attempts} <= set(nodes)
    if calls:
        # Or they were `@task` calls of an `@entrypoint` that logs nothing: the calls run
        # inside its step (no `__start__` before it) and save writes, not checkpoints, so
        # each invocation that ended kept its input and its one step, and the killed one
        # only its input checkpoint (`pregel/_loop.py`, `_first`).
        ended = ev.invocations - 1
        # (an input's checkpoint is a put no loop waits for, the first one's too: the
        # entrypoint starts at once, so on a slow store it may still have been in flight,
        # and the input lost with it)
        lo = min(lo, 2 * ended)
    spans = {
        "checkpoints_kept": [lo, high],
        "reruns": out.race.get("reruns", [len(out.reruns)] * 2),
        "replayed_lines": out.race.get("replayed_lines", [len(out.replayed_lines)] * 2),
    }
    if not ev.subgraph_writes_reused:
        reusing = {
            id(a) for a in _reruns(dataclasses.replace(ev, subgraph_writes_reused=True), sched)
        }
        rule_only = [a for a in replayed if id(a) not in reusing]
        tasks = len({_task_key(a, ev) for a in rule_only})
        lines = sum(len(a.lines) for a in rule_only)
        spans["reruns"] = [max(0, spans["reruns"][0] - tasks), spans["reruns"][1]]
        spans["replayed_lines"] = [
            max(0, spans["replayed_lines"][0] - lines),
            spans["replayed_lines"][1],
        ]
    killed = ev.kill_attempt
    if calls:
        # As calls, each finished call's writes were saved as it returned (`put_writes`,
        # submitted by the runner's ``commit`` under sync and async, chained behind no put),
        # and a resume of the entrypoint from its input checkpoint takes a saved call's
        # result instead of running it again: only the call in flight must run again (none
        # where no line was in flight: the entrypoint itself, which logs nothing, was). A
        # log without task ids cannot show whose writes landed before the kill.
        # ...and a later input lost with its input checkpoint runs nothing again
        least = 0 if ev.invocations > 1 or killed is None else 1
        spans["reruns"] = [min(spans["reruns"][0], least), spans["reruns"][1]]
        spans["replayed_lines"] = [
            min(spans["replayed_lines"][0], len(killed.lines) if killed and least else 0),
            spans["replayed_lines"][1],
        ]
        if lo == 0:
            # the first input lost with its checkpoint: no checkpoint, so a restart from the
            # input runs every call again
            spans["reruns"][1] = max(
                spans["reruns"][1], len({_task_key(a, ev) for a in ev.attempts})
            )
            spans["replayed_lines"][1] = max(
                spans["replayed_lines"][1], sum(len(a.lines) for a in ev.attempts)
            )
    # (the figures close the sentence, as every range says them: a spread over several
    # readings then says this reason once and the figures once, `_causes`)
    note = (
        f"the log names no namespace and the database names none of {', '.join(nodes)}: "
        "nothing shows whether they ran inside subgraphs, whose own checkpoints would count "
        f"too (up to {NESTING_CHECKPOINTS} more per run of them, each of which may be a "
        f"subgraph's of its own, at each of up to {levels} level(s): a subgraph's input, its "
        "__start__, the step that ran it"
        + (
            "; or fewer, if they were @task calls of an entrypoint that logs nothing"
            if calls
            else ""
        )
        + ")"
        + (
            "; as @task calls, a resume of the entrypoint takes each call whose writes were "
            "saved from them and runs only the one in flight again, and the log cannot show "
            "whose writes landed"
            if calls
            else ""
        )
        + f": between {lo}-{high} checkpoints kept, {spans['reruns'][0]}-{spans['reruns'][1]} "
        f"tasks and {spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
    )
    _say_range(out, spans, note)
    out.basis["checkpoints_kept"] += " (a range: the log cannot place its nodes in subgraphs)"
    if calls:
        out.basis["reruns"] = out.basis.get("reruns", "") + (
            " (a range: as @task calls, whose saved writes a resume takes, the log cannot show "
            "which landed)"
        )


def _widen_exit_for_unplaced(ev: Evidence, nodes: list[str], out: ModeOutcome) -> None:
    """Under exit, say the checkpoints kept as a range where unplaced nodes were filed under a
    subgraph (`evidence._assign_steps`: a node no root checkpoint names, right after a
    subgraph's node). Such a node may as well be the parent's next node, after the subgraph
    left by `Command(graph=PARENT)`: a nested loop that raised saves its last checkpoint on the
    way out under exit (``_suppress_interrupt``), one more checkpoint per such subgraph."""
    if not nodes or ev.ending != "killed":
        return
    _widen_exit_for_unreturned(ev, nodes, out)
    under = [
        (a.node, ev.step_of[id(a)][0])
        for a in ev.attempts
        if a.node in nodes and id(a) in ev.step_of and ev.step_of[id(a)][0]
    ]
    if not under:
        return
    runs = {ns for _node, ns in under}  # each run of a subgraph side by side saves its own
    filed = sorted({base_space(ns) for ns in runs})
    low = out.race.get("checkpoints_kept", [out.checkpoints_kept] * 2)
    spans = {
        "checkpoints_kept": [
            min(low[0], out.checkpoints_kept),
            max(low[1], out.checkpoints_kept) + len(runs),
        ],
        "reruns": out.race.get("reruns", [len(out.reruns)] * 2),
        "replayed_lines": out.race.get("replayed_lines", [len(out.replayed_lines)] * 2),
    }
    note = (
        f"the log names no namespace and no checkpoint names "
        f"{', '.join(sorted({node for node, _ns in under}))}, taken as "
        f"steps of {', '.join(filed)}: run instead by the parent after the subgraph left by "
        "Command(graph=PARENT), the subgraph saved on the way out under exit, so "
        f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept"
    )
    _say_range(out, spans, note)
    out.basis["checkpoints_kept"] += " (a range: the log cannot place its nodes in subgraphs)"


def _widen_exit_for_unreturned(ev: Evidence, nodes: list[str], out: ModeOutcome) -> None:
    """Under exit, say the checkpoints kept down to none of a ``checkpointer=True``
    subgraph's where it was read as returned only because the root ran unplaced nodes after
    it (`schedule.stable_saves_unplaced`): they may be the subgraph's own, still running."""
    unreturned = stable_saves_unplaced(ev, frozenset(nodes))
    if not unreturned:
        return
    spans = _spans(out)
    spans["checkpoints_kept"][0] = max(
        0, min(spans["checkpoints_kept"][0], out.checkpoints_kept - unreturned)
    )
    note = (
        f"the log names no namespace and no checkpoint names {', '.join(nodes)}: run inside "
        "the subgraph the database shows (compiled with checkpointer=True), it had not "
        "returned when the process died, and exit saved nothing of it, so "
        f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept"
    )
    _say_range(out, spans, note)
    out.basis["checkpoints_kept"] += " (a range: the log cannot place its nodes in subgraphs)"


def _later_runs(ev: Evidence) -> tuple[int, list[Attempt]]:
    """In a bare log of a thread with a ``checkpointer=True`` subgraph (`Evidence.stable`):
    how often the killed invocation's first node to start again did so, and the attempts from
    its last start on (what a later run of the subgraph would hold). (0, []) when no node
    starts again or the log carries steps or namespaces, which tell the runs apart."""
    if not ev.stable or ev.kill_attempt is None or ev.ending != "killed":
        return 0, []
    if any(a.logged_ns is not None or a.step is not None for a in ev.attempts):
        return 0, []
    inv = ev.step_of.get(id(ev.kill_attempt), ("", ev.invocations - 1, 0))[1]
    mine = sorted(
        (a for a in ev.attempts if ev.step_of.get(id(a), ("", -1, 0))[1] == inv),
        key=lambda a: a.start_ts,
    )
    done: set[str] = set()
    for a in mine:
        if a.node in done:
            starts = [b for b in mine if b.node == a.node and id(b) not in ev.retried]
            last = starts[-1]
            if last.alignment == "next-graph":
                return 0, []  # the database showed the run before it ended (`align._next_graph`)
            return len(starts) - 1, [b for b in mine if b.start_ts >= last.start_ts]
        if a.outcome == "finished" and id(a) not in ev.retried:
            done.add(a.node)
    return 0, []


def _widen_for_runs(ev: Evidence, mode: Mode, out: ModeOutcome) -> None:
    """Say the outcome as a range where a bare log cannot tell the runs of a
    ``checkpointer=True`` subgraph apart (`_later_runs`).

    Such a subgraph keeps one namespace without task id and goes on from its own history
    when its node runs again (`evidence._split_runs`); a node that starts again is either one
    more step of the same run or the first node of a later run. A later run begins with an
    input checkpoint and `__start__` (``pregel/_loop.py``, ``_first``), two checkpoints more
    under sync and async, and three where a later step of the loop above invoked it (that
    step's checkpoint); under exit every run that ended saved (``_suppress_interrupt``), one
    more each. Without steps or namespaces, and with a slow store that had not saved the
    later run's input checkpoint, nothing tells which: the tasks again reach from the task in
    flight alone (a resume re-enters the later run at its own checkpoint) to every task of
    the later run (its first checkpoints lost)."""
    k, later = _later_runs(ev)
    killed = ev.kill_attempt
    if not k or killed is None:
        return
    spans = _spans(out)
    # (sync and async: its input and `__start__` checkpoints, and one of the loop above when
    # a later step there invoked it: a graph added as a node runs once per step of it,
    # test_subgraph_checkpoint_true at 0.5 s a write)
    spans["checkpoints_kept"][1] += k if mode == "exit" else 3 * k
    if mode != "exit":
        tasks = [a for a in later if id(a) not in ev.retried]
        spans["reruns"] = [min(spans["reruns"][0], 1), max(spans["reruns"][1], len(tasks))]
        spans["replayed_lines"] = [
            min(spans["replayed_lines"][0], len(killed.lines)),
            max(spans["replayed_lines"][1], sum(len(a.lines) for a in tasks)),
        ]
    note = (
        f"the log names no step or namespace and {killed.node}'s subgraph keeps its history "
        f"across runs (checkpointer=True): a node that started again ({later[0].node}) is "
        "either a later step of one run or the start of a later run (its own input and "
        "__start__ checkpoints, and the step above that invoked it; under exit, the earlier "
        "run's save), which nothing shows: "
        f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept, "
        f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks and "
        f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
    )
    _say_range(out, spans, note)
    out.basis["checkpoints_kept"] += " (a range: the log cannot tell the subgraph's runs apart)"


def _widen_for_late_barrier(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    nominal: Schedule,
    out: ModeOutcome,
) -> None:
    """Under async, say the range down to a resume that stops at a join (`analysis.joins`).

    A checkpoint holds the join's live barrier (``create_checkpoint`` takes
    ``NamedBarrierValue.checkpoint()``, its set, for every channel that has a version by
    then: one a source had arrived at before) and its put reads it when it is written, not
    when its step ended: one that waited for the put before it may be written while a later
    step's arrivals have filled the barrier and the join's node was prepared but had not yet
    run (LangGraph empties the barrier only as that node's step ends). A resume there finds every arrival
    in, the node not due: the tasks before the join run again, change nothing, the node is
    never triggered and LangGraph ends the thread. Measured, on Postgres at 0.5 s a write
    (test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge): from sync into async,
    killed in the second `retriever_two` the real resume ran nothing (4 0 0) where the model
    said 4 4 7; killed in `qa`, it ran the second round's three retrievers and stopped
    (6 3 6) where the model said 6 5 9. A later round may fill it too: on 1.0.10 under
    `ainvoke` at 0.65 s the first round's checkpoint was written as the second round's
    retrievers had arrived, and the resume ran nothing (4 0 0 where 5-7 tasks were said).
    Asked of the schedule and of each the race asks:
    the write races the steps. The join must be named in the database or in the log's
    ``langgraph_triggers`` (under exit only the log can: nothing but the input checkpoint is
    saved before the kill; a log without triggers leaves that race unseen)."""
    if mode != "async" or ev.ending != "killed":
        return
    joins = join_channels(ev.db_checkpoints, (line for a in ev.attempts for line in a.lines))
    guessed = (
        not joins
        and not names_triggers(line for a in ev.attempts for line in a.lines)
        and not _saved_past_start(ev)
    )
    if guessed:
        joins = _possible_joins(ev)
    if not joins:
        return
    figures = []
    variants = _race_variants(ev, mode, latency, recording, nominal)
    # `nominal`: the schedule `modelled` made; each variant the race asks is made again here
    for sched in [nominal, *(schedule(ev, mode, latency, recording, s, c) for s, c in variants)]:
        cut = _join_cut(ev, sched, joins)
        if cut is not None:
            figures.append(_schedule_figures(ev, sched, before_step=cut))
    if not figures:
        return
    spans = _spans(out)
    for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines")):
        spans[key] = [
            min(spans[key][0], *(f[i] for f in figures)),
            max(spans[key][1], *(f[i] for f in figures)),
        ]
    maybe = (
        "neither the database (nothing saved past the input) nor the log (no task's "
        f"triggers) names the graph's joins: any of {', '.join(n for n, _ in joins)}, each run "
        "after a step of several tasks, may be one (`add_edge([a, b], c)`); if one is, "
        if guessed
        else ""
    )
    note = maybe + (
        "the checkpoint a resume starts from may have been written only after later steps had "
        "filled a join (each checkpoint write waits for the one before), its node not yet run: "
        "the resume then runs the tasks before the join again, the join never fires and "
        "LangGraph ends the thread (a defect of how it saves a join under async): "
        f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks and "
        f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
    )
    _say_range(out, spans, note)


def _possible_joins(ev: Evidence) -> list[tuple[str, set[str]]]:
    """(node, the nodes it may wait for) where neither the database nor the log names a join
    (an exit recording saves nothing but the input checkpoint before a kill; a bare log
    names no triggers): a root node that ran after a step of two or more tasks may join the
    branches that step began, the nodes that ran from it up to the node's step (its sources
    arrive in different steps where one branch is longer: `add_edge([a, b], c)` after
    ``x -> a``, ``x -> b``), and the node whose step began them (`add_edge([x, b], c)`
    after ``x -> b``: test_simple_multi_edge, whose join waits for ``up`` and ``side``).
    Measured: the bare log of join_loop_cond_edge on Postgres at 0.5 s, exit into async:
    4 4 7 where the real resume stopped at the join, 4 0 0; simple_multi_edge on 1.0.10
    under `ainvoke` at 0.3 s, exit into async: 3 1 1 where 3 0 0."""
    nodes_at: dict[tuple[int, int], set[str]] = {}
    for st in ev.steps:
        if st.ns == "":
            nodes_at.setdefault((st.inv, st.step), set()).update(a.node for a in st.attempts)
    found: dict[str, set[str]] = {}
    since: set[str] | None = None  # the nodes run from the last step of several tasks on
    inv_now = None
    prior: set[str] = set()  # the nodes of the step before
    for (inv, _step), nodes in sorted(nodes_at.items()):
        if inv != inv_now:
            inv_now, since, prior = inv, None, set()
        for node in nodes if since is not None else ():
            if len(since - {node}) >= 2:
                found.setdefault(node, set()).update(since - {node})
        if len(nodes) > 1:
            since = set(nodes) | prior
        elif since is not None:
            since |= nodes
        prior = set(nodes)
    return sorted(found.items())


def _saved_past_start(ev: Evidence) -> bool:
    """Does the database keep a root checkpoint made after a task of the graph ran? Its
    channel versions name every join a source had reached by then."""
    return any(c.step is not None and c.step >= 1 for c in ev.db_checkpoints if not c.checkpoint_ns)


def _join_cut(ev: Evidence, sched: Schedule, joins: list[tuple[str, set[str]]]) -> int | None:
    """The root step from which a resume never runs (its join's node's), where the newest
    root checkpoint landed may have been written while a later step's arrivals filled the
    join and its node had not yet run; None where no join was full while it was written."""
    if sched.crash is None:
        return None
    last = ev.invocations - 1
    kept = [k for k in sched.landed if k[0] == "" and k[1] == last and k in sched.serialized]
    if not kept:
        return None
    resume = max(kept, key=lambda k: k[2])
    # each put queued before it took 0-50 ms beyond the latency, not the 10 ms the schedule
    # takes (`WRITE_COST_SPAN`): the moment it was written moves by that along the queue
    before = sum(
        1 for k, t in sched.landing.items() if k[:2] == resume[:2] and t < sched.landing[resume]
    )
    written_from = sched.serialized[resume] - RACE - before * (WRITE_COST - WRITE_COST_SPAN[0])
    written_to = sched.landing[resume] + RACE + (before + 1) * (WRITE_COST_SPAN[1] - WRITE_COST)
    runs_at = {
        st.step: {a.node for a in st.attempts}
        for st in ev.steps
        if st.ns == "" and st.inv == last and st.step > resume[2]
    }
    # only a channel with a version when the checkpoint was made is saved in it (and then its
    # live set): one a source had arrived at by then, in this invocation or an earlier one
    arrived_before = {
        a.node
        for st in ev.steps
        if st.ns == "" and (st.inv < last or (st.inv == last and st.step <= resume[2]))
        for a in st.attempts
    }
    cut: int | None = None
    for node, sources in joins:
        first = min((k for k, nodes in runs_at.items() if node in nodes), default=None)
        if first is None or first - 1 <= resume[2] or not sources & arrived_before:
            continue
        # the barrier may have been full for any later firing of the node as the checkpoint
        # was written (a join inside a loop, its second round); every arrival the resume
        # makes before the node's first firing is in it then, and the node never fires
        fires = sorted(
            k
            for k, nodes in runs_at.items()
            if node in nodes and k - 1 > resume[2] and sources & runs_at.get(k - 1, set())
        )
        for fire in fires:
            full_from = sched.submitted.get(("", last, fire - 1))
            full_to = sched.submitted.get(("", last, fire), float("inf"))
            if full_from is None or full_from > sched.crash:
                continue
            if written_from < full_to and full_from < written_to:
                cut = first if cut is None else min(cut, first)
                break
    return cut


def _widen_for_joined(ev: Evidence, replayed: list[Attempt], out: ModeOutcome) -> None:
    """Say the tasks again as a range where a log that names no effect joined attempts of one
    node into one task (`attempts.continues`: lines of one process, one after the other).

    That reading holds for a task that logs several effects; the same lines come from tasks
    of one node started one after another (a `Send` worker taking the place of one that
    finished, under ``max_concurrency``; the graphs one node invokes in turn). The lines
    again are the same either way; the tasks reach from the joined count to one per
    attempt. Where the joined attempts took a task the database holds, the others they may
    be are the due tasks of their node no attempt took (max_concurrency_sends under
    `ainvoke`, bare: two of four workers finished, two took their places; read as the two
    going on, one task fewer than ran)."""
    if not replayed or any(line.effect is not None for a in replayed for line in a.lines):
        return
    seen: set[tuple[str, str, int, str]] = set()
    extra = 0
    for a in replayed:
        key = _task_key(a, ev)
        run = [b for b in task_run(ev, a) if b.task_id is None]
        if key in seen or len(run) < 2:
            continue
        seen.add(key)
        if all(b.task is None for b in run):
            extra += len(run) - 1
        elif a.task is not None and a.checkpoint is not None:
            extra += min(len(run) - 1, len(_untaken_tasks(ev, a)))
    if not extra:
        return
    spans = _spans(out)
    spans["reruns"][1] += extra
    note = (
        "the log names no effect: attempts of one node logged one after another by one "
        "process are read as one task's effects, though they may be tasks started in turn "
        f"(a worker in the place of one that finished): {spans['reruns'][0]}-{spans['reruns'][1]} "
        "tasks again"
    )
    _say_range(out, spans, note)


def _untaken_tasks(ev: Evidence, a: Attempt) -> list[Task]:
    """The tasks of `a`'s node due at its checkpoint that no attempt of the log took."""
    cp = a.checkpoint
    if cp is None:
        return []
    taken = {b.task.task_id for b in ev.attempts if b.task is not None and b.checkpoint is cp}
    return [t for t in cp.tasks if t.node == a.node and t.task_id not in taken]


def _widen_for_forked_stable(
    ev: Evidence, sched: Schedule, replayed: list[Attempt], out: ModeOutcome
) -> None:
    """Say the tasks and lines again as a range where a thread run from an earlier checkpoint
    (`evidence.run_from_earlier`) has a run of a ``checkpointer=True`` graph that left no
    checkpoint under this mode after an earlier run of it ended (`_dropped_stable_run`):
    such a run hands its stable graphs their state as of the copy, and numbers their steps
    on from it, alike with the old branch's; whether a resume hands that run's new input on
    or drops it, and whether a step number the old branch saved is this run's, the database
    does not tell. The outcome reads it as run again; the range reaches down to it dropped
    (`_widen_for_unsure_drop`), and up to what the branches' reading adds. Measured both
    ways: dropped in middle_checkpoint_replayed, stateful_subgraph_forked_turns and
    first_invocation_replayed (below); run again in three_level_stateful_forked at 0.75 s,
    killed in ``inner_step``, from sync into async."""
    if not run_from_earlier(ev.db_checkpoints):
        return
    kept = {id(a) for a in replayed}
    extra = [a for a in _reruns(ev, sched, keep_dropped=True) if id(a) not in kept]
    at = _root_resumed_at(sched.landed)
    dropped = [
        a
        for a in replayed
        if at is not None
        and _dropped_stable_run(ev, sched.landed, *ev.step_of[id(a)][:2], at, history=False)
    ]
    if not extra and not dropped:
        return
    spans = _spans(out)
    spans["reruns"][1] = max(spans["reruns"][1], len(_rerun_list([*replayed, *extra], ev)))
    spans["replayed_lines"][1] += sum(len(a.lines) for a in extra)
    _widen_for_unsure_drop(ev, replayed, dropped, out, spans)


def _widen_for_unsure_drop(
    ev: Evidence,
    replayed: list[Attempt],
    dropped: list[Attempt],
    out: ModeOutcome,
    spans: dict[str, list[int]] | None = None,
) -> None:
    """Reach the tasks and lines again down to the reading where the `dropped` attempts'
    stable graph run is dropped by the resume (their lines never happen again), in a thread
    run from an earlier checkpoint, and say why. The recorded mode's own outcome takes them
    from the verdicts (`Attempt.may_be_dropped`); a modelled mode's from what it would have
    saved (`_widen_for_forked_stable`). Measured: first_invocation_replayed on LangGraph
    1.2.24, Postgres, `ainvoke` at 0.2 s, killed in `sub_step` of the run from the fork copy:
    under async the subgraph's run had saved nothing, and the resume, handed the copy, ran
    `sub_node` with LangGraph's resuming flag; the subgraph went on from its first branch's
    end and ran `sub_step` not again (15 1 1 said, 15 0 0 measured); under sync its run's
    checkpoints had landed and `sub_step` ran again."""
    spans = spans or _spans(out)
    _lower_without(ev, replayed, dropped, out, spans)
    if spans == _spans(out):
        return
    note = (
        "the thread was run from an earlier checkpoint, which hands its checkpointer=True "
        "graphs their state as of the copy: whether a resume hands such a graph's new run its "
        "input or drops it, the database does not tell: "
        f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks and "
        f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
    )
    _say_range(out, spans, note)


def _lower_without(
    ev: Evidence,
    replayed: list[Attempt],
    gone: list[Attempt],
    out: ModeOutcome,
    spans: dict[str, list[int]],
) -> None:
    """Lower `spans`' tasks and lines again to the reading where the `gone` attempts do not
    run again (their lines do not happen twice)."""
    if not gone:
        return
    gone_ids = {id(a) for a in gone}
    rest = [a for a in replayed if id(a) not in gone_ids]
    lines = set(out.replayed_lines)
    left = len(lines) - sum(1 for a in gone for line in a.lines if line.line in lines)
    spans["reruns"][0] = min(spans["reruns"][0], len(_rerun_list(rest, ev)))
    spans["replayed_lines"][0] = max(0, min(spans["replayed_lines"][0], left))


def _widen_for_cache(
    ev: Evidence, replayed: list[Attempt], out: ModeOutcome, served: list[Attempt]
) -> None:
    """Reach the tasks and lines again down to the reading where the `served` attempts, whose
    results a node cache that outlives the process holds but which the resume reaches only
    after steps of its own, are taken from the cache (`node_cache.CACHE_UNSURE`): their input
    is the same only if those steps give it. Measured: cached_waiting_edge_loop's second
    ``rewrite_query`` was served at 0.9 s under async, and ran again at 0.55 s, where the
    resume's join fired a step early and gave it another input."""
    spans = _spans(out)
    _lower_without(ev, replayed, served, out, spans)
    if spans == _spans(out):
        return
    nodes = ", ".join(sorted({a.node for a in served}))
    note = (
        f"{nodes}: {CACHE_UNSURE}: {spans['reruns'][0]}-{spans['reruns'][1]} tasks and "
        f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
    )
    _say_range(out, spans, note)


def _widen_for_unlogged(ev: Evidence, out: ModeOutcome) -> None:
    """Say the tasks again as a range where no effect-log line of the thread exists: the
    tasks the database names (`_db_reruns`) run on resume, but whether any of them had begun
    before the kill, and so runs a second time, nothing tells.

    A task killed before its first line (a node that invokes a subgraph, killed while the
    subgraph's first checkpoint was saved) ran once already; one due at the resume
    checkpoint that had not begun runs for the first time. Measured at first contact:
    multiple_subgraphs_same under `ainvoke` at 0.25 s, killed under sync before `add`'s
    first line: the database names `call_same_subgraph`, the real resume repeated no line."""
    if ev.attempts or not out.reruns:
        return
    spans = _spans(out)
    spans["reruns"][0] = 0
    nodes = ", ".join(sorted({str(r["node"]) for r in out.reruns}))
    _say_range(out, spans, unlogged_tasks_note(nodes, spans["reruns"][1]))


def _say_range(out: ModeOutcome, spans: dict[str, list[int]], note: str) -> None:
    """Give `out` the range `spans` (`_spans`, widened), its note after any the outcome had
    (whose own figures, now narrower than the range, it no longer says: the range is said
    once, `_FIGURES_SAID`), and the note among its assumptions: one way for every reading
    the evidence cannot settle."""
    before = _FIGURES_SAID.sub("", out.race.get("note") or "").strip()
    out.race = {**out.race, **spans, "note": "; ".join(x for x in (before, note) if x)}
    out.assumed.append(note)


def _stretched(spans: dict[str, list[int]], figures: tuple[int, int, int]) -> dict[str, list[int]]:
    """`spans` (`_spans`) widened to hold another reading's checkpoints kept, tasks again and
    lines again."""
    keys = ("checkpoints_kept", "reruns", "replayed_lines")
    for key, value in zip(keys, figures, strict=True):
        spans[key] = [min(spans[key][0], value), max(spans[key][1], value)]
    return spans


def _spans(out: ModeOutcome) -> dict[str, list[int]]:
    """The outcome's three figures as [low, high]: its range where it has one, else the figure."""
    own = out.figures
    keys = ("checkpoints_kept", "reruns", "replayed_lines")
    return {key: list(out.race.get(key, [own[i], own[i]])) for i, key in enumerate(keys)}


LATE_KILL = 3600.0
"""Seconds after the log's last line taken as the latest a kill the log only bounds could have
come (`_race`): by then every put submitted before that line has landed."""

INPUT_SETUP = 0.1
"""Seconds before an invocation's first task started that its input checkpoint may have been
made, where the recording holds no stamp of it (`_race`): the loop's set-up, measured at 56 ms
for an `@entrypoint` under `ainvoke` (imp_sync_from_async, LangGraph 1.1.10, SQLite)."""


def _race_variants(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    nominal: Schedule | None = None,
) -> list[tuple[float, float]]:
    """(kill slack, write cost) of every other schedule the race asks (`_race`), around
    `nominal`, the mode's own schedule where the caller made it already."""
    # A real kill lands within RACE of its aim (the parent sees the start, sleeps, signals),
    # a kill dated from a node that logs nothing too; a moment chosen on the recorded clock
    # (`what_if_at`, Learn's imagined kill) is exact.
    aimed = not ev.kill_chosen and (ev.kill_time is None or recording.kill_offset is not None)
    variants = [(-RACE, WRITE_COST), (RACE, WRITE_COST)] if aimed else []
    if ev.kill_unsure > RACE:
        variants += [(ev.kill_unsure * f, WRITE_COST) for f in (0.25, 0.5, 0.75, 1.0)]
    if (
        ev.kill_time is not None
        and not ev.kill_chosen
        and ev.kill_unsure > 0
        and recording.kill_offset is None
    ):
        # Died between tasks, no earlier than the last line: the task that wrote it puts
        # its writes a moment after it ended, and a kill that soon finds them in flight
        # (interrupts_from_tasks_async on 1.1.10 under `ainvoke` at 0.45 s a write: killed
        # 10 ms after `announce` ended, the async run ran it again; sync's, killed 12 ms
        # after, had its writes)
        variants.append((-WRITE_COST, WRITE_COST))
    if (
        mode == "sync"
        and ev.kill_time is not None
        and ev.kill_attempt is None
        and recording.kill_offset is None  # only the log's last line bounds it
    ):
        # Died between tasks, as far into the next one as the bound allows: under sync that
        # task began only once its step's put landed (subgraph_noop_replay_then_input on
        # LangGraph 0.6.11 at 0.4 s, from exit with the mode inferred, killed 0.2 s after
        # ``ask_1``, which logs nothing, asked: sync was said to keep 10-12 where its run,
        # past the put and the pause, kept 13 and ran nothing again)
        variants.append((ev.kill_unsure + latency + WRITE_COST, WRITE_COST))
    if recording.kill_offset is None and ev.kill_time is None:
        # Only the log's last line bounds the kill: the task in flight may have run on far
        # longer than any finished one took; at the latest, every put submitted before that
        # line had landed. And at every moment between: just after each put of the last
        # invocation landed, the figures need not move one way (checkpoint_recovery on 1.2.24
        # under `ainvoke` at 0.35 s, from sync with the mode inferred: killed 0.2 s into
        # `node1`, after the second input's checkpoint landed and before `prepare`'s, async
        # ran `prepare` again, 2 tasks, where a kill sooner or later runs 1)
        variants.append((LATE_KILL, WRITE_COST))
        if nominal is None:
            nominal = schedule(ev, mode, latency, recording)
        if nominal.crash is not None:
            last = ev.invocations - 1
            for t in sorted({t for k, t in nominal.landing.items() if k[1] == last}):
                if ev.kill_unsure < t - nominal.crash < LATE_KILL:
                    variants.append((t - nominal.crash + RACE, WRITE_COST))
    if recording.kill_offset is None and (
        ev.kill_time is None or (ev.kill_unsure > 0 and not ev.kill_chosen)
    ):
        # (only the log's last line bounds the kill, or it died between tasks after it)
        if nominal is None:
            nominal = schedule(ev, mode, latency, recording)
        variants += _before_held_puts(ev, nominal)
    if latency > 0 and _queued(ev, mode, latency, recording):
        variants += [(0.0, cost) for cost in WRITE_COST_SPAN]
        if ev.kill_time is None:
            # the two are independent: a kill late within its race while every queued write
            # was quick lands the most (test_in_one_fan_out_state_graph_waiting_edge_multiple
            # at 0.5 s a write, from exit into async: the fifth put of the queue landed 136 ms
            # before the kill, which either alone had put after it), early and slow the least
            variants += [(RACE, WRITE_COST_SPAN[0]), (-RACE, WRITE_COST_SPAN[1])]
    return variants


def _before_held_puts(ev: Evidence, nominal: Schedule) -> list[tuple[float, float]]:
    """(kill slack, write cost) of a kill just before each put of a graph a task span held,
    where only the log's last line bounds the kill and that line is the span's end: under
    this mode the span closes only once its graphs' puts landed (`Schedule.late_ends`), so
    the last line does not say the puts had landed; the kill may have come as soon as the
    graphs' own last lines, before them (test_dynamic_interrupt_subgraph's shape on 1.2.24
    at 0.15 s a write, from the exit trace without its mode: `tool_two`'s span closed 1 ms
    after its subgraph's `do` ended; dated after that close, sync was said to keep the
    subgraph's last put, 5-6 kept, where the real sync run, killed 0.04 s after `do` ended,
    kept 4)."""
    lines = [(line.ts, a) for a in ev.attempts for line in a.lines]
    if nominal.crash is None or not lines:
        return []
    holder = max(lines, key=lambda x: x[0])[1]
    runs_ended = nominal.late_ends.get(id(holder))
    if runs_ended is None:
        return []
    last = ev.invocations - 1
    ended = {(s.ns, s.inv, s.step): s.end for s in ev.steps}
    return [
        (t - nominal.crash - WRITE_COST, WRITE_COST)
        for key, t in nominal.landing.items()
        if key[0]
        and key[1] == last
        and t <= nominal.crash
        and (ended.get(key) or 0.0) >= runs_ended
    ]


def _race(
    ev: Evidence,
    mode: Mode,
    latency: float,
    recording: Recording,
    nominal: ModeOutcome,
    sched: Schedule,
) -> dict[str, Any]:
    """When a write lands within RACE seconds of the kill, the race decides: say both outcomes.
    When the kill moment is only bounded by the log's last line, every moment up to the
    killed node's usual duration later is as likely: say the range over them too. A run
    killed while it saved its pause (`Evidence.pause_kill`) races its puts the same way
    (subgraph_noop_replay_then_input on LangGraph 1.0.10 at 0.3 s a write, killed 0.2 s
    after the second input's ``ask_1`` asked, from sync into async: the subgraph's put
    queued behind its input checkpoint's was dated 10 ms after the kill and said lost, 11
    checkpoints kept; the real async run's landed first, 12)."""
    if mode == "exit" or (ev.ending != "killed" and ev.pause_kill is None):
        return {}
    seen = [nominal.figures]
    log_bound = recording.kill_offset is None and ev.kill_time is None
    variants = _race_variants(ev, mode, latency, recording, sched)
    by_kill: set[tuple[int, int, int]] = set(seen)
    by_cost: set[tuple[int, int, int]] = set(seen)
    by_both: set[tuple[int, int, int]] = set()
    for slack, cost in variants:
        variant = schedule(ev, mode, latency, recording, slack, cost)
        fig = _schedule_figures(ev, variant)
        # (a span that closed before this kill at its graph's pause wrote one more line,
        # `_widen_for_closed_spans`; counted here for the moments the race asks)
        figs = [fig, (fig[0], fig[1], fig[2] + len(variant.closed_spans))]
        seen += figs
        if cost == WRITE_COST:
            by_kill.update(figs)
        elif slack == 0.0:
            by_cost.update(figs)
        else:
            by_both.update(figs)
    both = bool(by_both - by_kill - by_cost)  # only the two together move a landing

    def sooner_adds(seconds: float) -> bool:
        """Does a kill that many seconds sooner give figures not seen yet? (It is seen then.)"""
        if seconds <= RACE:
            return False
        fig = _schedule_figures(ev, schedule(ev, mode, latency, recording, -seconds, WRITE_COST))
        new = fig not in seen
        seen.append(fig)
        return new

    # A step whose tasks queued behind a busy executor in a recording whose own writes were
    # in flight (each holds a worker while it waits out the latency): under another mode the
    # workers may have been free, the tasks run at once and each put its writes as it ended
    # (test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge at 1 s a write, from
    # async into sync: analyzer_one's writes were read as held behind retriever_two's start)
    unqueued = False
    if (
        mode != recording.mode
        and recording.mode in ("sync", "async")
        and (recording.latency is None or recording.latency > 0)  # (None: not known)
        and any(
            put != a.end_ts for a in ev.attempts for put in [queued_writes(ev).get(id(a), a.end_ts)]
        )
    ):
        fig = _schedule_figures(ev, schedule(ev, mode, latency, recording, queue=False))
        unqueued = fig not in seen
        seen.append(fig)
    # An input checkpoint the recording has no stamp of (exit saved none) was made before
    # the invocation's first task started, by as much as the loop's set-up took: on a slow
    # store it may have landed before a kill the estimate puts ahead of it
    # (imp_sync_from_async at 0.65 s a write on LangGraph 1.1.10, from exit into sync: made
    # 56 ms before `foo` started, landed 9 ms before the kill).
    early_input = False
    if latency > 0 and any(p.input and not p.ns and p.checkpoint is None for p in ev.puts):
        fig = _schedule_figures(ev, schedule(ev, mode, latency, recording, input_early=INPUT_SETUP))
        early_input = fig not in seen
        seen.append(fig)
    unnamed = _unnamed_waits(ev, mode, recording)
    moved = sooner_adds(unnamed)
    stall = _stall_before_kill(ev, recording)
    stalled = sooner_adds(stall)
    if len(set(seen)) == 1:
        return {}
    spans = {
        key: [min(v[i] for v in seen), max(v[i] for v in seen)]
        for i, key in enumerate(("checkpoints_kept", "reruns", "replayed_lines"))
    }
    if ev.kill_unsure > RACE or (log_bound and len(by_kill) > 1):
        why = (
            "the kill moment is not known (only the log's last line bounds it: any time after "
            "it, up to when every checkpoint submitted before it had landed)"
        )
    elif len(by_kill) > 1:
        why = f"a write lands within {RACE * 1000:g} ms of the kill"
    else:
        why = ""
    if moved:
        wait = (
            f"under sync a subgraph's __start__ step ended {unnamed:.2f} s after its input "
            "checkpoint, a wait no rule of LangGraph's names (sync waits after a step's put, "
            "never for the input checkpoint): if it was a wait for a write, the other mode "
            "would not have it and the kill comes that much sooner"
        )
        why = f"{why}; {wait}" if why else wait
    if stalled:
        pause = (
            f"the killed task started {stall:.2f} s after its step's previous one ended, a "
            f"pause no wait of {recording.mode} explains (a busy machine): a run of this mode "
            "need not have paused there, and the kill comes that much sooner"
        )
        why = f"{why}; {pause}" if why else pause
    if early_input:
        made = (
            "the recording holds no moment of the input checkpoint (exit saved none): it was "
            f"made before the first task started, by as much as the loop's set-up took (up to "
            f"{INPUT_SETUP * 1000:g} ms here), and may have landed before the kill"
        )
        why = f"{why}; {made}" if why else made
    if unqueued:
        busy = (
            f"tasks of a step started only as others ended (a queue in the executor), which "
            f"{recording.mode}'s own writes in flight may have caused (each holds a worker): "
            f"under {mode} they may have run at once, each task's writes put as it ended"
        )
        why = f"{why}; {busy}" if why else busy
    if len(by_cost) > 1 or both:  # a write's cost along the queue moves a landing
        queue = (
            "checkpoint writes queue behind each other on this store (each waits for the "
            "previous one), and how long each took beyond the latency "
            f"({WRITE_COST_SPAN[0] * 1000:g}-{WRITE_COST_SPAN[1] * 1000:g} ms) adds up along "
            "the queue, which the recording does not show"
            + (f", with the kill within {RACE * 1000:g} ms of its aim" if both else "")
        )
        why = f"{why}; {queue}" if why else queue
    return {
        **spans,
        "note": (
            f"{why}: the race decides between "
            f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept and "
            f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
        ),
    }


def _unnamed_waits(ev: Evidence, mode: Mode, recording: Recording) -> float:
    """Seconds the recorded sync run waited, before the kill, in a nested loop's `__start__`
    step (no task of its own, ended by its checkpoint) beyond a tick: such a step runs at
    once after the input checkpoint is made (sync waits after ``after_tick`` only,
    ``pregel/main.py``, ``stream``), yet deeper loops of sync recordings on a slow store show
    a write's wait there, which the model does not remove. 0 unless re-timing another mode
    from a sync recording with latency."""
    if recording.mode != "sync" or not recording.latency or mode == "sync":
        return 0.0
    kill = ev.crash_ts if ev.crash_ts is not None else float("inf")
    inputs = {(s.ns, s.inv): s for s in ev.steps if s.step == -1 and s.checkpoint is not None}
    total = 0.0
    for s in ev.steps:
        first = inputs.get((s.ns, s.inv))
        if not s.ns or s.step != 0 or s.attempts or s.end is None or first is None:
            continue
        if s.end <= kill:
            total += max(0.0, s.end - first.end - TICK) if first.end is not None else 0.0
    return total


def _schedule_figures(
    ev: Evidence, sched: Schedule, before_step: int | None = None
) -> tuple[int, int, int]:
    """A schedule's checkpoints landed, tasks again and effect lines again, for a range;
    with `before_step`, of a resume that never runs that root step or any after it
    (`_join_cut`)."""
    again = _reruns(ev, sched)
    if before_step is not None:
        again = [a for a in again if (k := _root_step(ev, a)) is None or k < before_step]
    unwritten = _unwritten_lines(ev, sched)
    lines = sum(1 for a in again for line in a.lines if line.line not in unwritten)
    return len(sched.landed), len(_rerun_list(again, ev)), lines


def _root_step(ev: Evidence, a: Attempt) -> int | None:
    """The root step an attempt ran in or under (a subgraph's: the step that invoked it)."""
    ns, inv, step = ev.step_of.get(id(a), ("", -1, -1))
    return step if not ns else ev.container.get((ns, inv))


def _stall_before_kill(ev: Evidence, recording: Recording) -> float:
    """Seconds beyond a tick between the end of the killed task's loop's previous step and
    the killed task's start, in a recording whose mode waits for nothing there (exit, async):
    the loop starts the next step at once, so a pause there was the machine's, and a run of
    another mode need not repeat it (dynamic_interrupt from exit, killed 0.2 s into
    ``finish``, which started 0.33 s after ``tool_three`` ended on a loaded CI machine:
    async was said to keep 5, where the real async run kept 4)."""
    if recording.mode not in ("exit", "async"):
        return 0.0
    killed = ev.kill_attempt
    if killed is None or id(killed) not in ev.step_of:
        return 0.0
    ns, inv, step = ev.step_of[id(killed)]
    before = [
        b
        for b in ev.attempts
        if b is not killed
        and id(b) in ev.step_of
        and ev.step_of[id(b)][1] == inv
        and b.end_ts <= killed.start_ts
    ]
    if not before:
        return 0.0
    last = max(before, key=lambda b: b.end_ts)
    if ev.step_of[id(last)][0] != ns or ev.step_of[id(last)][2] not in (step - 1, step):
        return 0.0  # a nested loop ended last: its way out (exit's save of it) is a wait
    if last.outcome != "finished":
        return 0.0  # a retry's backoff, or a handler after a failure: the run's own wait
    return max(0.0, killed.start_ts - last.end_ts - TICK)


def _queued(ev: Evidence, mode: Mode, latency: float, recording: Recording) -> bool:
    """Did a put of the killed invocation wait behind an earlier one of its loop under `mode`?

    Only then does the cost of a write add up (`rules.WRITE_COST_SPAN`): a put submitted to an
    idle queue lands one write after its step, whatever the writes before it took."""
    if mode != "async":
        return False
    last = ev.invocations - 1
    return any(k[1] == last for k in schedule(ev, mode, latency, recording).queued)


def recorded(
    mode: Mode, latency: float, ev: Evidence, thread: Thread | None, attempts: list[Attempt]
) -> ModeOutcome:
    """The recorded mode at the recorded latency: the database and the verdicts as they are."""
    replayed = [a for a in attempts if a.verdict in ("replays", "restart")]
    root = thread.root if thread else None
    latest = root.latest if root else None
    ids = [c.checkpoint_id for c in ev.db_checkpoints]
    out = _outcome(
        mode,
        latency,
        ev,
        replayed,
        ids,
        len(ids),
        latest,
        latest.step if latest else None,
        latest is None,
        True,
        ev.used + ["the recorded database and the verdicts, as they stand"],
        [],
        lost_input=_killed_input_lost(ev, _held(ev)),
    )
    _widen_for_joined(ev, replayed, out)
    _widen_for_unlogged(ev, out)
    _widen_for_unsure_drop(ev, replayed, [a for a in replayed if a.may_be_dropped], out)
    _widen_for_cache(ev, replayed, out, [a for a in replayed if a.may_be_cached])
    return out


def clamp(
    outcomes: dict[str, ModeOutcome], ev: Evidence | None = None, *, stalled: bool = False
) -> None:
    """Enforce what the rules imply at one point of progress: sync keeps at least what async
    keeps, async at least what exit keeps, and each repeats no more than the next one.

    A race in a real recording (a put that happened to land early) can make the recorded
    mode look better than the model of a stricter mode; the stricter mode then takes the
    recorded one's numbers, and says so. Where only its repeats broke the order, it takes
    the repeats and keeps its own checkpoints (`_keep_own_checkpoints`).

    With a later fresh input on the thread the repeats are not ordered: a mode that lost
    that invocation whole lost its input with it, and a resume does not run its tasks
    (`lost_inputs`), while a mode that kept its input checkpoint runs them again. So with a
    `Command(goto=...)` sent at the killed resume: exit loses it, and the task it scheduled
    (`Evidence.pushed_by_command`); and with a run from an earlier checkpoint, which exit
    loses with the copy it began with. Only the checkpoints kept are ordered then. So too
    where the recorded resume stops at a join its saved barrier already holds (`stalled`,
    `joins.resume_stops_at_join`): the work it does not repeat is lost, not saved.
    """
    # A Command sent at the killed resume (its goto) is lost whole under exit, tasks and all.
    # A run from an earlier checkpoint is lost whole under exit too (`Evidence.replays`).
    # Nor on the way out of a pause (`Evidence.pause_moment`): exit saves the pause's writes
    # at once as it returns, while async may still wait for the puts its graphs queued. Nor
    # where an exit recording's last invocation left the graph before its kill, the process
    # living on (`exit_left_before_kill`): the same way-out save, of a raise the log need
    # not show.
    repeats_ordered = not stalled and (
        ev is None
        or (
            "input" not in ev.kinds[1:]
            and not ev.pushed_by_command
            and not ev.replays
            and ev.pause_moment is None
            and not (outcomes["exit"].as_recorded and exit_left_before_kill(ev))
        )
    )
    for stronger, weaker in (("async", "exit"), ("sync", "async"), ("async", "exit")):
        s, w = outcomes[stronger], outcomes[weaker]
        if s.checkpoints_kept >= w.checkpoints_kept and (
            not repeats_ordered
            or (len(s.replayed_lines) <= len(w.replayed_lines) and len(s.reruns) <= len(w.reruns))
        ):
            continue
        note = (
            f"{stronger} never keeps less than {weaker} at the same point of progress: "
            f"the {{src}} outcome is taken for {{dst}}"
        )
        if s.as_recorded:  # the recording wins over the model of the other mode
            outcomes[weaker] = copy_as(s, w.mode, w.latency, note.format(src=stronger, dst=weaker))
        else:
            taken = copy_as(w, s.mode, s.latency, note.format(src=weaker, dst=stronger))
            if s.checkpoints_kept >= w.checkpoints_kept and not w.restart:
                _keep_own_checkpoints(taken, s)
            outcomes[stronger] = taken


def exit_left_before_kill(ev: Evidence) -> bool:
    """Does an exit recording's database hold a root checkpoint taken after its killed last
    invocation began? Exit saves nothing of a killed invocation but the save on its way out
    of the graph, so the graph had left it (a raise or a pause) before the kill, while the
    process lived on: the sync loop waits for a sibling task's thread it cannot cancel.

    overwrite_parallel on LangGraph 0.4.10, which has no ``Overwrite``: node_b fails as it
    starts, before any line, and exit saves the step's checkpoint with its ``__error__``
    write at once, while node_c runs on and is killed; async, at 0.5 s a write, still waited
    for that step's put behind the input's, kept the input only and ran node_a again (1
    checkpoint, 2 tasks) where exit ran 1. At one point of progress the way-out save is not
    bounded by what async landed, so only the checkpoints are ordered then (`clamp`)."""
    if ev.ending != "killed" or ev.invocations < 1:
        return False
    begun = [a.start_ts for a in _attempts_of_last(ev)]
    if not begun:
        return False
    began = min(begun)
    return any((taken_at(c) or 0.0) >= began for c in ev.db_checkpoints if not c.checkpoint_ns)


def _keep_own_checkpoints(taken: ModeOutcome, own: ModeOutcome) -> None:
    """Where only the repeats broke the order (`clamp`), the stronger mode keeps its own
    checkpoints: what it repeats is bounded by the weaker mode's repeats, but what it saves is
    not bounded by what the weaker mode saves, which is the lower bound only."""
    spans = _spans(taken)
    spans["checkpoints_kept"] = _spans(own)["checkpoints_kept"]
    taken.checkpoints_kept = own.checkpoints_kept
    taken.kept_checkpoint_ids = list(own.kept_checkpoint_ids)
    taken.lost_checkpoint_ids = list(own.lost_checkpoint_ids)
    taken.basis["checkpoints_kept"] = own.basis.get("checkpoints_kept", "")
    if own.race or taken.race:
        note = "; ".join(x for x in (taken.race.get("note"), own.race.get("note")) if x)
        taken.race = {**taken.race, **spans, **({"note": note} if note else {})}


def copy_as(src: ModeOutcome, mode: Mode, latency: float, note: str) -> ModeOutcome:
    return ModeOutcome(
        mode=mode,
        latency=latency,
        checkpoints_kept=src.checkpoints_kept,
        resume_checkpoint_id=src.resume_checkpoint_id,
        resume_step=src.resume_step,
        reruns=list(src.reruns),
        replayed_lines=list(src.replayed_lines),
        replayed_effects=dict(src.replayed_effects),
        window_start=src.window_start,
        window_end=src.window_end,
        restart=src.restart,
        sentence=src.sentence.replace(f"Under {src.mode},", f"Under {mode},", 1),
        as_recorded=False,
        ending=src.ending,
        kept_checkpoint_ids=list(src.kept_checkpoint_ids),
        lost_checkpoint_ids=list(src.lost_checkpoint_ids),
        used=list(src.used),
        assumed=[*src.assumed, note],
        race=dict(src.race),
        basis=dict(src.basis),
        inference=dict(src.inference),
        lost_branch=src.lost_branch,
        lost_input=src.lost_input,
    )


def what_if(
    thread: Thread | None,
    attempts: list[Attempt],
    latency: float,
    *,
    status: str = "resumable",
    recording: Recording | None = None,
) -> tuple[dict[str, ModeOutcome], float | None]:
    """Each durability mode's outcome at `latency` for the crash (or end) the recording shows.

    With the recorded mode unknown (no manifest, no `--recorded-mode`), it is inferred from
    the evidence (`inference.infer_mode`); when the evidence leaves several modes, each is
    modelled and every outcome carries the range over them in `race`."""
    if latency < 0:
        raise ValueError("the checkpoint write latency cannot be negative")
    with one_reading_scope():  # the readings below share what they derive from the thread
        return _what_if(thread, attempts, latency, status, recording or Recording())


def _what_if(
    thread: Thread | None, attempts: list[Attempt], latency: float, status: str, rec: Recording
) -> tuple[dict[str, ModeOutcome], float | None]:
    ev = gather(thread, attempts, status, rec)
    if rec.known:
        given = _what_if_as(rec, latency, ev, thread, attempts)
        unsure = _unconfirmed_kinds(ev, rec.mode)
        if unsure:
            flipped = gather(thread, attempts, status, rec, flip_kinds=unsure)
            other = _what_if_as(rec, latency, flipped, thread, attempts, model_recorded=True)
            _flag_weak_kinds(ev, unsure)
            given = _spread([given, other], None, [_kinds_weak_note(ev, unsure)])
            if flipped.replay_start_unsure:  # read as a copy-less run: where it began
                earlier_ev = gather(
                    thread, attempts, status, rec, flip_kinds=unsure, replay_earlier=True
                )
                given = _widen_with(
                    given, earlier_ev, thread, attempts, rec, latency, REPLAY_START_UNSURE
                )
        given = _widen_unsaved(given, ev, thread, attempts, status, rec, latency)
        if ev.queued_unsure:  # a task read as the next step may have been queued
            queued_ev = gather(thread, attempts, status, rec, queued=True)
            given = _widen_with(given, queued_ev, thread, attempts, rec, latency, QUEUED_UNSURE)
        if ev.raise_unsure:  # raised out, or died after the failure before the raise got out
            killed_ev = gather(thread, attempts, status, rec, killed_raising=True)
            given = _widen_with(given, killed_ev, thread, attempts, rec, latency, RAISE_UNSURE)
        if ev.raised_unsure:  # a subgraph step put or raised out: the database cannot tell
            raised_ev = gather(thread, attempts, status, rec, unsure_raised=True)
            note = _raised_unsure_note(ev, rec.mode)
            given = _widen_with(given, raised_ev, thread, attempts, rec, latency, note)
        if ev.replay_start_unsure:  # a copy-less run from an earlier checkpoint: where it began
            earlier_ev = gather(thread, attempts, status, rec, replay_earlier=True)
            given = _widen_with(
                given, earlier_ev, thread, attempts, rec, latency, REPLAY_START_UNSURE
            )
        return _widen_for_peers(given, thread, attempts, status, rec, latency), ev.crash_ts
    inferred = infer_mode(ev)
    runs: list[dict[str, ModeOutcome]] = []
    also: list[tuple[dict[str, ModeOutcome], str]] = []  # readings that only widen, and why
    why: list[str] = []  # what else than the recorded mode the range is over
    exit_read: tuple[Recording, Evidence] | None = None
    peers = realigned(attempts, thread) if thread is not None else None
    if peers is not None:
        why.append(PEERS_UNSURE)
    paired = paired_newest(attempts, thread) if thread is not None else None
    if paired is not None:
        why.append(PAIRING_UNSURE)
    split = split_runs(attempts, thread) if thread is not None else None
    if split is not None:
        why.append(JOINED_UNSURE)
    exit_left = "exit" in inferred.modes
    read_at_latency: set[Mode] = set()  # candidates already read as recorded at `latency`

    def widen_only(cand_rec: Recording, why_here: str, **reading: Any) -> None:
        """Another reading of a candidate mode (gathered with `reading`) that only widens
        the ranges, saying `why_here` (`also`)."""
        alt_ev = gather(thread, attempts, status, cand_rec, **reading)
        alt = _what_if_as(cand_rec, latency, alt_ev, thread, attempts, model_recorded=True)
        also.append((alt, why_here))

    for cand in inferred.modes:
        cand_rec = dataclasses.replace(
            rec,
            mode=cand,
            latency=inferred.latency if cand == "sync" else None,
            origin=INFERRED,
        )
        cand_ev = gather(thread, attempts, status, cand_rec)
        if cand == "exit":
            exit_read = (cand_rec, cand_ev)  # the one reading that cannot tell unsaved graphs
        runs.append(_what_if_as(cand_rec, latency, cand_ev, thread, attempts))
        if peers is not None:  # the other placement of parallel runs' lines (`realigned`)
            peers_ev = gather(thread, peers, status, cand_rec)
            runs.append(_what_if_as(cand_rec, latency, peers_ev, thread, peers))
        if cand_ev.queued_unsure:  # a task read as the next step may have been queued
            queued_ev = gather(thread, attempts, status, cand_rec, queued=True)
            runs.append(
                _what_if_as(cand_rec, latency, queued_ev, thread, attempts, model_recorded=True)
            )
            why.append(QUEUED_UNSURE)
        if cand_ev.raise_unsure:  # raised out, or died after the failure before it got out:
            # the raise is the reading, the kill widens its range (as with the mode given)
            widen_only(cand_rec, RAISE_UNSURE, killed_raising=True)
        if cand in ("sync", "async") and cand_ev.puts_unsure:  # a missing root checkpoint:
            # the step never completed, if the mode was indeed this one (`Evidence.puts_kept`)
            widen_only(cand_rec, PUTS_UNSURE, trust_puts=True)
        if cand_ev.replay_start_unsure:  # a copy-less run from an earlier checkpoint
            widen_only(cand_rec, REPLAY_START_UNSURE, replay_earlier=True)
        if paired is not None:  # each ambiguous end given to the newest open start
            paired_ev = gather(thread, paired, status, cand_rec)
            runs.append(
                _what_if_as(cand_rec, latency, paired_ev, thread, paired, model_recorded=True)
            )
        if split is not None:  # a node's lines one after another as tasks of their own
            split_ev = gather(thread, split, status, cand_rec)
            runs.append(
                _what_if_as(cand_rec, latency, split_ev, thread, split, model_recorded=True)
            )
        if cand_ev.raised_unsure:  # put or raised out: only the latency could tell
            raised_ev = gather(thread, attempts, status, cand_rec, unsure_raised=True)
            runs.append(_what_if_as(cand_rec, latency, raised_ev, thread, attempts))
            why.append(_raised_unsure_note(cand_ev, cand))
        if unsure := _unconfirmed_kinds(cand_ev, cand):  # no input checkpoint kept to tell
            flipped = gather(thread, attempts, status, cand_rec, flip_kinds=unsure)
            runs.append(
                _what_if_as(cand_rec, latency, flipped, thread, attempts, model_recorded=True)
            )
            if flipped.replay_start_unsure:  # read as a copy-less run: where it began
                widen_only(cand_rec, REPLAY_START_UNSURE, flip_kinds=unsure, replay_earlier=True)
            why.append(_kinds_weak_note(cand_ev, unsure))
            _flag_weak_kinds(cand_ev, unsure)
        if cand == "sync" and cand_rec.latency is None and latency > 0 and not exit_left:
            # checkpoints were saved while the run went on, and no wait of the log dates
            # the store: it may have been the what-if's own
            waited = dataclasses.replace(cand_rec, latency=latency)
            read_at_latency.add(cand)
            waited_ev = gather(thread, attempts, status, waited)
            runs.append(_what_if_as(waited, latency, waited_ev, thread, attempts))
            why.append(_unknown_latency_note(latency))
        elif (
            cand == "async"
            and cand_rec.latency is None
            and latency > 0
            and cand_ev.ending == "killed"
            and cand_ev.kill_attempt is None
        ):
            # died between tasks: how long after the last line the kill may have come (the
            # puts still in flight) hangs on the store's latency, which nothing dates
            timed = dataclasses.replace(cand_rec, latency=latency)
            read_at_latency.add(cand)
            timed_ev = gather(thread, attempts, status, timed)
            runs.append(_what_if_as(timed, latency, timed_ev, thread, attempts))
            why.append(_unknown_kill_window_note(latency))
    out = runs[0] if len(runs) == 1 else _spread(runs, inferred, why)
    for alt, alt_why in also:
        _widen_to(out, alt, None, alt_why, only_if_wider=True)
    for mode in _recorded_at_this_latency(inferred, latency):
        # The recorded store may have been as slow as this what-if's: a resume under the
        # recorded mode at the recorded latency keeps the database as it stands (a candidate
        # already read that way above is in the spread: reading it again changes nothing).
        if mode in read_at_latency:
            continue
        as_is = dataclasses.replace(rec, mode=mode, latency=latency, origin=INFERRED)
        alt = _what_if_as(as_is, latency, gather(thread, attempts, status, as_is), thread, attempts)
        _widen_to({mode: out[mode]}, {mode: alt[mode]}, None,
                  _as_it_stands_note(mode, latency), only_if_wider=True)  # fmt: skip
    if exit_read is not None:
        exit_rec, exit_ev = exit_read
        out = _widen_unsaved(out, exit_ev, thread, attempts, status, exit_rec, latency)
    for o in out.values():
        o.inference = inferred.to_json()
        if len(runs) == 1:
            o.used.append(inferred.sentence())
    return out, ev.crash_ts


def _unknown_kill_window_note(latency: float) -> str:
    """Why a what-if is widened over the kill's window under async (`what_if`)."""
    return (
        "the process died between tasks and nothing dates the store's writes: the kill may "
        f"have come as late as the puts still in flight at {latency:g} s a write (this "
        "what-if's latency, the same store) allowed"
    )


def _recorded_at_this_latency(inferred: Inference, latency: float) -> list[Mode]:
    """The modes the evidence may have been recorded under at this what-if's own latency:
    async, alone or beside another mode (nothing dates its store's writes, and a store is
    slower than its nominal latency by what its writes queue behind: unsaved_subgraph_async
    on 1.0.10 and Postgres at 0.3 s kept a step's checkpoint unlanded 0.85 s after it was
    taken), unless the evidence leaves async only on a slower store than this; and sync where the waits the log
    shows are this latency within what they can tell (the median gap, less one tick, leaves
    the write's own cost in: 0.857 s for 0.85 s)."""
    if latency <= 0:
        return []
    modes: list[Mode] = []
    slower = inferred.async_slower_than
    if "async" in inferred.modes and (slower is None or latency >= slower):
        modes.append("async")
    if (
        "sync" in inferred.modes
        and inferred.latency is not None
        and abs(inferred.latency - latency) <= max(WAIT_SEEN / 2, latency / 10)
    ):
        modes.append("sync")
    return modes


def _as_it_stands_note(mode: Mode, latency: float) -> str:
    """Why an inferred what-if is widened to the database as it stands (`what_if`)."""
    return (
        f"the recorded mode could have been {mode} on a store as slow as this what-if's "
        f"({latency:g} s a write; nothing dates it more closely): then a resume keeps the "
        "database as it stands"
    )


def _unknown_latency_note(latency: float) -> str:
    """Why a what-if is widened over the recorded sync run's own waits (`what_if`)."""
    return (
        "no step of the log follows a saved checkpoint, so nothing dates the recorded store's "
        f"writes: the recorded run may have waited {latency:g} s for each (this what-if's "
        "latency, the same store) or nothing"
    )


def _widen_unsaved(
    out: dict[str, ModeOutcome],
    ev: Evidence,
    thread: Thread | None,
    attempts: list[Attempt],
    status: str,
    rec: Recording,
    latency: float,
) -> dict[str, ModeOutcome]:
    """Where an exit recording cannot tell a graph that saves from one compiled with
    ``checkpointer=False`` (`Evidence.unsaved_unsure`): keep the figures of the saving reading,
    the common one, and widen each other mode's range to cover the other reading, saying
    why. The recorded mode's figures are the database's either way."""
    if not ev.unsaved_unsure:
        return out
    names = ", ".join(sorted(ev.unsaved_unsure))
    alt_ev = gather(thread, attempts, status, rec, unsaved=True)
    return _widen_with(
        out,
        alt_ev,
        thread,
        attempts,
        rec,
        latency,
        f"{names} left no checkpoint under exit, as a subgraph that returned leaves none: "
        "compiled with checkpointer=False it would save none in any mode either",
    )


def _widen_with(
    out: dict[str, ModeOutcome],
    alt_ev: Evidence,
    thread: Thread | None,
    attempts: list[Attempt],
    rec: Recording,
    latency: float,
    why: str,
) -> dict[str, ModeOutcome]:
    """Widen each mode's range but the recorded one's to cover another reading of the same
    evidence (`alt_ev`, gathered from `attempts`), saying `why`: the one step every reading a
    known recorded mode leaves open goes through (unsaved graphs, a queued task, the other
    placement or grouping of a bare log's parallel lines)."""
    alt = _what_if_as(rec, latency, alt_ev, thread, attempts, model_recorded=True)
    _widen_to(out, alt, rec.mode, why)
    return out


def _widen_to(
    out: dict[str, ModeOutcome],
    alt: dict[str, ModeOutcome],
    recorded: Mode | None,
    why: str,
    *,
    only_if_wider: bool = False,
) -> None:
    """Widen each mode's range but the recorded one's (the database's either way) to cover
    `alt`, the outcomes of another reading of the same evidence, saying `why`; with
    `only_if_wider`, only where that reading widens the range the outcome already says (a
    reading that only widens an inferred what-if, beside the candidates' own notes)."""
    for mode in MODES:
        if mode == recorded or mode not in out or mode not in alt:
            continue
        o = out[mode]
        seen = [*_figures(o), *_figures(alt[mode])]
        spans = {
            key: [min(v[i] for v in seen), max(v[i] for v in seen)]
            for i, key in enumerate(_SPAN_KEYS)
        }
        if all(lo == hi for lo, hi in spans.values()) or (only_if_wider and spans == _spans(o)):
            continue
        note = (
            f"{why}, between "
            f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept, "
            f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks and "
            f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
        )
        _say_range(o, spans, note)


PUTS_UNSURE = (
    "a root step of an invocation that ended has no checkpoint in the database: under the "
    "recorded mode read as sync or async it never completed, under exit it was never saved"
)
"""Why an inferred reading is widened over a missing root checkpoint (`Evidence.puts_unsure`)."""

PEERS_UNSURE = (
    "the log names no task ids, and parallel tasks of one node ran in runs of one subgraph "
    "side by side: which run each line was (which task went on, which paused) is read both "
    "ways"
)
"""Why a what-if is widened over the other placement of a bare log's parallel lines
(`align.realigned`)."""


PAIRING_UNSURE = (
    "the log names no task ids, and an end line came while several starts of its node were "
    "open: which start it closed (which task finished an effect, which went on) is read both "
    "ways"
)
"""Why a what-if is widened over the other grouping of a bare log's lines
(`align.paired_newest`)."""


JOINED_UNSURE = (
    "the log names no effect: lines of one node, one after another in one process, are read "
    "as one task's effects and as tasks of their own (the node run again in a later step)"
)
"""Why a what-if is widened over a bare log's lines of one node read as separate tasks
(`align.split_runs`)."""


def _widen_for_peers(
    out: dict[str, ModeOutcome],
    thread: Thread | None,
    attempts: list[Attempt],
    status: str,
    rec: Recording,
    latency: float,
) -> dict[str, ModeOutcome]:
    """Where the lines of parallel runs of one subgraph could be placed the other way
    (`align.realigned`), or an end line closed another open start of its node
    (`align.paired_newest`), widen each mode's range but the recorded one's (`rec`, known)
    to cover that reading too."""
    if thread is None:
        return out
    for alt, why in (
        (realigned(attempts, thread), PEERS_UNSURE),
        (paired_newest(attempts, thread), PAIRING_UNSURE),
        (split_runs(attempts, thread), JOINED_UNSURE),
    ):
        if alt is not None:
            _widen_with(out, gather(thread, alt, status, rec), thread, alt, rec, latency, why)
    return out


def _unconfirmed_kinds(ev: Evidence, mode: Mode) -> set[int]:
    """The invocations only node names told apart (`Evidence.kinds_weak`) that the database
    cannot confirm either: under exit, every one (it keeps no input checkpoint); under sync
    and async, those of which no root checkpoint landed. A fresh input and a run from an
    earlier checkpoint (``invoke(None, config)``) then look alike: the same first node,
    nothing saved before the kill (test_parallel_subgraph_nodes_load_correct_state_on_replay,
    killed 0.2 s into a run whose copy took 0.25 s to save) — and they leave different
    things under sync: a fresh input's checkpoints land before its first node starts, a
    copy's does not hold the run back. An invocation a run from an earlier checkpoint would
    have begun alike (`Evidence.kinds_alike`) is told by a checkpoint of its own in any
    mode, by its step (test_subgraph_interrupts under exit: the pause saved on the way out
    at the step a fresh input reaches)."""
    held = {p.inv for p in ev.puts if p.ns == "" and p.checkpoint is not None}
    if mode == "exit":
        return {i for i in ev.kinds_weak if i not in (ev.kinds_alike & held)}
    return {i for i in ev.kinds_weak if i not in held}


def _flag_weak_kinds(ev: Evidence, unsure: set[int]) -> None:
    """Mark the attempts of the invocations read both ways: their verdict is one reading's."""
    for a in ev.attempts:
        if id(a) in ev.step_of and (inv := ev.step_of[id(a)][1]) in unsure:
            if KIND_UNSURE not in a.ambiguity:
                why = (
                    "a run from an earlier checkpoint that had its first task due would have "
                    "begun alike, and nothing of it was saved to tell"
                    if inv in ev.kinds_alike
                    else "the log names no task ids, and the database keeps no input "
                    "checkpoint of it to tell"
                )
                a.flag(f"{KIND_UNSURE} ({why})")


def _kinds_weak_note(ev: Evidence, unsure: set[int]) -> str:
    """Why an invocation is read both as a fresh input and as a resume (`_unconfirmed_kinds`):
    the log told it by node names alone, or a run from an earlier checkpoint would have
    begun alike (`Evidence.kinds_alike`)."""
    notes = []
    if named := sorted(unsure - ev.kinds_alike):
        which = ", ".join(str(i + 1) for i in named)
        notes.append(
            f"the log names no task ids and the database keeps no input checkpoint of "
            f"invocation {which}: nothing shows whether it was a fresh input (lost with it, so "
            "a resume runs the earlier invocation's unfinished tasks) or a resume (of a pause, "
            "or a run from an earlier checkpoint)"
        )
    if alike := sorted(unsure & ev.kinds_alike):
        which = ", ".join(str(i + 1) for i in alike)
        notes.append(
            f"invocation {which} began after the thread's run had returned, at a task an "
            "earlier checkpoint had due, and the database keeps nothing of it: a fresh input "
            "(its checkpoints lost with the kill) and a run from that earlier checkpoint "
            "(which saves no copy of it first, or whose copy was lost) begin alike"
        )
    return "; ".join(notes)


def _raised_unsure_note(ev: Evidence, mode: Mode) -> str:
    """Why a subgraph's last step is read both as put and as raised out (`_raised_out`)."""
    steps = ", ".join(
        f"{base_space(ns)} step {step}" for ns, _inv, step in sorted(ev.raised_unsure)
    )
    if mode == "exit":
        return (
            f"under exit a subgraph saves on its way out only when it raised, and the kill came "
            f"within a write of its last step's end ({steps}): nothing shows whether it returned "
            "(no save) or raised out, a Command to the parent (its save still in flight), "
            "which under the other modes returns without putting that step"
        )
    return (
        f"with the mode inferred as {mode} and no write latency known, nothing shows whether "
        f"the subgraph's last step ({steps}) was put or left by raising (a Command to the "
        "parent raises ParentCommand before the step's put; only a put sooner tells, which "
        "needs the latency)"
    )


def _kill_after_saved(ev: Evidence, rec: Recording, latency: float) -> None:
    """A kill moment taken from the log's last line is only a lower bound: under the recorded
    mode every checkpoint the database holds had landed before the kill. Move the kill to
    just after the last of them landed (at the recorded latency, else the what-if's), read
    on the recorded clock from each checkpoint's own ts: the re-timed schedule of the
    recorded mode can place a `Send` worker's last put later than it landed (send_to_subgraph
    with the mode inferred: the kill read 0.77 s into ``pick_best``, where it came at 0.2 s,
    and async kept 15 where 14)."""
    if (
        rec.mode not in ("sync", "async")
        or rec.kill_offset is not None
        or ev.ending != "killed"
        or ev.kill_attempt is None
        or ev.kill_offset is None
    ):
        return
    lat = rec.latency if rec.latency is not None else latency
    last = ev.invocations - 1
    # On the recorded clock: each checkpoint was taken at its ts and landed a write later
    # (the latency and the write itself), behind the write before it in its own loop
    # (`_checkpointer_put_after_previous`).
    taken = sorted(
        (t, p.ns)
        for p in ev.puts
        if p.inv == last and p.checkpoint is not None
        for t in [taken_at(p.checkpoint)]
        if t is not None
    )
    landed: dict[str, float] = {}
    for t, ns in taken:
        landed[ns] = max(t, landed.get(ns, float("-inf"))) + lat + WRITE_COST
    if not landed:
        return
    offset = max(landed.values()) - ev.kill_attempt.start_ts
    if offset > ev.kill_offset + 1e-6:
        ev.kill_offset = offset
        ev.crash_ts = max(ev.crash_ts or 0.0, ev.kill_attempt.start_ts + offset)
        ev.assumed.append(
            f"kill moment: {offset:.2f} s into {ev.kill_attempt.node}, when the last checkpoint "
            f"the database holds had landed under {rec.mode} at {lat:g} s per write (the log's "
            "last line is earlier)"
        )


def _what_if_as(
    rec: Recording,
    latency: float,
    ev: Evidence,
    thread: Thread | None,
    attempts: list[Attempt],
    *,
    model_recorded: bool = False,
) -> dict[str, ModeOutcome]:
    """Every mode's outcome, the recorded mode being `rec.mode` (or unknown).

    `model_recorded`: model the recorded mode too, instead of reading the database and the
    verdicts as they stand (a second reading of the evidence, which the verdicts do not
    follow)."""
    _kill_after_saved(ev, rec, latency)
    outcomes: dict[str, ModeOutcome] = {}
    for mode in MODES:
        if model_recorded:
            outcomes[mode] = modelled(mode, latency, ev, rec)[0]
        elif is_recorded(rec, mode, latency) or (
            latency == 0
            and mode in ("sync", "async")
            and rec.mode in ("sync", "async")
            and is_recorded(rec, rec.mode, 0.0)
        ):
            outcomes[mode] = recorded(mode, latency, ev, thread, attempts)
        else:
            outcomes[mode] = modelled(mode, latency, ev, rec)[0]
    if latency == 0 and not outcomes["sync"].as_recorded and not outcomes["async"].as_recorded:
        outcomes["async"] = copy_as(
            outcomes["sync"], "async", 0.0, "with writes taking no time async is sync"
        )
    if latency == 0 and outcomes["sync"].as_recorded != outcomes["async"].as_recorded:
        src = "sync" if outcomes["sync"].as_recorded else "async"
        other: Mode = "async" if src == "sync" else "sync"
        outcomes[other] = copy_as(
            outcomes[src], other, 0.0, "with writes taking no time async is sync"
        )
    clamp(outcomes, ev, stalled=thread is not None and join_never_fires(thread) is not None)
    _widen_for_unlogged_raise(ev, thread, outcomes, rec, latency)
    return outcomes


def _widen_for_unlogged_raise(
    ev: Evidence,
    thread: Thread | None,
    outcomes: dict[str, ModeOutcome],
    rec: Recording,
    latency: float,
) -> None:
    """Under exit, say the range up to the save on the way out of a raise, in a killed
    invocation that failed while a sibling task ran on (a failure its line shows, or one
    that left no line).

    A task that fails before its first line leaves only its ``__error__`` write (saved, or
    an orphan of a step whose checkpoint never landed). The invocation raises at once, and
    exit saves that step's checkpoint on its way out, while the process lives on until the
    sibling's thread ends (the sync loop cannot cancel it): killed then, exit keeps that
    checkpoint and repeats what a resume from it repeats, sync's repeats. overwrite_parallel
    on LangGraph 0.4.10 (no ``Overwrite``: node_b fails as it starts), at 0.5 s a write, from
    async: exit was said to keep nothing and run node_a and node_c again (0 2 3) where its
    way-out save had landed 0.1 s before the kill (1 1 1). When that task failed within its
    step only its checkpoint's id bounds (the step's start), so this is a range: only the
    root's save, of a fresh input, and only where its step began a write's time before the
    kill."""
    out = outcomes["exit"]
    if out.as_recorded or thread is None or thread.root is None or ev.crash_ts is None:
        return
    if ev.ending != "killed" or len(thread.namespaces) > 1 or "resume" in ev.kinds[-1:]:
        return
    mine = _attempts_of_last(ev)
    if not mine:
        return
    began = min(a.start_ts for a in mine)
    told = {a.task_id or (a.task.task_id if a.task is not None else None) for a in mine}
    writes = [*thread.orphan_writes, *(w for c in thread.root.checkpoints for w in c.writes)]
    # when the failure the invocation raised with came: its line's end (a trace's span), else
    # no earlier than its step's start, which its write's checkpoint id dates (under sync the
    # step's tasks start once that checkpoint's put landed); a failure its node's error
    # handler took (its `__error_source_node__` write) raised nothing
    taken = {id(f) for f in ev.handlers.values()} | ev.retried | ev.failed_calls
    wait = (rec.latency or 0.0) if rec.mode == "sync" else 0.0
    moments = [a.end_ts for a in mine if a.outcome == "failed" and id(a) not in taken]
    if not any(a.outcome == "failed" for a in mine):
        handled = {w.task_id for w in writes if w.channel == "__error_source_node__"}
        moments = [
            t + wait
            for w in writes
            if w.channel == "__error__" and w.task_id not in told | handled
            for t in [checkpoint_id_epoch(w.checkpoint_id)]
            if t is not None
        ]
    # the kill a manifest aims (that long after its node's start), else one only the log
    # bounds, which may have come any time after its last line (`LATE_KILL`)
    aimed = [a for a in mine if a.node == rec.kill_node] if rec.kill_offset is not None else []
    if aimed and rec.kill_offset is not None:
        kill = aimed[-1].start_ts + rec.kill_offset
    elif ev.unlogged_kill is not None and rec.kill_offset is not None:
        kill = ev.unlogged_kill + wait + rec.kill_offset  # its step began then (no line)
    else:
        kill = ev.crash_ts + (ev.kill_unsure if ev.kill_offset is not None else LATE_KILL)
    if not any(began <= t and t + latency < kill for t in moments):
        return
    sync = outcomes["sync"]
    alt = (out.checkpoints_kept + 1, len(sync.reruns), len(sync.replayed_lines))
    spans = _stretched(_spans(out), alt)
    if spans == _spans(out):
        return
    _say_range(
        out,
        spans,
        "a task of the killed invocation failed (its line ends in an error, or it logged none "
        "and the database holds its error): the invocation raised then, and exit saved that "
        "step's checkpoint on its way out while a task beside it ran on, if that save landed "
        "before the kill: "
        f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept",
    )


_SPAN_KEYS = ("checkpoints_kept", "reruns", "replayed_lines")


def _figures(o: ModeOutcome) -> list[tuple[int, int, int]]:
    """The outcome's own figures, and the ends of its race span if it has one."""
    own = [o.figures]
    if o.race:
        own += [tuple(o.race[k][i] for k in _SPAN_KEYS) for i in (0, 1)]  # type: ignore[misc]
    return own


def _spread(
    runs: list[dict[str, ModeOutcome]], inferred: Inference | None, why: Sequence[str] = ()
) -> dict[str, ModeOutcome]:
    """One outcome per target mode from several possible recorded modes (and readings of the
    evidence, `why`): the figures of the one that repeats the most (never the reassuring
    answer when unsure), and the range over all of them."""
    out: dict[str, ModeOutcome] = {}
    for mode in MODES:
        cands = [r[mode] for r in runs]
        # A candidate the mode order had to correct is a recorded mode the evidence fits
        # worse: the figures come from the others when there are any (the range keeps all).
        fitting = [o for o in cands if not any("never keeps less" in x for x in o.assumed)]
        worst = max(
            fitting or cands,
            key=lambda o: (len(o.reruns), len(o.replayed_lines), -o.checkpoints_kept),
        )
        chosen = dataclasses.replace(worst, as_recorded=False)
        chosen.used = [*worst.used]
        chosen.assumed = [*worst.assumed, *([inferred.sentence()] if inferred else [])]
        seen = [f for o in cands for f in _figures(o)]
        spans = {
            key: [min(v[i] for v in seen), max(v[i] for v in seen)]
            for i, key in enumerate(_SPAN_KEYS)
        }
        if any(lo != hi for lo, hi in spans.values()):
            # the candidates' own ranges say why each reading is itself unsure
            own = [c for o in cands if o.race.get("note") for c in _causes(o.race["note"])]
            cause = "; ".join(
                dict.fromkeys(
                    ([f"the recorded mode could have been {' or '.join(inferred.modes)}"]
                     if inferred and len(inferred.modes) > 1 else []) + list(why) + own
                )
            )  # fmt: skip
            note = (
                f"{cause}: between "
                f"{spans['checkpoints_kept'][0]}-{spans['checkpoints_kept'][1]} checkpoints kept, "
                f"{spans['reruns'][0]}-{spans['reruns'][1]} tasks and "
                f"{spans['replayed_lines'][0]}-{spans['replayed_lines'][1]} effect lines again"
            )
            chosen.race = {**spans, "note": note}
            chosen.assumed.append(note)
        out[mode] = chosen
    return out


_FIGURES_SAID = re.compile(
    r"[:,] (?:the race decides )?between \d+-\d+ checkpoints kept.*?effect lines again"
)


def _causes(note: str) -> list[str]:
    """The reasons a candidate's own range gives, without its figures: the spread over the
    candidates says the figures once, for all of them, and a reason each reading repeats is
    said once."""
    return [c for c in (_FIGURES_SAID.sub("", part).strip() for part in note.split("; ")) if c]


def what_if_at(
    thread: Thread | None,
    attempts: list[Attempt],
    latency: float,
    at: float,
    *,
    recording: Recording | None = None,
) -> dict[str, ModeOutcome]:
    """Each mode's outcome for a kill at recorded moment `at` (the Learn page's "what if a
    SIGKILL hit here"): the recording is cut at `at`, the task running then is the one killed."""
    if latency < 0:
        raise ValueError("the checkpoint write latency cannot be negative")
    rec = recording or Recording()
    cut: list[Attempt] = []
    for a in attempts:
        lines = [line for line in a.lines if line.ts <= at]
        if lines:
            cut.append(dataclasses.replace(a, lines=lines))
    cut_thread = None
    if thread is not None:
        spaces = {}
        for name, ns in thread.namespaces.items():
            kept = [c for c in ns.checkpoints if (iso_to_epoch(c.ts) or 0.0) <= at]
            spaces[name] = Namespace(name, kept, {c.checkpoint_id: c for c in kept})
        cut_thread = Thread(thread.thread_id, spaces)
    ev = gather(
        cut_thread,
        cut,
        "resumable",
        dataclasses.replace(rec, kill_offset=None),
    )
    ev.kill_time, ev.kill_chosen = at, True
    ev.ending = "killed"
    if ev.kill_attempt is not None:
        ev.kill_offset = at - ev.kill_attempt.start_ts
        ev.crash_ts = at
        ev.assumed = [x for x in ev.assumed if not x.startswith("kill moment")]
        ev.used.append(f"kill moment: chosen, {ev.kill_offset:.2f} s into {ev.kill_attempt.node}")
    outcomes: dict[str, ModeOutcome] = {m: modelled(m, latency, ev, rec)[0] for m in MODES}
    if latency == 0:
        outcomes["async"] = copy_as(
            outcomes["sync"], "async", 0.0, "with writes taking no time async is sync"
        )
    clamp(outcomes, ev)
    return outcomes
