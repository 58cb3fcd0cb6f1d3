"""Resume simulator: the three durability modes side by side for one thread."""

from __future__ import annotations

import streamlit as st

from replaylens.analysis.again import outcome_tag
from replaylens.analysis.durability import WHAT_IF_NOTE
from replaylens.dashboard import views
from replaylens.dashboard.ui import common as ui
from replaylens.figures.statuses import status_md
from replaylens.figures.timeline import build_timeline_data
from replaylens.report import incident_markdown, plan_json
from replaylens.text import md, md_code, md_ticks

ui.ensure_navigation()
st.title("Resume simulator")
st.caption(
    "What a crash at the recorded moment would have left under each durability mode (when LangGraph saves "
    "checkpoints), where a resume starts, and which side effects happen a second time."
)

item = ui.need_database()
if item is not None:
    ui.campaign_banner(item)
    with ui.friendly_errors():
        thread_id, mode, latency, summaries = ui.thread_header(item, "Highlight mode")
        if thread_id:
            thread = (
                ui.thread(item, thread_id)
                if thread_id in {s.thread_id for s in summaries}
                else None
            )
            plan = ui.plan(item, thread_id, thread, latency)
            log, _ = ui.effects(item)

            st.markdown(f"### As recorded: {status_md(plan.status)}")
            ui.verdict_block(plan, thread)
            cp = plan.resume_checkpoint
            ui.metric_row([
                ("resume after step", cp.step if cp else "restart",
                 "A resume loads the newest checkpoint and re-runs the unfinished tasks of the next step."),
                ("tasks that re-run", plan.again.figure("tasks"),
                 "Tasks that run again from their first line: those due at the checkpoint a resume loads without "
                 "a saved output, and those of steps whose checkpoint was lost."),
                ("tasks reused", len(plan.reused),
                 "Tasks whose writes were saved: their output is re-applied, they do not run."),
                ("orphan writes", len(plan.orphan_writes),
                 "Saved outputs whose checkpoint never landed; a resume ignores them."),
            ], key="resume_metrics")  # fmt: skip
            by_why: dict[str, list[str]] = {}
            for t in plan.again.tasks or ():
                by_why.setdefault(t.why, []).append(md_code(t.node))
            for why, names in by_why.items():
                st.markdown(f"**Runs again ({md(why)}):** " + ", ".join(names))
            for _, t in plan.reruns:
                for call in t.calls:
                    fate = "result reused" if call.reused_on_resume else "called again"
                    st.markdown(
                        f"- {md_code(t.label)} called {md_code(call.label)} ({call.status}): {fate}"
                    )
            for text in plan.ambiguities:
                st.warning(f"The effects log cannot tell: {md(text)}")

            if log is None:
                st.info(
                    "No effects log for this database, so the modes below cannot say which side effects repeat. "
                    "Upload the log written by record_effect in the sidebar."
                )
            st.subheader("The three durability modes")
            st.caption(WHAT_IF_NOTE)
            # The cards hold what lines up (the same three counts and the resume step), so at
            # 1000 px their rows stay aligned; the sentences and effect names, long and unbreakable
            # (`request_approval`), read full width below them instead of wrapping mid-word.
            cols = st.columns(3)
            for col, m in zip(cols, ui.MODES, strict=True):
                outcome = plan.what_if.get(m)
                with col.container(border=True, key=f"mode_card_{m}"):
                    st.markdown(f"#### {'▶ ' if m == mode else ''}{m}")
                    if outcome is None:
                        st.info("Not modelled for this thread.")
                        st.caption(views.MODE_EXPLAINED[m])
                        continue
                    under = plan.again_under(m)
                    # Side by side when they fit, one under another in a narrow box: three columns in
                    # a third of the page cut the labels to "c…", "t…", "l…" at 1000 px.
                    with st.container(
                        horizontal=True, wrap=True, gap="small", key=f"mode_metrics_{m}"
                    ):
                        # "5–6" where the evidence cannot tell which (`Again.figure`), with why.
                        ranged = f" A range: {under.span_why}" if under.span_why else ""
                        st.metric(
                            "checkpoints kept",
                            under.figure("checkpoints_kept"),
                            width="content",
                            help="Checkpoints in the database at the crash under this mode."
                            + ranged,
                        )
                        st.metric(
                            "tasks re-run",
                            under.figure("tasks") or "unknown",
                            width="content",
                            help="Tasks that would run again from their first line." + ranged,
                        )
                        st.metric("executions again", under.figure("executions") or "no log",
                                  width="content", help="Executions of a side effect that happen a second time." + ranged)  # fmt: skip
                        st.metric("log lines again", under.figure("lines") or "no log",
                                  width="content", help="Effects-log lines of those executions." + ranged)  # fmt: skip
                    none = (
                        "no checkpoint of the graph itself"
                        if outcome.checkpoints_kept
                        else "no checkpoint"
                    )
                    st.markdown("**Resume:** " + (f"restart from the input ({none})" if outcome.restart
                                                  else f"after step {outcome.resume_step}"))  # fmt: skip
                    # Below the metrics: its length differs per mode, and above them it pushed
                    # one card's rows down.
                    st.caption(md(outcome_tag(plan, m)))
                    st.caption(views.MODE_EXPLAINED[m])
            for m in ui.MODES:
                outcome = plan.what_if.get(m)
                if outcome is None:
                    continue
                under = plan.again_under(m)
                ui.mode_answer(plan, m, md_ticks(outcome.sentence))
                if under.span_why:
                    st.caption(f"{m}: a range, because {md(under.span_why)}.")
                if under.effects:
                    again = " · ".join(
                        f"{md_code(k)} {v} time{'s' if v != 1 else ''} again"
                        for k, v in under.effects.items()
                    )
                    lines = list(under.lines or ())[:60]
                    st.caption(f"{again} · log line{'s' if len(lines) != 1 else ''} "
                               + ", ".join(map(str, lines)))  # fmt: skip

            if mode:
                st.subheader(f"Timeline under {mode}")
                ui.timeline_chart(build_timeline_data(thread, plan, mode), mode, key="rs_timeline")

            if plan.idempotency_findings:
                st.subheader("Idempotency")
                for finding in plan.idempotency_findings:
                    st.warning(md_ticks(finding))
            if plan.duplicates:
                st.caption(
                    f"{len(plan.duplicates)} task(s) already ran more than once in the recording."
                )

            st.subheader("Export")
            picked = {"mode": mode} if mode else {}
            params = {"db": item.key, "thread": thread_id, **picked, "latency": int(latency * 1000)}
            links = {"Resume simulator": ui.absolute(ui.link("resume", **params)),
                     "Thread view": ui.absolute(ui.link("thread", db=item.key, thread=thread_id, **picked))}  # fmt: skip
            effects_log = ui.effects_label(item)
            report = incident_markdown(
                plan, database=item.key, effects_log=effects_log, links=links
            )
            e1, e2 = st.columns(2)
            e1.download_button(
                "Plan and verdicts (Markdown)",
                report,
                file_name=ui.download_name(item, thread_id, ".md"),
                mime="text/markdown",
                key="rs_md",
                icon=":material/description:",
            )
            e2.download_button(
                "Plan and verdicts (JSON)",
                plan_json(plan, database=item.key, effects_log=ui.effects_label(item)),
                file_name=ui.download_name(item, thread_id, ".json"),
                mime="application/json",
                key="rs_json",
            )
            st.caption("Link to this view: " + md(links["Resume simulator"]))  # fmt: skip
