"""Record the real kills `tests/test_durability_subgraphs.py` judges (tests/whatif_kills/).

    python scripts/make_whatif_kills.py [NAME ...]

Each campaign (tests/whatif_kills.py: CAMPAIGNS) runs a langgraph-tests corpus shape under
two durability modes, SIGKILLs it at the shape's kill point and resumes it in a fresh
process. A recording is kept only when every run was killed and, for the slow-store queue,
the async run got exactly as far as the exit run before its kill (the same effect lines);
otherwise it is recorded again, up to five times.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "lib")]

import whatif_kills  # noqa: E402

from replaylens.killtest.corpus import run_progress  # noqa: E402


def acceptable(runs: dict) -> bool:
    if not all(r["killed"] for r in runs.values()):
        return False
    if "async" in runs and "exit" in runs:
        return run_progress(runs["async"]) == run_progress(runs["exit"])
    return True


def main(names: list[str]) -> int:
    for name in names or list(whatif_kills.CAMPAIGNS):
        for attempt in range(1, 6):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp) / name
                runs = whatif_kills.record(name, folder)
                if not acceptable(runs):
                    print(f"{name}: attempt {attempt} not kept (a kill landed elsewhere)")
                    continue
                shutil.rmtree(whatif_kills.ROOT / name, ignore_errors=True)
                shutil.copytree(folder, whatif_kills.ROOT / name)
                print(
                    f"{name}: recorded ({sum(f.stat().st_size for f in folder.rglob('*') if f.is_file()):,} bytes)"
                )
                break
        else:
            print(f"{name}: no acceptable recording in 5 attempts", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
