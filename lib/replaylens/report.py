"""The incident report: the resume plan, the verdicts and the replay window per mode, as Markdown.

Every value that came from a database or a log is put inside code spans or fenced
blocks (with backticks neutralised), so a value holding Markdown, HTML or a link is
shown as text, never rendered.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from replaylens.analysis.plan import ResumePlan


def code(value: object) -> str:
    """A Markdown code span that no value can break out of."""
    text = str(value).replace("\n", " ").replace("\r", " ")
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    ticks = 1
    while "`" * ticks in text:
        ticks += 1
    fence = "`" * ticks
    return f"{fence} {text} {fence}"


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"


def plan_markdown(plan: ResumePlan, links: dict[str, str]) -> str:
    from replaylens.analysis.durability import WHAT_IF_NOTE

    out: list[str] = [f"# Resume plan for thread {code(plan.thread_id)}", ""]
    out += [f"**Verdict:** {_escape(plan.verdict_sentence())}", "", f"**Status:** {code(plan.status)}", ""]
    if "synchronous_commit" in plan.backend:
        out += [f"Postgres `synchronous_commit` is {code(plan.backend['synchronous_commit'])}: the server's own "
                "durability sits under LangGraph's durability mode; `off` can lose a recently acknowledged "
                "checkpoint if the database server crashes.", ""]
    cp = plan.resume_checkpoint
    if cp is not None:
        out.append(
            f"A resume loads checkpoint {code(cp.checkpoint_id)} (step {cp.step}, "
            f"namespace {code(cp.checkpoint_ns or '(root)')}, written {code(cp.ts)})."
        )
    else:
        out.append("No checkpoint exists: `invoke(None)` raises `EmptyInputError`; only a restart is possible.")
    for sub in plan.subgraph_resumes:
        out.append(f"- It re-enters subgraph {code(sub.checkpoint_ns)} at its step {sub.step}.")
    out += ["", "## Tasks", "", "| namespace | task | task id | status | a resume |", "|---|---|---|---|---|"]
    for ns, t in plan.reruns:
        out.append(f"| {code(ns or '(root)')} | {code(t.node)} | {code(t.task_id)} | {t.status} | **runs again** |")
    for ns, t in plan.reused:
        out.append(f"| {code(ns or '(root)')} | {code(t.node)} | {code(t.task_id)} | {t.status} | writes reused |")
    if plan.orphan_writes:
        out += ["", f"{len(plan.orphan_writes)} orphan write(s) hang off checkpoints that never landed; "
                "a resume ignores them and their tasks run again."]
    if plan.effects_given:
        out += ["", "## Side effects", "", "| line | node | phase | attempt | verdict | why |", "|---|---|---|---|---|---|"]
        for a in sorted(plan.attempts, key=lambda x: x.lines[0].line):
            for line in a.lines:
                out.append(
                    f"| {line.line} | {code(line.label)} | {code(line.phase)} | {a.attempt} | "
                    f"**{a.verdict}** | {_escape(a.reason)} |"
                )
    if plan.duplicates:
        out += ["", "## Replays that already happened", ""]
        for group in plan.duplicates:
            a0 = group[0]
            desc = ", ".join(
                f"attempt {a.attempt} (pid {a.pid}, {a.outcome}{', its writes won' if a.won else ''})" for a in group
            )
            out.append(f"- {code(a0.node)} ran {len(group)} times: {desc}.")
    if plan.idempotency_findings:
        out += ["", "## Idempotency", ""] + [f"- {_escape(f)}" for f in plan.idempotency_findings]
    if plan.what_if:
        out += ["", f"## What if the run had used another durability mode (write latency {plan.latency:.3f} s)", "",
                f"_{WHAT_IF_NOTE}_", "",
                "| mode | checkpoints kept | resume after step | effect lines again | replay window |",
                "|---|---|---|---|---|"]
        for mode, o in plan.what_if.items():
            window = f"{_when(o.window_start)} → {_when(o.window_end)}" if o.window_start else "-"
            step = "restart from input" if o.restart else str(o.resume_step)
            out.append(f"| {mode} | {o.checkpoints_kept} | {step} | {len(o.replayed_lines)} | {window} |")
        out.append("")
        out += [f"- {_escape(o.sentence)}" for o in plan.what_if.values()]
    if links:
        out += ["", "## Links", ""] + [f"- {_escape(k)}: <{v}>" for k, v in links.items()]
    return "\n".join(out) + "\n"


def _escape(text: str) -> str:
    """Plain prose around code spans: neutralise characters Markdown would act on."""
    out = []
    for ch in text:
        if ch in "<>[]*_|\\":
            out.append("\\" + ch)
        elif ch.isprintable() or ch == " ":
            out.append(ch)
    return "".join(out).replace("\\`", "`")
