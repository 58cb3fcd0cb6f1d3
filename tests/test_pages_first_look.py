"""What a first-time user tripped on (issue 29), under streamlit.testing's AppTest.

The app serves the demo folder and the bundled `sample_dbs/` campaigns, as `make run`
does, through REPLAYLENS_SERVE_ARGS (AppTest cannot pass argv).
"""

from __future__ import annotations

import json
from pathlib import Path

import app_pages
import pytest
from streamlit.testing.v1 import AppTest

SAMPLES = Path(__file__).resolve().parents[1] / "sample_dbs"


@pytest.fixture
def served(demo: Path, fresh_streamlit: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(demo), str(SAMPLES)]))


def open_page(page: str, **params: str | list[str]) -> AppTest:
    return app_pages.open_page(page, timeout=90, **params)


def url_values(at: AppTest, name: str) -> list[str]:
    value = at.query_params[name]
    return [value] if isinstance(value, str) else list(value)


def campaign_key(name: str) -> str:
    from replaylens.dashboard.catalog import discover
    from replaylens.paths import AllowList

    cat = discover([SAMPLES], AllowList.build([SAMPLES]))
    return next(c.key for c in cat.campaigns if c.name == name)


# --------------------------------------------------------------------------- 3: campaigns in the URL
@pytest.mark.usefixtures("served")
def test_a_campaign_link_by_its_path_opens_that_campaign() -> None:
    key = campaign_key("payment")
    at = open_page("runs", campaign=key)
    assert at.multiselect(key="campaign").value == [key]
    runs = next(d.value for d in at.dataframe if "campaign" in d.value.columns)
    assert set(runs["campaign"]) == {"payment"}
    assert url_values(at, "campaign") == [key]  # kept by its path, not by its label
    assert not at.warning


@pytest.mark.usefixtures("served")
def test_an_old_label_link_still_opens_its_campaign_and_an_unknown_one_says_so() -> None:
    fanout, linear = campaign_key("fanout"), campaign_key("linear")
    at = open_page("runs", campaign=["fanout (24 runs)", linear])
    assert at.multiselect(key="campaign").value == [fanout, linear]
    assert url_values(at, "campaign") == [fanout, linear]
    at = open_page("runs", campaign="sample_dbs/nowhere")
    assert any("sample_dbs/nowhere" in w.value.replace("\\", "") for w in at.warning)


# --------------------------------------------------------------------------- 9: first paint
def test_first_paint_bench_measures_every_page() -> None:
    """`make first-paint` timed the Thread page only; every page of the navigation is drawn
    (the URLs are built without a server: a base address is enough)."""
    import importlib.util

    from replaylens.dashboard.ui import common

    spec = importlib.util.spec_from_file_location(
        "first_paint", Path(__file__).resolve().parents[1] / "bench" / "first_paint.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    urls = bench.page_urls("http://127.0.0.1:1")
    assert set(urls) == set(common.PAGES)
    assert all(u.startswith(f"http://127.0.0.1:1/{name}") for name, u in urls.items())


@pytest.mark.usefixtures("served")
def test_the_catalogue_is_shared_between_runs_not_copied() -> None:
    """st.cache_data unpickled the whole catalogue (a Path per database) on every run of every
    page before its header was drawn; it is one shared object now."""

    def script() -> None:
        import streamlit as st

        from replaylens.dashboard.ui import common

        st.session_state.setdefault("ids", []).append(id(common.catalog()))

    at = AppTest.from_function(script, default_timeout=60)
    at.run()
    at.run()
    assert not at.exception
    assert len(at.session_state["ids"]) == 2 and len(set(at.session_state["ids"])) == 1
