"""Issue 14, point 6: a Postgres password never stays in argv, and no message carries it.

Against the session's real throw-away server (tests/pg_server.py): real `replaylens`
processes, their /proc/<pid>/cmdline and stderr, and the served page in real Chromium.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from dashboard_data import CHROMIUM, CHROMIUM_ARGS, free_port, start_server, stop_server, wait_idle
from pg_server import PgServer

from replaylens import dsn as dsn_mod
from replaylens.killtest.pgserver import SUPERUSER

REPO = Path(__file__).resolve().parents[1]
THREAD = "pg-secret-thread"


@pytest.fixture(scope="module")
def pgdb(pg_cluster: PgServer, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database holding one real `linear` thread written by LangGraph's PostgresSaver."""
    from langgraph.checkpoint.postgres import PostgresSaver

    from replaylens.examples.graphs import linear
    from replaylens.killtest.harness import scoped_environ

    dsn = pg_cluster.create_database("replaylens_secrets")
    log = tmp_path_factory.mktemp("pgsecrets") / "effects.jsonl"
    with scoped_environ(REPLAYLENS_EFFECTS_LOG=str(log), REPLAYLENS_EXAMPLE_SLEEP="0"), \
            PostgresSaver.from_conn_string(dsn) as saver:  # fmt: skip
        saver.setup()
        linear().compile(checkpointer=saver).invoke(
            {"visited": []}, {"configurable": {"thread_id": THREAD}}
        )
    return dsn


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO / "lib"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "replaylens.cli", *args], capture_output=True, text=True,
                          timeout=120, env=full)  # fmt: skip


def forms(password: str) -> list[str]:
    return [password, quote(password, safe=""), quote(password)]


def assert_clean(text: str, password: str) -> None:
    for form in forms(password):
        assert form not in text, f"the password ({form!r}) appears in: {text[-600:]}"
    assert "Traceback" not in text


# -- where a DSN may come from -------------------------------------------------------------
def test_dsn_from_a_file_the_environment_pgpassfile_and_keyvalue_form(
    pgdb: str, pg_cluster: PgServer, tmp_path: Path
) -> None:
    password = pg_cluster.password
    db = "replaylens_secrets"
    dsn_file = tmp_path / "dsn.txt"
    dsn_file.write_text(f"# the checkpointer\n{pgdb}\n")
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{pg_cluster.port}:{db}:{SUPERUSER}:{password}\n")
    pgpass.chmod(0o600)
    no_password = f"postgresql://{SUPERUSER}@127.0.0.1:{pg_cluster.port}/{db}"
    keyvalue = (
        f"host=127.0.0.1 port={pg_cluster.port} user={SUPERUSER} password='{password}' dbname={db}"
    )
    cases = [
        (["threads", "--dsn-file", str(dsn_file)], {}),
        (["threads", "env:CHECKPOINT_DSN"], {"CHECKPOINT_DSN": pgdb}),
        (["threads", no_password], {"PGPASSFILE": str(pgpass)}),
        (["threads", "env:KV"], {"KV": keyvalue}),
        (["threads", pgdb.replace("postgresql://", "PostgreSQL://")], {}),
    ]
    for argv, env in cases:
        out = run_cli(*argv, "--json", env=env)
        assert out.returncode == 0, (argv, out.stderr[-800:])
        assert [r["thread_id"] for r in json.loads(out.stdout)] == [THREAD]
        assert_clean(out.stdout + out.stderr, password)


# -- argv -------------------------------------------------------------------------------
def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


@pytest.fixture(scope="module")
def served(pgdb: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """`replaylens serve postgresql://postgres:PW@…` exactly as a user would type it."""
    port = free_port()
    proc = start_server([pgdb], port)  # type: ignore[list-item]
    try:
        yield proc, port
    finally:
        stop_server(proc)


def test_serve_keeps_no_password_in_any_command_line(served: tuple[subprocess.Popen[bytes], int],
                                                     pg_cluster: PgServer) -> None:  # fmt: skip
    proc, _port = served
    pids = _descendants(proc.pid)
    assert len(pids) >= 2, "the Streamlit child must be running"
    for pid in pids:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        assert_clean(cmdline, pg_cluster.password)
    assert "env:REPLAYLENS_ARGV_DSN_0" in Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()


def test_the_served_page_lists_the_threads_and_never_the_password(
    served: tuple[subprocess.Popen[bytes], int], pg_cluster: PgServer
) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    _proc, port = served
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"http://127.0.0.1:{port}/threads")
            wait_idle(page, 60_000)
            page.get_by_text(THREAD).first.wait_for(
                state="attached"
            )  # glide grid cells are drawn on a canvas
            assert_clean(page.content(), pg_cluster.password)
            assert_clean(page.url, pg_cluster.password)
        finally:
            browser.close()


def test_serve_warns_on_stderr_without_the_password(pgdb: str, pg_cluster: PgServer) -> None:
    port = free_port()
    proc = start_server([pgdb], port)  # type: ignore[list-item]
    stop_server(proc)
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert "was moved to the environment" in err
    assert_clean(err, pg_cluster.password)


# -- messages ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "password",
    ["pa%zzSECRETx", "p@ss w%rd:/?#SECRET", "SECRET'\\quote"],
)
def test_no_form_of_a_bad_password_reaches_stderr(pg_cluster: PgServer, password: str) -> None:
    """Malformed percent-encoding, characters that need encoding, and the wrong password
    outright: one sentence, exit 2, and the password in no form."""
    raw = f"postgresql://{SUPERUSER}:{password}@127.0.0.1:{pg_cluster.port}/replaylens_secrets"
    encoded = raw.replace(password, quote(password, safe=""))
    keyvalue = (f"host=127.0.0.1 port={pg_cluster.port} user={SUPERUSER} dbname=replaylens_secrets "
                f"password='{password.replace(chr(92), chr(92) * 2).replace(chr(39), chr(92) + chr(39))}'")  # fmt: skip
    for dsn in (raw, encoded, keyvalue):
        out = run_cli("threads", dsn)
        assert out.returncode == 2, out.stderr
        assert_clean(out.stderr + out.stdout, password)
        assert "SECRET" not in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) <= 2  # the argv warning, then one sentence


def test_an_unclosed_ipv6_bracket_is_one_sentence(pg_cluster: PgServer) -> None:
    out = run_cli("threads", "postgresql://u:SECRET@[::1:5432/db")
    assert out.returncode == 2 and "is not closed" in out.stderr
    assert_clean(out.stderr, "SECRET")


def test_two_dsns_differing_only_in_password_or_query_keep_two_keys(pgdb: str) -> None:
    from replaylens.dashboard.catalog import postgres_items

    wrong = pgdb.replace("@", "x@", 1)
    with_query = pgdb + "?sslmode=disable"
    items = postgres_items([pgdb, wrong, with_query, pgdb])
    assert len(items) == 3 and len({i.key for i in items}) == 3
    assert [i.dsn for i in items] == [pgdb, wrong, with_query]
    for item in items:
        assert dsn_mod.passwords(pgdb)[0] not in item.key


def test_the_app_lists_both_and_opens_the_right_one(pgdb: str, pg_cluster: PgServer,
                                                    monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:  # fmt: skip
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from replaylens.dashboard import APP

    wrong = pgdb.replace(f":{pg_cluster.password}@", ":not-the-password@")
    monkeypatch.setenv("REPLAYLENS_SERVE_ARGS", json.dumps([str(tmp_path)]))
    monkeypatch.setenv("REPLAYLENS_SERVE_DSNS", json.dumps([wrong, pgdb]))
    monkeypatch.setenv("REPLAYLENS_UPLOAD_DIR", str(tmp_path / "uploads"))
    st.cache_data.clear()
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.switch_page("screens/threads.py")
        at.run()
        options = at.selectbox(key="_sel_db").options
        assert len([o for o in options if "replaylens_secrets" in o]) == 2
        at.selectbox(key="_sel_db").set_value(options[1]).run()
        assert list(at.dataframe[0].value["thread"]) == [THREAD]
        shown = " ".join(
            str(e.value)
            for kind in ("markdown", "caption", "error", "info")
            for e in getattr(at, kind)
        )
        assert_clean(shown + json.dumps(dict(at.query_params)), pg_cluster.password)
    finally:
        st.cache_data.clear()
        st.cache_resource.clear()


# -- the redaction, for any password ---------------------------------------------------------
from hypothesis import assume, example, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(password=hs.text(min_size=4, max_size=30).filter(lambda p: "\n" not in p and "\x00" not in p),
       encode=hs.booleans(), where=hs.sampled_from(["userinfo", "query", "keyvalue"]))  # fmt: skip
@example(password="xy@00", encode=False, where="query")  # the '@' read as the user's own
@example(password="l@00", encode=False, where="query")
@example(password="qz@w/v@x", encode=False, where="userinfo")
def test_no_label_or_scrubbed_message_holds_the_password(
    password: str, encode: bool, where: str
) -> None:
    rest = "postgresql://reader@db.internal:5432/agents host port user dbname"
    assume(not any(form in rest for form in forms(password)))
    secret = quote(password, safe="") if encode else password
    if where == "userinfo":
        dsn = f"postgresql://reader:{secret}@db.internal:5432/agents"
    elif where == "query":
        dsn = f"postgresql://reader@db.internal:5432/agents?sslmode=require&password={secret}"
    else:
        escaped = password.replace("\\", "\\\\").replace("'", "\\'")
        dsn = f"host=db.internal port=5432 user=reader password='{escaped}' dbname=agents"
    label = dsn_mod.redact(dsn)
    message = dsn_mod.scrub(
        f"could not connect: {dsn} / {password} / {quote(password, safe='')}", dsn
    )
    vocabulary = f"{rest} sslmode=require could not connect … ***"
    pieces = [p for p in re.split(r"[@&?/#:=\s'\\]", password) if len(p) >= 2]
    for text in (label, message):
        for form in forms(password):
            assert form not in text, (form, text)
        for piece in pieces:  # a raw '@' must not leave the password's tail as the host
            assert piece in vocabulary or piece not in text, (piece, text)
    assert "db.internal:5432/agents" in label or "db.internal port=5432" in label


# -- issue 27, point 8: every command, a key=value DSN with a password, from a file and env: ----
def _every_cmdline() -> str:
    """Every process's command line on this machine, as any user could read it (`ps`)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                out.append((entry / "cmdline").read_bytes().decode(errors="replace"))
    return "\n".join(out)


def _run_watched(
    args: list[str], env: dict[str, str], password: str
) -> subprocess.CompletedProcess[str]:
    """Run one command and read every command line of the machine while it runs."""
    full = {**os.environ, "PYTHONPATH": str(REPO / "lib"), **env}
    proc = subprocess.Popen([sys.executable, "-m", "replaylens.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=full)  # fmt: skip
    seen = []
    while proc.poll() is None:  # not a wait for anything: a look at /proc on every turn
        seen.append(_every_cmdline())
    out, err = proc.communicate(timeout=120)
    for cmdlines in seen:
        assert_clean(cmdlines.replace("Traceback", ""), password)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.mark.parametrize("given", ["dsn-file", "env"])
def test_every_command_keeps_a_keyvalue_password_out_of_everything_it_writes(
    pgdb: str, pg_cluster: PgServer, tmp_path: Path, given: str
) -> None:
    password = pg_cluster.password
    keyvalue = (f"host=127.0.0.1 port={pg_cluster.port} user={SUPERUSER} password={password} "
                "dbname=replaylens_secrets")  # fmt: skip
    (tmp_path / "dsn.txt").write_text(keyvalue + "\n")
    cache = tmp_path / "cache"
    env = {"CHECKPOINT_DSN": keyvalue, "REPLAYLENS_CACHE_DIR": str(cache)}
    source = (
        ["--dsn-file", str(tmp_path / "dsn.txt")] if given == "dsn-file" else ["env:CHECKPOINT_DSN"]
    )
    out = tmp_path / "out"
    commands = [
        ["threads"], ["thread", "--thread", THREAD], ["thread", "--thread", "missing"],
        ["replay", "--thread", THREAD, "--json"], ["replay", "--thread", "missing"],
        ["report", "--thread", THREAD], ["incident", "--json"], ["export", "--thread", THREAD, "--out", str(out / "history.json")],
        ["bundle", "--thread", THREAD, "--out", str(out / "bundle.zip")],
    ]  # fmt: skip
    out.mkdir()
    for command in commands:
        done = _run_watched([command[0], *source, *command[1:]], env, password)
        assert_clean(done.stdout + done.stderr, password)
        assert "REPLAYLENS_ARGV_DSN" not in done.stderr
        if "missing" in command:
            assert done.returncode == 2 and "lists them all" in done.stderr, done.stderr
            retype = "--dsn-file" if given == "dsn-file" else "env:CHECKPOINT_DSN"
            assert f"'replaylens threads {retype}" in done.stderr, done.stderr
        elif command[0] != "bundle":  # a bundle copies a SQLite file: one sentence for Postgres
            assert done.returncode == 0, (command, done.stderr[-800:])
    assert (out / "history.json").stat().st_size > 0
    for path in [*out.rglob("*"), *cache.rglob("*")]:
        if path.is_file():
            assert_clean(path.read_bytes().decode(errors="replace"), password)


def test_the_hint_never_names_the_variable_argv_was_moved_to(
    pgdb: str, pg_cluster: PgServer
) -> None:
    done = run_cli("replay", pgdb, "--thread", "missing")
    assert done.returncode == 2 and "lists them all" in done.stderr, done.stderr
    assert "REPLAYLENS_ARGV_DSN" not in done.stderr
    assert_clean(done.stderr, pg_cluster.password)
