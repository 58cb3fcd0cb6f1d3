"""Thread: the superstep timeline, checkpoints, writes, state, graph and the incident report."""

from __future__ import annotations

import re

import streamlit as st

from replaylens.analysis.again import outcome_tag
from replaylens.analysis.delta import state_values
from replaylens.dashboard import views
from replaylens.dashboard.ui import common as ui
from replaylens.dashboard.ui import timetravel_block
from replaylens.errors import ThreadNotFound
from replaylens.figures import colors
from replaylens.figures.graph import graph_dot, lineage_dot
from replaylens.figures.statuses import status_md
from replaylens.figures.timeline import build_timeline_data
from replaylens.model import Generation
from replaylens.report import incident_markdown, plan_json
from replaylens.text import as_json_text, md, md_code, md_ticks, truncate, visible

ui.ensure_navigation()
ui.page_started()
st.title("Thread")


# What a reader of the orphan writes looks for first: the task, the channel, the value. (A comment,
# not a docstring: Streamlit's magic would print a bare string of a page script.)
ORPHAN_COLUMNS_FIRST = ["task path", "channel", "value", "bytes"]


def _values(item, thread_id: str, ns: str, checkpoint_id: str):  # noqa: ANN001, ANN202 - page-local helper
    """Channel values of one checkpoint, cached like everything else the page reads."""
    source = ui.open_item(item)
    key = (
        "values",
        source.cache_identity(),
        thread_id,
        ns,
        checkpoint_id,
    )  # a checkpoint row never changes
    hit = ui.lru().get(key)
    if hit is None:
        with st.spinner("Decoding the state at this checkpoint…"):
            thread = ui.thread(item, thread_id)
            cp = thread.find(checkpoint_id, ns) if thread is not None else None
            values = (
                state_values(source, thread, cp)
                if cp is not None
                else source.read_channel_values(thread_id, ns, checkpoint_id)
            )
            hit = ui.lru().put(key, values)
    return hit


def _show_value(name: str, result) -> None:  # noqa: ANN001
    text = as_json_text(result.value)
    shown, note = truncate(text)
    if result.error:
        st.caption(f"Not decoded: {md(result.error)}")
    if getattr(result, "note", None):
        st.caption(f"DeltaChannel value {md(result.note)}")
    if note:
        st.caption(note)
    st.code(shown, language="json")


def graph_block(item, thread, rows_status: str) -> None:  # noqa: ANN001 - page-local helper
    """The graph code's answer (opt-in): said in the header, then where it and the rows differ."""
    from replaylens.analysis.from_graph import GRAPH_HEADER, differences, status_sentence

    answer = ui.graph_answers(item, {thread.thread_id: sorted(thread.namespaces)})[thread.thread_id]
    found = differences(thread, answer)
    st.info(
        f"**{GRAPH_HEADER}** ({md_code(answer.graph)}, LangGraph {md(answer.langgraph)}'s own "
        f"get_state_history): {md(status_sentence(rows_status, answer))} "
        + (f"They differ at {len(found)} checkpoint(s), listed below." if found
           else "Every checkpoint: the same tasks."),
        icon=":material/code:",
    )  # fmt: skip
    for error in answer.errors:
        st.warning(f"LangGraph could not answer: {md(error)}")
    if found:
        with st.expander(f"Where the rows and your graph code differ ({len(found)} checkpoint(s))"):
            st.dataframe(
                [{"namespace": d.checkpoint_ns or "(root)", "step": d.step,
                  "checkpoint": d.checkpoint_id, "difference": d.sentence} for d in found],
                hide_index=True, width="stretch",
            )  # fmt: skip


item = ui.need_database()
if item is not None:
    ui.campaign_banner(item)
    with ui.friendly_errors():
        thread_id, mode, latency, summaries = ui.thread_header(item, "Replay window shown for")
        if thread_id:
            in_db = thread_id in {s.thread_id for s in summaries}
            seen = ui.change_token(
                item, thread_id
            )  # before reading: a commit meanwhile is seen next poll
            thread = None
            if in_db:
                try:
                    thread = ui.thread(item, thread_id)
                except ThreadNotFound as exc:
                    st.error(md(str(exc)))
            plan = ui.plan(item, thread_id, thread, latency)
            log, log_error = ui.effects(item)
            status = plan.status
            outcome = plan.what_if.get(mode) if mode else None

            st.markdown(f"### {status_md(status)}")
            st.caption(md(plan.status_explained))
            if thread is not None and ui.graph_ref():
                graph_block(item, thread, status)
            ui.verdict_block(plan, thread)
            for note in log.notes if log is not None else []:  # a trace: its format, what it gave
                st.caption(md(note))
            if log_error:
                st.warning(f"The effects log could not be read: {md(log_error)}")
            elif log is not None and log.problems:
                with st.expander(
                    f":material/warning: {log.bad_lines} bad line(s) in the effects log were skipped"
                ):
                    for p in log.problems[:50]:
                        st.text(visible(p))  # a problem names the thread: its terminal bytes shown
            if thread is not None and thread.problems:
                with st.expander(
                    f":material/warning: {len(thread.problems)} problem(s) in this thread's rows (the rest loaded)"
                ):
                    for p in thread.problems[:50]:
                        st.text(visible(p))  # a problem names the thread: its terminal bytes shown
            gen = thread.generation if thread is not None else None
            if gen is not None and gen.old:
                latest = thread.root.latest if thread.root else None
                lines = [md(gen.headline()) + "."]
                lines += [md(n) for n in gen.notes]
                if latest is not None and latest.next_unknown and plan.status != "unknown":
                    lines.append(md(latest.next_unknown))
                if gen.sentence():
                    lines.append(gen.sentence(md))
                if plan.today_reruns:
                    lines.append(
                        Generation.today_sentence([t.node for _, t in plan.today_reruns], md)
                    )
                st.info("\n\n".join(lines), icon=":material/history:")

            again = plan.again
            ui.metric_row([
                ("checkpoints", thread.checkpoint_count if thread else 0,
                 "Saved snapshots of the state, one per superstep, in every namespace."),
                ("latest step", plan.resume_checkpoint.step if plan.resume_checkpoint else "—",
                 "A superstep is one round in which every due task runs in parallel. A resume starts after the "
                 "latest saved one."),
                ("tasks again", again.figure("tasks"),
                 "Tasks a resume runs again from their first line: those due at the checkpoint it loads without a "
                 "saved output, and those of steps whose checkpoint was lost."),
                ("executions again", again.figure("executions") or "no log",
                 "Executions of a side effect that happen a second time: the counts in the verdict and the table "
                 "above (one task run each, however many log lines it wrote)."),
                ("log lines again", again.figure("lines") or "no log",
                 "Effects-log lines of those executions (a start and an end line are one execution)."),
                ("orphan writes", len(plan.orphan_writes),
                 "Saved task outputs whose checkpoint never landed: a resume ignores them."),
            ], key="thread_metrics")  # fmt: skip

            st.subheader("Superstep timeline" + (f" under {mode}" if mode else ", as recorded"))
            if outcome is not None and mode is not None:
                under = plan.again_under(mode)
                ui.mode_answer(
                    plan,
                    mode,
                    md_ticks(outcome.sentence)
                    + f" ({md(outcome_tag(plan, mode))}: {under.figure('checkpoints_kept')} checkpoint(s) kept, "
                    f"{under.words()}.)",
                )
            data = build_timeline_data(thread, plan, mode)
            ui.timeline_chart(data, mode, key="timeline")
            if data.unplaced:
                st.caption(
                    f"{data.unplaced} of the {outcome.checkpoints_kept if outcome else '?'} checkpoint(s) {mode} keeps "
                    "never landed in this recording and no write hangs off them, so they have no time to be "
                    "drawn at: counted above, not drawn."
                )
            window = {
                "returned": "The run completed: there is no replay window.",
                "raised": "The run raised where the line says “failed here”: a resume re-runs the failed task.",
                "paused": "The run paused at interrupt() (“paused for an answer”): a resume re-runs that task.",
                "unknown": "Without an effects log nothing dates the crash: the dashed line is the last record "
                "(the newest checkpoint), and the tasks due after it are drawn hatched past it, not at a time.",
            }.get(
                data.ending,
                f"The dashed line is the crash; the shaded area is what {mode} would run again."
                if mode
                else "The dashed line is the crash.",
            )
            st.caption(
                "One lane per node. Bars: each attempt of a task, from the effects log (green: kept; amber: runs "
                "again on resume; purple: lost with an input nothing of which was saved; striped: still running "
                "at the crash; grey: no log line, drawn from checkpoint to checkpoint). ◆ checkpoint landed (number = step), ◇ checkpoint this mode would have lost, "
                "| writes saved, ✕ orphan write, ★ started and never finished. " + window
            )
            if outcome is not None and outcome.assumed:
                with st.expander("What this prediction used and assumed"):
                    st.markdown(
                        "\n".join(f"- used: {md(u)}" for u in outcome.used)
                        + "\n"
                        + "\n".join(f"- assumed: {md(a)}" for a in outcome.assumed)
                    )

            cp = None
            ns_name = ""
            if thread is not None:
                ns_names = list(thread.namespaces)
                sel = st.columns([2, 4])
                ns_name = ui.synced_selectbox("Graph or subgraph (namespace)", ns_names, "ns", container=sel[0],
                                              format_func=views.namespace_label,
                                              help="Subgraphs keep their own checkpoints under a namespace named "
                                              "after the parent task.")  # fmt: skip
                ns = thread.namespaces[ns_name]
                cp_ids = [c.checkpoint_id for c in ns.checkpoints]
                raw_cp = st.query_params.get("checkpoint")
                if raw_cp and raw_cp not in cp_ids:
                    st.error(
                        f"Checkpoint {md_code(raw_cp)} is not in this namespace; showing the latest one."
                    )
                if cp_ids:
                    chosen = ui.synced_selectbox(
                        "Checkpoint to inspect", cp_ids, "checkpoint", container=sel[1], default_index=len(cp_ids) - 1,
                        format_func=lambda c: views.checkpoint_label(ns.by_id[c]),
                        help="The writes and state below belong to this checkpoint. Tasks listed after a checkpoint "
                        "run in the superstep that follows it.",
                    )  # fmt: skip
                    cp = ns.by_id.get(chosen or cp_ids[-1])

            tab_names = [
                "Checkpoints",
                "Writes",
                "State",
                "Graph",
                "Effects",
                "Report",
                "Time travel",
            ]
            tabs = st.tabs(tab_names, key="view", bind="query-params")

            for _ in ui.open_tab(tabs[0]):
                if thread is None:
                    st.info("No checkpoint of this thread reached the database (it appears only in the effects log). "
                            "Only a restart from the original input is possible; see the Effects tab.")  # fmt: skip
                else:
                    ns = thread.namespaces[ns_name]
                    resume_id = (
                        plan.resume_checkpoint.checkpoint_id
                        if plan.resume_checkpoint and status != "completed"
                        else None
                    )
                    table = views.checkpoints_frame(ns, resume_id)
                    notes = st.column_config.TextColumn(
                        width="medium", help="Where a resume starts, forks, edits (update_state) and "
                        "stubs: what the row's other columns do not say.")  # fmt: skip
                    st.dataframe(table, hide_index=True, width="stretch",
                                 column_config={"step": st.column_config.NumberColumn(width="small"),
                                     "source": st.column_config.TextColumn(width="small"),
                                     "next tasks": st.column_config.TextColumn(
                                     width="medium", help="Tasks due after this checkpoint and their status."),
                                     # a column with nothing in it only pushes the time aside
                                     "notes": notes if table["notes"].astype(bool).any() else None})  # fmt: skip
                    # The tree only says more than the table when the history forked; a plain chain
                    # skips it, and a cold page skips loading Graphviz's code (0.8 MB of script).
                    if ns.forks or st.toggle("Draw the checkpoint tree", key="tree"):
                        st.caption("Checkpoint tree: one chain, with a branch wherever the history was forked "
                                   "(update_state / time travel). The resume point is outlined.")  # fmt: skip
                        st.graphviz_chart(lineage_dot(ns, resume_id=resume_id,
                                                      selected_id=cp.checkpoint_id if cp else None))  # fmt: skip
                    else:
                        st.caption(views.chain_caption(ns))

            for _ in ui.open_tab(tabs[1]):
                if cp is None:
                    st.info("Pick a thread with checkpoints to see its writes.")
                else:
                    st.caption(
                        "Pending writes: each task's output, saved against the checkpoint it started from as soon as "
                        "the task finished. A resume reuses them; a task with only an error or interrupt write runs "
                        "again."
                    )
                    frame = views.writes_frame(cp)
                    if frame.empty:
                        st.info("No writes were saved against this checkpoint.")
                    else:
                        st.dataframe(frame, hide_index=True, width="stretch")
                if thread is not None and thread.orphan_writes:
                    st.error(
                        f"{len(thread.orphan_writes)} orphan write(s): task outputs saved against a checkpoint that "
                        "never landed. A resume ignores them, so these tasks run again."
                    )
                    # Who wrote what first: at 1000 px the long ids pushed the task and channel off-screen.
                    st.dataframe(views.orphans_frame(thread).style.set_properties(**{"background-color": "#fde2d8"}),
                                 hide_index=True, width="stretch", key="orphans",
                                 column_order=ORPHAN_COLUMNS_FIRST + ["namespace", "missing checkpoint", "task id"])  # fmt: skip

            for _ in ui.open_tab(tabs[2]):
                if cp is None:
                    st.info("Pick a thread with checkpoints to see its state.")
                elif cp.unreadable:
                    st.error(
                        f"This checkpoint cannot be decoded: {md(cp.unreadable)}. Pick another one above."
                    )
                else:
                    values = _values(item, thread_id, ns_name, cp.checkpoint_id)
                    parent = thread.namespaces[ns_name].parent(cp) if thread else None
                    parent_values = (_values(item, thread_id, ns_name, parent.checkpoint_id)
                                     if parent is not None and not parent.unreadable else None)  # fmt: skip
                    internal = st.toggle(
                        "Show LangGraph's internal channels",
                        key="internal",
                        help="branch:to:*, join:* and __*__ channels that schedule the next tasks.",
                    )
                    left, right = st.columns(2)
                    with left:
                        st.markdown("**State at this checkpoint**")
                        frame = views.state_frame(values)
                        if not internal:
                            frame = frame[~frame["internal"]]
                        if cp.source == "input" and "__start__" in values and not internal:
                            st.caption("This is the input checkpoint: the input given to invoke() waits in "
                                       "LangGraph's internal `__start__` channel until the first step applies it. "
                                       "Turn on “Show LangGraph's internal channels” to see it.")  # fmt: skip
                        if frame.empty:
                            st.caption("No state channel holds a value yet.")
                        else:
                            st.dataframe(
                                frame.drop(columns=["internal"]), hide_index=True, width="stretch"
                            )
                    with right:
                        st.markdown(
                            "**Changed since the parent checkpoint**"
                            if parent
                            else "**No parent checkpoint**"
                        )
                        diff = views.diff_frame(parent_values, values)
                        if not internal:
                            diff = diff[~diff["internal"]]
                        if diff.empty:
                            st.caption(
                                "Nothing changed." if parent else "This is the first checkpoint."
                            )
                        else:
                            st.dataframe(
                                diff.drop(columns=["internal"]), hide_index=True, width="stretch"
                            )
                    # The picker offers what the tables show: internal channels only when asked for,
                    # and never an internal `branch:to:b` (null) as the default.
                    names = sorted(values, key=lambda n: (views.is_internal(n), n))
                    if not internal:
                        names = [n for n in names if not views.is_internal(n)] or (
                            ["__start__"] if "__start__" in values else []
                        )
                    if names:
                        pick = st.selectbox("Full value of channel", names, key="channel")
                        _show_value(pick, values[pick])

            for _ in ui.open_tab(tabs[3]):
                if thread is None:
                    st.info("No checkpoint, so no graph to infer.")
                else:
                    st.caption(
                        "Nodes and edges inferred from what the tasks wrote (no graph code needed), coloured by what "
                        "a resume would do. Dashed edge: a Send."
                    )
                    st.graphviz_chart(graph_dot(thread, plan))
                    st.markdown(colors.legend_html(), unsafe_allow_html=True)  # fixed words only
                    st.caption(" · ".join(f"{k}: {v}" for k, v in colors.GRAPH_STATE_WORDS.items()))

            for _ in ui.open_tab(tabs[4]):
                if log is None:
                    st.info("No effects log for this database. Upload the JSON Lines file written by record_effect "
                            "in the sidebar to see which side effects a resume would repeat.")  # fmt: skip
                else:
                    frame = views.attempts_frame(plan)
                    if frame.empty:
                        st.info("The effects log has no lines for this thread.")
                    else:
                        st.caption(
                            "Each attempt is one execution of one task in one process, as the log saw it."
                        )
                        st.dataframe(frame, hide_index=True, width="stretch", column_config={
                            "node": st.column_config.TextColumn(width=80),
                            "attempt": st.column_config.NumberColumn(width=60),
                            "resume": st.column_config.TextColumn(width=88),
                            "effects": st.column_config.TextColumn(width=120),
                            "idempotency key": st.column_config.TextColumn(
                                width=164, help="The key the effect sent, for the downstream service to dedupe."),
                            "log line no.": st.column_config.TextColumn(
                                width=76, help="Line numbers in the effects log (where to read the attempt)."),
                            "pid": st.column_config.TextColumn(
                                width=56, help="The process that ran the attempt (a new one after a crash)."),
                            "why": st.column_config.TextColumn(width="large"),
                        })  # fmt: skip
                    for finding in plan.idempotency_findings:
                        st.warning(md_ticks(finding))

            for _ in ui.open_tab(tabs[5]):
                params = {"db": item.key, "thread": thread_id, **({"mode": mode} if mode else {})}
                links = {
                    "Thread view": ui.absolute(ui.link("thread", **params)),
                    "Resume simulator": ui.absolute(
                        ui.link("resume", **params, latency=int(latency * 1000))
                    ),
                }
                if cp is not None:
                    links["Checkpoint inspected"] = ui.absolute(
                        ui.link(
                            "thread",
                            **params,
                            ns=ns_name,
                            checkpoint=cp.checkpoint_id,
                            view="State",
                        )
                    )
                report = incident_markdown(
                    plan, database=item.key, effects_log=ui.effects_label(item), links=links
                )
                c1, c2 = st.columns(2)
                c1.download_button("Download the incident report (Markdown)", report, file_name=ui.download_name(item, thread_id, ".md"),
                                   mime="text/markdown", key="dl_report", icon=":material/description:")  # fmt: skip
                c2.download_button("Download the resume plan (JSON)", plan_json(plan, database=item.key,
                                   effects_log=ui.effects_label(item)),
                                   file_name=ui.download_name(item, thread_id, ".json"), mime="application/json", key="dl_json")  # fmt: skip
                # The report as it will read in the write-up, and beside it the Markdown to copy
                # (its escapes belong to the source, not to what a reader of the page sees).
                shown, source = st.columns([3, 2])
                shown.caption("As it will read in your incident write-up:")
                with shown.container(border=True, height=640, key="report_rendered"):
                    # Two heading sizes down: a write-up's title, not the page's.
                    st.markdown(re.sub(r"(?m)^(#{1,4}) ", r"##\1 ", report))
                source.caption("The Markdown to copy (the button at its top right copies it):")
                with source.container(height=640, border=False, key="report_source"):
                    st.code(report, language="markdown", wrap_lines=True)

            # Lazy like the others: drawn on every load, its code blocks fetched the syntax
            # highlighter (1.5 MB of script) before a resumable thread's page was done.
            for _ in ui.open_tab(tabs[6]):
                timetravel_block.draw(item, thread, plan, ns_name, cp)
            # A live agent's new checkpoint shows without a reload.
            drawn = thread.checkpoint_count if thread is not None else 0
            ui.follow(
                item, seen, thread_id, shown=f"the page below shows {drawn:,} and redraws when idle"
            )
