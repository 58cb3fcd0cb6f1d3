"""Issue 14 under AppTest and the CLI: symlinks, one bad row, 30,000 threads, small holes.

Every database is a real LangGraph file (tests/hardening_data.py). The browser half of
these checks (a pasted URL in real Chromium, the DOM, every request) is in
test_hardening_browser.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import streamlit as st
from app_pages import open_page
from hardening_data import HUGE_DIGITS, bad_rows_db, linear_db, many_threads_db
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

from replaylens.dashboard import APP
from replaylens.sources._base import INT64, MAX_METADATA_DEPTH, parse_metadata

REPO = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.usefixtures("fresh_streamlit")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """served/ (real.db, links in and out) beside outside/secret.db; bad.db; long.db."""
    root = tmp_path_factory.mktemp("hardening")
    served, outside = root / "served", root / "outside"
    linear_db(served / "real.db", ["inside-thread"])
    linear_db(outside / "secret.db", ["secret-thread"])
    (served / "link-out.db").symlink_to("../outside/secret.db")
    (served / "link-in.db").symlink_to("real.db")
    (served / "passwd.db").symlink_to("/etc/passwd")
    (served / "environ.db").symlink_to("/proc/self/environ")
    os.mkfifo(served / "fifo.db")
    bad_rows_db(root / "bad" / "bad.db")
    linear_db(root / "long" / "long.db", ["L" * 100_000, "short"])
    return root


def run_page(
    monkeypatch: pytest.MonkeyPatch, served: list[Path], screen: str, **params: str
) -> AppTest:
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(p) for p in served]))
    return open_page(screen, timeout=120, **params)


def shown_text(at: AppTest) -> str:
    parts: list[str] = []
    for kind in ("markdown", "caption", "error", "warning", "info", "text"):
        parts += [str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts).replace("\\", "")


def table_threads(at: AppTest) -> list[str]:
    return [
        str(t) for df in (d.value for d in at.dataframe) if "thread" in df for t in df["thread"]
    ]


# -- 1. symbolic links -------------------------------------------------------------------
def test_links_pointing_outside_are_not_listed(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = run_page(monkeypatch, [data / "served"], "threads")
    options = at.selectbox(key="_sel_db").options
    joined = " ".join(options)
    assert "real.db" in joined
    for name in ("link-out", "passwd", "environ", "fifo"):
        assert name not in joined, options
    assert "secret-thread" not in table_threads(at)
    assert "point outside the folders this app may read" in shown_text(at)


@pytest.mark.parametrize("name", ["link-out.db", "passwd.db", "environ.db"])
def test_a_url_naming_a_link_out_is_refused(
    data: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """By absolute path and by the key the catalogue used to list it under."""
    for asked in (str(data / "served" / name), name):
        at = run_page(monkeypatch, [data / "served"], "threads", db=asked)
        assert "secret-thread" not in table_threads(at)
        assert at.query_params.get("db") != asked
        if asked.startswith("/"):
            assert any("refused" in e.value.replace("\\", "") for e in at.error), shown_text(at)


def test_a_link_that_stays_inside_opens_as_its_target(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = run_page(monkeypatch, [data / "served"], "threads", db=str(data / "served" / "link-in.db"))
    assert table_threads(at) == ["inside-thread"]
    assert str(at.query_params["db"]).endswith("served/real.db")


def test_a_listed_file_swapped_for_a_link_out_is_refused_when_opened(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalogue is cached for 15 s; the file is checked again when it is opened."""
    served = tmp_path / "swap"
    linear_db(served / "x.db", ["x-thread"])
    first = run_page(monkeypatch, [served], "threads", db=str(served / "x.db"))
    assert table_threads(first) == ["x-thread"]
    (served / "x.db").unlink()
    (served / "x.db").symlink_to(data / "outside" / "secret.db")
    st.cache_resource.clear()  # the open source, not the catalogue
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params.update(db=str(served / "x.db"))
    at.switch_page("screens/threads.py")
    at.run()
    assert "secret-thread" not in table_threads(at)


# -- 4. one bad row ----------------------------------------------------------------------
def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib")}
    return subprocess.run([sys.executable, "-m", "replaylens.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)  # fmt: skip


def test_cli_threads_loads_the_rest_beside_one_bad_row(data: Path) -> None:
    out = cli("threads", str(data / "bad" / "bad.db"), "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    rows = {r["thread_id"]: r for r in json.loads(out.stdout)}
    assert set(rows) == {"good-1", "deep", "huge", "good-2"}
    assert rows["good-1"]["latest_step"] == 4 and rows["huge"]["latest_step"] is None
    lines = out.stderr.strip().splitlines()
    assert any("thread deep" in line and "nested too deeply" in line for line in lines), out.stderr
    assert any("thread huge" in line and f"{HUGE_DIGITS:,} digits" in line for line in lines), (
        out.stderr
    )


@pytest.mark.parametrize("thread", ["deep", "huge"])
def test_cli_thread_of_the_bad_row_loads(data: Path, thread: str) -> None:
    out = cli("thread", str(data / "bad" / "bad.db"), "--thread", thread, "--json")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert len(json.loads(out.stdout)["checkpoints"]) == 6


@pytest.mark.parametrize("page", ["threads", "thread", "resume"])
def test_pages_load_the_rest_beside_one_bad_row(
    data: Path, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    db = str(data / "bad" / "bad.db")
    for thread in ("good-1", "deep", "huge"):
        at = run_page(monkeypatch, [data / "bad"], page, db=db, thread=thread)
        assert not [e.value for e in at.error if "could not be drawn" in e.value], [
            e.value for e in at.error
        ]
        if page == "threads":
            assert set(table_threads(at)) == {"good-1", "deep", "huge", "good-2"}
            break
        assert at.selectbox(key="_sel_thread").value == thread


json_leaf = (
    hs.none() | hs.booleans() | hs.integers() | hs.floats(allow_nan=False) | hs.text(max_size=8)
)
json_value = hs.recursive(json_leaf, lambda c: hs.lists(c, max_size=3) | hs.dictionaries(hs.text(max_size=4), c, max_size=3),
                          max_leaves=30)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(value=json_value, depth=hs.integers(0, 3 * MAX_METADATA_DEPTH), big=hs.integers(0, 4200))
def test_parse_metadata_never_raises_and_output_serializes(
    value: object, depth: int, big: int
) -> None:
    """Whatever one row holds: a dict out, at most one sentence per problem, and output
    that orjson (the --json writer) and 64-bit columns accept."""
    wrapped: object = value
    for _ in range(depth):
        wrapped = [wrapped]
    doc = {"step": 10**big, "x": wrapped}
    raw = json.dumps(doc)
    problems: list[str] = []
    meta = parse_metadata(raw, "checkpoint c", problems)
    assert isinstance(meta, dict)
    orjson.dumps(meta)
    step = meta.get("step")
    assert step is None or (isinstance(step, int) and -INT64 <= step < INT64)
    if 10**big >= INT64 or depth + 1 > MAX_METADATA_DEPTH:
        assert problems and all(p.startswith("checkpoint c: ") for p in problems)
    if problems:
        assert all(p.count(".") >= 1 and "\n" not in p for p in problems)


def test_parse_metadata_garbage_bytes() -> None:
    for raw in (b"\xff\xfe", b"{", b"[1]", b"1e999999", "{" * 5000, '{"a":' + "[" * 200_000):
        problems: list[str] = []
        assert isinstance(parse_metadata(raw, "row 7", problems), dict)
        assert len(problems) == 1 and problems[0].startswith("row 7: ")


# -- 5. 30,000 threads -------------------------------------------------------------------
@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return many_threads_db(tmp_path_factory.mktemp("many") / "many.db", 30_000)


def test_threads_page_with_30000_threads_pages_the_table(
    many: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from replaylens.dashboard.views import PAGE_ROWS

    at = run_page(monkeypatch, [many.parent], "threads", db=str(many))
    assert not at.error, [e.value for e in at.error]
    first = at.dataframe[0].value
    assert len(first) == PAGE_ROWS and list(first["status"][:1]) == ["completed"]
    assert "Threads 1-1,000 of 30,000 matching." in shown_text(at)
    last = run_page(monkeypatch, [many.parent], "threads", db=str(many), page="30")
    ids = [str(t) for t in last.dataframe[0].value["thread"]]
    everyone = sorted(["t-0", *(f"t-{i}" for i in range(1, 30_000))])
    assert ids == everyone[29_000:]


# -- 7. smaller holes --------------------------------------------------------------------
def test_cli_refuses_a_fifo_instead_of_blocking(data: Path) -> None:
    out = cli("threads", str(data / "served" / "fifo.db"), timeout=30)
    assert (
        out.returncode == 2 and "not a regular file" in out.stderr and "Traceback" not in out.stderr
    )


def test_a_safe_listed_regex_with_re_debug_prints_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    import ormsgpack

    from replaylens.decode import decode_typed

    blob = ormsgpack.packb(
        ormsgpack.Ext(1, ormsgpack.packb(["re", "compile", ["a(b|c)*d", re.DEBUG]]))
    )
    capfd.readouterr()
    value = decode_typed("msgpack", blob).value
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert (
        isinstance(value, re.Pattern) and value.pattern == "a(b|c)*d" and not value.flags & re.DEBUG
    )


def test_a_100kb_thread_id_is_linked_by_its_digest(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from replaylens.text import url_value

    long_id = "L" * 100_000
    db = str(data / "long" / "long.db")
    at = run_page(monkeypatch, [data / "long"], "thread", db=db, thread="short")
    at.selectbox(key="_sel_thread").set_value(long_id).run()
    written = str(at.query_params["thread"])
    assert len(written) < 600 and written == url_value(long_id)
    again = run_page(monkeypatch, [data / "long"], "thread", db=db, thread=written)
    assert again.selectbox(key="_sel_thread").value == long_id
    assert not [e for e in again.error if "is not in" in e.value]


# -- 2. bounded decoding -----------------------------------------------------------------
@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from hardening_data import bomb_db

    return bomb_db(tmp_path_factory.mktemp("bomb") / "bomb.db")


def _bounded(work: object) -> tuple[object, float, int]:
    """(result, CPU seconds, peak traced bytes) of `work()` in this process."""
    import time
    import tracemalloc

    tracemalloc.start()
    t0 = time.process_time()
    try:
        result = work()  # type: ignore[operator]
        return result, time.process_time() - t0, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_amplification_blob_decodes_to_a_marker_within_budget(bomb: Path) -> None:
    """10 MB of nils nested 45 deep cost 75-86 s and 1.8 GB per Thread view before."""
    from replaylens.analysis.status import load_thread
    from replaylens.dashboard import views
    from replaylens.sources import open_source

    source = open_source(bomb)
    thread = load_thread(source, "bomb")
    cp = thread.namespaces[""].checkpoints[-1]

    def state_tab() -> object:
        values = source.read_channel_values("bomb", "", cp.checkpoint_id)
        return values, views.state_frame(values), views.diff_frame(values, values)

    (values, frame, _diff), cpu, peak = _bounded(state_tab)
    error = values["visited"].error or ""
    assert error.startswith("too large to decode (") and "+ items at depth" in error, error
    assert frame.loc[frame["channel"] == "visited", "problem"].iloc[0] == error
    assert cpu < 10.0, f"{cpu:.1f} s of CPU"
    assert peak < 80 * 2**20, f"{peak / 2**20:.0f} MiB"  # the 10 MB blob is read, copied once


def test_cli_values_is_bounded(bomb: Path) -> None:
    from replaylens.analysis.status import load_thread
    from replaylens.export import thread_to_json
    from replaylens.sources import open_source

    source = open_source(bomb)
    thread = load_thread(source, "bomb")
    out, cpu, peak = _bounded(
        lambda: orjson.dumps(thread_to_json(source, thread, with_values=True))
    )
    assert b"too large to decode" in out  # type: ignore[operator]
    assert cpu < 10.0 and peak < 80 * 2**20, (cpu, peak)


def test_the_thread_page_decodes_state_only_when_its_tab_is_open(
    bomb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from replaylens.dashboard.ui import common as ui

    at = run_page(
        monkeypatch, [bomb.parent], "thread", db=str(bomb), thread="bomb", view="Checkpoints"
    )
    assert not [k for k in ui.lru().items if k[0] == "values"]
    at = run_page(monkeypatch, [bomb.parent], "thread", db=str(bomb), thread="bomb", view="State")
    assert [k for k in ui.lru().items if k[0] == "values"]
    problems = [
        p for df in (d.value for d in at.dataframe) if "problem" in df for p in df["problem"]
    ]
    assert any(str(p).startswith("too large to decode (") for p in problems), problems


packable_leaf = (
    hs.none()
    | hs.booleans()
    | hs.integers(-(2**63), 2**64 - 1)
    | hs.floats()
    | hs.text(max_size=40)
    | hs.binary(max_size=300)
)
packable = hs.recursive(packable_leaf, lambda c: hs.lists(c, max_size=20) | hs.dictionaries(hs.text(max_size=4), c, max_size=5),
                        max_leaves=80)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(value=packable)
def test_measure_counts_what_ormsgpack_builds(value: object) -> None:
    """The size check agrees with the decoder on ordinary values: never over, depth exact."""
    import ormsgpack

    from replaylens.decode import measure

    def count(v: object, depth: int = 0) -> tuple[int, int]:
        if isinstance(v, dict):
            parts = [count(x, depth + 1) for kv in v.items() for x in kv]
        elif isinstance(v, list):
            parts = [count(x, depth + 1) for x in v]
        else:
            return 1, depth
        return 1 + sum(p[0] for p in parts), max(
            [depth + 1 if parts else depth, *(p[1] for p in parts)]
        )

    size = measure(ormsgpack.packb(value))
    assert not size.over and (size.items, size.depth) == count(value)


# -- 3. the escapers, for any string -------------------------------------------------------
hostile_text = hs.text(alphabet=hs.characters(codec="utf-8") | hs.sampled_from(list("\\`*_{}[]()#+-.!|<>~$:&@\n\r\x1b\u202e/wh")),
                       max_size=60)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(text=hostile_text)
def test_md_leaves_no_markdown_character_unescaped(text: str) -> None:
    from replaylens.text import _MD_SPECIAL, md, visible

    out = md(text)
    assert "\n" not in out and "\r" not in out and "\x1b" not in out and "\u202e" not in out
    specials = set(_MD_SPECIAL.pattern[2:-2].replace("\\\\", "\\").replace("\\", "")) | {"\\"}
    i, plain = 0, []
    while i < len(out):
        if out[i] == "\\":
            assert i + 1 < len(out) and out[i + 1] in specials, (out, i)
            plain.append(out[i + 1])
            i += 2
            continue
        assert out[i] not in specials, (out, i)
        plain.append(out[i])
        i += 1
    flat = visible(text).replace("\r", " ").replace("\n", " ").replace("\t", " ")
    expected = re.sub(r"^ +", lambda m: "\u00a0" * len(m.group()), flat)
    assert "".join(plain).replace("\u2060", "") == expected
    assert not re.search(
        r"(?i)[a-z0-9]:(?=//)|www\.", "".join(plain)
    )  # no autolink left (GFM links "www." even with a joiner after it)
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").render(out)
    assert not re.search(r"<(?!/?p>)", rendered), (
        rendered
    )  # one paragraph of text, no other element


@settings(max_examples=400, deadline=None)
@given(text=hostile_text)
def test_plotly_text_has_no_tag_and_reads_back(text: str) -> None:
    import html

    from replaylens.text import plotly_text, visible

    out = plotly_text(text)
    assert not set(out) & set('<>"\n')
    assert html.unescape(out) == visible(text).replace("\n", " ")


@settings(max_examples=400, deadline=None)
@given(text=hostile_text)
def test_dot_text_keeps_backslashes_literal(text: str) -> None:
    import graphviz

    from replaylens.text import dot_text

    out = dot_text(text)
    assert "\n" not in out and re.fullmatch(r"(?:[^\\]|\\\\)*", out)
    quoted = graphviz.quoting.quote(graphviz.nohtml(out))
    assert not quoted.startswith("<")  # never an HTML label


@settings(max_examples=400, deadline=None)
@given(text=hostile_text)
def test_option_text_breaks_every_streamlit_directive(text: str) -> None:
    from replaylens.text import _DIRECTIVE, option_text

    out = option_text(text)
    assert _DIRECTIVE.search(out) is None and "\x1b" not in out and "\n" not in out
