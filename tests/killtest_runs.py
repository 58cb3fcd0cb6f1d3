"""`replaylens killtest` as the tests run it: a separate process with lib/ on its path, and
the JSON-lines files (effects logs, acknowledgements) a campaign leaves behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def run_killtest(
    *args: str, cwd: Path = REPO, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """`python -m replaylens.cli killtest ARGS…`, its output captured as text."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "lib"), str(REPO)])
    return subprocess.run(
        [sys.executable, "-m", "replaylens.cli", "killtest", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )


def jsonl(path: Path) -> list[dict[str, Any]]:
    """Every non-blank line of a JSON-lines file, parsed."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
