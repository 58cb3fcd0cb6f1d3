"""`replaylens serve`: start the dashboard (filled in with the dashboard issue)."""

from __future__ import annotations

import argparse
from typing import Any


def register_serve(sub: Any) -> None:
    """Add the `serve` subcommand to the CLI's subparsers."""
    p = sub.add_parser("serve", help="Start the dashboard on the given databases and folders.")
    p.add_argument("paths", nargs="*", help="Databases, campaign folders or folders to serve.")
    p.set_defaults(func=_not_yet)


def _not_yet(args: argparse.Namespace) -> int:
    raise SystemExit("replaylens: the dashboard is not built yet.")
