"""First screen against the bare GROUP BY, alternating in one process (issue 17).

On a shared machine the load changes from minute to minute; timing the two queries one
after the other, several rounds, in the same process, gives a ratio that noise hits on
both sides alike. `.venv/bin/python bench/side_by_side.py DB [ROUNDS]` prints one line per
round and the medians (page cache warm: the first round reads the file).
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from replaylens.dashboard import views  # noqa: E402
from replaylens.sources import open_source  # noqa: E402


def floor(db: str) -> float:
    conn = sqlite3.connect(f"file:{quote(str(Path(db).resolve()))}?mode=ro&immutable=1", uri=True)
    t0 = time.perf_counter()
    conn.execute("SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id").fetchall()
    elapsed = time.perf_counter() - t0
    conn.close()
    return elapsed


def first_screen(db: str) -> tuple[float, float]:
    t0 = time.perf_counter()
    source = open_source(db)
    index = source.thread_index()
    source.close()
    t1 = time.perf_counter()
    views.table_page(views.listing_rows(index, {}), 1)[1]
    return t1 - t0, time.perf_counter() - t0


def main(db: str, rounds: int) -> None:
    got: list[tuple[float, float, float]] = []
    for i in range(rounds):
        f = floor(db)
        idx, screen = first_screen(db)
        got.append((f, idx, screen))
        print(
            f"round {i + 1}: GROUP BY {f:.3f} s, thread_index {idx:.3f} s ({idx / f:.1f}x), "
            f"first screen with table {screen:.3f} s ({screen / f:.1f}x)",
            flush=True,
        )
    f, idx, screen = (statistics.median(x[k] for x in got[1:] or got) for k in range(3))
    print(
        f"median of rounds 2-{rounds}: GROUP BY {f:.3f} s, thread_index {idx:.3f} s ({idx / f:.1f}x), "
        f"first screen {screen:.3f} s ({screen / f:.1f}x)"
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5)
