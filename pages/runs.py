"""Entry point for the runs page; the page itself is `replaylens/dashboard/ui/screens/runs.py`."""

from replaylens.dashboard import run_screen

run_screen("runs")
