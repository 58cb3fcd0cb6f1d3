"""`replaylens serve`: start the dashboard on the given databases and folders.

It runs `python -m streamlit run app.py` in a child process with the arguments passed
through after `--`; app.py parses them again with the same grammar
(`replaylens.ui.config`), so the two ends cannot drift apart. Streamlit is imported
only by that child, so the rest of the CLI stays quick.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from replaylens.ui import config as ui_config


def app_path() -> Path:
    """app.py sits at the repository root, next to lib/."""
    return Path(__file__).resolve().parents[2] / "app.py"


def register_serve(sub: Any) -> None:
    """Add the `serve` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "serve",
        help="Start the dashboard on the given databases and folders.",
        description=(
            "Start the replaylens dashboard in your browser. It lists every checkpoint database found in "
            "the given paths (and kill-test campaign folders with a manifest.json), opens them read-only, "
            "and shows for each thread where a resume would start and which side effects would happen "
            "twice. Only files inside the allowed folders can be opened, also from a pasted URL: the "
            "working folder, sample_dbs/, every PATH given and every --allow folder."
        ),
    )
    ui_config.add_arguments(p)
    p.add_argument("--port", type=int, default=8501, metavar="N",
                   help="Serve the dashboard on this port (default 8501).")  # fmt: skip
    p.add_argument("--address", default=None, metavar="HOST",
                   help="Listen on this address (default: Streamlit's, all interfaces).")  # fmt: skip
    p.set_defaults(func=run_serve)


def build_command(args: argparse.Namespace) -> list[str]:
    """The streamlit command line for these arguments (separate, so it can be tested)."""
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(app_path()),
        "--server.port", str(args.port),
        "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
        "--server.maxUploadSize", str(ui_config.MAX_UPLOAD_MB),
        "--server.fileWatcherType", "none",
        "--client.toolbarMode", "minimal",
    ]  # fmt: skip
    if getattr(args, "address", None):
        cmd += ["--server.address", args.address]
    passthrough = [os.path.abspath(p) for p in args.paths if not ui_config.is_dsn(p)]
    if args.effects:
        passthrough += ["--effects", os.path.abspath(args.effects)]
    for folder in args.allow:
        passthrough += ["--allow", os.path.abspath(folder)]
    return cmd + ["--", *passthrough]


def run_serve(args: argparse.Namespace) -> int:
    """Check the paths first (a clear sentence beats a blank page), then run Streamlit."""
    from replaylens.errors import ReplaylensError

    for p in args.paths:
        if not ui_config.is_dsn(p) and not os.path.exists(p):
            raise ReplaylensError(f"{p}: no such file or folder; give a database, a campaign folder or a folder of them.")
    if args.effects and not os.path.isfile(args.effects):
        raise ReplaylensError(f"{args.effects}: no such effects log.")
    if not app_path().is_file():
        raise ReplaylensError(f"{app_path()}: the dashboard's app.py is missing from this installation.")
    print(f"replaylens: serving on http://localhost:{args.port} (Ctrl+C stops it)", file=sys.stderr)
    try:
        dsns = [p for p in args.paths if ui_config.is_dsn(p)]
        env = {**os.environ, ui_config.ENV_DSNS: json.dumps(dsns)} if dsns else None
        return subprocess.call(build_command(args), cwd=os.getcwd(), env=env)
    except KeyboardInterrupt:
        return 130
