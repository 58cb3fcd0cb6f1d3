"""Run a graph in a child process and SIGKILL it mid-node: the crash evidence is real, not simulated."""

from typing import Any

# The durability modes a campaign can run, in LangGraph's names. Defined here, not in
# `campaign`, so that `replaylens --help` does not import the campaign machinery.
from replaylens.analysis.durability import MODES  # noqa: E402,F401 - light: no campaign machinery

# How a user's graph object (StateGraph, compiled graph or factory) gets a checkpointer:
# one rule for the kill tests and for `--graph` (replaylens.analysis._graph_worker); and a
# further invocation that edits the state (`update_state`) instead of running the graph, or
# that sends a `Command` (goto, update, resume), or that replays from an earlier checkpoint (`fork`).
from replaylens.killtest._child import (  # noqa: E402,F401 - light: stdlib only
    COMMAND,
    FORK,
    UPDATE_STATE,
    build_graph,
    cancel_invocation,
    command,
    fork,
    send,
    state_update,
)

__all__ = [
    "COMMAND",
    "FORK",
    "MODES",
    "UPDATE_STATE",
    "build_graph",
    "cancel_invocation",
    "command",
    "fork",
    "register_killtest",
    "send",
    "state_update",
]


def register_killtest(sub: Any) -> None:
    """Add the `killtest` subcommand to the `replaylens` subparsers (argparse, loaded on use:
    the CLI's other commands never pay for the kill-test options)."""
    from replaylens.killtest._cli import register_killtest as register

    register(sub)
