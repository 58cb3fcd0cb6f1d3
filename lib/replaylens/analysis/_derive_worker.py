"""The second process of a large status derivation (see `status._derived`).

Started by `status._start_helper` (`main()` with this copy's folder first on the path):
reads one JSON document on stdin
(the database to open, the decryption key, the thread list rows, the batch size), opens
the database read-only itself, derives the rows' statuses batch by batch and writes one
JSON document on stdout. JSON both ways, never pickle: nothing read back can name code to
run. The connection string and key come through the pipe, never the command line.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson


def main() -> int:
    from replaylens.analysis.status import _derive
    from replaylens.sources import ThreadIndexRow, open_source

    job = orjson.loads(sys.stdin.buffer.read())
    key = bytes.fromhex(job["key"]) if job["key"] is not None else None
    rows = [ThreadIndexRow(*r) for r in job["rows"]]
    batch = int(job["batch"])
    source = open_source(job["spec"], aes_key=key)
    out: list[Any] = []
    try:
        for j in range(0, len(rows), batch):
            summaries, problems, cacheable = _derive(source, rows[j : j + batch])
            out.append([[list(s) for s in summaries], problems, sorted(cacheable)])
    finally:
        source.close()
    sys.stdout.buffer.write(orjson.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
