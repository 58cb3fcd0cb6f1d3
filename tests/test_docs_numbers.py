"""Every figure docs/performance.md quotes is one that bench/RESULTS.md holds.

RESULTS.md keeps only the latest run of each benchmark (each script rewrites its own
section), so a figure of the page that RESULTS.md does not hold is one no current run
produced: an older run's, or a typo. Text only, no benchmark is run.

A figure is a number with a decimal point or thousands separators (`0.37`, `10,240`) or a
number followed by a unit (`127 MB`, `7.2x`, `87%`, `15 min`). Thousands separators are
dropped on both sides before comparing; a figure with a unit must appear with that unit.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "performance.md"
RESULTS = ROOT / "bench" / "RESULTS.md"

# Phrases of the page that are not measurements, removed before figures are looked for:
# targets and settings the page states, which no run produces.
NOT_MEASURED = [
    "< 3 s",  # the first-paint target
    "From 20,000 threads on",  # PARALLEL_MIN_THREADS in replaylens.analysis.status
]

UNITS = r"runs/s|ms|µs|us|s|min|kB|KB|MB|GB|GiB|cores|%|x"
FIGURE = re.compile(
    r"(?<![\w.,])"  # not inside a longer number or a word ("2.50-2.60 s" is two figures)
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)*|\d+(?:\.\d+)*)"
    rf"(?:(?P<space>\s?)(?P<unit>{UNITS})(?![\w/]))?"
    r"(?![\d,]\d)"
)
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def figures(text: str) -> list[tuple[int, str, str, str]]:
    """(line, as written, number without separators, unit) for every figure of `text`."""
    found = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for phrase in NOT_MEASURED:
            line = line.replace(phrase, " ")
        for m in FIGURE.finditer(line):
            num, unit = m["num"], m["unit"] or ""
            if unit == "x" and m["space"]:
                unit = ""  # "10 x 3 rounds": a multiplication sign, not a ratio
            if not unit and "," not in num and "." not in num:
                continue  # a bare integer (a count, a step, a year): not a figure
            found.append((lineno, m.group(0), THOUSANDS.sub("", num), unit))
    return found


def held(results: str, num: str, unit: str) -> bool:
    """Whether the normalised RESULTS.md text holds this number (with this unit)."""
    after = rf"\s?{re.escape(unit)}(?![A-Za-z])" if unit else r"(?!\d|\.\d)"
    return re.search(rf"(?<![\d.]){re.escape(num)}{after}", results) is not None


def test_the_extraction_sees_figures_and_skips_what_is_not_one() -> None:
    got = [(w, n, u) for _, w, n, u in figures("0.37 s warm, 7.2x, 127 MB, 10,240 threads")]
    assert got == [("0.37 s", "0.37", "s"), ("7.2x", "7.2", "x"), ("127 MB", "127", "MB"),
                   ("10,240", "10240", "")]  # fmt: skip
    assert [w for _, w, _, _ in figures("2.50-2.60 s, 3-4x")] == ["2.50", "2.60 s", "4x"]
    assert figures("step 3 of 2026-12-02 06:18, 100k threads, < 3 s, 10 x 3 rounds") == []
    assert held("took 0.37 s", "0.37", "s")
    assert not held("took 10.37 s", "0.37", "s")
    assert not held("took 0.37 ms", "0.37", "s")
    assert not held("took 0.375 s", "0.37", "s")


def test_every_figure_of_performance_md_is_in_results_md() -> None:
    results = THOUSANDS.sub("", RESULTS.read_text())
    found = figures(DOC.read_text())
    assert len(found) > 30, "the extraction found almost nothing: is the pattern broken?"
    missing = [f"line {line}: {written}" for line, written, num, unit in found
               if not held(results, num, unit)]  # fmt: skip
    assert not missing, (
        f"{len(missing)} of the {len(found)} figures of docs/performance.md are not in "
        "bench/RESULTS.md (rerun the benchmark, or quote what its latest run printed):\n"
        + "\n".join(missing)
    )
