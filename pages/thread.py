"""Entry point for the thread page; the page itself is `replaylens/dashboard/ui/screens/thread.py`."""

from replaylens.dashboard import run_screen

run_screen("thread")
