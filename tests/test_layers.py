"""The architecture's layers, checked on the source: only `dashboard/ui/` imports Streamlit."""

from __future__ import annotations

import ast
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib" / "replaylens"
UI = LIB / "dashboard" / "ui"


def _imported_roots(path: Path) -> set[str]:
    """Top-level module names one file imports, at module level or inside functions."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_streamlit_is_imported_only_inside_dashboard_ui() -> None:
    outside = sorted(
        str(path.relative_to(LIB))
        for path in LIB.rglob("*.py")
        if UI not in path.parents and "streamlit" in _imported_roots(path)
    )
    assert outside == []


def test_the_ui_layer_does_import_streamlit() -> None:
    """The check above reads real imports: the layer that draws must show up in it."""
    assert "streamlit" in _imported_roots(UI / "data.py")
