"""Effects a resume began again: one definition for the kill tests, the safety verdicts and
the dashboard.

The evidence is a thread's effects log read twice, at the kill and after the resume. The log
only grows (every line is appended with one `write()`), so the lines the resume wrote are
those after the first `len(at_kill)`.

Only `start` lines count. The recorder writes `start` before the effect touches the outside
world and `end` or `error` after it, so a start is the moment an effect is begun; an attempt
the kill cut short has a start and nothing else. Counting `end` lines as well would count one
repeated effect once or twice depending on whether the original finished, and `end` says
nothing about whether the world was touched again.

A start the resume wrote repeats one written before the kill when both name the same loop
(the checkpoint namespace's node path, task ids folded away: a task re-run from an earlier
checkpoint gets a new id, in its own field or in its logged namespace), node, superstep and
effect name. Starts of tasks the killed run never reached are new work, not repeats.

A resume that raised `EmptyInputError` found no checkpoint: the only way on is a restart from
the input, which begins every effect the killed run had begun again. Its count is therefore
every start before the kill, never the 0 the failed resume wrote (that 0 made the mode that
kept nothing look safest).

The Thread page's "log lines again" is a different quantity, the durability model's unit:
every line (all phases) the re-run tasks had written before the kill, measured by
`replaylens.killtest.validate.measure` against the model's prediction.
"""

from __future__ import annotations

from collections.abc import Sequence

from replaylens import namespaces
from replaylens.effects.parse import EffectLine

RESTART_ERROR = "EmptyInputError"
"""What `invoke(None, config)` raises when the thread has no checkpoint to resume from."""

RepeatKey = tuple[str, str, int | None, str | None]
"""(loop path without task ids, node, superstep, effect name): what a repeated start matches."""


def resumed_lines(at_kill: Sequence[EffectLine], after: Sequence[EffectLine]) -> list[EffectLine]:
    """The lines the resume wrote: `after` less the `at_kill` prefix it still holds."""
    return list(after[len(at_kill) :])


def start_lines(lines: Sequence[EffectLine]) -> list[EffectLine]:
    """The lines that begin an effect (the only phase a repeat is counted in)."""
    return [line for line in lines if line.phase == "start"]


def line_place(line: EffectLine) -> namespaces.TaskPlace:
    """Where the line's task ran and its id, whichever form its namespace was logged in (the
    task's own, `node:<task id>`, or the recorder's, stripped of it)."""
    return namespaces.task_namespace(line.checkpoint_ns, line.node, line.task_id)


def loop_path(line: EffectLine) -> str:
    """The node path (no task ids) of the loop the line's task ran in."""
    return namespaces.names(line_place(line).checkpoint_ns)


def repeat_key(line: EffectLine) -> RepeatKey:
    """Where and what the line began, as a repeat of it must match."""
    return (loop_path(line), line.node, line.step, line.effect)


def task_id(line: EffectLine) -> str | None:
    """The line's task id, in its own field or in the task's own logged namespace: what pairs
    a repeat with its original among parallel tasks of one node and step."""
    return line_place(line).task_id


def repeated_starts(at_kill: Sequence[EffectLine], after: Sequence[EffectLine]) -> list[EffectLine]:
    """The starts the resume wrote of effects the killed run had begun already, in log order."""
    begun = {repeat_key(line) for line in start_lines(at_kill)}
    return [
        line for line in start_lines(resumed_lines(at_kill, after)) if repeat_key(line) in begun
    ]


def needs_restart(resume_error: object) -> bool:
    """The resume found no checkpoint (its error is `EmptyInputError`): only a restart goes on."""
    return RESTART_ERROR in str(resume_error or "")


def count_repeats(
    at_kill: Sequence[EffectLine], after: Sequence[EffectLine], *, restart: bool = False
) -> int:
    """How many times the resume (or, with `restart`, the restart it needs) begins an effect
    again: the manifest's `lines_repeated` and the Kill-test runs page's "lines repeated"."""
    if restart:
        return len(start_lines(at_kill))
    return len(repeated_starts(at_kill, after))
