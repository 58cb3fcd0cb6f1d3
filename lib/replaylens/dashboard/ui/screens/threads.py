"""Threads: every thread of the chosen database, the ones that need attention first."""

from __future__ import annotations

import streamlit as st

from replaylens.analysis.status import ATTENTION_ORDER, DECIDE_UNKNOWN, STATUS_EXPLAINED, STATUSES
from replaylens.dashboard import views
from replaylens.dashboard.ui import common as ui
from replaylens.dashboard.ui.cells import status_column
from replaylens.figures.statuses import status_md, status_word
from replaylens.text import md, url_value, visible

ui.ensure_navigation()
ui.page_started()
st.title("Threads")
st.caption(
    "Every thread (one run or conversation of the graph) in the database, with what a resume would do. "
    "Threads that need attention come first: failed, then waiting for an answer, then stopped mid-step, "
    "then those whose status the rows cannot decide."
)


def _only(status: str) -> None:
    """A status tile's button: filter the table to that status (the Status box shows it too)."""
    st.session_state["status"] = [status]


item = ui.need_database()
if item is not None:
    with ui.friendly_errors():
        source = ui.open_item(item)
        identity = source.identity()  # before reading: a commit meanwhile is seen at the next poll
        index = ui.thread_index(item)  # the first screen: SQL alone
        job = ui.status_job(item)  # statuses: cached at once, the rest in a background thread
        job.wait(None if ui.under_test() else ui.FIRST_WAIT_SECONDS)
        progress = job.progress()
        found, problems = job.results()
        seen = ui.threads_token(identity, progress)
        log, log_error = ui.effects(item)
        known = {r.thread_id for r in index}
        ids = [r.thread_id for r in index] + sorted(set(log.thread_ids if log else []) - known)
        # "log lines again" loads whole threads: only once every status is in.
        counts = ui.replay_counts(item, ids, known, latency=0.25) if progress.finished else {}
        provisional, as_of = job.provisional()  # stored, not checked yet: shown marked as such
        rows = views.listing_rows(index, found, log, counts, provisional, as_of)

        if progress.error:
            st.error(md(progress.error))
        elif not progress.finished:
            st.progress(progress.fraction, text=(
                f"Working out statuses: {progress.done:,} of {progress.total:,} threads "
                "(the list is sorted by attention when all are in)"))  # fmt: skip

        for note in source.notes:
            st.info(md(note))
        for note in log.notes if log is not None else []:  # a trace: its format, what it gave
            st.caption(md(note))
        if log_error:
            st.warning(f"The effects log could not be read: {md(log_error)}")
        elif log is None:
            st.caption(
                "No effects log next to this database (expected: <name>.effects.jsonl), so side effects are "
                "unknown. Upload one in the sidebar to see which lines a resume would repeat."
            )
        elif log.problems:
            with st.expander(
                f":material/warning: {log.bad_lines} bad line(s) in the effects log were skipped"
            ):
                for p in log.problems[:50]:
                    st.text(visible(p))  # a problem names the thread: its terminal bytes shown
        if problems:
            with st.expander(
                f":material/warning: {len(problems)} problem(s) reading the database (the rest loaded)"
            ):
                for p in problems[:50]:
                    st.text(visible(p))  # a problem names the thread: its terminal bytes shown

        if not rows:
            st.info(
                f"{md(item.path.name)} holds no threads yet. Run a graph compiled with a SqliteSaver on this "
                "file, or pick another database in the sidebar."
            )
        else:
            present = sorted({r.status for r in rows}, key=lambda s: ATTENTION_ORDER.get(s, 99))
            left, right = st.columns([2, 3])
            query = left.text_input("Search thread id", key="q", bind="query-params",
                                    placeholder="part of a thread id")  # fmt: skip
            # Every status is an option, not only those present: Streamlit drops a URL value
            # that is not an option, so a shared `?status=failed` link would lose its filter
            # while the statuses are still being worked out, or on a database without one.
            chosen = right.multiselect(
                "Status", list(STATUSES), default=[], key="status", placeholder="all statuses",
                bind="query-params", help="\n".join(f"- **{s}**: {STATUS_EXPLAINED.get(s, '')}" for s in STATUSES),
            )  # fmt: skip
            shown = views.filter_rows(rows, chosen, query)
            undecided = [r.thread_id for r in rows if r.status == "unknown"]
            if undecided and ui.graph_ref():
                from replaylens.analysis.from_graph import GRAPH_HEADER

                answers = ui.graph_answers(item, {t: [""] for t in undecided}, newest_only=True)
                st.info(
                    f"**{GRAPH_HEADER}** ({md(ui.graph_ref())}) decides the {len(undecided):,} thread(s) "
                    "the rows cannot: " + ", ".join(
                        f"{md(t)} **{answers[t].status}**" for t in undecided[:50]
                    ) + ("…" if len(undecided) > 50 else "") + ".",
                    icon=":material/code:",
                )  # fmt: skip
            elif undecided:
                st.warning(
                    f"{len(undecided):,} thread(s) have status **unknown**: written by a LangGraph release whose "
                    "checkpoint format (before v3) does not say where an edge leads, so the rows cannot tell "
                    f"whether the run finished. To decide it, {md(DECIDE_UNKNOWN)}. Each thread page says why.",
                    icon=":material/help:",
                )
            cols = st.columns(len(present))
            for col, status in zip(cols, present, strict=True):
                col.metric(status_md(status), sum(r.status == status for r in rows),
                           help=STATUS_EXPLAINED.get(status))  # fmt: skip
                col.button(f"show only {status_word(status)}", key=f"only_{status}",
                           on_click=_only, args=(status,), type="tertiary", icon=":material/filter_alt:")  # fmt: skip
            if not shown:
                st.info(
                    "No thread matches the search and status filter. Clear the search box or the status filter."
                )
            else:
                pages = views.page_count(len(shown))
                number = 1
                if pages > 1:
                    number = int(st.number_input(
                        f"Page (of {pages:,}; {views.PAGE_ROWS:,} threads each)", min_value=1, max_value=pages,
                        value=1, step=1, key="page", bind="query-params",
                    ))  # fmt: skip
                part, frame = views.table_page(
                    shown, number, link=lambda tid: ui.link("thread", db=item.key, thread=tid)
                )
                if pages > 1:
                    st.caption(
                        f"Threads {part.start + 1:,}-{part.stop:,} of {len(shown):,} matching."
                    )
                shown = shown[part]
                no_log = log is None

                def effect_column(help_: str, width: int) -> object:
                    """A count, or the words "no effects log" (never "None") without a log."""
                    if no_log:
                        return st.column_config.TextColumn(
                            width=width, help=help_ + " No effects log here."
                        )
                    return st.column_config.NumberColumn(width=width, help=help_)

                event = st.dataframe(
                    frame,
                    hide_index=True,
                    width="stretch",
                    on_select="rerun",
                    selection_mode="single-row",
                    key="threads_table",
                    column_config={
                        "status": status_column("What a resume would find."),
                        "thread": st.column_config.TextColumn(width=160),
                        "checkpoints": st.column_config.NumberColumn(width=88,
                            help="Saved snapshots of the state, one per superstep (all namespaces)."),
                        "latest step": st.column_config.TextColumn(width="small",
                            help="The superstep of the newest checkpoint: a resume starts after it "
                            "(— when no checkpoint exists)."),
                        "due next": st.column_config.TextColumn(width=110,
                            help="Tasks due after the newest checkpoint that have not finished."),
                        "log lines again": effect_column(
                            "Effects-log lines of the executions a resume performs again (log lines, "
                            "not executions: a start and an end line are one execution), as the Thread "
                            "page's “log lines again”. Where the log cannot tell and that page shows a "
                            "range, the most that may run again.", 100),
                        "effect lines": effect_column(
                            "Lines of the effects log written by this thread's nodes.", 80),
                        "open": st.column_config.LinkColumn("open", display_text="open ›", width=56,
                                                            help="Open the thread's timeline."),
                    },
                )  # fmt: skip
                st.caption(
                    "Select a row, or use its “open ›” link, to open the thread. The checkpoints, "
                    "the latest step and the time of the last update follow the link: on a "
                    "narrow window, scroll the table sideways."
                )
                selected = event.selection.rows if event is not None else []
                if selected:
                    st.switch_page(
                        ui.page("thread"),
                        query_params={
                            "db": item.key,
                            "thread": url_value(shown[selected[0]].thread_id),
                        },
                    )
        ui.follow(item, seen)
        if rows and progress.finished:
            if len(ids) > len(counts) and log is not None and any(r.replay_lines is None and r.effect_lines
                                                                   for r in rows):  # fmt: skip
                st.caption(
                    "“log lines again” is computed for the first 300 threads with effect lines only."
                )
