"""The throw-away server's watchdog: it outlives nothing, and lets nothing outlive the campaign.

Run as ``python -m replaylens.killtest._pgwatch <folder>`` by `PgServer.start`, in the
campaign's own process group, with a pipe as stdin whose other end only the campaign holds.
The campaign writes ``pid <N>`` whenever it starts a postmaster (its process group leader:
the server runs in a session of its own so that `crash()` can kill exactly it). When the
pipe ends (the campaign closed it in `stop()`, or died, even by SIGKILL), the watchdog
kills that group if it is still the server of `<folder>` and removes the folder.

SIGINT and SIGTERM are ignored: a Ctrl+C in the terminal reaches the whole process group,
and the watchdog must still be there to clean up after the campaign is gone.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

GONE_TIMEOUT = 15.0


def _is_server_of(pid: int, folder: Path) -> bool:
    """The process is alive, not a zombie, and a postgres started on `folder` (a reused
    pid of anything else is never signalled)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if stat.rsplit(")", 1)[-1].split()[0] == "Z":
        return False
    return os.fsencode(folder / "data") in cmdline


def _stop(pid: int, folder: Path) -> None:
    """Fast shutdown of the server's group (SIGINT), then SIGKILL if it lingers."""
    for sig, wait in ((signal.SIGINT, GONE_TIMEOUT), (signal.SIGKILL, 5.0)):
        if not _is_server_of(pid, folder):
            return
        try:
            os.killpg(pid, sig)
        except OSError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and _is_server_of(pid, folder):
            time.sleep(0.05)  # the server's exit, polled: nothing else to wait on


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0])
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    pid = 0
    for line in sys.stdin:  # until the campaign closes the pipe or dies
        word, _, value = line.strip().partition(" ")
        if word == "pid" and value.isdigit():
            pid = int(value)
    if pid:
        _stop(pid, folder)
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
