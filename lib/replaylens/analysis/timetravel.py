"""Resume from any checkpoint (time travel), previewed: what
`graph.invoke(None, {"configurable": {"thread_id": T, "checkpoint_id": C}})` would do.

What LangGraph does (pregel/_loop.py, `_first`; checked against real runs in
tests/test_timetravel.py):

- A config that names a checkpoint and an input of None is *time travel*: the loop sets
  `is_replaying`, so the pending writes saved against C are not handed back to their
  tasks. Every task due at C runs again from its first line, finished ones included; this
  holds for the thread's latest checkpoint too (`invoke(None, config)` without an id
  reuses the finished tasks' writes instead). Writes saved against C's descendants belong
  to the old branch and are never applied.
- The run starts a new branch: its first checkpoint has C as parent; the old branch's
  checkpoints stay in the database, and the thread's latest becomes the new branch's.
- A subgraph checkpoint (namespace `node:<task id>`), given with the config
  `get_state_history` returns for it (which carries a `checkpoint_map`), replays the
  root from the checkpoint the subgraph ran under (`metadata.parents[""]`): the parent
  task that runs the subgraph starts again under a new task id, so the *whole* subgraph
  runs again, not just the steps after C.
- After C's tasks, the graph goes on as a new run would: the steps that followed C on the
  old branch run again if the graph takes the same route (it does when its routing
  depends only on the state). Those effect lines are "likely", not certain.
- Steps whose checkpoint never landed (orphan writes, lines after the latest checkpoint)
  follow the latest checkpoint. From the latest checkpoint they run again exactly as in a
  plain resume (`analysis.again.what_happens_again`): certain, and counted with C's tasks.
  From an earlier checkpoint they belong to the old branch: likely.

Interrupts answered on the old branch are asked again (cached resume values are dropped).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from replaylens import namespaces
from replaylens.analysis.again import TaskAgain
from replaylens.analysis.align import name_tasks_from_log
from replaylens.analysis.attempts import LOST_STEP, Attempt
from replaylens.model import Checkpoint, Task, Thread

Again = Literal["certain", "likely"]
Move = Literal["resume", "resume_from", "answer_interrupt", "fork"]


@dataclass
class TimeTravel:
    thread_id: str
    target: Checkpoint  # the checkpoint the user picked
    anchor: (
        Checkpoint  # the root checkpoint LangGraph replays from (== target in the root namespace)
    )
    reruns: list[Task]  # tasks due at the anchor: all run again
    ignored_writes: int  # writes saved against the anchor that are not applied
    abandoned: list[Checkpoint]  # the anchor's descendants in the root namespace (the old branch)
    again: list[tuple[Attempt, Again]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    lost: list[TaskAgain] = field(default_factory=list)
    """From the latest checkpoint only, the root tasks a plain resume runs again that the anchor
    does not hold, which run after its tasks: those of steps whose checkpoint never landed, and
    the `@task` calls a re-run entrypoint makes again (a call that raised or was cut off left
    no write, so the checkpoint does not name it)."""
    due_below: list[TaskAgain] = field(default_factory=list)
    """From the latest checkpoint: the tasks a plain resume re-runs inside the anchor's
    subgraphs, also those with no line in the log (a node that asks before it logs)."""

    @property
    def nested(self) -> list[tuple[str, str, str | None]]:
        """(namespace, node, task id) of the subgraph tasks the log shows running again for
        certain inside the anchor's re-run parent tasks, each once: counted as the plain
        resume counts a subgraph's tasks (the parent task and the tasks inside it)."""
        out: dict[tuple[str, str, Any], tuple[str, str, str | None]] = {}
        for a, how in self.again:
            ns = namespaces.names(a.namespace if a.namespace is not None else a.logged_ns)
            if how != "certain" or not ns:
                continue
            tid = a.task.task_id if a.task is not None else a.task_id
            out.setdefault((ns, a.node, tid or ("attempt", id(a))), (ns, a.node, tid))
        shown = {(ns, node) for ns, node, _tid in out.values()}
        for t in self.due_below:
            ns = namespaces.names(t.checkpoint_ns)
            if (ns, t.node) not in shown:
                shown.add((ns, t.node))
                out[(ns, t.node, t.task_id)] = (ns, t.node, t.task_id)
        return list(out.values())

    @property
    def task_count(self) -> int:
        """Tasks that run again: every task due at the anchor, the tasks inside its subgraphs
        the log shows, then the lost steps' tasks."""
        return len(self.reruns) + len(self.nested) + len(self.lost)

    @property
    def certain_lines(self) -> list[int]:
        return sorted(line.line for a, how in self.again if how == "certain" for line in a.lines)

    @property
    def likely_lines(self) -> list[int]:
        return sorted(line.line for a, how in self.again if how == "likely" for line in a.lines)

    def sentence(self) -> str:
        nodes = ", ".join([f"`{t.node}`" for t in self.reruns] + [f"`{t.node}`" for t in self.lost])
        nodes = nodes or "nothing"
        if self.nested:
            nodes += " (inside: " + ", ".join(f"`{node}`" for _ns, node, _t in self.nested) + ")"
        where = (
            ""
            if self.target is self.anchor
            else (
                f" (a subgraph checkpoint: LangGraph replays the root from checkpoint {self.anchor.checkpoint_id}, "
                "so the whole subgraph runs again)"
            )
        )
        certain = {label for a, how in self.again if how == "certain" for label in a.effects}
        likely = {
            label for a, how in self.again if how == "likely" for label in a.effects
        } - certain
        parts = [
            f"Resuming from this checkpoint re-runs {nodes}{where}, ignoring their saved writes, and starts a new "
            "branch from it."
        ]
        if certain:
            parts.append(
                "These recorded effects happen again: "
                + ", ".join(f"`{x}`" for x in sorted(certain))
                + "."
            )
        if likely:
            parts.append(
                "If the graph takes the same route, so do "
                + ", ".join(f"`{x}`" for x in sorted(likely))
                + "."
            )
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "checkpoint": {
                "checkpoint_id": self.target.checkpoint_id,
                "checkpoint_ns": self.target.checkpoint_ns,
                "step": self.target.step,
                "source": self.target.source,
            },
            "replays_from": {"checkpoint_id": self.anchor.checkpoint_id, "step": self.anchor.step},
            "reruns": [
                {"node": t.node, "task_id": t.task_id, "status_before": t.status}
                for t in self.reruns
            ]
            + [
                {"node": node, "task_id": tid, "status_before": f"inside a re-run task ({ns})"}
                for ns, node, tid in self.nested
            ]
            + [
                {
                    "node": t.node,
                    "task_id": t.task_id,
                    "status_before": t.why,
                }
                for t in self.lost
            ],
            "tasks_again": self.task_count,
            "ignored_writes": self.ignored_writes,
            "abandoned_branch": [c.checkpoint_id for c in self.abandoned],
            "effects_again": {"certain": self.certain_lines, "likely": self.likely_lines},
            "sentence": self.sentence(),
            "notes": self.notes,
        }


def _not_held(anchor: Checkpoint, again: list[TaskAgain]) -> list[TaskAgain]:
    """The plain resume's tasks that run after the anchor's own: a lost step's tasks in any
    namespace, and root tasks the anchor does not name (a lost step's task whose id is unknown,
    an entrypoint's `@task` call that left no write)."""
    held = {t.task_id for t in anchor.tasks}
    return [
        t
        for t in again
        if t.why == "step whose checkpoint was lost"
        or (not t.checkpoint_ns and (t.task_id is None or t.task_id not in held))
    ]


def _anchor(thread: Thread, target: Checkpoint) -> Checkpoint | None:
    if not target.checkpoint_ns:
        return target
    parents = target.record.metadata.get("parents")
    root_id = parents.get("") if isinstance(parents, dict) else None
    root = thread.root
    return root.by_id.get(root_id) if root is not None and isinstance(root_id, str) else None


def _descendants(thread: Thread, anchor: Checkpoint) -> list[Checkpoint]:
    root = thread.root
    if root is None:
        return []
    out: list[Checkpoint] = []
    frontier = list(anchor.children)
    seen: set[str] = set()
    while frontier:
        cid = frontier.pop()
        if cid in seen or cid not in root.by_id:
            continue
        seen.add(cid)
        cp = root.by_id[cid]
        out.append(cp)
        frontier.extend(cp.children)
    return sorted(out, key=lambda c: c.checkpoint_id)


def preview(
    thread: Thread,
    attempts: list[Attempt],
    checkpoint_id: str,
    checkpoint_ns: str = "",
    *,
    lost: list[TaskAgain] | None = None,
    names: Collection[str] = (),
) -> TimeTravel | None:
    """What resuming from `checkpoint_id` (in `checkpoint_ns`) would do; None if unknown.

    `attempts` are a plan's aligned attempts (`plan_resume(...).attempts`); `lost` the plan's
    tasks that run again (`plan.again.tasks`): those of steps whose checkpoint was lost, and
    those re-run inside a subgraph, which a resume from the latest checkpoint runs too;
    `names` the plan's recording's (`Recording.named_nodes`)."""
    name_tasks_from_log(attempts, thread, names)  # as the plan's alignment named them
    ns = thread.namespaces.get(checkpoint_ns)
    target = ns.by_id.get(checkpoint_id) if ns is not None else None
    if target is None:
        return None
    anchor = _anchor(thread, target)
    notes: list[str] = []
    if anchor is None:
        notes.append(
            "This subgraph checkpoint names no root checkpoint in metadata.parents; LangGraph "
            "would replay from the one it names, which is not in this database."
        )
        return TimeTravel(thread.thread_id, target, target, [], 0, [], [], notes)
    abandoned = _descendants(thread, anchor)
    after_ids = {c.checkpoint_id for c in abandoned}
    # The subgraph runs its tasks ran under, anchor's included, re-run whole.
    rerun_ids = {t.task_id for t in anchor.tasks}
    root = thread.root
    from_latest = root is not None and root.latest is not None and anchor is root.latest
    again: list[tuple[Attempt, Again]] = []
    for a in attempts:
        if from_latest and a.verdict in ("replays", "restart"):
            # From the latest checkpoint, time travel runs all a plain resume runs, and more:
            # it reuses no saved write (a graph run by a lost step's task included).
            again.append((a, "certain"))
            continue
        if a.alignment in LOST_STEP and a.verdict in ("replays", "restart"):
            again.append((a, "likely"))
            continue
        if a.checkpoint is None:
            continue
        cp_ns = a.namespace or ""
        if cp_ns == "" and a.checkpoint.checkpoint_id == anchor.checkpoint_id:
            again.append((a, "certain"))
        elif cp_ns == "" and a.checkpoint.checkpoint_id in after_ids:
            again.append((a, "likely"))
        elif cp_ns:
            parent_tid = namespaces.root_runner(cp_ns)[1]
            if parent_tid in rerun_ids:
                again.append((a, "certain"))
            elif parent_tid is None and from_latest and a.verdict in ("replays", "restart"):
                # a `checkpointer=True` graph the due task runs names no task at its top
                # level: from the latest checkpoint, what the plain resume runs again in it
                again.append((a, "certain"))
            elif any(t.task_id == parent_tid for c in abandoned for t in c.tasks):
                again.append((a, "likely"))
    if any(t.kind == "call" for t in anchor.tasks):
        notes.append(
            "Functional-API @task calls run again in the order the entrypoint makes them; their "
            "results saved on the old branch are not reused."
        )
    if any(t.status == "interrupted" for t in anchor.tasks):
        notes.append("interrupt() asks again: the answers given on the old branch are dropped.")
    return TimeTravel(
        thread.thread_id,
        target,
        anchor,
        list(anchor.tasks),
        len(anchor.writes),
        abandoned,
        again,
        notes,
        _not_held(anchor, lost or []) if from_latest else [],
        [t for t in lost or [] if t.checkpoint_ns and t.why == "re-run in the resume step"]
        if from_latest
        else [],
    )


def snippet(
    move: Move,
    thread_id: str,
    checkpoint_id: str | None = None,
    checkpoint_ns: str = "",
    graph_name: str = "graph",
) -> str:
    """The Python for a move, to copy (never run here). Ids are JSON-quoted, so no value from
    the database can break out of the string literal."""
    tid = json.dumps(thread_id)
    lines: list[str]
    if move == "resume":
        lines = [
            f'config = {{"configurable": {{"thread_id": {tid}}}}}',
            f"{graph_name}.invoke(None, config)  # re-runs the unfinished tasks of the latest checkpoint",
        ]
    elif move == "resume_from":
        if checkpoint_ns:
            lines = [
                "# A subgraph checkpoint: take its config from the history (it carries the checkpoint_map).",
                f'history = {graph_name}.get_state_history({{"configurable": {{"thread_id": {tid}, '
                f'"checkpoint_ns": {json.dumps(checkpoint_ns)}}}}})',
                f'config = next(s.config for s in history if s.config["configurable"]["checkpoint_id"] == '
                f"{json.dumps(checkpoint_id)})",
                f"{graph_name}.invoke(None, config)  # replays the root from the checkpoint the subgraph ran under",
            ]
        else:
            lines = [
                f'config = {{"configurable": {{"thread_id": {tid}, "checkpoint_id": {json.dumps(checkpoint_id)}}}}}',
                f"{graph_name}.invoke(None, config)  # time travel: re-runs every task due at it, on a new branch",
            ]
    elif move == "answer_interrupt":
        lines = [
            "from langgraph.types import Command",
            "",
            f'config = {{"configurable": {{"thread_id": {tid}}}}}',
            f"{graph_name}.invoke(Command(resume=...), config)  # your answer to interrupt(); the node re-runs from its first line",
        ]
    else:
        lines = [
            f'config = {{"configurable": {{"thread_id": {tid}, "checkpoint_id": {json.dumps(checkpoint_id)}}}}}',
            f'fork = {graph_name}.update_state(config, {{...}})  # a new checkpoint (source "update") branching from it',
            f"{graph_name}.invoke(None, fork)  # runs the tasks due after your update, on the new branch",
        ]
    return "\n".join(lines)
