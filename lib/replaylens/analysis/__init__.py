"""Analysis: next tasks, thread status, resume plan, effects alignment, verdicts, what-ifs."""
