"""The pytest plugin (registered through the `pytest11` entry point): resume safety as a test.

    def test_payment_resumes_safely(resume_safety):
        resume_safety("myapp.graphs:payment", {"invoice_id": "inv-1"}, kill_at=["charge"])

    @pytest.mark.resume_safe("myapp.graphs:payment", {"invoice_id": "inv-1"}, modes=["sync"])
    def test_payment_marked():
        pass

Both call `replaylens.testing.assert_resume_safe` with the campaign folder under the test's
`tmp_path`; a failure is an `AssertionError` whose message is the table of effects that
happened again, the verdict per node, the campaign's folder and the `replaylens serve`
command that opens it, so `--junitxml` carries all of it to any CI system.

Loading the plugin imports nothing heavy: the campaign machinery is imported on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

MARKER = "resume_safe"
FIXTURE = "resume_safety"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(graph, input=None, **options): kill the graph at each node under each "
        "durability mode, resume it, and fail if a side effect happened again that its "
        "idempotency key does not dedupe (replaylens.testing.assert_resume_safe).",
    )


@pytest.fixture
def resume_safety(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """`resume_safety(graph, input, **options)`: `assert_resume_safe` with the campaign kept
    under this test's `tmp_path` (one folder per call)."""
    from replaylens.testing import assert_resume_safe

    calls = [0]

    def check(graph: Any, input: Any = None, **options: Any) -> Any:  # noqa: A002
        calls[0] += 1
        options.setdefault("out", tmp_path / f"resume-safety-{calls[0]}")
        return assert_resume_safe(graph, input, **options)

    yield check


def pytest_itemcollected(item: pytest.Item) -> None:
    """A marked test asks for the fixture, so the marker's check has a folder of its own."""
    if item.get_closest_marker(MARKER) is not None and isinstance(item, pytest.Function):
        if FIXTURE not in item.fixturenames:
            item.fixturenames.append(FIXTURE)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Run the test's own body, then the marker's check: its failure fails the test."""
    result = yield
    marker = item.get_closest_marker(MARKER)
    if marker is not None and isinstance(item, pytest.Function):
        if not marker.args and "graph" not in marker.kwargs:
            raise pytest.UsageError(
                f"@pytest.mark.{MARKER} needs the graph as 'package.module:attribute'."
            )
        check: Callable[..., Any] = item.funcargs[FIXTURE]  # type: ignore[assignment]
        check(*marker.args, **marker.kwargs)
    return result
