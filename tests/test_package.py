"""replaylens as a user installs it: the built wheel in a fresh virtual environment, run
from a folder outside the checkout, so nothing of the repository can be found by accident.

Also how `replaylens serve` runs: on 127.0.0.1 unless told otherwise, and stopped with its
Streamlit child by SIGTERM.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboard_data import CHROMIUM, CHROMIUM_ARGS, free_port, start_server, stop_server, wait_idle

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_dbs"
pytestmark = pytest.mark.slow


def _clean_env(tmp: Path) -> dict[str, str]:
    """This environment without anything that points into the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REPLAYLENS_", "PYTHON"))}
    env["HOME"] = str(tmp)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel built from this checkout (and its runtime dependencies)."""
    root = tmp_path_factory.mktemp("wheel")
    # Build from a copy of the tracked files: a build in place would leave build/ and
    # *.egg-info in the checkout, and an untracked file could slip into the wheel.
    tracked = subprocess.run(["git", "ls-files", "pyproject.toml", "README.md", "lib"], cwd=REPO, check=True,
                             capture_output=True, text=True).stdout.split()  # fmt: skip
    src = root / "src"
    for name in tracked:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, src / name)
    dist = root / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(src)],
                   check=True, cwd=root)  # fmt: skip
    wheel = next(dist.glob("replaylens-*.whl"))
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        # --no-compile: byte-compiling every dependency (Streamlit, pandas, pyarrow…) is a third
        # of the install's time; the modules the tests import are compiled when imported.
        [str(venv / "bin" / "pip"), "install", "--quiet", "--no-compile", str(wheel)],
        check=True,
        cwd=root,
    )
    return venv


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working folder with a database and a campaign copied out of the checkout."""
    work = tmp_path_factory.mktemp("outside")
    shutil.copy(SAMPLES / "payment-approved.db", work / "payment-approved.db")
    shutil.copy(SAMPLES / "payment-approved.effects.jsonl", work / "payment-approved.effects.jsonl")
    shutil.copytree(SAMPLES / "linear", work / "linear")
    return work


def test_the_wheel_holds_the_dashboard_and_no_checkout_path(installed: Path) -> None:
    site = next((installed / "lib").glob("python3*/site-packages"))
    dash = site / "replaylens" / "dashboard" / "ui"
    for name in (
        "app.py",
        "common.py",
        "data.py",
        *(f"screens/{p}.py" for p in ("threads", "thread", "resume", "runs", "learn")),
    ):
        assert (dash / name).is_file(), name
    assert (site / "replaylens" / "examples" / "graphs.py").is_file()


def test_installed_wheel_serves_every_page(installed: Path, outside: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    port = free_port()
    server = start_server([outside], port, program=[str(installed / "bin" / "replaylens")], cwd=outside,
                          env=_clean_env(outside))  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    db = "payment-approved.db"
    views = {
        "threads": f"{base}/threads?db={db}",
        "thread": f"{base}/thread?db={db}",
        "resume": f"{base}/resume?db={db}",
        "runs": f"{base}/runs",
        "learn": f"{base}/learn?db={db}",
    }
    titles = {"threads": "Threads", "thread": "Thread", "resume": "Resume simulator", "runs": "Kill-test runs",
              "learn": "Learn supersteps"}  # fmt: skip
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            for name, address in views.items():
                page.goto(address)
                wait_idle(page, timeout=60_000)
                expect(page.locator('[data-testid="stMain"] h1').first).to_have_text(titles[name])
                expect(page.locator('[data-testid="stException"]')).to_have_count(0)
                body = page.inner_text("body")
                assert "Traceback" not in body and "missing from this installation" not in body, (
                    name
                )
            # The campaign copied next to the database is found and listed on the runs page.
            page.goto(views["runs"])
            wait_idle(page, timeout=60_000)
            assert "linear" in page.inner_text('[data-testid="stMain"]')
            browser.close()
    finally:
        stop_server(server)


def test_installed_wheel_runs_a_kill_test(installed: Path, tmp_path: Path) -> None:
    out = tmp_path / "campaign"
    proc = subprocess.run(
        [str(installed / "bin" / "replaylens"), "killtest", "replaylens.examples.graphs:linear", "--out", str(out),
         "--kill-at", "c", "--modes", "sync", "--runs", "1", "--sleep", "0.2"],
        cwd=tmp_path, env=_clean_env(tmp_path), capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads((out / "manifest.json").read_text())
    (run,) = manifest["runs"]
    assert run["killed"] is True and run["mode"] == "sync"
    assert (out / run["db_at_kill"]).is_file()


USER_GRAPH = """
import time

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from replaylens import record_effect

KEYED = {keyed}


class State(TypedDict, total=False):
    invoice_id: str
    charged: bool


def charge(state, config):
    key = f"{{config['configurable']['thread_id']}}:{{state['invoice_id']}}" if KEYED else None
    with record_effect("charge_card", idempotency_key=key):
        time.sleep(0.6)
    return {{"charged": True}}


def notify(state):
    with record_effect("send_receipt", idempotency_key=f"receipt:{{state['invoice_id']}}"):
        time.sleep(0.3)
    return {{}}


def build():
    builder = StateGraph(State)
    builder.add_node("charge", charge)
    builder.add_node("notify", notify)
    builder.add_edge(START, "charge")
    builder.add_edge("charge", "notify")
    builder.add_edge("notify", END)
    return builder
"""

USER_TEST = """
def test_checkout_resumes_safely(resume_safety):
    resume_safety("shop_graph:build", {"invoice_id": "inv-9"}, modes=["sync"], kill_at=["charge"])
"""


@pytest.mark.timeout(900)  # a fresh venv gets pytest, then four campaigns run
def test_a_users_ci_fails_a_charge_without_a_key_and_passes_once_it_has_one(
    installed: Path, tmp_path: Path
) -> None:
    """The wheel and pytest in a fresh venv, a graph and a test file outside the checkout:
    the plugin (found through the wheel's pytest11 entry point) fails the test with the
    table, then passes once the key is added; the installed CLI's `--fail-on repeat` exits 1,
    then 0, on the same two graphs."""
    pip = [str(installed / "bin" / "python"), "-m", "pip", "install", "--quiet", "pytest"]
    subprocess.run(pip, check=True, env=_clean_env(tmp_path), capture_output=True, timeout=300)
    (tmp_path / "test_checkout.py").write_text(USER_TEST, encoding="utf-8")
    env = _clean_env(tmp_path)
    for keyed, code in ((False, 1), (True, 0)):
        (tmp_path / "shop_graph.py").write_text(USER_GRAPH.format(keyed=keyed), encoding="utf-8")
        run = subprocess.run(
            [str(installed / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"--junitxml={tmp_path / f'junit-{keyed}.xml'}", "test_checkout.py"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == code, run.stdout[-4000:] + run.stderr[-2000:]
        junit = (tmp_path / f"junit-{keyed}.xml").read_text()
        if not keyed:
            assert "ResumeSafetyError" in run.stdout
            assert "charge_card" in run.stdout and "(none)" in run.stdout
            assert "replaylens serve" in run.stdout and "charge_card" in junit
        else:
            assert "1 passed" in run.stdout and "<failure" not in junit
        cli = subprocess.run(
            [str(installed / "bin" / "replaylens"), "killtest", "shop_graph:build", "--out",
             str(tmp_path / f"cli-{keyed}"), "--modes", "sync", "--kill-at", "charge",
             "--kill-delay", "0.1", "--input", '{"invoice_id": "inv-9"}', "--fail-on", "repeat"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert cli.returncode == code, cli.stdout[-3000:] + cli.stderr[-2000:]


def test_installed_wheel_kill_tests_on_an_ephemeral_postgres(
    installed: Path, tmp_path: Path
) -> None:
    """The wheel's own dependencies carry PostgresSaver and psycopg: `--pg-ephemeral` runs a
    kill on a throw-away server, from outside the checkout, and leaves no server behind."""
    from pg_server import find_bindir

    assert find_bindir() is not None, "PostgreSQL server binaries are needed (Debian's postgresql)"
    out = tmp_path / "pg-campaign"
    proc = subprocess.run(
        [str(installed / "bin" / "replaylens"), "killtest", "replaylens.examples.graphs:linear", "--out", str(out),
         "--kill-at", "c", "--modes", "sync", "--runs", "1", "--sleep", "0.2", "--pg-ephemeral"],
        cwd=tmp_path, env=_clean_env(tmp_path), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ModuleNotFoundError" not in proc.stderr and "Traceback" not in proc.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    (run,) = manifest["runs"]
    assert manifest["backend"] == "postgres" and manifest["pg_ephemeral"] is True
    assert manifest["langgraph_checkpoint_postgres"] and manifest["server_version"]
    assert run["killed"] is True and run["backend"] == "postgres"
    assert (out / run["db_at_kill"]).is_file()


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a socket listening on `port` (from /proc/net/tcp, state 0A)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in list(f)[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, _, hexport = local.rpartition(":")
                if state == "0A" and int(hexport, 16) == port:
                    found.add(addr)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Any, int]]:
    port = free_port()
    shutil.copy(SAMPLES / "payment-approved.db", tmp_path / "p.db")
    server = start_server([tmp_path / "p.db"], port)
    try:
        yield server, port
    finally:
        stop_server(server)


def test_serve_listens_on_loopback_only_by_default(served: tuple[Any, int]) -> None:
    _, port = served
    # 0100007F is 127.0.0.1 as /proc/net/tcp writes it; all interfaces would be 00000000.
    assert _listening_addresses(port) == {"0100007F"}


def test_sigterm_stops_serve_and_its_streamlit_child(served: tuple[Any, int]) -> None:
    server, _ = served
    children = _children(server.pid)
    assert children, "replaylens serve should run Streamlit in a child process"
    os.kill(server.pid, signal.SIGTERM)  # the parent alone, as `kill PID` does
    assert server.wait(timeout=20) == 0
    deadline = time.monotonic() + 20
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(c) for c in children), "the Streamlit child outlived replaylens serve"


def test_no_page_script_holds_a_floating_string() -> None:
    """Streamlit's magic writes every bare string statement of a page script onto the page
    (a "docstring" under a constant appeared under the Thread page's title): only the real
    docstrings (the first statement of the module, a function or a class) may stand alone."""
    import ast

    from replaylens.dashboard import APP

    scripts = [APP, *sorted((APP.parent / "screens").glob("*.py"))]
    found = []
    for path in scripts:
        tree = ast.parse(path.read_text())
        owners = [
            tree,
            *(
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            ),
        ]
        docstrings = {id(o.body[0]) for o in owners if o.body}
        found += [f"{path.name}:{n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                  and id(n) not in docstrings]  # fmt: skip
    assert len(scripts) > 5 and not found, found
