"""The what-if on the ninth held-out round: a tool error the prebuilt ToolNode handles.

Judged against real SIGKILLs and real resumes recorded in `tests/whatif_kills/`
(`tests/whatif_kills.py`; `scripts/make_whatif_kills.py` records them again).
"""

from __future__ import annotations

from pathlib import Path

from whatif_kills import every_prediction_holds, load, predict, real


def test_a_tool_error_the_tool_node_handled_ends_nothing(tmp_path: Path) -> None:
    """react_agent_tool_error on a 0.25 s store, killed in the second charge: the first
    charge logged `error`, but ``ToolNode(handle_tool_errors=True)`` turned it into a message
    and the agent went on in the same invocation (under sync, 0.26 s later: the put). The
    thread had one invocation, killed: under exit nothing was saved and the resume starts
    over (5 tasks, 9 lines), not a raise exit would have saved; from every recording, in
    every log form, every mode's prediction holds."""
    runs = load("react_agent_tool_error-early-0.25s", tmp_path)
    assert real(runs["exit"]) == (0, 5, 9)
    every_prediction_holds(runs)
    exit_ = predict(runs["sync"])["exit"]
    assert exit_.checkpoints_kept == 0 and len(exit_.reruns) == 5
