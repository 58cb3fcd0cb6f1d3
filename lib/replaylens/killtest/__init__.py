"""Run a graph in a child process and SIGKILL it mid-node: the crash evidence is real, not simulated."""
