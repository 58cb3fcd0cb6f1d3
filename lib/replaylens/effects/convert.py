"""`replaylens effects convert FILE --out effects.jsonl`: any evidence `read_effects` takes (a
trace, a compressed log) written as the ordinary effects log, for a bundle or a review.

Each line is what `read_effects` made of the file, numbered as it numbers them, so the
converted log gives the same verdicts line for line; a trace's span and trace ids stay as
extra keys.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import orjson

from replaylens.effects.parse import EffectsLog, read_effects
from replaylens.errors import ReplaylensError


def write_log(log: EffectsLog, out: str | os.PathLike[str]) -> int:
    """Write the log's lines as JSON Lines to `out` (a new file); return how many."""
    target = Path(out)
    data = b"".join(
        orjson.dumps({k: v for k, v in e.to_json().items() if k != "line"}) + b"\n"
        for e in log.lines
    )
    try:
        with open(target, "xb") as fh:  # never over an existing file: it may be the evidence
            fh.write(data)
    except FileExistsError:
        raise ReplaylensError(f"{target}: already exists; give a new file to --out.") from None
    except OSError as exc:
        raise ReplaylensError(f"{target}: cannot be written ({exc.strerror or exc}).") from None
    return len(log.lines)


def cmd_convert(args: argparse.Namespace) -> int:
    from replaylens.cli import safe  # the terminal's escaper

    log = read_effects(args.file)
    for note in log.notes:
        print(f"note: {safe(note)}", file=sys.stderr)
    for problem in log.problems:
        print(f"warning: {safe(problem)}", file=sys.stderr)
    if Path(args.out).resolve() == Path(args.file).resolve():
        raise ReplaylensError(f"{args.out}: is the file being read; give another file to --out.")
    count = write_log(log, args.out)
    print(f"wrote {count} effects-log lines from {safe(log.source)} to {safe(args.out)}")
    for limit in log.limits:
        print(f"what it cannot show: {safe(limit)}")
    return 0


def register_effects(sub: Any) -> None:
    """Add `effects convert` to the `replaylens` subparsers."""
    p = sub.add_parser(
        "effects",
        help="Work with effects evidence: convert a trace (OTLP, LangSmith, Langfuse) to an effects log.",
    )
    inner = p.add_subparsers(dest="effects_command", metavar="COMMAND")
    c = inner.add_parser(
        "convert",
        help="Write the ordinary effects log (JSON Lines) a trace or compressed log gives.",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    c.add_argument("file", help="A trace or effects log: anything --effects takes.")
    c.add_argument("--out", required=True, help="The effects log to write (a new file).")
    c.set_defaults(func=cmd_convert)
