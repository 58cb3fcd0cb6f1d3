"""Incident: every thread one crash touched, and what resuming all of them would repeat."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pandas as pd
import streamlit as st

from replaylens.analysis.incident import (
    KEY_VERDICT_WORDS,
    Incident,
    collect,
    select,
    thread_table,
    to_csv,
    to_markdown,
)
from replaylens.analysis.status import ATTENTION_ORDER, STATUS_EXPLAINED
from replaylens.dashboard import views
from replaylens.dashboard.ui import common as ui
from replaylens.dashboard.ui.cells import status_column
from replaylens.figures.statuses import status_md
from replaylens.text import md, md_ticks, safe_filename, visible


def _collected(item: Any) -> Incident:
    """Every thread with its verdicts, computed once per database and log version."""
    source = ui.open_item(item)
    log, _ = ui.effects(item)

    def compute() -> Incident:
        with st.spinner("Working out what a resume of every thread would repeat…"):
            return collect(source, log, recording_of=lambda tid: ui.recording(item, tid))

    return ui.cached("incident", item, compute)


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _choose(found: Incident) -> Incident:
    """The crash picker: everything, the newest crash, a time window or a process id."""
    pids = sorted({p for t in found.threads for p in t.pids})
    choices = ["The newest crash", "Every thread", "A time window", "A process id"]
    how = st.segmented_control(
        "Which crash", choices, default=choices[0], key="pick", bind="query-params", required=True,
        help="The newest crash: the threads left resumable, failed or needing a restart that the same "
        "process wrote last (from the effects log's pid), or, without pids, that were last active within a "
        "minute of the newest.",
    ) or choices[0]  # fmt: skip
    if how == "Every thread":
        return found
    if how == "The newest crash":
        return select(found, latest=True)
    if how == "A process id":
        if not pids:
            st.info(
                "The effects log records no process ids (`pid`), so threads cannot be chosen by process."
            )
            return select(found, pid=-1)
        pid = st.selectbox(
            "Process id (from the effects log)", pids, index=len(pids) - 1, key="pid"
        )
        return select(found, pid=int(pid))
    times = [t.last_activity for t in found.threads if t.last_activity is not None]
    if not times:
        st.info("No thread has a timestamp, so threads cannot be chosen by time.")
        return found
    lo = dt.datetime.fromtimestamp(min(times), dt.UTC).replace(tzinfo=None)
    hi = dt.datetime.fromtimestamp(max(times), dt.UTC).replace(tzinfo=None) + dt.timedelta(
        seconds=1
    )
    if hi - lo < dt.timedelta(seconds=2):
        lo -= dt.timedelta(seconds=1)
    start, end = st.slider(
        "Last activity between (UTC)", min_value=lo, max_value=hi, value=(lo, hi), format="YYYY-MM-DD HH:mm:ss",
        key="window", help="A thread's last activity is its newest checkpoint or its last effect line, whichever is later.",
    )  # fmt: skip
    return select(
        found,
        since=start.replace(tzinfo=dt.UTC).timestamp(),
        until=end.replace(tzinfo=dt.UTC).timestamp(),
    )


def _impact(chosen: Incident) -> None:
    rows = chosen.impact()
    if not rows:
        return
    st.subheader("What would happen again")
    frame = pd.DataFrame(
        [
            {
                "effect": visible(r.effect),
                "node": visible(r.node),
                "times again": r.times_again,
                "threads": r.threads,
            }
            for r in rows
        ]
    )
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "status": status_column("What a resume would find."),
        "times again": st.column_config.NumberColumn(help="Task executions a resume of every listed thread performs again."),
        "threads": st.column_config.NumberColumn(help="How many of the listed threads repeat it."),
    })  # fmt: skip
    keys = chosen.keys()
    if keys:
        st.markdown(
            "**Would the downstream service drop the repeats?** By the idempotency keys the log recorded:"
        )
        ui.wrapping_table(  # its sentences wrap at 1000 px; a data grid cut them
            pd.DataFrame([
                {"effect": visible(k.effect), "node": visible(k.node), "key": k.verdict, "times again": k.times_again,
                 "threads": k.threads, "what it means": KEY_VERDICT_WORDS[k.verdict], "example key": visible(k.example_key or "")}
                for k in keys
            ])
        )  # fmt: skip


def _threads(item: Any, chosen: Incident) -> None:
    st.subheader(f"Threads ({len(chosen.threads):,})")
    table = thread_table(chosen)
    for row, t in zip(table, chosen.threads, strict=True):
        row["age"] = (
            None
            if t.last_activity is None
            else round(dt.datetime.now(dt.UTC).timestamp() - t.last_activity)
        )
    present = sorted({r["status"] for r in table}, key=lambda s: ATTENTION_ORDER.get(s, 99))
    effects_present = sorted({label for t in chosen.threads for label in t.effects_again})
    c1, c2, c3, c4 = st.columns([2, 2, 2, 2])
    statuses = c1.multiselect("Status", present, default=[], key="inc_status", placeholder="all statuses",
                              help="\n".join(f"- **{s}**: {STATUS_EXPLAINED.get(s, '')}" for s in present))  # fmt: skip
    effect = c2.multiselect("Repeats effect", effects_present, default=[], key="inc_effect", placeholder="any effect",
                            format_func=visible)  # fmt: skip
    text = c3.text_input(
        "Search",
        key="inc_text",
        placeholder="node, error, thread id",
        help="Keeps the threads whose id, re-run nodes, repeated effects or error text contain it.",
    )
    order = c4.selectbox("Sort by", ["times again", "newest activity", "oldest activity", "status", "thread id"],
                         key="inc_sort")  # fmt: skip
    shown = []
    for row, t in zip(table, chosen.threads, strict=True):
        if statuses and row["status"] not in statuses:
            continue
        if effect and not set(effect) & set(t.effects_again):
            continue
        if text:
            hay = " ".join(
                [t.thread_id, row["reruns"], row["effects_again"], t.error or ""]
            ).lower()
            if text.lower() not in hay:
                continue
        shown.append((row, t))
    sorters = {
        "times again": lambda p: (-p[0]["times_again"], p[0]["thread_id"]),
        "newest activity": lambda p: (-(p[1].last_activity or 0.0), p[0]["thread_id"]),
        "oldest activity": lambda p: (p[1].last_activity or 0.0, p[0]["thread_id"]),
        "status": lambda p: (ATTENTION_ORDER.get(p[0]["status"], 99), p[0]["thread_id"]),
        "thread id": lambda p: p[0]["thread_id"],
    }
    shown.sort(key=sorters[order])
    if not shown:
        st.info("No thread matches these filters. Clear the status, effect or text filter above.")
        return
    frame = pd.DataFrame(
        [
            {
                "status": views.status_label(r["status"]),
                "thread": visible(r["thread_id"]),
                "open": ui.link("thread", db=item.key, thread=r["thread_id"]),
                "times again": r["times_again"],
                "effects again": visible(r["effects_again"]),
                "re-runs": visible(r["reruns"]),
                "last activity": r["last_activity"].replace("T", " ").replace("Z", ""),
                "idle for": views.idle_words(r["age"]),
                "error": visible(r["error"]),
            }
            for r, _t in shown
        ]
    )
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "status": status_column("What a resume would find."),
        "times again": st.column_config.NumberColumn(help="Executions of a side effect of this thread a resume performs again (one task run each, not log lines), as the Thread page's “executions again”."),
        "re-runs": st.column_config.TextColumn(help="Tasks a resume runs again, as the Thread page's “tasks again”: due at the newest checkpoint without a saved output, or of steps whose checkpoint was lost."),
        "idle for": st.column_config.TextColumn(help="Time since the thread's last activity (its newest checkpoint or log line); sort by it with “Sort by” above."),
        "open": st.column_config.LinkColumn("open", display_text="open ›", help="Open the thread's timeline."),
    })  # fmt: skip


def _downloads(chosen: Incident) -> None:
    name = "incident"
    st.markdown("**Download this selection**")
    c1, c2, c3 = st.columns(3)
    c1.download_button("CSV", to_csv(chosen), file_name=safe_filename(name, ".csv"), mime="text/csv",
                       icon=":material/table:")  # fmt: skip
    c2.download_button("JSON", json.dumps(chosen.to_json(), indent=1), file_name=safe_filename(name, ".json"),
                       mime="application/json", icon=":material/data_object:")  # fmt: skip
    c3.download_button("Markdown", to_markdown(chosen), file_name=safe_filename(name, ".md"),
                       mime="text/markdown", icon=":material/description:")  # fmt: skip


ui.ensure_navigation()
st.title("Incident")
st.caption(
    "One worker dies and leaves many threads one step behind. Pick the crash; this page lists every thread it "
    "touched and adds up what resuming all of them would perform again, per node and side effect. Nothing is "
    "resumed or written: it is computed from the database and the effects log."
)
item = ui.need_database()
if item is not None:
    with ui.friendly_errors():
        found = _collected(item)
        log, log_error = ui.effects(item)
        if log_error:
            st.warning(f"The effects log could not be read: {md(log_error)}")
        elif log is None:
            st.warning(
                "No effects log next to this database (expected: <name>.effects.jsonl), so which side effects "
                "repeat is unknown; the counts below are tasks only. Upload the log in the sidebar."
            )
        chosen = _choose(found)
        st.caption(
            f"Showing {len(chosen.threads):,} of {len(found.threads):,} threads: {md(chosen.selection)}."
        )
        if chosen.threads:
            st.markdown(f"#### {md_ticks(chosen.sentence())}")
            counts = {s: sum(t.status == s for t in chosen.threads) for s in ATTENTION_ORDER}
            cols = st.columns(2 + sum(1 for n in counts.values() if n))
            cols[0].metric("threads", f"{len(chosen.threads):,}")
            cols[1].metric("times again", f"{chosen.total_times_again:,}",
                           help="Task executions a resume of every listed thread performs again (verdict replays or restart).")  # fmt: skip
            for col, (status, n) in zip(
                cols[2:], ((s, n) for s, n in counts.items() if n), strict=True
            ):
                col.metric(status_md(status), f"{n:,}", help=STATUS_EXPLAINED.get(status))
            _impact(chosen)
            _threads(item, chosen)
            _downloads(chosen)
        else:
            st.info("No thread matches this choice. Pick “Every thread” or widen the time window.")
        for note in found.notes:
            st.info(md(note))
