"""The Thread page's "Time travel" tab: resume from the chosen checkpoint, previewed, with the
code for each move to copy, and the thread's history export. A drawing block (it imports
Streamlit); the answers come from `analysis.timetravel` and `export`."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from replaylens.analysis.timetravel import preview, snippet
from replaylens.dashboard.ui import common as ui
from replaylens.text import md, md_code, md_ticks, safe_filename, visible

MOVES = {
    "resume": "Resume (latest checkpoint)",
    "resume_from": "Resume from this checkpoint",
    "answer_interrupt": "Answer the interrupt",
    "fork": "Fork with update_state",
}


def draw(item: Any, thread: Any, plan: Any, ns_name: str, cp: Any) -> None:
    """The whole tab; `cp` is the checkpoint picked above the tabs (None without checkpoints)."""
    if thread is None or cp is None:
        st.info(
            "No checkpoint of this thread reached the database, so there is nothing to travel back to."
        )
    else:
        st.caption(
            "Time travel starts from the checkpoint picked above (“Checkpoint to inspect”, any namespace); "
            "nothing is run here."
        )
        tt = preview(
            thread,
            plan.attempts,
            cp.checkpoint_id,
            ns_name,
            lost=list(plan.again.tasks or ()),
            names=plan.recording.named_nodes,
        )
        if tt is not None:
            st.markdown(
                f"**`graph.invoke(None, config)` with checkpoint {md_code(cp.checkpoint_id)}** "
                f"(step {cp.step}, {md(cp.source or '?')})"
            )
            st.warning(md_ticks(tt.sentence())) if tt.again else st.info(md_ticks(tt.sentence()))
            m = st.columns(4)
            m[0].metric(
                "tasks re-run",
                tt.task_count,
                help="Every task due at the checkpoint, finished ones too (a plain resume reuses those), "
                "then, from the latest checkpoint, what a plain resume runs after them: the tasks of the "
                "steps whose checkpoint was lost and the @task calls the entrypoint makes again.",
            )
            m[1].metric(
                "writes ignored",
                tt.ignored_writes,
                help="Writes saved against it: time travel does not hand them back to their tasks.",
            )
            m[2].metric("lines again", len(tt.certain_lines), f"+{len(tt.likely_lines)} likely" if tt.likely_lines else None,
                        delta_color="off", delta_arrow="off",
                        help="Certain: lines of the tasks due at the checkpoint. Likely: lines of the steps that "
                        "followed on the old branch, if the graph takes the same route.")  # fmt: skip
            m[3].metric(
                "old branch",
                len(tt.abandoned),
                help="Checkpoints after it (the old branch): they stay in the database; the new branch starts at it.",
            )
            rows = [{"line": line.line, "node": visible(a.node), "effect": visible(line.label), "phase": visible(line.phase),
                     "again": how} for a, how in tt.again for line in a.lines]  # fmt: skip
            if rows:
                st.dataframe(
                    pd.DataFrame(rows).sort_values("line"), hide_index=True, width="stretch"
                )
            for note in tt.notes:
                st.caption(md(note))
    st.markdown("**The code for the move** (copy it; replaylens never runs it)")
    moves = list(MOVES)
    default = (
        "answer_interrupt"
        if plan.status == "interrupted"
        else ("resume_from" if cp is not None else "resume")
    )
    move = st.segmented_control("Move", moves, default=default, format_func=MOVES.get, key="tt_move",
                                label_visibility="collapsed") or default  # fmt: skip
    st.code(
        snippet(move, plan.thread_id, cp.checkpoint_id if cp is not None else None, ns_name),
        language="python",
        wrap_lines=True,
    )
    _export(item, thread, plan)


def _export(item: Any, thread: Any, plan: Any) -> None:
    from replaylens.export import history, to_json_bytes, to_ndjson

    st.markdown(
        "**Download the thread's whole history** (schema `replaylens.history/1`: checkpoints, writes per "
        "task, effect lines with verdicts, the resume plan)"
    )
    doc = history(ui.open_item(item), thread, plan, ui.effects_label(item))
    c1, c2 = st.columns(2)
    c1.download_button("History (JSON)", to_json_bytes(doc), file_name=safe_filename(plan.thread_id, ".history.json"),
                       mime="application/json", key="dl_history", icon=":material/history:")  # fmt: skip
    c2.download_button("History (NDJSON)", b"".join(to_ndjson(doc)),
                       file_name=safe_filename(plan.thread_id, ".history.ndjson"), mime="application/x-ndjson",
                       key="dl_history_nd", icon=":material/data_array:")  # fmt: skip
