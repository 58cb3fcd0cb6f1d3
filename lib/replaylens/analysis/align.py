"""Which task of the checkpoint chain each attempt of the effects log ran.

Exact when lines carry `task_id` (as `record_effect` writes them), by superstep when
they carry `step`, and by node name, order and time otherwise (hand-written logs).
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from collections import defaultdict
from collections.abc import Collection, Sequence
from math import inf
from typing import Any

from replaylens import namespaces
from replaylens.analysis.attempts import (
    TIME_SLACK,
    Attempt,
    continues,
    group_attempts,
    number_attempts,
    retried_in_step,
    retries,
)
from replaylens.analysis.ids import ID_RULES
from replaylens.analysis.runtime import call_id_matches
from replaylens.analysis.tasks import name_entrypoint, name_from_log
from replaylens.channels import TASKS, routed_to
from replaylens.model import Checkpoint, Task, Thread
from replaylens.times import checkpoint_id_epoch, checkpoint_id_time, iso_to_epoch


class _Index:
    def __init__(
        self, thread: Thread, attempts: Sequence[Attempt] = (), runs_reversed: bool = False
    ) -> None:
        self.thread = thread
        # Subgraph runs are tried in the order of their namespaces' names, or the reverse
        # (`realigned`): where a log without task ids cannot tell which run a line was, the
        # first run that fits takes it.
        self.runs_reversed = runs_reversed
        # when each node's attempts started (a node that started again is not still due)
        self.starts: dict[str, list[float]] = defaultdict(list)
        for a in attempts:
            self.starts[a.node].append(a.start_ts)
        for times in self.starts.values():
            times.sort()  # (`_started_again` bisects them)
        # failed attempts whose process started the same node again next: a `RetryPolicy`
        # retry of the same task inside its step (`_started_again` does not count it)
        self.retried = _retried_next(attempts)
        self.by_task_id: dict[str, list[tuple[str, Checkpoint, Task]]] = defaultdict(list)
        for ns in thread.namespaces.values():
            for cp in ns.checkpoints:
                for task in [*cp.tasks, *cp.calls]:
                    self.by_task_id[task.task_id].append((ns.name, cp, task))
        self.orphan_task_ids = {w.task_id for w in thread.orphan_writes}
        self.completed_orphans = _completed_orphans(thread)
        self.calls_used: dict[str, int] = {}
        # unnamed calls that made calls, whose id no name the log gives reproduces
        # (`_prove_caller_name` tries each only once)
        self.callers_unproved: set[str] = set()
        # Tasks already given to an attempt, per (checkpoint, process): parallel starts of
        # one node in one process are different tasks, not attempts of one.
        self.taken: dict[tuple[str, int | None], set[str]] = defaultdict(set)
        # Tasks given to an attempt that finished: a later start of that node is not its retry.
        self.done: set[str] = set()
        # ...and the process that finished each: a later process (a resume) never runs a task
        # again whose writes were saved.
        self.done_pid: dict[str, int | None] = {}
        # Nodes known anywhere, and inside subgraphs only: asked for every unmatched attempt.
        self.all_nodes = _nodes_of(thread, exclude_root=False)
        self.subgraph_nodes = _nodes_of(thread, exclude_root=True)
        # nodes a subgraph's checkpoints show had run (under exit a subgraph saves its pause
        # and its end only, which name what was due then, not what ran before)
        self.ran_below = {
            node
            for ns in thread.namespaces.values()
            if ns.name
            for c in ns.checkpoints
            for node in c.record.versions_seen
            if not node.startswith("__")
        }
        self.lineages: dict[str, list[Checkpoint]] = {}
        self.lineage_ids: dict[str, set[str]] = {}
        # Every checkpoint of each loop in the order they were made, branches included: a
        # task started from the newest one made before it, on whichever branch it ran (a run
        # from an earlier checkpoint began a branch; the work before it is on the other).
        self.made: dict[str, list[Checkpoint]] = {
            ns.name: list(ns.checkpoints) for ns in thread.namespaces.values()
        }
        # When each checkpoint was saved (its `ts`), and when its loop made it (`made_at`):
        # under exit the two differ, the one save of a run coming at its end.
        self.epochs: dict[str, float | None] = {}
        self.made_times: dict[str, float | None] = {}
        # The nodes the root's checkpoints name, as tasks or in `versions_seen`.
        root = thread.namespaces.get("")
        self.root_named = {
            n
            for c in (root.checkpoints if root else [])
            for n in [*(t.node for t in c.tasks), *c.record.versions_seen]
            if n
        }
        # The tasks whose saved writes a finished line was given (`_saved_done_in`), each
        # with that line's process: a task answered in a later process saved its writes
        # there, and its lines before the pause saved none (test_multi_resume).
        self.completed: set[tuple[str, object]] = set()
        # How well each subgraph run fitted each line without a task id (`_runs_in_order`).
        self.fits: dict[int, dict[str, tuple[int, int]]] = {}
        # The process of the log's last line, where the log has more than one to tell it by.
        pids = {a.pid for a in attempts if a.pid is not None}
        last = max(attempts, key=lambda x: x.lines[-1].ts, default=None)
        self.kill_pid = last.pid if last is not None and len(pids) > 1 else None
        for ns in thread.namespaces.values():
            latest = ns.latest
            chain = ns.lineage(latest.checkpoint_id) if latest else []
            self.lineages[ns.name] = chain
            self.lineage_ids[ns.name] = {c.checkpoint_id for c in chain}
            for c in ns.checkpoints:
                self.epochs[c.checkpoint_id] = iso_to_epoch(c.ts)
                self.made_times[c.checkpoint_id] = made_at(c)
        # Subgraph runs whose caller task's writes are saved while the run's own newest
        # checkpoint still has tasks to run: the run returned, and only the caller's step was
        # saved (exit mode, on the invocation's way out; sync and async save the run's end).
        self.saved_on_exit = {
            name
            for name, ns in thread.namespaces.items()
            if name
            and ns.latest is not None
            and any(not t.done for t in ns.latest.tasks)
            and _holder_done(name, self)
        }
        # The killed process ran more of a node side by side than the runs not saved on the
        # way out hold: it ran one of those too, and its caller's writes were saved as it
        # returned, not as an invocation ended (exit's forerunner before LangGraph 0.6,
        # ``checkpoint_during=False``; test_multi_resume on 0.5.4: each worker re-runs from
        # its top in the answered invocation, and the first one answered returns and saves).
        self.killed_ran_saved = self.kill_pid is not None and _ran_a_saved_run(
            self.kill_pid, attempts, self
        )
        if self.kill_pid is not None and any(
            _finished_only_by(self.kill_pid, name, attempts, thread) for name in self.saved_on_exit
        ):
            # That run returned in an invocation that ended (exit saved its caller's writes
            # on the way out), and the log's last process ran what it needed: that process
            # was not the one killed, which logged no line (test_parallel_interrupts_double
            # on 0.6 and 1.0 under exit: the other worker re-paused before its first line in
            # the killed answer; the answered worker's lines had gone to it).
            self.kill_pid = _UNLOGGED_PID


def made_at(c: Checkpoint) -> float | None:
    """When the loop made a checkpoint: the earlier of its `ts` and the time in its uuid6 id.

    Under sync and async the two are microseconds apart. Under exit they are not: the loop
    makes each step's checkpoint in memory and saves only the last one on its way out,
    keeping its id and stamping a new `ts` (`_put_checkpoint` when exiting, in
    langgraph/pregel/_loop.py). A line belongs to the step the checkpoint began, so the id's
    time places it; the exit-time `ts` would put every line of the run before it.
    """
    times = [t for t in (iso_to_epoch(c.ts), checkpoint_id_epoch(c.checkpoint_id)) if t]
    return min(times, default=None)


_UNLOGGED_PID = -1  # the killed process, where it logged no line


def _ran_a_saved_run(pid: int, attempts: Sequence[Attempt], idx: _Index) -> bool:
    """Did process `pid` have more lines of one node open at once than there are subgraph
    runs with a task of that node, the runs saved on the way out (`saved_on_exit`) left out?"""
    for node in {a.node for a in attempts if a.pid == pid}:
        runs = {
            name
            for name, chain in idx.made.items()
            if name and any(t.node == node for c in chain for t in c.tasks)
        }
        if not runs & idx.saved_on_exit:
            continue
        edges = sorted(
            (t, step)
            for a in attempts
            if a.pid == pid and a.node == node
            for t, step in ((a.start_ts, 1), (inf if a.outcome == "in flight" else a.end_ts, -1))
        )
        most = max(itertools.accumulate(step for _t, step in edges), default=0)
        if most > len(runs - idx.saved_on_exit):
            return True
    return False


def _finished_only_by(pid: int, ns_name: str, attempts: Sequence[Attempt], thread: Thread) -> bool:
    """Was some node that subgraph run `ns_name` still had to run (a task of its newest
    checkpoint with no writes saved) finished only by process `pid`, each line of it?"""
    latest = thread.namespaces[ns_name].latest
    due = {t.node for t in latest.tasks if not t.done} if latest is not None else set()
    for node in due:
        finished = [a for a in attempts if a.node == node and a.outcome == "finished"]
        if finished and all(a.pid == pid for a in finished):
            return True
    return False


def _parent_task_id(logged_ns: str | None) -> str | None:
    return namespaces.runner(logged_ns)[1] if logged_ns else None


def _align_exact(a: Attempt, idx: _Index) -> bool:
    entries = idx.by_task_id.get(a.task_id or "")
    if not entries:
        return False
    preferred = [e for e in entries if a.logged_ns is None or e[0] == a.logged_ns] or entries
    a.namespace, a.checkpoint, a.task = preferred[0]
    a.alignment = "exact"
    _name_call(a.task, a.node, idx, "the effects log line that carries its task id")
    return True


def _name_call(task: Task, node: str, idx: _Index, source: str = "") -> None:
    """A functional @task call is known from its writes only, without its name: the effect
    line that ran it names it."""
    if task.kind == "call" and not task.node:
        task.node = node
        task.name_source = (
            source or "the effects log line aligned with it by order (not proven by its id)"
        )
        idx.all_nodes.add(node)


def _call_order(task: Task) -> tuple[int, ...]:
    return tuple(int(p) for p in task.path.split(", ") if p.isdigit())


def _named_calls(cp: Checkpoint, node: str, idx: _Index) -> list[Task]:
    """The calls of `cp`'s step whose task id is reproduced with the name `node`."""
    out = []
    stack: list[tuple[tuple[Task, ...], Task]] = [((), t) for t in cp.tasks]
    while stack:  # calls made by calls too (a @task calling a @task), each under its callers
        callers, parent = stack.pop()
        for call in parent.calls:
            if call.node == node:
                out.append(call)
            elif not call.node and call_id_matches(cp, parent, call, node, callers):
                _name_call(
                    call, node, idx, "its task id, recomputed with the name the effects log gives"
                )
                out.append(call)
            elif not call.node and call.calls:
                _prove_caller_name(cp, parent, call, callers, idx)
            if call.calls and call.node:
                stack.append(((*callers, parent), call))
    return out


def _prove_caller_name(
    cp: Checkpoint, parent: Task, call: Task, callers: tuple[Task, ...], idx: _Index
) -> None:
    """Name an unnamed call that made calls of its own, where its id is the one a node the
    log names gives it: the calls below it are hashed under its name, so until it has one
    none of them can be recomputed. A bare log's `submapper` line that began before its
    caller `mapper` logged (test_imp_nested on LangGraph 1.0.10) otherwise took a `mapper`
    call's saved result by order, and the second `mapper` was read as unsaved, running again."""
    if call.task_id in idx.callers_unproved:
        return  # (every logged name was tried on it already)
    for name in sorted(idx.starts):
        if call_id_matches(cp, parent, call, name, callers):
            _name_call(
                call, name, idx, "its task id, recomputed with the name the effects log gives"
            )
            return
    idx.callers_unproved.add(call.task_id)


def _open_caller(a: Attempt, cp: Checkpoint, idx: _Index) -> bool:
    """Is `a` (a line of a node no graph of the thread has) a call of the one task due at
    `cp`, which made `@task` calls and has not returned (an `@entrypoint` still running,
    paused or killed)?"""
    if a.node in idx.all_nodes or not cp.calls:
        return False
    callers = [t for t in cp.tasks if t.kind != "call" and t.node]
    return len(callers) == 1 and not callers[0].done


def _unnamed_results(cp: Checkpoint) -> list[Task]:
    """The saved results `cp`'s step lists as tasks of their own, with no name and no path:
    a store that keeps no task path (LangGraph 1.0 and older) cannot name a task whose id
    its reader does not recompute (a functional call, a node a `Command` made due)."""
    return [t for t in cp.tasks if t.kind == "run-time" and not (t.node or t.path) and t.done]


def _next_call(a: Attempt, cp: Checkpoint, idx: _Index) -> Task | None:
    """Hand-written logs of functional-API runs whose call ids cannot be recomputed: the
    calls a checkpoint recorded, in call order, are matched to the attempts of nodes it
    does not know, in time order."""
    calls = sorted((t for t in cp.calls if not t.node), key=_call_order)
    if not calls and a.outcome == "finished":
        # A store that keeps no task path (langgraph-checkpoint before its `task_path`
        # column: LangGraph 0.6 and older) lists a call's saved result as a task of its own,
        # unnamed, beside the step's tasks and in no call order: a line that ended took one.
        calls = _unnamed_results(cp)
    used = idx.calls_used.setdefault(cp.checkpoint_id, 0)
    if used >= len(calls):
        return None
    idx.calls_used[cp.checkpoint_id] = used + 1
    _name_call(calls[used], a.node, idx)
    return calls[used]


def _unnamed_result(a: Attempt, cp: Checkpoint, idx: _Index) -> Task | None:
    """A store that keeps no task path (LangGraph 1.0 and older) lists the saved writes of a
    task whose id its reader cannot recompute as a task of its own, unnamed: a node made due
    in the step by what the checkpoint does not hold (a `Command(goto=...)` sent at a static
    breakpoint, beside the node due there: test_command_goto_with_static_breakpoints on
    1.0.10). A line of a graph node due at no checkpoint before it, that ended, took one: its
    node is not due at `cp`, and the writes saved there are its own (read as a run of the
    later checkpoint where the node was due again, its two runs were taken for one task, and
    both said to run again). None where no unnamed result is left."""
    if a.node not in idx.all_nodes:
        return None  # a call: `_next_call`
    taken = idx.taken[(cp.checkpoint_id, a.pid)]
    free = [t for t in _unnamed_results(cp) if t.task_id not in taken]
    if len(free) != 1:
        return None  # none, or several a bare line cannot tell apart
    task = free[0]
    task.node = a.node
    task.name_source = "the effects log line aligned with it by time (not proven by its id)"
    _claim_task(a, cp, task, idx)
    return task


def _underived_result(
    a: Attempt, cp: Checkpoint, node_tasks: list[Task], idx: _Index
) -> Task | None:
    """A line of a node due at `cp` that ended, where no task the release's id rule derives
    for that node holds writes and the step holds one saved result no id names
    (`_unnamed_result`): the rule missed the written id, and the writes are the node's.
    LangGraph 0.4 hashes all of a node's triggers, a waiting edge's join channel among them,
    which no checkpoint lists before its first write (waiting_edge_plus_regular on 0.4.10
    under async at 0.25 s, bare log: `qa`, due by its regular edge beside the join, ended
    0.4 s before the kill; its derived id held no writes, and it was said to have been in
    flight and to run again). None where a task of the node holds writes, or an id of the
    database's names it."""
    if a.outcome != "finished" or not node_tasks:
        return None
    if any(t.done or not t.derived for t in node_tasks):
        return None
    return _unnamed_result(a, cp, idx)


_OUTCOME_STATUS = {
    "finished": "finished",
    "failed": "failed",
    "interrupted": "interrupted",
    "in flight": "pending",
}


def _send_arg(cp: Checkpoint, task: Task) -> Any:
    if task.send_index is None:
        return None
    packets = cp.record.scheduling_values.get(TASKS)
    if not isinstance(packets, list | tuple):
        packets = getattr(cp.record, "pending_sends", None) or []
    if task.send_index < len(packets):
        return getattr(packets[task.send_index], "arg", None)
    return None


def _key_fit(a: Attempt, cp: Checkpoint, task: Task) -> int:
    """1: a business key of the attempt equals the task's `Send` argument; -1: one differs; 0: no key shared."""
    arg = _send_arg(cp, task)
    if not isinstance(arg, dict):
        return 0
    shared = [k for k in a.keys if k in arg]
    if not shared:
        return 0
    return 1 if all(arg[k] == a.keys[k] for k in shared) else -1


def pick_task(
    a: Attempt, cp: Checkpoint, node_tasks: list[Task], idx: _Index, *, claim: bool = True
) -> Task | None:
    """Which of the tasks of node `a.node` due after `cp` this attempt ran.

    Parallel tasks of one node (a `Send` fan-out, parallel @task calls) each get their own
    attempt within one process: a task already given to an attempt of the same process is
    passed over. Among the rest: the one whose `Send` argument carries the attempt's
    business key; else one whose saved status fits what the log shows (an `end` line and
    saved writes; no `end` line and no writes); else the first. An attempt whose outcome
    fits no remaining task is marked ambiguous. `claim=False` only asks: the caller claims
    the task (`_claim_task`) once it keeps the answer.
    """
    if not node_tasks:
        return None
    taken = idx.taken[(cp.checkpoint_id, a.pid)]
    free = [t for t in node_tasks if t.task_id not in taken]
    pool = [t for t in free if _key_fit(a, cp, t) >= 0] or free
    # A task another process finished, its writes saved, is never run again: a resume reuses
    # them (a tool that paused beside one that finished re-runs alone).
    others = [t for t in pool if t.done and idx.done_pid.get(t.task_id, a.pid) != a.pid]
    if others and len(others) == len(pool) and _paused_at(cp) and not any(t.paused for t in others):
        # the step paused (an interrupt beside them): the resume reuses every write a task
        # of an earlier process saved, so this start is a later step's (send_dedupe_on_
        # resume under async, bare: the resume's `3`, after the answered `flaky`, had been
        # read as the first process's finished `3`)
        return None
    pool = [t for t in pool if t not in others] or pool
    if not pool:  # every task of that node already has an attempt here: a retry in the same process
        if len(node_tasks) == 1 and node_tasks[0].task_id not in idx.done:
            return node_tasks[0]
        return None  # the one task finished already: this start belongs to a later step
    by_key = [t for t in pool if _key_fit(a, cp, t) == 1]
    want = _OUTCOME_STATUS.get(a.outcome)
    fitting = [
        t
        for t in pool
        if (t.status == want)
        or (want == "pending" and not t.done)
        or (want == "failed" and t.status == "handled")
    ]
    if not by_key and not fitting and want != "finished" and all(t.kind == "call" for t in pool):
        return None  # a call is saved only when it returns: this one has no record
    if by_key:
        chosen = by_key[0]
    elif fitting:
        chosen = fitting[0]
    else:
        # An attempt that did not end well saved no writes: a task whose writes are saved is
        # another line's, whichever comes first (a failure a `RetryPolicy` retries saves no
        # error; lines taken in start order may reach it before the line that finished).
        chosen = next((t for t in pool if not t.done), pool[0]) if want != "finished" else pool[0]
        if len(node_tasks) > 1:
            a.flag(
                f"its log shows it {a.outcome}, but no remaining `{a.node}` task of that step is {want}; "
                f"taken to be the task {chosen.task_id} ({chosen.status})"
            )
    if claim:
        _claim_task(a, cp, chosen, idx)
    return chosen


def _paused_at(cp: Checkpoint) -> bool:
    """Did a task of the step after `cp` pause (an interrupt write saved against it)?"""
    return any(w.channel == "__interrupt__" for w in cp.writes)


def _claim_task(a: Attempt, cp: Checkpoint, task: Task, idx: _Index) -> None:
    """`a` ran `task`: no other attempt of its process takes it, and a finished one marks it
    done (by that process)."""
    idx.taken[(cp.checkpoint_id, a.pid)].add(task.task_id)
    if a.outcome == "finished":
        idx.done.add(task.task_id)
        idx.done_pid.setdefault(task.task_id, a.pid)


def _align_step(a: Attempt, idx: _Index) -> bool:
    ns_name = a.logged_ns if a.logged_ns in idx.thread.namespaces else ""
    ns = idx.thread.namespaces.get(ns_name or "")
    if ns is None or a.step is None:
        return False
    candidates = [
        (c, t)
        for c in ns.checkpoints
        if c.step is not None and c.step + 1 == a.step
        for t in c.tasks
        if t.node == a.node
    ]
    on_lineage = [(c, t) for c, t in candidates if c.checkpoint_id in idx.lineage_ids[ns.name]]
    chosen = on_lineage or candidates
    if not chosen:
        latest = ns.latest
        if latest is not None and latest.step is not None and a.step > latest.step:
            a.namespace, a.alignment = ns.name, "after-latest"
            return True
        return False
    a.namespace = ns.name
    cp = chosen[-1][0]
    a.checkpoint = cp
    a.task = pick_task(a, cp, [t for c, t in chosen if c is cp], idx) or chosen[-1][1]
    a.alignment = "step"
    return True


def _held_on_another_branch(a: Attempt, ns_name: str, idx: _Index) -> bool:
    """Did `a` finish in a step whose start was never saved, and whose end a checkpoint of
    its loop holds, though not on the branch the loop's newest checkpoint is on? A run from an
    earlier checkpoint of that loop (a replay from a subgraph's own checkpoint) makes the
    newest checkpoint an older step's copy; the old branch's later checkpoint, made after
    `a` ended, still shows its step complete (test_subgraph_replay_from_subgraph_checkpoint
    under exit, killed in the replay's answer: the first branch's step_b is not run again)."""
    if a.outcome != "finished" or a.step is None:
        return False
    return any(
        c.step is not None
        and c.step >= a.step
        and c.checkpoint_id not in idx.lineage_ids.get(ns_name, set())
        and (idx.epochs.get(c.checkpoint_id) or 0) >= a.end_ts
        for c in idx.made.get(ns_name, ())
    )


def _returned_before(ns_name: str, ts: float, idx: _Index) -> bool:
    """Had the subgraph run `ns_name` returned before `ts`? Its namespace ends with the task
    that ran it (``node:task_id``); a later checkpoint of that task's loop, saved before
    `ts`, shows the task's step complete, so nothing after `ts` ran in that run. (A
    ``checkpointer=True`` namespace names no task: it holds every run, and is never ruled out.)"""
    holder = _parent_task_id(ns_name)
    owners = idx.by_task_id.get(holder or "")
    if not owners:
        return False
    loop, cp, _task = owners[0]
    if loop != ns_name.rpartition(namespaces.NS_SEP)[0] or cp.step is None:
        return False
    return any(
        c.step is not None and c.step > cp.step and (idx.epochs.get(c.checkpoint_id) or 0) <= ts
        for c in idx.lineages.get(loop, ())
    )


def _holder_done(ns_name: str, idx: _Index) -> bool:
    """Has the task that ran subgraph run `ns_name` (its namespace names it, ``node:<task
    id>``) saved its writes? Then that run returned, and no line in flight at the kill was
    its: a resume never runs that task again (test_parallel_interrupts_double under exit,
    where the database keeps each worker's pause and its root task's writes only: the
    worker answered first is done, the line killed is the other's). Not asked of a line
    whose start the log could not tell from others' (`Attempt.peers`): which of those is
    the one in flight is itself a guess."""
    holder = _parent_task_id(ns_name)
    owners = idx.by_task_id.get(holder or "")
    return bool(owners) and owners[0][2].done


def _first_saved_after(a: Attempt, idx: _Index, candidates: list[str]) -> bool:
    """A subgraph run whose first saved checkpoint came after the attempt started (exit mode
    saves a nested loop only on its way out, stamped then): the run whose first checkpoint
    is the nearest after the attempt, if that checkpoint has the attempt's node due."""
    firsts = sorted(
        ((idx.epochs.get(idx.lineages[n][0].checkpoint_id) or 0), n)
        for n in candidates
        if idx.lineages[n] and idx.lineages[n][0].source != "input"
    )
    for _t, ns_name in firsts[:1]:
        first = idx.lineages[ns_name][0]
        task = pick_task(a, first, _tasks_of(first, a.node, idx), idx)
        if task is not None:
            a.namespace, a.checkpoint, a.task, a.alignment = ns_name, first, task, "time"
            return True
        if (
            a.outcome == "finished"
            and a.node in first.record.versions_seen
            and (idx.epochs.get(first.checkpoint_id) or 0) >= a.end_ts
        ):
            # its node had run when that checkpoint was saved, after it ended: its step
            # completed there (a run of the subgraph that paused after it, under exit)
            a.namespace, a.alignment = ns_name, "before-saved"
            return True
    return False


def _started_again(a: Attempt, cp: Checkpoint, idx: _Index) -> bool:
    """Did `a`'s node start again after `a` and before `cp` was saved? Then the task `cp`
    has due of that node is the later one's (a loop's node under exit, whose one checkpoint,
    saved as the invocation raised, has it due again: test_recursion_limit_retry, a bare log
    whose first ``tools`` was filed 24 steps late)."""
    if id(a) in idx.retried:
        return False  # its next start was its own retry: the same task, still due at `cp`
    until = idx.epochs.get(cp.checkpoint_id) or 0
    times = idx.starts.get(a.node, [])
    return bisect.bisect_right(times, until) > bisect.bisect_right(times, a.start_ts)


def _ran_before_step(a: Attempt, cp: Checkpoint, idx: _Index) -> bool:
    """Did another node start after `a` ended and before `cp` was made? Then a step ran
    between: `a` was a task of an earlier step, not one `cp` has due (test_recursion_limit_
    retry under exit, bare: the last `tools` of the first invocation, then `agent`, then the
    checkpoint saved at the raise with `tools` due again)."""
    made = idx.made_times.get(cp.checkpoint_id)
    if a.outcome != "finished" or made is None:
        return False
    return any(
        a.end_ts <= t <= made for node, times in idx.starts.items() if node != a.node for t in times
    )


def _retried_next(attempts: Sequence[Attempt]) -> set[int]:
    """id() of failed attempts whose process next started the same node, after the failure:
    `run_with_retry` (``pregel/_retry.py``) runs the task again at once, in its step
    (test_pending_writes_resume's ``two``, two attempts a bare log shows 3 ms apart)."""
    ordered = sorted(attempts, key=lambda x: x.start_ts)
    out: set[int] = set()
    for i, a in enumerate(ordered):
        if a.outcome != "failed":
            continue
        nxt = next(
            (b for b in ordered[i + 1 :] if b.pid == a.pid and b.start_ts >= a.end_ts - 1e-6),
            None,
        )
        if (
            nxt is not None
            and nxt.node == a.node
            and (not a.task_id or not nxt.task_id or a.task_id == nxt.task_id)
        ):
            out.add(id(a))
    return out


def _still_due_after(
    a: Attempt, idx: _Index, later: list[Checkpoint]
) -> tuple[Checkpoint, Task] | None:
    """...unless the first checkpoint saved after it ended still has its node due, its output
    not written (paused, or in flight), and the node did not start again in between: then
    its task never completed — it paused inside a graph it called after its own lines
    (under exit, the invocation's save on its way out; test_subgraph_persistence_async's
    stateful graph awaited in a node, a bare log). The checkpoint and that task, else None."""
    saved = [c for c in later if (idx.epochs.get(c.checkpoint_id) or 0) >= a.end_ts]
    if not saved:
        return None
    first = saved[0]
    if _started_again(a, first, idx):
        return None  # the node started again before it: a later task of it is the due one
    due = [t for t in _tasks_of(first, a.node, idx) if not t.done]
    return (first, due[0]) if len(due) == 1 else None


def _step_saved_between(prev: Attempt, a: Attempt, idx: _Index) -> bool:
    """Was a later checkpoint of `prev`'s loop made after `prev` ended and before `a` began?
    A loop makes its next checkpoint once every task of the step is done, so `a` is not
    `prev`'s task going on (a bare log's same node again in one process: the next graph
    call, the loop's next round)."""
    cp = prev.checkpoint
    if cp is None or cp.step is None:
        return False
    return any(
        c.step is not None
        and c.step > cp.step
        and prev.end_ts <= (idx.epochs.get(c.checkpoint_id) or 0) <= a.start_ts
        for c in idx.made.get(prev.namespace or "", ())
    )


def _made_before(ns_name: str, ts: float, idx: _Index) -> list[Checkpoint]:
    """The checkpoints of loop `ns_name` made by `ts`, in the order they were made (a task's
    first line always follows the creation of the checkpoint it started from)."""
    made = idx.made_times
    return [c for c in idx.made.get(ns_name, []) if (made.get(c.checkpoint_id) or 0) <= ts]


def _saved_done_in(a: Attempt, ns_name: str, idx: _Index) -> bool:
    """Does the newest checkpoint of run `ns_name` made before `a` started have a task of
    `a`'s node whose writes are saved and that no line was given yet?"""
    before = _made_before(ns_name, a.start_ts, idx)
    if not before:
        return False
    taken = idx.taken[(before[-1].checkpoint_id, a.pid)] | {
        t for t, pid in idx.completed if pid == a.pid
    }
    return any(t.done and t.task_id not in taken for t in _tasks_of(before[-1], a.node, idx))


def _runs_in_order(a: Attempt, idx: _Index) -> list[str]:
    """The loops `a` is tried in: the root first, then the subgraph runs by name (or the
    reverse, `realigned`). Two `Send` workers' runs of one subgraph, answered one interrupt
    at a time (test_parallel_interrupts_double, a bare log), show which run a line without a
    task id was:

    * a finished line tries first the runs in which a task of its node has its writes saved
      (the run that paused again has none), and among runs that fit alike, the one whose
      step ended as the line did (`_seen_after`);
    * a run that returned, though its own newest checkpoint still has tasks to run
      (`_Index.saved_on_exit`: exit saves the caller's step on the way out, not the run's
      end), returned in an invocation that ended: no line of the killed process is its, and
      the lines of the earlier processes are tried there first, since it ran all its nodes
      in them. Only where the log shows more than one process to tell the killed one, and
      not for the killed process's finished lines where it ran that run too
      (`_Index.killed_ran_saved`: the run's writes were saved as it returned)."""
    order = sorted(idx.lineages, key=lambda n: (n != "", n))
    if idx.runs_reversed:
        order = order[:1] + order[:0:-1] if order and order[0] == "" else order[::-1]
    if a.task_id:
        return order

    def fit(n: str) -> tuple[int, int]:
        saved_on_exit = n in idx.saved_on_exit
        if (
            saved_on_exit
            and a.pid == idx.kill_pid
            and (not idx.killed_ran_saved or a.outcome != "finished")
        ):
            return (2, 1)
        saved = a.outcome == "finished" and _saved_done_in(a, n, idx)
        return (0 if saved else 1, 0 if saved_on_exit and idx.kill_pid is not None else 1)

    fits = {n: fit(n) for n in order if n}
    idx.fits[id(a)] = fits
    return [n for n in order if not n] + sorted(
        fits, key=lambda n: (*fits[n], _seen_after(a, n, idx))
    )


def _seen_after(a: Attempt, ns_name: str, idx: _Index) -> float:
    """How soon after finished line `a` ended run `ns_name` made a checkpoint that shows
    `a`'s node has run (infinity: none, or `a` did not finish). A loop makes its next
    checkpoint as its step's last task returns, so among runs that fit a line alike, the one
    whose step ended as the line did is its run (three `Send` workers' runs of one subgraph,
    their edits ending in turn: send_to_subgraph, a bare log under sync)."""
    if a.outcome != "finished":
        return inf
    for c in idx.made[ns_name]:
        at = idx.epochs.get(c.checkpoint_id) or 0
        if at >= a.end_ts and a.node in c.record.versions_seen:
            return at - a.end_ts
    return inf


def _seen_run_after(a: Attempt, ns_name: str, idx: _Index) -> bool:
    """Did subgraph run `ns_name` save, after finished line `a` ended, a checkpoint showing
    `a`'s node had run since the newest checkpoint it made before `a` began (its entry in
    `versions_seen` changed), where no checkpoint of the root names that node? Then `a` ran
    in a step of that run that was never saved and that a later checkpoint holds: under
    exit a ``checkpointer=True`` graph a node invokes saves on its own way out, not its
    steps (test_subgraph_checkpoint_true_interrupt, killed in ``node_3`` after the answered
    graph returned: its ``subgraph_node_2`` is not run again)."""
    if a.outcome != "finished" or a.node in idx.root_named:
        return False
    made = idx.made.get(ns_name, [])
    before = _made_before(ns_name, a.start_ts, idx)
    seen = before[-1].record.versions_seen.get(a.node) if before else None
    return any(
        (idx.epochs.get(c.checkpoint_id) or 0) >= a.end_ts
        and c.record.versions_seen.get(a.node) not in (None, seen)
        for c in made
    )


def _align_time(a: Attempt, idx: _Index) -> bool:
    """Hand-written logs: the latest checkpoint before the attempt started, per namespace."""
    order = _runs_in_order(a, idx)
    unsaved_yet: list[str] = []  # subgraph runs with no checkpoint saved before the attempt
    # A subgraph run whose checkpoints were all saved after the attempt ended, the first
    # showing the attempt's node had run: the attempt is that run's (under exit a subgraph
    # saves its pause, not the steps before it), not the root's after its newest checkpoint.
    ran_in_later_run = (
        a.outcome == "finished"
        and any(
            n
            and idx.made[n]
            and all((idx.epochs.get(c.checkpoint_id) or 0) >= a.end_ts for c in idx.made[n])
            and a.node in idx.made[n][0].record.versions_seen
            for n in order
        )
        or any(n and _seen_run_after(a, n, idx) for n in order)
    )
    for ns_name in order:
        chain = idx.made[ns_name]
        if ns_name and _returned_before(ns_name, a.start_ts, idx):
            continue  # that run had returned: the attempt belongs to a later one
        if ns_name and a.outcome == "in flight" and not a.peers and _holder_done(ns_name, idx):
            continue  # the task that ran that graph saved its writes: it was not killed in it
        # A task's first line always follows the creation of the checkpoint it started from.
        before = _made_before(ns_name, a.start_ts, idx)
        if not before and ns_name:
            unsaved_yet.append(ns_name)
        if not before:
            if chain and ns_name == "":
                # The first saved checkpoint is not the run's start (exit mode saves one
                # checkpoint when the invocation ends, stamped with the save time; an
                # `@entrypoint`'s input checkpoint, whose step holds its @task calls, too).
                first = chain[0]
                task = pick_task(a, first, _tasks_of(first, a.node, idx), idx, claim=False)
                if (
                    task is not None
                    and task.kind != "call"
                    and (_started_again(a, first, idx) or _ran_before_step(a, first, idx))
                ):
                    task = None  # a later task of its node is the one due there (left to it)
                if task is not None:
                    _claim_task(a, first, task, idx)
                    a.namespace, a.checkpoint, a.task, a.alignment = ns_name, first, task, "time"
                    return True
                if first.source != "input" and a.node not in idx.subgraph_nodes:
                    a.namespace, a.alignment = ns_name, "before-saved"
                    return True
            continue
        cp = before[-1]
        node_tasks = _tasks_of(cp, a.node, idx)
        task = _underived_result(a, cp, node_tasks, idx) if ns_name == "" else None
        task = task or pick_task(a, cp, node_tasks, idx)
        if task is None and not node_tasks and ns_name == "" and a.node not in idx.all_nodes:
            task = _next_call(a, cp, idx)
        if task is None and not node_tasks and ns_name == "" and a.outcome == "finished":
            task = _unnamed_result(a, cp, idx)
        if task is None and any(t.kind == "call" for t in node_tasks):
            # A call of this name without a saved result: it was in flight (LangGraph saves
            # a call only when it returns), so the parent's re-run makes it again.
            a.namespace, a.checkpoint, a.alignment = ns_name, cp, "call-unsaved"
            return True
        if task is None and not node_tasks and ns_name == "" and _open_caller(a, cp, idx):
            # No call of this name was saved at all (exit saves a paused entrypoint's calls
            # only as it left, and this one came in the answering invocation): a line of a
            # node the graph does not have, after a checkpoint whose one due task makes calls
            # and has not returned, is one more call of it (falsy_task_interrupt, bare log).
            a.namespace, a.checkpoint, a.alignment = ns_name, cp, "call-unsaved"
            return True
        if task is None and len(before) > 1 and cp.source != "input":
            # (never across an input checkpoint: a new input's tasks are never the tasks of
            # a checkpoint before it, however soon after it they start)
            prev = before[-2]
            if a.start_ts - (idx.epochs.get(cp.checkpoint_id) or 0) <= TIME_SLACK:
                task = pick_task(a, prev, _tasks_of(prev, a.node, idx), idx)
                cp = prev if task is not None else cp
        if task is not None:
            a.namespace, a.checkpoint, a.task, a.alignment = ns_name, cp, task, "time"
            return True
        if ns_name and not node_tasks and _seen_run_after(a, ns_name, idx):
            a.namespace, a.alignment = ns_name, "before-saved"
            return True
        if (
            task is None
            and not node_tasks
            and ns_name == ""
            and a.outcome == "finished"
            and a.node not in idx.subgraph_nodes
            and any(
                (idx.epochs.get(c.checkpoint_id) or 0) >= a.end_ts for c in chain[len(before) :]
            )
            and not _call_below(a, idx)
        ):
            # Due at no checkpoint saved before it, finished before a later one was made: it
            # ran in a step whose checkpoint was never saved (under exit, every step but the
            # last of an invocation), and the later checkpoint holds its result...
            paused = _still_due_after(a, idx, chain[len(before) :])
            if paused is not None:
                a.namespace, a.checkpoint, a.task, a.alignment = (
                    ns_name,
                    paused[0],
                    paused[1],
                    "time",
                )
                return True
            a.namespace, a.alignment = ns_name, "before-saved"
            return True
        if (
            cp is chain[-1]
            and ns_name == ""
            and a.node not in idx.subgraph_nodes
            and not ran_in_later_run
            and not _call_below(a, idx)
        ):
            # It ran after the newest checkpoint landed, in a step that never got one.
            a.namespace, a.alignment = ns_name, "after-latest"
            return True
    return (a.node in idx.subgraph_nodes or a.node in idx.ran_below) and _first_saved_after(
        a, idx, unsaved_yet
    )


def _continue_effect(a: Attempt, attempts: Sequence[Attempt], idx: _Index) -> bool:
    """An attempt of a bare log no free task takes: the next effect of the task whose attempt
    of its node, in its process, ended last before it began, with no attempt of any node
    started in between. Parallel tasks of one node start together, so the attempt just
    before it may still be open (two `Send` workers ask, one is answered and records:
    test_parallel_interrupts); every task of the step was then given to an earlier line. A
    line the kill cut short goes on no task that returned (three workers answered at once,
    test_multi_resume: the last worker's second effect is not the first one's)."""
    done = [
        b
        for b in attempts
        if b is not a
        and b.node == a.node
        and b.pid == a.pid
        and b.task is not None
        and b.outcome == "finished"
        and b.end_ts <= a.start_ts
        # a task that returned (its writes saved) had no effect the kill cut short
        and not (a.outcome == "in flight" and b.task.done)
    ]
    if not done:
        return False
    prev = max(done, key=lambda b: b.end_ts)
    # (any node: a task that began in between is the next step's, or the graph going on)
    later = any(b.pid == a.pid and prev.end_ts < b.start_ts < a.start_ts for b in attempts)
    if later or not continues(prev, a) or _step_saved_between(prev, a, idx):
        return False
    a.namespace, a.checkpoint, a.task, a.alignment = (
        prev.namespace,
        prev.checkpoint,
        prev.task,
        prev.alignment,
    )
    return True


def _next_graph(a: Attempt, before: Attempt | None, idx: _Index) -> bool:
    """A bare line no checkpoint takes, right after a line of a subgraph run whose latest
    checkpoint, saved before it began, has nothing due: that run had ended, so the line is no
    later step of it. A node several graphs share (one ``echo`` in a fruit agent and in a
    veggie agent that one task invokes in turn, test_stateful_subgraph_namespace_isolation)
    is then a task of the next of those graphs, in the order the database shows them first
    run: the line is filed under that graph's newest run, with no checkpoint or task (its
    own run saved none). False where the run before may have gone on, or no later graph
    ran the node."""
    if a.logged_ns is not None or before is None or not before.namespace:
        return False
    if a.node not in idx.subgraph_nodes:
        return False
    saved = [
        c
        for c in idx.made.get(before.namespace, ())
        if before.start_ts <= (idx.epochs.get(c.checkpoint_id) or 0) <= a.start_ts
    ]
    if not saved or saved[-1].tasks or saved[-1].source == "input":
        return False
    runs: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for name, made in idx.made.items():
        times = [t for c in made for t in [idx.epochs.get(c.checkpoint_id)] if t is not None]
        if name and times and any(t.node == a.node for c in made for t in c.tasks):
            runs[namespaces.names(name)].append((min(times), name))
    here = min(runs.get(namespaces.names(before.namespace), [(inf, "")]))[0]
    later = sorted((min(r)[0], max(r)[1]) for r in runs.values() if min(r)[0] > here)
    if not later:
        return False
    a.namespace, a.alignment = later[0][1], "next-graph"
    return True


def _unsaved_run(a: Attempt, thread: Thread) -> bool:
    """A bare line no checkpoint takes, of the node a subgraph run that saved no checkpoint
    was to run first: that run's ``__start__`` task put its writes, routing to the node
    (``branch:to:<node>``; ``start:<node>`` before LangGraph 0.3), on an input checkpoint that
    never landed, made before the line began, in a namespace with no checkpoint. The line is
    that run's first task, which its caller runs again (test_parent_command_from_nested_subgraph:
    the second graph a node invokes, killed in it under async before its input checkpoint
    landed; read as the first graph's, whose run had ended, sync kept 2 checkpoints fewer)."""
    if a.logged_ns is not None:
        return False
    runs = {
        ns.name
        for ns in thread.namespaces.values()
        if ns.name
        and not ns.checkpoints
        and any(
            routed_to(w.channel) == a.node
            and (checkpoint_id_epoch(w.checkpoint_id) or inf) <= a.start_ts
            for w in ns.orphan_writes
        )
    }
    if len(runs) != 1:
        return False
    a.namespace, a.alignment = runs.pop(), "next-graph"
    return True


def _call_below(a: Attempt, idx: _Index) -> bool:
    """Is there an @task call of `a`'s node, proven by its task id, at a subgraph checkpoint
    saved before `a` began? A functional graph a node invokes (test_multiple_subgraphs_mixed
    _state_graph's `add`, twice) records its calls without their names: a line no root
    checkpoint names is that call, not a root step whose checkpoint was never saved."""
    return any(
        _named_calls(c, a.node, idx)
        for n, made in idx.made.items()
        if n
        for c in made
        if (idx.epochs.get(c.checkpoint_id) or 0) <= a.start_ts
    )


def _tasks_of(cp: Checkpoint, node: str, idx: _Index) -> list[Task]:
    """Tasks (and @task calls) of `cp`'s step that ran `node`."""
    return [t for t in cp.tasks if t.node == node] + _named_calls(cp, node, idx)


def _nodes_of(thread: Thread, *, exclude_root: bool) -> set[str]:
    return {
        t.node
        for ns in thread.namespaces.values()
        if not (exclude_root and ns.name == "")
        for c in ns.checkpoints
        for t in [*c.tasks, *c.calls]
        if t.node
    }


def _claim_orphans(attempts: list[Attempt], thread: Thread, completed: set[str]) -> None:
    """Logs without task ids: a finished attempt that ran after the newest checkpoint is
    the owner of an orphan write of its step (the write landed, its checkpoint did not)
    when the write's checkpoint id dates from before the attempt started and its task is
    the attempt's node (`~__pregel_pull, <node>`); `Send` workers and @task calls, whose
    task paths carry no name, take the remaining orphan tasks of that step in order.

    A task saves its writes as it returns, so of several finished attempts of one node in
    that step (a node that logs two effects, a RetryPolicy retry between them), the named
    task is the last one's: the earlier ones are its first effects (test_retry.py's node
    that reserves, then charges). `completed`: the orphans' tasks whose step completed all
    the same (`_completed_orphans`)."""
    by_cp: dict[str, dict[str, str]] = defaultdict(dict)  # checkpoint id -> task id -> path
    for w in thread.root.orphan_writes if thread.root else []:
        by_cp[w.checkpoint_id].setdefault(w.task_id, w.task_path)
    if not by_cp:
        return
    born = {cp: iso_to_epoch(checkpoint_id_time(cp) or "") for cp in by_cp}
    owners: dict[tuple[str, str], list[Attempt]] = defaultdict(list)  # (cp, node) -> attempts
    for a in sorted(attempts, key=lambda x: x.start_ts):
        if a.task_id or a.alignment != "after-latest" or a.outcome != "finished":
            continue
        before = [cp for cp, t in born.items() if t is not None and t <= a.start_ts + TIME_SLACK]
        if before:
            owners[(max(before, key=lambda c: born[c] or 0.0), a.node)].append(a)
    taken: set[str] = set()
    for (cp, node), ran in owners.items():
        named = [tid for tid, path in by_cp[cp].items() if path.split(", ")[-1] == node]
        if named:
            for a in _effects_up_to(ran[-1], attempts, born[cp] or 0.0):
                _claim(a, named[0], taken, completed)
            continue
        every = sum(1 for path in by_cp[cp].values() if path.startswith("~__pregel_push"))
        for a in ran:
            # Send workers start in packet order, the order of their paths' index.
            free = sorted(
                (path, tid)
                for tid, path in by_cp[cp].items()
                if tid not in taken and path.startswith("~__pregel_push")
            )
            if not free:
                break
            _claim(a, free[0][1], taken, completed)
            if every > 1:
                a.flag(f"one of {every} orphan `Send`/@task writes of that step, taken in order")


def _effects_up_to(owner: Attempt, attempts: list[Attempt], since: float) -> list[Attempt]:
    """`owner` and the attempts of its node its process logged right before it, since
    `since` (its step's checkpoint was made): one task's earlier effects, and the failures a
    RetryPolicy ran again, with no other node's line between."""
    ordered = sorted(attempts, key=lambda x: x.start_ts)
    run = [owner]
    for a in reversed(ordered[: next(i for i, x in enumerate(ordered) if x is owner)]):
        if (
            a.node != owner.node
            or a.pid != owner.pid
            or a.task_id is not None
            or a.outcome == "in flight"
            or a.start_ts + TIME_SLACK < since
            or (a.end_ts or a.start_ts) > run[-1].start_ts
        ):
            break
        run.append(a)
    return run


def _claim(a: Attempt, task_id: str, taken: set[str], completed: set[str]) -> None:
    """Give `a` an orphan write's task (`completed`: `_completed_orphans`)."""
    taken.add(task_id)
    a.task_id, a.task_id_inferred = task_id, True
    a.alignment = "before-saved" if task_id in completed else "orphaned"


def _completed_orphans(thread: Thread) -> set[str]:
    """Task ids of orphan writes whose step completed all the same: a saved checkpoint of
    their namespace names the one they hang off as its parent, so the loop went on from it
    and the next checkpoint holds their results. LangGraph 0.3 under exit
    (``checkpoint_during=False``) saves the writes of an input's `__start__` but not the
    input checkpoint, then the checkpoint of the step that paused: a resume loads that one
    and runs nothing of `__start__` again (partial_pending_checkpoint on 0.3.34)."""
    out: set[str] = set()
    for ns in thread.namespaces.values():
        parents = {c.parent_checkpoint_id for c in ns.checkpoints}
        out |= {w.task_id for w in ns.orphan_writes if w.checkpoint_id in parents}
    return out


def name_tasks_from_log(
    attempts: Sequence[Attempt], thread: Thread, names: Collection[str] = ()
) -> None:
    """Name what the database alone leaves unnamed from the nodes the log's lines give, and
    `names`, those the recording names (`Recording.named_nodes`: the graph code's, the node a
    kill was aimed at): an `@entrypoint` read as a `StateGraph` (`name_entrypoint_from_log`),
    and a task of a checkpoint before format v3 whose written id no node the database names
    reproduces (`tasks.name_from_log`). A name is taken only where the id LangGraph derives
    from it is the written one. Every reading that puts a log beside a thread names them so
    (`align`, `timetravel.preview`), whichever load of the thread it holds."""
    names = {a.node for a in attempts if a.node} | set(names)
    name_entrypoint_from_log(attempts, thread, names)
    name_from_log(thread, names)


def name_entrypoint_from_log(
    attempts: Sequence[Attempt], thread: Thread, names: Collection[str] = ()
) -> None:
    """An `@entrypoint` read as a `StateGraph` (`__start__` due at its input checkpoint)
    where nothing in the database names it: a store that keeps no task path (LangGraph 0.6)
    names neither the entrypoint nor its `@task` calls. The log does: its own line's task id,
    or the namespace its calls logged (``graph:<id>``), proves the name where the id is the
    one LangGraph derives for that node (`tasks.name_entrypoint`). A bare log carries neither:
    each of `names` is tried on the ids the entrypoint's own writes stand under, unnamed (its
    pause, the answers to it). LangGraph 0.6.11's multiple_interrupts_functional, a bare log
    of `double` calls only, killed as the third answer's run paused: read as a `StateGraph`
    whose `double` ran as steps, sync was said to keep the pause (2 kept) where every real
    sync run lost it (1); the kill was aimed at the entrypoint, which the manifest names."""
    heads = {(n, tid) for tid in _unnamed_root_ids(thread) for n in names}
    for a in attempts:
        if a.task_id and not a.logged_ns:
            heads.add((a.node, a.task_id))
        elif a.logged_ns:
            node, _, tid = namespaces.levels(a.logged_ns)[0].partition(namespaces.NS_END)
            if tid:
                heads.add((node, tid))
    for rule in ID_RULES if heads else ():
        if name_entrypoint(thread, heads, rule):
            break  # (a match proves the rule too)


def _unnamed_root_ids(thread: Thread) -> set[str]:
    """The written ids no task of a root checkpoint's step is named for (`_unnamed_results`
    and an entrypoint's own pause, which never returned)."""
    root = thread.root
    return {
        t.task_id
        for cp in (root.checkpoints if root is not None else ())
        for t in cp.tasks
        if t.kind == "run-time" and not t.node and not t.derived
    }


def realigned(attempts: list[Attempt], thread: Thread) -> list[Attempt] | None:
    """Copies of `attempts` aligned with the subgraph runs tried in the other order, where
    that places a line without a task id in another run; else None.

    Two `Send` workers of one node, each in a run of its own subgraph, log the same lines at
    the same moments: a bare log cannot say which worker was answered and went on, and
    which paused (test_parallel_interrupts). The durability model reads both placements and
    gives the range over them."""
    if not any(a.task_id is None for a in attempts) or sum(1 for n in thread.namespaces if n) < 2:
        return None
    copies = [
        dataclasses.replace(
            a, lines=list(a.lines), namespace=None, checkpoint=None, task=None, alignment="none"
        )
        for a in attempts
    ]
    align(copies, thread, runs_reversed=True)
    moved = any(
        a.task_id is None
        and (a.namespace, a.task and a.task.task_id) != (b.namespace, b.task and b.task.task_id)
        for a, b in zip(attempts, copies, strict=True)
    )
    return copies if moved else None


def split_runs(attempts: list[Attempt], thread: Thread) -> list[Attempt] | None:
    """Copies of `attempts` aligned with no line read as the next effect of the attempt of
    its node just before it, where the log names no effect and some line was read so; else
    None.

    A log that names no effect cannot tell one task's second effect from its node run again
    in a later step (`continues`): it reads the former. The same lines from a node routed
    back to itself (test_command_goto_with_static_breakpoints, a bare log from exit: the
    second `node2` was a task of the next step, whose checkpoint sync saves) leave other
    things saved under another mode; the durability model reads both."""
    if not any(
        a.task_id is None and not any(line.effect for line in a.lines) and continues(prev, a)
        for prev, a in itertools.pairwise(attempts)
    ):
        return None
    copies = [
        dataclasses.replace(
            a,
            lines=list(a.lines),
            namespace=None,
            checkpoint=None,
            task=None,
            alignment="none",
            alone=a.task_id is None and not any(line.effect for line in a.lines),
        )
        for a in attempts
    ]
    align(copies, thread)
    return copies


def paired_newest(attempts: list[Attempt], thread: Thread) -> list[Attempt] | None:
    """The log's lines grouped again with each end that several open starts of its node could
    close given to the newest of them, and aligned; None where no end was such a guess or
    the grouping comes out the same.

    Three `Send` workers of one node answered at once each log a second effect after their
    first (test_multi_resume, a bare log): the log cannot say whether the end between two
    such starts closed a worker's first effect or another's second, and that decides which
    worker finished before the kill. `group_attempts` gives it to the oldest open start; the
    durability model reads this grouping too and gives the range over both. Only where no
    checkpoint was made after the first line the two groupings give to different starts: a
    later checkpoint shows which run went on (test_parallel_interrupts under sync), and the
    alignment reads it there."""
    if not any(a.pairing == "order" and a.task_id is None for a in attempts):
        return None
    lines = sorted((line for a in attempts for line in a.lines), key=lambda e: e.line)
    copies = group_attempts(lines, newest=True)
    first = {tuple(e.line for e in a.lines) for a in attempts}
    moved = [
        e.ts for a in copies if tuple(e.line for e in a.lines) not in first for e in a.lines[1:]
    ]
    if not moved:
        return None
    made = (made_at(c) for ns in thread.namespaces.values() for c in ns.checkpoints)
    if any((t or 0) >= min(moved) for t in made):
        return None
    align(copies, thread)
    return copies


def align(
    attempts: list[Attempt],
    thread: Thread,
    *,
    runs_reversed: bool = False,
    names: Collection[str] = (),
) -> None:
    name_tasks_from_log(attempts, thread, names)
    idx = _Index(thread, attempts, runs_reversed)
    # the failure each attempt retried (`RetryPolicy`), where `Send` workers of its node
    # logged lines between the two (test_graph_with_single_retry_policy on workers)
    retried = retried_in_step(attempts)
    retry_of = {id(again): f for f in attempts if (again := retried.get(id(f))) is not None}
    # Taken in start order, not the log's: workers that start side by side write their first
    # lines out of order, and a line taken first may claim the only run a sooner line could
    # fit (three `Send` workers under `ainvoke`, a bare log: test_multi_resume). The attempt
    # each goes on from (`continues`) is still the one just before it in the log.
    previous = {id(a): b for b, a in itertools.pairwise(attempts)}
    for a in sorted(attempts, key=lambda x: x.start_ts):
        before = previous.get(id(a))
        if a.task_id and _align_exact(a, idx):
            continue
        failed = retry_of.get(id(a))
        if (
            not a.task_id
            and failed is not None
            and failed.task is not None
            and failed is not before
        ):
            before = failed  # its task is the failure's, whatever started in between
        if (
            not a.task_id
            and before is not None
            and before.task is not None
            and (continues(before, a) or retries(before, a))
            and not _step_saved_between(before, a, idx)
            # that task's writes are saved (it had returned) while `a` was still running
            and not (a.outcome == "in flight" and before.task.done)
        ):
            # the task's next effect, or its RetryPolicy retry: the task `before` ran
            a.namespace, a.checkpoint, a.task = before.namespace, before.checkpoint, before.task
            a.alignment = before.alignment
            continue
        if a.task_id and a.task_id in idx.orphan_task_ids:
            a.alignment = "before-saved" if a.task_id in idx.completed_orphans else "orphaned"
            continue
        if a.task_id:
            # A task id no saved checkpoint knows: either the checkpoint it started from was
            # never saved but a later one was (exit mode), or its step never got one.
            # Steps count per loop: a subgraph node's step is its subgraph's, not the root's.
            loop = thread.namespaces.get(a.logged_ns or "")
            latest = loop.latest if loop is not None else None
            # A checkpoint made before the attempt began holds no result of it: that is an
            # earlier run's (a `checkpointer=True` graph's steps go on across runs, and a run
            # from an earlier checkpoint counts its steps again from there).
            saved_after = (
                a.step is not None
                and latest is not None
                and latest.step is not None
                and a.step <= latest.step
                and (idx.epochs.get(latest.checkpoint_id) or a.start_ts) >= a.start_ts
            ) or (loop is not None and _held_on_another_branch(a, loop.name, idx))
            # ...and the attempt is one of that loop's nodes (its checkpoints name it), not a
            # call of the task whose namespace a graph invoked inside it shares
            ran_there = loop is not None and any(
                a.node in c.record.versions_seen or any(t.node == a.node for t in c.tasks)
                for c in loop.checkpoints
            )
            parent = idx.by_task_id.get(_parent_task_id(a.logged_ns) or "")
            if parent and not (saved_after and ran_there):
                # a call of that task (calls save no checkpoint of their own); a subgraph's
                # node whose loop saved a later checkpoint is in that loop's history instead
                a.namespace, a.checkpoint, a.task = parent[0]
                a.alignment = "parent"
                continue
            a.alignment = "before-saved" if saved_after else "after-latest"
            continue
        if a.step is not None and _align_step(a, idx):
            continue
        if not a.task_id and a.node not in idx.all_nodes and _unsaved_run(a, thread):
            continue  # no saved checkpoint names its node: the run its writes name is its
        placed = _align_time(a, idx)
        if placed and a.task is not None and a.task.done and a.outcome == "finished":
            idx.completed.add((a.task.task_id, a.pid))  # the line that saved its task's writes
        if not placed and not a.task_id and not _continue_effect(a, attempts, idx):
            _next_graph(a, before, idx) or _unsaved_run(a, thread)
    for a in attempts:
        fits = idx.fits.get(id(a), {})
        a.run_told = (
            len(fits) > 1
            and a.namespace in fits
            and all(fits[a.namespace] < v for n, v in fits.items() if n != a.namespace)
        )
    _claim_orphans(attempts, thread, idx.completed_orphans)
    number_attempts(attempts)
