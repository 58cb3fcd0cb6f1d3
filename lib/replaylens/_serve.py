"""`replaylens serve`: start the dashboard on the given databases and folders.

It runs `python -m streamlit run app.py` in a child process with the arguments passed
through after `--`; app.py parses them again with the same grammar
(`replaylens.dashboard.config`), so the two ends cannot drift apart. Streamlit is imported
only by that child, so the rest of the CLI stays quick.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from replaylens.dashboard import config as ui_config

LOCALHOST = "127.0.0.1"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def app_path() -> Path:
    """The dashboard's entry script, inside the installed package."""
    from replaylens.dashboard import APP

    return APP


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
    p.add_argument("--host", "--address", dest="host", default=LOCALHOST, metavar="HOST",
                   help="Listen on this address (default 127.0.0.1, this machine only). The dashboard has no "
                        "login: another address lets anyone who reaches the port read every thread.")  # fmt: skip
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
    cmd += ["--server.address", getattr(args, "host", None) or LOCALHOST]
    passthrough = [os.path.abspath(p) for p in args.paths if not ui_config.is_dsn(p)]
    if args.effects:
        passthrough += ["--effects", os.path.abspath(args.effects)]
    for folder in args.allow:
        passthrough += ["--allow", os.path.abspath(folder)]
    if getattr(args, "no_cache", False):
        passthrough.append("--no-cache")
    for graph in getattr(args, "graph", None) or []:
        passthrough += ["--graph", graph]
    return cmd + ["--", *passthrough]


def run_serve(args: argparse.Namespace) -> int:
    """Check the paths first (a clear sentence beats a blank page), then run Streamlit."""
    from replaylens.errors import ReplaylensError

    for p in args.paths:
        if not ui_config.is_dsn(p) and not os.path.exists(p):
            raise ReplaylensError(
                f"{p}: no such file or folder; give a database, a campaign folder or a folder of them."
            )
    if args.effects and not os.path.isfile(args.effects):
        raise ReplaylensError(f"{args.effects}: no such effects log.")
    if not app_path().is_file():
        raise ReplaylensError(
            f"{app_path()}: the dashboard's app.py is missing from this installation."
        )
    host = args.host or LOCALHOST
    shown = f"[{host}]" if ":" in host else host
    print(f"replaylens: serving on http://{shown}:{args.port} (Ctrl+C stops it)", file=sys.stderr)
    if host not in LOOPBACK:
        print(
            f"replaylens: listening on {host}, not only this machine. The dashboard has no login: anyone "
            "who can reach this port can read every thread, message and document in the evidence.",
            file=sys.stderr,
        )
    dsns = serve_dsns(args)
    env = {**os.environ, ui_config.ENV_DSNS: json.dumps(dsns)} if dsns else None
    return run_child(build_command(args), env)


def serve_dsns(args: argparse.Namespace) -> list[str]:
    """Every connection string to serve: given as PATH (`env:NAME` resolved) or in a --dsn-file.

    They reach the Streamlit child through its environment (readable by this user only,
    /proc/<pid>/environ is mode 0400), never through its argv, which every user can read."""
    from replaylens import dsn

    found: list[str] = []
    try:
        for p in args.paths:
            if ui_config.is_dsn(p):
                found.append(dsn.resolve(p))
        for f in getattr(args, "dsn_file", None) or []:
            found.append(dsn.from_file(f))
        for d in found:
            dsn.check_syntax(d)
    except dsn.DsnError as exc:
        from replaylens.errors import ReplaylensError

        raise ReplaylensError(str(exc)) from None
    return list(dict.fromkeys(found))


def run_child(cmd: list[str], env: dict[str, str] | None) -> int:
    """Run Streamlit and stop it with us: SIGTERM and SIGINT are passed on to the child.

    Without this, `kill` of `replaylens serve` leaves the Streamlit server running with
    the evidence still open on its port.
    """
    child = subprocess.Popen(cmd, cwd=os.getcwd(), env=env)

    def forward(signum: int, _frame: object) -> None:
        if child.poll() is None:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while True:
            try:
                code = child.wait()
                break
            except KeyboardInterrupt:  # a second Ctrl+C while the child shuts down
                forward(signal.SIGINT, None)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0 if code in (-signal.SIGTERM, -signal.SIGINT) else code
