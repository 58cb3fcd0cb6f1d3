"""Kill-test runs: compare recorded campaigns per durability mode and write latency."""

from __future__ import annotations

import streamlit as st

from replaylens.dashboard.campaigns import (
    campaign_label,
    columns_first,
    node_verdict_frame,
    resolve_campaigns,
    runs_frame,
    summary_frame,
)
from replaylens.dashboard.ui import common as ui
from replaylens.figures.runs import METRICS, repeats_by_kill_moment, runs_strip
from replaylens.text import md, option_text, url_value

ui.ensure_navigation()
st.title("Kill-test runs")
st.caption(
    "A campaign kills a graph with SIGKILL in the middle of a node, again and again, under each durability mode, "
    "then resumes it in a fresh process. Each point below is one run; open one to see its timeline."
)


def _runs(keys: list[str]):  # noqa: ANN202 - page-local cached read
    catalog = ui.catalog()
    chosen = [c for c in catalog.campaigns if c.key in keys]
    stat = tuple((c.key, (c.path / "manifest.json").stat().st_mtime_ns) for c in chosen)
    key = ("runs", stat)
    hit = ui.lru().get(key)
    if hit is None:
        with st.spinner(f"Reading {sum(len(c.runs) for c in chosen)} runs…"):
            hit = ui.lru().put(key, runs_frame(chosen, ui.allow_list()))
    return chosen, hit


with ui.friendly_errors():
    catalog = ui.catalog()
    keys = [c.key for c in catalog.campaigns]
    if not keys:
        st.info(
            "No kill-test campaign found in the served folders (a campaign is a folder with a manifest.json "
            "listing its runs). Serve one with `replaylens serve CAMPAIGN_FOLDER`, or put it under sample_dbs/."
        )
    else:
        names = {c.key: campaign_label(c) for c in catalog.campaigns}
        # The URL keeps each campaign by its path (`campaign=sample_dbs/payment`), written by
        # this page, not by the widget: Streamlit would write the label and drop a path.
        wanted = st.query_params.get_all("campaign")
        if st.session_state.get("_campaign_url") != wanted or "campaign" not in st.session_state:
            found, unknown = resolve_campaigns(wanted, catalog.campaigns)
            # Unasked, the largest campaign: alphabetically the first is `failing`, whose every
            # resume raises, a poor first sight of the page.
            largest = max(catalog.campaigns, key=lambda c: len(c.runs)).key
            st.session_state["campaign"] = found or [largest]
            st.session_state["_campaign_unknown"] = unknown
        for value in st.session_state.get("_campaign_unknown", []):
            st.warning(
                f"The link names the campaign {md(value)}, which is not among the served campaigns; "
                "showing the ones picked below instead."
            )
        chosen_keys = st.multiselect("Campaigns", keys, key="campaign",
                                     format_func=lambda k: option_text(names.get(k, k)),
                                     help="Pick several to compare them on the same axes: each campaign gets "
                                     "its own marker shape. "
                                     + "; ".join(f"{md(k)}: {md(v)}" for k, v in names.items()))  # fmt: skip
        st.query_params["campaign"] = chosen_keys
        st.session_state["_campaign_url"] = list(chosen_keys)
        if not chosen_keys:
            st.info("Pick at least one campaign above.")
        else:
            campaigns, runs = _runs(chosen_keys)
            for c in campaigns:
                for p in c.problems:
                    st.warning(md(p))
            if runs.empty:
                st.info("These campaigns list no runs yet.")
            else:
                st.subheader("Per mode and latency (every run is a point)")
                # Two charts a row: four side by side left each about 130 px at 1000 px, their
                # titles, mode names and legends cut.
                metrics = list(METRICS)
                cells = [col for _ in range(0, len(metrics), 2) for col in st.columns(2)]
                picked = None
                for col, metric in zip(cells, metrics, strict=False):
                    event = col.plotly_chart(runs_strip(runs, metric), width="stretch", on_select="rerun",
                                             selection_mode="points", key=f"strip_{metric}")  # fmt: skip
                    points = (event or {}).get("selection", {}).get("points", []) if event else []
                    if points and picked is None:
                        picked = points[0].get("customdata")
                # A curve needs kill moments spread over the node (`--kill-delay LOW..HIGH`): with one
                # delay per campaign it was a vertical line at that delay, which reads as nothing.
                spread = (
                    runs.dropna(subset=["kill delay (s)"])
                    .groupby("campaign")["kill delay (s)"]
                    .nunique()
                )
                if not spread.empty and spread.max() <= 1:
                    st.caption(
                        "Every run of a campaign here was killed at one moment of its node, so there is no "
                        "curve against the kill moment: `replaylens killtest --kill-delay LOW..HIGH` spreads "
                        "the kills over the node (the linear-postgres-spread sample does)."
                    )
                elif not spread.empty:
                    st.subheader("Against the kill moment (the async window as a curve)")
                    for col, metric in zip(
                        st.columns(2), ("lines repeated", "checkpoints kept"), strict=True
                    ):
                        event = col.plotly_chart(repeats_by_kill_moment(runs, metric), width="stretch",
                                                 on_select="rerun", selection_mode="points",
                                                 key=f"by_kill_moment_{metric}")  # fmt: skip
                        points = (
                            (event or {}).get("selection", {}).get("points", []) if event else []
                        )
                        if points and picked is None:
                            picked = points[0].get("customdata")
                st.caption(
                    "Click a point to open that run, as it stood at the kill, on the Thread page."
                )
                if isinstance(picked, list):
                    picked = picked[0] if picked else None
                if picked is not None:
                    row = runs.iloc[int(picked)]
                    st.switch_page(
                        ui.page("thread"),
                        query_params={"db": row["db"], "thread": url_value(row["thread"])},
                    )

                st.subheader("Summary (the “what durability modes lose” table, recomputed)")
                summary = summary_frame(runs)
                lead = [
                    "graph",
                    "mode",
                    "latency (ms)",
                    "runs",
                    "lines repeated",
                    "resumed",
                    "errors",
                ]
                summary = columns_first(summary, lead)
                st.dataframe(summary, hide_index=True, width="stretch",
                             column_config={"errors": st.column_config.TextColumn(width="large")})  # fmt: skip
                baseline = {
                    c.name: c.baseline_effect_lines for c in campaigns if c.baseline_effect_lines
                }
                if baseline:
                    st.caption("Effect lines of a clean run (no kill): "
                               + ", ".join(f"{md(k)}: {v}" for k, v in baseline.items()))  # fmt: skip
                st.caption(
                    "Tasks re-run: tasks that had started before the kill and started again in the resume. Effect "
                    "lines again: the log lines, before the kill, of those tasks. Crosses (×) are the model's "
                    "predictions for the same run. Lines repeated: start lines the resume wrote a second time. "
                    "Under exit, a killed run leaves no checkpoint and the resume fails with EmptyInputError, which "
                    "stands for a restart from the input (every task again)."
                )

                st.subheader("Verdict per node")
                verdicts = node_verdict_frame(campaigns, ui.allow_list())
                if verdicts.empty:
                    st.info("No node of these campaigns has a verdict yet: no run was killed.")
                else:
                    ui.wrapping_table(verdicts)
                st.caption(
                    "Safe to repeat: no recorded effect of the node happened twice, or every repeat sent the same "
                    "idempotency key. Repeats an effect: a resume performed it again without a key that dedupes "
                    "it. Not deterministic: two attempts of the same task sent different keys or values (built "
                    "from time or randomness), which no service can deduplicate. The same verdicts: "
                    "`replaylens killtest … --json` and `assert_resume_safe` in your own tests."
                )

                st.subheader("Every run")
                frame = runs.copy()
                frame["open"] = [
                    ui.link("thread", db=d, thread=t)
                    for d, t in zip(frame["db"], frame["thread"], strict=True)
                ]
                first = [
                    "campaign",
                    "run",
                    "mode",
                    "latency (ms)",
                    "lines repeated",
                    "predicted repeats",
                    "open",
                ]
                frame = columns_first(frame, first)
                st.dataframe(frame, hide_index=True, width="stretch", column_config={
                    "resume error": st.column_config.TextColumn(width="large"),
                    "open": st.column_config.LinkColumn("open", display_text="open ›"),
                    "tasks re-run (predicted)": st.column_config.TextColumn(
                        help="What replaylens predicts from the database and log at the kill, before the resume "
                        "(a range where the evidence cannot tell), as the Thread page says it."),
                    "effect lines again (predicted)": st.column_config.TextColumn(
                        help="The effect-log lines, before the kill, of the tasks predicted to run again (a range "
                        "where the evidence cannot tell)."),
                })  # fmt: skip
