"""The app under streamlit.testing's AppTest: open one page with a query string, and read
what a person reads on it. (The `apptest_env` fixture in conftest.py points the app at the
test data.)"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from replaylens.dashboard import APP


def open_page(page: str, /, *, timeout: float = 60, **params: str | list[str]) -> AppTest:
    """Run app.py with the query string, switch to `page`, run it; no exception allowed.
    `timeout`: the seconds each run of the script may take (AppTest's default_timeout)."""
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.query_params.update(params)
    at.switch_page(
        f"screens/{page}.py"
    )  # url_path == file name, so this works before the first run
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(at: AppTest, kind: str) -> str:
    """The text of one kind of element (`info`, `warning`, ...), one element a line."""
    return "\n".join(str(e.value) for e in getattr(at, kind)).replace("\\", "")


def texts(at: AppTest) -> str:
    """Everything a person reads on the page (markdown, captions, alerts, metric labels)."""
    parts: list[str] = []
    for kind in (
        "markdown",
        "caption",
        "error",
        "warning",
        "info",
        "success",
        "title",
        "subheader",
        "text",
    ):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    return "\n".join(parts).replace("\\", "")
