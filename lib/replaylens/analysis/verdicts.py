"""The verdict per attempt: does a resume from the database as it stands run it again?

- `kept`: its task's writes are durable under the checkpoint a resume loads; it will not
  run again.
- `replays`: its task runs again from its first line (in flight, failed, interrupted,
  writes orphaned, or its superstep's checkpoint never landed).
- `restart`: the thread has no checkpoint; `invoke(None)` raises `EmptyInputError`, so
  only a restart from the input is possible and every effect happens again.

An attempt of a later fresh input of which nothing was saved (`lost_input_attempts`, the
durability model's rule) is `kept` in the sense a resume gives it: `invoke(None)` goes on
from an earlier invocation's checkpoint and never runs it; its reason says the input is lost.
"""

from __future__ import annotations

import itertools

from replaylens import namespaces
from replaylens.analysis.attempts import LOST_STEP, Attempt
from replaylens.analysis.durability.evidence import run_from_earlier
from replaylens.analysis.joins import (
    join_never_fires,
    resume_stops_at_join,
    unreached_past_join,
)
from replaylens.analysis.status import thread_status
from replaylens.channels import overwrites_collide
from replaylens.model import Checkpoint, Namespace, Thread
from replaylens.times import iso_to_epoch

SUBGRAPH_WRITES_RERUN = (
    "its writes are saved against the checkpoint its subgraph resumes from, but the "
    "LangGraph release that wrote the thread (1.2.15 or older) does not hand them back on a "
    "subgraph's first resumed step: its task runs again"
)


def resumed_namespaces(thread: Thread) -> dict[str, Checkpoint]:
    """Namespaces a resume enters, with the checkpoint it loads in each."""
    out: dict[str, Checkpoint] = {}
    root = thread.root
    if root is None or root.latest is None:
        return out
    frontier: list[Namespace] = [root]
    while frontier:
        ns = frontier.pop()
        latest = ns.latest
        if latest is None:
            continue
        out[ns.name] = latest
        saved_calls = {c.task_id for c in latest.calls if c.done}
        for task in latest.tasks:
            if task.done:
                continue
            child = (
                f"{ns.name}|{task.node}:{task.task_id}"
                if ns.name
                else f"{task.node}:{task.task_id}"
            )
            # A subgraph compiled with checkpointer=True keeps one namespace under its node's
            # name alone (no task id), across its runs; a resume re-enters it there too.
            stable = f"{ns.name}|{task.node}" if ns.name else task.node
            # A task that started several graphs (two `invoke()` calls in one node) holds
            # them side by side: `child|1`, `child|2`, … (namespaces.levels).
            for first in (child, stable, *_graphs_of_unsaved_calls(child, saved_calls, thread)):
                for name in (first, *namespaces.call_siblings(first, thread.namespaces)):
                    if name in thread.namespaces and name not in out:
                        frontier.append(thread.namespaces[name])
    return out


def _graphs_of_unsaved_calls(child: str, saved: set[str], thread: Thread) -> list[str]:
    """The graphs an `@task` call of the task at `child` invoked (``child|call:<id>``, each
    one's first run; `call_siblings` the later ones), where that call has no saved result:
    the task runs
    again, calls it again under the same id, and the call invokes its graphs again, each
    going on from its own checkpoints — a run that had ended returns its result, a run cut
    short runs its due task again (test_multiple_subgraphs_mixed_entrypoint: StateGraphs an
    entrypoint's task invokes one after another). A call with a saved result is not made
    again: its graphs are not entered (`saved`: the ids of the calls with a saved result)."""
    out: list[str] = []
    for name in thread.namespaces:
        if not name.startswith(child + namespaces.NS_SEP):
            continue
        rest = name[len(child) + 1 :]
        seg = rest.split(namespaces.NS_SEP)[0]
        call_id = seg.partition(namespaces.NS_END)[2]
        if call_id and call_id not in saved and namespaces.NS_SEP not in rest:
            out.append(name)
    return out


HOLDER_WRITES_RERUN = (
    "the task that ran its graph finished in the step a re-entered subgraph resumes at, and "
    "the LangGraph release that wrote the thread (1.2.15 or older) runs such a task again "
    "despite its saved writes: its graph runs again with it"
)


def _holder_rerun(ns: str, resumed: dict[str, Checkpoint]) -> bool:
    """Is the task that ran graph `ns` a finished task of the checkpoint its own loop, itself
    a subgraph, resumes from? A release that does not hand a re-entered subgraph's saved
    writes back runs it again, and the graph below with it (parent_command_deeply_nested on
    LangGraph 1.0.10 under `ainvoke` at 0.35 s, async: ``child_2``'s checkpoint after
    ``sub_child_2``'s step had not landed, and the resume ran ``sub_child_2`` again, and its
    ``sub_sub_child``, whose run had left by `Command(graph=PARENT)`)."""
    if not ns:
        return False
    parent = namespaces.parent(ns)
    at = resumed.get(parent) if parent else None
    node = namespaces.runner(ns)[0]
    if at is None or not node:
        return False
    return any(t.node == node and t.status == "finished" and t.done for t in at.tasks)


def _holder_runs_again(ns: str, a: Attempt, thread: Thread, resumed: dict[str, Checkpoint]) -> bool:
    """Does the task that ran graph `ns` (the last ``node:<task id>`` of its namespace) run
    again? Only when no saved checkpoint holds that task (its step's checkpoint never landed)
    and the attempt started after the root checkpoint a resume loads was made: the resume
    runs that step anew (measured: `multiple_subgraphs_mixed_state_graph`, async on a slow
    store, killed before the root's step-0 checkpoint landed). An earlier invocation's run
    under exit, whose steps were not saved either, started before that checkpoint."""
    holder = namespaces.runner(ns)[1] if ns else None
    root = resumed.get("")
    if not holder or root is None:
        return False
    if any(
        t.task_id == holder
        for space in thread.namespaces.values()
        for c in space.checkpoints
        for t in [*c.tasks, *c.calls]
    ):
        return False
    if _prepared_from(thread, ns) == root.checkpoint_id:
        # The graph's run began under the root checkpoint a resume loads: the resume
        # prepares the same root task from it, under the same id, and an `@task` call it
        # makes again gets its old id too (a hash of its parent's, its path and its place),
        # so the graph goes on from its own checkpoints (measured:
        # `multiple_subgraphs_functional`, whose finished `add` ran nothing again).
        return False
    made = iso_to_epoch(root.ts)
    return made is not None and a.start_ts > made


STABLE_FRESH = (
    "its graph (compiled with checkpointer=True) is invoked again by a step after the one a "
    "resume loads: LangGraph's resuming flag is dropped after the resume's first step, so "
    "that run gets a fresh input and runs from its start"
)


def _stable_graph_invoked_later(
    ns: str, a: Attempt, thread: Thread, resumed: dict[str, Checkpoint]
) -> bool:
    """Did `a` run in a `checkpointer=True` graph (a namespace level with no task id) whose
    node has no task at the checkpoint a resume loads in the loop above, and start after that
    checkpoint was made? The resume re-runs the node in a later step, without LangGraph's
    resuming flag, so the graph starts a fresh run and every line of it runs again
    (test_parent_command_from_deeply_nested_subgraph under `ainvoke` at 1 s a write, async,
    killed in `sub_child_3`: the root's checkpoint with `child_2` due had not landed; the
    resume ran `sub_child_1` and `sub_sub_child` again, 6 3 5 where the verdicts said 6 1 1).
    A graph the resume re-enters (its node due at that checkpoint) may hold one of its own
    that starts afresh: the same kill at 0.5 s, where the root's checkpoint had landed and
    `child_2`'s next one had not, ran `sub_sub_child` again (7 2 3 where 7 1 1)."""
    levels = namespaces.levels(ns)
    for k in range(1, len(levels) + 1):
        node, task_id = namespaces.segments(levels[k - 1])[0]
        if task_id is not None:
            continue
        head = resumed.get(namespaces.NS_SEP.join(levels[: k - 1]))
        if head is None:
            return False
        if any(t.node == node for t in head.tasks):
            continue  # the resume re-enters it: a graph it runs may start afresh (below)
        made = iso_to_epoch(head.ts)
        return made is not None and a.start_ts > made
    return False


def _prepared_from(thread: Thread, ns: str) -> str | None:
    """The root checkpoint graph `ns` ran under: its checkpoints' ``parents`` metadata."""
    space = thread.namespaces.get(ns)
    for c in space.checkpoints if space is not None else ():
        parents = c.record.metadata.get("parents")
        if isinstance(parents, dict) and isinstance(parents.get(""), str):
            return str(parents[""])
    return None


LOST_INPUT = (
    "its invocation was a fresh input of which nothing was saved (not even its input "
    "checkpoint): a resume goes on from an earlier invocation's checkpoint and never runs it; "
    "sending that input again would"
)


def _not_due_at(a: Attempt, latest: Checkpoint | None) -> bool:
    """Is `a` a root task of the step right after `latest` that `latest` does not make due?

    A resume runs the tasks due at the checkpoint it loads, after applying the writes a
    `Command` sent with an earlier resume hung there (its ``goto``: ``branch:to:<node>``,
    with no task of its own). A node the log shows in that step, due neither way, was
    scheduled by what the crash lost: the resume does not run it there. Only a log that
    names the step and the root namespace can tell (an `@task` call, a subgraph's node and a
    line without a step are not judged here)."""
    if latest is None or latest.step is None or a.step != latest.step + 1:
        return False
    if a.logged_ns or (a.namespace or "") != "":
        return False
    due = {t.node for t in latest.tasks if not t.done}
    due |= latest.command_goto
    # A node's error handler is due with the node: the failure whose writes the crash lost
    # happens again when the node runs again, and schedules the handler again.
    with_node = namespaces.is_error_handler(a.node) and any(
        namespaces.handles(a.node, n) for n in due
    )
    return bool(due) and a.node not in due and not with_node


DROPPED_RUN = (
    "it ran in a run of a checkpointer=True graph that saved nothing: a resume re-runs the task "
    "that invokes the graph, which goes on from its last run's end, where nothing is due, and "
    "drops the new input; this work is lost, not repeated"
)
STABLE_RUN_UNSURE = (
    "it ran in a checkpointer=True graph whose newest checkpoint is an earlier run's end, in a "
    "thread run from an earlier checkpoint: whether a resume hands this run its input or drops "
    "it, the database does not tell"
)


def stalled_join_reason(node: str) -> str:
    """Why a line after the resume checkpoint does not run again where the resume stops at a
    join (`joins.join_never_fires`): its work is lost, not repeated."""
    return (
        f"a resume will not reach it: the checkpoint it would load saved the join into `{node}` "
        "already holding arrivals the resume makes again (an async put serialized late), so "
        f"they change nothing, `{node}` is never triggered and LangGraph ends the thread as "
        "completed; this work is lost, not repeated"
    )


JOINED_GUESS = (
    "the log names no effect, and this line followed its node's line before it in one process "
    "with no checkpoint saved between: read as that task's next effect its writes are reused, "
    "but it may be its node run again in a later step (a loop), whose writes were not saved; "
    "read as running again, a guess"
)


def take_unsure_replays(attempts: list[Attempt], other: list[Attempt], why: str) -> None:
    """Where another reading of a log the log cannot rule out (`other`, the same lines
    aligned again: `align.split_runs`) runs a line again that this reading keeps, the line
    is said to run again, a guess, and says why: never the reassuring answer when unsure.

    fork_replay on 1.2.24 under async at 0.8 s a write, a bare log: the run from the fork
    copy ran ``add_one`` twice and was killed in the third; the step after the copy never
    landed, so the second ``add_one`` was read as the first one's next effect, its writes
    (saved against the copy) reused. The real resume ran it again (2 verdict lines wrong)."""
    unsure = [
        (a, alt)
        for a, alt in zip(attempts, other, strict=True)
        if a.verdict == "kept" and alt.verdict == "replays"
    ]
    joined = {a.task.task_id for a, _alt in unsure if a.task is not None}
    for a, alt in unsure:
        if _loops_one_line_pair_a_task(a.node, attempts, joined):
            a.verdict, a.reason = "replays", alt.reason
            a.flag(why)


def _loops_one_line_pair_a_task(node: str, attempts: list[Attempt], joined: set[str]) -> bool:
    """Does the thread show `node` run again back to back in one process, in steps the
    checkpoints saved between them tell apart, each of its other tasks done with one
    attempt of the log? Then two of its lines back to back where nothing was saved between
    are as likely its node run again as one task's two effects. Not a node whose tasks log
    several effects (test_interrupt_subgraph's ``archive``), nor one seen only side by side
    (react_agent_tool_interrupt's ``tools``, whose refund tool logs two): the log's reading,
    the task going on, stands there."""
    counts: dict[str, int] = {}
    for a in attempts:
        if a.node == node and a.task is not None and a.task.done and a.task.task_id not in joined:
            counts[a.task.task_id] = counts.get(a.task.task_id, 0) + 1
    if not counts or any(n != 1 for n in counts.values()):
        return False
    return any(
        prev.node == a.node == node
        and prev.pid == a.pid
        and prev.outcome == "finished"
        and prev.end_ts <= a.start_ts
        and prev.task is not None
        and a.task is not None
        and prev.checkpoint is not None
        and a.checkpoint is not None
        and prev.checkpoint.checkpoint_id != a.checkpoint.checkpoint_id
        for prev, a in itertools.pairwise(attempts)
    )


def judge_past_join(thread: Thread, attempts: list[Attempt]) -> None:
    """Mark the lines a resume never reaches where it stops at a join (`joins`): every line
    of a lost step where the resume does nothing at all, else those from the join node's
    first lost run on (the tasks before it run again; the join never fires)."""
    node = join_never_fires(thread)
    if node is None:
        return
    lost = [a for a in attempts if a.alignment in LOST_STEP]
    at_once = resume_stops_at_join(thread) is not None
    unreached = unreached_past_join(lost, node, at_once, lambda a: a.node, lambda a: a.start_ts)
    for a in filter(unreached, lost):
        a.verdict, a.reason = "kept", stalled_join_reason(node)


def _stable_graph_ended_before(a: Attempt, thread: Thread) -> bool:
    """`_stable_graph_ended_at`, for the namespace `a` logged or was aligned with."""
    logged = a.logged_ns if a.logged_ns is not None else a.namespace
    return bool(logged) and _stable_graph_ended_at(logged or "", a.start_ts, thread)


def _stable_graph_ended_at(logged: str, start_ts: float, thread: Thread) -> bool:
    """Did an attempt that began at `start_ts` in namespace `logged` run inside a
    `checkpointer=True` graph (a namespace level with no task id) whose newest checkpoint in
    the database is an earlier run's end, made before it began?
    The resume passes LangGraph's resuming flag down to the graph its re-run task invokes
    (``CONFIG_KEY_RESUMING``): the graph loads that checkpoint, finds nothing due, and
    returns without running the new input (test_stateful_namespace_isolation). Not certain
    where the thread was ever run from an earlier checkpoint (`judge`)."""
    levels = namespaces.levels(logged)
    for k in range(1, len(levels) + 1):
        if namespaces.segments(levels[k - 1])[0][1] is not None:
            continue  # that level names a task: not a stable graph
        loop = thread.namespaces.get(namespaces.NS_SEP.join(levels[:k]))
        latest = loop.latest if loop is not None else None
        if latest is None or latest.tasks:
            continue
        made = iso_to_epoch(latest.ts)
        if made is None or made >= start_ts:
            continue
        if _invoked_after_first_step(levels[:k], thread):
            continue
        return True
    return False


def _only_in_ended_stable_graphs(a: Attempt, thread: Thread) -> bool:
    """A line no checkpoint took, in a log that names no namespace: is its node run only in
    ``checkpointer=True`` graphs whose newest checkpoint ended a run before it began? It ran
    in a new run of one of them (a bare log of first_invocation_replayed, async, killed in
    the run from the fork copy: the line is that graph's, which may be dropped)."""
    if a.logged_ns is not None or a.namespace:
        return False
    spaces = [
        ns.name
        for ns in thread.namespaces.values()
        if ns.name and any(t.node == a.node for c in ns.checkpoints for t in c.tasks)
    ]
    return bool(spaces) and all(_stable_graph_ended_at(n, a.start_ts, thread) for n in spaces)


def _invoked_after_first_step(levels: list[str], thread: Thread) -> bool:
    """Does the loop above the stable graph at `levels` resume where every task of the node
    that invokes the graph is done (its writes saved)? Then the resume's first step hands
    those writes back and runs nothing of it; the loop drops LangGraph's resuming flag after
    that first tick, so the graph's next run, in a later step, gets a fresh input and runs
    its tasks again (test_subgraph_checkpoint_true at 0.5 s a write under async, killed in
    the graph's second run: the root's checkpoint after the first run had not landed)."""
    above = thread.namespaces.get(namespaces.NS_SEP.join(levels[:-1]))
    head = above.latest if above is not None else None
    node = namespaces.segments(levels[-1])[0][0]
    tasks = [t for t in head.tasks if t.node == node] if head is not None else []
    return bool(tasks) and all(t.done for t in tasks)


def _forked(thread: Thread) -> bool:
    """Was the thread run from an earlier checkpoint (`evidence.run_from_earlier`): a root
    checkpoint of source ``fork``, an ``update_state`` on an earlier checkpoint beside a child
    it already had (test_three_level_nested_subgraph_loads_state_on_fork), or a run from one
    that saved no copy (before LangGraph 1.1.7)?"""
    root = thread.namespaces.get("")
    return root is not None and run_from_earlier(root.checkpoints)


def judge(
    a: Attempt,
    thread: Thread,
    resumed: dict[str, Checkpoint],
    idx_lineage: dict[str, set[str]],
    lost: set[int] | frozenset[int] = frozenset(),
    subgraph_writes_reused: bool = True,
) -> None:
    """Judge one aligned attempt; `lost` holds the id() of attempts whose invocation was lost
    with its input (`durability.lost_input_attempts`), which a resume never runs.
    `subgraph_writes_reused`: the release's rule for a re-entered subgraph's saved writes
    (`durability.subgraph_writes_reused`)."""
    if id(a) in lost:
        a.verdict, a.reason = "kept", LOST_INPUT
        return
    if _stable_graph_ended_before(a, thread):
        if not _forked(thread):
            a.verdict, a.reason = "kept", DROPPED_RUN
            return
        # Where the thread was ever run from an earlier checkpoint, such a run hands its
        # stable graphs their state as of the copy, and which of their checkpoints a later
        # resume loads the database does not tell: the node ran again in
        # test_three_level_nested_subgraph_loads_state_on_fork at 0.75 s under async, killed
        # in ``inner_step``; it did not in test_replay_from_first_invocation_checkpoint's
        # shape on 1.2.24 under `ainvoke` at 0.2 s, async, killed in ``sub_step`` of the run
        # from the fork copy. Read as running again, said to be a guess.
        a.may_be_dropped = True
        a.flag(STABLE_RUN_UNSURE)
    if a.alignment in ("orphaned", "after-latest") and thread_status(thread) == "completed":
        a.verdict, a.reason = (
            "kept",
            (
                "its step's checkpoint never landed, but the step ran again later and the thread completed"
            ),
        )
        return
    if a.alignment == "orphaned":
        a.verdict, a.reason = (
            "replays",
            "its writes are orphaned: the checkpoint they hang off never landed",
        )
        return
    if a.alignment == "after-latest" and _not_due_at(a, resumed.get("")):
        a.verdict, a.reason = (
            "kept",
            "the checkpoint a resume loads does not make its node due in that step: what "
            "scheduled it (a Command sent with the resume that was killed) was not saved",
        )
        return
    if a.alignment == "after-latest":
        a.verdict, a.reason = (
            "replays",
            "its superstep's checkpoint never landed, so the step runs again",
        )
        return
    if a.alignment == "before-saved":
        a.verdict, a.reason = (
            "kept",
            (
                "its superstep completed: the checkpoint it started from was not saved, but a later one holds its result"
            ),
        )
        return
    if a.alignment == "call-unsaved" and a.checkpoint is not None:
        resumed_here = resumed.get(a.namespace or "")
        if resumed_here is not None and resumed_here.checkpoint_id == a.checkpoint.checkpoint_id:
            a.verdict, a.reason = (
                "replays",
                (
                    "an @task call with no saved result (it was in flight): its parent task re-runs and calls it again"
                ),
            )
        else:
            a.verdict, a.reason = "kept", "an @task call of a step that completed"
        return
    if a.alignment == "next-graph" and thread_status(thread) != "completed":
        a.verdict, a.reason = (
            "replays",
            "it began a new run of its graph (the run before it had ended) that saved no "
            "checkpoint before the process died: its task runs again",
        )
        return
    if a.checkpoint is None or a.task is None:
        replay = thread_status(thread) != "completed"
        if replay and _forked(thread) and _only_in_ended_stable_graphs(a, thread):
            a.may_be_dropped = True
            a.flag(STABLE_RUN_UNSURE)
        a.verdict = "replays" if replay else "kept"
        a.reason = "not aligned with any checkpoint; " + (
            "assumed to run again (the thread is unfinished)" if replay else "the thread completed"
        )
        return
    ns = a.namespace or ""
    if ns not in resumed and _holder_runs_again(ns, a, thread, resumed):
        a.verdict, a.reason = (
            "replays",
            "the task that ran its graph is in no saved checkpoint and ran after the one a "
            "resume loads: that step runs again, under a new task id, and its graph with it",
        )
        return
    if ns not in resumed and _stable_graph_invoked_later(ns, a, thread, resumed):
        a.verdict, a.reason = "replays", STABLE_FRESH
        return
    if ns not in resumed and not subgraph_writes_reused and _holder_rerun(ns, resumed):
        a.verdict, a.reason = "replays", HOLDER_WRITES_RERUN
        return
    if ns not in resumed:
        a.verdict, a.reason = "kept", "its (sub)graph run completed inside a step that is durable"
        return
    latest = resumed[ns]
    if a.checkpoint.checkpoint_id == latest.checkpoint_id:
        status = a.task.status
        if a.alignment == "parent":
            # Finished calls have writes and align exactly; this one has no saved result.
            a.verdict = "replays"
            a.reason = "the task that called it runs again and this call has no saved result"
            return
        if status == "finished" and not a.task.done:
            a.verdict, a.reason = (
                "replays",
                "an error handler: a resume runs it again for the saved failure, though its "
                "own writes were saved (LangGraph does not re-apply them)",
            )
        elif status == "finished" and ns and not subgraph_writes_reused:
            a.verdict, a.reason = "replays", SUBGRAPH_WRITES_RERUN
        elif status == "finished":
            a.verdict, a.reason = (
                "kept",
                "its writes are saved against the checkpoint a resume loads, and reused",
            )
        elif status == "handled":
            a.verdict, a.reason = (
                "kept",
                "it failed and its error handler took the failure, which is saved: a resume "
                "runs the handler, not this task",
            )
        else:
            words = {
                "failed": "it failed",
                "interrupted": "it stopped at interrupt() and re-runs to get its answer",
                "pending": "it was in flight when the process died",
            }[status]
            a.verdict, a.reason = "replays", f"{words}; its task runs again from its first line"
        return
    if a.checkpoint.checkpoint_id in idx_lineage.get(ns, set()):
        collided = overwrites_collide(w for t in a.checkpoint.tasks for w in t.writes)
        if collided is not None and a.task.status == "finished":
            a.verdict, a.reason = (
                "kept",
                f"its writes are saved, but its superstep raised applying them (more than one "
                f"Overwrite of {collided!r}), after it ended: it does not run again",
            )
            return
        a.verdict, a.reason = (
            "kept",
            # (a cancelled task's error is saved and the loop finishes the step without it:
            # before LangGraph 1.2, also a node that raised CancelledError itself)
            "its superstep completed without it (its failure is saved and the run went on)"
            if a.task.status == "failed"
            else "its superstep completed and a later checkpoint holds its result",
        )
        return
    a.verdict, a.reason = "kept", "it ran on a branch (fork) that the resume does not follow"
