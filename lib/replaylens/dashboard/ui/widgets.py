"""Links, friendly errors and the widgets several pages share: the thread and mode pickers,
the verdict block, tables that wrap, metric rows, the thread header."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from replaylens.analysis.durability import MODE_RULES
from replaylens.analysis.durability import MODES as DURABILITY_MODES
from replaylens.dashboard import catalog as cat
from replaylens.dashboard.ui.data import catalog, effects, recording, summaries
from replaylens.dashboard.ui.navigation import PAGES, page
from replaylens.dashboard.ui.picker import current, synced_selectbox
from replaylens.errors import ReplaylensError
from replaylens.figures.timeline import TimelineData, focus_range, timeline_figure
from replaylens.text import from_url_value, md, md_code, option_text, url_value

log = logging.getLogger("replaylens.app")

MODES = DURABILITY_MODES


# -- links, errors, small widgets --------------------------------------------------------
def link(page: str, **params: Any) -> str:
    """A relative URL of a view (paste-able into a write-up once joined with the app's address)."""
    clean = {k: url_value(str(v)) for k, v in params.items() if v is not None and v != ""}
    return f"./{page}" + (f"?{urlencode(clean)}" if clean else "")


def absolute(url: str) -> str:
    """`./thread?…` -> `http://host:port/thread?…`, using the address the browser used."""
    base = ""
    with contextlib.suppress(Exception):
        base = str(st.context.url or "")
    if not base:
        return url
    root = base.split("?")[0]
    root = root[: root.rfind("/") + 1] if "/" in root[8:] else root + "/"
    return root + url.removeprefix("./")


@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    """Any error becomes a sentence in the page; the rest of the app keeps working."""
    try:
        yield
    except ReplaylensError as exc:
        st.error(md(str(exc)))
    except Exception as exc:  # noqa: BLE001 - never show a raw traceback to the reader
        log.exception("page failed")
        st.error(
            f"This view could not be drawn ({md(type(exc).__name__)}: {md(str(exc)[:300])}). The rest of "
            "the app still works: pick another database or thread in the sidebar."
        )


def need_database() -> cat.DataItem | None:
    """The chosen database, or an empty-state message saying what to do next."""
    item = current()
    if item is None:
        st.info(
            "Pick a checkpoint database in the sidebar, or upload one there. "
            "`replaylens serve FOLDER` serves every database in FOLDER."
        )
    elif item.dsn is None:
        from replaylens.bundle import CHECKSUM_NOTE, bundle_of

        note = bundle_of(item.path)
        if note is not None:  # cite the bundle the page reads, not a temporary path
            st.caption(
                f"Read from the evidence bundle {md_code(Path(str(note.get('bundle'))).name)}, sha256 "
                f"{md_code(note['sha256'])}; every file matched its manifest. {md(CHECKSUM_NOTE)}"
            )
    return item


def thread_picker(
    item: cat.DataItem, *, label: str = "Thread", container: Any = None
) -> str | None:
    """A thread selector bound to `?thread=`; an unknown id in the URL gets a sentence."""
    summaries_, _ = summaries(item)
    log_, _ = effects(item)
    ids = [s.thread_id for s in summaries_]
    if log_ is not None:
        ids += sorted(set(log_.thread_ids) - set(ids))
    raw = from_url_value(st.query_params.get("thread"), ids)
    where = container or st
    if raw and raw not in ids:
        # After an incident, showing another thread's analysis under this id would be
        # dangerous: say so, list the threads that exist, and draw nothing else.
        st.error(
            f"Thread {md_quote(raw)} is not in {md(item.path.name)}"
            + (" or its effects log" if log_ is not None else "")
            + ". Nothing is shown for it; open one of the threads below."
        )
        unknown_thread_list(item, ids)
        return None
    if not ids:
        st.info(
            f"{md(item.path.name)} holds no threads yet. Run a graph with a SqliteSaver on it, or pick another database."
        )
        return None
    return synced_selectbox(
        label,
        ids,
        "thread",
        container=where,
        format_func=option_text,
        help="A thread is one conversation or run of the graph (its thread_id).",
    )


def unknown_thread_list(item: cat.DataItem, ids: list[str]) -> None:
    """The database's threads as links to the current page, after an unknown-thread error.

    Plain Markdown links (ids escaped, URLs percent-encoded), so they read and click like
    text; the Threads page pages and searches the full list."""
    page_name = next((n for n in PAGES if st.session_state.get("_page") == n), "thread")
    shown = ids[:MAX_LISTED_THREADS]
    st.markdown("\n".join(f"- [{md(t)}]({link(page_name, db=item.key, thread=t)})" for t in shown))
    if len(ids) > len(shown):
        st.caption(
            f"The first {len(shown)} of {len(ids)} threads; the Threads page searches them all."
        )


MAX_LISTED_THREADS = 50


WHY_CAPTION = {
    "re-run in the resume step": "Tasks re-run in the resume step: due after the checkpoint a resume loads, "
    "with no saved output (in flight, failed or waiting at interrupt()), and a node's error "
    "handler, which a resume runs again for the saved failure.",
    "step whose checkpoint was lost": "Steps whose checkpoint was lost: these tasks ran after the "
    "checkpoint a resume loads (to their end, or until the crash cut them off), and no checkpoint "
    "after their superstep reached the database (under exit, nothing the killed invocation ran is "
    "saved), so a resume runs them again.",
    "restart from the input": "Restart from the input: no checkpoint exists, so everything runs again.",
}


def mode_answer(plan: Any, mode: str, text: str) -> None:
    """One mode's answer in the box its evidence earns (`again.outcome_tone`): a warning when
    something happens again or may, a neutral box when a figure rests on no effects log
    (with what each figure rests on), green only when the evidence shows nothing does."""
    from replaylens.analysis.again import outcome_tone, rests_on

    tone = outcome_tone(plan, mode)
    if plan.again_under(mode).line_count is None:
        text += "\n\n" + md("What the figures rest on: " + rests_on(plan, mode) + ".")
    {"warning": st.warning, "info": st.info, "success": st.success}[tone](text)


def verdict_block(plan: Any, thread_obj: Any) -> None:
    """The answer at the top of a per-thread page: the verdict, what stopped the thread with the
    code for the next move, and the "what happens again" table, all from the same plan."""
    from replaylens.analysis.again import next_moves
    from replaylens.dashboard import views
    from replaylens.text import md_code, md_ticks

    frames = views.again_frames(plan) if plan.effects_given else {}
    # `unknown` is never shown as reassuring: the rows could not tell that the run finished.
    # A lost input is no reassurance either: nothing runs again because its work is gone.
    alarming = (
        bool(frames)
        or plan.replayed_lines
        or plan.status in ("failed", "needs_restart", "unknown")
        or plan.input_lost
    )
    (st.warning if alarming else st.success)(md_ticks(plan.verdict_sentence()))
    if plan.release_note:
        st.caption(md(plan.release_note))
    if "synchronous_commit" in plan.backend:
        st.caption(
            f"Postgres synchronous_commit = {md_code(str(plan.backend['synchronous_commit']))}: the server's "
            "own durability, under LangGraph's durability mode (`off` can lose a recently acknowledged "
            "checkpoint if the database server crashes)."
        )
    for move in next_moves(plan, thread_obj):
        with st.container(border=True, key=f"next_move_{move.kind}"):
            if move.kind == "failed":
                st.markdown(f":red[**{md_code(move.node)} failed with:**]")
                st.code(
                    move.detail or "(no exception text was saved)", language="text", wrap_lines=True
                )
                st.markdown(
                    "**Next move**, once the cause is fixed (re-runs the failed task from its first line):"
                )
            elif move.kind == "answered":
                st.markdown(f":violet[**{md_code(move.node)} asked, and was answered:**]")
                st.code(move.detail, language="json", wrap_lines=True)
                st.markdown(
                    "LangGraph still lists this question (the task's interrupt write stays until the "
                    "task ends), but the graph below it saved its paused task's output before the "
                    "process died: the answer was given and the run went past it. **Next move**: "
                    "resume without a new answer:"
                )
            else:
                st.markdown(f":violet[**{md_code(move.node)} is waiting for an answer to:**]")
                st.code(move.detail, language="json", wrap_lines=True)
                st.markdown(
                    "**Next move**: answer it (the value you pass becomes interrupt()'s return value):"
                )
            st.code(move.code, language="python", wrap_lines=True)
    if frames:
        st.markdown(
            "**What happens again**",
            help="times again: executions of the node that repeat this effect (tasks, not log lines).",
        )
        for why, frame in frames.items():
            st.caption(WHY_CAPTION.get(why, why))
            wrapping_table(frame)


def wrapping_table(frame: Any) -> None:
    """A static table, not a data grid: its few rows wrap their sentences ("would the key
    dedupe", "what it means") instead of cutting them at 1000 px. Its cells are Markdown,
    so every string is escaped."""
    st.table(frame.map(lambda v: md(v) if isinstance(v, str) else v), hide_index=True,
             border="horizontal")  # fmt: skip


def open_tab(tab: Any) -> Iterator[None]:
    """`for _ in open_tab(tabs[i]):` runs the body inside the tab only when it is the one shown.

    Tabs bound to the URL know which one is open, so the others need not compute or send
    anything: a cold Thread page then loads no chart code (Graphviz, the code highlighter)
    for tabs nobody looks at. `open` is None when Streamlit cannot tell; then every tab runs."""
    if tab.open is False:
        return
    with tab:
        yield


def campaign_banner(item: cat.DataItem) -> None:
    """A kill-test run's database says which run it is (campaign, recorded mode and latency,
    run, at the kill or after the resume) and links back to its campaign."""
    if not item.campaign:
        return
    where = cat.place(item, catalog(), [])
    with st.container(horizontal=True, vertical_alignment="center", key="campaign_banner"):
        st.info(
            f"Kill-test run: {md(where.label)} (the mode and latency it was recorded with).",
            icon=":material/science:",
            width="stretch",
        )
        st.page_link(page("runs"), label="Back to its campaign", icon=":material/arrow_back:",
                     query_params={"campaign": item.campaign})  # fmt: skip


def metric_row(metrics: list[tuple[str, Any, str]], *, key: str) -> None:
    """Metrics side by side that wrap to a second line instead of cutting their labels
    ("would rep…") when the page is narrow: (label, value, help) each."""
    with st.container(horizontal=True, wrap=True, gap="medium", key=key):
        for label, value, help_ in metrics:
            st.metric(label, value, help=help_, width=150)


def md_quote(text: str) -> str:
    return "“" + md(text[:200]) + "”"


def mode_picker(
    container: Any = None, *, label: str = "Durability mode", default: str | None = "async"
) -> str | None:
    """The durability mode to show; None while nobody has picked one and none was recorded."""
    where = container or st
    return where.segmented_control(
        label, list(MODES), default=default, key="mode", bind="query-params",
        help="When LangGraph saves checkpoints. " + " ".join(f"{m}: {r}." for m, r in MODE_RULES.items()),
    )  # fmt: skip


LATENCY_DEFAULT_MS = 250


def latency_picker(container: Any = None, recorded: float | None = None) -> float:
    """The write latency the durability model uses, in seconds. It starts at the recorded one
    when a kill-test manifest names it: a run recorded at 0 ms read "model at 250 ms" beside
    its own recorded mode, where a reader expects the recording."""
    where = container or st
    start = LATENCY_DEFAULT_MS if recorded is None else min(1000, round(recorded * 1000 / 50) * 50)
    ms = where.slider(
        "Checkpoint write latency (ms)", 0, 1000, start, step=50, key="latency",
        bind="query-params",
        help="How long one checkpoint takes to reach the database. Local SQLite: a few ms; a networked "
        "Postgres or hosted service: 50-500 ms. Under async, a crash loses the checkpoints still on their way.",
    )  # fmt: skip
    return float(ms) / 1000.0


def thread_header(
    item: cat.DataItem, mode_label: str
) -> tuple[str | None, str | None, float, list[Any]]:
    """The row every per-thread page starts with: thread, durability mode, write latency.

    The mode defaults to the recorded one when a kill-test manifest names it; otherwise
    no mode is chosen and the page says the mode was not recorded and asks for one.
    Returns (thread id or None, mode or None, latency, the database's thread summaries)."""
    # The thread id gets the row's width; mode and latency share the next one, so the three
    # mode buttons never lose `exit` at 1000 pixels.
    thread_id = thread_picker(item)
    if not thread_id:
        return None, None, 0.25, []
    rec = recording(item, thread_id)
    below = st.columns([1, 1])
    mode = mode_picker(below[0], label=mode_label, default=rec.mode)
    latency = latency_picker(below[1], rec.latency if rec.known else None)
    if rec.known:
        below[0].caption(
            f"Recorded under **{rec.mode}**"
            + (f" at {rec.latency * 1000:g} ms per checkpoint write" if rec.latency else "")
            + " (kill-test manifest)."
        )
    elif mode is None:
        st.info(
            "The durability mode this thread ran under was not recorded (no kill-test manifest names it). "
            "Pick the mode your run used above to see what it left and what a resume would replay."
        )
    summaries_, _ = summaries(item)
    return thread_id, mode, latency, summaries_


ZOOM_CAPTION = (
    "Zoomed to the moments before the crash; double-click the chart to see the whole thread."
)


def timeline_chart(data: TimelineData, mode: str, *, key: str) -> None:
    """The superstep timeline under `mode`, and, where it opens zoomed to the crash (a long
    pause for a human before it), the sentence that says so: the Thread page and the Resume
    simulator draw the same chart the same way."""
    st.plotly_chart(timeline_figure(data, mode=mode), width="stretch", key=key)
    if focus_range(data, mode) is not None:
        st.caption(ZOOM_CAPTION)
