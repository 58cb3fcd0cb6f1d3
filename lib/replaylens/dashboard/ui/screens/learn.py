"""Learn supersteps: a guided walk through one recorded thread, step by step."""

from __future__ import annotations

import streamlit as st

from replaylens.dashboard.catalog import DataItem
from replaylens.dashboard.learn import after, build_lesson
from replaylens.dashboard.ui import common as ui
from replaylens.figures.supersteps import superstep_figure
from replaylens.text import md, md_code, md_ticks
from replaylens.times import iso_to_epoch

ui.ensure_navigation()
st.title("Learn supersteps")
st.markdown(
    """
LangGraph runs a graph in **supersteps**. In each one, every task that is due runs *in parallel*;
when all of them have finished, their outputs are applied together and a **checkpoint** (a snapshot of the
state) is saved. Each task's output is also saved on its own, as a **pending write**, the moment the task ends.

After a crash, a resume loads the newest checkpoint, reuses the pending writes saved against it, and runs every
other task of that superstep **again from its first line**. Whatever those tasks did outside the database
(charging a card, sending an email) happens twice. **Durability** decides how far back the newest checkpoint is.

Walk through a real recorded thread below: pick a superstep, imagine a `kill -9` in the middle of it, and see
what each durability mode would lose and repeat.
"""
)


def _fmt_time(ts: float | None) -> str:
    import datetime as dt

    return "—" if ts is None else dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%H:%M:%S.%f")[:-3]


def _step(delta: int, options: list[int]) -> None:
    current = st.session_state.get("step", options[0])
    i = options.index(current) if current in options else 0
    st.session_state["step"] = options[max(0, min(len(options) - 1, i + delta))]


def _teaching_thread(item: DataItem) -> str | None:
    """The thread a lesson should open with: a completed run with the most supersteps (a
    failed batch teaches less than a run that went all the way)."""
    summaries, _ = ui.summaries(item)
    done = [s for s in summaries if s.status == "completed" and (s.latest_step or 0) >= 1]
    return max(done, key=lambda s: (s.latest_step or 0, s.checkpoints)).thread_id if done else None


def _fanout_example() -> tuple[str, str, int] | None:
    """(database, thread, step) of a fan-out run that finished: a loose example first, else a
    kill-test run's database after the resume (at the kill it may not have run a step yet)."""
    candidates = [d for d in ui.catalog().databases if "fanout" in d.key and d.effects]
    candidates.sort(
        key=lambda d: (
            d.campaign is not None,
            "after" not in d.key and "checkpoints" not in d.key,
            d.key,
        )
    )
    for d in candidates[:6]:
        try:
            summaries, _ = ui.summaries(d)
        except Exception:  # noqa: BLE001, S112 - an unreadable candidate is skipped, not shown
            continue
        done = [s for s in summaries if s.status == "completed" and (s.latest_step or 0) >= 2]
        if done:
            return d.key, done[0].thread_id, 1
    return None


def _name(node: str) -> str:
    """`__start__` is LangGraph's input task: say "input"."""
    return "input" if node == "__start__" else md_code(node.replace("__start__", "input"))


item = ui.need_database()
if item is not None:
    with ui.friendly_errors():
        if not st.query_params.get("thread"):
            teaching = _teaching_thread(item)
            if teaching:
                st.query_params["thread"] = teaching
        example = None if "fanout" in item.key else _fanout_example()
        thread_id = ui.thread_picker(item, label="Thread to walk through")
        if example is not None:
            st.page_link(ui.page("learn"), label="Open a fan-out example (parallel tasks)",
                             icon=":material/arrow_forward:",
                             query_params={"db": example[0], "thread": example[1], "step": str(example[2])})  # fmt: skip
        if thread_id:
            summaries, _ = ui.summaries(item)
            if thread_id not in {s.thread_id for s in summaries}:
                st.info("This thread has no checkpoint to walk through (it exists only in the effects log). "
                        "Pick another thread.")  # fmt: skip
            else:
                thread = ui.thread(item, thread_id)
                latency = ui.latency_picker()
                plan = ui.plan(item, thread_id, thread, latency)
                lessons = [ls for ls in build_lesson(thread, plan, latency)
                           if any(t.node != "__start__" for t in ls.tasks)]  # fmt: skip
                if not lessons:
                    st.info("This thread ran no superstep with a task yet. Pick another thread.")
                else:
                    options = [ls.step for ls in lessons]
                    st.markdown("**Pick the superstep in which the kill lands:**")
                    # Buttons keep their words at any width: they size to their label, the slider takes the rest.
                    with st.container(
                        horizontal=True, vertical_alignment="center", key="learn_nav"
                    ):
                        st.button(
                            "Previous",
                            on_click=_step,
                            args=(-1, options),
                            key="prev",
                            width="content",
                            icon=":material/chevron_left:",
                        )
                        chosen = st.select_slider(
                            "Superstep",
                            options,
                            key="step",
                            bind="query-params",
                            label_visibility="collapsed",
                            width="stretch",
                        )
                        st.button(
                            "Next",
                            on_click=_step,
                            args=(1, options),
                            key="next",
                            width="content",
                            icon=":material/chevron_right:",
                        )
                    mode = ui.mode_picker(
                        label="Durability mode", default=plan.recording.mode or "async"
                    )
                    mode = mode or "async"
                    index = options.index(chosen) if chosen in options else 0
                    lesson = lessons[index]

                    st.plotly_chart(
                        superstep_figure(lessons, index, mode), width="stretch", key="learn_fig"
                    )
                    st.caption("Each column is a superstep, each box a task, each diamond the checkpoint saved after "
                               "the step. Colours: what a kill in the outlined superstep leaves under "
                               f"{mode} at {latency * 1000:g} ms per checkpoint write.")  # fmt: skip

                    left, right = st.columns([1, 1])
                    with left:
                        st.subheader(f"What happened in superstep {lesson.step}")
                        names = ", ".join(_name(t.node) for t in lesson.tasks)
                        if lesson.parallel:
                            st.markdown(f"**{len(lesson.tasks)} tasks ran in parallel:** {names}. "
                                        "None of them sees the others' output until the step ends.")  # fmt: skip
                        else:
                            st.markdown(f"**One task ran:** {names}.")
                        st.markdown(
                            f"They started from the checkpoint of {md(after(lesson.before.step))}."
                        )
                        for t in lesson.tasks:
                            when = (
                                f" (ran {_fmt_time(t.start)} → {_fmt_time(t.end)} UTC)"
                                if t.start
                                else ""
                            )
                            wrote = ", ".join(md_code(c) for c in t.channels) or "nothing"
                            st.markdown(f"- {_name(t.node)}{when}: its pending writes ({wrote}) were saved as soon "
                                        "as it finished.")  # fmt: skip
                        if lesson.after is not None:
                            ts = iso_to_epoch(lesson.after.ts)
                            st.markdown(f"Then the checkpoint of step {lesson.step} landed at {_fmt_time(ts)} UTC: the "
                                        "step's outputs became part of the saved state.")  # fmt: skip
                        else:
                            st.error(f"The checkpoint of step {lesson.step} never landed: the recording stops here "
                                     "(the process crashed, paused or failed in this superstep).")  # fmt: skip
                    with right:
                        st.subheader(f"If SIGKILL hit in the middle of superstep {lesson.step}")
                        st.caption(
                            "The kill lands just before the step's last task finishes: its siblings are done."
                        )
                        for m in ui.MODES:
                            ml = lesson.modes.get(m)
                            if ml is None:
                                continue
                            with st.container(border=True):
                                st.markdown(
                                    f"**{'▶ ' if m == mode else ''}{m}**: the database holds {md(ml.holds)}."
                                )
                                st.markdown(f"A resume starts {md(ml.resume)}.")
                                if ml.reruns:
                                    st.markdown(
                                        "Runs again: "
                                        + ", ".join(dict.fromkeys(_name(r) for r in ml.reruns))
                                    )
                                if ml.reused:
                                    st.markdown(
                                        "Reused (not run): "
                                        + ", ".join(dict.fromkeys(_name(r) for r in ml.reused))
                                    )
                                if ml.repeated_effects:
                                    st.markdown(
                                        "Happens again (executions): "
                                        + ", ".join(md(e) for e in ml.repeated_effects)
                                    )
                                st.caption(md_ticks(ml.sentence))

                    with st.expander("Three rules to remember", expanded=index == len(lessons) - 1):
                        st.markdown(
                            "1. **The unit of replay is the task of the interrupted superstep**, never the line where "
                            "it stopped. Anything a task does outside the database must be safe to do twice "
                            "(an idempotency key derived from the thread id and a business id).\n"
                            "2. **sync** pays one checkpoint write per step and loses at most the running step. "
                            "**async** (the default) writes checkpoints one after another in the background, so on a slow store "
                            "the newest ones may not have landed and more steps run again. "
                            "**exit** loses the whole run on a kill.\n"
                            "3. **Pending writes save finished siblings**: in a parallel step only the tasks that had "
                            "not finished run again, if their checkpoint landed."
                        )
