"""The Streamlit dashboard, shipped inside the package so an installed wheel serves it.

Two layers live here, and only the first imports Streamlit:

- `ui/`: `ui/app.py` (the entry script `replaylens serve` hands to Streamlit),
  `ui/common.py` (the glue every page shares) and `ui/screens/` (one script per page:
  read widgets, call the core, draw). A test fails if Streamlit is imported elsewhere.
- Everything the pages show is computed without Streamlit, in plain modules tested as
  functions: `catalog` (what can be opened), `config` (the `serve` arguments), `views`
  (tables), `campaigns` (kill-test comparisons), `learn` (the superstep lesson),
  `report`, `text` (escaping for each renderer) and `loading`.

Importing this package imports no Streamlit, so the CLI can find the app cheaply.
"""

from __future__ import annotations

import runpy
from pathlib import Path

APP = Path(__file__).parent / "ui" / "app.py"
"""The Streamlit entry script, wherever the package is installed."""
SCREENS = Path(__file__).parent / "ui" / "screens"
"""One Streamlit script per page."""


def screen_path(name: str) -> Path:
    """The script of one page (`threads`, `thread`, `resume`, `runs`, `learn`)."""
    return SCREENS / f"{name}.py"


def run_screen(name: str) -> None:
    """Execute one page's script afresh, as Streamlit does on every rerun.

    The repository's top-level `pages/` files call this, so they stay entry points over
    the package rather than a second copy of each page.
    """
    runpy.run_path(str(screen_path(name)), run_name="__main__")
