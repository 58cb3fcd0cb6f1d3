"""Shared fixtures. `corpus`: real checkpoint databases, written once per test session.

Building it runs real graphs, in-process and in child processes killed with SIGKILL
(see tests/corpus.py), which takes tens of seconds: it is session-scoped so that every
test reading a database shares one build.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
for _path in (REPO_ROOT / "lib", REPO_ROOT):  # `replaylens` and `examples`, uninstalled too
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from corpus import Corpus, build_corpus  # noqa: E402

_built: list[Corpus] = []


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Every database of the corpus, described by `CorpusEntry` items (built on first use)."""
    built = build_corpus(tmp_path_factory.mktemp("corpus"))
    _built.append(built)
    return built


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how long the corpus took: it is most of the suite's run time."""
    for built in _built:
        terminalreporter.write_line(
            f"corpus: {len(built)} entries built in {built.build_seconds:.1f}s under {built.root}"
        )
