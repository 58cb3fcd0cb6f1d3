"""How a database was recorded, when a kill-test manifest next to it says so.

A campaign folder holds `manifest.json` and `runs/<run>/at-kill.db`; the manifest names
each run's durability mode, checkpoint write latency and kill moment. That is the only
evidence of the recorded mode a checkpoint database can have: the rows themselves do not
carry it. Without a manifest the mode is unknown and every page says so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from replaylens.analysis.durability import MODES, Recording
from replaylens.killtest.manifest import graph_cache


def recording_for(db: str | os.PathLike[str], thread_id: str) -> Recording:
    """The recording of `thread_id` in `db` per the nearest kill-test manifest, else unknown."""
    path = Path(db)
    if not path.is_file():
        return Recording()
    for folder in (path.parent, path.parent.parent, path.parent.parent.parent):
        manifest = folder / "manifest.json"
        if not manifest.is_file():
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return Recording()
        runs = data.get("runs") if isinstance(data, dict) else None
        for run in runs if isinstance(runs, list) else []:
            if (
                not isinstance(run, dict)
                or run.get("thread_id") != thread_id
                or run.get("mode") not in MODES
            ):
                continue
            for key in ("db_at_kill", "db_after_resume"):
                named = run.get(key)
                if isinstance(named, str) and (folder / named).resolve() == path.resolve():
                    delay = run.get(
                        "kill_delay", data.get("kill_delay")
                    )  # newer manifests: per run
                    delay = delay if key == "db_at_kill" and run.get("killed") else None
                    kill_at = run.get("kill_at") or data.get("kill_at")
                    return Recording(
                        run["mode"],
                        float(run.get("put_latency") or 0.0),
                        float(delay) if isinstance(delay, int | float) else None,
                        f"kill-test manifest {manifest}",
                        kill_at.rpartition(":")[0] or kill_at if isinstance(kill_at, str) else None,
                        langgraph=_release(data.get("langgraph")),
                        cached_nodes=graph_cache(run),
                    )
        return Recording()
    return Recording()


def _release(value: object) -> str | None:
    """The manifest's `langgraph` release, where it is a short string."""
    return value if isinstance(value, str) and 0 < len(value) <= 40 else None
