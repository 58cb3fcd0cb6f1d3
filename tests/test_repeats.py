"""`replaylens.effects.repeats`: the one count of effects a resume began again.

The kill tests check it against real campaigns (tests/test_killtest.py); here each rule of
the definition is pinned on lines written in the recorder's own JSON form.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from replaylens.effects.parse import EffectLine, read_effects
from replaylens.effects.repeats import count_repeats, needs_restart, repeated_starts


def _log(tmp_path: Path, name: str, *lines: dict[str, Any]) -> list[EffectLine]:
    path = tmp_path / name
    path.write_text("".join(json.dumps({"thread_id": "t", "ts": 1.0, **ln}) + "\n" for ln in lines))
    return read_effects(path).for_thread("t")


def _start(node: str, step: int, effect: str, **extra: Any) -> dict[str, Any]:
    return {"node": node, "step": step, "phase": "start", "effect": effect, **extra}


def _end(node: str, step: int, effect: str, **extra: Any) -> dict[str, Any]:
    return {**_start(node, step, effect, **extra), "phase": "end"}


KILLED = (_start("a", 1, "charge"), _end("a", 1, "charge"), _start("b", 2, "mail"))


def test_only_starts_of_effects_begun_before_the_kill_count(tmp_path: Path) -> None:
    """The resume re-runs a (its end line is an outcome, not a second effect) and b, and
    then runs c for the first time: two repeats, not three or five."""
    at_kill = _log(tmp_path, "kill.jsonl", *KILLED)
    after = _log(
        tmp_path, "after.jsonl", *KILLED,
        _start("a", 1, "charge"), _end("a", 1, "charge"),
        _start("b", 2, "mail"), _end("b", 2, "mail"),
        _start("c", 3, "ship"), _end("c", 3, "ship"),
    )  # fmt: skip
    assert [(ln.node, ln.phase) for ln in repeated_starts(at_kill, after)] == [
        ("a", "start"),
        ("b", "start"),
    ]
    assert count_repeats(at_kill, after) == 2


def test_another_effect_or_step_of_the_same_node_is_not_a_repeat(tmp_path: Path) -> None:
    at_kill = _log(tmp_path, "kill.jsonl", *KILLED)
    after = _log(tmp_path, "after.jsonl", *KILLED, _start("b", 2, "sms"), _start("b", 4, "mail"))
    assert count_repeats(at_kill, after) == 0


def test_a_subgraph_task_re_run_under_a_new_task_id_is_a_repeat(tmp_path: Path) -> None:
    """A task re-run from an earlier checkpoint gets a new id, and so does the namespace its
    subgraph's nodes log: the loop path (`sub`) is what matches, not the id."""
    inner = _start("inner", 1, "charge", checkpoint_ns="sub:1f0a")
    at_kill = _log(tmp_path, "kill.jsonl", inner)
    again = {**inner, "checkpoint_ns": "sub:9c2b"}
    elsewhere = {**inner, "checkpoint_ns": "other:1f0a"}
    after = _log(tmp_path, "after.jsonl", inner, again, elsewhere)
    assert [ln.checkpoint_ns for ln in repeated_starts(at_kill, after)] == ["sub:9c2b"]


def test_a_resume_that_needs_a_restart_begins_every_effect_again(tmp_path: Path) -> None:
    """No checkpoint: the failed resume wrote nothing, and its 0 would be the reassuring
    answer; the restart it calls for begins a and b again."""
    at_kill = _log(tmp_path, "kill.jsonl", *KILLED)
    error = "EmptyInputError: Received no input for __start__"
    assert needs_restart(error) and not needs_restart(None) and not needs_restart("Timeout")
    assert count_repeats(at_kill, at_kill) == 0
    assert count_repeats(at_kill, at_kill, restart=needs_restart(error)) == 2
