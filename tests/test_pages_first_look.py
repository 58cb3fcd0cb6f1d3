"""What a first-time user tripped on (issue 29), under streamlit.testing's AppTest.

The app serves the demo folder and the bundled `sample_dbs/` campaigns, as `make run`
does, through REPLAYLENS_SERVE_ARGS (AppTest cannot pass argv).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from replaylens.dashboard import APP

SAMPLES = Path(__file__).resolve().parents[1] / "sample_dbs"


@pytest.fixture
def served(demo: Path, fresh_streamlit: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(demo), str(SAMPLES)]))


def open_page(page: str, **params: str | list[str]) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(f"screens/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


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
