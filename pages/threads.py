"""Entry point for the threads page; the page itself is `replaylens/dashboard/ui/screens/threads.py`."""

from replaylens.dashboard import run_screen

run_screen("threads")
