"""A command pays for its own work only: `replaylens threads` does not build the kill-test,
validation or serve parsers (they import the durability model and the dashboard settings),
nor the bundle module when no zip is named, nor the Postgres reader for a SQLite file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOT_FOR_THREADS = (
    "replaylens.killtest",
    "replaylens.analysis.durability",
    "replaylens._serve",
    "replaylens.bundle",
    "replaylens.sources._postgres",
)


def _imported(*args: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "lib"))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "replaylens.cli", *args],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_threads_imports_only_what_it_uses() -> None:
    mods = _imported(
        "threads", str(REPO / "sample_dbs" / "payment-approved.db"), "--json", "--no-effects"
    )
    assert "replaylens.analysis.status" in mods  # it did its work
    assert not [m for m in mods if m.startswith(NOT_FOR_THREADS)]


def test_the_full_help_still_lists_every_command() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "lib"))
    out = subprocess.run([sys.executable, "-m", "replaylens.cli", "--help"], capture_output=True, text=True,
                         env=env, cwd=REPO, timeout=120).stdout  # fmt: skip
    for command in ("threads", "storage", "bundle", "killtest", "validate", "serve"):
        assert command in out
