"""Kill-test campaigns: many real SIGKILLs of one graph, the evidence kept, the resumes judged.

One run = a fresh store (a SQLite file, or a Postgres schema of its own) and effects log,
a child process killed at a chosen point, a snapshot of what the crash left (the
database as it stood, the effects log), and a resume in a brand new process against
the original store. A campaign repeats that per durability mode, `put` latency, kill
node, fault point and run, because the outcome of a kill is a distribution (where the
background writer happened to be), not a constant: with `--kill-delay LO..HI` each run
draws its delay uniformly from the range with a recorded seed, so the async window
shows up as a curve of repeats against the kill moment.

With `--pg-ephemeral --server-crash` the database server itself (the throw-away one
this command started, never another) is SIGKILLed together with the child, under
`synchronous_commit=on` and `off`, restarted, and the checkpoints the child had been
told were saved (its fsync'ed acknowledgement log) are compared with what the server
still holds after recovery.

This module runs campaigns; the manifest they write is `replaylens.killtest.manifest` (the
contract with every reader), and `replaylens.killtest.summary` reduces one to rows.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
import platform
import random
import re
import secrets
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replaylens.errors import ReplaylensError, ThreadNotFound
from replaylens.killtest import MODES
from replaylens.killtest._child import (
    BEFORE_DURABILITY,
    COMMAND,
    DEFAULT_HOLD,
    FAULT_POINTS,
    FORK,
    installed_modes,
    release,
)
from replaylens.killtest._runner import (
    ChildOutcome,
    ChildSpec,
    child_env,
    repo_paths,
    run_child,
)
from replaylens.killtest.manifest import (
    EffectsChoice,
    EffectsSource,
    Manifest,
    RunRecord,
    latency_label,
)
from replaylens.times import utc_iso

CHILD_TIMEOUT = 120.0
MAX_RESUME_ANSWERS = 10
"""How often a run answers an interrupt with --resume-value before giving up on it: LangGraph's
own test of four interrupts answered one at a time (test_parallel_interrupts_double) needs
four, and guards against a graph that never stops asking with ten."""
SYNCHRONOUS_COMMIT = ("on", "off")


class KilltestError(ReplaylensError):
    """A kill test cannot start (bad graph path, unknown node, bad option)."""


# --------------------------------------------------------------------------- checks
def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class GraphNodes(list[str]):
    """A graph's node names (subgraphs included); `functional` when it is an ``@entrypoint``,
    whose ``@task`` calls are kill points too but exist only once the entrypoint runs."""

    functional: bool = False

    def can_kill_at(self, name: str) -> bool:
        return name in self or self.functional


def load_graph_nodes(graph: str) -> GraphNodes:
    """Import `graph` here, in the parent, and list its node names (subgraphs included).

    Checking before any child starts turns a typo into one sentence instead of a dozen
    runs that each report the same ImportError from a child's RESULT line.
    """
    from langgraph.graph.state import CompiledStateGraph

    from replaylens.killtest._child import build_graph, load_target

    module_name, sep, attr = graph.partition(":")
    if not sep or not module_name or not attr:
        raise KilltestError(f"The graph must be given as 'package.module:attr', not {graph!r}.")
    for path in [os.getcwd(), *repo_paths()]:
        if path not in sys.path:
            sys.path.append(path)
    try:
        target = load_target(graph)
    except ImportError as exc:
        raise KilltestError(
            f"Cannot import module {module_name!r} for graph {graph!r}: {exc}."
        ) from None
    except AttributeError:
        raise KilltestError(f"Module {module_name!r} has no attribute {attr!r}.") from None
    except Exception as exc:  # noqa: BLE001 - the user's module raised as it was imported
        raise KilltestError(
            f"Importing module {module_name!r} for graph {graph!r} raised "
            f"{type(exc).__name__}: {exc}."
        ) from None
    try:
        from langgraph.checkpoint.memory import InMemorySaver

        compiled = build_graph(target, InMemorySaver())
    except Exception as exc:  # noqa: BLE001 - any failure here means "not a graph"
        raise KilltestError(
            f"{graph!r} does not give a LangGraph graph ({type(exc).__name__}: {exc})."
        ) from None
    names = GraphNodes(getattr(compiled, "nodes", {}))
    names.functional = not isinstance(compiled, CompiledStateGraph)
    try:  # nodes of subgraphs can be kill points too (their starts are announced)
        for _ns, subgraph in compiled.get_subgraphs(recurse=True):
            names += [n for n in subgraph.nodes if n not in names]
    except Exception:  # noqa: BLE001 - best effort; the top-level nodes are enough
        pass
    return names


def parse_kill_at(value: str | None) -> tuple[str, int] | None:
    """`NODE` or `NODE:N` -> (node, N); N counts the node's starts in one child, from 1."""
    if value is None:
        return None
    node, sep, count = value.rpartition(":")
    if not sep:
        return value, 1
    if not count.isdigit() or int(count) < 1 or not node:
        raise KilltestError(
            f"--kill-at must be NODE or NODE:N with N a positive whole number, not {value!r}."
        )
    return node, int(count)


# --------------------------------------------------------------------------- evidence
def count_effects(
    at_kill: Path, after: Path, thread_id: str, *, resume_error: str | None = None
) -> dict[str, int]:
    """Effect lines before and after the resume, and the effects the resume (or the restart
    its `resume_error` calls for) began again (`replaylens.effects.repeats`: the number the
    whole experiment is about)."""
    from replaylens.effects.parse import read_effects
    from replaylens.effects.repeats import count_repeats, needs_restart

    before = read_effects(at_kill).for_thread(thread_id) if at_kill.exists() else []
    total = read_effects(after).for_thread(thread_id) if after.exists() else []
    return {
        "effect_lines_at_kill": len(before),
        "effect_lines_after_resume": len(total),
        "lines_repeated": count_repeats(before, total, restart=needs_restart(resume_error)),
    }


def count_checkpoints(db: Path, thread_id: str) -> tuple[int, int]:
    """(checkpoints, writes) of `thread_id` in `db`, read through the read-only source."""
    from replaylens.sources import open_source

    source = open_source(db)
    try:
        row = next((r for r in source.thread_index() if r.thread_id == thread_id), None)
        if row is None:
            return 0, 0
        try:
            writes = len(source.read_thread(thread_id).writes)
        except ThreadNotFound:
            writes = 0
        return row.checkpoints, writes
    finally:
        source.close()


# --------------------------------------------------------------------------- one run
def _answer_interrupts(
    first: ChildOutcome, spec: ChildSpec, resume_value: Any, env: dict[str, str], **kill: Any
) -> ChildOutcome:
    """While the child stopped at an interrupt (not killed), answer it in a new child.

    That is how a kill point behind a human approval is reached: the payment graph stops
    in `approve` first, and only the answered run gets as far as `charge`.
    """
    outcome = first
    for _ in range(MAX_RESUME_ANSWERS):
        if outcome.killed or not (outcome.result or {}).get("interrupted"):
            break
        answer = dataclasses.replace(spec, input=None, resume=True, resume_value=resume_value)
        outcome = run_child(answer, timeout=CHILD_TIMEOUT, env=env, **kill)
    return outcome


def _answer_again(
    first: ChildOutcome, spec: ChildSpec, killed: ChildSpec, env: dict[str, str]
) -> ChildOutcome:
    """After the kill, when the resume stopped at an interrupt and the killed invocation was
    itself an answer (a `command()` input with `resume`), send that answer once more: the
    resume is answered as the run answered it, as `_answer_interrupts` does for a run driven
    by `resume_value`. Under exit the killed invocation's answer was never saved, and the
    resume asks the same question again. An answer sent with a checkpoint id (a `fork()`
    whose input is that command: test_subgraph_interrupt_resume_with_explicit_head_checkpoint
    _id) is sent again the same way, with the id of the thread's head now."""
    sent = sent_answer(killed.input)
    if first.killed or sent is None or not (first.result or {}).get("interrupted"):
        return first
    again = dataclasses.replace(spec, input=sent, resume=False)
    return run_child(again, timeout=CHILD_TIMEOUT, env=env)


def sent_answer(sent: Any) -> dict[str, Any] | None:
    """The invocation input `sent` when it answered an interrupt (a `command()` with
    `resume`, or a `fork()` whose input is one), else None."""
    if not isinstance(sent, dict):
        return None
    forked = sent.get(FORK)
    payload = forked.get("input") if isinstance(forked, dict) else sent
    command = payload.get(COMMAND) if isinstance(payload, dict) else None
    return sent if isinstance(command, dict) and "resume" in command else None


def _drive(
    spec: ChildSpec,
    ctx: RunContext,
    env: dict[str, str],
    on_kill: Callable[[], None] | None,
    **kill: Any,
) -> tuple[ChildOutcome, ChildSpec]:
    """The invocations of one run up to its kill: the input, then, while a child ends
    without being killed, the answer to its interrupt (with a resume value) or the next of
    `ctx.then_inputs`. The kill is aimed from invocation `ctx.kill_from_invocation` on, so
    that it lands after the pause or the failure it is meant to follow. Returns the outcome
    and the spec of the invocation it came from (the killed one, when a kill landed)."""
    unarmed: dict[str, Any] = {"kill_at": None, "kill_delay": 0.0, "kill_after": None}
    invocation = 0

    def child(s: ChildSpec) -> ChildOutcome:
        armed = invocation >= ctx.kill_from_invocation
        return run_child(s, timeout=CHILD_TIMEOUT, env=env, on_kill=on_kill if armed else None,
                         **(kill if armed else unarmed))  # fmt: skip

    outcome = child(spec)
    pending = list(ctx.then_inputs)
    for _ in range(MAX_RESUME_ANSWERS + len(pending)):
        if outcome.killed:
            break
        if ctx.has_resume_value and (outcome.result or {}).get("interrupted"):
            spec = dataclasses.replace(spec, input=None, resume=True, resume_value=ctx.resume_value)
        elif pending:
            spec = dataclasses.replace(spec, input=pending.pop(0), resume=False)
        else:
            break
        invocation += 1
        outcome = child(spec)
    return outcome, spec


@dataclass(frozen=True)
class KillDelay:
    """A fixed delay, or a range each run draws from uniformly (`0.05..0.45`)."""

    low: float
    high: float

    @classmethod
    def parse(cls, text: str | float | None) -> KillDelay | None:
        if text is None:
            return None
        if isinstance(text, int | float):
            return cls(float(text), float(text))
        number = r"(\d+(?:\.\d*)?|\.\d+)"
        match = re.fullmatch(rf"\s*{number}\s*(?:\.\.\s*{number}\s*)?", str(text))
        try:
            low = float(match.group(1)) if match else -1.0
            high = float(match.group(2)) if match and match.group(2) else low
        except ValueError:
            low = high = -1.0
        if low < 0 or high < low:
            raise KilltestError(
                f"--kill-delay takes SECONDS or LOW..HIGH (e.g. 0.05..0.45), not {text!r}."
            )
        return cls(low, high)

    @property
    def is_range(self) -> bool:
        return self.high > self.low


@dataclass(frozen=True)
class RunPlan:
    """One cell of the campaign's matrix, numbered within its cell."""

    mode: str
    put_latency: float
    run: int
    kill_at: tuple[str, int] | None
    fault: str | None
    synchronous_commit: str | None
    kill_delay: float | None

    @property
    def name(self) -> str:
        parts = [self.mode, latency_label(self.put_latency)]
        if self.kill_at is not None:
            parts.append(f"{self.kill_at[0]}{self.kill_at[1]}")
        if self.fault:
            parts.append(self.fault)
        if self.synchronous_commit:
            parts.append(f"sc{self.synchronous_commit}")
        parts.append(str(self.run))
        return re.sub(r"[^A-Za-z0-9_.-]", "_", "-".join(parts))


@dataclass
class RunContext:
    """What every run of a campaign shares."""

    graph: str
    backend: Any
    input_value: Any
    kill_after: float | None
    resume_value: Any
    has_resume_value: bool
    sleep: float
    effects_choice: EffectsChoice
    server_crash: bool
    configurable: dict[str, Any] | None = None
    then_inputs: tuple[Any, ...] = ()
    kill_from_invocation: int = 0
    resume_all: bool = False
    api: str = "invoke"


def _read_acks(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by the kill: it was never acknowledged
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _lines_for(path: Path, thread_id: str) -> int:
    from replaylens.effects.parse import read_effects

    return (
        len(read_effects(path).for_thread(thread_id))
        if path.exists() and path.stat().st_size
        else 0
    )


def _choose_source(choice: EffectsChoice, recorder_log: Path, thread_id: str) -> EffectsSource:
    """`auto`: the recorder's lines when the graph's nodes wrote any, else the callbacks'."""
    if choice != "auto":
        return choice
    return "recorder" if _lines_for(recorder_log, thread_id) else "callbacks"


def _copy_or_touch(src: Path, dest: Path) -> None:
    if src.exists():
        shutil.copy2(src, dest)
    else:
        dest.touch()


def run_one(folder: Path, plan: RunPlan, ctx: RunContext) -> RunRecord:
    """One kill (or fault, or server crash) and one resume; returns the manifest record."""
    rel = Path("runs") / plan.name
    run_dir = folder / rel
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    recorder_log, callbacks_log = run_dir / "effects.jsonl", run_dir / "callbacks.effects.jsonl"
    acks = run_dir / "acks.jsonl"
    thread_id = f"killtest-{plan.name}"
    store = (ctx.backend.prepare(run_dir, rel, plan.name, plan.synchronous_commit) if ctx.backend.kind == "postgres"
             else ctx.backend.prepare(run_dir, rel, plan.name))  # fmt: skip
    env = child_env(
        recorder_log, {"REPLAYLENS_EXAMPLE_SLEEP": f"{ctx.sleep:g}", **ctx.backend.env()}
    )
    fault = None
    if plan.fault:
        fault = {"point": plan.fault, "node": plan.kill_at[0] if plan.kill_at else None,
                 "hold": plan.put_latency or DEFAULT_HOLD}  # fmt: skip
    spec = ChildSpec(ctx.graph, store.db_after_resume, thread_id, plan.mode, ctx.input_value,
                     put_latency=plan.put_latency, store=store.spec, fault=fault, acks=str(acks),
                     callbacks_log=str(callbacks_log), configurable=ctx.configurable,
                     resume_all=ctx.resume_all, api=ctx.api)  # fmt: skip
    # A fault point is reached by the child itself; the clock only aims the other kills.
    kill = {"kill_at": None if plan.fault else plan.kill_at, "kill_delay": plan.kill_delay or 0.0,
            "kill_after": None if plan.fault else ctx.kill_after}  # fmt: skip
    crashed: list[int] = []
    on_kill = (lambda: crashed.append(ctx.backend.server.crash())) if ctx.server_crash else None
    outcome, last_spec = _drive(spec, ctx, env, on_kill, **kill)
    if crashed:
        ctx.backend.server.restart()  # crash recovery runs here; what it keeps is the measurement

    ctx.backend.snapshot(store)
    at_kill = {
        name: run_dir / f"at-kill.{name}" for name in ("effects.jsonl", "callbacks.effects.jsonl")
    }
    _copy_or_touch(recorder_log, at_kill["effects.jsonl"])
    _copy_or_touch(callbacks_log, at_kill["callbacks.effects.jsonl"])
    for form in sorted(run_dir.glob("effects.*.jsonl")):  # the same effects in other log forms
        shutil.copy2(form, run_dir / f"at-kill.{form.name}")
    try:
        checkpoints, writes, present = ctx.backend.counts(store, thread_id)
    except ReplaylensError as exc:
        if outcome.killed or not (outcome.error or not outcome.result):
            raise
        raise KilltestError(_died_unasked(plan.name, outcome)) from exc
    acked = [a["checkpoint_id"] for a in _read_acks(acks) if a.get("kind") == "checkpoint"]

    resume: dict[str, Any]
    if outcome.killed:
        # The resume acknowledges into a file of its own: acks.jsonl stays what the crashed child was told.
        again_spec = dataclasses.replace(spec, input=None, fault=None, resume=False,
                                         acks=str(run_dir / "acks.resume.jsonl"))  # fmt: skip
        again = run_child(again_spec, timeout=CHILD_TIMEOUT, env=env)
        if ctx.has_resume_value:
            again = _answer_interrupts(again, again_spec, ctx.resume_value, env)
        else:
            again = _answer_again(again, again_spec, last_spec, env)
        resume = {"ok": bool(again.result and again.result.get("ok")), "error": _error_of(again)}
    elif plan.fault:
        resume = {
            "ok": None,
            "error": None,
            "skipped": f"the fault point {plan.fault} was never reached",
        }
    else:
        resume = {"ok": None, "error": None, "skipped": "the graph finished before the kill point"}
    ctx.backend.finish(store)
    for log in (recorder_log, callbacks_log):
        if not log.exists():
            log.touch()

    source = _choose_source(ctx.effects_choice, recorder_log, thread_id)
    after_log = recorder_log if source == "recorder" else callbacks_log
    kill_log = (
        at_kill["effects.jsonl"] if source == "recorder" else at_kill["callbacks.effects.jsonl"]
    )
    record = RunRecord(
        mode=plan.mode, put_latency=plan.put_latency, run=plan.run, thread_id=thread_id,
        db_at_kill=str(rel / store.db_at_kill.name), db_after_resume=str(rel / store.db_after_resume.name),
        effects=str(rel / after_log.name), effects_at_kill=str(rel / kill_log.name),
        checkpoints_at_kill=checkpoints, writes_at_kill=writes,
        **count_effects(kill_log, after_log, thread_id, resume_error=resume.get("error")),
        killed=outcome.killed, kill_reason=outcome.kill_reason, resume=resume,
        backend=ctx.backend.kind, store=store.name,
        kill_at=None if plan.kill_at is None else f"{plan.kill_at[0]}:{plan.kill_at[1]}",
        kill_delay=None if plan.fault else plan.kill_delay, fault_point=plan.fault,
        fault_reached=(outcome.fault is not None) if plan.fault else None,
        effects_source=source, synchronous_commit=plan.synchronous_commit, server_crash=bool(crashed),
        acked_checkpoints=len(acked), acked_lost=[c for c in acked if c not in present],
        cached_nodes=outcome.cached_nodes,
    )  # fmt: skip
    if not outcome.killed and outcome.result and not outcome.result.get("ok"):
        record.run_error = outcome.error
    return record


def _died_unasked(name: str, outcome: ChildOutcome) -> str:
    """Why a run has nothing to measure: its child ended, not killed, with an error or no
    result, and left a store that cannot be read (a saver that fails on the installed
    release: langgraph-checkpoint-sqlite 2.0's `AsyncSqliteSaver` asks aiosqlite 0.22's
    connection for `is_alive`, which it no longer has, and the database stays empty), in one
    sentence with the child's error, not the empty database's."""
    if outcome.error:
        said = f": {outcome.error}"
    else:
        lines = [line.strip() for line in outcome.stderr_tail.splitlines() if line.strip()]
        said = f": {lines[-1]}" if lines else ""
    how = "timed out" if outcome.timed_out else f"exited with code {outcome.returncode}"
    return (
        f"run {name}: the graph's child process {how} before the kill point and saved nothing{said}"
    )


def _error_of(outcome: ChildOutcome) -> str | None:
    if outcome.result is not None:
        return outcome.error
    return f"the resume child exited with code {outcome.returncode} and no result"


def progress_line(index: int, total: int, rec: RunRecord) -> str:
    """The one line per run a person watching the campaign reads."""
    head = f"[{index}/{total}] {rec.mode} {latency_label(rec.put_latency)} run {rec.run}: "
    if not rec.killed:
        if rec.fault_point:
            return head + f"not killed: the fault point {rec.fault_point} was never reached"
        return head + "not killed: the graph finished before the kill point"
    if rec.fault_point:
        where = f"killed at {rec.fault_point}"
    else:
        node = rec.kill_at.rpartition(":")[0] if rec.kill_at else None
        where = f"killed in {node}" if node else "killed"
        if rec.kill_delay is not None and rec.kill_at:
            where += f" +{rec.kill_delay:.3f}s"
    if rec.server_crash:
        where += f" with the server (synchronous_commit={rec.synchronous_commit})"
    tail = "resumed ok" if rec.resume_ok else f"resume failed ({rec.resume_error})"
    lost = f", {len(rec.acked_lost)} acknowledged lost" if rec.acked_lost else ""
    return f"{head}{where}, {rec.checkpoints_at_kill} checkpoints{lost}, {tail}"


# --------------------------------------------------------------------------- campaign
def _validate(
    modes: Sequence[str],
    runs: int,
    put_latencies: Sequence[float],
    targets: list[tuple[str, int]],
    kill_after: float | None,
    faults: Sequence[str],
    server_crash: bool,
    pg_ephemeral: bool,
) -> None:
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise KilltestError(
            f"--modes takes sync, async and exit, not {','.join(bad) or 'nothing'}."
        )
    runnable = installed_modes()
    if missing := [m for m in modes if m not in runnable]:
        raise KilltestError(
            f"LangGraph {release()} cannot run under {', '.join(missing)}: "
            f"{BEFORE_DURABILITY}. Pass --modes {','.join(runnable)}."
        )
    if runs < 1:
        raise KilltestError("--runs must be at least 1.")
    if any(lat < 0 for lat in put_latencies):
        raise KilltestError("--put-latency cannot be negative.")
    unknown = [f for f in faults if f not in FAULT_POINTS]
    if unknown:
        raise KilltestError(f"--fault takes {', '.join(FAULT_POINTS)}, not {', '.join(unknown)}.")
    if not targets and kill_after is None and not faults:
        raise KilltestError(
            "Give a kill point with --kill-at NODE[:N], --kill-after SECONDS or --fault POINT."
        )
    if server_crash and not targets:
        raise KilltestError(
            "--server-crash needs --kill-at NODE: the server dies at that moment, with the child."
        )
    if server_crash and faults:
        raise KilltestError(
            "--server-crash kills the server at the --kill-at moment; it cannot be combined with --fault."
        )
    if server_crash and not pg_ephemeral:
        raise KilltestError(
            "--server-crash needs --pg-ephemeral: it only ever kills a server this command started."
        )


def _plan(
    modes: Sequence[str],
    runs: int,
    put_latencies: Sequence[float],
    targets: list[tuple[str, int]],
    faults: Sequence[str],
    sync_commits: Sequence[str | None],
    delay: KillDelay | None,
    rng: random.Random,
) -> list[RunPlan]:
    """Every run in order; each draws its own kill delay (in plan order, so a seed replays)."""
    out = []
    for latency in put_latencies:
        for target in targets or [None]:
            for fault in list(faults) or [None]:
                for sc in sync_commits:
                    for mode in modes:
                        for n in range(1, runs + 1):
                            drawn = None
                            if delay is not None and not fault:
                                drawn = (
                                    round(rng.uniform(delay.low, delay.high), 4)
                                    if delay.is_range
                                    else delay.low
                                )
                            out.append(RunPlan(mode, latency, n, target, fault, sc, drawn))
    return out


def _parse_targets(kill_at: str | Sequence[str] | tuple[str, int] | None) -> list[tuple[str, int]]:
    if kill_at is None:
        return []
    if isinstance(kill_at, tuple) and len(kill_at) == 2 and isinstance(kill_at[1], int):
        return [(str(kill_at[0]), kill_at[1])]
    items = [kill_at] if isinstance(kill_at, str) else list(kill_at)
    parts = [p.strip() for item in items for p in str(item).split(",") if p.strip()]
    return [t for t in (parse_kill_at(p) for p in parts) if t is not None]


def run_campaign(
    graph: str,
    out: str | os.PathLike[str],
    *,
    input_value: Any = None,
    modes: Sequence[str] = MODES,
    kill_at: str | Sequence[str] | tuple[str, int] | None = None,
    kill_delay: float | str | None = None,
    kill_after: float | None = None,
    runs: int = 1,
    put_latencies: Sequence[float] = (0.0,),
    resume_value: Any = None,
    has_resume_value: bool = False,
    sleep: float = 0.5,
    checkpointer: str | None = None,
    pg_ephemeral: bool = False,
    keep_schemas: bool = False,
    faults: Sequence[str] = (),
    server_crash: bool = False,
    synchronous_commit: Sequence[str] = SYNCHRONOUS_COMMIT,
    effects_source: EffectsChoice = "auto",
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
    configurable: dict[str, Any] | None = None,
    then_inputs: Sequence[Any] = (),
    kill_from_invocation: int = 0,
    resume_all: bool = False,
    api: str = "invoke",
) -> dict[str, Any]:
    """Run every cell of the matrix, write DIR/manifest.json and return it (as a dict).

    Runs go one after another on purpose: a kill is aimed by the clock, and parallel
    children competing for the CPU would move where it lands. A backend failure in the
    middle (the server went away) stops the campaign: the manifest keeps the runs done
    so far (`runs` against `planned_runs`) and names the error, then the error is raised.
    A `--checkpointer` campaign drops the schemas it created at the end (each run's rows
    are exported to SQLite files in its folder first) unless `keep_schemas`; the manifest's
    `schemas_left` names what stays on the server.
    """
    targets = _parse_targets(kill_at)
    faults = [f for f in faults if f]
    if checkpointer and pg_ephemeral:
        raise KilltestError(
            "Give either --checkpointer postgresql://… or --pg-ephemeral, not both."
        )
    from replaylens import dsn

    if checkpointer and not dsn.is_dsn(checkpointer):
        raise KilltestError(
            "--checkpointer takes a Postgres connection string (postgresql://… or key=value; SQLite, "
            "the default, needs no option)."
        )
    _validate(modes, runs, put_latencies, targets, kill_after, faults, server_crash, pg_ephemeral)
    bad_sc = [v for v in synchronous_commit if v not in SYNCHRONOUS_COMMIT]
    if bad_sc:
        raise KilltestError(f"--synchronous-commit takes on and off, not {', '.join(bad_sc)}.")
    nodes = load_graph_nodes(graph)
    unseen = {node for node, _n in targets if not nodes.can_kill_at(node)}
    delay = KillDelay.parse(kill_delay) or (KillDelay(sleep / 2, sleep / 2) if targets else None)
    if delay is not None and delay.is_range and seed is None:
        seed = secrets.randbelow(2**31)
    rng = random.Random(seed)

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    backend = _open_backend(checkpointer, pg_ephemeral)
    manifest: Manifest | None = None
    try:
        sync_commits: list[str | None] = list(synchronous_commit) if server_crash else [None]
        plan = _plan(modes, runs, put_latencies, targets, faults, sync_commits, delay, rng)
        manifest = Manifest(
            graph=graph, runs=[], backend=backend.kind, dsn=None if backend.kind == "sqlite" else backend.label,
            pg_ephemeral=pg_ephemeral, seed=seed if delay is not None and delay.is_range else None,
            kill_delay_range=(delay.low, delay.high) if delay is not None and delay.is_range else None,
            modes=list(modes), kill_at=[f"{n}:{c}" for n, c in targets] or None,
            kill_delay=None if delay is None or delay.is_range else delay.low, kill_after=kill_after,
            fault_points=list(faults) or None, put_latency=list(put_latencies),
            synchronous_commit=list(synchronous_commit) if server_crash else None, server_crash=server_crash,
            effects_source=effects_source, input=input_value,
            resume_value=resume_value if has_resume_value else None, sleep=sleep,
            then_inputs=list(then_inputs) or None, kill_from_invocation=kill_from_invocation,
            resume_all=resume_all, api=api, python=platform.python_version(), langgraph=_version("langgraph"),
            langgraph_checkpoint_sqlite=_version("langgraph-checkpoint-sqlite"),
            langgraph_checkpoint_postgres=_version("langgraph-checkpoint-postgres"),
            server_version=_server_version(backend),
            created=utc_iso(), planned_runs=len(plan),
        )  # fmt: skip
        ctx = RunContext(graph, backend, input_value, kill_after, resume_value, has_resume_value, sleep,
                         effects_source, server_crash, configurable or None, tuple(then_inputs),
                         kill_from_invocation, resume_all, api)  # fmt: skip
        for index, cell in enumerate(plan, 1):
            try:
                record = run_one(folder, cell, ctx)
            except ReplaylensError as exc:
                manifest.error = str(exc)
                manifest.write(folder)
                raise
            manifest.runs.append(record)
            manifest.write(
                folder
            )  # after every run: an interrupted campaign keeps what it measured
            if cell.kill_at is not None and cell.kill_at[0] in unseen:
                if not record.killed:
                    manifest.error = _unseen_kill_point(
                        graph, cell.kill_at[0], nodes, record.run_error
                    )
                    manifest.write(folder)
                    raise KilltestError(manifest.error)
                unseen.discard(cell.kill_at[0])  # it exists: a graph called in a node has it
            if progress is not None:
                progress(progress_line(index, len(plan), record))
    finally:
        if (
            backend.kind == "postgres" and backend.server is None
        ):  # --checkpointer: the user's server
            left = backend.schemas_created() if keep_schemas else backend.drop_schemas()
            if manifest is not None:
                manifest.schemas_left = left
                manifest.write(folder)
        backend.close()
    return manifest.to_dict()


def _unseen_kill_point(
    graph: str, node: str, nodes: GraphNodes, run_error: str | None = None
) -> str:
    """Why a campaign stopped at its first run aimed at a node the graph does not list.

    A graph invoked inside a node's body (``child.invoke(...)`` in the node) has its nodes
    only once it runs, so a name the compiled graph does not list is accepted; the first run
    aimed at it tells a typo from such a node, unless that run raised first: then the error
    is the news, not the name (LangGraph 0.2.76 could not build a shape's inner graph, and
    the campaign said "check the name")."""
    known = ", ".join(n for n in nodes if not n.startswith("__"))
    if run_error:
        return (
            f"The graph {graph!r} lists no node {node!r} (its nodes are {known}), and the "
            f"first run aimed at it raised before reaching it: {run_error}. (A node of a graph "
            f"invoked inside another node's body is a kill point too; it is found once a run "
            f"starts it.)"
        )
    return (
        f"The graph {graph!r} lists no node {node!r} (its nodes are {known}), and the first run "
        f"aimed at it finished before reaching it: check the name. (A node of a graph invoked "
        f"inside another node's body is a kill point too; it is found once a run starts it.)"
    )


def _open_backend(checkpointer: str | None, pg_ephemeral: bool) -> Any:
    from replaylens.killtest._backend import PostgresBackend, SqliteBackend, ephemeral_backend

    if pg_ephemeral:
        return ephemeral_backend()
    if checkpointer:
        return PostgresBackend(checkpointer)
    return SqliteBackend()


def _server_version(backend: Any) -> str | None:
    if backend.kind != "postgres":
        return None
    with backend._connect() as conn:  # noqa: SLF001 - the backend's own connection helper
        return str(conn.execute("SHOW server_version").fetchone()[0])


def unreached_faults(manifest: dict[str, Any] | Manifest) -> list[str]:
    """Fault points that no run reached: the campaign measured nothing about them."""
    m = manifest if isinstance(manifest, Manifest) else Manifest.from_dict(manifest)
    reached: dict[str, bool] = {}
    for r in m.runs:
        if r.fault_point:
            reached[r.fault_point] = reached.get(r.fault_point, False) or bool(r.fault_reached)
    return [f for f, ok in reached.items() if not ok]
