"""The words of the what-if: one line and one paragraph per mode, the note, the sentence."""

from __future__ import annotations

from replaylens.analysis.attempts import Attempt, effect_list
from replaylens.analysis.durability.rules import Ending, Mode

MODE_RULES: dict[Mode, str] = {
    "sync": "each checkpoint is written before the next step starts",
    "async": "checkpoints are written in the background, one after another, while the next step runs",
    "exit": "nothing is written until the invocation returns, raises or pauses at interrupt()",
}
"""One line per mode, for captions, tables and the Learn page."""

MODE_EXPLAINED: dict[Mode, str] = {
    "sync": (
        "LangGraph waits for each step's checkpoint to be written before it starts the next "
        "step. A crash loses at most the step that was running; a slow store slows every step."
    ),
    "async": (
        "Checkpoints are written in the background, one after another, while the next step "
        "already runs (LangGraph's default). On a slow store the newest checkpoints may not have "
        "landed when the process dies, so more steps run again."
    ),
    "exit": (
        "Nothing is written while the invocation runs; the last checkpoint and the pending "
        "writes are saved when it returns, raises or pauses at interrupt(). A kill loses the "
        "whole invocation."
    ),
}
"""A paragraph per mode, for the glossary and the Learn page."""

WHAT_IF_NOTE = (
    "The recorded mode at the recorded latency is the recording; the other modes are a model: "
    "the recorded task timings re-timed under each mode's rule (sync waits for every checkpoint, "
    "async writes them one after another in the background, exit writes nothing until the "
    "invocation ends), with the crash at the same point of progress. Each outcome lists the "
    "inputs it used and what it had to assume."
)


def unlogged_tasks_note(nodes: str, most: int) -> str:
    """Why the tasks again are 0 to `most` where the effects log has no line of the thread:
    the database names the tasks a resume runs, not whether they had begun before the kill
    (one that had not runs for the first time). The what-if's note and the header's say it
    alike (`outcomes._widen_for_unlogged`, `again.what_happens_again`)."""
    return (
        f"no effects-log line of this thread: the database names the task(s) a resume runs "
        f"({nodes}), but not whether they had begun before the kill: 0-{most} tasks again"
    )


ENDING_WORDS: dict[str, str] = {
    "killed": "crash",
    "returned": "completed",
    "raised": "failed here",
    "paused": "paused for an answer",
}
"""How the end of the last invocation is named on the timeline and in sentences."""


def mode_sentence(
    mode: str,
    resume_step: int | None,
    replayed: list[Attempt],
    restart: bool,
    ending: Ending = "killed",
    *,
    logged: bool = True,
    kept: int = 0,
    lost_branch: bool = False,
    lost_input: bool = False,
) -> str:
    """The one sentence per mode that every page prints.

    `logged`: the effects log has lines for this thread. Without them the sentence says
    that which side effects repeat is unknown, never that none repeats. `kept`: checkpoints
    kept in any namespace, so a restart beside a subgraph's own checkpoint says both.
    `lost_branch`: the killed run went on from an earlier checkpoint (time travel) and this
    mode would have saved nothing of it, so the resume never runs its tasks. `lost_input`: the
    killed invocation was a later fresh input of which this mode saved nothing: the resume
    goes on from the invocation before and never runs it (the input must be sent again)."""
    what = effect_list(replayed)
    if ending == "returned" and not replayed:
        return f"Under {mode}, the run completed: a resume would run nothing."
    if restart and kept:
        # A subgraph's own save (a ParentCommand exit, an interrupt) without one of the graph
        # itself: `invoke(None)` loads the root's latest checkpoint and finds none.
        start = (
            f"no checkpoint of the graph itself would exist ({kept} of a subgraph's would, which a "
            "resume does not load): only a restart from the input, which"
        )
    elif restart:
        start = "no checkpoint would exist: only a restart from the input, which"
    else:
        start = (
            f"a resume would start after step {resume_step if resume_step is not None else '?'} and"
        )
    if lost_branch:
        start = (
            "the run from an earlier checkpoint would have saved nothing, not even the copy it "
            f"began its branch with: {start.replace(' and', ',', 1) if not restart else start} "
            "would never run that branch's tasks, and"
        )
    if lost_input and not lost_branch:
        start = (
            "the last input (a fresh one) would have saved nothing, not even its input checkpoint: "
            f"{start.replace(' and', ',', 1) if not restart else start} would never run it (sending "
            "that input again would), and"
        )
    if not what and not logged:
        return f"Under {mode}, {start} may repeat side effects: no effects-log line of this thread shows which."
    if not what:
        return f"Under {mode}, {start} repeats no recorded side effect."
    return f"Under {mode}, {start} would {what}."


KIND_UNSURE = "its invocation may have been a fresh input or a resume"
"""The words an attempt's ambiguity carries when its invocation is read both ways (a bare log
and no input checkpoint to tell): the plan's headline names that doubt by them."""
