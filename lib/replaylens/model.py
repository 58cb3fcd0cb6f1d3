"""Threads, checkpoint namespaces, checkpoints, tasks and pending writes, as LangGraph names them.

Built from the rows a source returns; no LangGraph graph code is needed. The task
derivation itself lives in `replaylens.analysis.tasks`; this module only arranges rows
into chains and groups the writes.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from replaylens.channels import TASKS, edge_to
from replaylens.namespaces import is_error_handler
from replaylens.sources import CheckpointRecord, ThreadRows, WriteRecord

NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"

# Special channels of the writes table, named in words for people.
SPECIAL_CHANNELS = {
    "__error__": "error",
    "__error_source_node__": "error source node",
    "__interrupt__": "interrupt",
    "__resume__": "resume answer",
    TASKS: "Send",
    "__no_writes__": "finished without output",
    "__return__": "return value",
    "__scheduled__": "scheduled",
}
CONTROL_CHANNELS = frozenset({"__error__", "__error_source_node__", "__interrupt__", "__resume__"})

TaskStatus = Literal["finished", "handled", "failed", "interrupted", "pending"]
"""`handled`: the task raised and its node's error handler took the failure (LangGraph 1.2's
``add_node(..., error_handler=...)``): its ``__error__`` and ``__error_source_node__``
writes are saved, and a resume runs the handler instead of the task."""
"""A task's state as a resume sees it (LangGraph's own task statuses, from the writes)."""
TaskKind = Literal["pull", "push", "call", "run-time"]
"""pull: triggered by channels; push: a `Send`; call: a functional-API @task call (listed
under the task that made it, never in `next`); run-time: a task LangGraph made while the
step ran whose path no rule here knows (known from its writes only)."""
UPDATE_PATH = "~__interrupt__"
"""The task path `update_state` / `bulk_update_state` give the writes they apply as a node."""


def channel_label(channel: str) -> str:
    """`__interrupt__` -> `interrupt`; ordinary state channels stay as they are."""
    return SPECIAL_CHANNELS.get(channel, channel)


@dataclass
class Task:
    """A task due at a checkpoint: it runs in the superstep after the checkpoint.

    `node` is "" when nothing in the database names it (a functional @task call saves
    only its id and return value); `label` then says what is unknown and why, so no
    view ever has to print a made-up name.
    """

    node: str
    task_id: str
    kind: TaskKind
    step: int | None
    path: str = ""
    writes: list[WriteRecord] = field(default_factory=list)
    derived: bool = True  # False: known only from its writes rows (no rule could foresee it)
    send_index: int | None = None
    note: str = ""
    # Set when today's LangGraph, after migrating a pre-v3 checkpoint's channel names,
    # hashes another id for this task: the writes under `task_id` are then not found.
    today_task_id: str | None = None
    today_id_unknown: bool = False  # today's LangGraph cannot run this task as written (`then=`)
    calls: list[Task] = field(default_factory=list)  # functional @task calls this task made
    parent_task_id: str | None = None  # for a call: the task that made it
    call_index: int | None = None  # for a call: its place among its parent's calls
    name_source: str = (
        ""  # how `node` is known, for calls ("its task id, with the name the effects log gives")
    )

    @property
    def label(self) -> str:
        """The name for people: the node, or what is known of a task nothing names."""
        if self.node:
            return self.node
        if self.kind == "call":
            which = f" #{self.call_index + 1}" if self.call_index is not None else ""
            return f"unnamed @task call{which} (the database saves a call's id and result, not its name)"
        if self.kind == "push":
            return "unnamed Send task (its packet could not be read)"
        if not self.path:
            return (
                "unnamed task (the writes hold its id but no task path, as formats before v3 do, and "
                "no node this database, the log or --graph names reproduces the id: a functional @task "
                "call, or a node a Command made due, whose id its name alone does not give)"
            )
        return f"unnamed run-time task (path {self.path})"

    @property
    def reused_on_resume(self) -> bool:
        """A finished call's saved result is handed back to its parent when the parent re-runs."""
        return self.kind == "call" and self.status == "finished"

    def call_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "name": self.node or None,
            "label": self.label,
            "name_source": self.name_source or None,
            "status": self.status,
            "reused_on_resume": self.reused_on_resume,
            "call_index": self.call_index,
        }

    @property
    def output_writes(self) -> list[WriteRecord]:
        return [w for w in self.writes if w.channel not in CONTROL_CHANNELS]

    @property
    def error(self) -> str | None:
        for w in self.writes:
            if w.channel == "__error__":
                value = w.value
                return value if isinstance(value, str) else repr(value)
        return None

    @property
    def interrupts(self) -> list[Any]:
        out: list[Any] = []
        for w in self.writes:
            if w.channel == "__interrupt__":
                value = w.value
                out.extend(value if isinstance(value, list | tuple) else [value])
        return out

    @property
    def paused(self) -> bool:
        """Did it call `interrupt()` at some point (an interrupt write of its own)? Also once
        a later invocation answered it and its output is saved (status finished): its step
        paused then, it did not raise."""
        return any(w.channel == "__interrupt__" for w in self.writes)

    @property
    def done(self) -> bool:
        """Through its step: a resume re-applies its writes and does not run it again
        (finished, or failed and taken by its error handler).

        An error handler is never done at the checkpoint a resume loads: the resume makes
        a fresh handler task for each handled failure and runs it, without re-applying the
        writes a handler that finished had saved (``pregel/_loop.py``,
        ``_resume_error_handlers_if_applicable``, LangGraph 1.2)."""
        if is_error_handler(self.node):
            return False
        return self.status in ("finished", "handled")

    @property
    def status(self) -> TaskStatus:
        """LangGraph's rule (pregel/_task_status.py): finished iff it has an output write,
        the writes a resume re-applies instead of running the task."""
        if self.output_writes:
            return "finished"
        channels = {w.channel for w in self.writes}
        if "__error__" in channels and "__error_source_node__" in channels:
            return "handled"  # pregel/_loop.py, `_resume_error_handlers_if_applicable`
        if "__error__" in channels:
            return "failed"
        if self.paused:
            return "interrupted"
        return "pending"


@dataclass
class StateUpdate:
    """Writes `update_state` / `bulk_update_state` applied as node `as_node`: not a task.

    LangGraph saves them on the checkpoint the update builds on, with task path
    `~__interrupt__, <i>`; no resume runs them and `get_state` lists no task for them.
    `as_node` is None when the database does not say which node they were applied as.
    """

    task_id: str
    index: int
    writes: list[WriteRecord]
    as_node: str | None
    how: str  # how `as_node` is known, or why it is not

    @property
    def channels(self) -> list[str]:
        return sorted({w.channel for w in self.writes})

    @property
    def label(self) -> str:
        if self.as_node:
            return f"state update applied as {self.as_node}"
        return "state update applied as a node the database does not name"

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "index": self.index,
            "as_node": self.as_node,
            "how": self.how,
            "label": self.label,
            "channels": self.channels,
        }


@dataclass
class Checkpoint:
    record: CheckpointRecord
    writes: list[WriteRecord] = field(default_factory=list)
    children: list[str] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    task_notes: list[str] = field(default_factory=list)
    # A sentence when the checkpoint format cannot tell which task comes next (pre-v3
    # edge channels nobody is known to read): the status is then never "completed".
    next_unknown: str | None = None
    updates: list[StateUpdate] = field(default_factory=list)
    # DeltaChannel -> supersteps of its writes a run under exit saved on its way out,
    # anchored here (`analysis.delta.exit_delta_step`): the channel's values, not tasks.
    exit_delta_writes: dict[str, list[int]] = field(default_factory=dict)

    @property
    def calls(self) -> list[Task]:
        """Every functional @task call made by the tasks of this checkpoint's step."""
        out: list[Task] = []
        stack = [c for t in reversed(self.tasks) for c in reversed(t.calls)]
        while stack:  # calls made by calls (a @task calling a @task) too, in call order
            call = stack.pop()
            out.append(call)
            stack.extend(reversed(call.calls))
        return out

    def writer_of(self, write: WriteRecord) -> tuple[str, str]:
        """(who wrote it, that task's status) in words, for a write saved against this checkpoint.

        One answer for every view: a task of `next`, an @task call under its parent, a state
        update applied as a node, the null task (input or resume command), or a task id
        nothing here knows, said as such."""
        if write.task_id == NULL_TASK_ID:
            return "(update / resume command)", ""
        for update in self.updates:
            if update.task_id == write.task_id and (
                update.as_node is None or write.task_path.startswith(UPDATE_PATH)
            ):
                return update.label, "applied"
        for task in self.tasks:
            if task.task_id == write.task_id:
                return task.label, task.status
        for call in self.calls:
            if call.task_id == write.task_id:
                caller = next((t for t in [*self.tasks, *self.calls] if call in t.calls), None)
                by = caller.label if caller is not None else "its parent task"
                return f"{call.label}, called by {by}", call.status
        return f"a task id no checkpoint here foresees ({write.task_id})", ""

    # Convenience views of the record -------------------------------------------
    @property
    def checkpoint_id(self) -> str:
        return self.record.checkpoint_id

    @property
    def checkpoint_ns(self) -> str:
        return self.record.checkpoint_ns

    @property
    def parent_checkpoint_id(self) -> str | None:
        return self.record.parent_checkpoint_id

    @cached_property  # read per checkpoint by every pass of the durability model
    def step(self) -> int | None:
        return self.record.step

    @cached_property
    def source(self) -> str | None:
        return self.record.source

    @property
    def ts(self) -> str | None:
        return self.record.ts

    @property
    def unreadable(self) -> str | None:
        return self.record.error

    @property
    def null_writes(self) -> list[WriteRecord]:
        return [w for w in self.writes if w.task_id == NULL_TASK_ID]

    @property
    def command_goto(self) -> set[str]:
        """Nodes a `Command(goto=...)` sent with a resume made due here: its ``branch:to:<node>``
        writes hang off this checkpoint with no task of their own. A resume applies them before
        it prepares the step (LangGraph's ``_first``); ``get_state``'s ``next`` does not count them."""
        return {node for w in self.null_writes if (node := edge_to(w.channel)) is not None}

    @property
    def pending_tasks(self) -> list[Task]:
        return [t for t in self.tasks if not t.done]


@dataclass
class Namespace:
    """The checkpoints of one graph or subgraph (`checkpoint_ns`) within a thread."""

    name: str
    checkpoints: list[Checkpoint]  # oldest first (uuid6 ids sort by time)
    by_id: dict[str, Checkpoint]
    orphan_writes: list[WriteRecord] = field(default_factory=list)

    @property
    def latest(self) -> Checkpoint | None:
        """The checkpoint a resume loads: the highest id, as the savers' get_tuple does."""
        return self.checkpoints[-1] if self.checkpoints else None

    @property
    def forks(self) -> list[Checkpoint]:
        return [c for c in self.checkpoints if len(c.children) > 1]

    @property
    def missing_parents(self) -> list[Checkpoint]:
        return [
            c
            for c in self.checkpoints
            if c.parent_checkpoint_id and c.parent_checkpoint_id not in self.by_id
        ]

    def lineage(self, checkpoint_id: str) -> list[Checkpoint]:
        """The chain from the root to `checkpoint_id`, following parent links (cycle-safe)."""
        chain: list[Checkpoint] = []
        seen: set[str] = set()
        cur = self.by_id.get(checkpoint_id)
        while cur is not None and cur.checkpoint_id not in seen:
            seen.add(cur.checkpoint_id)
            chain.append(cur)
            cur = self.by_id.get(cur.parent_checkpoint_id or "")
        chain.reverse()
        return chain

    def parent(self, cp: Checkpoint) -> Checkpoint | None:
        return self.by_id.get(cp.parent_checkpoint_id or "")


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Generation:
    """Which LangGraph generation wrote a thread, as far as its rows tell, and the one home
    of the sentences every view (CLI, report, dashboard) says about it. Each sentence takes
    `code`, the view's way to quote text from the data (escaping it for its renderer)."""

    label: str  # e.g. "LangGraph 0.2 (checkpoint v1)"
    checkpoint_versions: tuple[int, ...]
    channel_layout: str  # "branch:to" (v3 on) or "legacy" (edge channels named after their source)
    sends: str  # where the format keeps Send packets: "__pregel_tasks", "pending_sends" or "none"
    id_rule: str  # e.g. "SHA-1 over only the triggers that fired"
    ids_reproduced: int  # written task ids that a task derived with the thread's id rule has
    ids_written: int  # distinct (checkpoint, task id) pairs in the writes table
    today_ids_differ: bool  # a resume with today's LangGraph hashes other ids for some task
    notes: tuple[str, ...] = ()
    ids_today: int = 0  # written task ids that today's LangGraph lists (after its migration)

    @property
    def old(self) -> bool:
        """Written before checkpoint format v4 (LangGraph 0.5): its resume differs from today's."""
        return bool(self.checkpoint_versions) and min(self.checkpoint_versions) < 4

    def ids_sentence(self) -> str:
        """How many written task ids LangGraph lists (today's release; and the writing
        release's rule where the two differ). "" when the writes hold no task id."""
        if not self.ids_written:
            return ""
        if not self.today_ids_differ or self.ids_today == self.ids_reproduced:
            return f"{self.ids_today} of {self.ids_written} written task ids are ids LangGraph lists today"
        return (
            f"{self.ids_reproduced} of {self.ids_written} written task ids are ids the writing release "
            f"lists; today's LangGraph lists {self.ids_today} of them (the others get other ids there: see below)"
        )

    def headline(self, code: Any = _same) -> str:
        """`written by: …; task ids: …` for the thread's heading."""
        ids = self.ids_sentence()
        return f"written by: {code(self.label)}; task ids: {code(self.id_rule)}" + (
            f" ({ids})" if ids else ""
        )

    def sentence(self, code: Any = _same) -> str:
        """Under a resume plan: the plan is the writing release's resume ("" for today's format)."""
        if not self.old:
            return ""
        return (
            f"Written by an old LangGraph, {code(self.label)}: the plan above is a resume with that "
            "release."
        )

    @staticmethod
    def today_sentence(nodes: list[str], code: Any = _same) -> str:
        """Today's LangGraph resume, said apart from the writing release's: the tasks it re-runs
        too because their ids changed ("" when none)."""
        if not nodes:
            return ""
        names = ", ".join(code(n) for n in sorted(set(nodes)))
        return (
            f"With today's LangGraph, {names} run again too: it migrates these checkpoints' channel "
            "names and hashes other task ids, so their writes are not found."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "checkpoint_versions": list(self.checkpoint_versions),
            "channel_layout": self.channel_layout,
            "sends": self.sends,
            "id_rule": self.id_rule,
            "ids_reproduced": self.ids_reproduced,
            "ids_today": self.ids_today,
            "ids_written": self.ids_written,
            "today_ids_differ": self.today_ids_differ,
            "notes": list(self.notes),
            "sentence": self.sentence() or None,
            "ids_sentence": self.ids_sentence() or None,
        }


@dataclass
class Thread:
    thread_id: str
    namespaces: dict[str, Namespace]
    problems: list[str] = field(default_factory=list)
    generation: Generation | None = None
    stalled_joins: dict[str, frozenset[str]] = field(default_factory=dict)
    """checkpoint id -> the join channels whose saved barrier already holds an arrival that a
    pending write of that same checkpoint makes (`analysis.joins`): a resume there hands the
    write back to a barrier that has it, and the join's node does not fire."""
    full_joins: dict[str, frozenset[str]] = field(default_factory=dict)
    """checkpoint id -> the join channels whose saved barrier already holds every arrival
    while the join's node is not due there (`analysis.joins`): no arrival of a resume
    changes it, and the join's node never fires."""

    @property
    def root(self) -> Namespace | None:
        return self.namespaces.get("")

    @property
    def checkpoint_count(self) -> int:
        return sum(len(ns.checkpoints) for ns in self.namespaces.values())

    @property
    def orphan_writes(self) -> list[WriteRecord]:
        return [w for ns in self.namespaces.values() for w in ns.orphan_writes]

    def find(self, checkpoint_id: str, checkpoint_ns: str | None = None) -> Checkpoint | None:
        spaces = (
            [self.namespaces[checkpoint_ns]]
            if checkpoint_ns in self.namespaces
            else self.namespaces.values()
        )
        for ns in spaces:
            if checkpoint_id in ns.by_id:
                return ns.by_id[checkpoint_id]
        return None


def build_thread(thread_id: str, rows: ThreadRows) -> Thread:
    """Arrange one thread's rows into namespaces, chains and per-checkpoint writes."""
    by_ns: dict[str, list[CheckpointRecord]] = defaultdict(list)
    for rec in rows.checkpoints:
        by_ns[rec.checkpoint_ns].append(rec)
    writes_by_ns: dict[str, list[WriteRecord]] = defaultdict(list)
    for w in rows.writes:
        writes_by_ns[w.checkpoint_ns].append(w)
    problems = list(rows.problems)
    namespaces: dict[str, Namespace] = {}
    for ns_name in sorted(set(by_ns) | set(writes_by_ns), key=lambda n: (n.count("|"), n)):
        records = sorted(by_ns.get(ns_name, []), key=lambda r: r.checkpoint_id)
        cps = [Checkpoint(rec) for rec in records]
        by_id = {c.checkpoint_id: c for c in cps}
        ns = Namespace(ns_name, cps, by_id)
        for c in cps:
            parent = by_id.get(c.parent_checkpoint_id or "")
            if parent is not None and parent is not c:
                parent.children.append(c.checkpoint_id)
        for w in writes_by_ns.get(ns_name, []):
            target = by_id.get(w.checkpoint_id)
            if target is None:
                ns.orphan_writes.append(w)
            else:
                target.writes.append(w)
        label = f"namespace {ns_name!r}" if ns_name else "the root namespace"
        for c in ns.missing_parents:
            problems.append(
                f"Checkpoint {c.checkpoint_id} in {label} names parent {c.parent_checkpoint_id}, "
                "which is not in the database."
            )
        if _has_cycle(ns):
            problems.append(
                f"The parent links in {label} form a cycle; the chain is cut where it repeats."
            )
        problems.extend(_duplicate_steps(ns, label))
        namespaces[ns_name] = ns
    return Thread(thread_id, namespaces, problems)


def _has_cycle(ns: Namespace) -> bool:
    """Follow parent links once per checkpoint; linear in the number of checkpoints."""
    acyclic: set[str] = set()
    for start in ns.checkpoints:
        path: set[str] = set()
        cur: Checkpoint | None = start
        while cur is not None and cur.checkpoint_id not in acyclic:
            if cur.checkpoint_id in path:
                return True
            path.add(cur.checkpoint_id)
            cur = ns.parent(cur)
        acyclic |= path
    return False


def _duplicate_steps(ns: Namespace, label: str) -> list[str]:
    """Two checkpoints of one parent chain with the same step: a sign of hand-edited rows."""
    out: list[str] = []
    for cp in ns.checkpoints:
        parent = ns.parent(cp)
        if (
            parent is not None
            and cp.step is not None
            and parent.step is not None
            and cp.step <= parent.step
        ):
            if cp.source in ("update", "fork"):
                continue  # update_state writes a checkpoint at the same step by design
            out.append(
                f"Checkpoint {cp.checkpoint_id} in {label} records step {cp.step}, not after its parent's "
                f"step {parent.step}; steps are shown as recorded."
            )
    return out
