"""Entry point for the resume page; the page itself is `replaylens/dashboard/ui/screens/resume.py`."""

from replaylens.dashboard import run_screen

run_screen("resume")
