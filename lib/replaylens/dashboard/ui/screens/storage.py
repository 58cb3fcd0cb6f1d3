"""Storage: where the bytes of a checkpoint database go, and what a prune would free."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from replaylens.analysis.storage import StorageReport, human, storage_report
from replaylens.dashboard.ui import common as ui
from replaylens.text import md, md_ticks, visible

GROWTH_BUCKETS = 120  # the growth chart merges the 26.8 s id buckets into at most this many bars


def _report(item: Any) -> StorageReport:
    source = ui.open_item(item)

    def compute() -> StorageReport:
        with st.spinner("Measuring the database with SQL size aggregates (no blob is decoded)…"):
            return storage_report(source)

    return ui.cached("storage", item, compute)


def _growth_figure(rep: StorageReport) -> go.Figure | None:
    if len(rep.growth) < 2:
        return None
    first, last = rep.growth[0][0], rep.growth[-1][0]
    width = max((last - first) / GROWTH_BUCKETS, 27.0)
    merged: dict[int, list[float]] = {}
    for start, n, b in rep.growth:
        slot = int((start - first) // width)
        acc = merged.setdefault(slot, [0.0, 0.0])
        acc[0] += n
        acc[1] += b
    if len(merged) < 2:
        return None
    xs = [dt.datetime.fromtimestamp(first + k * width, dt.UTC) for k in sorted(merged)]
    total = 0.0
    cumulative = []
    for k in sorted(merged):
        total += merged[k][1]
        cumulative.append(total / 1e6)
    fig = go.Figure()
    fig.add_bar(x=xs, y=[merged[k][1] / 1e6 for k in sorted(merged)], name="added (MB)",
                customdata=[merged[k][0] for k in sorted(merged)],
                hovertemplate="%{x}<br>%{y:.2f} MB in %{customdata:,} checkpoints<extra></extra>")  # fmt: skip
    fig.add_scatter(x=xs, y=cumulative, name="total (MB)", yaxis="y2", mode="lines")
    fig.update_layout(
        height=300,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.15},
        yaxis={"title": "MB added"},
        yaxis2={"title": "MB in total", "overlaying": "y", "side": "right", "rangemode": "tozero"},
    )
    return fig


ui.ensure_navigation()
st.title("Storage")
st.caption(
    "Where the bytes of this checkpoint database go: per thread, namespace and channel, the largest blobs, growth "
    "over time, and what a prune keeping only each thread's latest checkpoint would free. Measured with SQL "
    "size aggregates (SQLite length(), Postgres pg_column_size); nothing is decoded, pruned or written."
)
item = ui.need_database()
if item is not None:
    with ui.friendly_errors():
        rep = _report(item)
        cols = st.columns(4)
        cols[0].metric(
            "data", human(rep.total_bytes), help="Checkpoint blobs, their metadata and the writes."
        )
        cols[1].metric(
            rep.on_disk_label, human(rep.file_bytes + rep.wal_bytes), help=rep.on_disk_help
        )
        cols[2].metric("prune frees", human(rep.prune_bytes),
                       f"{rep.prune_bytes / rep.total_bytes:.0%} of the data" if rep.total_bytes else None,
                       delta_color="off", delta_arrow="off", help="LangGraph's keep-latest prune: each namespace's latest checkpoint is kept. Computed "
                       f"only; {rep.prune_note}.")  # fmt: skip
        cols[3].metric(
            "threads",
            f"{rep.thread_count:,}",
            f"{rep.checkpoints:,} checkpoints",
            delta_color="off",
            delta_arrow="off",  # a count beside the number, not a rise: no arrow
        )
        for sentence in rep.sentences():
            st.markdown(f"- {md_ticks(sentence)}")
        if rep.relations:
            st.subheader("Tables on disk")
            st.dataframe(pd.DataFrame([
                {"table": r.table, "rows (estimate)": r.rows_estimate, "heap MB": round(r.heap_bytes / 1e6, 2),
                 "TOAST MB": round(r.toast_bytes / 1e6, 2), "indexes MB": round(r.index_bytes / 1e6, 2),
                 "total MB": round(r.total_bytes / 1e6, 2)}
                for r in rep.relations
            ]), hide_index=True, width="stretch")  # fmt: skip
        fig = _growth_figure(rep)
        st.subheader("Growth over time")
        if fig is not None:
            st.plotly_chart(fig, width="stretch", key="growth")
            st.caption(
                "Times come from the checkpoint ids (a UUID v6 carries its creation time), read to about 27 seconds."
            )
        else:
            if rep.growth:
                st.caption(
                    "Every checkpoint was written within the same 27 seconds (the finest time the UUID v6 "
                    "checkpoint ids give here), so there is no growth to chart."
                )
        if rep.growth_note:
            st.info(md(rep.growth_note))
        # Full width: thread ids are long, and in half a 1000 px page the size and the link
        # were cut off (seen in the screenshot).
        st.subheader("Largest threads")
        st.dataframe(pd.DataFrame([
            {"thread": visible(t), "checkpoints": n, "KB": round((cb + wb) / 1e3, 1),
             "open": ui.link("thread", db=item.key, thread=t)}
            for t, n, cb, wb in rep.threads
        ]), hide_index=True, width="stretch", column_config={
            "open": st.column_config.LinkColumn("open", display_text="open ›")})  # fmt: skip
        left, right = st.columns(2)
        with left:
            st.subheader("Per namespace")
            st.dataframe(pd.DataFrame([{"namespace": visible(ns), "checkpoints": n, "KB": round(b / 1e3, 1)}
                                       for ns, n, b in rep.namespaces]), hide_index=True, width="stretch")  # fmt: skip
            st.caption(
                "Subgraph namespaces are folded by node path: `sub:<task id>` of every call counts as `sub`."
            )
        with right:
            st.subheader("Channels")
            st.markdown(
                "**Inside the latest checkpoints** (exact; list values such as message lists marked)"
            )
            st.dataframe(pd.DataFrame([{"channel": visible(c), "KB": round(b / 1e3, 1), "list": is_list}
                                       for c, b, is_list in rep.latest_channels[:20]]),
                         hide_index=True, width="stretch")  # fmt: skip
            st.markdown("**In the writes table** (every row)")
            st.dataframe(pd.DataFrame([{"channel": visible(c), "rows": n, "KB": round(b / 1e3, 1)}
                                       for c, n, b in rep.write_channels[:20]]), hide_index=True, width="stretch")  # fmt: skip
        st.subheader("Largest blobs")
        st.dataframe(pd.DataFrame([
            {"KB": round(b.bytes / 1e3, 1), "table": b.table, "thread": visible(b.thread_id),
             "channel": visible(b.channel or ""), "namespace": visible(b.checkpoint_ns),
             "checkpoint": visible(b.checkpoint_id)}
            for b in rep.largest
        ]), hide_index=True, width="stretch")  # fmt: skip
        for note in rep.notes:
            st.info(md(note))
