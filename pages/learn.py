"""Entry point for the learn page; the page itself is `replaylens/dashboard/ui/screens/learn.py`."""

from replaylens.dashboard import run_screen

run_screen("learn")
