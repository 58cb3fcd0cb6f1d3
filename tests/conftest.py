"""Shared fixtures. `corpus`: real checkpoint databases, written once per test session.

Building it runs real graphs, in-process and in child processes killed with SIGKILL
(see tests/corpus.py), which takes tens of seconds: it is session-scoped so that every
test reading a database shares one build.

`pg_cluster` / `pg_dsn`: a throw-away PostgreSQL server for the session, started from
the installed server binaries (tests/pg_server.py) and removed at the end.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
for _path in (REPO_ROOT / "lib", REPO_ROOT):  # `replaylens` and `examples`, uninstalled too
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from pg_server import ENV_BINDIR, PgServer, PgUnavailable, find_bindir, start_server  # noqa: E402

from corpus import Corpus, shared_build, shared_corpus  # noqa: E402

_built: list[Corpus] = []


@pytest.fixture(scope="session", autouse=True)
def _status_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The persistent status cache of every test process (and its children) in a scratch
    folder, never the user's ~/.cache; tests that test the cache set their own."""
    folder = tmp_path_factory.mktemp("status-cache")
    old = os.environ.get("REPLAYLENS_CACHE_DIR")
    os.environ["REPLAYLENS_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("REPLAYLENS_CACHE_DIR", None)
    else:
        os.environ["REPLAYLENS_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Every database of the corpus, described by `CorpusEntry` items: built on first use by
    one test process, read by the others (`shared_corpus`; xdist's workers share the folder
    above their own)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    built = shared_corpus(shared / "corpus")
    _built.append(built)
    return built


_SLOW_FIXTURES = frozenset({"corpus", "demo", "pg_cluster", "pg_dsn"})
"""Fixtures that run real graphs in killed child processes or start a database server."""
_UI_FIXTURES = frozenset({"apptest_env", "fresh_streamlit"})
"""Fixtures that run dashboard pages under Streamlit's AppTest (seconds per page)."""
_BROWSER_FIXTURES = frozenset({"browser", "base_url"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it needs, so `make test-fast` can leave out kills, servers,
    pages and browsers without every module remembering to say so."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        params = getattr(getattr(item, "callspec", None), "params", {})
        if used & _SLOW_FIXTURES or "postgres" in params.values():
            item.add_marker(pytest.mark.slow)
        if used & _UI_FIXTURES or hasattr(getattr(item, "module", None), "AppTest"):
            item.add_marker(pytest.mark.ui)
        if used & _BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how long the corpus took: it is most of the suite's run time."""
    for built in _built:
        terminalreporter.write_line(
            f"corpus: {len(built)} entries built in {built.build_seconds:.1f}s under {built.root}"
        )


# --------------------------------------------------------------------------- postgres
@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgServer]:
    """A throw-away PostgreSQL server for the session (tests/pg_server.py), stopped at the end.

    Without server binaries the Postgres tests skip locally, saying so, but fail under
    CI (`CI` set): a CI run that silently skipped them would claim coverage it lacks.
    Any other start-up failure is a failure everywhere.
    """
    if find_bindir() is None:
        reason = (
            "PostgreSQL server binaries (initdb, postgres) not found; install Debian's "
            f"`postgresql` package or set ${ENV_BINDIR}"
        )
        if os.environ.get("CI"):
            pytest.fail(
                f"{reason} (CI is set, so the Postgres tests may not be skipped).", pytrace=False
            )
        pytest.skip(reason)
    try:
        server = start_server()
    except PgUnavailable as exc:
        pytest.fail(f"cannot start a throw-away PostgreSQL server: {exc}", pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_dsn(pg_cluster: PgServer) -> str:
    """DSN of an empty database on the session's server (`postgresql://...`, with password)."""
    return pg_cluster.create_database("replaylens_test")


@pytest.fixture(autouse=True)
def _effects_log_for_graph_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Graphs run in tests record their effects somewhere private unless a test says where."""
    import os

    if not os.environ.get("REPLAYLENS_EFFECTS_LOG"):
        monkeypatch.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp_path / "effects.jsonl"))


# --------------------------------------------------------------------------- the dashboard
@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo folder (tests/dashboard_data.py): real graphs, real kills, built once per
    session. xdist's workers share one build (`shared_build`), as they share the corpus."""
    from dashboard_data import demo_folder

    if os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("REPLAYLENS_DEMO_DIR"):
        shared = tmp_path_factory.getbasetemp().parent / "demo"
        with shared_build(shared):
            os.environ["REPLAYLENS_DEMO_DIR"] = str(shared)
            return demo_folder()
    return demo_folder()


@pytest.fixture(scope="module")
def base_url(demo: Path) -> Iterator[str]:
    """`replaylens serve` on the demo folder, one server per test module (its caches are the
    module's own, as a fresh server's would be)."""
    from dashboard_data import serving

    with serving([demo]) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium (Playwright cannot download browsers here), one per module."""
    from dashboard_data import CHROMIUM, CHROMIUM_ARGS

    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def fresh_streamlit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A private upload folder and Streamlit's caches cleared before and after the test, so that
    no AppTest sees another's data. Not autouse: `pytest.mark.usefixtures("fresh_streamlit")`."""
    import streamlit as st

    monkeypatch.setenv("REPLAYLENS_UPLOAD_DIR", str(tmp_path / "uploads"))
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def apptest_env(demo: Path, fresh_streamlit: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `replaylens serve DEMO` gives the app, for streamlit.testing's AppTest (which cannot
    pass argv): the served paths through REPLAYLENS_SERVE_ARGS, on a fresh Streamlit.
    Not autouse: a module asks for it with `pytestmark = pytest.mark.usefixtures("apptest_env")`."""
    import json

    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(demo)]))
