"""Run a graph in a child process and SIGKILL it mid-node: the crash evidence is real, not simulated."""

# The durability modes a campaign can run, in LangGraph's names. Defined here, not in
# `campaign`, so that `replaylens --help` does not import the campaign machinery.
from replaylens.analysis.durability import MODES  # noqa: E402,F401 - light: no campaign machinery
