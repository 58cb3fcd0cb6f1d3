"""The recording arranged as invocations, supersteps and checkpoint puts (`gather`)."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Container, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from math import inf
from typing import Literal

from replaylens import namespaces
from replaylens.analysis.attempts import Attempt, continues, retried_in_step, same_task
from replaylens.analysis.durability._memo import per_thread
from replaylens.analysis.durability.rules import (
    INFERRED,
    RACE,
    TICK,
    WRITE_COST,
    Ending,
    Recording,
    every_run_saved_on_exit,
    saves_fork_copy,
    subgraph_writes_reused,
)
from replaylens.analysis.tasks import START
from replaylens.channels import makes_due, overwrites_collide, routed_to
from replaylens.model import CONTROL_CHANNELS, Checkpoint, Task, Thread
from replaylens.times import checkpoint_id_epoch, iso_to_epoch


@dataclass
class Step:
    """One superstep of one loop (namespace) in one invocation, on the recorded clock."""

    ns: str  # the namespace with task ids stripped ("sub", not "sub:<id>")
    inv: int
    step: int
    start: float
    end: float | None  # None: still running when the process died
    attempts: list[Attempt] = field(default_factory=list)
    checkpoint: Checkpoint | None = None  # the saved checkpoint made after this step


@dataclass
class Put:
    ns: str
    inv: int
    step: int
    submit: float  # recorded clock
    checkpoint: Checkpoint | None
    input: bool = False  # an input checkpoint: no loop waits for it (its next step runs at once)
    edited: bool = False  # an input checkpoint ``update_state(as_node="__input__")`` wrote
    replay: bool = False  # the copy an invocation from an earlier checkpoint began with
    """(`replay_forks`): saved by the loop, as an input checkpoint is, so not under exit."""
    branch: bool = False
    """An edit on an earlier checkpoint the next run began from (`branch_edits`): a replay's
    start, but saved by ``update_state``, in every mode (`edit`)."""

    @cached_property  # asked by every schedule of the evidence; nothing changes a put
    def edit(self) -> bool:
        """Saved by ``update_state`` between invocations (source ``update``, or ``fork`` from an
        older checkpoint, or ``input`` as ``__input__``: `_input_edits`):
        `BaseCheckpointSaver.put` is called there and then, whatever the durability, and no loop
        waits for it."""
        return not self.replay and (
            self.edited or (self.checkpoint is not None and self.checkpoint.source in EDIT_SOURCES)
        )


EDIT_SOURCES = frozenset({"update", "fork"})
"""The checkpoint sources ``update_state`` writes (``pregel/main.py``)."""


@per_thread
def replay_forks(db_cps: Sequence[Checkpoint]) -> set[str]:
    """Root checkpoints an invocation from an earlier checkpoint began with (LangGraph's time
    travel: ``invoke(None, config with that checkpoint_id)``): ``PregelLoop._first`` saves a
    copy of it, source ``fork``, one step on, as the child of the checkpoint it replays
    (test_fork_always_re_runs_nodes), through the loop's put, so not under exit. The copy
    ``update_state(as_node="__copy__")`` writes is that checkpoint's sibling instead (its
    parent's child, two steps on from it), an edit kept in every mode."""
    by_id = {c.checkpoint_id: c for c in db_cps if not c.checkpoint_ns}
    return {
        c.checkpoint_id
        for c in by_id.values()
        if c.source == "fork"
        and c.step is not None
        and (parent := by_id.get(c.parent_checkpoint_id or "")) is not None
        and parent.step is not None
        and c.step == parent.step + 1
    }


@per_thread
def run_from_earlier(checkpoints: Sequence[Checkpoint]) -> bool:
    """Was the thread whose checkpoints these are run from an earlier checkpoint at all: by
    an edit (`run_from_edit`), or by time travel that saved no copy (up to 1.1.6,
    `rules.FORK_COPY_SINCE`): a root checkpoint made as a second child of its parent, the
    first run having gone on from it already. Which of a ``checkpointer=True`` graph's
    checkpoints a later resume of such a thread loads the database does not tell
    (test_stateful_subgraph_loads_latest_after_replay's shape on LangGraph 0.6.11, killed in
    the third input's ``sub_step`` under async: the resume ran the graph's new input)."""
    if run_from_edit(checkpoints):
        return True
    parents = [c.parent_checkpoint_id for c in checkpoints if not c.checkpoint_ns]
    return len({p for p in parents if p}) < sum(1 for p in parents if p)


@per_thread
def run_from_edit(checkpoints: Sequence[Checkpoint]) -> bool:
    """Was the thread whose checkpoints these are (its root's are those read) run from an
    earlier checkpoint by an edit: a root checkpoint of source ``fork``, or an
    ``update_state`` on an earlier checkpoint beside a child it already had
    (`branch_edits`)? Its subgraphs' checkpoints then lie on two branches
    (test_three_level_nested_subgraph_loads_state_on_fork)."""
    return any(c.source == "fork" and not c.checkpoint_ns for c in checkpoints) or bool(
        branch_edits(checkpoints)
    )


@per_thread
def branch_edits(db_cps: Sequence[Checkpoint], forks: set[str] | None = None) -> set[str]:
    """Root checkpoints ``update_state`` wrote on an earlier checkpoint, beside a child it
    already had (source ``update``, or a ``__copy__`` fork: test_time_travel.py's forks with
    a modified state): a branch, like a run from an earlier checkpoint, and the run after
    the edit goes on from it; saved there and then, in every durability mode. (`forks`:
    `replay_forks` of the same checkpoints, when the caller has it.)"""
    roots = [c for c in db_cps if not c.checkpoint_ns]
    forks = replay_forks(db_cps) if forks is None else forks
    out: set[str] = set()
    for c in roots:
        # (under exit the first checkpoint saved has no parent, and a `__copy__` of it, its
        # sibling, none either: test_copy_fork_retriggers_interrupt)
        if c.source not in EDIT_SOURCES or c.checkpoint_id in forks:
            continue
        mine = taken_at(c)
        older = [
            s
            for s in roots
            if s.parent_checkpoint_id == c.parent_checkpoint_id
            and s is not c
            and mine is not None
            and (taken_at(s) or mine) < mine
        ]
        if older or _behind_newest(c, roots):
            out.add(c.checkpoint_id)
    return out


def _behind_newest(edit: Checkpoint, roots: Sequence[Checkpoint]) -> bool:
    """Was `edit` (an edit, or an input checkpoint) written on a saved root checkpoint older
    than the newest one saved before it? ``update_state`` edits the newest one, and an input
    goes on from it, unless told another: one on an older one is a branch, though the newer
    checkpoints may not be its parent's children. In LangGraph 0.4 a checkpoint's parent is
    the one the loop held (``checkpoint_id_prev``), saved or not (0.6 names the last one
    saved), so under ``checkpoint_during=False`` the final save's parent is a step exit
    never wrote (0.4.10, test_fork_from_before_interrupt_refires: the fork on the pause's
    checkpoint has no saved sibling there)."""
    mine = taken_at(edit)
    if mine is None or edit.parent_checkpoint_id not in {r.checkpoint_id for r in roots}:
        return False
    newest = _newest_before(roots, mine)
    return newest is not None and newest[1].checkpoint_id != edit.parent_checkpoint_id


def _newest_before(roots: Sequence[Checkpoint], before: float) -> tuple[float, Checkpoint] | None:
    """The newest of `roots` taken before `before`, with the time it was taken."""
    taken = [(t, c) for c in roots for t in [taken_at(c)] if t is not None and t < before]
    return max(taken, key=lambda tc: tc[0]) if taken else None


def _replay_copies(
    groups: list[list[Attempt]], db_cps: Sequence[Checkpoint], forks: set[str], edited: set[str]
) -> dict[int, tuple[int, float]]:
    """invocation -> (step, ts) of the copy it began with, for each invocation that ran from an
    earlier checkpoint (`replay_forks`: the copy is made after the invocation before it ended
    and before this one's first task).

    The copy's `ts` is the moment the loop made it, just before the run's first task; under
    exit the run saves it on its way out with its other checkpoints, dated then, just after
    its last task (test_subgraph_interrupt_replay_from_parent_then_resume under exit: the
    copy 6 ms after the replayed run's last line, 1.7 s before the next invocation's first).
    A copy between two invocations belongs to the nearer of the two; an edit on a branch
    (`branch_edits`), which ``update_state`` saves between the two, to the run after it.
    `forks` and `edited` are `replay_forks` and `branch_edits` of `db_cps`."""
    made = sorted(
        (t, c.step, c.checkpoint_id in edited)
        for c in db_cps
        if (c.checkpoint_id in forks or c.checkpoint_id in edited) and c.step is not None
        for t in [taken_at(c)]
        if t is not None
    )
    out: dict[int, tuple[int, float]] = {}
    for inv in range(1, len(groups)):
        if not groups[inv]:
            # a run that logged nothing (`_silent_replays`): the copy between its neighbours
            # is the one it began with (the k-th of several silent runs side by side, the
            # k-th copy made between them)
            later = [a.start_ts for g in groups[inv + 1 :] for a in g]
            earlier = [a.end_ts for g in groups[:inv] for a in g]
            rank = 0
            while rank < inv and not groups[inv - rank - 1]:
                rank += 1
            if later and earlier:
                between = [(step, t) for t, step, _edit in made if max(earlier) < t < min(later)]
                if between:
                    out[inv] = between[min(rank, len(between) - 1)]
            continue
        began = min(a.start_ts for a in groups[inv])
        ended = max((a.end_ts for a in groups[inv - 1]), default=float("-inf"))
        if not groups[inv - 1]:
            continue  # the copy before it is the silent run's
        for t, step, edit in made:
            if not ended < t < began:
                continue
            at_end = not edit and inv > 1 and groups[inv - 1] and t - ended < began - t
            out[inv - 1 if at_end else inv] = (step, t)
    return out


def _branch_inputs(
    groups: list[list[Attempt]], kinds: list[InvocationKind], roots: Sequence[Checkpoint]
) -> dict[int, int | None]:
    """Fresh inputs sent to an earlier checkpoint than the thread's newest (``invoke(input,
    config with an older checkpoint_id)``, test_delta_channel_time_travel): the run is a
    branch, and a resume goes on along it, leaving the invocations before it behind as a
    run from an earlier checkpoint does. Told by the invocation's input checkpoint, where
    it was saved (its parent not the newest checkpoint before it: `_behind_newest`), or
    else by the root step the log gives its first task: one a fresh input on the newest
    checkpoint does not reach (`_input_step_fits`), and one on an older checkpoint does.
    Each maps to the root step it goes on from where its input checkpoint tells it (the one
    before that checkpoint's: a log without steps numbers its tasks from there), else None."""
    out: dict[int, int | None] = {}
    for inv in range(1, len(groups)):
        if kinds[inv] != "input" or not groups[inv]:
            continue
        began = min(a.start_ts for a in groups[inv])
        ended = max((a.end_ts for g in groups[:inv] for a in g), default=float("-inf"))
        saved = _saved_input(roots, ended, began)
        if saved is not None:
            if _behind_newest(saved, roots):
                out[inv] = None if saved.step is None else saved.step - 1
            continue
        step = _root_step(groups[inv], groups[:inv])
        if step is None or _input_step_fits(roots, began, step):
            continue
        if any(
            (taken_at(c) or began) < began and c.step is not None and step - c.step in (2, 3)
            for c in roots
        ):
            out[inv] = None
    return out


def _saved_input(roots: Sequence[Checkpoint], ended: float, began: float) -> Checkpoint | None:
    """The input checkpoint a fresh input saved between the invocation before's end and its
    own first task, if the database holds it."""
    saved = [
        c for c in roots if c.source == "input" and ended < (taken_at(c) or float("-inf")) < began
    ]
    return saved[-1] if saved else None


def _silent_replays(
    groups: list[list[Attempt]], db_cps: Sequence[Checkpoint], starts: set[str]
) -> tuple[list[int], dict[int, float]]:
    """Where a run from an earlier checkpoint logged nothing: its copy (or edit) lies between
    two logged invocations and holds a pause (a task with an `__interrupt__` write) whose node
    the later invocation starts with (or the root task whose subgraph that node ran in) — the
    run paused at once, before any line, and the later invocation is the answer
    (test_replay_from_before_interrupt_then_resume: ask_human asks again before logging;
    test_subgraph_replay_from_subgraph_checkpoint: the run from the subgraph's own checkpoint
    pauses in it, and the root's copy holds the pause of the task that runs the subgraph).
    A copy with nothing due is a run that ran nothing (a replay from the final checkpoint,
    test_replay_from_final_checkpoint_is_noop): it saved its copy, in every mode, and the
    later invocation is a fresh input; unless an update was saved on it at once
    (`_edited_at_once`: the copy of an ``update_state`` that copies and edits in one call).
    Several such copies between the same two logged invocations are as many silent runs
    (test_replay_interrupt_stable_across_replays: three replays of one checkpoint, each
    asking again before logging), in the order they were made.
    Returns the places to insert an empty invocation at (a place once per silent run), and,
    where the last silent run before a logged one ran nothing, the time its copy was made;
    each owns its copy (`_replay_copies`) and what was saved after the previous run's end
    (`_bounds`). `starts`: the copies and edits runs from earlier checkpoints began with."""
    copies = sorted(
        (c for c in db_cps if c.checkpoint_id in starts and not c.checkpoint_ns),
        key=lambda c: taken_at(c) or float("-inf"),
    )
    roots = [c for c in db_cps if not c.checkpoint_ns]
    out: list[int] = []
    idle: dict[int, float] = {}
    for inv in range(1, len(groups)):
        if not groups[inv] or not groups[inv - 1]:
            continue
        last = max(groups[inv - 1], key=lambda a: a.end_ts)
        ended = last.end_ts
        first = min(groups[inv], key=lambda a: a.start_ts)
        for c in copies:
            t = taken_at(c)
            if t is None or not ended < t < first.start_ts:
                continue
            if {u.task_id for u in c.tasks} & {a.task_id for a in groups[inv - 1] if a.task_id}:
                # The run before logged tasks of this copy (a trace shows even a node that
                # asks before its first line): it began with the copy, which exit saved as it
                # ended; no run went silent.
                continue
            if _only_copy_for(groups[inv - 1], roots, copies):
                continue  # ...or the run before could only have begun with it (saved on exit)
            if not c.tasks and c.source == "fork" and not _edited_at_once(c, roots):
                out.append(inv)  # a copy with nothing due: a run that ran nothing
                idle[inv] = t
                continue
            paused = {
                u.node for u in c.tasks if any(w.channel == "__interrupt__" for w in u.writes)
            }
            if first.node in paused or (
                _in_subgraph_of(first, paused)
                and _paused_in_place(first, ended, db_cps)
                and _ended_apart(last, t, paused, roots)
            ):
                out.append(inv)
                idle.pop(inv, None)  # (a later silent run paused: it is the last one)
    return out, idle


def _edited_at_once(copy: Checkpoint, roots: Sequence[Checkpoint]) -> bool:
    """Is a copy with nothing due the first half of one ``update_state(config, [updates],
    as_node="__copy__")`` (test_fork_and_update_task_results): the update saved on top of it
    at once (a child of source "update") — not a run that ran nothing?"""
    return any(c.parent_checkpoint_id == copy.checkpoint_id and c.source == "update" for c in roots)


def _fresh_after_idle(
    groups: list[list[Attempt]],
    silent: list[int],
    idle: dict[int, float],
    db_cps: Sequence[Checkpoint],
    starts: set[str],
) -> set[int]:
    """The invocations (indices into `groups`, the silent runs inserted) that follow a silent
    run that ran nothing (`idle`: its place before insertion -> its copy's time) with no other
    copy or edit made between that copy and their first task: each is a fresh input."""
    made = [t for c in db_cps if c.checkpoint_id in starts for t in [taken_at(c)] if t is not None]
    out: set[int] = set()
    for inv, copied in idle.items():
        # the index of the logged invocation after the silent runs inserted at `inv`
        nxt = inv + sum(1 for other in silent if other <= inv)
        if nxt >= len(groups) or not groups[nxt]:
            continue
        first = min(a.start_ts for a in groups[nxt])
        if not any(copied < t < first for t in made):
            out.add(nxt)
    return out


def _only_copy_for(
    group: list[Attempt], roots: Sequence[Checkpoint], copies: list[Checkpoint]
) -> bool:
    """Could the run of `group` (a log without task ids) only have begun with a copy saved
    after it? It began after the thread had ended (the newest root checkpoint before it has
    nothing due) with no copy made before it: only a run from an earlier checkpoint starts
    work then, and under exit that run saves its copy on its way out, after its own lines
    (test_subgraph_replay_then_resume under exit: the run from the copy logged ``step_a``,
    then paused; a bare log read it as a run that ended and a silent one that paused).
    A fresh input would have saved an input checkpoint before its first task; exit does not."""
    if any(a.task_id for a in group):
        return False
    began = min(a.start_ts for a in group)
    saved = [(t, r) for r in roots for t in [taken_at(r)] if t is not None and t < began]
    if not saved:
        return False
    last_t, last = max(saved, key=lambda tr: tr[0])
    if last.tasks or last in copies:
        return False
    return not any(last_t < (taken_at(c) or -inf) < began for c in copies)


def _paused_in_place(first: Attempt, after: float, db_cps: Sequence[Checkpoint]) -> bool:
    """Does a checkpoint of `first`'s own loop, taken after `after` and before `first`
    began, hold a pause of `first`'s node? The run that paused in a subgraph saved it there
    before the answer's first line; a run that logged its way down to the pause saved it
    after its own first line instead."""
    ns = first.namespace if first.namespace is not None else first.logged_ns
    return any(
        (ns is None or c.checkpoint_ns == ns)
        and after < (taken_at(c) or -inf) < first.start_ts
        and any(
            t.node == first.node and any(w.channel == "__interrupt__" for w in t.writes)
            for t in c.tasks
        )
        for c in db_cps
    )


def _in_subgraph_of(a: Attempt, tasks: set[str]) -> bool:
    """Did `a` run in a subgraph of one of these root tasks (its namespace's first level)?"""
    return namespaces.root_runner(a.namespace or a.logged_ns or "")[0] in tasks


def _ended_apart(last: Attempt, t: float, paused: set[str], roots: list[Checkpoint]) -> bool:
    """Is a copy taken at `t`, holding a pause of a task in `paused`, apart from the run whose
    last line was `last`? It is when that line ran in no subgraph of those tasks, or when a
    root checkpoint with nothing due, taken between the two, shows that run had ended. (A
    run from an earlier checkpoint that logged in the subgraph, then paused there, has its
    copy saved on its way out under exit: test_subgraph_interrupt_replay_from_parent_then_
    resume.)"""
    if not _in_subgraph_of(last, paused):
        return True
    return any(not c.tasks and last.end_ts <= (taken_at(c) or -inf) <= t for c in roots)


@per_thread
def _input_edits(db_cps: Sequence[Checkpoint]) -> set[str]:
    """Root input checkpoints ``update_state(as_node="__input__")`` wrote (test_update_as_input,
    a turn written without running it): the checkpoint after one is another edit (``update``,
    as ``__start__``), where a real input's is the loop's, made by running ``__start__``."""
    edit_parents = {
        c.parent_checkpoint_id for c in db_cps if not c.checkpoint_ns and c.source in EDIT_SOURCES
    }
    return {
        c.checkpoint_id
        for c in db_cps
        if not c.checkpoint_ns and c.source == "input" and c.checkpoint_id in edit_parents
    }


@dataclass
class Evidence:
    """The recording arranged as invocations, steps and puts; built once per thread."""

    steps: list[Step]
    puts: list[Put]
    attempts: list[Attempt]
    invocations: int
    ending: Ending
    kill_attempt: Attempt | None
    crash_ts: float | None
    kill_offset: float | None
    used: list[str]
    assumed: list[str]
    db_checkpoints: Sequence[Checkpoint]
    step_of: dict[int, tuple[str, int, int]]  # id(attempt) -> (ns, inv, step)
    container: dict[tuple[str, int], int]  # (nested ns, inv) -> root step that ran it
    killed_earlier: set[int] = field(default_factory=set)  # invocations killed before the last one
    replays: set[int] = field(default_factory=set)
    """Invocations that ran from an earlier checkpoint (`replay_forks`): the steps go back."""
    branch_inputs: set[int] = field(default_factory=set)
    """Fresh inputs sent to an earlier checkpoint than the newest (`_branch_inputs`): like a
    run from one, a resume goes on along them and leaves the invocations before behind."""
    kill_time: float | None = None  # a chosen kill moment on the recorded clock (what_if_at)
    kill_chosen: bool = False  # `kill_time` was chosen on the recorded clock: exact, no race
    kill_anchor: float | None = None
    """Where `kill_time` was dated from the start of a node that logs nothing itself
    (`_kill_in_silent_holder`): when that node started, on the recorded clock. A kill aimed
    a time after it started comes that time after it in every mode, not after the waits
    another mode adds once its graphs' lines ended."""
    unlogged_kill: float | None = None
    """When the step of the node the kill was aimed at began, on the recorded clock before
    any wait for a put (the last line's end), where that node logged nothing in the last
    invocation (it failed, or was killed, before its first line) and no task was in flight
    (`_aimed_unlogged_start`): the kill came the aimed time after that step began, after
    the waits of the mode at hand."""
    pause_kill: float | None = None
    """When the node started, on the recorded clock before any wait for a put (the last
    line's end), in a last invocation that reads as paused but was killed a given time after
    that node started, while the pause was being saved (`_killed_while_pausing`); else None."""
    pause_moment: float | None = None
    """The kill moment the recording dates (a given time after the aimed node first started
    in the last invocation) in a last invocation that reads as paused, when it falls after
    every line of it: the run may have been on its way out then (`_dated_pause_moment`)."""
    retried: set[int] = field(default_factory=set)  # id(attempt): failed, retried in its step
    subgraph_writes_reused: bool = True
    """Does a subgraph resumed from its own checkpoint reuse the writes saved on it (the
    release's rule, `rules.subgraph_writes_reused`), or run its finished tasks again?"""
    cached_nodes: frozenset[str] = frozenset()
    """Nodes a resume takes from a node cache that outlives the process, their finished tasks
    not run again (`Recording.cached_nodes`, `node_cache.cache_readings`)."""
    handlers: dict[int, Attempt] = field(default_factory=dict)
    """id() of an error handler's attempt -> the failure it took (`handled_failures`, read
    once here for every schedule of this evidence)."""
    handled_later: set[int] = field(default_factory=set)
    """id() of failures whose error handler a later invocation ran (`handled_on_resume`):
    under sync and async their writes are put as they end."""
    raise_at_apply: set[int] = field(default_factory=set)
    """id() of tasks marked `Attempt.raised_after` whose step raised as LangGraph applied the
    step's writes (two ``Overwrite`` of one channel): every write was put before the save at
    the raise."""
    raise_at_apply_unsure: set[int] = field(default_factory=set)
    """id() of tasks marked `Attempt.raised_after` whose step's raise may have come as
    LangGraph applied the step's writes (another task of it wrote one of the same channels,
    and nothing shows that channel takes several values a step): then every write was put
    before the save at the raise, where a step_timeout's comes before the late task's
    (`outcomes._widen_for_raise_at_apply`)."""
    pushed_by_command: set[int] = field(default_factory=set)
    """id() of attempts a `Command` sent at a resume scheduled (its ``goto``): due only through
    the writes it hangs off the checkpoint with no task of its own, which exit never saves
    for an invocation that was killed (`_pushed_by_command`)."""
    kinds_weak: set[int] = field(default_factory=set)
    """Invocations whose kind (fresh input or resume) only node names told (`_kinds`), or
    that a run from an earlier checkpoint would have begun alike (`kinds_alike`)."""
    kinds_alike: set[int] = field(default_factory=set)
    """Invocations of `kinds_weak` that began after the thread's run had returned, at a task
    an earlier checkpoint had due: a fresh input, or a run from that checkpoint (`_kinds`)."""
    failed_calls: set[int] = field(default_factory=set)
    """id() of failed ``@task`` calls their entrypoint caught (`_caught_failures`): no raise,
    but the call's saved writes are an error, and a resume of the entrypoint runs it again
    (``_reapply_writes_to_succeeded_nodes`` restores finished tasks only)."""
    kinds: list[InvocationKind] = field(default_factory=list)  # how each invocation began
    holder_of: dict[tuple[str, int, int], int] = field(default_factory=dict)
    """(nested ns, inv, step) -> the parent step whose task ran it (one per run of a subgraph)."""
    stable: set[str] = field(default_factory=set)
    """Nested namespaces without task id: subgraphs compiled with ``checkpointer=True``."""
    puts_kept: bool = False
    """The recorded mode saves every step's checkpoint (sync, async): in an invocation that
    ended, a root step the database has no checkpoint of never completed."""
    root_stayed: set[int] = field(default_factory=set)
    """Invocations that ended, recorded under exit, of which the database holds no root
    checkpoint: exit saves the root's last one as an invocation ends if it moved on, so no
    root step of theirs completed (the log's root steps there are not puts of any mode)."""
    exit_saved: set[str] = field(default_factory=set)
    """Nested namespaces whose runs save their last checkpoint on their way out under exit:
    the `stable` ones, and before LangGraph 0.5 every one (`rules.every_run_saved_on_exit`)."""

    raised_out: set[tuple[str, int, int]] = field(default_factory=set)
    """(ns, inv, step): a subgraph step its loop left by raising (`_raised_out`): no put."""
    raised_unsure: set[tuple[str, int, int]] = field(default_factory=set)
    """(ns, inv, step): a subgraph step that may have been left by raising or put, which only
    the write latency could tell (`_raised_out` answers None): the what-if says both."""
    unsaved: set[str] = field(default_factory=set)
    """Nested graphs that logged lines and save no checkpoint (compiled with
    ``checkpointer=False``, `_unsaved_graphs`): no put of theirs in any mode."""
    unsaved_unsure: set[str] = field(default_factory=set)
    """Nested graphs that logged lines and left no checkpoint under exit, where a subgraph
    that returned leaves none either: taken as saving ones, the range covers the other
    reading (`gather`'s `unsaved`)."""
    queued_unsure: bool = False
    """A task with no step started the moment its step's tasks ended, its node due beside
    theirs (`QUEUED_UNSURE`): read as the next step; the what-if also reads it as queued
    (`gather`'s `queued`)."""
    raise_unsure: bool = False
    replay_start_unsure: bool = False
    """A run from an earlier checkpoint by a release that saves no copy, whose own
    checkpoints were lost with the kill: it is read as begun where its first logged task was
    due, but may have begun one checkpoint earlier, at tasks that logged nothing (gather's
    `replay_earlier` reads that)."""
    """The last invocation reads as raised out of the graph, but nothing dates the kill and
    the database keeps the same had the process died after the failure, before the raise
    left the graph (`RAISE_UNSURE`): the what-if reads both."""
    raised_through: set[int] = field(default_factory=set)
    """id() of failures a node's error handler took that raised out of a graph the node ran:
    that graph's step never completed (no put), and the handler waited for the loop it left."""
    endings: list[Ending] = field(default_factory=list)  # how each invocation ended
    kill_unsure: float = 0.0  # seconds after kill_offset the kill may have come (log-only moment)
    carried: set[tuple[str, int]] = field(default_factory=set)
    """(nested ns, inv): a subgraph run a resume went on with (it paused in that invocation)."""
    stopped: dict[int, int | None] = field(default_factory=dict)
    """Invocation -> the root step that stopped at a pause or raise the log does not show
    (`_unlogged_stops`): it never completed."""
    halted: set[int] = field(default_factory=set)
    """id(attempt): its lines end, but its task began again from its top in a later
    invocation (`_halted`): it paused there, its writes are not the task's."""
    ordinal: dict[int, int] = field(default_factory=dict)
    """id(attempt) -> its place among the attempts of its node in its step and invocation:
    without a task id, which task it was (parallel `Send` workers are several tasks; the
    same place in a later invocation, or a RetryPolicy retry, is the same task)."""
    functional: bool = False
    """An ``@entrypoint`` thread, as its database names it: its ``@task`` calls start one
    after another by design."""
    entrypoint: str | None = None
    """That thread's entrypoint (`_entrypoint_node`): its task returns, and its writes are
    put, only once the calls its body makes after its own lines have returned."""

    @property
    def puts_unsure(self) -> bool:
        """Does a root step of an invocation that ended lack its checkpoint in the database?
        An inferred sync or async reading cannot say whether it never completed
        (`gather`'s `trust_puts` reads that)."""
        last = self.invocations - 1
        return any(not p.ns and p.checkpoint is None and p.inv < last for p in self.puts)


def taken_at(c: Checkpoint) -> float | None:
    """When a checkpoint was taken: its `ts`, else the time inside its uuid6 id."""
    return iso_to_epoch(c.ts) or uuid6_time(c.checkpoint_id)


InvocationKind = Literal["input", "resume"]
"""How an invocation began: a fresh input (an input checkpoint, then `__start__`) or a
resume (`invoke(None)`, `Command(resume=...)`: it loads the latest checkpoint, puts nothing
before its first step)."""


def uuid6_time(checkpoint_id: str) -> float | None:
    """The creation time LangGraph's uuid6 checkpoint ids carry (the rule lives in `times`)."""
    return checkpoint_id_epoch(checkpoint_id)


def _ending(
    last: list[Attempt],
    status: str,
    retried: set[int] = frozenset(),
    *,
    final: bool = True,
    retrying: set[int] = frozenset(),
    halted: set[int] = frozenset(),
) -> Ending:
    """How an invocation ended: a task in flight (or failed and waiting for its retry,
    `_killed_while_retrying`) means the process died under it. `status` (the thread's, from
    the database) only speaks for the last invocation (`final`)."""
    if any(a.outcome == "in flight" or id(a) in retrying for a in last):
        return "killed"
    if any(a.outcome == "failed" and id(a) not in retried for a in last) or (
        final and status == "failed"
    ):
        return "raised"
    if any(a.outcome == "interrupted" or id(a) in halted for a in last) or (
        final and status == "interrupted"
    ):
        return "paused"
    if final and status == "resumable":
        # every logged task finished, yet the database holds work still due: the process
        # died between tasks (a node that logs nothing, or a put still being waited for)
        return "killed"
    return "returned"


@per_thread
def _db_checkpoints(thread: Thread | None) -> tuple[Checkpoint, ...]:
    """Every checkpoint of the thread, namespace by namespace: one tuple per what-if
    (`_memo`), by which the functions of it below know it again."""
    return tuple(c for ns in (thread.namespaces.values() if thread else []) for c in ns.checkpoints)


@per_thread
def runners_of(checkpoints: Sequence[Checkpoint]) -> dict[str, set[str]]:
    """Node -> the root tasks (nodes) under whose namespaces a checkpoint names it: where a log
    without namespaces ran a subgraph's node (`handled_failures`)."""
    out: dict[str, set[str]] = {}
    for c in checkpoints:
        if c.checkpoint_ns:
            runner = namespaces.root_runner(c.checkpoint_ns)[0]
            for node in nodes_named(c):
                out.setdefault(node, set()).add(runner)
    return out


def handled_failures(
    attempts: list[Attempt], runners: dict[str, set[str]] | None = None
) -> dict[int, Attempt]:
    """Error handlers mapped to the failed attempt each one handles (id of the handler's
    attempt -> the failure).

    A node added with ``error_handler=...`` (LangGraph 1.2) does not end the invocation when
    it raises: the loop saves its ``__error__`` and ``__error_source_node__`` writes, waits
    for them under sync and async (``schedule_error_handler``), and runs the handler node
    ``__error_handler__<node>`` as another task of the same step, in the same process. A
    resume finds those writes and runs the handler again, not the node
    (``_resume_error_handlers_if_applicable``). A failure inside a graph the node runs (under
    ``node:<task id>``) raises out of that graph's loop into the node's task, and the node's
    handler takes it the same way (`raised_through`); a log without namespaces shows that
    only through the database (`runners`, `runners_of`: the node is named under the
    handler's node's namespaces)."""
    runners = runners or {}
    ordered = sorted(attempts, key=lambda x: x.start_ts)
    out: dict[int, Attempt] = {}
    taken: set[int] = set()
    for h in ordered:
        if not namespaces.is_error_handler(h.node):
            continue
        failed = h.node.removeprefix(namespaces.ERROR_HANDLER)
        before = [
            a
            for a in ordered
            if (
                namespaces.handles(h.node, a.node)
                or _inside_task(a, failed, None)
                or (a.logged_ns is None and failed in runners.get(a.node, ()))
            )
            and a.outcome == "failed"
            and a.pid == h.pid
            and a.end_ts <= h.start_ts + 1e-6
            and id(a) not in taken
        ]
        if before:
            out[id(h)] = before[-1]
            taken.add(id(before[-1]))
    return out


def _failed_around(attempts: list[Attempt], handlers: dict[int, Attempt]) -> set[int]:
    """id() of the failed task spans of handled nodes around a failure their handler took: a
    trace shows the task that ran a graph failing as the failure inside that graph raises
    out through it. The handler took both; neither ends the invocation
    (test_node_error_handler_handles_subgraph_internal_failure_async)."""
    by_id = {id(a): a for a in attempts}
    out: set[int] = set()
    for hid, inner in handlers.items():
        node = by_id[hid].node
        out |= {
            id(a)
            for a in attempts
            if a is not inner
            and a.outcome == "failed"
            and namespaces.handles(node, a.node)
            and a.pid == inner.pid
            and a.start_ts <= inner.start_ts
            and inner.end_ts <= a.end_ts
        }
    return out


def handled_on_resume(attempts: list[Attempt], handlers: dict[int, Attempt]) -> set[int]:
    """id() of failures whose node's error handler first ran in a later invocation.

    When another task of the step raises first (its own handler crashed, say), the loop
    gives up the step before a failure that ends after it gets its handler; but under sync
    and async that failure's ``__error__`` and ``__error_source_node__`` writes are still
    put as it ends (the executor waits for the tasks in flight), and a resume runs its
    handler, not the node (``_resume_error_handlers_if_applicable``;
    test_retry.py::test_error_handler_resumes_after_crash_multiple_nodes). The log shows it
    as a failure whose handler starts in another process; the database, as a failed task
    whose writes name its source node. Under exit the invocation's one save is made as the
    step is given up, before such a failure ends: nothing of it lands."""
    taken = {id(f) for f in handlers.values()}
    handler_runs = [h for h in attempts if namespaces.is_error_handler(h.node)]
    out: set[int] = set()
    for a in attempts:
        if a.outcome != "failed" or id(a) in taken:
            continue
        later = any(
            namespaces.handles(h.node, a.node) and h.pid != a.pid and h.start_ts > a.end_ts
            for h in handler_runs
        )
        if later or (a.task is not None and a.task.status == "handled"):
            out.add(id(a))
    return out


Pause = tuple[str, str, float, int | None]
"""(node, task id, after, step of that checkpoint): a task the database shows paused at `interrupt()` or failed
(its `__interrupt__` or `__error__` write), due after the checkpoint taken at `after`."""


@per_thread
def _paused_nodes(
    thread: Thread | None, channels: tuple[str, ...] = ("__interrupt__", "__error__")
) -> set[str]:
    """Nodes the database shows paused or failed in any namespace (a subgraph's node that
    called ``interrupt()`` as well as the parent task that ran the subgraph; an entrypoint's
    name for its own pause): a task or `@task` call with a write on one of `channels`."""
    return {
        t.node
        for ns in (thread.namespaces.values() if thread else ())
        for c in ns.checkpoints
        for t in [*c.tasks, *c.calls]
        if any(w.channel in channels for w in t.writes)
    }


def _outran(last: list[Attempt], thread: Thread | None, entry: str | None = None) -> bool:
    """Did the invocation `last` run every task the database shows failed or paused to its
    end (the failure retried, the pause answered)? Then the status those writes give is an
    earlier invocation's. `entry`, an `@entrypoint` whose `@task` call paused, carries that
    pause too: it is answered with the call."""
    stopped = _paused_nodes(thread) - ({entry} if entry else set())
    done = {a.node for a in last if a.outcome == "finished"}
    return bool(stopped) and stopped <= done


@per_thread
def _went_past(thread: Thread | None) -> dict[str, list[tuple[str, float]]]:
    """Node -> (namespace, when) of each checkpoint, in a namespace where the node runs,
    that does not have it due: that loop had gone past it (the step that ran it completed,
    or the loop began another run). Per namespace: one `Send` worker's run that returned
    says nothing of its sibling's, which paused (test_parallel_interrupts)."""
    out: dict[str, list[tuple[str, float]]] = {}
    for ns in thread.namespaces.values() if thread else ():
        nodes = {t.node for c in ns.checkpoints for t in c.tasks if t.node}
        for c in ns.checkpoints:
            taken = taken_at(c)
            if taken is not None:
                for node in nodes - {t.node for t in c.tasks}:
                    out.setdefault(node, []).append((ns.name, taken))
    return out


def _stopped_before(thread: Thread | None, groups: list[list[Attempt]]) -> set[str]:
    """Nodes due with no write at a root checkpoint after which a later invocation of the log
    began: a run stopped there before they finished and another went on (a static
    breakpoint, in the graph or in one a node invokes, leaves no write at all). A log that
    names nodes only reads their next start as the same task run again."""
    root = thread.root if thread is not None else None
    starts = [min(a.start_ts for a in g) for g in groups[1:] if g]
    if root is None or not starts:
        return set()
    return {
        t.node
        for c in root.checkpoints
        for taken in [taken_at(c)]
        if taken is not None and any(taken < began for began in starts)
        for t in c.tasks
        if t.node and not t.writes and t.kind == "pull"
    }


def _pushed_by_command(
    thread: Thread | None,
    attempts: list[Attempt],
    step_of: dict[int, tuple[str, int, int]],
    kinds: list[InvocationKind],
) -> set[int]:
    """Attempts of a resume's first root step whose node the checkpoint it started from did
    not make due: a `Command(goto=...)` sent with the resume scheduled them. Its
    ``branch:to:<node>`` write hangs off that checkpoint with no task of its own (the null
    task id), and a resume applies it before preparing the step (``_first``); under exit a
    killed resume saved none of it, and a resume after the crash does not run the node there.
    Not for an `@entrypoint` (its calls are no due tasks of any checkpoint), nor for a
    node's error handler: the failure it handles scheduled it, and when that failure was not
    saved its node runs again, fails again, and schedules the handler again."""
    if thread is None or thread.root is None or _entrypoint_node(thread) is not None:
        return set()
    root = [c for c in thread.root.checkpoints if c.step is not None]
    out: set[int] = set()
    for a in attempts:
        ns, inv, step = step_of.get(id(a), ("?", 0, -9))
        if ns != "" or a.logged_ns or not (0 < inv < len(kinds)) or kinds[inv] != "resume":
            continue
        if namespaces.is_error_handler(a.node):
            continue
        before = [
            c for c in root if c.step == step - 1 and (taken_at(c) or a.start_ts) < a.start_ts
        ]
        if not before:
            continue
        c = max(before, key=lambda x: taken_at(x) or 0.0)
        due = {t.node for t in c.tasks if t.derived}
        goto = c.command_goto
        if due and a.node not in due and (a.node in goto or not c.null_writes):
            out.add(id(a))
    return out


def _silent_first(thread: Thread | None, attempts: list[Attempt]) -> bool:
    """Did an invocation the log shows nothing of come first, stopped at a root checkpoint a
    later one was resumed from? A `Command` sent at a resume (``goto``, ``update``) hangs its
    writes off that checkpoint with no task of its own (LangGraph's null task id); when that
    checkpoint was taken before the log's first line, the invocation that made it stopped
    there without logging anything: at a static breakpoint (``interrupt_before``), before any
    node ran (test_command_goto_with_static_breakpoints). Under exit the Command's writes are
    lost with a killed resume; a history without any input checkpoint tells it there."""
    if thread is None or thread.root is None or not attempts:
        return False
    first = min(a.start_ts for a in attempts)
    root = thread.root.checkpoints
    earlier = [c for c in root if (taken_at(c) or first) < first - RACE]
    # (an answer to several interrupts, ``__resume__`` by interrupt id, hangs there too: not
    # a Command's goto or update)
    if any(not w.channel.startswith("__") for c in earlier for w in c.null_writes):
        return True
    if _answered_first(thread, attempts, first):
        return True
    # A history with no input checkpoint was saved under exit, one checkpoint as each
    # invocation ended (every other mode saves the input checkpoint first): one taken before
    # the log's first line was saved by an invocation that ended before it — unless
    # ``update_state`` saved it, which no invocation does (test_entrypoint_stateful_update
    # _state: the thread begins with an edit).
    ran = [c for c in earlier if c.source not in EDIT_SOURCES]
    return bool(ran) and not any(c.source == "input" for c in root)


def _answered_first(thread: Thread, attempts: list[Attempt], first: float) -> bool:
    """Is the log's first task one the database shows paused, at a checkpoint taken before
    it began, and answered, with no run of it before the answer in the log? A task that calls ``interrupt()`` before logging anything
    (test_parallel_interrupts_double's nodes) leaves the invocation that paused it without a
    line: the log begins with the answer's. A task id tells it: a node that logs, then
    pauses, logs the same way in the invocation that paused. Without one (a bare log), the
    node's only line in its namespace tells it too: a node that logged before its pause
    would have logged again when answered (test_double_interrupt_subgraph's node_1) —
    unless its process went on to other lines after it, which a pause would have ended
    (test_multiple_interrupts_in_one_node, its later run from an earlier checkpoint starting
    the node again)."""
    head = min(attempts, key=lambda a: a.start_ts)
    # its process went on after it: it did not log, then pause (which ends the invocation)
    passed = any(b.pid == head.pid and b.start_ts >= head.end_ts for b in attempts)
    if head.task_id is None:
        if not passed and any(b is not head and b.node == head.node
                              and b.namespace == head.namespace for b in attempts):  # fmt: skip
            return False
    elif any(b is not head and b.task_id == head.task_id for b in attempts):
        return False  # its task ran again: a run before the pause, then the answer
    # Answered: its `__resume__` write, or it ran past the pause in the log (killed in it,
    # or others ran after it): a task that logs before pausing cannot have paused yet then.
    went_on = head.outcome == "in flight" or any(b.start_ts >= head.end_ts for b in attempts)
    for key, space in thread.namespaces.items():
        if head.task_id is None and head.namespace is not None and key != head.namespace:
            continue
        for c in space.checkpoints:
            if (taken_at(c) or first) >= first - RACE:
                continue
            for t in c.tasks:
                channels = {w.channel for w in t.writes}
                same = t.task_id == head.task_id if head.task_id else t.node == head.node
                if same and "__interrupt__" in channels:
                    if "__resume__" in channels or went_on:
                        return True
    return False


def _sibling_left_due(
    atts: list[Attempt], step_att: dict[tuple[str, int, int], list[Attempt]], inv: int
) -> bool:
    """Did a task due beside these (at the checkpoint they ran from) first log in a later
    invocation? It was still due when this one ended: it paused before logging anything
    (``interrupt()`` first), so the step never completed and put no checkpoint, whatever its
    own tasks did (test_parallel_interrupts_double: one of a worker's two nodes answered,
    the other paused again). Only task ids tell two tasks of one checkpoint apart: the log's,
    or, for a log without them, the task the alignment gave a line of a node the checkpoint
    has due (the two nodes of one step are two tasks)."""
    mine = {t for a in atts if (t := _task_of(a))}
    froms = {id(a.checkpoint) for a in atts if a.checkpoint is not None and _task_of(a)}
    if not froms:
        return False
    return any(
        (t := _task_of(b)) is not None
        and t not in mine
        and b.checkpoint is not None
        and id(b.checkpoint) in froms
        for key, later in step_att.items()
        if key[1] > inv
        for b in later
    )


def _task_of(a: Attempt) -> str | None:
    """The task id of an attempt: the log's, else the one the alignment gave it."""
    return a.task_id or (a.task.task_id if a.task is not None else None)


@per_thread
def _pauses(thread: Thread | None) -> list[Pause]:
    """Where the database shows an invocation stopped: tasks (and the `@task` calls of an
    `@entrypoint`) with an interrupt or error write."""
    out: list[Pause] = []
    if thread is None or thread.root is None:
        return out
    for c in thread.root.checkpoints:
        taken = taken_at(c)
        if taken is None:
            continue
        for t in [*c.tasks, *c.calls]:
            if any(w.channel in ("__interrupt__", "__error__") for w in t.writes):
                out.append((t.node, t.task_id, taken, c.step))
    return out


INSTANCE = "#"
"""Marks one of several runs of a subgraph that overlapped in time (`space_keys`)."""


def base_space(key: str) -> str:
    """A namespace key without instance marks: ``child#2|inner`` -> ``child|inner``."""
    if INSTANCE not in key:
        return key
    return namespaces.NS_SEP.join(
        seg.partition(INSTANCE)[0] for seg in key.split(namespaces.NS_SEP)
    )


def node_path(key: str) -> str:
    """A namespace key without instance marks and call counters: ``p~1#2|inner`` ->
    ``p|inner``: the nodes down to the loop, whichever run or call of them it was."""
    return namespaces.NS_SEP.join(
        seg.partition(INSTANCE)[0].partition(namespaces.CALL)[0]
        for seg in key.split(namespaces.NS_SEP)
    )


def space_keys(
    thread: Thread | None,
    attempts: list[Attempt],
    *,
    below_tasks: bool = False,
    not_loops: Collection[str] = (),
) -> Callable[[str | None], str]:
    """How the model names the namespace a checkpoint or a task ran in.

    A subgraph's namespace carries the id of the parent task that ran it, which changes
    each time the parent step runs; the model names it by its node path (`namespaces.names`)
    so that a subgraph run again in a loop, or resumed, is one loop. Runs of one node path
    that overlap in time are different loops side by side, though: `Send` workers that
    each run a compiled subgraph (``Send("child_graph", ...)``) put and pause on their own.
    Those are told apart as ``child_graph#1``, ``child_graph#2`` (in order of start), from
    the task ids in the database's namespaces and in a log that names namespaces.

    `below_tasks`: the lines come only from graphs an `@task` call of a root task invoked
    (`_graphs_of_calls_only`): their loops are named without the levels above them that are
    no loop (`_below_tasks`). `not_loops`: levels (full namespaces) that are a task's, no
    loop (`_task_levels`): left out of the names of the loops below them."""
    spans: dict[str, list[float]] = {}

    def note(full: str | None, lo: float, hi: float) -> None:
        segs = namespaces.levels(full)
        for i, seg in enumerate(segs):
            if namespaces.NS_END not in seg:
                continue  # no task id (``checkpointer=True``): one loop by construction
            span = spans.setdefault(namespaces.NS_SEP.join(segs[: i + 1]), [lo, hi])
            span[0], span[1] = min(span[0], lo), max(span[1], hi)

    loops = {""}  # the namespaces some task ran in, or some checkpoint was saved in
    # (not those the spans of an `@entrypoint` and its calls name, around the graphs they ran:
    # a call runs in its caller's loop, under its caller's task id)
    holders = _holder_spans(attempts) if below_tasks else set()
    for a in attempts:
        note(a.logged_ns if a.logged_ns else a.namespace, a.start_ts, a.end_ts)
        if id(a) not in holders:
            loops.add(a.logged_ns or a.namespace or "")
    for space in thread.namespaces.values() if thread else ():
        loops.add(space.name)
        for c in space.checkpoints:
            t = taken_at(c)
            if t is not None:
                note(c.checkpoint_ns, t, t)
    by_path: dict[str, list[str]] = {}
    for full in spans:
        by_path.setdefault(namespaces.names(full), []).append(full)
    mark: dict[str, int] = {}
    for members in by_path.values():
        if len(members) < 2:
            continue
        ordered = sorted(members, key=lambda f: (spans[f][0], f))
        reach = spans[ordered[0]][1]
        overlap = False
        for f in ordered[1:]:
            overlap = overlap or spans[f][0] < reach
            reach = max(reach, spans[f][1])
        # Runs one after another are loops of their own too (a subgraph node the parent's
        # loop reaches twice starts afresh, from step -1, under its new task's namespace).
        mark.update({f: k for k, f in enumerate(ordered, 1)})

    def key(full: str | None) -> str:
        if not full:
            return ""
        full = _below_tasks(full, loops) if below_tasks else full
        if not (mark or not_loops) or namespaces.NS_END not in full:
            return namespaces.names(full)
        segs = namespaces.levels(full)
        out = []
        for i, seg in enumerate(segs):
            prefix = namespaces.NS_SEP.join(segs[: i + 1])
            if prefix in not_loops:
                continue
            name = namespaces.names(seg)
            k = mark.get(prefix)
            out.append(f"{name}{INSTANCE}{k}" if k else name)
        return namespaces.NS_SEP.join(out)

    return key


def _below_tasks(full: str, loops: set[str]) -> str:
    """`full` without its leading levels that are no loop: a root task that ran no graph of
    its own but called an `@task` whose body invoked one (``parent:<id>|call:<id>``, an
    `@entrypoint`'s task; nothing ran or was saved under ``parent:<id>`` alone). The graph's
    loop is then one level below the root's, held by a root step, as a graph a node invokes
    in its body is (test_multiple_subgraphs_mixed_entrypoint)."""
    segs = namespaces.levels(full)
    drop = 0
    while drop < len(segs) - 1 and namespaces.NS_SEP.join(segs[: drop + 1]) not in loops:
        drop += 1
    if drop == 0 or namespaces.NS_END not in segs[0]:
        return full
    return namespaces.NS_SEP.join(segs[drop:])


def nodes_named(c: Checkpoint) -> set[str]:
    """The nodes a checkpoint names: its tasks', and those in `versions_seen`, where its graph
    records every node that has run in it."""
    named = {t.node for t in c.tasks if t.node}
    return named | {n for n in c.record.versions_seen if not n.startswith("__")}


@per_thread
def _subgraph_nodes(thread: Thread | None) -> tuple[dict[str, str], set[str]]:
    """node -> the one subgraph (node path) whose checkpoints name it, for nodes the root's
    checkpoints never name: where a log without namespaces ran them; and every node the
    root's checkpoints name. A node of the graphs one task invoked one after another
    (``p``, ``p~1``: `_first_calls`) is taken as the first call's; which call each start
    was, the alignment tells where the database shows it.

    A checkpoint names a node as a task it holds, or in `versions_seen`, where its graph
    records every node that has run in it: a subgraph saved only on the way out (under
    exit, a `ParentCommand`) names its earlier nodes there and nowhere else."""
    if thread is None:
        return {}, set()
    root: set[str] = set()
    inside: dict[str, set[str]] = {}
    for ns in thread.namespaces.values():
        for c in ns.checkpoints:
            for node in nodes_named(c):
                if ns.name:
                    inside.setdefault(node, set()).add(namespaces.names(ns.name))
                else:
                    root.add(node)
    found = {
        n: next(iter(paths)) for n, paths in inside.items() if len(paths) == 1 and n not in root
    }
    found |= {n: first for n, first in _first_calls(inside).items() if n not in root}
    return found, root


def _call_begun(
    first: str, began: float, thread: Thread | None, space: Callable[[str | None], str]
) -> str:
    """Of the graphs one task invoked one after another (``p``, ``p~1``, ...; `_first_calls`
    files a node of theirs under the first), the call whose input checkpoint was the last
    taken before a task began at `began`: where the store keeps no task path, the alignment
    cannot tell (LangGraph 0.6.11 saves an ``@task`` call's result under no name), and a
    bare log's second ``add_task`` of test_multiple_subgraphs_mixed_state_graph, read as a
    second step of the first call, was one it never put, left by raising (under exit, one
    checkpoint saved on the way out where none was)."""
    if thread is None or _without_call(first) != first:
        return first
    opened = [
        (t, path)
        for sp in thread.namespaces.values()
        if sp.name
        for path in [space(sp.name)]
        if _without_call(path) == first
        for c in sp.checkpoints
        if c.source == "input"
        for t in [taken_at(c)]
        if t is not None and t <= began
    ]
    return max(opened)[1] if opened else first


def _without_call(path: str) -> str:
    """``parent~1`` -> ``parent``: the loop a graph call belongs to, whichever call it was."""
    head, sep, last = path.rpartition(namespaces.NS_SEP)
    return f"{head}{sep}{last.partition(namespaces.CALL)[0]}"


def _first_calls(inside: dict[str, set[str]]) -> dict[str, str]:
    """node -> the first of the loops it ran in (``p`` of ``p``, ``p~1``, ...), for a node the
    database shows in several graphs one task invoked one after another (two compiled
    graphs' ``invoke()`` in one node body, test_multiple_subgraphs_mixed_state_graph)."""
    return {
        n: min(paths, key=lambda p: (p != _without_call(p), p))
        for n, paths in inside.items()
        if len(paths) > 1 and len({_without_call(p) for p in paths}) == 1
    }


def _killed_while_retrying(
    attempts: list[Attempt], retried: set[int], thread: Thread | None
) -> set[int]:
    """Failed attempts that are their process's last, with no `__error__` write of their
    task (or node, for a log without task ids) in the database: a raise that ends an
    invocation saves that write under every mode (sync and async with the task's writes,
    exit with the pending writes it saves on the way out), so the process died while
    `RetryPolicy` waited to run the task again."""
    # (a task whose step raised after it, `_raised_after_lines`, saves no error of its own)
    failed = [
        a for a in attempts if a.outcome == "failed" and id(a) not in retried and not a.raised_after
    ]
    if not failed:
        return set()
    error_ids: set[str] = set()
    error_nodes: set[str] = set()
    for ns in thread.namespaces.values() if thread else []:
        for c in ns.checkpoints:
            for t in c.tasks:
                if any(w.channel == "__error__" for w in t.writes):
                    error_ids.add(t.task_id)
                    error_nodes.add(t.node)
    for w in thread.orphan_writes if thread else []:
        if w.channel == "__error__":
            error_ids.add(w.task_id)
    out: set[int] = set()
    for a in failed:
        later = [b for b in attempts if b.pid == a.pid and b.start_ts > a.start_ts]
        saved = (
            (a.task_id in error_ids) if a.task_id else (a.node in error_nodes or bool(error_ids))
        )
        if not later and not saved:
            out.add(id(a))
    return out


def _invocations(
    attempts: list[Attempt],
    retried: set[int],
    pauses: list[Pause] = (),
    paused_nodes: set[str] | None = None,
) -> list[list[Attempt]]:
    """Attempts split into invocations: a new process (the recorder's pid), or a task that
    starts after a pause or a raise has ended the previous invocation (its `interrupted` or
    `error` line, or, for a node that paused at `interrupt()` before logging anything, the
    database's interrupt write: the first start of that task after it is the answer). A
    failure retried inside its step (`retried_in_step`) ends nothing."""
    groups: list[list[Attempt]] = []
    current_pid: object = object()
    stopped_at: float | None = None
    # A stop the log shows itself (an `interrupted` or `error` line of that task) needs no
    # help from the database; and under exit the saved checkpoint's ts is the end of the
    # invocation, not of the step, so it cannot date the stop.
    open_pauses = [
        p
        for p in pauses
        if not any(
            b.node == p[0]
            and b.task_id in (None, p[1])
            and b.outcome in ("interrupted", "failed")
            and id(b) not in retried
            for b in attempts
        )
    ]
    paused_nodes = paused_nodes or {p[0] for p in pauses}
    retries = [a for a in attempts if id(a) in retried]
    ordered = sorted(attempts, key=lambda x: x.start_ts)
    for i, a in enumerate(ordered):
        new = not groups or (a.pid is not None and a.pid != current_pid)
        if (
            stopped_at is not None
            and a.start_ts > stopped_at
            and not _still_running(groups[-1], a)
            and not _call_of_stopped(a, groups[-1])
        ):
            new = True
        if groups and any(_restarts(a, b, paused_nodes, retries) for b in groups[-1]):
            new = True  # the task began again from its top: only a later invocation does that
        # A start while a task of the invocation so far still runs is no answer: the loop
        # ends an invocation only once every task of the step has returned. A task that
        # raised only once its step's timeout cancelled it (`step_timeout` under `ainvoke`,
        # its `__error__` write saved while its thread ran on and logged its end) began with
        # its siblings, in the invocation that raised.
        hit = next(
            (
                p
                for p in open_pauses
                if p[0] == a.node
                and a.task_id in (None, p[1])
                and a.start_ts > p[2]
                and not (groups and _still_running(groups[-1], a))
            ),
            None,
        )
        if hit is not None:
            open_pauses.remove(hit)
            # A task that logged before it paused begins again from its top when answered:
            # its first start after the pause is the run that paused, not the answer.
            restarted = any(_restarts(b, a, paused_nodes, retries) for b in ordered[i + 1 :])
            # A task that invokes a graph in its body was answered when that graph's first
            # line after the pause was logged (test_double_interrupt_subgraph: the calling
            # node logs after the graph returns, in the process that ran the graph's node).
            answered_below = bool(groups) and any(
                _inside_task(b, hit[0], hit[1]) and b.start_ts > hit[2] for b in groups[-1]
            )
            if (
                a.outcome not in ("interrupted", "failed")
                and groups
                and groups[-1]
                and not restarted
                and not answered_below
            ):
                new = True
        if new:
            groups.append([])
            stopped_at = None
        current_pid = a.pid
        groups[-1].append(a)
        if a.outcome == "interrupted" or (a.outcome == "failed" and id(a) not in retried):
            stopped_at = a.end_ts if stopped_at is None else min(stopped_at, a.end_ts)
    return groups


def _call_of_stopped(a: Attempt, group: list[Attempt]) -> bool:
    """Is `a` a call (its logged namespace names the task that made it) of a task of the
    invocation so far that paused or raised in `a`'s process? The call was made before the
    task stopped and runs on beside it: the loop ends the invocation once every call of the
    step has returned (test_interrupt_functional: the entrypoint starts `foo` without waiting,
    pauses at ``interrupt()`` in its own body, and `foo`'s span opens just after the pause)."""
    caller = namespaces.runner(a.logged_ns)[1] if a.logged_ns else None
    return caller is not None and any(
        b.task_id == caller and b.pid == a.pid and b.outcome in ("interrupted", "failed")
        for b in group
    )


def _still_running(group: list[Attempt], a: Attempt) -> bool:
    """Was a task of the invocation so far still running, by its own closing line, when `a`
    began? A loop ends its invocation only once every task of the step has returned: a task
    that paused leaves its siblings running (`Send` workers that each run a subgraph, each
    asking in turn: the trace shows the workers' spans around their graphs' pauses)."""
    return any(
        b.outcome != "in flight" and b.start_ts < a.start_ts < b.end_ts - 1e-6 for b in group
    )


def answered_below(thread: Thread | None) -> bool:
    """Is every task paused at the thread's latest root checkpoint a task whose graph (the one
    it invoked, namespace ``node:<task id>``) saved an output for each task of its own that
    had paused? LangGraph keeps the root task's `__interrupt__` write until that task ends, so
    the thread reads as paused, yet the answer was given and the graph went on past its pause
    (test_double_interrupt_subgraph killed after node_2 returned, before the node that invoked
    the graph did): a resume goes on without a new answer. A ``checkpointer=True`` graph
    added as the node (namespace the node's name, no task id) that saved the end of its run
    after the root's checkpoint was taken went past the pause too (its run ended: nothing due;
    test_subgraph_interrupt_replay_from_parent_then_resume killed after it returned)."""
    root = thread.root if thread else None
    latest = root.latest if root else None
    if thread is None or latest is None:
        return False
    paused = [t for t in latest.tasks if t.status == "interrupted"]
    if not paused:
        return False
    paused_at = taken_at(latest)
    for t in paused:
        stable = thread.namespaces.get(t.node)
        end = stable.latest if stable is not None else None
        if (
            end is not None
            and not end.tasks
            and paused_at is not None
            and (taken_at(end) or paused_at) > paused_at
        ):
            continue  # its graph ran to its end after the pause
        below = [
            ns.latest
            for key, ns in thread.namespaces.items()
            if key.split(namespaces.NS_SEP)[0] == f"{t.node}{namespaces.NS_END}{t.task_id}"
            and ns.latest is not None
        ]
        asked = [
            u for c in below for u in c.tasks if any(w.channel == "__interrupt__" for w in u.writes)
        ]
        if not asked or any(u.status != "finished" for u in asked):
            return False
    return True


def _inside_task(b: Attempt, node: str, task_id: str | None) -> bool:
    """Did `b` run inside task `node` (its namespace's first level `node:<task id>`, the
    level LangGraph gives a graph a task invokes)? A log without namespaces cannot say."""
    ns = b.logged_ns if b.logged_ns is not None else b.namespace
    if not ns:
        return False
    head = ns.split(namespaces.NS_SEP)[0]
    name, _sep, tid = head.partition(namespaces.NS_END)
    return name == node and (task_id is None or tid == task_id)


def _handled_in_task(
    ordered: list[Attempt], pauses: Sequence[Pause], roots: Sequence[Checkpoint] = ()
) -> set[int]:
    """id() of failed effects the task itself handled (a ToolNode with ``handle_tool_errors``
    turns a tool's exception into a message, a node wraps its call in ``try``): the database
    holds the task's own writes, or (nothing saved: exit) the same process starts another node
    the moment the failure returned, so the loop went on; and no error write names the task.
    A raise ends the invocation there, and saves its ``__error__`` write."""
    errors = {(node, tid) for node, tid, _after, _step in pauses}
    out: set[int] = set()
    for i, a in enumerate(ordered):
        if a.outcome != "failed" or a.raised_after:
            continue  # (its step raised after it: nothing went on in its invocation)
        # A cancelled task's error write does not say its invocation raised: LangGraph saves
        # it "so loop can finish super-step" (before 1.2 also for a node's own
        # CancelledError, and the run goes on); only the run going on tells.
        cancelled = _cancelled_task(a)
        saved_error = (a.node, a.task_id) in errors or (
            a.task_id is None and any(node == a.node for node, _tid in errors)
        )
        if saved_error and not cancelled:
            continue
        later = ordered[i + 1 :]
        if a.task is not None and a.task.done and a.task.status == "finished":
            if not _run_again_later(a, later):
                out.add(id(a))  # the database holds the task's own writes: it returned
                continue
        if (
            _went_on_at_once(a, later, lambda b, a=a: b.node != a.node)
            or (cancelled and _next_step_here(a, later))
            # (exit: no write of the step says how it ended; its end does)
            or ((cancelled or a.task is None) and _step_saved_after(a, later, roots))
        ):
            out.add(id(a))
    return out


def _cancelled_task(a: Attempt) -> bool:
    """Is the error the database saved for `a`'s task a cancellation (``CancelledError``)?
    The runner's ``commit`` saves one for a task cancelled mid-step, and up to LangGraph 1.1
    for a node that raised ``CancelledError`` itself, whose run then went on (1.2 raises
    ``NodeCancelledError`` instead, an error that ends the run)."""
    return (
        a.task is not None
        and a.task.status == "failed"
        and str(a.task.error or "").startswith("CancelledError")
    )


def _next_step_here(failed: Attempt, later: list[Attempt]) -> bool:
    """Did the process that logged `failed` (a root task) go on to a task of a later root
    step, due at a checkpoint saved after the failure ended? A raise ends the loop at the
    failed step: a resume runs that step again, at the same checkpoint. (Under sync the
    next step starts only once its checkpoint landed, so not at once.)"""
    cp = failed.checkpoint
    if cp is None or cp.step is None or failed.namespace or failed.logged_ns:
        return False
    return any(
        b.pid == failed.pid
        and b.start_ts >= failed.end_ts
        and b.checkpoint is not None
        and not (b.namespace or b.logged_ns)
        and b.checkpoint.step is not None
        and b.checkpoint.step > cp.step
        and (taken_at(b.checkpoint) or float("-inf")) >= failed.end_ts - RACE
        for b in later
    )


def _step_saved_after(failed: Attempt, later: list[Attempt], roots: Sequence[Checkpoint]) -> bool:
    """Does the database hold a root checkpoint of a later step that the loop saved (source
    ``loop``) after `failed` ended and before anything else started: no input checkpoint
    between (a fresh input's), no attempt begun, and the failed task never run again (a
    resume runs a failed step again before it saves the next)? The run went on past the
    failure; it is all a run that then returned leaves (under exit, its one save)."""
    cp = failed.checkpoint
    # the step the failed task ran from: its checkpoint's, or (none saved: exit) the one
    # before the step its log line names
    ran_from = cp.step if cp is not None else (failed.step - 1 if failed.step else None)
    if ran_from is None or failed.namespace or failed.logged_ns:
        return False
    if _run_again_later(failed, later):
        return False
    begun = min((b.start_ts for b in later if b.start_ts >= failed.end_ts), default=float("inf"))
    inputs = [t for c in roots if c.source == "input" for t in [taken_at(c)] if t is not None]
    for c in roots:
        t = taken_at(c)
        if c.source != "loop" or c.step is None or c.step <= ran_from or t is None:
            continue
        if failed.end_ts - RACE <= t < begun and not any(
            failed.end_ts - RACE <= x <= t for x in inputs
        ):
            return True
    return False


def _run_again_later(failed: Attempt, later: list[Attempt]) -> bool:
    """Did the same task start again after `failed` ended, in another process? Then the writes
    the database holds for that task may be the later run's (a task a drain stopped, and the
    next invocation ran to its end: the trace shows the first run's error, then the run that
    returned), and they do not say the failure was handled. A log without task ids tells the
    task by the alignment: a bare log's failure cancelled by its sibling's raise
    (test_node_cancellation_on_other_node_exception_two), its task's writes the next
    invocation's."""
    tid = _task_of(failed)
    return tid is not None and any(
        _task_of(b) == tid
        and b.node == failed.node
        and b.pid != failed.pid
        and b.start_ts >= failed.end_ts
        for b in later
    )


def _caught_failures(ordered: list[Attempt], entrypoint: bool = False) -> set[int]:
    """id() of failed `@task` calls their caller caught: the same process makes its next call
    under the same caller task (``graph:<task id>``) the moment the failure returned, as an
    entrypoint that wraps ``.result()`` in ``try`` does (test_imp_exception). A raise would
    end the invocation there instead. A log without namespaces tells a call only in a thread
    the database shows is an entrypoint's (`entrypoint`)."""
    out: set[int] = set()
    for i, a in enumerate(ordered):
        call = bool(a.logged_ns and namespaces.NS_END in a.logged_ns)
        if a.outcome != "failed" or not (call or (a.logged_ns is None and entrypoint)):
            continue
        if _went_on_at_once(a, ordered[i + 1 :], lambda b, a=a: b.logged_ns == a.logged_ns):
            out.add(id(a))
    return out


def _went_on_at_once(
    failed: Attempt, later: list[Attempt], next_one: Callable[[Attempt], bool]
) -> bool:
    """Did the process that logged `failed` start a `next_one` attempt (of the attempts that
    follow it in start order) the moment the failure returned? A raise would have ended its
    invocation there."""
    return any(
        b.pid == failed.pid
        and failed.end_ts - 1e-6 <= b.start_ts <= failed.end_ts + RACE
        and next_one(b)
        for b in later
    )


def _restarts(
    later: Attempt, earlier: Attempt, paused_nodes: set[str], retries: list[Attempt] = ()
) -> bool:
    """Is `later` its task begun again from the top, after `earlier` finished the same effect?

    Inside one invocation a task runs its body once (a `RetryPolicy` retry follows a logged
    failure, `retried_in_step`); only a later invocation runs it again: the answer to an
    ``interrupt()`` re-runs the node from its first line, so the work it did before pausing
    is logged twice. The same task id tells it; a log without task ids, only for a node the
    database shows paused (a loop runs a node again in the same invocation, as a new task).
    """
    if (
        later is earlier
        or later.node != earlier.node
        or earlier.outcome != "finished"
        or later.start_ts < earlier.end_ts
        or not later.lines
        or not earlier.lines
        or later.lines[0].effect != earlier.lines[0].effect
    ):
        return False
    if any(
        same_task(f, earlier)
        and f.pid == later.pid
        and earlier.start_ts <= f.start_ts < later.start_ts
        for f in retries
    ):
        return False  # a RetryPolicy retry runs the task from its top in the same step
    unnamed_in_one_process = (
        later.lines[0].effect is None and later.pid is not None and later.pid == earlier.pid
    )
    if unnamed_in_one_process and (later.task_id_inferred or earlier.task_id_inferred):
        return False  # one task id the alignment gave both (`align._claim_orphans`): one task
    if later.task_id is not None and earlier.task_id is not None:
        return later.task_id == earlier.task_id and later.logged_ns == earlier.logged_ns
    if unnamed_in_one_process:
        return False  # unnamed lines of one process: the task's next effect (`attempts.continues`)
    return later.task_id is None and earlier.task_id is None and later.node in paused_nodes


def _task_head(a: Attempt, attempts: list[Attempt]) -> Attempt:
    """The first attempt of `a`'s task run: a task that logs several effects one after
    another (``charge`` then ``email``) started with the first of them, which is where a
    kill aimed at the task's start counts from. Walks back over earlier attempts of the
    same task in the same process while no other node's start comes between."""
    ordered = sorted(attempts, key=lambda x: x.start_ts)
    head = a
    for b in reversed(ordered[: next(i for i, x in enumerate(ordered) if x is a)]):
        if b.pid == a.pid and _sibling_task(b, head):
            continue  # another task of the node (a `Send` worker) logged in between
        if b.pid != a.pid or not same_task(b, a) or b.outcome != "finished":
            break
        if b.task_id is None and a.task_id is None and b.step != a.step:
            break
        if (
            b.lines
            and head.lines
            and b.lines[0].effect == head.lines[0].effect
            and (b.lines[0].effect is not None or b.checkpoint is not head.checkpoint)
        ):
            # the same effect again: the task began anew there (a resume, a loop); lines that
            # name no effect tell that only by the database (`attempts.continues`)
            break
        head = b
    return head


def _sibling_task(b: Attempt, a: Attempt) -> bool:
    """Is `b` another task of `a`'s node, by the task ids or namespaces the log names (parallel
    `Send` workers, each in a run of its own: test_multi_resume's three workers)?"""
    if b.node != a.node:
        return False
    if b.task_id is not None and a.task_id is not None and b.task_id != a.task_id:
        return True
    if b.logged_ns is not None and a.logged_ns is not None and b.logged_ns != a.logged_ns:
        return True
    # aligned with runs of their own (a log without namespaces)
    return bool(b.namespace and a.namespace and b.namespace != a.namespace)


def _under(ns: str, held: set[str]) -> bool:
    """Is `ns` below one of the loops in `held`?"""
    return any(ns.startswith(n + "|") for n in held)


def _beside_subgraph(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    holder_of: dict[tuple[str, int, int], int],
    run_ends: dict[tuple[str, int, int], float],
    ns: str,
    inv: int,
    s: int,
    end: float,
) -> float | None:
    """The end of a step whose own tasks finished at `end`, when it also ran a subgraph (a
    compiled graph added as a node beside plain nodes, started in the same superstep,
    `_place_nested`): the step ends when the subgraph's task does, or never when the
    subgraph was still running."""
    prefix = ns + "|" if ns else ""
    held = {
        k[0]
        for k, h in holder_of.items()
        if h == s and k[1] == inv and k[0].startswith(prefix) and "|" not in k[0][len(prefix) :]
    }
    # A graph the step's node invoked in its body, whose loop has no line of its own and so
    # no holder (a `checkpointer=True` one whose only node is a graph): the lines below it
    # that began after the node did are its run.
    mine = step_att.get((ns, inv, s), [])
    began = min((a.start_ts for a in mine), default=float("inf"))
    nodes = {a.node for a in mine}
    placed = {k[0] for k in holder_of if k[1] == inv}
    for k, v in step_att.items():
        top = prefix + k[0][len(prefix) :].partition("|")[0]
        if (
            k[1] == inv
            and k[0].startswith(prefix)
            and k[0] != ns
            and top not in placed
            and base_space(top[len(prefix) :]).partition(namespaces.CALL)[0] in nodes
            and any(a.start_ts >= began for a in v)
        ):
            held.add(top)
    if not held:
        return end
    run = [
        a
        for k, v in step_att.items()
        if k[1] == inv
        and (k[0] in held or k[0].partition("|")[0] in held or _under(k[0], held))
        # a later run of the same (`checkpointer=True`) graph is a later step's
        and (k[0] not in held or holder_of.get(k, s) == s)
        for a in v
    ]
    if not run:
        return end
    if any(a.outcome == "in flight" for a in run):
        return None  # the subgraph's task was still running: the step never completed
    if _returned_in_span(mine, run):
        return end
    ended = max(end, run_ends.get((ns, inv, s), max(a.end_ts for a in run) + TICK))
    # the next step began after this one ended: its first start bounds the estimate above
    nxt = [a.start_ts for a in step_att.get((ns, inv, s + 1), [])]
    return min([ended, *(t - 1e-6 for t in nxt if t > end)])


def _returned_in_span(mine: list[Attempt], run: list[Attempt]) -> bool:
    """Does a trace show the step's task that ran these graphs return (its span ended)? The
    span ends as the task returns, after its graphs' loops left and waited for their puts:
    the step ends there, not a tick per level after the graphs' last lines (which put the
    nested loop's last put after the parent's next step began, and lost the wait for it:
    test_doubly_nested_graph_interrupts from exit at 0.25 s, async 9 kept where 10)."""
    spans = {a.task_id for a in mine if a.task_id and a.outcome == "finished" and span_only(a)}
    return bool(spans) and all(
        b.logged_ns and any(tid in spans for _node, tid in namespaces.segments(b.logged_ns))
        for b in run
    )


@per_thread
def _due_without_writes(thread: Thread | None) -> list[tuple[float, int, set[str]]]:
    """(when taken, step, nodes due with no write) of each root checkpoint."""
    out: list[tuple[float, int, set[str]]] = []
    for c in thread.root.checkpoints if thread is not None and thread.root is not None else ():
        taken = taken_at(c)
        due = {t.node for t in c.tasks if t.node and not t.writes}
        if taken is not None and c.step is not None and due:
            out.append((taken, c.step, due))
    return out


def _unlogged_stops(
    groups: list[list[Attempt]],
    pauses: list[Pause],
    kinds: list[InvocationKind] | None = None,
    due: list[tuple[float, int, set[str]]] = (),
    copies: dict[int, float] | None = None,
    entry: str | None = None,
) -> dict[int, int | None]:
    """Invocations (not the last) that ended at a pause or raise their log does not show, each
    with the root step that stopped, when none of their own attempts paused or failed:

    * the next invocation begins with the answer to a task the database shows paused (its
      `__interrupt__` or `__error__` write);
    * or the paused task is the thread's `@entrypoint` (`entry`), which logs nothing, and the
      checkpoint its pause hangs off was made after the invocation before this one ended: a
      log without namespaces shows only its calls, never the entrypoint answering
      (falsy_task_interrupt, a bare log: the call before the pause, then the answer's calls);
    * or the next invocation is a resume and the paused task logs nothing at all (an
      `@entrypoint` that called ``interrupt()`` in its own body): a resume only follows a
      pause, a raise or a kill.

    * or the next invocation is a resume, and the last root checkpoint before it holds a due
      task that wrote nothing and logs nothing: a static breakpoint inside a subgraph
      (``interrupt_before``) pauses the whole thread and leaves no write at all (measured:
      `nested_interrupts_parallel`), while the step's other tasks finished.

    The step is the one after the checkpoint the write hangs off (the latest such write
    before the next invocation began); an `@entrypoint` stops in its own step 0, which then
    never completes. A pause hanging off the copy a run from an earlier checkpoint began with
    (`copies`: invocation -> the copy's ts) is that run's own, not the one before it, and so
    are the tasks due in that copy."""
    out: dict[int, int | None] = {}
    logged = {a.node for g in groups for a in g}
    for i, (cur, nxt) in enumerate(zip(groups, groups[1:], strict=False)):
        if any(a.outcome in ("interrupted", "failed") for a in cur) or not nxt:
            continue
        begin = min(a.start_ts for a in nxt)
        resumed = kinds is not None and kinds[i + 1] == "resume"
        for node, tid, after, step in sorted(pauses, key=lambda p: -p[2]):
            if copies and abs(copies.get(i + 1, -1.0) - after) < 1e-6:
                continue  # the next run's own pause, off the copy it began with
            answered = any(
                (a.node == node and a.task_id in (None, tid) or _inside_task(a, node, tid))
                and a.start_ts > after
                for a in nxt
            )
            silent = resumed and node not in logged
            own = (
                entry is not None
                and node == entry
                and node not in logged
                and (i == 0 or after >= max(a.end_ts for a in groups[i - 1]))
            )
            if (
                (answered or silent or own)
                and after <= begin
                and not any(a.node == node for a in cur)
            ):
                out[i] = None if step is None else step + 1
                break
        if i in out or not resumed or any(a.outcome == "in flight" for a in cur):
            continue
        # not the copy (or edit) the next run began with: a run from an earlier checkpoint
        # has its own due tasks there (test_fork_creates_branch_in_subgraph)
        until = min(begin, copies.get(i + 1, begin) - 1e-6) if copies else begin
        last = [d for d in due if d[0] <= until]
        if last:
            _taken, step, nodes = max(last)
            if any(node not in logged for node in nodes):
                out[i] = step + 1
    return out


def _last_unlogged_pause(
    groups: list[list[Attempt]], pauses: list[Pause], status: str, entry: str | None
) -> int | None:
    """The root step the last logged invocation stopped in, when it paused where nothing
    logs: the thread is paused now, none of that invocation's attempts paused, failed or
    was in flight, and the paused task is an `@entrypoint` that logs nothing itself (it
    called ``interrupt()`` in its own body, between its calls). Its step 0 never completed,
    so it put no checkpoint (measured: `multiple_interrupts_functional`, a kill after the
    answer, before any line)."""
    last = groups[-1] if groups else []
    if status != "interrupted" or entry is None or not last:
        return None
    if any(a.outcome in ("interrupted", "failed", "in flight") for a in last):
        return None
    logged = {a.node for g in groups for a in g}
    steps = [step for node, _tid, _after, step in pauses if node == entry and node not in logged]
    return None if not steps or steps[-1] is None else steps[-1] + 1


@per_thread
def _root_inputs(db_cps: Sequence[Checkpoint]) -> list[Checkpoint]:
    """The root input checkpoints fresh inputs made (not those ``update_state`` wrote)."""
    edits = _input_edits(db_cps)
    return [
        c
        for c in db_cps
        if not c.checkpoint_ns and c.source == "input" and c.checkpoint_id not in edits
    ]


def _halted(
    groups: list[list[Attempt]],
    paused_nodes: set[str],
    retries: list[Attempt] = (),
    input_times: Sequence[float] = (),
    went_past: dict[str, list[tuple[str, float]]] | None = None,
    root_only: Collection[str] = (),
    roots: Sequence[Checkpoint] = (),
) -> set[int]:
    """id() of attempts whose task began again from its top in a later invocation
    (`_restarts`): their lines end, but their task did not; it paused (or raised) there.

    Without task ids, a checkpoint of the node's loop without it due, taken after the
    attempt ended and before the later start (`_went_past`), shows the attempt's step
    completed: the pause was a later run of the node's, one that paused before logging (a
    stateful graph entered again, ``interrupt()`` at its node's top). Without task ids, a
    later invocation with no input checkpoint before it whose root checkpoints were saved
    as it ran (`_saved_while_running`: not exit) that runs the task the database aligns
    with the attempt again (`_aligned_again`) is a resume running it again: its writes were
    never put (test_cancel_ainvoke_with_sync_node: a cancelled ``ainvoke`` whose plain node
    ran on to its end on its worker thread)."""
    out: set[int] = set()
    went_past = went_past or {}
    for i, group in enumerate(groups):
        later = [b for g in groups[i + 1 :] for b in g]
        # Without task ids, only the next invocation that logged, and not one that began
        # with a fresh input (its input checkpoint): the answer to a pause runs the paused
        # task again, a fresh input drops it (``discard_tasks``, ``pregel/_loop.py``).
        after = next((g for g in groups[i + 1 :] if g), [])
        if after and group:
            ended = max(a.end_ts for a in group)
            began = min(a.start_ts for a in after)
            if any(ended < t <= began for t in input_times):
                after = []
        told = bool(after) and _saved_while_running(roots, after)
        for a in group:
            candidates = later if a.task_id is not None else after
            # a checkpoint of its loop taken after it ended, without it due, shows its step
            # completed: the same task id began again in a run from an earlier checkpoint
            # (LangGraph 0.6 keeps the checkpoint's own id there, so its tasks' ids too)
            candidates = [
                b
                for b in candidates
                if not any(
                    a.end_ts <= t < b.start_ts
                    for ns, t in went_past.get(a.node, ())
                    if a.namespace is None or ns == a.namespace
                )
            ]
            if a.task_id is None:
                candidates = [
                    b for b in candidates if not _other_task(a, b) and not _other_run(a, b)
                ]
            if any(
                _restarts(b, a, paused_nodes, retries) or (told and _aligned_again(b, a, after))
                for b in candidates
            ):
                run = _last_run(a, group)
                if not _root_went_on(run[-1], group, root_only):
                    out |= {id(c) for c in run}
    return out


def _aligned_again(later: Attempt, earlier: Attempt, group: list[Attempt]) -> bool:
    """Is `later`, the first attempt of its node in its invocation (`group`), given the very
    task the database aligned `earlier` with, of the same node, after `earlier` finished?
    (A log without task ids; `_halted` asks it only where the later invocation was a
    resume.)"""
    return (
        later.task_id is None
        and earlier.task_id is None
        and later.task is not None
        and later.task is earlier.task
        and later.node == earlier.node
        and earlier.outcome == "finished"
        and later.start_ts >= earlier.end_ts
        and later is min((b for b in group if b.node == later.node), key=lambda b: b.start_ts)
    )


def _root_went_on(a: Attempt, group: list[Attempt], root_only: Collection[str]) -> bool:
    """Did the root loop go on to a later step after `a` ended, in `a`'s invocation? Only
    said for a log without task ids where the database shows both nodes running in the root
    alone (`_root_only_nodes`): all tasks of a step start together, so a root task that
    began after `a` ended ran in a later step, and a pause stops the loop after its own step
    (a recursion limit's raise under exit leaves the next task due with no write, as a static
    breakpoint does, test_invoke_two_processes_in_out)."""
    if a.task_id is not None or a.node not in root_only:
        return False
    return any(
        b.node in root_only and b.pid == a.pid and b.start_ts > a.end_ts + 1e-6 for b in group
    )


def nodes_named_by_level(checkpoints: Iterable[Checkpoint]) -> tuple[set[str], set[str]]:
    """(the nodes root checkpoints name, the nodes subgraph checkpoints name), by
    `nodes_named`: where each node is known to have run."""
    root: set[str] = set()
    nested: set[str] = set()
    for c in checkpoints:
        (nested if c.checkpoint_ns else root).update(nodes_named(c))
    return root, nested


@per_thread
def _root_only_nodes(checkpoints: Iterable[Checkpoint]) -> set[str]:
    """Nodes the root's checkpoints name (as tasks, or in `versions_seen`) and no subgraph's
    checkpoint does: they ran in the root, and only there."""
    root, nested = nodes_named_by_level(checkpoints)
    return root - nested


def _shared_channels(tasks: Iterable[Task]) -> set[str]:
    """The state channels more than one of `tasks` wrote (no trigger or control channel:
    those take any number of writes a step)."""
    seen: set[str] = set()
    shared: set[str] = set()
    for t in tasks:
        mine = {
            w.channel for w in t.writes
            if w.channel not in CONTROL_CHANNELS and not makes_due(w.channel)
        }  # fmt: skip
        shared |= mine & seen
        seen |= mine
    return shared


@per_thread
def _multi_value_channels(checkpoints: Iterable[Checkpoint]) -> set[str]:
    """Channels the thread shows taking several values in one step: a checkpoint followed
    the step in which more than one task wrote them (a reducer; a ``LastValue`` would have
    raised)."""
    followed = {c.parent_checkpoint_id for c in checkpoints if c.source == "loop"}
    out: set[str] = set()
    for c in checkpoints:
        if c.checkpoint_id in followed:
            out |= _shared_channels(c.tasks)
    return out


def _raised_after_lines(
    groups: list[list[Attempt]], thread: Thread | None
) -> tuple[str, bool, set[int], set[int]]:
    """Mark the tasks of a root step that raised after their lines ended; say so, or "";
    and whether a mark is new (the readings before it then took the task as finished).

    An invocation a later one followed had ended; when every task due in its last root step
    ended in the log, yet the database holds no checkpoint of that step (no child of the
    checkpoint the tasks ran from but a later input), the step raised after them: a step
    that overran `graph.step_timeout` (``TimeoutError`` from the runner, after its running
    tasks end: test_timeout_with_parent_command), or a failure outside every node. Its late
    task did not complete: the one whose writes the database lacks (under exit the save at
    the raise came before it ended), else the last to end. Marked (`Attempt.raised_after`),
    it reads as failed. A step whose saved writes overwrite one channel twice
    (`channels.overwrites_collide`, test_overwrite_parallel_error) raised as LangGraph
    applied them, after every task put its writes: the third value returned holds the ids
    of those marked tasks (`Evidence.raise_at_apply`: under exit their writes are in the
    save at the raise). Where another task of the step wrote a channel the late one wrote,
    and nothing shows that channel takes several values a step (`_multi_value_channels`),
    the raise may have been that ("Can receive only one value per step",
    test_invoke_two_processes_two_in_two_out_invalid): the fourth value holds those, for
    both readings (`Evidence.raise_at_apply_unsure`)."""
    root = thread.root if thread is not None else None
    if root is None:
        return "", False, set(), set()
    below: dict[str | None, list[str | None]] = {}
    for c in root.checkpoints:
        below.setdefault(c.parent_checkpoint_id, []).append(c.source)
    marked: list[Attempt] = []
    collided: list[tuple[str, list[str]]] = []
    at_apply: set[int] = set()
    maybe_at_apply: set[int] = set()
    new = False
    last_run: dict[str, int] = {}  # task id -> the last invocation that logged it
    for i, group in enumerate(groups):
        for a in group:
            if a.task_id:
                last_run[a.task_id] = i
    for i, group in enumerate(groups[:-1]):
        mine = [
            a for a in group
            if a.task is not None and a.checkpoint is not None and not (a.namespace or a.logged_ns)
        ]  # fmt: skip
        if not mine:
            continue
        cp = max(mine, key=lambda a: a.end_ts).checkpoint
        step = [a for a in mine if a.checkpoint is cp]
        ended = max(a.end_ts for a in step)
        due = {t.task_id for t in cp.tasks} if cp is not None else set()
        if (
            cp is None
            or any(a.outcome != "finished" and not a.raised_after for a in step)
            or due - {a.task.task_id for a in step if a.task}
            or any(b.start_ts > ended for b in group)
            or any(source != "input" for source in below.get(cp.checkpoint_id, []))
            # (a task that paused there, answered by a later invocation: finished now)
            or any(t.paused for t in cp.tasks)
            # a later invocation ran a task due there again: it had paused, not raised (a
            # task id tells; a bare log's time alignment takes a fresh input's tasks of the
            # same nodes for those too)
            or any(last_run.get(t, -1) > i for t in due)
        ):
            continue
        channel = overwrites_collide(w for t in cp.tasks for w in t.writes)
        # (the step raised applying its writes, once every task had ended and put them: the
        # save at the raise under exit holds them all)
        sure = channel is not None and all(t.status == "finished" for t in cp.tasks)
        if sure:
            collided.append((str(channel), sorted({a.node for a in step})))
        late = [a for a in step if a.task is not None and a.task.status != "finished"]
        shared = _shared_channels(cp.tasks) - _multi_value_channels(root.checkpoints)
        for a in late or [max(step, key=lambda a: a.end_ts)]:
            if sure:
                at_apply.add(id(a))
            elif a.task is not None and shared & {w.channel for w in a.task.writes}:
                maybe_at_apply.add(id(a))
            if not a.raised_after:
                new = True
                a.raised_after = (
                    f"its lines ended, but step {cp.step + 1 if cp.step is not None else '?'} "
                    "got no checkpoint though its invocation was over: the step raised after "
                    + (
                        f"it, as LangGraph applied its writes (more than one Overwrite of "
                        f"{channel!r})"
                        if sure
                        else "it (a step_timeout, or a failure outside every node)"
                    )
                )
            if not sure:
                marked.append(a)
    said = [
        f"{', '.join(nodes)}: every task of the step ended and its writes are saved, but more "
        f"than one overwrote {channel!r} (Overwrite): LangGraph raised applying them, before "
        "the step's checkpoint; a resume reuses them all"
        for channel, nodes in collided
    ]
    if marked:
        names = ", ".join(sorted({a.node for a in marked}))
        said.append(
            f"{names}: every task of the step ended, yet the database holds no checkpoint of "
            "it though its invocation was over; the step raised after them (a step_timeout, "
            "or a failure outside every node), and the last of them did not complete"
            + (
                " (or LangGraph raised applying their writes, more than one value for one "
                "channel: then they all completed)"
                if maybe_at_apply
                else ""
            )
        )
    return "; ".join(said), new, at_apply, maybe_at_apply


def cancelled_at_raise(a: Attempt) -> bool | None:
    """A task whose step raised after its lines ended (`Attempt.raised_after`): did the raise
    cancel it, its writes never put (True), or wait for it, its writes put as it ended
    (False)? `invoke` lets a step's running tasks end before `step_timeout`'s TimeoutError
    leaves the loop; `ainvoke` cancels them at the timeout (a sync node's thread runs on and
    logs its end) and saves the error as the task's `__error__` write. None: the database
    holds no write of the task to tell (exit saves none at the raise)."""
    if not a.raised_after or a.task is None:
        return False
    if any(w.channel == "__error__" for w in a.task.writes):
        return True
    return False if a.task.status == "finished" else None


def _other_task(a: Attempt, b: Attempt) -> bool:
    """Does the database tell `a` and `b`, a log's lines without task ids, apart as two
    tasks — each aligned with a task of its own, and `a`'s with its result saved? Then `b`
    is not `a`'s task begun again: it is the next call of the same `@task`
    (test_task_before_interrupt_resume: `ask` answered, then `ask` for the next topic)."""
    return (
        a.task is not None
        and b.task is not None
        and a.task.task_id != b.task.task_id
        and a.task.status == "finished"
    )


def _other_run(a: Attempt, b: Attempt) -> bool:
    """Did the alignment place `a` and `b` in two runs of subgraphs (two namespaces)? A task
    that begins again from its top does so in its own run, under its own task id: a line of
    another run (two `Send` workers of one subgraph, one answered, the other asking again:
    test_parallel_interrupts, a bare log) is not its restart."""
    return bool(a.namespace) and bool(b.namespace) and a.namespace != b.namespace


def _aligned_apart(a: Attempt, b: Attempt) -> bool:
    """Did the alignment give `a` and `b` tasks of their own (two `Send` workers of one node,
    each in the run of its own subgraph)? Then neither is the other's run of the task."""
    return a.task is not None and b.task is not None and a.task.task_id != b.task.task_id


def _last_run(a: Attempt, group: list[Attempt]) -> list[Attempt]:
    """The attempts of `a`'s task in its invocation's last run of it: the last attempt and
    those it continues (`attempts.continues`). A node in a loop runs several times in one
    invocation; only its last run can be the one that paused."""
    same = sorted(
        (c for c in group if same_task(a, c) and not _aligned_apart(a, c)),
        key=lambda c: c.start_ts,
    )
    run = same[-1:]
    for prev in reversed(same[:-1]):
        between = any(prev.end_ts <= c.start_ts < run[0].start_ts for c in group if c is not prev)
        if between or not _goes_on(prev, run[0]):
            break  # another task ran in between (the loop went round), or the same effect again
        run.insert(0, prev)
    return run


def _step_done(a: Attempt, retried: set[int], halted: set[int]) -> bool:
    """Did this attempt's task get through its step (finished, or failed and retried in it)?"""
    return id(a) not in halted and (a.outcome == "finished" or id(a) in retried)


def _usual_duration(attempts: list[Attempt], killed: Attempt, retried: set[int]) -> float:
    """How long the killed task could have run on: the longest finished attempt of its node
    or of its own process (the killed invocation's), else of any node (0 when none
    finished). Its node's earlier runs alone can be far shorter than this run's tasks: a
    loop run to its recursion limit on short turns, then a second input on long ones
    (recursion_limit_retry on Postgres at 0.55 s, the mode inferred: `tools` of the first
    input took 0.03 s, and a kill 0.2 s into the second's was read as at most 0.03 s after
    its start; async was said to run nothing again, 27 0 0, where it ran 2 tasks, 28 2 3)."""
    done = [a for a in attempts if a.outcome == "finished" and id(a) not in retried]
    same = [
        a.end_ts - a.start_ts
        for a in done
        if a.node == killed.node or (killed.pid is not None and a.pid == killed.pid)
    ]
    every = same or [a.end_ts - a.start_ts for a in done]
    return max(every) if every else 0.0


def _ordinals(
    attempts: list[Attempt],
    step_of: dict[int, tuple[str, int, int]],
    retry_of: dict[int, Attempt],
) -> dict[int, int]:
    """See `Evidence.ordinal`."""
    out: dict[int, int] = {}
    count: dict[tuple[str, int, int, str], int] = {}
    seen: dict[tuple[str, int, int, str], list[Attempt]] = {}
    continued: set[int] = set()
    for a in sorted(attempts, key=lambda x: x.start_ts):
        if id(a) not in step_of:
            continue
        key = (*step_of[id(a)], a.node)
        before = seen.setdefault(key, [])
        failed = retry_of.get(id(a))
        if failed is not None and id(failed) in out:
            out[id(a)] = out[id(failed)]  # a RetryPolicy retry: the same task
            before.append(a)
            continue
        prev = _effect_before(a, before, continued)
        if prev is not None:
            # the task's next effect (it logged `prev` first): the same task, not a sibling
            continued.add(id(prev))
            out[id(a)] = out[id(prev)]
        else:
            out[id(a)] = count.get(key, 0)
            count[key] = out[id(a)] + 1
        before.append(a)
    return out


def _effect_before(a: Attempt, before: list[Attempt], continued: set[int]) -> Attempt | None:
    """The attempt of the same node, step and process that `a` follows as the next effect
    of one task: it finished before `a` started, no other of them started in between, and
    no other attempt already followed it. Parallel tasks of one node (`Send` workers) start
    together; a task that logs ``draft`` then ``apply`` logs them one after the other."""
    if a.task_id is not None:
        return None  # the task id tells
    done = [
        b for b in before if b.pid == a.pid and b.outcome == "finished" and b.end_ts <= a.start_ts
    ]
    if not done:
        return None
    last = max(done, key=lambda b: b.end_ts)
    if id(last) in continued or any(last.end_ts < b.start_ts <= a.start_ts for b in before):
        return None
    return last if _goes_on(last, a) else None


def _goes_on(prev: Attempt | None, a: Attempt) -> bool:
    """Is `a` the next effect of `prev`'s task (`attempts.continues`), unless the database
    says otherwise: the alignment gave the two different tasks (a bare log's same node
    again, where the first task's step was saved between, `analysis.align`), or `prev`'s
    task had saved its writes while `a` was still running?"""
    if prev is not None and prev.task is not None:
        if a.task is not None and prev.task is not a.task:
            return False
        if a.outcome == "in flight" and prev.task.done:
            return False  # its writes are in: it had returned while `a` still ran
    return continues(prev, a)


def task_run(ev: Evidence, a: Attempt) -> list[Attempt]:
    """Every attempt of `a`'s task in its step and invocation (a task that logs several
    effects is several attempts): its writes are put when the last of them ends."""
    key = ev.step_of.get(id(a))
    tid = a.task_id
    return [
        b
        for b in ev.attempts
        if ev.step_of.get(id(b)) == key
        and b.node == a.node
        and (
            b.task_id == tid if tid is not None else ev.ordinal.get(id(b)) == ev.ordinal.get(id(a))
        )
    ]


def _until(a: Attempt) -> float:
    """When an attempt stopped running: its last line, or never for one still in flight."""
    return a.end_ts if a.outcome != "in flight" else float("inf")


@per_thread
def _entrypoint_node(thread: Thread | None) -> str | None:
    """The `@entrypoint` of a functional thread, when the database tells: every root
    checkpoint's due tasks are that one node, and it made `@task` calls (their writes). A log
    without steps cannot show it, and would read each call as a superstep of its own."""
    node = _sole_root_node(thread)
    if node is None or thread is None or thread.root is None:
        return None
    # a store that keeps no task path (LangGraph 0.6) lists the calls' results beside it,
    # unnamed, known only from their writes; not a copy's, which an update made in the same
    # call (`_edited_at_once`): its writes are the update's, kept for the task results
    roots = thread.root.checkpoints
    calls = any(c.calls or (_unnamed_writes(c) and not _edited_at_once(c, roots)) for c in roots)
    return node if calls else None


def _unnamed_writes(c: Checkpoint) -> bool:
    """Does `c` list saved writes under no name and no derived task: `@task` calls' results
    where the store keeps no task path (LangGraph 0.6 and older)."""
    return any(not t.node and not t.derived and t.writes for t in c.tasks)


def _entrypoint_loops(thread: Thread | None, space: Callable[[str | None], str]) -> dict[str, str]:
    """Subgraph path -> its `@entrypoint`, for the functional graphs a node invoked: every
    checkpoint of the path has that one node due, and its `@task` calls left results (their
    writes; under no name where the store keeps no task path). Such a graph has no
    `__start__` step: its entrypoint and every call run in the step after its input
    checkpoint (test_multiple_subgraphs_mixed_state_graph, bare logs on LangGraph 0.6.11)."""
    due: dict[str, set[str]] = {}
    calls: set[str] = set()
    for sp in thread.namespaces.values() if thread else ():
        if not sp.name:
            continue
        path = space(sp.name)
        for c in sp.checkpoints:
            due.setdefault(path, set()).update(t.node for t in c.tasks if t.node)
            if c.calls or _unnamed_writes(c):
                calls.add(path)
    return {p: next(iter(nodes)) for p, nodes in due.items() if len(nodes) == 1 and p in calls}


@per_thread
def _sole_root_node(thread: Thread | None) -> str | None:
    """The one node every root checkpoint has due, where there is one (an `@entrypoint`'s,
    before any of its `@task` calls saved a result: `_entrypoint_node` needs those)."""
    if thread is None or thread.root is None:
        return None
    nodes = {t.node for c in thread.root.checkpoints for t in c.tasks if t.node}
    return next(iter(nodes)) if len(nodes) == 1 else None


def _no_start_step(thread: Thread | None, groups: list[list[Attempt]]) -> bool:
    """Does the root loop run its first task in the step after its input checkpoint, with no
    `__start__` step between? An `@entrypoint` does (`_functional`), and so does a graph built
    on `Pregel` itself (test_invoke_two_processes_in_out_interrupt): its input checkpoint has
    a node due, not `__start__`, and that node logs step 0, where a graph's first node logs
    step 1. A later fresh input then adds one checkpoint before its first task, not two."""
    if (thread is not None and _entrypoint_node(thread) is not None) or _functional(groups):
        return True
    root = thread.root.checkpoints if thread is not None and thread.root is not None else []
    if any(c.source == "input" and c.tasks and all(t.node != START for t in c.tasks) for c in root):
        return True
    # No root checkpoint names the `__start__` channel a graph's input goes to: its input
    # went to channels of its own (an exit database keeps no input checkpoint to say so).
    readable = [c for c in root if c.record.channel_versions]
    if readable and not any(START in c.record.channel_versions for c in readable):
        return True
    return any(a.step == 0 and a.logged_ns == "" for g in groups for a in g) or _two_steps_on(
        root, groups
    )


def _two_steps_on(root: Sequence[Checkpoint], groups: list[list[Attempt]]) -> bool:
    """Does an invocation's first root task log the step two after the newest root checkpoint
    saved before it (its input checkpoint, then its own step)? A graph with a `__start__`
    step logs three after (test_entrypoint_stateful_update_state under exit: no input
    checkpoint is saved, and an edit before the first input moves every step by one)."""
    for g in groups:
        logged = [a for a in g if a.logged_ns == "" and a.step is not None]
        if not logged:
            continue
        first = min(logged, key=lambda a: a.start_ts)
        before = [
            (t, c) for c in root for t in [taken_at(c)]
            if t is not None and t < first.start_ts and c.step is not None
        ]  # fmt: skip
        if not before:
            continue
        newest = max(before, key=lambda x: x[0])[1]
        if not newest.tasks and first.step == (newest.step or 0) + 2:
            return True  # (after a pause the answer re-runs the step after it: one on)
    return False


def _functional(groups: list[list[Attempt]]) -> bool:
    """Is the thread an `@entrypoint`'s, as its first invocation shows? Its entrypoint ran
    first and held the rest (`_entrypoint_first`), or its lines are calls logged under a root
    task at step 0: an entrypoint runs in step 0, a graph's first node in step 1. Never when
    the log names two nodes of the root loop (test_stateless_subgraph_interrupts: a node that
    runs a subgraph holds its first node's span, at step 1 as its own, then another node)."""
    if not groups or not groups[0]:
        return False
    # An `@entrypoint` is its root loop's one node (its calls log under ``entry:<id>``): two
    # nodes logged in the root loop are a graph's, whatever the first one's span held.
    root_nodes = {
        a.node for g in groups for a in g if a.logged_ns == "" and not a.node.startswith("__")
    }
    if len(root_nodes) > 1:
        return False
    return (
        _entrypoint_first(groups[0])
        or any(
            a.step == 0
            and a.logged_ns
            and namespaces.depth(a.logged_ns) == 1
            and namespaces.NS_END in a.logged_ns
            for a in groups[0]
        )
        or _graphs_of_calls_only(groups[0])
    )


def _holder_spans(attempts: list[Attempt]) -> set[int]:
    """id() of task spans (a trace's) of tasks that ran other logged tasks: their task id is
    in another line's namespace (``parent:<id>|...``)."""
    under = {
        tid for a in attempts if a.logged_ns for _node, tid in namespaces.segments(a.logged_ns)
    }
    return {
        id(a)
        for a in attempts
        if a.task_id and a.task_id in under and a.lines and a.lines[0].describes_task
    }


def _graphs_of_calls_only(group: list[Attempt], aligned: bool = False) -> bool:
    """Do all the lines come from graphs invoked under a call of a root task that logged
    nothing of its own (``parent:<id>|call:<id>``, nothing under ``parent:<id>`` alone)? An
    `@task` call made by the root task: the functional API's shape, an `@entrypoint`
    (test_multiple_subgraphs_mixed_entrypoint). Said in the what-if's assumptions, since a
    graph node may call an `@task` too. With `aligned`, a line whose log names no namespace
    counts by the one the alignment gave it (a bare log; the caller asks only where the
    database shows an entrypoint's input checkpoint)."""
    # A trace shows the spans of the root task and its call around the graphs' lines: those
    # tasks ran the graphs, the lines below them are still the graphs' only.
    holders = _holder_spans(group)
    group = [a for a in group if id(a) not in holders]
    spaces = {a.logged_ns if a.logged_ns is not None or not aligned else a.namespace for a in group}
    if not group or any(not ns or namespaces.NS_END not in ns for ns in spaces):
        return False
    # a graph's nodes log their own loop's steps, from 1; calls (an `@entrypoint` a node
    # invoked, whose `@task` calls log its step 0: test_multiple_subgraphs_mixed_state_graph)
    # are no graph's nodes
    if any(a.step is not None and a.step < 1 for a in group):
        return False
    tops = {namespaces.levels(ns)[0] for ns in spaces if ns}
    return all(namespaces.depth(ns) >= 2 for ns in spaces if ns) and not tops & spaces


def _may_call(first: Attempt, b: Attempt, others: set[str]) -> bool:
    """Could `b`, which ran inside `first`'s span, be an `@task` call `first` made? A trace
    shows a node's span around the graph it invokes as well as around its calls. A call logs
    its caller's step and a namespace ending in a task's id (``caller:<id>``); a node of a
    `checkpointer=True` graph logs one without (``call_both``), and a node of a graph that
    another logged task ran hangs under that task's id, not `first`'s
    (test_stateful_namespace_isolation). A call counter (``node:<id>|1``) marks the second
    graph one task invoked, never a call (test_multiple_subgraphs_checkpointer). `others`:
    the task ids of the group's other logged tasks."""
    if first.step is not None and b.step is not None and first.step != b.step:
        return False
    if not b.logged_ns:
        return True
    if namespaces.NS_SEP in namespaces.levels(b.logged_ns)[-1]:
        return False
    _node, runner = namespaces.runner(b.logged_ns)
    if runner is None:
        return False
    return not (first.task_id and runner != first.task_id and runner in others)


def _entrypoint_first(group: list[Attempt]) -> bool:
    """Does the first task hold the others inside its span, as a functional `@entrypoint`
    holds its `@task` calls? The entrypoint runs in step 0; a graph's first node in step 1."""
    if not group:
        return False
    first = min(group, key=lambda a: a.start_ts)
    until = first.end_ts if first.outcome != "in flight" else float("inf")
    others = {a.task_id for a in group if a is not first and a.task_id}
    held = [
        b
        for b in group
        if b is not first and first.start_ts < b.start_ts <= until and _may_call(first, b, others)
    ]
    # Tasks of one superstep all start together; calls of an entrypoint start while it
    # runs, one after another or well after it began, and log their caller's namespace.
    return (
        any(b.start_ts > first.start_ts + RACE for b in held)
        or any(b.start_ts > c.end_ts for b in held for c in held if c.outcome == "finished")
        or any(b.logged_ns for b in held)
    )


def _kinds(
    groups: list[list[Attempt]],
    retried: set[int],
    halted: set[int] = frozenset(),
    edits: Sequence[float] = (),
    one_entry_input: bool = False,
    inputs: Sequence[float] = (),
    weak: set[int] | None = None,
    interrupted: Container[str] = (),
    roots: Sequence[Checkpoint] = (),
    after_idle: Container[int] = (),
    alike: set[int] | None = None,
    copy: bool | None = None,
) -> list[InvocationKind]:
    """How each invocation began (`InvocationKind`), from the evidence that tells:

    * right after a run from a checkpoint with nothing due that ran nothing (`after_idle`,
      `_fresh_after_idle`), with no other copy or edit made since, a fresh input: a resume
      from there would run nothing;

    * a root checkpoint saved by an input (`inputs`: their times) taken just before this
      invocation's first task (nearer it than the previous invocation's last line, where an
      exit save is stamped) is a fresh input: a resume makes none (it goes on from a
      checkpoint); this holds where a log without task ids aligns the first task with a
      task left unfinished before;
    * a first task aligned with an unfinished task of its node due at a checkpoint saved
      before the invocation began is a resume (a fresh input makes checkpoints of its own
      first);
    * a first task that is the same task the previous invocation left unfinished (paused,
      failed or in flight) is a resume, and so is one logged under the same caller task
      (the same ``node:<task id>`` namespace) as the previous invocation's lines;
    * the thread's newest root checkpoint before the invocation's first task, saved after
      the previous invocation's last line, has nothing due (`roots`): that run had returned,
      and only a fresh input runs anything after it, starting where an earlier input
      started, when no checkpoint before it has that task due in a step the log's step
      follows (a run from an earlier checkpoint starts at the task due there, one step on,
      two past the copy a release saves from 1.1.7, `copy`; a fresh input sent to an older
      checkpoint begins three on, test_delta_channel_time_travel). A run from a checkpoint
      is told by its copy where it landed (`_replay_copies`); where it did not, the two
      look the same, and the invocation is read both ways where nothing of it was saved
      (`alike`, within `weak`; test_subgraph_time_travel_after_completion's second input on
      1.0.10, killed before its input checkpoint landed under async) — with a log whose
      previous lines ran in a subgraph, no step compares the two
      (test_stateful_subgraph_retains_state_on_parent_fork's second input under exit);
    * with steps in the log, a resume re-runs the step after the last saved checkpoint, a
      fresh input starts two steps later (its input checkpoint, then `__start__`); each
      ``update_state`` between the two (`edits`: their checkpoints' times) adds a step;
    * an `@entrypoint` thread whose database holds one input checkpoint (`one_entry_input`)
      had one input: every fresh input saves its own, and an invocation that ended saved it
      in every mode, so where nothing else tells, a later invocation is a resume;
    * else a first node other than the previous invocation's first node is taken for a
      resume (a node that paused at `interrupt()` before logging anything, then answered),
      the same one for a fresh input (the graph starting over).

    `weak` collects the invocations only a log without task ids, namespaces or steps told
    (the node names alone): a database that kept no input checkpoint (exit) cannot confirm
    them, and the what-if reads them both ways (`gather`'s `flip_kinds`). The answer to a
    pause at ``interrupt()`` (`interrupted`: the nodes, or the entrypoint, the database shows
    paused) is not among them: an invocation that begins with such a node (it asked before
    its first line), or follows one that holds such a node, unless that one's run returned
    (its newest root checkpoint, saved after its last line, has nothing due:
    subgraph_noop_replay_then_input's second input on 0.4.10, after the answer that ran the
    graph to its end). The answer to a pause is a resume."""
    kinds: list[InvocationKind] = ["input"]
    bounds = _bounds(groups, None, inputs)
    for i, (prev, cur) in enumerate(zip(groups, groups[1:], strict=False), 1):
        if not cur:
            kinds.append("resume")
            continue
        earliest = min(cur, key=lambda b: b.start_ts)
        # Where this invocation began: a fresh input saves its own input and `__start__`
        # checkpoints just before its first task, after this bound; a resume's first task is
        # due at a checkpoint an earlier invocation saved, before it.
        begin = bounds[i]
        # the first step's tasks: the earliest and those that started while it ran
        first = [a for a in cur if a is earliest or a.start_ts < _until(earliest) - 1e-6]
        prev_end = max((x.end_ts for x in prev), default=float("-inf"))
        # Nearer this invocation's first task than the previous one's last line: a checkpoint
        # saved on the way out (under exit, stamped as the loop leaves) is not an input's.
        # Nor is one stamped as the previous one left: an input checkpoint taken later, the
        # first task held back by sync's wait for the puts chained behind it (two writes at
        # 1 s under `ainvoke`: test_checkpoint_recovery_async, read as a resume), is.
        if prev and any(
            min((prev_end + earliest.start_ts) / 2, prev_end + RACE) < t <= earliest.start_ts
            for t in inputs
        ):
            kinds.append("input")
            continue
        if i in after_idle:
            kinds.append("input")
            continue
        if any(f.node == START and not f.logged_ns for f in first):
            # A trace shows the root `__start__` task, which only an input runs (it writes
            # the input into the channels); a resume goes on from the tasks a checkpoint has due.
            kinds.append("input")
            continue
        # (an answer begins with the node that asked before its first line, or follows the
        # one that asked after it; a run that returned ended at no pause, though a node of
        # it had paused before and been answered in it)
        by_name_only = all(_named_only(f) for f in first) and not (
            (
                any(a.node in interrupted for a in prev)
                and not _ended_before(roots, prev_end, earliest.start_ts)
            )
            or any(f.node in interrupted for f in first)
        )
        if any(
            f.checkpoint is not None
            and f.task is not None
            and f.task.node == f.node
            # unfinished then: no write, or the writes this very attempt made (a task id
            # aligned it, or no earlier line was given that task: the database is read
            # after the kill, when it had finished)
            and (
                not f.task.done
                or (f.alignment == "exact" and f.task_id == f.task.task_id)
                or (f.outcome == "finished" and not _given_before(f, groups[:i]))
            )
            and (iso_to_epoch(f.checkpoint.ts) or begin) < begin
            for f in first
        ):
            kinds.append("resume")
            if by_name_only and weak is not None:
                weak.add(i)
            continue
        open_ = [a for a in prev if not _step_done(a, retried, halted) and id(a) not in retried]
        if any(same_task(o, f) for o in open_ for f in first):
            kinds.append("resume")
            if by_name_only and weak is not None:
                weak.add(i)
            continue
        # Lines logged under the same caller task as the previous invocation's (an
        # entrypoint's `@task` calls, a subgraph's nodes: ``graph:<task id>``): that task
        # runs again, which only a resume does; a fresh input starts from a new checkpoint,
        # and every task id derived from it is new.
        callers = {a.logged_ns for a in prev if a.logged_ns and namespaces.NS_END in a.logged_ns}
        if any(f.logged_ns in callers for f in first if f.logged_ns):
            kinds.append("resume")
            continue
        after_return = (
            not _named_only(earliest)  # a bare log's node names tell no root task apart
            and _ended_before(roots, prev_end, earliest.start_ts)
            and _root_node(earliest)
            in {
                _root_node(min(g, key=lambda b: b.start_ts))
                for g, k in zip(groups, kinds, strict=False)
                if g and k == "input"
            }
        )
        at = _root_step(first, groups[:i]) if after_return else None
        if after_return and not _due_in(roots, _root_node(earliest), earliest.start_ts, at, copy):
            kinds.append("input")
            continue
        if (
            after_return
            and weak is not None
            and alike is not None
            and (at is None or _input_step_fits(roots, earliest.start_ts, at))
        ):
            # A run from the earlier checkpoint where that task was due begins alike: which
            # of the two it was, only a copy of that checkpoint (`_replay_copies`) or the
            # invocation's own input checkpoint tells (`outcomes._unconfirmed_kinds`).
            weak.add(i)
            alike.add(i)
        done = [a.step for a in prev if a.step is not None and not a.logged_ns]
        steps_cur = [a.step for a in first if a.step is not None and not a.logged_ns]
        if done and steps_cur:
            ended = max(a.end_ts for a in prev)
            between = sum(1 for t in edits if ended - RACE <= t <= earliest.start_ts)
            kinds.append("resume" if min(steps_cur) <= max(done) + 1 + between else "input")
            continue
        prev_first = min(prev, key=lambda a: a.start_ts).node if prev else None
        same_start = any(f.node == prev_first for f in first)
        kinds.append("input" if same_start and not one_entry_input else "resume")
        if by_name_only and not one_entry_input and weak is not None:
            weak.add(i)
    return kinds


def _saved_while_running(roots: Sequence[Checkpoint], group: list[Attempt]) -> bool:
    """Did the loop save a root checkpoint of its own while `group`'s lines ran (after its
    first task began, by its last line)? Then its mode saves as it goes (not exit), and a
    fresh input would have saved its input checkpoint before its first task, ahead of those
    puts: where the database holds none, the invocation was a resume (`_halted`)."""
    began = min(a.start_ts for a in group)
    last = max(max((line.ts for line in a.lines), default=a.start_ts) for a in group)
    return any(
        c.source == "loop" and (t := taken_at(c)) is not None and began < t <= last for c in roots
    )


def _kinds_from_saved_ends(
    groups: list[list[Attempt]],
    kinds: list[InvocationKind],
    weak: set[int],
    roots: Sequence[Checkpoint],
    no_start: bool,
    edits: Sequence[float],
) -> None:
    """Read a weak invocation's kind (`_kinds`) from the steps of the checkpoints saved as it
    and the one before it ended, where nothing was saved while it ran (exit): a resume goes
    on from the saved step and runs its tasks' steps; a fresh input adds its input
    checkpoint and `__start__` (one step for a graph without `__start__`) before them. Its
    root attempts ran in one step at least and in one step each at most: where only one of
    the two readings fits the gap, it is the nominal one. The invocation stays weak (the
    other reading still bounds the range): a node that logs nothing adds steps no line shows.
    test_invoke_two_processes_in_out_interrupt under exit, bare: inputs 2, None, 20, 3,
    None on a raw Pregel with a breakpoint after `one`; the gaps 1, 2, 2 tell resume,
    input, input, where the node names alone had read the third as a resume."""
    extra = 1 if no_start else 2
    ends: list[int | None] = []
    for i, g in enumerate(groups):
        nxt = groups[i + 1] if i + 1 < len(groups) else []
        if not g:
            ends.append(None)
            continue
        last = max(a.end_ts for a in g)
        until = min((a.start_ts for a in nxt), default=inf)
        saved = [  # (the next invocation's input checkpoint is taken just before it)
            c.step
            for c in roots
            if c.step is not None
            and c.source != "input"
            and (t := taken_at(c)) is not None
            and last - RACE <= t < until
        ]
        ends.append(max(saved) if saved else None)
    for i in sorted(weak):
        prev, cur = ends[i - 1], ends[i]
        g = groups[i]
        if prev is None or cur is None or not g or not groups[i - 1]:
            continue
        began = min(a.start_ts for a in g)
        last = max(a.end_ts for a in g)
        prev_last = max(a.end_ts for a in groups[i - 1])
        if any(prev_last - RACE <= t <= began for t in edits):
            continue  # an update_state between them saved a step of its own
        if any(began <= (taken_at(c) or -inf) < last - RACE for c in roots):
            continue  # saved while it ran: not exit, its own checkpoints tell
        root = [a for a in g if not (a.logged_ns or a.namespace)]
        gap, most = cur - prev, max(len(root), 1)
        as_resume, as_input = 1 <= gap <= most, 1 + extra <= gap <= most + extra
        if as_resume != as_input:
            kinds[i] = "resume" if as_resume else "input"


def _given_before(a: Attempt, earlier: list[list[Attempt]]) -> bool:
    """Was `a`'s task given to an attempt of an earlier invocation? If not, and its writes
    are saved, `a` made them: a task is done once (two `Send` workers' runs of one subgraph
    answered one interrupt at a time, a bare log: the second worker's first answer is a
    resume, though the first worker's started with the same node)."""
    return any(b.task is a.task for g in earlier for b in g)


def _lost_copy(
    groups: list[list[Attempt]],
    kinds: list[InvocationKind],
    replayed: dict[int, int],
    roots: Sequence[Checkpoint],
    *,
    input_start: bool = False,
    copy: bool = True,
) -> tuple[int, int] | None:
    """(invocation, step of its copy) for the killed last invocation when it was a run from
    an earlier checkpoint whose copy never landed (under async a slow store loses it with
    the kill): the newest root checkpoint before its first line has nothing due, so a
    resume would have run nothing, and its first task runs under a root task no fresh
    input starts with (with `input_start`, one a fresh input starts with too: the reading
    of a bare log's invocation as no fresh input). Its copy is one step on from the newest
    root checkpoint where that task was due (test_replay_from_first_invocation_checkpoint
    at 0.25 s a write). `copy` False: the release saves no copy (`rules.FORK_COPY_SINCE`),
    and the run goes on from that checkpoint itself: its step."""
    last = len(groups) - 1
    if last < 1 or not groups[last] or last in replayed or kinds[last] != "resume":
        return None
    first = min(groups[last], key=lambda a: a.start_ts)
    before = max((a.end_ts for a in groups[last - 1]), default=float("-inf"))
    starts = {
        _root_node(min(g, key=lambda a: a.start_ts))
        for g, k in zip(groups, kinds, strict=False)
        if g and k == "input"
    }
    node = _root_node(first)
    # a root step the log gives below one an earlier invocation logged: the steps went back,
    # which neither a resume nor a fresh input does (test_stateful_subgraph_loads_state_
    # across_ticks at 2 s a write, async: the run from the earliest checkpoint began at
    # ``node_a``, as a fresh input does, in step 2 after the second input's step 8)
    back = (
        first.step is not None
        and not first.logged_ns
        and any(
            b.step is not None and not b.logged_ns and b.step >= first.step
            for g in groups[:last]
            for b in g
        )
    )
    if (node in starts and not input_start and not back) or not _ended_before(
        roots, before, first.start_ts
    ):
        return None
    due = [c for c in roots if c.step is not None and any(t.node == node for t in c.tasks)]
    if not due:
        return None
    # a root task's own step in the log (a trace's span) names the checkpoint it ran from:
    # the copy is the step before it (test_replay_from_first_invocation_checkpoint, a trace:
    # ``sub_node`` in step 3, run from the first invocation's checkpoint, not the newest)
    logged = [a.step for a in groups[last] if a.step is not None and not a.logged_ns]
    named = [c for c in due if logged and c.step == min(logged) - 2]
    newest = max(named or due, key=lambda c: taken_at(c) or 0.0)
    return last, int(newest.step or 0) + (1 if copy else 0)


def _silent_start_before(group: list[Attempt], roots: Sequence[Checkpoint], step: int) -> bool:
    """Could a copy-less run from an earlier checkpoint, taken to begin at the checkpoint of
    `step` (`_lost_copy`), have begun at the one before it, whose due tasks logged no line in
    the run? Those tasks return at once (a subgraph already completed), and their step's
    checkpoint was lost with the kill."""
    at = [c for c in roots if c.step == step]
    parents = {c.parent_checkpoint_id for c in at}
    before = [c for c in roots if c.checkpoint_id in parents and c.step is not None]
    logged = {a.node for a in group} | {_root_node(a) for a in group}
    return any((due := {t.node for t in c.tasks if t.node}) and not due & logged for c in before)


def _root_stayed(
    puts: Sequence[Put], recording: Recording, killed_earlier: Container[int], ending: Ending
) -> set[int]:
    """`Evidence.root_stayed`: the ended invocations of an exit recording whose root steps
    the log shows but the database holds no root checkpoint of (LangGraph 0.4.10,
    stateful_subgraph_interrupt's answered turn: its root step never completed in any mode,
    and from exit async was said to keep one checkpoint more)."""
    if recording.mode != "exit":
        return set()
    last = max((p.inv for p in puts), default=-1)
    out: set[int] = set()
    for inv in {p.inv for p in puts if not p.ns}:
        if inv in killed_earlier or (inv == last and ending == "killed"):
            continue
        mine = [p for p in puts if not p.ns and p.inv == inv and not p.edit]
        if mine and all(p.checkpoint is None for p in mine):
            out.add(inv)
    return out


def _runs_from_older(
    groups: list[list[Attempt]], roots: Sequence[Checkpoint], replayed: dict[int, int]
) -> dict[int, int]:
    """Invocation -> the step of the checkpoint it ran from, for each run from an earlier
    checkpoint that a release saving no copy of it made (`rules.FORK_COPY_SINCE`): the first
    root checkpoint taken while it ran is a loop's whose parent is not the newest root
    checkpoint before it began. A fresh input and a resume go on from the newest; only a run
    from an earlier checkpoint goes back (LangGraph 0.6.11, test_run_from_checkpoint_id_
    retains_previous_writes's shape, a bare log: the run from the checkpoint where
    ``node_one`` was due begins at ``node_one``, as a fresh input does)."""
    by_id = {c.checkpoint_id: c for c in roots}
    dated = sorted(((t, c) for c in roots if (t := taken_at(c)) is not None), key=lambda tc: tc[0])
    out: dict[int, int] = {}
    for inv in range(1, len(groups)):
        if not groups[inv] or inv in replayed:
            continue
        # (from the invocation before's last line: a task that logs nothing may run first,
        # and its step's checkpoint come before this invocation's first line)
        after = max((a.end_ts for a in groups[inv - 1]), default=float("-inf"))
        until = min(
            (min(a.start_ts for a in g) for g in groups[inv + 1 :] if g), default=float("inf")
        )
        for i, (t, c) in enumerate(dated):
            if i == 0 or not after < t < until or c.source != "loop":
                continue
            newest = dated[i - 1][1]
            parent = by_id.get(c.parent_checkpoint_id or "")
            if parent is None or parent is newest or parent.step is None:
                continue
            if (taken_at(parent) or float("inf")) < (taken_at(newest) or float("-inf")):
                out[inv] = parent.step
                break
    return out


def _lost_copy_said(inv: int, why: str, copy: bool = True) -> str:
    """The sentence `gather` says for a run from an earlier checkpoint whose copy never landed
    (`_lost_copy`), `why` telling it from a fresh input; `copy` False, for a release that
    saves no copy."""
    began = (
        f"invocation {inv + 1} began at a task the thread's ended run had no more of, {why}: "
        "a run from an earlier checkpoint where that task was due"
    )
    if not copy:
        return (
            f"{began} (taken as the newest such checkpoint; the release that wrote it saves "
            "no copy of that checkpoint first: the run goes on from it)"
        )
    return f"{began}, killed before its copy landed (taken as the newest such checkpoint)"


def _root_node(a: Attempt) -> str:
    """The root task `a` ran under: its node, or the node whose subgraph it ran in."""
    return namespaces.root_runner(a.logged_ns or a.namespace or "")[0] or a.node


def _due_in(
    roots: Sequence[Checkpoint],
    node: str,
    before: float,
    step: int | None = None,
    copy: bool | None = None,
) -> bool:
    """Does a root checkpoint taken before `before` have `node` due? A run from it (time
    travel whose copy never landed) would begin where a fresh input begins. With the root
    `step` the log gives the run's first task, only a checkpoint that step follows counts:
    a run from a checkpoint runs its tasks in the step after it, or after its copy's (a
    release that saves one, `FORK_COPY_SINCE`, numbers the copy one step on; `copy` says
    whether the release does, None: either)."""
    gaps = (1, 2) if copy is None else ((2,) if copy else (1,))
    return any(
        (taken_at(c) or before) < before
        and any(t.node == node for t in c.tasks)
        and (step is None or c.step is None or step - c.step in gaps)
        for c in roots
    )


def _root_step(first: list[Attempt], earlier: list[list[Attempt]]) -> int | None:
    """The root step an invocation's first tasks logged, where the log gives one: a root
    task's own, or an `@task` call's, logged under its entrypoint's task in its step (a node
    whose earlier attempts were aligned in the root graph); a subgraph's steps are its own."""
    root_level = {b.node for g in earlier for b in g if b.namespace == ""}
    steps = [
        f.step for f in first if f.step is not None and (not f.logged_ns or f.node in root_level)
    ]
    return min(steps, default=None)


def _input_step_fits(roots: Sequence[Checkpoint], before: float, step: int) -> bool:
    """Could a fresh input after the newest of `roots` taken before `before` have run its
    first task in root `step`? Its input checkpoint takes the step after that checkpoint's,
    `__start__` the next (a graph without one, an `@entrypoint`, skips it): the first task
    runs two or three steps on."""
    found = _newest_before(roots, before)
    if found is None:
        return True
    newest = found[1]
    return newest.step is None or step - newest.step in (2, 3)


def _ended_before(roots: Sequence[Checkpoint], after: float, before: float) -> bool:
    """Is the newest of `roots` taken before `before` one with nothing due, taken after
    `after` (a run's end, saved on its way out)?"""
    found = _newest_before(roots, before)
    if found is None:
        return False
    t, newest = found
    return t >= after - RACE and not newest.tasks


def _named_only(a: Attempt) -> bool:
    """Does the log tell `a`'s task by its node name alone (no task id, namespace or step)?"""
    return (a.task_id is None or a.task_id_inferred) and not a.logged_ns and a.step is None


@per_thread
def _saves(db_cps: Sequence[Checkpoint]) -> list[tuple[float, float | None, bool]]:
    """(taken, the time in its id, whether a run saved it as it stopped: `_ends_run`) of each
    loop checkpoint: where a run's way out may bound an invocation (`_bounds`)."""
    return [
        (t, uuid6_time(c.checkpoint_id), _ends_run(c))
        for c in db_cps
        if c.source == "loop" and (t := taken_at(c)) is not None
    ]


@per_thread
def _stamps(db_cps: Sequence[Checkpoint]) -> dict[str, float]:
    """Checkpoint id -> when it was taken (0 where nothing dates it)."""
    return {c.checkpoint_id: taken_at(c) or 0.0 for c in db_cps}


def _ends_run(c: Checkpoint) -> bool:
    """Is loop checkpoint `c` one a run saves as it stops: nothing due (it returned), or a
    task paused or raised in it? Such a save belongs to the run before whatever comes after
    it; a later run saves nothing of that kind before its first line."""
    return not c.tasks or any(w.channel in ("__interrupt__", "__error__") for w in c.writes)


def _bounds(
    groups: list[list[Attempt]],
    began: dict[int, float] | None = None,
    inputs: Sequence[float] = (),
    saves: Sequence[tuple[float, float | None, bool]] = (),
) -> list[float]:
    """Where each invocation begins on the clock (the first: at minus infinity). After a
    first invocation that logged nothing (`_silent_first`), the next begins just before its
    first line; a run between two logged ones that logged nothing (`_silent_replays`) begins
    with the first edit or copy it ran from (`began`, `_silent_starts`), or else just after
    the previous one's end. An input checkpoint (`inputs`: their times) taken after the
    previous one had left begins the next (its first line may come seconds later, behind
    sync's waits for the puts chained after it). `saves`: every checkpoint's (taken, made,
    ends a run): one taken before the next invocation's first line (and its input
    checkpoint) that ends a run (`_ends_run`), or whose id was made by the previous
    invocation's last line (under exit a loop saves on its way out the checkpoint its last
    step made, its id kept, its time stamped then), is the previous one's, however late."""
    bounds: list[float] = []
    for i, g in enumerate(groups):
        if i > 0 and not g and not groups[i - 1] and (began or {}).get(i) is not None:
            bounds.append(began[i] - 0.01)  # a later one of several silent runs side by side
        elif i > 0 and not g and groups[i - 1]:
            # a run between two logged ones that logged nothing (`_silent_replays`): it owns
            # what was saved after the previous one's own end-of-run save (which lands after
            # that run's last line by as long as a checkpoint write takes)
            prev_end = max(x.end_ts for x in groups[i - 1])
            start = (began or {}).get(i)
            bounds.append(start - 0.01 if start is not None else prev_end + 0.05)
        elif i == 0 or not g:
            bounds.append(float("-inf"))
        elif not groups[i - 1]:
            first = min(a.start_ts for a in g)
            # after a silent run between two logged ones, an input checkpoint taken since it
            # began is this invocation's own, however long before its first task (sync holds
            # the first task back behind the puts chained after it)
            own = [t for t in inputs if i > 1 and bounds[i - 1] < t <= first]
            bounds.append(min(own) - 0.001 if own else first - 0.02)
        else:
            prev_end = max(x.end_ts for x in groups[i - 1]) if groups[i - 1] else float("-inf")
            # Under exit the checkpoint saved on the way out is stamped when the invocation
            # ends, after its last task: the boundary sits halfway to the next invocation
            # (which stamps its input checkpoint just before its first task).
            nxt = g[0].start_ts
            half = max(prev_end + 0.05, (prev_end + nxt) / 2)
            own = [t for t in inputs if prev_end + RACE < t <= nxt]
            bound = max(prev_end, min(half, nxt - 0.02))
            # A run's loops stop one after another, each after the puts of the loops below it
            # (under exit, each saving on its way out), so on a slow store the root's end is
            # taken latency after latency past the last line (stateful_subgraph_interrupt at
            # 2 s: 4 s under exit, 5.6 s under async; doubly_nested_interrupts under exit,
            # paused at a static breakpoint two graphs down, 4 s: past the halfway mark)
            late = [
                t
                for t, made, ends in saves
                if prev_end < t < min([nxt - 0.02, *own])
                and (ends or (made is not None and made <= prev_end + RACE))
            ]
            bound = max(bound, max(late) + 0.001) if late else bound
            bounds.append(min(bound, min(own) - 0.001) if own else bound)
    return bounds


def _silent_starts(
    groups: list[list[Attempt]],
    db_cps: Sequence[Checkpoint],
    copies: dict[int, tuple[int, float]],
) -> dict[int, float]:
    """invocation -> when a run that logged nothing began: the first checkpoint an edit or a
    copy saved (in any namespace: ``update_state`` on a subgraph's checkpoint saves there,
    then the root's copy) after the previous run's last line, up to the copy it ran from.
    What landed before that is the previous run's end-of-run save, however late a slow store
    wrote it (test_3_levels_deep_middle_has_interrupts at 0.25 s a write: 0.26 and 0.51 s
    after the last line). The root's checkpoint is the last that save makes (a loop saves on
    its way out after the loops below it), so any checkpoint taken after the first root one
    past the previous run's last line is this run's too: under exit the copy is saved only
    as the run stops, after the subgraph checkpoints of its own pause
    (test_subgraph_replay_loads_accumulated_state_then_resume)."""
    out: dict[int, float] = {}
    for inv, (_step, copied) in copies.items():
        if inv == 0 or groups[inv]:
            continue
        if not groups[inv - 1]:
            out[inv] = copied  # a later one of several silent runs side by side: its copy
            continue
        prev_end = max(a.end_ts for a in groups[inv - 1])
        stamps = [(c, t) for c in db_cps for t in [taken_at(c)] if t is not None]
        made = [t for c, t in stamps if c.source in EDIT_SOURCES and prev_end < t <= copied]
        prev_save = min((t for c, t in stamps if not c.checkpoint_ns and prev_end < t < copied),
                        default=None)  # fmt: skip
        if prev_save is not None:
            made += [t for _c, t in stamps if prev_save < t <= copied]
        if made:
            out[inv] = min(made)
    return out


def _due_together(thread: Thread | None) -> set[frozenset[str]]:
    """Pairs of nodes a subgraph's checkpoint had due in one step (they run at once)."""
    out: set[frozenset[str]] = set()
    for sp in thread.namespaces.values() if thread else ():
        if not sp.name:
            continue
        for c in sp.checkpoints:
            due = sorted({t.node for t in c.tasks if t.node})
            out.update(frozenset((x, y)) for i, x in enumerate(due) for y in due[i + 1 :])
    return out


def _runs_done(thread: Thread | None, space: Callable[[str | None], str]) -> dict[str, float]:
    """Subgraph runs side by side (`space_keys`) -> when the checkpoint was taken after which
    the database shows nothing left due in that run (it had returned): its own last one, or
    a later checkpoint of the loop above, after the step of the task that ran it (under
    exit a subgraph run that paused, then returned, saved only its pause)."""
    out: dict[str, float] = {}
    for sp in thread.namespaces.values() if thread else ():
        key = space(sp.name)
        last = sp.checkpoints[-1] if sp.checkpoints and INSTANCE in key else None
        if last is None:
            continue
        t = taken_at(last) if last.step is not None and last.step > 0 and not last.tasks else None
        if t is None:
            t = _holder_step_done(thread, sp.name)
        if t is not None:
            out[key] = t
    return out


def _runs_opened(thread: Thread | None, space: Callable[[str | None], str]) -> dict[str, float]:
    """Subgraph runs side by side (`space_keys`) -> when their first checkpoint the database
    holds was taken: a run none of whose checkpoints an invocation made had not begun in it
    (under exit a run saves only as it leaves)."""
    out: dict[str, float] = {}
    for sp in thread.namespaces.values() if thread else ():
        key = space(sp.name)
        stamps = [t for c in sp.checkpoints for t in [taken_at(c)] if t is not None]
        if INSTANCE in key and stamps:
            out[key] = min(out.get(key, inf), min(stamps))
    return out


def _holder_step_done(thread: Thread, ns: str) -> float | None:
    """When the loop above `ns` saved a checkpoint after the step of the task that ran it,
    on that task's branch (a child of the checkpoint that had the task due): the run below
    had returned by then."""
    _node, task_id = namespaces.runner(ns)
    above = thread.namespaces.get(namespaces.parent(ns))
    if task_id is None or above is None:
        return None
    due = next((c for c in above.checkpoints if any(t.task_id == task_id for t in c.tasks)), None)
    if due is None or due.step is None:
        return None
    later = [
        t
        for c in above.checkpoints
        if c.parent_checkpoint_id == due.checkpoint_id and c.step is not None and c.step > due.step
        for t in [taken_at(c)]
        if t is not None
    ]
    return min(later, default=None)


class _SideBySide:
    """Which run of a subgraph that ran several times side by side (`space_keys`) an attempt
    of a log without namespaces belongs to: each run's tasks follow one another, so a task
    goes to the run free when it began whose previous task ended last (the first wave, to
    the runs with no task yet, in order)."""

    def __init__(
        self,
        keys: set[str],
        done_at: dict[str, float] | None = None,
        siblings: set[frozenset[str]] | None = None,
        opened_at: dict[str, float] | None = None,
    ) -> None:
        self.runs: dict[str, list[str]] = {}
        for key in sorted(keys):
            if INSTANCE in key:
                self.runs.setdefault(base_space(key), []).append(key)
        self.paths = set(self.runs)
        self.last: dict[str, Attempt] = {}
        self.done_at = done_at or {}  # run -> when the database shows it had nothing left due
        self.siblings = siblings or set()  # nodes a checkpoint of these runs had due together
        self.opened_at = opened_at or {}  # run -> when its first checkpoint was taken
        self.until = inf  # when the invocation being placed wrote its last line

    def begin(self, until: float = inf) -> None:
        self.last = {}
        self.until = until

    def place(self, path: str, a: Attempt, aligned: str | None = None) -> str:
        """`aligned`: the run the attempt's checkpoint alignment found: by time, or told
        by the database (`Attempt.run_told`), which this order does not overrule. A run with
        no task yet in this invocation takes the task the alignment put there, rather than
        the first such run by name (each invocation's first wave: both workers' ``ask``,
        test_parallel_interrupts at 0.5 s a write)."""
        runs = self.runs.get(path)
        if not runs:
            return path
        # a run the database shows done before this task began is not its run, nor one whose
        # checkpoints were all made after this invocation (a later invocation's run of the
        # graph: stateful_subgraph_interrupt_async on LangGraph 0.4.10 under exit, whose
        # first answer's ``respond`` was filed in the second cycle's run)
        runs = [
            r
            for r in runs
            if self.done_at.get(r, inf) > a.start_ts
            and self.opened_at.get(r, -inf) <= self.until + RACE
        ] or runs
        free = [r for r in runs if r not in self.last or self._free_for(r, a)]
        if a.outcome == "in flight":
            # a line the kill cut short is no next effect of a task of its node that returned
            # (its writes saved): three workers answered at once, test_multi_resume
            free = [r for r in free if not self._returned(r, a.node)] or free
        fresh = [r for r in free if r not in self.last]
        if aligned in free and [r for r in runs if r in self.last] == [aligned]:
            # the only run going so far is free and the checkpoints put the task there: its
            # next task (runs one after another, a subgraph invoked again later), not a new run
            fresh = []
            free = [aligned]
        told = a.run_told and (aligned in free or self._paired_by_guess(aligned))
        if aligned is not None and (told or aligned in fresh):
            pick = aligned
        elif fresh:
            pick = fresh[0]
        elif free:
            pick = max(free, key=lambda r: self.last[r].end_ts)
        else:
            pick = min(runs, key=lambda r: self.last[r].end_ts)
        self.last[pick] = a
        return pick

    def _free_for(self, run: str, a: Attempt) -> bool:
        """Had `run`'s previous task ended when `a` began, or does `a` run beside it in one
        step (`_beside_sibling`)?"""
        return self.last[run].end_ts <= a.start_ts + 1e-6 or self._beside_sibling(run, a)

    def _beside_sibling(self, run: str, a: Attempt) -> bool:
        """Did `a` start with `run`'s previous task, of another node due in the same step of
        that subgraph (a checkpoint of it has both due): its step's tasks run at once."""
        last = self.last.get(run)
        return (
            last is not None
            and last.node != a.node
            and abs(last.start_ts - a.start_ts) <= RACE
            and frozenset((last.node, a.node)) in self.siblings
        )

    def _returned(self, run: str, node: str) -> bool:
        """Did the last task of `run`, of `node`, return (the database has its writes)?"""
        last = self.last.get(run)
        return last is not None and last.node == node and last.task is not None and last.task.done

    def _paired_by_guess(self, run: str | None) -> bool:
        """Was the last task of `run` given its end line by a guess (`Attempt.peers`:
        parallel starts of one node the log cannot tell apart)? Then when it ended, which
        says whether the run was free, is a guess too."""
        last = self.last.get(run or "")
        return last is not None and bool(last.peers)


QUEUED_UNSURE = (
    "a task with no step in the log started the moment its step's tasks ended, its node made "
    "due beside theirs by one task's writes: it either waited in the executor's queue (one "
    "more task of that step) or ran in the next step (a deferred node), which the log does "
    "not show"
)
"""Why a what-if is widened over both steps for such a task (`gather`'s `queued`)."""

REPLAY_START_UNSURE = (
    "the run from an earlier checkpoint saved nothing before the kill, and the release that "
    "wrote it saves no copy first: it began where its first logged task was due, or one "
    "checkpoint earlier, at tasks that logged nothing"
)
"""Why a what-if is widened over both starts (`gather`'s `replay_earlier`)."""

RAISE_UNSURE = (
    "the last task failed and nothing dates the kill: the run raised out of the graph (every "
    "put it had submitted landed first), or the process died after the failure, before the "
    "raise got out, which a sync database cannot tell from it"
)
"""Why a what-if is widened over both endings (`gather`'s `killed_raising`)."""


def _routed_beside(a: Attempt, running: list[Attempt], routed: dict[str, list[set[str]]]) -> bool:
    """Did `a` begin once the running step's tasks had ended, within RACE of the last end, its
    node made due beside a running task's node by one task's writes (`_routed_together`)?"""
    return -1e-6 <= a.start_ts - max(_until(b) for b in running) <= RACE and any(
        b.node in peers for b in running for peers in routed.get(a.node, ())
    )


def _routed_together(thread: Thread | None) -> dict[str, list[set[str]]]:
    """node -> the sets of nodes one task's writes made due together with it, from every
    write the database holds (saved or orphaned): the edges out of a task write a trigger
    per next node (``branch:to:<node>``; ``start:<node>`` from `__start__` before LangGraph
    0.3). A bare task that starts the moment the running step's tasks ended may be one more
    task of that step where its node was due beside theirs: it waited in the executor's
    queue (test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge at 1 s a write
    under async: the workers busy with puts, retriever_two began 2 ms after analyzer_one
    ended; read as the next step, sync kept one checkpoint more than the real run). Or it is
    a node added with ``defer=True``, due as early but run only once nothing else is
    (test_in_one_fan_out_state_graph_defer_node): the what-if reads both."""
    by_task: dict[str, set[str]] = {}
    for ns in thread.namespaces.values() if thread else ():
        writes = [w for c in ns.checkpoints for t in c.tasks for w in t.writes]
        for w in [*writes, *ns.orphan_writes]:
            if (node := routed_to(w.channel)) is not None:
                by_task.setdefault(w.task_id, set()).add(node)
    out: dict[str, list[set[str]]] = {}
    for nodes in by_task.values():
        if len(nodes) > 1:
            for n in nodes:
                out.setdefault(n, []).append(nodes - {n})
    return out


def _assign_steps(
    groups: list[list[Attempt]],
    kinds: list[InvocationKind],
    retried: set[int],
    retry_of: dict[int, Attempt],
    thread: Thread | None,
    assumed: list[str],
    halted: set[int] = frozenset(),
    stopped: dict[int, int | None] | None = None,
    space: Callable[[str | None], str] = namespaces.names,
    replayed: dict[int, int] | None = None,
    queued: bool = False,
    branched: dict[int, int | None] | None = None,
) -> tuple[dict[tuple[str, int, int], list[Attempt]], dict[int, tuple[str, int, int]]]:
    """The (namespace, invocation, step) of every attempt: the log's step, else its aligned
    task's, else the next step in log order (see the comments for each rule). `queued`: a
    task that started the moment its step's tasks ended, its node made due beside theirs,
    is one more task of that step (`_routed_together`; the other reading, `QUEUED_UNSURE`)."""
    attempts = [a for g in groups for a in g]
    step_att: dict[tuple[str, int, int], list[Attempt]] = {}
    step_of: dict[int, tuple[str, int, int]] = {}
    routed = _routed_together(thread)
    saved_step = -1  # the root step of the last checkpoint an earlier invocation left
    root_cps = thread.root.checkpoints if thread and thread.root else []
    input_edits = _input_edits(root_cps)
    edit_steps = [
        (t, c.step)
        for c in root_cps
        if c.step is not None and (c.source in EDIT_SOURCES or c.checkpoint_id in input_edits)
        for t in [taken_at(c)]
        if t is not None
    ]
    sub_nodes, named_in_root = _subgraph_nodes(thread)
    # a root task's step, by its id: a subgraph run's namespace names the task that ran it
    root_task_steps = {
        t.task_id: c.step + 1 for c in root_cps if c.step is not None for t in c.tasks if t.task_id
    }
    # (read as the root's for a node the root names, only where some node is a subgraph's)
    root_nodes = named_in_root if sub_nodes else set()
    entry = _entrypoint_node(thread)
    subgraphs = {space(n) for n in (thread.namespaces if thread else ())} - {""}
    sub_entries = _entrypoint_loops(thread, space)
    ns_nodes: dict[str, set[str]] = {}
    for sp in thread.namespaces.values() if thread else ():
        ns_nodes.setdefault(space(sp.name), set()).update(
            t.node for c in sp.checkpoints for t in c.tasks if t.node
        )
    last_sub = ""
    if sub_nodes and any(a.logged_ns is None and a.node in sub_nodes for a in attempts):
        assumed.append(
            "the log names no namespace: nodes the database shows only inside a subgraph "
            "are taken as that subgraph's"
        )
    side = _SideBySide(
        subgraphs, _runs_done(thread, space), _due_together(thread), _runs_opened(thread, space)
    )
    replayed = replayed or {}  # invocation -> the step of the copy it began with
    if side.paths and any(
        a.logged_ns is None and a.namespace is None and sub_nodes.get(a.node) in side.paths
        for a in attempts
    ):
        assumed.append(
            "the log names no namespace and runs of one subgraph overlapped: each task is "
            "taken as the run whose previous task ended last before it began"
        )
    # an `@entrypoint` or a raw Pregel: no `__start__` step before a later input's first task
    no_start = _no_start_step(thread, groups)
    held = _Held()  # the invocation before's (a resume goes on in its holder step)
    for inv, g in enumerate(groups):
        last_step: dict[str, int] = {}
        # the attempt before, per loop: runs side by side (`Send` workers of one subgraph)
        # interleave their lines, and a task's next effect follows its own previous one
        prev_in: dict[str, Attempt] = {}
        entry_steps: dict[str, int] = {}  # the one step of each `@entrypoint` subgraph's run
        side.begin(max((x.end_ts for x in g), default=inf))
        if inv == 0 and not (entry or no_start or _entrypoint_first(g)):
            last_step[""] = 0  # a graph's first node runs in step 1, after `__start__` (step 0)
        if inv > 0 and g:
            # update_state calls between the two invocations each saved a checkpoint one
            # step on: the next invocation goes on from the last of them.
            began = min(x.start_ts for x in g)
            ended = max((x.end_ts for x in groups[inv - 1]), default=float("-inf"))
            if not groups[inv - 1] and kinds[inv] == "resume":
                # the invocation before logged nothing (held at a static breakpoint before
                # any node ran): a resume goes on from the root checkpoints taken before it
                # began (test_command_goto_with_static_breakpoints, a bare log from exit)
                ended = began - RACE
            saved_step = max([saved_step, *(st for t, st in edit_steps if ended < t < began)])
            # and from the last root checkpoint the invocations before saved, where no root
            # line said how far they went (a resume whose lines were a subgraph's only)
            saved_step = max([saved_step, *_saved_by(root_cps, ended)])
            # a run from an earlier checkpoint goes on from the copy it began with: back
            saved_step = replayed.get(inv, saved_step)
            # and an input sent to an earlier checkpoint from that one (`_branch_inputs`)
            if (went_on := (branched or {}).get(inv)) is not None:
                saved_step = went_on
        if inv > 0:
            # Attempts without a step go on from where the previous invocation stopped: a
            # resume re-runs the step after its last checkpoint, a fresh input starts two
            # steps later (its input checkpoint, then `__start__`).
            # An `@entrypoint` has no `__start__` step: its input checkpoint, then its one task.
            last_step[""] = (
                saved_step if kinds[inv] == "resume" else saved_step + (1 if no_start else 2)
            )
        entry_step = last_step.get("", -1) + 1
        opened = min((x.start_ts for x in g), default=-inf)
        prev_start = opened  # the start of the attempt before, in this invocation
        # a resume goes on in the step that paused: a silent root task's, where the
        # invocation before paused inside the subgraph it ran (`_Held`)
        carried = (
            _paused_holder(held, saved_step, root_cps, opened)
            if inv > 0 and kinds[inv] == "resume" and inv not in replayed
            else {}
        )
        held = _Held()
        # a loop that starts its subgraphs' runs afresh: a first input, a fresh one, a run from
        # an earlier checkpoint; a resume goes on in the step that paused or was killed
        opens_runs = not entry and not no_start and (kinds[inv] == "input" or inv in replayed)
        for a in g:
            # The recorder's namespace is what the task ran in; alignment may file an attempt
            # whose checkpoint never landed under a namespace of its choosing.
            ns = space(a.logged_ns if a.logged_ns is not None else a.namespace)
            if a.logged_ns is None and not ns and a.node in sub_nodes:
                ns = sub_nodes[a.node]  # a log without namespaces: the database knows the node
                # (of graphs its task invoked one after another, the call that had begun)
                ns = _call_begun(ns, a.start_ts, thread, space)
            if a.logged_ns is None and base_space(ns) in side.paths:
                # matched by time alone to one of the side-by-side runs: the order of each
                # run's tasks tells better which (`_SideBySide`)
                ns = side.place(base_space(ns), a, ns if INSTANCE in ns else None)
            elif (
                a.logged_ns is None
                and not ns
                and a.node not in named_in_root
                # (an error handler runs where its node's task did, unless some node is
                # known to be a subgraph's)
                and (root_nodes or not namespaces.is_error_handler(a.node))
            ):
                # a node no root checkpoint names: in the subgraph run it follows while that
                # goes on, else in the loop above whose run had not ended; with no line
                # before it in a subgraph, in a subgraph whose input landed right before it
                ns = (
                    _open_loop(last_sub, a.start_ts, opened, thread, space, g)
                    if last_sub or root_nodes
                    else _opened_below(a.start_ts, prev_start, thread, space)
                )
            last_sub = ns if ns else ""
            if ns and opens_runs and "" in last_step:
                _hold_step(a, ns, inv, held, last_step, step_att, root_task_steps)
            elif ns and _holder_node(ns) in carried and "" in last_step:
                # (its root step is the one after the last one saved, not a root task's below;
                # a later resume goes on in it too, while it has not completed)
                top = ns.split(namespaces.NS_SEP)[0]
                held.steps[top] = held.running = carried[_holder_node(ns)]
                last_step[""] = max(last_step[""], held.running)
            step = a.step
            if step is None and a.task is not None:
                step = a.task.step
            if step is None and a.checkpoint is not None and a.checkpoint.step is not None:
                step = a.checkpoint.step + 1
            if (
                a.step is None
                and a.alignment != "exact"
                and step is not None
                and (
                    step < last_step.get(ns, -1)
                    or (
                        ns
                        and kinds[inv] == "input"
                        and inv > 0
                        and not replayed
                        and _made_before(a, opened)
                    )
                )
            ):
                # matched by time to a checkpoint this invocation has gone past (a later
                # invocation started again from an earlier one), or, in a subgraph, to one
                # an invocation before made where this one is a fresh input, whose tasks are
                # due at checkpoints of its own (a `checkpointer=True` graph's later run goes
                # on numbering its steps; not in a thread run from an earlier checkpoint,
                # whose copies the alignment dates): the log's order decides
                step = None
            if (
                step is None
                and id(a) in retry_of
                and id(retry_of[id(a)]) in step_of
                and step_of[id(retry_of[id(a)])][0] == ns
            ):
                # a retry, or the handler of a failure in its own loop: the failure's step
                # (a failure inside a graph the node ran has a step of that graph's; the
                # handler runs in the step that held it, `_Held.beside`)
                step = step_of[id(retry_of[id(a)])][2]
            if (
                entry
                and ns == entry
                and a.node not in ns_nodes.get(ns, set())
                and a.step in (None, entry_step)
            ):
                # logged under the entrypoint's own namespace, at the entrypoint's step and as
                # no node of a graph it invoked there (whose nodes log their own steps, from
                # 1): an `@task` call of the entrypoint, in the root's step
                ns, step = "", (a.step if a.step is not None else entry_step)
            if step is None and entry and not ns and a.node != entry:
                step = entry_step  # an `@task` call: it runs inside its entrypoint's one step
            if step is None and ns in subgraphs and ns not in last_step:
                # a subgraph's first node runs in its step 1, after `__start__`; a
                # `checkpointer=True` one's later runs go on numbering from its last run's;
                # an `@entrypoint`'s one task runs in the step after its input checkpoint
                last_step[ns] = _stable_run_opening(
                    thread, ns, a.start_ts, space,
                    ended=max((x.end_ts for x in groups[inv - 1]), default=-inf) if inv else -inf,
                ) - (ns in sub_entries)  # fmt: skip
            if step is None and ns in sub_entries:
                # an `@task` call runs inside its entrypoint's one step, as the entrypoint does
                step = entry_steps.setdefault(ns, last_step[ns] + 1)
            if step is None:
                step = last_step.get(ns, -1) + 1
                # Tasks of one superstep run side by side: a start before the running step's
                # tasks have all ended is one more task of that step (a fan-out, Send workers).
                running = step_att.get((ns, inv, step - 1), [])
                # began as the running step's tasks ended, its node made due beside theirs
                beside = bool(running) and _routed_beside(a, running, routed)
                if beside and QUEUED_UNSURE not in assumed:
                    assumed.append(QUEUED_UNSURE)
                if not ns and held.running == step - 1 and held.beside(a, step_att, inv):
                    step -= 1  # beside the subgraph a silent task of the running step runs
                elif running and a.start_ts < max(_until(b) for b in running) - 1e-6:
                    step -= 1
                elif beside and queued:
                    step -= 1  # queued behind the step's tasks: its node was due beside theirs
                elif running and _goes_on(prev_in.get(ns), a) and prev_in[ns] in running:
                    step -= 1  # the same task's next effect (``draft``, then ``apply``)
                if not any(x.startswith("some effect lines carry no step") for x in assumed):
                    assumed.append(
                        "some effect lines carry no step: taken as the next step in log order, "
                        "tasks that start while a step runs as tasks of that step"
                    )
            last_step[ns] = max(step, last_step.get(ns, step))
            prev_in[ns] = a
            prev_start = a.start_ts
            key = (ns, inv, step)
            step_att.setdefault(key, []).append(a)
            step_of[id(a)] = key
        root = [k for k in step_att if k[0] == "" and k[1] == inv]
        done = [
            k[2]
            for k in root
            if all(_step_done(a, retried, halted) for a in step_att[k])
            and (stopped or {}).get(inv, -2) != k[2]  # a task of it paused unlogged
        ]
        open_ = [k[2] for k in root if k[2] not in done]
        if open_:
            saved_step = min(open_) - 1
        elif done:
            saved_step = max(done)
    return step_att, step_of


@dataclass
class _Held:
    """The subgraph runs of one invocation whose root task logs nothing (`_hold_step`)."""

    steps: dict[str, int] = field(default_factory=dict)  # subgraph -> its holder's root step
    running: int | None = None  # the root step of the latest such holder

    def beside(
        self, a: Attempt, step_att: dict[tuple[str, int, int], list[Attempt]], inv: int
    ) -> bool:
        """Whether root task `a` runs in the running holder step: it starts while a subgraph
        run that step holds still runs, or it is the error handler of the task that ran one."""
        tops = {top for top, step in self.steps.items() if step == self.running}
        inside = [
            b
            for k, v in step_att.items()
            if k[1] == inv and k[0].split(namespaces.NS_SEP)[0] in tops
            for b in v
        ]
        if a.node.startswith(namespaces.ERROR_HANDLER):
            # the error handler of the task that ran the graph runs in that task's step
            node = a.node.removeprefix(namespaces.ERROR_HANDLER)
            if any(base_space(top).partition(namespaces.CALL)[0] == node for top in tops):
                return True
        return bool(inside) and a.start_ts < max(_until(b) for b in inside) - 1e-6


def _holder_node(ns: str) -> str:
    """The root node whose task ran the subgraph run `ns` (the first level of its key)."""
    return base_space(ns.split(namespaces.NS_SEP)[0]).partition(namespaces.CALL)[0]


def _paused_holder(
    held: _Held, saved: int, roots: Sequence[Checkpoint], opened: float
) -> dict[str, int]:
    """Root node -> the root step a resume's lines in the subgraphs its task ran go on in:
    the previous invocation's running holder step, where it stopped before that step
    completed (a step after the last one saved); else the step after the newest root
    checkpoint saved before the resume began, for the tasks due there (a resume runs them
    again). A root task after those lines runs a step later (test_doubly_nested_interrupts:
    ``parent_2`` after the answered nested graphs, one step after the silent ``child`` that
    held them, not in its step; test_parallel_interrupts_double, whose first invocation
    logged nothing, ``cleanup`` after the second worker's answer)."""
    if held.running is not None and held.running > saved:
        return {_holder_node(top): step for top, step in held.steps.items() if step == held.running}
    saved_before = [(t, c) for c in roots for t in [taken_at(c)] if t is not None and t < opened]
    if not saved_before:
        return {}
    latest = max(saved_before, key=lambda tc: tc[0])[1]
    if latest.step is None:
        return {}
    return {t.node: latest.step + 1 for t in latest.tasks if t.node}


def _saved_by(roots: Sequence[Checkpoint], ended: float) -> list[int]:
    """The steps of the root checkpoints taken by the time `ended` (an invocation's last
    line; its save on the way out is stamped just after it)."""
    return [
        c.step
        for c in roots
        if c.step is not None and (t := taken_at(c)) is not None and t <= ended + RACE
    ]


def _made_before(a: Attempt, opened: float) -> bool:
    """Was the checkpoint `a` was aligned with taken before its invocation began?"""
    made = taken_at(a.checkpoint) if a.checkpoint is not None else None
    return made is not None and made < opened - RACE


def _hold_step(
    a: Attempt,
    ns: str,
    inv: int,
    held: _Held,
    last_step: dict[str, int],
    step_att: dict[tuple[str, int, int], list[Attempt]],
    root_task_steps: dict[str, int],
) -> None:
    """A subgraph's first line in an invocation, while no root task with lines runs: a root
    task that logs nothing ran that subgraph (a compiled graph added as a node), and it takes
    a root step of its own, so the root's next task runs a step later. A log without steps
    showed it: test_fork_creates_branch_in_subgraph, the run from an edit where `sub_graph`
    was due, killed in `parent_end` before its checkpoint landed (read as the step after
    the edit, one checkpoint short). Not when the node its namespace names logged in the
    running step (a node that logs, then invokes a graph: test_interrupt_subgraph_reenter_
    checkpointer_true). Another subgraph that starts while that one runs is run by a task
    of the same step (parallel subgraph nodes). A run whose namespace names the root task
    that ran it (`parent_node:<task id>|1`) is in that task's step, where the database has
    it: a silent task that invokes two graphs one after the other
    (test_multiple_subgraphs_checkpointer: the second run began after the first ended, and
    was read as a root step of its own, one checkpoint too many under sync)."""
    top = ns.split(namespaces.NS_SEP)[0]
    if top in held.steps:
        return
    own = namespaces.segments(a.namespace)[0][1] if a.namespace else None
    if own is not None and own in root_task_steps:
        step = root_task_steps[own]
        held.steps[top] = held.running = step
        last_step[""] = max(last_step[""], step)
        return
    holder = base_space(top).partition(namespaces.CALL)[0]  # the node its namespace names
    root_now = step_att.get(("", inv, last_step[""]), [])
    if any(b.node == holder for b in root_now):
        return  # the task that ran it logs, in the running step (before it calls the graph)
    if any(b.start_ts - 1e-6 <= a.start_ts <= _until(b) + 1e-6 for b in root_now):
        return  # beside a root task that logs, in its step
    step = held.running
    if step is None or step != last_step[""] or not held.beside(a, step_att, inv):
        step = last_step[""] + 1
    held.steps[top] = held.running = last_step[""] = step


def _kill_moment(
    ending: Ending,
    kill_attempt: Attempt | None,
    crash: float | None,
    recording: Recording,
    retry_of: dict[int, Attempt],
    retried: set[int],
    attempts: list[Attempt],
    used: list[str],
    assumed: list[str],
) -> tuple[float | None, float, float | None]:
    """(seconds into the killed attempt, how much later it may have been, the crash moment):
    given by the recording (a kill-test manifest), else bounded by the log's last line."""
    kill_offset: float | None = None
    kill_unsure = 0.0
    if ending == "killed" and kill_attempt is not None:
        aimed = recording.kill_node in (None, kill_attempt.node) or (
            id(kill_attempt) in retry_of and retry_of[id(kill_attempt)].node == recording.kill_node
        )  # the kill aimed at a node's start lands in its retry, or in its error handler
        holder = _aimed_holder(kill_attempt, recording, attempts) if not aimed else None
        # or the node the kill was aimed at ran inside the span still open and had ended,
        # asking or returning, while the span waited
        inner = (
            _aimed_inside(kill_attempt, recording, attempts)
            if not aimed and holder is None
            else None
        )
        anchor = holder or inner
        if anchor is not None and recording.kill_offset is not None:
            # a span of the node the kill was aimed at, still open around the task in flight
            # (a trace shows the task that ran the graphs), or that node inside the span of
            # the task in flight: the kill came that long after it started
            crash = max(crash or 0.0, anchor.start_ts + recording.kill_offset)
            kill_offset = crash - kill_attempt.start_ts
            where = (
                f"whose span holds {kill_attempt.node}'s"
                if holder is not None
                else f"inside {kill_attempt.node}'s span, still open"
            )
            used.append(
                f"kill moment: {recording.kill_offset:g} s after {anchor.node} started "
                f"({recording.origin or 'given'}), {where}: "
                f"{kill_offset:.2f} s into {kill_attempt.node}"
            )
            return kill_offset, kill_unsure, crash
        if recording.kill_offset is not None and not aimed:
            assumed.append(
                f"the kill was aimed {recording.kill_offset:g} s after {recording.kill_node} started, "
                f"which logs no effect; the kill moment is taken from the log instead"
            )
        if recording.kill_offset is not None and aimed:
            kill_offset = recording.kill_offset
            used.append(
                f"kill moment: {kill_offset:g} s into {kill_attempt.node} ({recording.origin or 'given'})"
            )
            # The kill was aimed at the task's start: its first effect, and for a task that
            # RetryPolicy retried, its first attempt's (each retry runs it from its top).
            # An error handler the kill was aimed at counts from its own start, not from the
            # failure it handles (error_handlers_per_node under `ainvoke` on Postgres at 0.3 s,
            # killed 0.2 s into `__error_handler__fail_b`: dated at its start, 0.49 s after
            # `fail_b`'s, async was said to lose the step's checkpoint, which had landed).
            head, crossed = kill_attempt, False
            while True:
                head = _task_head(head, attempts)
                before = retry_of.get(id(head))
                if before is None or (
                    before.node != head.node and head.node == recording.kill_node
                ):
                    break
                head, crossed = before, True
            if head is not kill_attempt and not crossed and head.lines:
                kill_offset = max(0.0, kill_offset - (kill_attempt.start_ts - head.start_ts))
                used.append(
                    f"the killed task logged {head.lines[0].label} before the effect in flight: "
                    f"the kill moment counts from the task's start, {kill_offset:.2f} s into "
                    "the one running"
                )
            elif head is not kill_attempt:
                kill_offset = max(0.0, kill_offset - (kill_attempt.start_ts - head.start_ts))
                used.append(
                    f"the killed task was retried inside its step: the kill moment counts from its "
                    f"first attempt, {kill_offset:.2f} s into the one running"
                )
            crash = max(crash or 0.0, kill_attempt.start_ts + kill_offset)
        else:
            kill_offset = (crash or kill_attempt.start_ts) - kill_attempt.start_ts
            kill_unsure = _usual_duration(attempts, kill_attempt, retried)
            assumed.append(
                f"kill moment: the last recorded line, {kill_offset:.2f} s into {kill_attempt.node} "
                "(the real kill can only be later"
                + (
                    f"; up to {kill_unsure:.2f} s later, as long as its longest finished task took"
                    if kill_unsure
                    else ""
                )
                + ")"
            )
    return kill_offset, kill_unsure, crash


def _aimed_holder(
    kill_attempt: Attempt, recording: Recording, attempts: list[Attempt]
) -> Attempt | None:
    """The attempt of the node a kill was aimed at, in flight and begun before the last task to
    start (a trace's span of a task that runs graphs, around the graphs' spans), if any."""
    if not recording.kill_node:
        return None
    around = [
        a
        for a in attempts
        if a.node == recording.kill_node
        and a.outcome == "in flight"
        and a.start_ts <= kill_attempt.start_ts
        and a is not kill_attempt
    ]
    return max(around, key=lambda a: a.start_ts) if around else None


def _aimed_inside(
    kill_attempt: Attempt, recording: Recording, attempts: list[Attempt]
) -> Attempt | None:
    """The last attempt of the node a kill was aimed at that began inside the span still open
    at the kill (a trace's span of a task that runs a graph) and had ended there, asking or
    returning, where the aimed moment is not before the log's last line: the span waited
    (for its graph's puts) when the kill came (stateful_subgraph_forked_turns at 0.25 s from
    async with a trace, killed 0.2 s after ``step_b`` asked inside ``sub_node``: dated from
    the last line, sync was said to write 5 lines again where its run, past the pause before
    the kill, wrote 6). None otherwise."""
    if not recording.kill_node or recording.kill_offset is None:
        return None
    inside = [
        a
        for a in attempts
        if a.node == recording.kill_node
        and a.outcome in ("finished", "interrupted")
        and a.start_ts >= kill_attempt.start_ts
        and a is not kill_attempt
    ]
    if not inside:
        return None
    last = max(inside, key=lambda a: a.start_ts)
    latest_line = max(line.ts for a in attempts for line in a.lines)
    return last if last.start_ts + recording.kill_offset >= latest_line else None


def _killed_while_pausing(
    ending: Ending, last: list[Attempt], thread: Thread | None, recording: Recording
) -> float | None:
    """When the last invocation reads as paused but the recording says it was killed a given
    time after a node started that the database shows paused, and that logged no line of its
    own in it (it asks before it logs): the end of the last line, after which that node
    started (`schedule` dates the kill from it, per mode: under sync the node waits for the
    step's put first). The pause is saved at once, and a write that takes longer than the time
    to the kill was lost with it (round 37's stateful_subgraph_forked_turns at 0.25 s a
    write, killed 0.2 s in). A trace shows the node's own span, which paused with no line
    of its own inside: the kill is dated from the lines that ended before it began (not from
    the spans of the tasks around it, which end as it pauses). None otherwise."""
    if ending != "paused" or not last or recording.kill_offset is None:
        return None
    node = recording.kill_node
    if not node or node not in _paused_nodes(thread, ("__interrupt__",)):
        return None
    own = [a for a in last if a.node == node]
    if not all(a.outcome == "interrupted" and span_only(a) for a in own):
        return None
    if not own and killed_in_a_later_invocation(last, recording):
        return None
    began = min((a.start_ts for a in own), default=inf)
    before = [a.end_ts for a in last if a.node != node and a.end_ts <= began]
    return max(before, default=None)


def _dated_pause_moment(
    ending: Ending, last: list[Attempt], pause_kill: float | None, recording: Recording
) -> float | None:
    """`Evidence.pause_moment`: when the recording dates the kill of a last invocation that
    reads as paused, a given time after the aimed node first started in it, at or after its
    last line (a node that logs, whose lines had all ended). None where the pause's own
    kill is dated otherwise (`_killed_while_pausing`), or a line came after the moment (the
    kill came in a later invocation: `killed_in_a_later_invocation`)."""
    if ending != "paused" or pause_kill is not None or recording.kill_offset is None:
        return None
    aimed = [a.start_ts for a in last if a.node == recording.kill_node]
    if not aimed:
        return None
    moment = min(aimed) + recording.kill_offset
    return moment if moment >= max(line.ts for a in last for line in a.lines) else None


def killed_in_a_later_invocation(last: list[Attempt], recording: Recording) -> bool:
    """Did the kill, aimed a time after a node started that logs nothing itself but ran a
    graph whose lines the last invocation holds, come after lines that graph wrote later than
    that? That node started before the lines it holds, so the aimed moment cannot be in this
    invocation: the kill came in a later one, which logged nothing and saved no checkpoint
    (a resume whose answer reached no paused task, which paused again), after this one's
    pause was saved. LangGraph 1.0.10 under `ainvoke` at 0.6 s a write,
    test_parallel_interrupts_double's shape, killed 0.2 s after `child_graph` started in the
    fifth invocation: the answers by interrupt id never reached the second worker, whose
    nodes paused again with no line, and the kill was dated 0.2 s after the third
    invocation's last line, while it paused: under exit that pause was said lost (2 tasks
    and 6 lines again, where every real run re-ran nothing)."""
    node, offset = recording.kill_node, recording.kill_offset
    if not node or offset is None:
        return False
    held = [
        a
        for a in last
        if any(seg == node for seg, _tid in namespaces.segments(a.namespace or a.logged_ns))
    ]
    if not held:
        return False
    latest_start = max(a.start_ts for a in held)
    return max(a.end_ts for a in last) > latest_start + offset + RACE


def span_only(a: Attempt) -> bool:
    """Are all of `a`'s lines a trace's span of its task (no effect line of its own)?"""
    return bool(a.lines) and all(line.describes_task for line in a.lines)


def _killed_after_failure(
    last: list[Attempt], recording: Recording, thread: Thread | None = None
) -> bool:
    """Did the kill the recording names (a kill-test manifest: only a run that was killed
    has a kill moment) come after the aimed node's attempt had failed, by more than the
    kill's own latency? Its invocation had then not ended by raising: that would have ended
    the run before the kill. An aimed node that failed before its first line (no attempt in
    the last invocation; the newest root checkpoint holds its task's error) failed as it
    started: the kill came that long after the failure (overwrite_parallel_error's shape on
    LangGraph 0.6.11, whose ``Overwrite`` import fails in both parallel nodes, killed 0.4 s
    after ``node_c`` started, at 0.9 s a write: read as raised out, async was said to keep
    the second input's 3 checkpoints, whose puts its way out was still waiting for)."""
    if recording.kill_offset is None or not recording.kill_node:
        return False
    aimed = [a for a in last if a.node == recording.kill_node]
    if not aimed:
        return recording.kill_offset > RACE and _failed_unlogged(recording.kill_node, thread)
    if aimed[-1].outcome != "failed":
        return False
    a = aimed[-1]
    return a.start_ts + recording.kill_offset > a.end_ts + RACE


def _aimed_unlogged_start(
    last: list[Attempt], recording: Recording, thread: Thread | None, entry: str | None
) -> float | None:
    """Where the kill was aimed a time after a root node started that has no line in the
    last invocation, and every logged task of it had ended: when that node's step began on
    the recorded clock before any wait for a put, the end of the last line of the root loop.
    Its first line never came (it failed as it started, or logs only later). Not a node
    that ran the lines (an entrypoint, a node whose graphs logged them:
    `_kill_in_silent_holder`; in a log that names no namespace, one the database shows ran
    a graph), and one due at the newest root checkpoint the database keeps."""
    node = recording.kill_node
    if recording.kill_offset is None or not node or not last or node == entry:
        return None
    if any(
        a.node == node or (a.logged_ns and namespaces.root_runner(a.logged_ns)[0] == node)
        for a in last
    ):
        return None
    latest = thread.root.latest if thread is not None and thread.root is not None else None
    if latest is None or not any(t.node == node for t in latest.tasks):
        return None
    if thread is not None and any(
        name and namespaces.root_runner(name)[0] == node for name in thread.namespaces
    ):
        return None
    root = [a.end_ts for a in last if not (a.logged_ns or a.namespace) and a.end_ts is not None]
    return max(root) if root else None


def _failed_unlogged(node: str, thread: Thread | None) -> bool:
    """Does a task of `node` due at the newest root checkpoint hold an error (it failed)?"""
    root = thread.root if thread is not None else None
    latest = root.latest if root is not None else None
    return latest is not None and any(t.node == node and t.status == "failed" for t in latest.tasks)


def _raise_undated(last: list[Attempt], attempts: list[Attempt], recording: Recording) -> bool:
    """Could a last invocation read as raised out have died after its failure instead? Under
    sync each step's put was waited for, so its database is the same either way, when nothing
    dates the kill (no kill-test manifest), the process wrote nothing after (`went_on`), and
    the failure is the log's last line, or logged no line at all (a node that failed as it
    started: overwrite_parallel_error's shape on 0.6.11, killed 0.4 s after its failing
    ``node_c`` started while async's way out still waited for puts). (Under async the puts
    in flight tell: `_raise_never_got_out`; under exit, the save on the way out.)"""
    if recording.mode != "sync" or recording.kill_offset is not None or recording.went_on:
        return False
    failed = [a.end_ts for a in last if a.outcome == "failed"]
    ends = [line.ts for a in attempts for line in a.lines]
    if not failed:
        return bool(ends)  # the failure the database holds came after the log's last line
    return bool(ends) and max(failed) >= max(ends)


def _raise_never_got_out(
    last: list[Attempt],
    puts: Sequence[Put],
    inv: int,
    recording: Recording,
    kinds: Sequence[InvocationKind],
    cp_at: dict[tuple[str, int, int], Checkpoint],
) -> bool:
    """Did the invocation whose task failed die before the failure left the graph?

    Under async the loop waits for every put it submitted before a raise leaves it
    (`BackgroundExecutor` waits on its way out), so a step of that invocation that ended
    before the failure, its checkpoint absent from the database, was still being written when
    the process died: a kill on the way out (an error handler's graph waiting for its
    subgraph's puts: test_node_error_handler_handles_subgraph_internal_failure_async at 0.5 s
    a write). Exit saves the root graph on its way out, raise or not (`_suppress_interrupt`):
    a fresh input that left no root checkpoint never got out. (A resume's save there keeps
    the id it loaded, so it leaves no new checkpoint to tell by.)"""
    failed = [a.end_ts for a in last if a.outcome == "failed" and a.end_ts is not None]
    if recording.mode == "exit":
        # (also where the failure logged no line: a node that failed as it started, the
        # database's failure an earlier invocation's save: overwrite_parallel_error on 0.6.11)
        fresh = inv == 0 or (inv < len(kinds) and kinds[inv] == "input")
        return fresh and not any(k[0] == "" and k[1] == inv for k in cp_at)
    if not failed:
        return False
    if recording.mode != "async":
        return False  # (sync waited for each step's put: none can be missing either way)
    # A loop's puts land in the order it made them: one missing before a later one that
    # landed says the reading is wrong (an exit database read as async), not a kill.
    landed: dict[tuple[str, int], int] = {}
    for p in puts:
        if p.checkpoint is not None and not p.edit:
            landed[(p.ns, p.inv)] = max(p.step, landed.get((p.ns, p.inv), p.step))
    return any(
        p.inv == inv
        and p.checkpoint is None
        and not p.edit
        and p.submit <= max(failed)
        and landed.get((p.ns, p.inv), -2) < p.step
        for p in puts
    )


def _kill_in_silent_holder(
    last: list[Attempt],
    crash: float | None,
    recording: Recording,
    used: list[str],
    entry: str | None = None,
) -> tuple[float | None, float | None]:
    """The kill moment when every logged task had ended and the kill was aimed at a node that
    logs nothing itself but runs graphs (a node calling ``subgraph.invoke()``): that node
    started just before the first line under its namespace in this invocation (under sync,
    after the subgraph's `__start__` checkpoint it waits for). With when that node started
    (`Evidence.kill_anchor`), or None where the moment is the log's own."""
    if recording.kill_offset is None or not recording.kill_node:
        return crash, None
    under = [
        a.start_ts
        for a in last
        if a.logged_ns and namespaces.root_runner(a.logged_ns)[0] == recording.kill_node
    ]
    if not under and entry is not None and recording.kill_node == entry:
        # the root runs that node alone (an entrypoint): every line of its invocation is
        # under it, a log's that names no namespace too
        under = [a.start_ts for a in last]
    if not under:
        return crash, None
    lead = 2 * (recording.latency or 0.0) if recording.mode == "sync" else 0.0
    how = "which logs nothing itself: dated by the first line of the graphs it ran"
    return _aimed_after(min(under) - lead, crash, recording, used, how)


def _kill_after_aimed_end(
    last: list[Attempt], crash: float | None, recording: Recording, used: list[str]
) -> tuple[float | None, float | None]:
    """The kill moment when every logged task had ended and the kill was aimed a time after
    a node started that logged and ended before it: that time after the node's last start in
    the invocation (`Evidence.kill_anchor`), where that is after the log's last line; else
    the log's own moment. Under another mode the steps around it are re-timed, and the kill
    with that start, not with the lines after it (LangGraph 1.2.24 under `ainvoke` on Postgres
    at 0.15 s a write, test_dynamic_interrupt_subgraph's shape killed 0.84 s after `do`
    started, 0.04 s after it ended: dated from the exit trace's last line, the end of the span
    of `tool_two`, which under sync waits for the subgraph's last put, sync was said to keep
    that put, 5-6 kept, where the real sync run kept 4)."""
    if recording.kill_offset is None or not recording.kill_node or crash is None:
        return crash, None
    aimed = [a for a in last if a.node == recording.kill_node and a.outcome == "finished"]
    if not aimed:
        return crash, None
    began = max(a.start_ts for a in aimed)
    return _aimed_after(began, crash, recording, used, "after it had ended")


def _aimed_after(
    began: float, crash: float | None, recording: Recording, used: list[str], how: str
) -> tuple[float | None, float | None]:
    """The kill moment `recording.kill_offset` after `began`, when the node the kill was
    aimed at started, and `began` as the anchor (`Evidence.kill_anchor`), where that comes
    after `crash`, the log's own moment; else the log's moment and no anchor. `how` says,
    among what the model used, how that start was found."""
    moment = began + float(recording.kill_offset or 0.0)
    if crash is not None and moment <= crash:
        return crash, None
    used.append(
        f"kill moment: {recording.kill_offset:g} s after {recording.kill_node} started "
        f"({recording.origin or 'given'}), {how}"
    )
    return moment, began


@dataclass
class _Placed:
    """Every attempt's (namespace, invocation, step), and where each nested loop sits."""

    step_att: dict[tuple[str, int, int], list[Attempt]]
    step_of: dict[int, tuple[str, int, int]]
    cp_at: dict[tuple[str, int, int], Checkpoint]
    orphan_times: dict[tuple[str, int, int], float]
    holder_of: dict[tuple[str, int, int], int]
    run_starts: dict[tuple[str, int, int], float]
    run_ends: dict[tuple[str, int, int], float]
    containers: set[tuple[str, int, int]]
    said: list[str]  # what the placing assumed, in words


@dataclass
class _Placing:
    """The inputs of `_assign_steps` and `_place_nested`, to place the attempts again under
    other namespace keys (`_task_levels`)."""

    groups: list[list[Attempt]]
    kinds: list[InvocationKind]
    retried: set[int]
    retry_of: dict[int, Attempt]
    thread: Thread | None
    halted: set[int]
    stopped: dict[int, int | None]
    replayed: dict[int, int]
    db_cps: Sequence[Checkpoint]
    stamps: dict[str, float]
    inv_of: Callable[[float], int]
    copies: dict[int, tuple[int, float]]
    functional: bool
    entry_holds: bool
    queued: bool = False
    branched: dict[int, int | None] = field(default_factory=dict)
    """`_branch_inputs`: fresh inputs sent to an earlier checkpoint, and where each goes on."""

    def place(self, space: Callable[[str | None], str]) -> _Placed:
        """Place every attempt and checkpoint under the keys `space` gives."""
        said: list[str] = []
        step_att, step_of = _assign_steps(
            self.groups, self.kinds, self.retried, self.retry_of, self.thread, said,
            self.halted, self.stopped, space, self.replayed, self.queued, self.branched,
        )  # fmt: skip
        cp_at: dict[tuple[str, int, int], Checkpoint] = {}
        # the copy (or edit) a run from an earlier checkpoint began with belongs to that run
        began_with = {
            c.checkpoint_id: inv
            for inv, (_step, t) in self.copies.items()
            for c in self.db_cps
            if not c.checkpoint_ns and abs(self.stamps[c.checkpoint_id] - t) < 1e-6
        }
        for c in self.db_cps:
            if c.step is None:
                continue
            inv = began_with.get(c.checkpoint_id, self.inv_of(self.stamps[c.checkpoint_id]))
            cp_at[(space(c.checkpoint_ns), inv, c.step)] = c
        orphan_times: dict[tuple[str, int, int], float] = {}
        attempts = [a for g in self.groups for a in g]
        for w in self.thread.orphan_writes if self.thread else []:
            t = uuid6_time(w.checkpoint_id)
            owner = next((a for a in attempts if a.task_id and a.task_id == w.task_id), None)
            if t is None or owner is None or id(owner) not in step_of:
                continue
            ns, inv, step = step_of[id(owner)]
            orphan_times.setdefault((ns, inv, step - 1), t)
        placed = _Placed(step_att, step_of, cp_at, orphan_times, {}, {}, {}, set(), said)
        placed.containers = _place_nested(
            step_att,
            step_of,
            cp_at,
            self.stamps,
            {space(c.checkpoint_ns) for c in self.db_cps},
            {inv for inv, k in enumerate(self.kinds) if k == "input"},
            placed.holder_of,
            placed.run_starts,
            placed.run_ends,
            self.halted,
            self.functional,
            self.replayed,
            self.entry_holds,
        )
        return placed


def _task_levels(
    placed: _Placed, attempts: list[Attempt], db_cps: Sequence[Checkpoint]
) -> set[str]:
    """Namespace levels (full, with task ids) that are a task's, no loop: every line logged
    under one was an `@task` call, moved to the loop its caller ran in (`_place_nested`), no
    checkpoint was saved there, and a graph below it was placed as a loop of its own.

    A call's lines name its caller's namespace (``parent:<id>``, the `@entrypoint`'s task),
    and a graph the call invoked names the call's (``parent:<id>|call:<id>``): that graph is
    held by the step the call ran in, one level below the loop that ran the call, not two
    (test_multiple_subgraphs_functional: ``call_multiple_subgraphs`` invokes ``add`` and
    ``multiply``; a resume runs the call again, and ``add``, whose run had ended, is not)."""
    keys = {k[0] for k in placed.step_att} | {k[0] for k in placed.cp_at}
    saved = {c.checkpoint_ns for c in db_cps}
    out: set[str] = set()
    for a in attempts:
        full = a.logged_ns if a.logged_ns else a.namespace
        segs = namespaces.levels(full)
        key = placed.step_of.get(id(a), ("",))[0]
        for i in range(len(segs) - 1):
            prefix = namespaces.NS_SEP.join(segs[: i + 1])
            if namespaces.NS_END not in segs[i] or prefix in saved:
                continue
            name = namespaces.names(prefix)
            if name not in keys and key.startswith(f"{name}{namespaces.NS_SEP}"):
                out.add(prefix)
    return out


def gather(
    thread: Thread | None,
    attempts: list[Attempt],
    status: str,
    recording: Recording,
    *,
    unsure_raised: bool = False,
    flip_kinds: bool | Collection[int] = False,
    unsaved: bool = False,
    queued: bool = False,
    killed_raising: bool = False,
    replay_earlier: bool = False,
    trust_puts: bool = False,
) -> Evidence:
    """Arrange the recording into invocations, supersteps and checkpoint puts.

    `unsure_raised`: read a subgraph step that `_raised_out` cannot decide as left by raising
    (no put) instead of as put; the what-if gathers both readings (`Evidence.raised_unsure`).
    `flip_kinds`: read the invocations only node names told apart (`Evidence.kinds_weak`)
    the other way, fresh input for resume and back (all of them, or those named).
    `unsaved`: read the graphs `Evidence.unsaved_unsure` names as graphs that save nothing.
    `queued`: read a task that `QUEUED_UNSURE` describes as one more task of the running
    step (`Evidence.queued_unsure` says whether the log has one).
    `killed_raising`: read a last invocation that raised as killed after its failure
    (`Evidence.raise_unsure`). `replay_earlier`: read a run from an earlier checkpoint that
    saved nothing, by a release that saves no copy, as begun one checkpoint earlier, with
    tasks that logged nothing (`Evidence.replay_start_unsure`). `trust_puts`: an inferred sync
    or async reading takes a missing checkpoint as a step that never completed, as a given
    mode does (`Evidence.puts_kept`)."""
    used: list[str] = []
    assumed: list[str] = []
    db_cps = _db_checkpoints(thread)
    retries = retried_in_step(attempts)
    handlers = handled_failures(attempts, runners_of(db_cps))
    handled = {id(a) for a in handlers.values()} | _failed_around(attempts, handlers)
    # A failure retried in its step, or handled by its node's error handler, ends neither
    # its step nor its invocation.
    retried = set(retries) | handled
    retrying = _killed_while_retrying(attempts, retried, thread)
    if retrying:
        assumed.append(
            "the last attempt of a task failed and the database holds no error for it: a raise "
            "saves one, so the process was killed while LangGraph waited to retry it"
        )
    pauses = _pauses(thread)
    paused_nodes = _paused_nodes(thread)
    root_inputs = _root_inputs(db_cps)  # an entrypoint thread's inputs: one each
    # A failure its caller caught (an entrypoint's `try` around a call) or its task handled
    # (a ToolNode's error message) ends neither its step nor its invocation either.
    by_start = sorted(attempts, key=lambda x: x.start_ts)
    # A failure a node's error handler took is not one of them: the handler is what went on.
    failed_calls = _caught_failures(by_start, _entrypoint_node(thread) is not None) - handled
    root_cps = [c for c in db_cps if not c.checkpoint_ns]
    caught = failed_calls | (_handled_in_task(by_start, pauses, root_cps) - handled)
    if caught:
        used.append(
            f"{len(caught)} failed effect(s) the process went on from at once (a caught call, a "
            "tool error the ToolNode handled): not a raise"
        )
        retried |= caught
    groups = _invocations(attempts, retried | retrying, pauses, paused_nodes)
    stopped_nodes = _stopped_before(thread, groups) - paused_nodes
    if stopped_nodes:  # the invocations as the pauses no write shows split them
        paused_nodes |= stopped_nodes
        groups = _invocations(attempts, retried | retrying, pauses, paused_nodes)
    if _silent_first(thread, attempts):
        groups = [[], *groups]
        used.append(
            "a Command was sent at a checkpoint taken before the log's first line: an earlier "
            "invocation stopped there without logging (a static breakpoint), then was resumed"
        )
    forks = replay_forks(db_cps)
    branched_by_edit = branch_edits(db_cps, forks)
    silent, idle = _silent_replays(groups, db_cps, forks | branched_by_edit)
    for inv in sorted(silent, reverse=True):
        groups.insert(inv, [])
    after_idle = _fresh_after_idle(groups, silent, idle, db_cps, forks | branched_by_edit)
    if len(silent) > len(idle):
        used.append(
            f"{len(silent) - len(idle)} run(s) from an earlier checkpoint paused before logging "
            "anything: the copy each began with holds the pause, and the next invocation "
            "answered it"
        )
    if idle:
        used.append(
            f"{len(idle)} run(s) from a checkpoint with nothing due ran nothing and logged nothing: "
            "each saved only its copy (in every mode), and the thread went on from it"
        )
    raised, new_marks, at_apply, maybe_at_apply = _raised_after_lines(groups, thread)
    if new_marks:
        # every reading before this one took those tasks as finished: read again, so that
        # this gathering and every later one read them alike (the mark stays on the attempt)
        return gather(
            thread, attempts, status, recording,
            unsure_raised=unsure_raised, flip_kinds=flip_kinds, unsaved=unsaved, queued=queued,
            killed_raising=killed_raising, replay_earlier=replay_earlier, trust_puts=trust_puts,
        )  # fmt: skip
    if raised:
        used.append(raised)
    halted = _halted(
        groups,
        paused_nodes,
        [a for a in attempts if id(a) in retried | retrying],
        [t for c in root_inputs for t in [taken_at(c)] if t is not None],
        _went_past(thread),
        _root_only_nodes(db_cps),
        root_cps,
    )
    if halted:
        used.append(
            "a task began again from its top in a later invocation (its work before "
            "interrupt() logged twice): its earlier run paused and its step did not complete"
        )
    if retries:
        used.append(
            f"{len(retries)} failed attempt(s) retried inside their step (RetryPolicy): "
            "the same task started again by the same process"
        )
    retry_of = {id(b): a for a in attempts if id(a) in retries for b in [retries[id(a)]]}
    # Failures a handler of the task that ran their graph took: the raise left their graph's
    # loop, whose step never completed (no put), though it ended no invocation.
    by_id = {id(a): a for a in attempts}
    raised_through = {
        id(f) for hid, f in handlers.items() if not namespaces.handles(by_id[hid].node, f.node)
    }
    if handlers:
        used.append(
            f"{len(handlers)} failure(s) handled by the node's error handler, a task of the "
            "same step: the failure's writes are saved before the handler runs"
        )
    if attempts:
        used.append(
            f"effects log: {sum(len(a.lines) for a in attempts)} lines in {len(attempts)} task attempts"
        )
    else:
        assumed.append("no effects log lines: task timings come from checkpoint times only")
    if db_cps:
        used.append(f"database: {len(db_cps)} checkpoints with their ts")
    if not groups:
        groups = [[]]
    input_edits = _input_edits(db_cps)
    edits = [
        t
        for c in db_cps
        if not c.checkpoint_ns and (c.source in EDIT_SOURCES or c.checkpoint_id in input_edits)
        for t in [taken_at(c)]
        if t is not None
    ]
    if len(edits) > len(forks):
        used.append(
            f"{len(edits) - len(forks)} checkpoint(s) saved by update_state between "
            "invocations: saved in every durability mode, the run after one goes on from it"
        )
    if forks:
        used.append(
            f"{len(forks)} run(s) from an earlier checkpoint (time travel): each began a branch "
            "with a copy of that checkpoint, saved as an input checkpoint is (not under exit), "
            "and a resume goes on along the newest branch"
        )
    one_entry_input = _entrypoint_node(thread) is not None and len(root_inputs) == 1
    input_times = [t for c in root_inputs for t in [taken_at(c)] if t is not None]
    weak: set[int] = set()
    alike: set[int] = set()
    interrupted = _paused_nodes(thread, ("__interrupt__",))  # paused, not failed
    entry = _entrypoint_node(thread)
    if entry in interrupted:  # an entrypoint's body paused: its calls' lines stand for it
        interrupted |= {a.node for a in attempts}
    copy = saves_fork_copy(recording)
    kinds = _kinds(
        groups, retried, halted, edits, one_entry_input, input_times, weak, interrupted, root_cps,
        after_idle, alike, copy,
    )  # fmt: skip
    _kinds_from_saved_ends(groups, kinds, weak, root_cps, _no_start_step(thread, groups), edits)
    copies = _replay_copies(groups, db_cps, forks, branched_by_edit)
    replayed = {inv: step for inv, (step, _t) in copies.items()}
    lost_copy: tuple[int, int] | None = None
    if not copy:
        # the database names the checkpoint such a run went on from: its first one's parent
        for inv, step in _runs_from_older(groups, root_cps, replayed).items():
            replayed[inv] = step
            lost_copy = lost_copy or (inv, step)
            used.append(
                f"invocation {inv + 1} ran from the earlier checkpoint of step {step}: its first "
                "checkpoint is a child of that one, not of the newest before it began, and the "
                "release that wrote it saves no copy first (the run goes on from it)"
            )
    replay_start_unsure = False
    silent_step: tuple[int, int] | None = None  # (invocation, step) run by silent tasks only

    def start_of(found: tuple[int, int] | None) -> tuple[int, int] | None:
        """Where a copy-less run from an earlier checkpoint that saved nothing began: where
        its first logged task was due, or (`replay_earlier`) one checkpoint before, at tasks
        that logged nothing (`_silent_start_before`): their step then stands before the
        logged ones (`silent_step`), which keep the steps they were read in."""
        nonlocal replay_start_unsure, silent_step
        if found is None or copy:
            return found
        if not _silent_start_before(groups[found[0]], root_cps, found[1]):
            return found
        replay_start_unsure = True
        if not replay_earlier:
            return found
        # the silent tasks' step is the one the run was read to begin at: its checkpoint
        # is the put they made (and the logged tasks' steps stay as read)
        silent_step = found
        assumed.append(REPLAY_START_UNSURE)
        return found

    found_copy = start_of(_lost_copy(groups, kinds, replayed, root_cps, copy=copy))
    if found_copy is not None:
        lost_copy = found_copy
        replayed[lost_copy[0]] = lost_copy[1]
        used.append(_lost_copy_said(lost_copy[0], "and no input starts with", copy))
    for inv in replayed:
        # it sent no input (``invoke(None, config)`` from that checkpoint): it goes on from
        # the copy as a resume goes on from the latest checkpoint
        kinds[inv] = "resume"
        weak.discard(inv)
        alike.discard(inv)
    flipped = weak if flip_kinds is True else weak & set(flip_kinds or ())
    if flipped:
        for i in flipped:
            kinds[i] = "input" if kinds[i] == "resume" else "resume"
        assumed.append(
            ("the log names no task ids" if flipped - alike else "nothing of it was saved")
            + ": invocation(s) "
            + ", ".join(str(i + 1) for i in sorted(flipped))
            + " read the other way (a fresh input taken for a resume, or a resume for one)"
        )
        # Read as a resume, a last invocation that began where the thread's ended run had
        # nothing due can only be a run from an earlier checkpoint whose copy never landed
        # (a fresh input's first node, as a replay of a loop's first step begins:
        # test_fork_always_re_runs_nodes at 0.5 s a write).
        flipped_copy = start_of(
            _lost_copy(groups, kinds, replayed, root_cps, input_start=True, copy=copy)
        )
        if flipped_copy is not None:
            lost_copy = flipped_copy
            replayed[lost_copy[0]] = lost_copy[1]
            used.append(_lost_copy_said(lost_copy[0], "read as no fresh input", copy))
    due = _due_without_writes(thread) if "resume" in kinds[1:] else []
    entry = _entrypoint_node(thread)
    stopped = _unlogged_stops(groups, pauses, kinds, due, {i: t for i, (_s, t) in copies.items()},
                              entry)  # fmt: skip
    last_stop = _last_unlogged_pause(groups, pauses, status, entry)
    if last_stop is not None and len(groups) - 1 not in stopped:
        stopped[len(groups) - 1] = last_stop
    if len(groups) > 1:
        used.append(
            f"{len(groups)} invocations: "
            + ", ".join(f"{'a fresh input' if k == 'input' else 'a resume'}" for k in kinds)
        )
    bounds = _bounds(groups, _silent_starts(groups, db_cps, copies), input_times, _saves(db_cps))
    stamps = _stamps(db_cps)

    rising = all(a <= b for a, b in zip(bounds, bounds[1:], strict=False))

    def inv_of(ts: float) -> int:
        if not bounds:
            return 0
        if rising:  # the last bound at or before `ts` (the first is minus infinity)
            return max(0, bisect.bisect_right(bounds, ts) - 1)
        return max(i for i, b in enumerate(bounds) if ts >= b)

    # the entrypoint's own step holds the graphs its `@task` calls invoked (`_graphs_of_calls_only`)
    entry_holds = bool(groups) and (
        _graphs_of_calls_only(groups[0])
        # a bare log: the namespaces the database gave its lines, where the root's input
        # checkpoint has the entrypoint due (test_multiple_subgraphs_mixed_entrypoint at 1 s a
        # write: read as a graph's, the root held a `__start__` step, one checkpoint more)
        or (
            _no_start_step(thread, groups)
            and all(a.logged_ns is None for a in groups[0])
            and _graphs_of_calls_only(groups[0], aligned=True)
        )
    )
    space = space_keys(thread, attempts, below_tasks=entry_holds)
    functional = _no_start_step(thread, groups)
    if entry_holds and _entrypoint_node(thread) is None:
        assumed.append(
            "the log's lines all come from graphs an @task call of a root task invoked (that "
            "task logged nothing of its own): taken as an @entrypoint's thread, whose input "
            "checkpoint is followed by its task, with no __start__ step"
        )
    orphans = thread.orphan_writes if thread else []
    if orphans:
        used.append(
            f"{len(orphans)} orphan writes: their checkpoint ids date steps whose checkpoints never landed"
        )
    inputs_on_older = _branch_inputs(groups, kinds, root_cps)
    placing = _Placing(
        groups, kinds, retried, {**retry_of, **handlers}, thread, halted, stopped, replayed,
        db_cps, stamps, inv_of, copies, functional, entry_holds, queued, inputs_on_older,
    )  # fmt: skip
    placed = placing.place(space)
    task_levels = _task_levels(placed, attempts, db_cps)
    if task_levels:
        # a level under which only `@task` calls logged is a task's, no loop: the graphs a
        # call invoked below it are held by the loop the call ran in (`_task_levels`)
        space = space_keys(thread, attempts, below_tasks=entry_holds, not_loops=task_levels)
        placed = placing.place(space)
    assumed += [x for x in placed.said if x not in assumed]
    step_att, step_of, cp_at = placed.step_att, placed.step_of, placed.cp_at
    orphan_times = placed.orphan_times
    holder_of, run_starts, run_ends = placed.holder_of, placed.run_starts, placed.run_ends
    containers = placed.containers
    carried: set[tuple[str, int]] = set()
    for inv in range(len(groups) - 1):
        # A subgraph run that a resume goes on with, held by the same parent step in both
        # invocations, paused there (a breakpoint inside it leaves no write): the run is
        # carried over, and a root step holding it never completed in the earlier invocation.
        # Not by a run from a checkpoint older than the one the holder was due in: that run
        # does the holder's step anew (test_stateful_subgraph_loads_latest_after_replay).
        if kinds[inv + 1] != "resume":
            continue
        began_at = replayed.get(inv + 1)
        before = {(k[0], h) for k, h in holder_of.items() if k[1] == inv and k[0]}
        after = {(k[0], h) for k, h in holder_of.items() if k[1] == inv + 1 and k[0]}
        across = {(ns, h) for ns, h in before & after if began_at is None or began_at >= h - 1}
        carried |= {(ns, inv) for ns, _h in across}
        root = sorted(h for ns, h in across if "|" not in ns)
        if root and stopped.get(inv) is None:
            stopped[inv] = root[0]
    ns_order = sorted(
        {k[0] for k in step_att} | {k[0] for k in cp_at} | {""}, key=lambda n: (n.count("|"), n)
    )
    steps: list[Step] = []
    puts: list[Put] = []
    raised_out: set[tuple[str, int, int]] = set()
    raised_unsure: set[tuple[str, int, int]] = set()
    container: dict[tuple[str, int], int] = {}
    keys_of: dict[tuple[str, int], list[tuple[str, int, int]]] = {}
    # the copy a killed run from an earlier checkpoint began with, which never landed
    # (a release that saves no copy: the run's first put is its first step's, as a resume's)
    lost_key = ("", lost_copy[0], lost_copy[1]) if lost_copy is not None and copy else None
    # the step tasks that logged nothing ran first, in a run read as begun before them
    silent_key = ("", *silent_step) if silent_step is not None else None
    extra = [k for k in (lost_key, silent_key) if k is not None]
    for k in {*step_att, *cp_at, *orphan_times, *containers, *extra}:
        keys_of.setdefault((k[0], k[1]), []).append(k)
    below = _Below(step_att, cp_at, stamps)
    stepped: set[str] = set()  # the loops with a step so far
    for inv in range(len(groups)):
        for ns in ns_order:
            keys = keys_of.get((ns, inv), [])
            if not keys:
                continue
            lo, hi = min(k[2] for k in keys), max(k[2] for k in keys)
            # A loop's first invocation starts from its input checkpoint (step -1); a later
            # one resumes from a checkpoint it loads and puts nothing before its first step.
            fresh = ns not in stepped
            # an input after ``update_state`` (the thread's first checkpoint an edit, or one
            # saved between two invocations): the edit is saved first, the input one on
            opened_by_edit = (
                ns == ""
                and kinds[inv] == "input"
                and (edit := cp_at.get((ns, inv, lo))) is not None
                and edit.source in EDIT_SOURCES
            )
            first = -1 if fresh and not opened_by_edit else lo
            # A later fresh input starts every loop it runs afresh, the root's and each
            # subgraph's (a `checkpointer=True` one goes on numbering its steps): its input
            # checkpoint (the step after the last saved one) and `__start__` come first,
            # before the first step that did work (logged, or ran a subgraph).
            later_input = opened_by_edit or (
                not fresh
                and (kinds[inv] == "input" or _begins_anew(ns, inv, cp_at, replayed, step_att))
            )
            lead_in = first  # steps before this one only saved input and ran `__start__`
            input_steps: range = range(0)  # a later input's input and `__start__` steps (root)
            opening_step = first  # the input checkpoint's step, where the run's loop starts
            if later_input:
                with_work = [k[2] for k in [*step_att, *containers] if k[0] == ns and k[1] == inv]
                # an `@entrypoint` has no `__start__` step
                before = 1 if functional and ns == "" else 2
                first = min(lo, min(with_work) - before) if with_work else lo
                lead_in = first + before if with_work else first
                opening_step = first
                if with_work and opened_by_edit:
                    lead_in, opening_step = min(with_work), min(with_work) - before
                if with_work and ns == "":
                    input_steps = range(min(with_work) - before, min(with_work))
                opening = cp_at.get((ns, inv, lo))
                if (
                    not with_work
                    and ns
                    and opening is not None
                    and opening.source == "loop"
                    and opening.tasks
                    and all(t.node != START for t in opening.tasks)
                ):
                    # a loop with no line of its own (its only node a graph) that the input
                    # started afresh: its first checkpoint here has that node due, so its
                    # input checkpoint (whose `__start__` ran) is the step before
                    first, lead_in = lo - 1, lo
            prev_end: float | None = None
            for s in range(first, hi + 1):
                key = (ns, inv, s)
                if key in run_starts and key not in cp_at and prev_end is not None:
                    prev_end = run_starts[key]  # a later run of the subgraph: its input step
                atts = step_att.get(key, [])
                cp = cp_at.get(key)
                known_end = stamps[cp.checkpoint_id] if cp else orphan_times.get(key)
                if atts:
                    start = min(a.start_ts for a in atts)
                    # A step with a failed, paused or killed task never completes: no put follows it.
                    end = (
                        max(a.end_ts for a in atts)
                        if all(_step_done(a, retried - raised_through, halted) for a in atts)
                        else None
                    )
                    if end is not None and known_end is not None:
                        end = max(end, min(known_end, end + 0.05))
                    if end is not None:
                        end = _beside_subgraph(step_att, holder_of, run_ends, ns, inv, s, end)
                    if ns == "" and stopped.get(inv) == s:
                        end = None  # a task of this step paused before logging: it never completed
                    if end is not None and _sibling_left_due(atts, step_att, inv):
                        end = None
                elif known_end is not None:
                    start, end = (prev_end if prev_end is not None else known_end), known_end
                    inner = below.starts(ns, inv, start, end)
                    if inner:  # a step that ran a subgraph starts when the subgraph does
                        start = max(start, min(inner) - TICK)
                elif key in (lost_key, silent_key):
                    # the copy is made as the run begins, just before its first task; so
                    # are the writes of tasks that returned at once, logging nothing
                    start = end = min(a.start_ts for a in groups[inv]) - TICK
                else:
                    nxt = [
                        a.start_ts
                        for k, v in step_att.items()
                        if k[0] == ns and k[1] == inv and k[2] > s
                        for a in v
                    ]
                    base = (
                        prev_end
                        if prev_end is not None
                        else _first_activity(step_att, cp_at, stamps, inv, ns, nxt)
                    )
                    start = base
                    if (
                        s == -1
                        or s == 0
                        and ns == ""
                        # an entrypoint's own step that held graphs (in this invocation: an
                        # earlier one may have made calls only)
                        and not ((entry_holds or functional) and key in containers)
                        or s < lead_in
                        or not (key in containers or _has_nested(step_att, ns, inv, base, nxt))
                    ):
                        end = base  # a step without effects, e.g. __start__: it ends at once
                    else:  # a step that ran a subgraph: it starts when the subgraph does
                        end = run_ends.get(key, min(nxt) if nxt else None)
                        if end is not None and nxt and recording.mode == "async":
                            # under async the loop makes its checkpoint when the subgraph's
                            # task returns (after that loop waited for its own puts) and
                            # starts the next task at once: just before that task
                            end = max(end, min(nxt) - TICK)
                        inner = [
                            a.start_ts
                            for k, v in step_att.items()
                            if k[0].startswith(ns + "|" if ns else "")
                            and k[0] != ns
                            and k[1] == inv
                            for a in v
                            if a.start_ts >= base
                        ]
                        inner += [
                            stamps[c.checkpoint_id]
                            for k, c in cp_at.items()
                            if k[0] != ns
                            and k[0].startswith(ns)
                            and k[1] == inv
                            and stamps[c.checkpoint_id] >= base
                        ]
                        if inner:
                            start = max(base, min(inner) - TICK)
                if (s == -1 or s in input_steps) and atts == []:
                    # Taken just before the run's first task, as the first input's are (not
                    # after an update_state between the runs, which no run waited for).
                    mine = [a for k, v in step_att.items() if k[0] == ns and k[1] == inv for a in v]
                    first_att = [a.start_ts for a in mine]
                    # a loop whose first task logs step 0 has no `__start__` step (a graph
                    # built on Pregel itself): nothing is waited for before that task
                    no_start = any(a.step == 0 for a in mine)
                    if cp is None and first_att:
                        start = end = min(
                            min(first_att) - (0.0 if no_start else _recorded_lead(recording, hi)),
                            _first_activity(step_att, cp_at, stamps, inv, ns, first_att),
                        )
                steps.append(Step(ns, inv, s, start, end, atts, cp))
                stepped.add(ns)
                raised = end is not None and _raised_out(
                    ns, inv, s, hi, atts, end, cp_at, stamps, step_att, recording,
                    _raised_before(ns, inv, atts, raised_out, step_att),
                )  # fmt: skip
                if raised is None:
                    raised_unsure.add((ns, inv, s))
                    raised = unsure_raised
                if raised:
                    raised_out.add((ns, inv, s))
                    break
                if end is not None:
                    starts_loop = s == opening_step and (fresh or later_input)
                    edited = cp is not None and cp.checkpoint_id in input_edits
                    replay = (cp is not None and cp.checkpoint_id in forks) or key == lost_key
                    branched = cp is not None and cp.checkpoint_id in branched_by_edit
                    puts.append(
                        Put(ns, inv, s, end, cp, starts_loop or replay, edited, replay, branched)
                    )
                    prev_end = end
                else:
                    break
    # The root step whose time span holds each nested namespace's activity.
    roots = [s for s in steps if s.ns == ""]
    for s in steps:
        if (s.ns, s.inv, s.step) in holder_of and (s.ns, s.inv) not in container:
            container[(s.ns, s.inv)] = holder_of[(s.ns, s.inv, s.step)]
        if s.ns and (s.ns, s.inv) not in container:
            holder = [
                r
                for r in roots
                if r.inv == s.inv
                and r.start <= s.start + 1e-6
                and (r.end is None or s.start <= r.end + 1e-6)
                and not r.attempts
            ]
            if holder:
                container[(s.ns, s.inv)] = holder[-1].step
    last = groups[-1]
    own_root = any(k[0] == "" and k[1] == len(groups) - 1 for k in cp_at)
    last_status = status
    entrypoint = _entrypoint_node(thread)  # an `@entrypoint`: its root saves once, as it ends
    if (
        (recording.mode == "exit" or entrypoint is not None)
        and len(groups) > 1
        and not own_root
        and _outran(last, thread, entrypoint)
    ):
        # Under exit an invocation saves nothing until it ends (a pause in a step saved
        # before puts its writes alone): one that left no root checkpoint, and whose log ran
        # every task the database shows failed or paused to its end, left nothing, and the
        # database's status is an earlier invocation's, not this one's. LangGraph 1.2.24 under `ainvoke` on
        # Postgres at 0.15 s a write, test_node_cancellation_on_other_node_exception_two's
        # shape killed 0.44 s after `finish` started, 0.04 s after it ended: the retry's
        # invocation had run every task and died before its save; read as raised again
        # (the first invocation's failure), sync was said to run `finish` again and keep 2
        # where the real sync run kept 3 and ran nothing again.
        last_status = ""
    ending = _ending(last, last_status, retried | retrying, retrying=retrying, halted=halted)
    if ending == "returned" and last and (db_cps if len(groups) > 1 else thread is not None):
        # An invocation that returned left a root checkpoint in every mode (sync and async
        # wait for their puts on the way out, exit saves there); one that left none died
        # first, though all its logged tasks had ended: a later invocation, or the first of
        # a thread the database holds all the same (its writes, whose checkpoint never
        # landed: test_multiple_subgraphs_functional at 1 s a write, killed before the input
        # checkpoint's put had landed).
        if not own_root:
            ending = "killed"
    if ending == "raised" and _raise_never_got_out(
        last, puts, len(groups) - 1, recording, kinds, cp_at
    ):
        ending = "killed"
        used.append(
            "the failure's invocation left no checkpoint that a raise leaving the graph saves "
            f"or waits for under {recording.mode}: the process died on the way out"
        )
    if ending == "raised" and _killed_after_failure(last, recording, thread):
        # (a raise nothing caught ends the run: the process the kill found was still running
        # it, so the failure was waiting for something, the node's error handler)
        ending = "killed"
        used.append(
            f"the kill was aimed {recording.kill_offset:g} s after {recording.kill_node} started "
            f"({recording.origin or 'given'}), after its failure: the run had not raised out, "
            "the failure was still being handled"
        )
    raise_unsure = ending == "raised" and _raise_undated(last, attempts, recording)
    if raise_unsure and killed_raising:
        ending = "killed"
        assumed.append(RAISE_UNSURE)
    if ending == "paused" and len(groups) > 1 and last and answered_below(thread):
        # The pause the database shows was answered inside the graph the paused task ran,
        # and that graph's paused task returned: the last invocation went past it and died
        # before the task that invoked the graph ended.
        ending = "killed"
        used.append(
            "the paused task's graph saved its own paused task's output: the answer was given "
            "and the run went past the pause before the process died"
        )
    pause_kill = _killed_while_pausing(ending, last, thread, recording)
    if ending == "paused" and killed_in_a_later_invocation(last, recording):
        used.append(
            f"the kill was aimed {recording.kill_offset:g} s after {recording.kill_node} "
            f"started ({recording.origin or 'given'}), but the lines of the graph it ran in "
            "the last invocation the log shows went on longer than that: the kill came in a "
            "later invocation that logged nothing and saved no checkpoint, after this pause "
            "was saved"
        )
    if pause_kill is not None:
        used.append(
            f"the kill was aimed {recording.kill_offset:g} s after {recording.kill_node} "
            f"started ({recording.origin or 'given'}), which asks before it logs: the run was "
            "pausing, and a mode whose pause takes longer to save than that lost it"
        )
    endings = [
        "paused"
        if i in stopped
        else _ending(g, status, retried | retrying, final=False, retrying=retrying, halted=halted)
        for i, g in enumerate(groups[:-1])
    ] + [ending]
    in_flight = [a for a in last if a.outcome == "in flight" or id(a) in retrying]
    kill_attempt = max(in_flight, key=lambda a: a.start_ts) if in_flight else None
    # the kill a recording aimed at a node's start counts from that node's attempt, where it
    # is in flight beside the last to start (a task of the same loop that started a moment
    # later); a task inside a graph it runs is no such task (its kill moment stays the log's)
    aimed_at = [
        a for a in in_flight
        if a.node == recording.kill_node and kill_attempt is not None
        and (a.namespace or a.logged_ns or "") == (kill_attempt.namespace or kill_attempt.logged_ns or "")
    ]  # fmt: skip
    kill_attempt = max(aimed_at, key=lambda a: a.start_ts) if aimed_at else kill_attempt
    line_ts = [line.ts for a in attempts for line in a.lines]
    crash = max(line_ts + list(stamps.values())) if (line_ts or stamps) else None
    kill_offset, kill_unsure, crash = _kill_moment(
        ending,
        kill_attempt,
        crash,
        recording,
        {**retry_of, **handlers},
        retried,
        attempts,
        used,
        assumed,
    )
    silent_kill: float | None = None
    kill_anchor: float | None = None
    unlogged_kill: float | None = None
    if ending == "killed" and kill_attempt is None:
        entry = _sole_root_node(thread)
        dated, kill_anchor = _kill_in_silent_holder(last, crash, recording, used, entry)
        # (only one of the two anchors is set: the schedule reads `unlogged_kill` first)
        if dated == crash:
            unlogged_kill = _aimed_unlogged_start(last, recording, thread, entry)
        if dated == crash and unlogged_kill is None:
            dated, kill_anchor = _kill_after_aimed_end(last, crash, recording, used)
        if dated != crash:
            crash = silent_kill = dated
        elif unlogged_kill is not None:
            silent_kill = unlogged_kill + recording.kill_offset  # (kill_offset known there)
            used.append(
                f"kill moment: {recording.kill_offset:g} s after {recording.kill_node} started "
                f"({recording.origin or 'given'}), which logged nothing before the kill: it "
                "started as its step did, once the step of the last line had ended"
            )
        elif crash is not None and last:
            # Died between tasks, at a moment no line dates: no earlier than the last line,
            # and, as a bound, no later than the longest task of the log takes (a put waited
            # for, a node that logs nothing).
            silent_kill = crash
            longest = max((a.end_ts - a.start_ts for a in attempts if a.outcome == "finished"),
                          default=0.0)  # fmt: skip
            kill_unsure = longest + 2 * (recording.latency or 0.0)
            assumed.append(
                "kill moment: after every logged task had ended (no task in flight), so no "
                f"earlier than the last line and taken as up to {kill_unsure:.2f} s later"
            )
    if recording.mode is not None:
        used.append(
            f"recorded mode: {recording.mode}"
            + (
                f" at {recording.latency:g} s per checkpoint write"
                if recording.latency is not None
                else ""
            )
            + (f" ({recording.origin})" if recording.origin else "")
        )
    else:
        assumed.append(
            "recorded mode unknown: the gaps between steps are taken as recorded (no write waits removed)"
        )
    assumed.append(
        "put_writes land as soon as a task ends (they are not delayed, chained or waited for)"
    )
    assumed.append(f"a checkpoint write takes {WRITE_COST * 1000:g} ms beyond the latency")
    killed_earlier = {
        i for i, g in enumerate(groups[:-1]) if any(a.outcome == "in flight" for a in g)
    }
    if killed_earlier:
        assumed.append(
            "an earlier invocation was killed: what it left is taken from the database as it stands"
        )
    silent, unsure_silent = _unsaved_graphs(step_att, cp_at, stamps, recording)
    if unsaved:
        silent, unsure_silent = silent | unsure_silent, set()
    if silent:
        puts = [p for p in puts if p.ns.split(namespaces.NS_SEP)[0] not in silent]
        used.append(
            f"{', '.join(sorted(silent))}: logged lines and saved no checkpoint though "
            f"{recording.mode} saves a graph's steps: compiled with checkpointer=False, it "
            "saves none in any mode"
        )
    if unsure_silent:
        assumed.append(
            f"{', '.join(sorted(unsure_silent))}: logged lines and left no checkpoint, which "
            "under exit a graph that returned never leaves: taken as a graph that saves its "
            "steps in the other modes, as every subgraph does unless compiled with "
            "checkpointer=False (then it saves nothing, and a resume runs its caller again: "
            "the range covers that)"
        )
    if recording.cached_nodes:
        used.append(
            f"node cache: {', '.join(sorted(recording.cached_nodes))} served on a resume from a "
            "cache that outlives the process, for the same input (the graph code names it)"
        )
    return Evidence(
        steps,
        puts,
        attempts,
        len(groups),
        ending,
        kill_attempt,
        crash,
        kill_offset,
        used,
        assumed,
        db_cps,
        step_of,
        container,
        killed_earlier,
        retried=retried,
        handlers=handlers,
        handled_later=handled_on_resume(attempts, handlers),
        raise_at_apply=at_apply,
        raise_at_apply_unsure=maybe_at_apply,
        failed_calls=failed_calls,
        kinds_weak=weak,
        kinds_alike=alike & weak,
        entrypoint=_entrypoint_node(thread),
        pushed_by_command=_pushed_by_command(thread, attempts, step_of, kinds),
        halted=halted,
        stopped=stopped,
        carried=carried,
        kinds=kinds,
        endings=endings,
        # (a run from an earlier checkpoint a release without copies made: no put marks it)
        replays={p.inv for p in puts if p.replay or p.branch}
        | ({lost_copy[0]} if lost_copy is not None and not copy else set()),
        branch_inputs=set(inputs_on_older),
        kill_unsure=kill_unsure,
        kill_time=silent_kill,
        kill_anchor=kill_anchor,
        unlogged_kill=unlogged_kill,
        pause_kill=pause_kill,
        pause_moment=_dated_pause_moment(ending, last, pause_kill, recording),
        ordinal=_ordinals(attempts, step_of, retry_of),
        functional=_entrypoint_node(thread) is not None,
        raised_out=raised_out,
        raised_unsure=raised_unsure,
        raised_through=raised_through,
        holder_of=holder_of,
        # (a mode given, not one candidate of an inference: only then does a missing
        # checkpoint say the step never completed)
        puts_kept=recording.mode in ("sync", "async")
        and (recording.origin != INFERRED or trust_puts),
        root_stayed=_root_stayed(puts, recording, killed_earlier, ending),
        stable=(stable_ns := _stable_namespaces(attempts, db_cps)),
        exit_saved=stable_ns
        | (
            {k[0] for k in holder_of} | {p.ns for p in puts if p.ns}
            if every_run_saved_on_exit(recording)
            else set()
        ),
        unsaved=silent,
        unsaved_unsure=unsure_silent,
        queued_unsure=QUEUED_UNSURE in assumed,
        raise_unsure=raise_unsure,
        replay_start_unsure=replay_start_unsure,
        subgraph_writes_reused=subgraph_writes_reused(recording),
        cached_nodes=recording.cached_nodes,
    )


def _unsaved_graphs(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
    recording: Recording,
) -> tuple[set[str], set[str]]:
    """(the nested graphs that save no checkpoint, those the evidence cannot tell about).

    A graph that logged lines in a namespace of its own and left no checkpoint at all, under
    sync or async, with a root checkpoint saved after its run ended (a graph's loop waits for
    its own puts before it returns), was compiled with ``checkpointer=False``
    (test_subgraph_persistence_async.py::test_checkpointer_false_no_persistence_async, round
    41): it saves nothing in any mode. Under exit a subgraph that returned saves nothing
    either, so the database cannot tell the two apart: the second value names those graphs,
    which the model takes for saving ones, as they are unless compiled so (and says so)."""
    logged = {k[0].split(namespaces.NS_SEP)[0] for k in step_att if k[0]}
    saved = {k[0].split(namespaces.NS_SEP)[0] for k in cp_at if k[0]}
    silent = logged - saved
    if not silent:
        return set(), set()
    if recording.mode not in ("sync", "async"):
        return set(), silent if recording.mode == "exit" else set()
    root_stamps = [stamps[c.checkpoint_id] for k, c in cp_at.items() if k[0] == ""]
    out: set[str] = set()
    for top in silent:
        ends = [
            _until(a)
            for k, v in step_att.items()
            if k[0].split(namespaces.NS_SEP)[0] == top
            for a in v
        ]
        if ends and any(t > max(ends) for t in root_stamps):
            out.add(top)
    return out, set()


class _Below:
    """When work below each namespace began (its attempts' starts, its checkpoints' stamps),
    per invocation, sorted: asked once per step, answered by bisection (30,000 steps, or a
    subgraph run a thousand times, would walk every step again for each)."""

    def __init__(
        self,
        step_att: dict[tuple[str, int, int], list[Attempt]],
        cp_at: dict[tuple[str, int, int], Checkpoint],
        stamps: dict[str, float],
    ) -> None:
        times: dict[tuple[str, int], list[float]] = {}

        def note(ns: str, inv: int, t: float) -> None:
            parts = ns.split(namespaces.NS_SEP)
            for depth in range(len(parts)):  # every loop above `ns`: "", the first level, ...
                times.setdefault((namespaces.NS_SEP.join(parts[:depth]), inv), []).append(t)

        for k, v in step_att.items():
            if k[0]:
                for a in v:
                    note(k[0], k[1], a.start_ts)
        for k, c in cp_at.items():
            if k[0]:
                note(k[0], k[1], stamps[c.checkpoint_id])
        self.times = {key: sorted(v) for key, v in times.items()}

    def starts(self, ns: str, inv: int, lo: float, hi: float) -> list[float]:
        """When work of namespaces below `ns` began between `lo` and `hi`."""
        found = self.times.get((ns, inv))
        if not found:
            return []
        return found[bisect.bisect_left(found, lo) : bisect.bisect_right(found, hi)]


def _opened_below(
    began: float, after: float, thread: Thread | None, space: Callable[[str | None], str]
) -> str:
    """The one subgraph run that opened (its newest checkpoint saved between the attempt
    before, started at `after`, and a task that began at `began`, with work due there): a
    line of a node no checkpoint names, logged right after a subgraph's input checkpoint
    landed, is that subgraph's (test_parent_command_deeply_nested: ``sub_child_1`` after
    the stateful ``child_2`` saved its input, under async the only checkpoint of it). ""
    where none or several did."""
    opened: set[str] = set()
    for sp in thread.namespaces.values() if thread else ():
        if not sp.name:
            continue
        saved = [(t, c) for c in sp.checkpoints for t in [taken_at(c)] if t is not None]
        before = [(t, c) for t, c in saved if t <= began]
        if not before:
            continue
        t, latest = max(before, key=lambda tc: tc[0])
        if after <= t and (latest.tasks or latest.source == "input"):
            opened.add(space(sp.name))
    return next(iter(opened)) if len(opened) == 1 else ""


def _open_loop(
    key: str,
    began: float,
    opened: float,
    thread: Thread | None,
    space: Callable[[str | None], str],
    logged: Sequence[Attempt] = (),
) -> str:
    """`key`, or the nearest loop above it whose run had not ended when a task began at
    `began`: a run whose latest checkpoint of this invocation (saved after `opened`, before
    the task began) has nothing due had returned, so the task is no step of it, and the loop
    that ran it goes on (test_doubly_nested_interrupts: ``parent_2``, a root node no saved
    root checkpoint names, began after both nested runs had saved their ends). So had a run
    whose latest checkpoint was taken after its due tasks had all run to their ends (`logged`,
    this invocation's attempts): that step never completed, the loop left by raising out of
    it (a `Command(graph=PARENT)`; under exit the save on the way out,
    test_parent_command_goto at 1 s a write: ``node_b_parent`` after ``node_b_child``)."""
    spaces = list(thread.namespaces.values()) if thread else []
    while key:
        saved = [
            (t, c)
            for sp in spaces
            if sp.name and space(sp.name) == key
            for c in sp.checkpoints
            for t in [taken_at(c)]
            if t is not None and opened <= t <= began
        ]
        if not saved:
            return key
        taken, latest = max(saved, key=lambda tc: tc[0])
        if latest.step is None or latest.source == "input":
            return key
        if latest.tasks and not _ran_out(latest, taken, opened, logged):
            return key
        key = key.rpartition(namespaces.NS_SEP)[0]
    return key


def _ran_out(c: Checkpoint, taken: float, opened: float, logged: Sequence[Attempt]) -> bool:
    """Had every task due at checkpoint `c` a finished attempt that began after `opened` and
    ended before `c` was taken? Then the checkpoint was saved as its loop left the step
    those tasks ran in, which never completed."""
    return all(
        any(
            a.node == t.node and a.outcome == "finished" and opened <= a.start_ts
            and a.end_ts <= taken
            for a in logged
        )
        for t in c.tasks
    )  # fmt: skip


def _stable_run_opening(
    thread: Thread | None,
    ns: str,
    began: float,
    space: Callable[[str | None], str],
    *,
    ended: float,
) -> int:
    """The step of `__start__` in the run of subgraph `ns` whose first node began at `began`,
    for a log that names no steps: 0 for a graph that starts afresh. A ``checkpointer=True``
    graph (no task id at any level of its namespace) goes on numbering from the checkpoint
    it loads: its input checkpoint is the step after that one (test_three_level_nested
    _subgraph_loads_state_on_replay: a third input after a run from an earlier checkpoint
    starts its subgraphs at steps 7 and 8, not -1 and 0). Where this run's input checkpoint
    is saved (after the previous invocation's last line, `ended`), it says so; else the newest
    checkpoint of the graph saved before the run began (under exit, the previous run's end).
    A run from an earlier checkpoint numbers on the same way: its steps go on from the
    graph's newest checkpoint, not from 0 (the corpus's subgraph_replay_then_resume and
    middle_checkpoint_replayed under exit: the replayed run's ``step_a`` in step 6 of the
    stateful graph, after its first run's 3; read from 0, a bare log's sync what-if counted
    steps -1 to 3 again, 5 checkpoints too many)."""
    if thread is None or not ns:
        return 0
    loops = [sp for sp in thread.namespaces.values() if sp.name and space(sp.name) == ns]
    if not loops or any(namespaces.NS_END in sp.name for sp in loops):
        return 0  # not in the database, or a graph whose runs each have a namespace of their own
    cps = [
        (t, c)
        for sp in loops
        for c in sp.checkpoints
        for t in [taken_at(c)]
        if t is not None and t < began and c.step is not None
    ]
    if not cps:
        return 0
    own = [(t, c) for t, c in cps if t > ended and c.source == "input"]
    if own:
        return max(own, key=lambda tc: tc[0])[1].step + 1
    # no input checkpoint of this run saved, so no `__start__` one either (chained behind it)
    return max(cps, key=lambda tc: tc[0])[1].step + 2


def _begins_anew(
    ns: str,
    inv: int,
    cp_at: dict[tuple[str, int, int], Checkpoint],
    replayed: dict[int, int],
    step_att: dict[tuple[str, int, int], list[Attempt]],
) -> bool:
    """Does subgraph `ns` start a new run (its input checkpoint and `__start__` first) in
    invocation `inv`, whose last run had ended (nothing due at its latest checkpoint)? In a
    run from an earlier checkpoint its task is the copy's, new; in any other invocation that
    logged a line of it, a ``checkpointer=True`` graph that had ended and works again was
    handed a new input (a resume's first step would have dropped it: `_dropped_stable_run`).
    Under exit such a graph goes on numbering from its last checkpoint (steps 4 and 5 before
    its first node's 6), under sync LangGraph starts it afresh (-1, 0); either way two more
    checkpoints than the database of an exit run shows (test_subgraph_interrupt_replay_from_
    parent_then_resume; test_3_levels_deep_middle_has_interrupts, the inner graph run again
    in the answer to the middle graph's replayed question)."""
    if not ns:
        return False
    if inv not in replayed and not any(k[0] == ns and k[1] == inv for k in step_att):
        return False
    if any(k[0] == ns and k[1] == inv and c.source in EDIT_SOURCES for k, c in cp_at.items()):
        # the run went on from a copy of its own checkpoint (a replay from it), or from an
        # edit of it (``update_state`` on the subgraph's checkpoint, then the run from there)
        return False
    earlier = [k for k in cp_at if k[0] == ns and k[1] < inv]
    if not earlier:
        return False
    return not cp_at[max(earlier, key=lambda k: (k[1], k[2]))].tasks


def _place_nested(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    step_of: dict[int, tuple[str, int, int]],
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
    db_namespaces: set[str],
    fresh: set[int],
    holder_of: dict[tuple[str, int, int], int],
    run_starts: dict[tuple[str, int, int], float],
    run_ends: dict[tuple[str, int, int], float],
    halted: set[int] = frozenset(),
    functional: bool = False,
    replayed: dict[int, int] | None = None,
    entry_holds: bool = False,
) -> set[tuple[str, int, int]]:
    """The root steps that ran nested work, and functional `@task` calls moved to their loop.

    A line logged under `parent:<id>` is either a subgraph's node (its own loop, steps
    from 1 after the subgraph's `__start__`) or a functional call of the parent task (the
    parent's own step, saved in the parent's namespace). A namespace the database holds
    is a subgraph. Otherwise calls carry the step of the parent task that made them (an
    `@entrypoint`'s is step 0, and the entrypoint itself may log nothing), while a subgraph's
    nodes carry their own loop's steps, from 1; a parent task running around the lines
    (its span holds them) makes them calls in any later step.

    A subgraph added as a graph's first node, in an invocation that began with a fresh
    input (`fresh`), runs in the root's step 1, not 0: `PregelLoop._first` saves the input
    checkpoint (step -1) and runs `__start__` as step 0 before any node of a `StateGraph`
    (``pregel/_loop.py``, ``_first``: "apply input writes", then ``after_tick`` of the input
    step). Without root lines or root checkpoints (an exit database is empty; the subgraph's
    nodes are the only ones that log) nothing else dates that step. A functional
    `@entrypoint` is the root task of step 0 itself: its calls run while it runs.

    A subgraph that runs more than once in an invocation (`_split_runs`) is a parent task
    per run, each in a later parent step than the one before. Filled in as it goes:
    `holder_of` (each nested step's parent step), `run_starts` (where a later run's input
    step sits), `run_ends` (a parent step without lines of its own that ends when the run it
    holds has ended, another run or another task outside it coming after). An invocation
    from an earlier checkpoint (`replayed`: invocation -> the step of the copy it began with)
    goes on from that copy, not from the root's last saved step. `entry_holds`: the lines
    come only from graphs an `@entrypoint`'s `@task` call invoked, which its own step (0)
    holds (`_graphs_of_calls_only`).
    """
    containers: set[tuple[str, int, int]] = set()
    groups: dict[tuple[str, int], list[tuple[str, int, int]]] = {}
    for key in step_att:
        if key[0]:
            groups.setdefault((key[0], key[1]), []).append(key)
    runs: list[tuple[str, int, list[tuple[str, int, int]]]] = []
    for (ns, inv), keys in groups.items():
        runs += [(ns, inv, run) for run in _split_runs(keys, step_att, cp_at)]
    runs.sort(key=lambda r: min(a.start_ts for k in r[2] for a in step_att[k]))
    # each loop's step keys, of its attempts and of its checkpoints (asked once per run)
    loop_keys: dict[tuple[str, int], list[tuple[str, int, int]]] = {}
    for k in step_att:
        loop_keys.setdefault((k[0], k[1]), []).append(k)
    cp_keys: dict[tuple[str, int], list[tuple[str, int, int]]] = {}
    for k in cp_at:
        cp_keys.setdefault((k[0], k[1]), []).append(k)
    latest = _latest_starts(step_att)
    starts_above = _StartsAbove(step_att)
    # each loop -> itself and the loops below it, per invocation
    within: dict[tuple[str, int], set[str]] = {}
    for n, i in loop_keys:
        parts = n.split("|")
        for depth in range(1, len(parts) + 1):
            within.setdefault(("|".join(parts[:depth]), i), set()).add(n)
    previous: dict[tuple[str, int], int] = {}  # the holder of the last run of each subgraph
    # Of each node path (`base_space`), the holder of its last run and when that run ended:
    # a run that begins after it is the parent's next task (a loop's next round).
    before_me: dict[tuple[str, int], tuple[int, float]] = {}
    # Of each loop with subgraphs below it, its latest step that held a run: that step, when
    # the last run it holds ended, and the node paths of those runs.
    step_runs: dict[tuple[str, int], tuple[int, float, set[str]]] = {}
    still: set[tuple[str, int, int]] = set()  # parent steps with a run that had not ended
    made_loops: set[tuple[str, int]] = set()  # loops the calls moved into them made (below)
    for at, (ns, inv, keys) in enumerate(runs):
        first = min(a.start_ts for k in keys for a in step_att[k])
        parent = ns.rpartition("|")[0]
        # The subgraph's own input and `__start__` checkpoints date its start better than its
        # first node: under sync that node waits for them, and a sibling of the parent task
        # may finish meanwhile (the parent step is still the one that started both).
        began = first
        if keys is runs_of(runs, ns, inv)[0]:
            lo = min(k[2] for k in keys)
            began = min(
                [first]
                + [
                    stamps.get(cp_at[k].checkpoint_id, inf)
                    for k in cp_keys.get((ns, inv), ())
                    if k[2] < lo
                ]
            )
        holder = _caller_step(ns, inv, began, loop_keys, step_att)
        by_caller = holder is not None  # the step its caller's lines were placed in
        if holder is None:
            holder = _next_step_after(
                parent, inv, began, loop_keys, cp_keys, step_att, cp_at, stamps
            )
        # A later invocation goes on from the parent's last saved step (a resume re-runs the
        # step after it; a fresh input adds its input checkpoint and `__start__` first, an
        # `@entrypoint`'s its input checkpoint only).
        # (the latest invocation that saved one: after a run from an earlier checkpoint,
        # the steps go back, and a resume goes on along that branch)
        last = max((i for i in range(inv) if cp_keys.get((parent, i))), default=None)
        saved = [k[2] for k in cp_keys[(parent, last)]] if last is not None else []
        if parent == "" and inv in (replayed or {}):
            saved = [(replayed or {})[inv]]  # the copy it began with: its steps go back
        if saved:
            fresh_lead = 2 if functional and parent == "" else 3
            holder = max(holder, max(saved) + (fresh_lead if inv in fresh else 1))
        # Calls log the step of the task that makes them (an entrypoint's is step 0); a
        # subgraph's nodes log their own loop's steps, from 1 (its step 0 is `__start__`).
        saved = _calls_saved_in(keys, step_att, ns)
        calls = saved is not None or (
            ns not in db_namespaces
            and not _counted_graph(ns, inv, loop_keys)
            and (ns, inv) not in made_loops
            and all(k[2] == holder for k in keys)
            and (
                holder == 0
                or _held_by_parent(step_att, parent, inv, first)
                or (holder >= 2 and _under_a_task(keys, step_att))
            )
        )
        if (
            holder == 0
            and inv in fresh
            and parent == ""
            and not (calls or entry_holds or by_caller)
        ):
            holder = 1  # step 0 is `__start__`: the subgraph node runs in step 1
        if (ns, inv) in previous:
            holder = max(holder, previous[(ns, inv)] + 1)  # a later run: a later parent task
        path_run = before_me.get((base_space(ns), inv))
        if path_run is not None and path_run[1] <= first:
            holder = max(holder, path_run[0] + 1)
        held = step_runs.get((parent, inv))
        if (
            held is not None
            and not calls
            and holder <= held[0]
            and node_path(ns) not in held[2]
            and held[1] <= began
        ):
            # another node's run that began (its own input checkpoint, where the database
            # has it) after every run its step held had ended: the tasks of one step start
            # together, so this is the next step's task
            # (test_pregel.py::test_multiple_subgraphs: call_same_subgraph, then
            # call_multiple_subgraphs, each invoking graphs, with no line of their own)
            holder = held[0] + 1
        elif held is not None and not calls and holder < held[0] and node_path(ns) in held[2]:
            holder = held[0]  # a later call or worker of a task that step holds
        previous[(ns, inv)] = holder
        ends = [a.end_ts if a.outcome == "finished" else inf for k in keys for a in step_att[k]]
        before_me[(base_space(ns), inv)] = (holder, max(ends, default=inf))
        if not calls:
            was = step_runs.get((parent, inv))
            if was is None or holder > was[0]:
                step_runs[(parent, inv)] = (holder, max(ends, default=inf), {node_path(ns)})
            elif holder == was[0]:
                was[2].add(node_path(ns))
                step_runs[(parent, inv)] = (holder, max(was[1], *ends), was[2])
        if calls:
            # calls of the parent task: they belong to the parent's step (for calls aligned
            # with their saved results, the step of the loop that saved them)
            moved = (parent, inv, holder) if saved is None else (saved[0], inv, saved[1])
            for k in keys:
                for a in step_att.pop(k):
                    step_att.setdefault(moved, []).append(a)
                    step_of[id(a)] = moved
                    # the calls' starts now count in the loop they were moved to
                    latest[moved[:2]] = max(latest.get(moved[:2], a.start_ts), a.start_ts)
            if moved not in loop_keys.setdefault(moved[:2], []):
                loop_keys[moved[:2]].append(moved)
                within.setdefault(moved[:2], set()).add(moved[0])
            if moved[0] and not any(r[:2] == moved[:2] for r in runs):
                # the calls made a loop of its own run (an `@entrypoint` a node invoked, no
                # line of its own): it needs the parent step that ran it, as any run does
                # (test_multiple_subgraphs_mixed_state_graph)
                runs.insert(at + 1, (moved[0], inv, [moved]))
                made_loops.add(moved[:2])
            continue
        containers.add((parent, inv, holder))
        lo = min(k[2] for k in keys)
        start = (
            lo - 2
            if len(runs_of(runs, ns, inv)) > 1 and keys is not runs_of(runs, ns, inv)[0]
            else -1
        )
        for st in range(start, max(k[2] for k in keys) + 1):
            holder_of[(ns, inv, st)] = holder
        if start >= 0:
            run_starts[(ns, inv, start)] = first - TICK
        mine = runs_of(runs, ns, inv)
        later = [r for r in mine[mine.index(keys) + 1 :]]
        until = min((a.start_ts for r in later for k in r for a in step_att[k]), default=inf)
        atts = [  # the run's tasks and those of the subgraphs inside it
            a
            for n in within.get((ns, inv), ())
            for k in loop_keys.get((n, inv), ())
            for a in step_att.get(k, ())
            if first - 1e-6 <= a.start_ts < until
        ]
        if all(a.outcome == "finished" and id(a) not in halted for a in atts) and (
            keys is not runs_of(runs, ns, inv)[-1]
            or _went_on(
                step_att,
                ns,
                inv,
                max(a.end_ts for a in atts),
                latest,
            )
        ):
            # The parent's task ends after the subgraph's loop has left (and waited for its
            # puts), each loop inside it leaving first: one tick per level, in that order.
            levels = 1 + max(n.count("|") - ns.count("|") for n in within.get((ns, inv), (ns,)))
            ended = _run_ended(max(a.end_ts for a in atts), levels, ns, inv, starts_above)
            run_ends[(parent, inv, holder)] = max(run_ends.get((parent, inv, holder), ended), ended)
        else:
            still.add((parent, inv, holder))
    for key in still:
        # Several runs side by side in one parent step (`Send` workers that each run the
        # subgraph, `space_keys`): the step ends when the last of them does, or never.
        run_ends.pop(key, None)
    _hold_silent_loops(
        containers, holder_of, run_ends, within, loop_keys, cp_keys, step_att, cp_at, stamps,
        fresh, functional,
    )  # fmt: skip
    return containers


def _counted_graph(
    ns: str, inv: int, loop_keys: dict[tuple[str, int], list[tuple[str, int, int]]]
) -> bool:
    """Is `ns` one of several graphs one task invoked (``p``, then ``p~1``)? Only a graph a
    task invokes counts on its namespace (`PregelLoop` appends the task scratchpad's
    `subgraph_counter`, ``pregel/_loop.py``; an `@task` call names its own task id): lines
    under ``p~1``, and under ``p`` beside it, are those graphs' nodes, even at step 0 where an
    `@entrypoint`'s node logs as a call would (test_multiple_subgraphs_functional: ``add``,
    then ``multiply``, invoked inside the `@task` ``call_multiple_subgraphs``)."""
    if namespaces.CALL in ns.rpartition(namespaces.NS_SEP)[2]:
        return True
    later = f"{ns}{namespaces.CALL}"
    return any(n.startswith(later) and i == inv for n, i in loop_keys)


def _caller_step(
    ns: str,
    inv: int,
    began: float,
    loop_keys: dict[tuple[str, int], list[tuple[str, int, int]]],
    step_att: dict[tuple[str, int, int], list[Attempt]],
) -> int | None:
    """The step of the parent loop whose task invoked `ns`, where that task logged there.

    A subgraph's namespace is named after the parent task that ran it: when that node logged
    in the parent loop (a graph invoked inside a node's body), its step holds the graph,
    however early its own lines ended; the second graph the task invoked (``node~1``, a
    call counter) too. None: no such line (the node is a graph itself, or logged nothing)."""
    parent = ns.rpartition("|")[0]
    own = base_space(ns.rpartition("|")[2]).partition(namespaces.CALL)[0]
    callers = [
        k[2]
        for k in loop_keys.get((parent, inv), ())
        if any(a.node == own and a.start_ts <= began for a in step_att.get(k, ()))
    ]
    return max(callers) if callers else None


def _next_step_after(
    loop: str,
    inv: int,
    began: float,
    loop_keys: dict[tuple[str, int], list[tuple[str, int, int]]],
    cp_keys: dict[tuple[str, int], list[tuple[str, int, int]]],
    step_att: dict[tuple[str, int, int], list[Attempt]],
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
) -> int:
    """The step of `loop` after the last one done when a run below it `began`: its tasks had
    all finished by then, or its checkpoint was taken by then."""
    done = [
        k[2]
        for k in loop_keys.get((loop, inv), ())
        if all(a.outcome == "finished" and a.end_ts <= began for a in step_att.get(k, ()))
        and k in step_att
    ]
    done += [
        k[2]
        for k in cp_keys.get((loop, inv), ())
        if stamps.get(cp_at[k].checkpoint_id, float("inf")) <= began
    ]
    return max(done, default=-1) + 1


class _StartsAbove:
    """The task starts of each loop and invocation, sorted: where the loops above a nested
    run next started a task after it (`_run_ended`)."""

    def __init__(self, step_att: dict[tuple[str, int, int], list[Attempt]]) -> None:
        by_loop: dict[tuple[str, int], list[float]] = {}
        for (ns, inv, _step), atts in step_att.items():
            by_loop.setdefault((ns, inv), []).extend(a.start_ts for a in atts)
        self.starts = {k: sorted(v) for k, v in by_loop.items()}

    def first_after(self, ns: str, inv: int, t: float) -> float | None:
        parts = ns.split(namespaces.NS_SEP)
        found = []
        for depth in range(len(parts)):
            starts = self.starts.get((namespaces.NS_SEP.join(parts[:depth]), inv), [])
            i = bisect.bisect_left(starts, t)
            if i < len(starts):
                found.append(starts[i])
        return min(found, default=None)


def _run_ended(last: float, levels: int, ns: str, inv: int, above: _StartsAbove) -> float:
    """When the parent task of nested run `ns` ended: after the run's last task, each loop
    inside it leaving first, one tick per level, in that order; yet before the next task of
    a loop above it started, which waited for it, where the log shows that sooner than the
    ticks (test_doubly_nested_graph_state under exit: parent_2 began 4 ms after
    grandchild_2 ended, and the waits of both graphs' ways out fall before it)."""
    nxt = above.first_after(ns, inv, last)
    tick = TICK if nxt is None else min(TICK, (nxt - last) / (levels + 1))
    return last + tick * levels


def _hold_silent_loops(
    containers: set[tuple[str, int, int]],
    holder_of: dict[tuple[str, int, int], int],
    run_ends: dict[tuple[str, int, int], float],
    within: dict[tuple[str, int], set[str]],
    loop_keys: dict[tuple[str, int], list[tuple[str, int, int]]],
    cp_keys: dict[tuple[str, int], list[tuple[str, int, int]]],
    step_att: dict[tuple[str, int, int], list[Attempt]],
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
    fresh: set[int],
    functional: bool,
) -> None:
    """Hold each loop that logged nothing of its own in a step of the loop above it.

    A subgraph whose only node is a graph (test_doubly_nested_graph_interrupts' child) has
    no line of its own: the graph below it was placed in its steps, but nothing said which
    step of its parent ran it, and in an invocation whose parent logs nothing before the next
    node that step (and its put) was missing. Its first and last lines are those of the
    loops below it; its parent's step is the one after the last done before them (a resume
    goes on from the parent's last saved step, a fresh input after its input and start).
    Only where the parent went on after it: a run paused below (a breakpoint) never ended
    its parent's step."""
    pending = sorted({(p, i) for p, i, _h in containers if p}, key=lambda k: -k[0].count("|"))
    starts_above = _StartsAbove(step_att)  # (this placing moves no attempt between steps)
    for ns, inv in pending:
        if any(k[0] == ns and k[1] == inv for k in holder_of):
            continue
        atts = [
            a
            for n in within.get((ns, inv), ())
            for k in loop_keys.get((n, inv), ())
            for a in step_att.get(k, ())
        ]
        if not atts:
            continue
        first = min(a.start_ts for a in atts)
        parent = ns.rpartition("|")[0]
        holder = _caller_step(ns, inv, first, loop_keys, step_att)
        if holder is None:
            holder = _next_step_after(
                parent, inv, first, loop_keys, cp_keys, step_att, cp_at, stamps
            )
        saved = [k[2] for i in range(inv) for k in cp_keys.get((parent, i), ())]
        if saved:
            lead = (2 if functional and parent == "" else 3) if inv in fresh else 1
            holder = max(holder, max(saved) + lead)
        if holder == 0 and inv in fresh and parent == "":
            holder = 1  # step 0 is `__start__`
        if not all(a.outcome == "finished" for a in atts):
            continue
        levels = 1 + max(n.count("|") - ns.count("|") for n in within.get((ns, inv), (ns,)))
        ended = _run_ended(max(a.end_ts for a in atts), levels, ns, inv, starts_above)
        went_on = any(
            k[2] > holder and any(a.start_ts >= ended - TICK * levels for a in step_att.get(k, ()))
            for k in loop_keys.get((parent, inv), ())
        )
        if not went_on:
            continue  # paused (a breakpoint below) or killed inside: its step never ended
        mine = [k[2] for k in containers if k[0] == ns and k[1] == inv]
        mine += [k[2] for k in cp_keys.get((ns, inv), ())]
        for st in range(-1, max(mine, default=-1) + 1):
            holder_of[(ns, inv, st)] = holder
        containers.add((parent, inv, holder))
        run_ends[(parent, inv, holder)] = max(run_ends.get((parent, inv, holder), ended), ended)
        if parent and (parent, inv) not in {(p, i) for p, i in pending}:
            pending.append((parent, inv))


def _under_a_task(
    keys: list[tuple[str, int, int]], step_att: dict[tuple[str, int, int], list[Attempt]]
) -> bool:
    """Were these lines logged under a namespace with a task id? Such a subgraph loop starts
    afresh in each run (its nodes log steps from 1), so lines that all carry their parent's
    step from 2 on are calls of that task (a later invocation's `@entrypoint`, whose step
    follows the earlier invocations'), not a subgraph's."""
    return all(
        a.logged_ns is not None and namespaces.NS_END in a.logged_ns
        for k in keys
        for a in step_att[k]
    )


def _calls_saved_in(
    keys: list[tuple[str, int, int]],
    step_att: dict[tuple[str, int, int], list[Attempt]],
    ns: str,
) -> tuple[str, int] | None:
    """(namespace, step) of the loop that saved these attempts' results when every one of
    them is aligned with an `@task` call saved in a loop around `ns` (an entrypoint's calls,
    and calls made by calls): they ran in that loop's step, even where a graph the calling
    task invoked checkpoints under the same namespace as the calls log."""
    found: set[tuple[str, int]] = set()
    for k in keys:
        for a in step_att[k]:
            cp = a.checkpoint
            if a.task is None or a.task.kind != "call" or cp is None or cp.step is None:
                return None
            found.add((namespaces.names(cp.checkpoint_ns), cp.step + 1))
    if len(found) != 1:
        return None
    (where, step) = next(iter(found))
    return (where, step) if not where or ns.startswith(where + "|") else None


def _stable_namespaces(attempts: list[Attempt], db_cps: Sequence[Checkpoint]) -> set[str]:
    """Nested namespaces named without a task id, by the log or the database: a subgraph
    compiled with ``checkpointer=True`` keeps one namespace across its runs (LangGraph's
    ``recast_checkpoint_ns`` has nothing to strip), any other carries ``node:<task id>``."""
    raw = [a.logged_ns for a in attempts if a.logged_ns] + [
        c.checkpoint_ns for c in db_cps if c.checkpoint_ns
    ]
    return {namespaces.names(n) for n in raw if ":" not in n}


def _went_on(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    ns: str,
    inv: int,
    after: float,
    latest: dict[tuple[str, int], float] | None = None,
) -> bool:
    """Did a task outside `ns` and its subgraphs start after `after` in this invocation (the
    subgraph had returned and its parent went on)? `latest`: each loop's last start, per
    invocation, when the caller asks many times."""
    below = ns + "|"
    if latest is None:
        latest = _latest_starts(step_att)
    return any(
        i == inv and n != ns and not n.startswith(below) and t > after
        for (n, i), t in latest.items()
    )


def _latest_starts(
    step_att: dict[tuple[str, int, int], list[Attempt]],
) -> dict[tuple[str, int], float]:
    out: dict[tuple[str, int], float] = {}
    for k, v in step_att.items():
        if v:
            t = max(a.start_ts for a in v)
            out[(k[0], k[1])] = max(out.get((k[0], k[1]), t), t)
    return out


def runs_of(
    runs: list[tuple[str, int, list[tuple[str, int, int]]]], ns: str, inv: int
) -> list[list[tuple[str, int, int]]]:
    """The runs (step keys) of one subgraph in one invocation, in order."""
    return [keys for n, i, keys in runs if n == ns and i == inv]


def _split_runs(
    keys: list[tuple[str, int, int]],
    step_att: dict[tuple[str, int, int], list[Attempt]],
    cp_at: dict[tuple[str, int, int], Checkpoint],
) -> list[list[tuple[str, int, int]]]:
    """One subgraph's steps in one invocation, split into its runs.

    A subgraph compiled with ``checkpointer=True`` keeps one history under a namespace
    without task id: run again (the parent's loop reaches its node a second time), it loads
    its latest checkpoint and takes the parent's value as a fresh input, so its steps go on
    from that history: an input checkpoint, `__start__`, then its first node
    (``pregel/_loop.py``, ``_first``: the ``input_writes`` branch saves ``{"source":
    "input"}`` at the next step). A later run shows as a checkpoint of that namespace with
    source ``input`` after step -1, or in the log as its steps skipping two numbers after a
    step whose tasks all finished."""
    ordered = sorted(keys, key=lambda k: k[2])
    runs: list[list[tuple[str, int, int]]] = [[ordered[0]]]
    for prev, cur in zip(ordered, ordered[1:], strict=False):
        finished = all(a.outcome == "finished" for a in step_att[prev])
        inputs = any(
            k[0] == cur[0] and k[1] == cur[1] and prev[2] < k[2] < cur[2] and c.source == "input"
            for k, c in cp_at.items()
        )
        if finished and (inputs or cur[2] - prev[2] >= 3):
            runs.append([])
        runs[-1].append(cur)
    return runs


def _raised_out(
    ns: str,
    inv: int,
    step: int,
    hi: int,
    atts: list[Attempt],
    end: float,
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
    step_att: dict[tuple[str, int, int], list[Attempt]],
    recording: Recording,
    raised_before: bool = False,
) -> bool | None:
    """Did a subgraph's loop leave by raising out of this, its last, step (no put after it)?
    None: the evidence cannot tell (see the end).

    A node that returns ``Command(graph=Command.PARENT, goto=...)`` raises `ParentCommand`
    (``pregel/_retry.py``, ``run_with_retry``: "this command is for the parent graph ...
    bubble up"); it leaves the subgraph's loop before ``after_tick``, so that step has no
    checkpoint, and the parent's task that ran the subgraph takes the command as its own
    writes and finishes. The database shows it: the step's tasks all finished and its
    checkpoint is missing while a later checkpoint of the subgraph or of its parent, in the
    same invocation, landed. Under sync and async a subgraph that ended normally would have
    put that step first (its `BackgroundExecutor.__exit__` waits for its puts before the
    parent step ends); under exit a subgraph saves only when it raised or paused
    (``_suppress_interrupt``), and that save is stamped when it left.

    With no later checkpoint landed yet (a slow store, the kill soon after), the parent's
    next task tells, when the recorded mode and latency are known: after a normal end the
    subgraph's executor waited one put (`BackgroundExecutor.__exit__`), and under sync the
    parent's own step put after it, before the parent's next step began; a loop that raised
    out had no put of that step to wait for, so the parent went on one put sooner.

    That reading needs the write latency. With the mode inferred as sync or async and no
    latency known (no manifest, only the recording), one put sooner cannot be measured: the
    parent went on after the subgraph's last step, and nothing shows whether that step was
    put or raised out. The answer is None, and the what-if says both readings.
    """
    if not ns or step != hi or not atts or (ns, inv, step) in cp_at:
        return False
    if not all(a.outcome == "finished" for a in atts):
        return False
    parent = ns.rpartition("|")[0]
    # Under exit the parent's own save on the way out says nothing of how the subgraph left
    # (a subgraph that returned saves nothing); only the subgraph's own save does.
    told_by = (ns,) if recording.mode == "exit" else (ns, parent)
    if any(
        k[1] == inv and k[0] in told_by and stamps[c.checkpoint_id] > end for k, c in cp_at.items()
    ):
        return True
    if raised_before and _exit_save_in_flight(inv, end, step_att, recording):
        return None
    lat = recording.latency or 0.0
    unknown = recording.mode in ("sync", "async") and recording.latency is None
    if recording.mode not in ("sync", "async") or (lat <= 0 and not unknown):
        return False
    after = [
        a.start_ts
        for k, v in step_att.items()
        if k[0] == parent and k[1] == inv
        for a in v
        if a.start_ts > end - 1e-6
    ]
    if not after:
        return False
    if unknown:
        return None
    if recording.mode == "async":
        # The loop's puts go one after another: on the way out it waits for every one still
        # in flight, the last step's too after a normal end. On a slow store they queue up
        # (at 1 s a write, three puts ahead of it: test_parent_command_goto killed in the
        # parent's next node), so one put sooner is counted from that queue, not from `end`.
        left = max(_put_queue(ns, inv, step, cp_at, stamps, lat), end)  # raised out
        return min(after) < left + lat / 2  # a normal end leaves a put (`lat`) later
    normal = lat * 2  # the waits after a normal end: its last put, then the parent's own
    return min(after) - end < normal - lat / 2


def _raised_before(
    ns: str,
    inv: int,
    atts: list[Attempt],
    raised_out: set[tuple[str, int, int]],
    step_att: dict[tuple[str, int, int], list[Attempt]],
) -> bool:
    """Did an earlier invocation's run of graph `ns` leave by raising out of a step of the
    same nodes as `atts` (`Evidence.raised_out`: a node that returns a `Command` to the
    parent)? Under exit only a save tells a raise, and the last run's may still have been in
    flight (`_exit_save_in_flight`)."""
    nodes = {a.node for a in atts}
    return any(
        k[0] == ns and k[1] < inv and {a.node for a in step_att.get(k, [])} == nodes
        for k in raised_out
    )


def _exit_save_in_flight(
    inv: int, end: float, step_att: dict[tuple[str, int, int], list[Attempt]], recording: Recording
) -> bool:
    """Under exit, could the save of a subgraph that raised out of a step ending at `end` (its
    loop saves on its way out only when it raised or paused) still have been in flight when
    the killed invocation `inv` died? So where the log's last line came within a write of
    `end`: a subgraph that returned saved nothing, one that raised had not landed its save,
    and where the same nodes raised out before (`_raised_before`) the database cannot tell
    the two (parent_command_stateful on 1.1.10 at 0.45 s a write, killed 0.05 s after `tool`
    returned its `Command(graph=PARENT)`: read as a normal end, sync was said to wait for the
    subgraph's put before `alice`'s writes and to run `tool` again, where the real sync run
    kept them and ran nothing again)."""
    if recording.mode != "exit" or recording.latency is None:
        return False
    if inv != max((k[1] for k in step_att), default=inv):
        return False  # an earlier invocation's way out had ended: its save is in the database
    last = max((line.ts for v in step_att.values() for a in v for line in a.lines), default=end)
    return last - end < recording.latency + WRITE_COST


def _put_queue(
    ns: str,
    inv: int,
    step: int,
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
    lat: float,
) -> float:
    """When the puts of loop `ns` before `step` had all landed, one after another at `lat`
    each (each put waits for the one before: ``_checkpointer_put_after_previous``), from the
    times their checkpoints were taken; -inf where none is known."""
    landed = -inf
    for key in sorted(k for k in cp_at if k[0] == ns and k[1] == inv and k[2] < step):
        landed = max(landed, stamps[cp_at[key].checkpoint_id]) + lat
    return landed


def _held_by_parent(
    step_att: dict[tuple[str, int, int], list[Attempt]], parent: str, inv: int, at: float
) -> bool:
    """Is a task of the parent loop running at `at`, by its own effect (an entrypoint that
    logs around its calls)? A task's span (a trace) holds a graph it invokes as well as its
    calls, so it tells neither."""
    return any(
        a.start_ts <= at + 1e-6 and at <= _until(a) + 1e-6 and not a.lines[0].describes_task
        for k, v in step_att.items()
        if k[0] == parent and k[1] == inv
        for a in v
    )


def _first_activity(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    cp_at: dict[tuple[str, int, int], Checkpoint],
    stamps: dict[str, float],
    inv: int,
    ns: str,
    own: list[float],
) -> float:
    """Where a loop's first steps (its input, `__start__`) sit when nothing of its own dates
    them: before its own next task (`own`) or, earlier, the first line or checkpoint of a
    namespace below it, less one tick. A root whose first node is a subgraph logs nothing of
    its own until the subgraph has returned, and an exit database is empty."""
    below = (ns + "|") if ns else ""
    times = list(own)
    times += [
        a.start_ts - TICK
        for k, v in step_att.items()
        if k[1] == inv and k[0] != ns and k[0].startswith(below)
        for a in v
    ]
    times += [
        stamps[c.checkpoint_id] - TICK
        for k, c in cp_at.items()
        if k[1] == inv and k[0] != ns and k[0].startswith(below)
    ]
    return min(times) if times else 0.0


def _has_nested(
    step_att: dict[tuple[str, int, int], list[Attempt]],
    ns: str,
    inv: int,
    lo: float,
    nxt: list[float],
) -> bool:
    hi = min(nxt) if nxt else float("inf")
    return any(
        k[0].startswith(ns + "|" if ns else "")
        and k[0] != ns
        and k[1] == inv
        and any(lo - 1e-6 <= a.start_ts <= hi for a in v)
        for k, v in step_att.items()
    )


def _recorded_lead(recording: Recording, _hi: int) -> float:
    """Before the first task of a fresh run under recorded sync: input and `__start__` puts."""
    if recording.mode == "sync" and recording.latency:
        return 2 * recording.latency
    return 0.0
