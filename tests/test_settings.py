"""Settings are declared once (replaylens.settings) and docs/settings.md lists exactly them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from replaylens import settings

REPO = Path(__file__).resolve().parents[1]
LIB = REPO / "lib" / "replaylens"


def _sources() -> dict[Path, str]:
    return {p: p.read_text() for p in LIB.rglob("*.py")}


def test_every_environment_variable_in_the_code_is_declared() -> None:
    used = {
        m
        for text in _sources().values()
        for m in re.findall(r"\b(?:REPLAYLENS|LANGGRAPH)_[A-Z_]*[A-Z]\b", text)
    }
    # Prefixes the kill-test runner strips from a child's environment are not variables.
    used -= {"REPLAYLENS_EXAMPLE_"}
    assert used, "the scan found no variable at all: the pattern is broken"
    assert used <= set(settings.BY_NAME), (
        f"read but not declared in replaylens.settings: {sorted(used - set(settings.BY_NAME))}"
    )


def test_only_the_settings_module_reads_the_environment() -> None:
    readers = {
        p.relative_to(LIB).as_posix()
        for p, text in _sources().items()
        if re.search(r"os\.environ\.get\(|os\.getenv\(|os\.environ\[[^\]]+\](?!\s*=)", text)
    }
    assert readers <= {"settings.py", "killtest/_runner.py"}, readers


def test_readme_lists_the_settings_table() -> None:
    assert settings.markdown_table() in (REPO / "docs" / "settings.md").read_text()


def test_a_setting_that_is_not_a_number_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLAYLENS_EXAMPLE_SLEEP", "soon")
    assert settings.get_float("REPLAYLENS_EXAMPLE_SLEEP", 0.0) == 0.0
    monkeypatch.setenv("REPLAYLENS_EXAMPLE_SLEEP", " 0.5 ")
    assert settings.get_float("REPLAYLENS_EXAMPLE_SLEEP", 0.0) == 0.5
