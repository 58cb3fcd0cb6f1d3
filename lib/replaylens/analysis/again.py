"""What happens again, row by row, and the reader's next move: the answer under the verdict.

The verdict sentence says it in one line; `again_rows` says it as a table (one row per
node and the effect it performed: how many executions happen again, the log lines, the
idempotency key and whether that key would stop the repeat), and `next_move` gives a
failed thread's exception or an interrupted thread's question with the code to run next.
The CLI, the report and the dashboard all print these, so they never disagree.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, get_args

from replaylens.analysis.attempts import LOST_STEP, Attempt, effect_counts, effect_lines
from replaylens.analysis.durability import mode_in_release
from replaylens.analysis.durability.words import unlogged_tasks_note
from replaylens.analysis.joins import unreached_past_join
from replaylens.analysis.node_cache import SERVED
from replaylens.decode import to_jsonable
from replaylens.model import NULL_TASK_ID, Thread
from replaylens.namespaces import CALL, names, task_namespace

if TYPE_CHECKING:
    from collections.abc import Callable

    from replaylens.analysis.durability import Mode, ModeOutcome
    from replaylens.analysis.plan import ResumePlan
    from replaylens.sources import WriteRecord

Why = Literal[
    "re-run in the resume step", "step whose checkpoint was lost", "restart from the input"
]
"""Why an execution happens again: its task is due at the checkpoint a resume loads, its
superstep finished but the checkpoint after it never landed, or no checkpoint exists."""
WHY_ORDER: tuple[Why, ...] = (
    "re-run in the resume step",
    "step whose checkpoint was lost",
    "restart from the input",
)


AGAIN_COLUMNS = (
    "node",
    "effect",
    "times again",
    "log line no.",
    "idempotency key",
    "would the key dedupe",
)
"""The headings of the "what happens again" table (an AgainRow without its reason), in the
dashboard and the terminal alike."""


@dataclass(frozen=True)
class AgainRow:
    """One node and one effect it performed, as a resume would repeat it."""

    why: Why
    node: str
    effect: str
    times: int  # executions a resume performs again (tasks, not log lines)
    lines: tuple[int, ...]
    keys: tuple[str, ...]
    dedupe: str  # would the idempotency key deduplicate the repeat, in words

    def to_json(self) -> dict[str, Any]:
        return {
            "why": self.why,
            "node": self.node,
            "effect": self.effect,
            "times_again": self.times,
            "lines": list(self.lines),
            "idempotency_keys": list(self.keys),
            "key_dedupes": self.dedupe,
        }


def why_again(a: Attempt) -> Why:
    if a.verdict == "restart":
        return "restart from the input"
    if a.alignment in LOST_STEP:
        return "step whose checkpoint was lost"
    return "re-run in the resume step"


def _task(a: Attempt) -> Any:
    return a.key or ("attempt", id(a))


def _dedupe(effect: str, again: list[Attempt], every: list[Attempt]) -> tuple[tuple[str, ...], str]:
    """The keys sent for `effect` by the tasks that run again, and whether they would dedupe.

    One recorded attempt cannot show whether the node makes the same key on a re-run;
    several attempts of one task can (same key every time, or a new key each time)."""
    tasks = {_task(a) for a in again}
    keys_by_task: dict[Any, list[str | None]] = defaultdict(list)
    for a in every:
        if _task(a) in tasks:
            keys = [line.idempotency_key for line in effect_lines(a.lines) if line.label == effect]
            keys_by_task[_task(a)].append(next((k for k in keys if k), None))
    keys = tuple(dict.fromkeys(k for ks in keys_by_task.values() for k in ks if k))
    if not keys:
        return keys, "no: no idempotency key was logged"
    runs = [ks for ks in keys_by_task.values() if len(ks) > 1]
    if any(len(set(ks)) > 1 for ks in runs):
        return keys, "no: each attempt sent a different key"
    if any(None in ks for ks in keys_by_task.values()):
        return keys, "partly: some executions logged no key"
    if runs:
        return keys, "yes, if the service dedupes on it: every attempt sent the same key"
    return keys, "cannot tell from one attempt; yes if the key comes from stable inputs"


def again_rows(plan: ResumePlan) -> list[AgainRow]:
    """One row per (why, node, effect) of the executions a resume repeats, in log-line order."""
    groups: dict[tuple[Why, str, str], list[Attempt]] = defaultdict(list)
    replay = sorted((a for a in plan.attempts if a.verdict in ("replays", "restart")),
                    key=lambda a: a.lines[0].line if a.lines else 0)  # fmt: skip
    for a in replay:
        for label in dict.fromkeys(line.label for line in effect_lines(a.lines)):
            groups[(why_again(a), a.node, label)].append(a)
    rows = []
    for (why, node, effect), group in groups.items():
        lines = tuple(
            sorted(
                line.line for a in group for line in effect_lines(a.lines) if line.label == effect
            )
        )
        keys, dedupe = _dedupe(effect, group, plan.attempts)
        rows.append(
            AgainRow(why, node, effect, len({_task(a) for a in group}), lines, keys, dedupe)
        )
    return sorted(rows, key=lambda r: (WHY_ORDER.index(r.why), r.lines[0] if r.lines else 0))


REPLAYING = ("replays", "restart")
"""The verdicts of an attempt a resume performs again."""

Basis = Literal["database", "recorded", "model"]
"""Where an `Again` comes from: the resume of the database as it stands (no recorded mode
known), the recorded mode's own outcome (the same resume), or the durability model's
counterfactual for another mode."""
SpanKey = Literal["checkpoints_kept", "tasks", "lines", "executions"]
SPAN_KEYS: tuple[SpanKey, ...] = get_args(SpanKey)
"""The figures an `Again` can give as a range (`Again.span_of`), in the order `--json` lists
them."""


@dataclass(frozen=True)
class TaskAgain:
    """One task a resume runs again from its first line."""

    node: str
    task_id: str | None
    checkpoint_ns: str
    why: Why

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "task_id": self.task_id,
            "checkpoint_ns": self.checkpoint_ns,
            "why": self.why,
        }


@dataclass(frozen=True)
class Again:
    """What happens again, three counts each named as what it is.

    - `tasks`: the tasks a resume runs again from their first line (those due at the
      checkpoint it loads without a saved output, those of steps whose checkpoint was lost,
      and those the log shows running again); None when it cannot be told (a modelled mode
      with no effect line to time it).
    - `executions`: side-effect executions the log shows happening again, per effect (an
      execution is one task run, never a log line: a start and an end line are one
      execution); None without effect lines for the thread.
    - `lines`: the effects-log lines of those executions; None without effect lines.

    Every view (the Thread header and banner, Time travel, the Threads page, the Incident
    page and `replaylens incident`, the Resume simulator, Learn, the Kill-test runs page,
    `replay`, `report` and every `--json`) prints these, so they never disagree."""

    tasks: tuple[TaskAgain, ...] | None
    effects: dict[str, int] | None
    lines: tuple[int, ...] | None
    checkpoints_kept: int | None
    restart: bool
    basis: Basis
    mode: Mode | None = None
    span: dict[SpanKey, tuple[int, int]] = field(default_factory=dict)
    """Where the evidence cannot tell (`ModeOutcome.race`): each figure's range, lowest to
    highest, for the figures that differ; the counts above are the reading that repeats the
    most inside it (for the recorded mode, the verdicts' own reading, `_recorded_span`).
    Every view prints `figure`, so none shows one guess where another shows the range."""
    span_why: str = ""
    """Why the range, in words (the race note)."""

    def figure(self, key: SpanKey) -> str | None:
        """One figure as every view prints it: "5", or "5–6" where the evidence cannot tell
        which; None when it is unknown (no log line to time it)."""
        own = {"checkpoints_kept": self.checkpoints_kept, "tasks": self.task_count,
               "lines": self.line_count, "executions": self.executions}[key]  # fmt: skip
        if own is None:
            return None
        lo, hi = self.span_of(key) or (own, own)
        return str(own) if lo == hi else f"{lo}–{hi}"

    def span_of(self, key: SpanKey) -> tuple[int, int] | None:
        """The range of one figure where the evidence cannot tell, else None. Executions have
        no range of their own: where the lines again range down, so do they (an execution
        logs at least one line), and where no task may run again, none repeats."""
        if key != "executions":
            return self.span.get(key)
        own = self.executions
        if own is None:
            return None
        lo = own
        if "lines" in self.span:
            lo = min(lo, self.span["lines"][0])
        if "tasks" in self.span and self.span["tasks"][0] == 0:
            lo = 0
        return (lo, own) if lo != own else None

    @property
    def task_count(self) -> int | None:
        return None if self.tasks is None else len(self.tasks)

    @property
    def task_names(self) -> list[str]:
        """The nodes that run again, in order, each once per task."""
        return [t.node for t in self.tasks or ()]

    @property
    def executions(self) -> int | None:
        return None if self.effects is None else sum(self.effects.values())

    @property
    def line_count(self) -> int | None:
        return None if self.lines is None else len(self.lines)

    def words(self) -> str:
        """ "4 task(s) re-run, 4 execution(s) again, 7 log line(s) again", unknowns said so."""
        tasks = (
            "tasks re-run unknown"
            if self.tasks is None
            else f"{self.figure('tasks')} task(s) re-run"
        )
        if self.effects is None or self.lines is None:
            return f"{tasks}, side effects unknown (no effects-log line for this thread)"
        return (
            f"{tasks}, {self.figure('executions')} execution(s) of a side effect again, "
            f"{self.figure('lines')} log line(s) again"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "basis": self.basis,
            "mode": self.mode,
            "checkpoints_kept": self.checkpoints_kept,
            "restart": self.restart,
            "tasks_again": self.task_count,
            "tasks": None if self.tasks is None else [t.to_json() for t in self.tasks],
            "executions_again": self.executions,
            "executions_per_effect": self.effects,
            "log_lines_again": None if self.lines is None else list(self.lines),
            "log_line_count": self.line_count,
            "range": {k: list(v) for k in SPAN_KEYS if (v := self.span_of(k)) is not None} or None,
            "range_why": self.span_why or None,
        }


def _orphan_runs_again(plan: ResumePlan, checkpoint_ns: str, checkpoint_id: str) -> bool:
    """Does the step an orphan write belongs to run again? Its checkpoint never landed; the
    step runs again unless the thread moved past it (a later checkpoint of its namespace,
    made by a later invocation, or the thread completed)."""
    if plan.status == "completed":
        return False
    latest = next((c for c in plan.subgraph_resumes if c.checkpoint_ns == checkpoint_ns), None)
    if latest is None:
        latest = plan.resume_checkpoint
    return latest is None or checkpoint_id > latest.checkpoint_id


def _past_join(plan: ResumePlan) -> Callable[[WriteRecord], bool]:
    """Is an orphan write's task one a resume never reaches, stopping at a join
    (`ResumePlan.stops_at_join`)? All of them where it stops at once; else the join node's
    own and those of later lost steps (a root checkpoint id at or after the node's)."""
    node = plan.stops_at_join
    if node is None:
        return lambda w: False
    root = [w for w in plan.orphan_writes if not w.checkpoint_ns]
    unreached = unreached_past_join(
        root,
        node,
        plan.stops_at_once,
        lambda w: _orphan_node(w.task_path),
        lambda w: w.checkpoint_id,
    )
    return lambda w: (plan.stops_at_once or not w.checkpoint_ns) and unreached(w)


LOST_SEND_TASK = "(a Send task)"
"""The name of a lost step's task whose writes do not say its node (a Send/push task)."""


def _orphan_node(task_path: str | None) -> str:
    kind, _, node = (task_path or "").partition(", ")
    return node if kind == "~__pregel_pull" and node else LOST_SEND_TASK


def tasks_again(plan: ResumePlan) -> list[TaskAgain]:
    """Tasks a resume runs again: those due at the checkpoint it loads that have no saved
    output, those whose writes are orphaned (their step's checkpoint never landed), and those
    the effects log shows running again, each once."""

    if plan.resume_checkpoint is None:
        return restart_tasks([a for a in plan.attempts if a.verdict in REPLAYING])
    # (a task a node cache that outlives the process serves runs no body: `node_cache`)
    served = {a.task.task_id if a.task is not None else a.task_id
              for a in plan.attempts if a.reason == SERVED}  # fmt: skip
    out: dict[Any, TaskAgain] = {}
    for ns, t in plan.reruns:
        if t.task_id in served:
            continue
        out.setdefault(t.task_id, TaskAgain(t.label, t.task_id, ns, "re-run in the resume step"))
    lost: dict[str, TaskAgain] = {}
    # (a resume LangGraph stops at a join never reaches the join's node nor the steps after
    # it whose checkpoints were lost: their work is lost, not repeated, `joins`)
    unreached = _past_join(plan)
    for w in plan.orphan_writes:
        if not w.task_id or w.task_id == NULL_TASK_ID or w.task_id in out or unreached(w):
            continue
        if w.task_id in served:
            continue
        if _orphan_runs_again(plan, w.checkpoint_ns, w.checkpoint_id):
            lost.setdefault(
                w.task_id,
                TaskAgain(
                    _orphan_node(w.task_path),
                    w.task_id,
                    w.checkpoint_ns,
                    "step whose checkpoint was lost",
                ),
            )
    out.update(lost)
    unclaimed = {tid: t for tid, t in lost.items()}
    for a in sorted((a for a in plan.attempts if a.verdict in REPLAYING),
                    key=lambda a: a.lines[0].line if a.lines else 0):  # fmt: skip
        if a.alignment in ("parent", "call-unsaved"):
            continue  # an @task call: it runs again inside its parent task, listed above
        tid = a.task.task_id if a.task is not None else a.task_id
        if tid is None:
            # A bare log line names no task: it is the orphaned task of its node if one is left.
            tid = next((k for k, t in unclaimed.items() if t.node == a.node), None)
        if tid is not None and tid in out:
            unclaimed.pop(tid, None)
            continue
        key = tid if tid is not None else ("attempt", a.node, id(a))
        ns = a.namespace if a.namespace is not None else (a.logged_ns or "")
        out[key] = TaskAgain(a.node, tid, ns, why_again(a))
    return with_parent_tasks(list(out.values()))


def restart_tasks(attempts: list[Attempt]) -> list[TaskAgain]:
    """The tasks a restart from the input runs (no checkpoint: every logged task), each once,
    in log order, a subgraph's parent task with them; `incident` names the same list."""

    out: dict[Any, TaskAgain] = {}
    for a in sorted(attempts, key=lambda a: a.lines[0].line if a.lines else 0):
        if a.alignment in ("parent", "call-unsaved"):
            continue  # an @task call runs again inside its parent task
        place = task_namespace(a.logged_ns, a.node, a.task_id)
        key = a.task_id if a.task_id is not None else ("attempt", a.node, id(a))
        out.setdefault(key, TaskAgain(a.node, a.task_id, place.checkpoint_ns,
                                      "restart from the input"))  # fmt: skip
    return with_parent_tasks(list(out.values()))


def what_happens_again(plan: ResumePlan) -> Again:
    """What a resume of the database as it stands performs again (the recorded mode's answer)."""

    replay = [a for a in plan.attempts if a.verdict in REPLAYING]
    logged = plan.effects_given and bool(plan.attempts)
    effects: dict[str, int] | None = None
    if logged:
        effects = {}
        for per_node in effect_counts(replay).values():
            for label, n in per_node.items():
                effects[label] = effects.get(label, 0) + n
        effects = dict(sorted(effects.items()))
    # (at the recorded latency: the recorded mode's answer does not move with the one tried)
    own = plan.recorded_outcome or (
        plan.what_if.get(plan.recording.mode) if plan.recording.mode else None
    )
    tasks = tuple(tasks_again(plan))
    lines = tuple(plan.replayed_lines) if logged else None
    span = _recorded_span(own, len(tasks), None if lines is None else len(lines))
    why = str((own.race or {}).get("note") or "") if own is not None and span else ""
    if own is None and not plan.attempts:
        span, why = _unlogged_span(tasks)
    return Again(
        tasks=tasks,
        effects=effects,
        lines=lines,
        checkpoints_kept=own.checkpoints_kept if own is not None else _kept(plan),
        restart=plan.resume_checkpoint is None,
        basis="recorded" if own is not None else "database",
        mode=plan.recording.mode,
        span=span,
        span_why=why,
    )


def _unlogged_span(tasks: tuple[TaskAgain, ...]) -> tuple[dict[SpanKey, tuple[int, int]], str]:
    """The tasks again of a thread the effects log has no line of, the recorded mode unknown:
    the database names the tasks a resume runs, not whether those due at the checkpoint it
    loads had begun before the kill; those of a step whose checkpoint was lost had (their
    writes are saved). The what-if says the same of every mode (`outcomes._widen_for_unlogged`)."""
    begun = sum(1 for t in tasks if t.why != "re-run in the resume step")
    if begun == len(tasks):
        return {}, ""
    nodes = ", ".join(sorted({t.node for t in tasks if t.why == "re-run in the resume step"}))
    return {"tasks": (begun, len(tasks))}, unlogged_tasks_note(nodes, len(tasks))


def _recorded_span(
    own: ModeOutcome | None, tasks: int, lines: int | None
) -> dict[SpanKey, tuple[int, int]]:
    """The range of the recorded mode's tasks and lines again where its outcome says the
    evidence cannot tell (`ModeOutcome.race`: a thread with no log line, starts a bare log
    cannot tell apart, a kill moment only bounded), so the header never gives one figure
    where the what-if gives a range. The range moves with the figures the views count beside
    the model's own (a subgraph's parent task) and always holds the views' figure. The
    checkpoints kept are the database's own count: no range."""
    race = (own.race or {}) if own is not None else {}
    span: dict[SpanKey, tuple[int, int]] = {}
    if own is None or not race:
        return span
    figures: tuple[tuple[SpanKey, str, int | None, int], ...] = (
        ("tasks", "reruns", tasks, len(own.reruns)),
        ("lines", "replayed_lines", lines, len(own.replayed_lines)),
    )
    for key, raced, shown, modelled in figures:
        if shown is None or raced not in race:
            continue
        lo, hi = (int(x) + shown - modelled for x in race[raced])
        lo, hi = max(0, min(lo, shown)), max(hi, shown)
        if lo != hi:
            span[key] = (lo, hi)
    return span


def _kept(plan: ResumePlan) -> int | None:
    """Checkpoints in the database, as the what-if's recorded outcome counts them."""
    for o in plan.what_if.values():
        if o.as_recorded:
            return o.checkpoints_kept
    return None


def is_own_recording(plan: ResumePlan, mode: str) -> bool:
    """Is `mode`'s outcome the recording itself (the recorded mode at the recorded latency)?

    At 0 ms the what-if copies the recorded sync outcome to async (with writes taking no
    time async is sync); that copy is a model of async, not a recording of it."""
    o = plan.what_if.get(mode)
    return o is not None and o.as_recorded and plan.recording.mode == mode


def outcome_tag(plan: ResumePlan, mode: str) -> str:
    """How a mode's outcome was reached, in words: "as recorded", or the model and why; for
    a release before durability modes, how that release runs the mode, or that it cannot."""
    tag = _outcome_basis(plan, mode)
    o = plan.what_if.get(mode)
    release_words = mode_in_release(plan.recording, o.mode) if o is not None else ""
    return f"{tag}; {release_words}" if tag and release_words else tag


def _outcome_basis(plan: ResumePlan, mode: str) -> str:
    o = plan.what_if.get(mode)
    if o is None:
        return ""
    if is_own_recording(plan, mode):
        return "as recorded"
    if o.as_recorded:
        return (
            f"same as the recorded {plan.recording.mode}: with writes taking no time, async is sync"
        )
    if mode == "exit":
        return "model (exit writes nothing until the invocation ends: latency does not matter)"
    return f"model at {o.latency * 1000:g} ms per checkpoint write"


Tone = Literal["warning", "info", "success"]
"""How a mode's answer is shown: something happens again (or may), the evidence cannot tell,
or the evidence shows that nothing does."""

BASIS_NAMES = (
    ("checkpoints_kept", "checkpoints kept"),
    ("reruns", "tasks re-run"),
    ("replayed_lines", "side effects"),
)


def rests_on(plan: ResumePlan, mode: str) -> str:
    """What each figure of `mode`'s outcome rests on, in words (its `basis`): the database
    alone, the effects log, or the model."""
    basis = plan.what_if[mode].basis
    return "; ".join(f"{name}: {basis[key]}" for key, name in BASIS_NAMES if basis.get(key))


def outcome_tone(plan: ResumePlan, mode: str) -> Tone:
    """The tone of `mode`'s sentence, from what its figures rest on (`basis`), never from a
    count that is only missing: a warning when a task or a line happens again (or may, at
    either end of its range, or by a restart, or when the mode loses a run from an earlier
    checkpoint or a fresh input whole); neutral when a figure rests on no effects log
    (which side effects repeat is unknown); the reassuring green only when the evidence shows
    that nothing happens again (the log says so, or the run completed)."""
    o = plan.what_if[mode]
    under = again_under(plan, mode)
    if o.restart or under.task_count or under.line_count or o.lost_branch or o.lost_input:
        return "warning"  # (a lost branch or input: nothing repeats, but its work is never done)
    if any((o.race or {}).get(key, (0, 0))[1] for key in ("reruns", "replayed_lines")):
        return "warning"
    if o.ending == "returned" and not o.reruns:
        return "success"
    unknown = any(v.startswith("unknown") for v in o.basis.values())
    return "info" if unknown or under.task_count is None or under.line_count is None else "success"


def again_under(plan: ResumePlan, mode: str) -> Again:
    """What happens again under `mode` at the plan's latency: the recorded outcome is the
    resume of the database itself (`what_happens_again`); another mode is the durability
    model's counterfactual, whose tasks are those the log times (unknown without a log)."""
    o = plan.what_if[mode]
    if o.as_recorded:
        base = what_happens_again(plan)
        return replace(base, checkpoints_kept=o.checkpoints_kept, restart=o.restart,
                       basis="recorded", mode=o.mode)  # fmt: skip
    return again_of(o, plan.effects_given and bool(plan.attempts))


def again_of(o: ModeOutcome, logged: bool) -> Again:
    """What happens again in a modelled outcome (`again_under`'s other modes, and each of
    Learn's imagined kills): its tasks, executions and lines, unknown without log lines."""
    why: Why = "restart from the input" if o.restart else "re-run in the resume step"
    listed = [TaskAgain(r["node"], r.get("task_id"), r.get("checkpoint_ns") or "", why)
              for r in o.reruns]  # fmt: skip
    tasks = tuple(with_parent_tasks(listed))
    race = o.race or {}
    span: dict[SpanKey, tuple[int, int]] = {}
    # The views count a subgraph's parent task beside the tasks inside it; the race counts
    # the model's own list: the task range moves by the parents added.
    parents = len(tasks) - len(o.reruns)
    figures: tuple[tuple[SpanKey, str, int, int], ...] = (
        ("checkpoints_kept", "checkpoints_kept", o.checkpoints_kept, 0),
        ("tasks", "reruns", len(tasks), parents),
        ("lines", "replayed_lines", len(o.replayed_lines), 0),
    )
    for key, raced, own, shift in figures:
        lo, hi = race.get(raced, (own - shift, own - shift))
        lo, hi = min(int(lo) + shift, own), max(int(hi) + shift, own)
        if lo != hi and (logged or key == "checkpoints_kept"):
            span[key] = (lo, hi)
    return Again(
        tasks=tasks if logged else None,
        effects=dict(o.replayed_effects) if logged else None,
        lines=tuple(o.replayed_lines) if logged else None,
        checkpoints_kept=o.checkpoints_kept,
        restart=o.restart,
        basis="model",
        mode=o.mode,
        span=span,
        span_why=str(race.get("note") or "") if span else "",
    )


def with_parent_tasks(tasks: list[TaskAgain]) -> list[TaskAgain]:
    """The tasks, each subgraph's parent task added before the first of its tasks: a task
    inside a subgraph runs again only inside the parent task that runs the subgraph, which
    runs again too (a resume re-enters the subgraph through it). The model's list names the
    logged tasks only, and a subgraph node logs nothing of its own; the database's list
    (`tasks_again`) names it, as a due task of the root checkpoint."""

    out: list[TaskAgain] = []
    seen = {(names(t.checkpoint_ns), t.node) for t in tasks}
    for t in tasks:
        parts = names(t.checkpoint_ns).split("|") if t.checkpoint_ns else []
        for depth, part in enumerate(parts):
            # the second graph one task invokes (`p~1`) is run by that same task, `p`
            node = part.partition(CALL)[0]
            parent = "|".join(parts[:depth])
            if (parent, node) not in seen:
                seen.add((parent, node))
                out.append(TaskAgain(node, None, parent, t.why))
        out.append(t)
    return out


NextKind = Literal["failed", "interrupted", "answered"]
"""`answered`: LangGraph still lists the question (the task's `__interrupt__` write stays until
the task ends), but the graph below it saved its paused task's output: the answer was given
and the run went past the pause (`durability.evidence.answered_below`)."""


@dataclass(frozen=True)
class NextMove:
    """What stopped the thread and the code that continues it."""

    kind: NextKind
    node: str
    detail: str  # the exception text, or the interrupt's payload as JSON
    code: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "node": self.node, "detail": self.detail, "code": self.code}


def _payload(value: Any) -> Any:

    return to_jsonable(getattr(value, "value", value))


def _interrupt_id(value: Any) -> str | None:
    """The id LangGraph gave an interrupt (the key of a resume map), when the row kept it."""
    found = value.get("id") if isinstance(value, dict) else getattr(value, "id", None)
    return found if isinstance(found, str) and found else None


def _config_code(thread_id: str, checkpoint_id: str | None) -> str:
    """`config = {...}` naming the thread and the checkpoint this plan read.

    Built from values, never from text: each one goes through repr(), which writes any
    string (quotes, new lines, U+2028, NEL, characters outside the BMP) as a Python literal
    that reads back as the same string, and nothing from the data is ever in a comment."""
    configurable = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return f"config = {{'configurable': {configurable!r}}}"


def _resume_code(ids: list[str | None]) -> str:
    """The Command that answers the pending interrupts: `resume=...` for a single one, else a
    map from each interrupt's id to its answer (LangGraph refuses a bare value then)."""
    if len(ids) <= 1 or any(i is None for i in ids):
        return "Command(resume=...)"
    return "Command(resume={" + ", ".join(f"{i!r}: ..." for i in ids) + "})"


def next_moves(plan: ResumePlan, thread: Thread | None) -> list[NextMove]:
    """A failed task's exception and an interrupted task's question, with the call that continues.

    `graph.invoke(None, config)` re-runs a failed task from its first line after the bug is
    fixed; `graph.invoke(Command(resume=...), config)` answers an interrupt() (LangGraph
    passes the value back as interrupt()'s return value). The code names the thread and
    the checkpoint the plan read, as literals; lines end with `\\n` only."""
    if thread is None or plan.status not in ("failed", "interrupted"):
        return []
    cp = plan.resume_checkpoint
    config = _config_code(plan.thread_id, cp.checkpoint_id if cp is not None else None)
    asked: dict[Any, tuple[str, Any]] = {}  # one question once: a subgraph's interrupt is
    for ns, task in plan.reruns:  # also its parent task's, the deeper namespace asked it
        if task.status == "interrupted":
            for question in task.interrupts or [None]:
                key = _interrupt_id(question) or ("unnamed", len(asked))
                if key not in asked or len(ns) > len(asked[key][0]):
                    asked[key] = (task.node if not ns else f"{ns} / {task.node}", question)
    resume = _resume_code([_interrupt_id(q) for _, q in asked.values()])
    moves: list[NextMove] = []
    for ns, task in plan.reruns:
        if task.status == "failed":
            code = (
                f"{config}\n"
                "# after fixing the cause: re-runs the failed task from its first line\n"
                "graph.invoke(None, config)"
            )
            where = task.node if not ns else f"{ns} / {task.node}"
            moves.append(NextMove("failed", where, task.error or "", code))
    code = (
        f"from langgraph.types import Command\n\n{config}\n"
        "# replace ... with your answer: it becomes interrupt()'s return value\n"
        f"graph.invoke({resume}, config)"
    )
    if asked and plan.answered_below:
        code = (
            f"{config}\n"
            "# the answer was saved below: go on without a new one\n"
            "graph.invoke(None, config)"
        )
    for where, question in asked.values():
        payload = json.dumps(_payload(question), ensure_ascii=False, indent=None, default=str)
        kind: NextKind = "answered" if plan.answered_below else "interrupted"
        moves.append(NextMove(kind, where, payload, code))
    return moves
