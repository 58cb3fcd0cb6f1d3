"""A throw-away PostgreSQL server: initdb into a temporary folder, run, delete.

Two users share this one implementation. The tests: the Postgres reader is tested
against a real server (the saver's SQL, JSONB and TOAST behaviour cannot be faked), but
no test may depend on a server someone else runs. And `replaylens killtest
--pg-ephemeral`, for people who want Postgres numbers without a server of their own,
and which may SIGKILL the server it started (`crash()`) to measure what a database
crash loses. Each server runs on a free port on 127.0.0.1, with the data folder, the
Unix socket and the log in one temporary folder that is removed at the end.

The server runs in a process group of its own (`start_new_session`), so `crash()`
kills the postmaster and every backend it forked, and nothing else: the group id is
the pid of the process this object started.

`initdb` and `postgres` refuse to run as root. When the tests run as root (CI
containers), the server runs as the `postgres` system user (created by Debian's
`postgresql` package, or here with `useradd` if missing), through `subprocess`'s
`user=`/`group=` (no `su` or `runuser` needed, so a nologin shell is fine). The folder
is made under the system temporary folder, not pytest's `tmp_path`, because pytest's
folders are private to root and the `postgres` user could not enter them.

TCP connections need a password (scram-sha-256), so that the wrong-password test means
something. The Unix socket (trusted) lives in the private folder; the tests use TCP.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replaylens import settings
from replaylens.errors import ReplaylensError

ENV_BINDIR = "REPLAYLENS_PG_BINDIR"
"""Set it to a folder holding `initdb` and `postgres` to pick a server version."""
DEBIAN_ROOT = Path("/usr/lib/postgresql")
SERVER_USER = "postgres"
START_TIMEOUT = 30.0
SUPERUSER = "postgres"


class PgUnavailable(ReplaylensError):
    """No server can be started here; the message says why, in one sentence."""


def _has_server(bindir: Path) -> bool:
    return (bindir / "initdb").is_file() and (bindir / "postgres").is_file()


def _debian_bindirs() -> list[Path]:
    """Debian's /usr/lib/postgresql/<major>/bin, newest major first."""
    if not DEBIAN_ROOT.is_dir():
        return []
    majors = [p for p in DEBIAN_ROOT.iterdir() if p.name.isdigit()]
    return [p / "bin" for p in sorted(majors, key=lambda p: int(p.name), reverse=True)]


def find_bindir() -> Path | None:
    """Where `initdb` and `postgres` are: $REPLAYLENS_PG_BINDIR, Debian's layout, pg_config, PATH."""
    candidates: list[Path] = []
    chosen = settings.get_path(ENV_BINDIR)
    if chosen is not None:
        candidates.append(chosen)
    candidates += _debian_bindirs()
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        if out.returncode == 0 and out.stdout.strip():
            candidates.append(Path(out.stdout.strip()))
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).parent)
    return next((c for c in candidates if _has_server(c)), None)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_account() -> pwd.struct_passwd | None:
    """The account the server runs as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        pass
    useradd = shutil.which("useradd")
    if useradd is None:
        raise PgUnavailable(
            f"running as root and there is no {SERVER_USER!r} user to run PostgreSQL as (no useradd to create one)."
        )
    subprocess.run(
        [useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SERVER_USER],
        check=True,
        capture_output=True,
    )
    return pwd.getpwnam(SERVER_USER)


@dataclass
class PgServer:
    """One running server; `dsn()` names a database on it, `stop()` removes everything."""

    bindir: Path
    root: Path
    port: int
    password: str
    account: pwd.struct_passwd | None
    process: subprocess.Popen[bytes] | None = None
    watchdog: subprocess.Popen[bytes] | None = None
    """`killtest._pgwatch`: stops the server and removes the folder when this process ends."""
    settings: dict[str, str] = field(default_factory=dict)
    """Extra `-c name=value` settings given to `postgres` at every start."""
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.root / "server.log"

    # -- running as the server account ----------------------------------------------
    def _as_server(self) -> dict[str, Any]:
        """Popen keyword arguments that drop root for the server account."""
        if self.account is None:
            return {}
        return {
            "user": self.account.pw_uid,
            "group": self.account.pw_gid,
            "extra_groups": [],
            "env": {**os.environ, "HOME": str(self.root), "USER": self.account.pw_name},
        }

    def _chown(self, *paths: Path) -> None:
        if self.account is not None:
            for path in paths:
                os.chown(path, self.account.pw_uid, self.account.pw_gid)

    # -- life cycle -----------------------------------------------------------------
    def init(self) -> None:
        """initdb with a password for TCP logins and no fsync (the data is thrown away)."""
        pwfile = self.root / "pwfile"
        pwfile.write_text(self.password + "\n")
        self._chown(self.root, pwfile)
        cmd = [
            str(self.bindir / "initdb"),
            "-D",
            str(self.root / "data"),
            "-U",
            SUPERUSER,
            "--pwfile",
            str(pwfile),
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, **self._as_server())
        pwfile.unlink()
        if done.returncode != 0:
            raise PgUnavailable(f"initdb failed: {(done.stderr or done.stdout).strip()[-500:]}")

    def start(self) -> None:
        """Run `postgres` in the foreground (as a child we can signal) and wait until it accepts logins."""
        cmd = [
            str(self.bindir / "postgres"),
            "-D",
            str(self.root / "data"),
            "-p",
            str(self.port),
            "-k",
            str(self.root),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
            "-c",
            "full_page_writes=off",
            "-c",
            "max_connections=40",
            "-c",
            "shared_buffers=16MB",
        ]
        for name, value in self.settings.items():
            cmd += ["-c", f"{name}={value}"]
        log = open(self.log, "ab")  # the child keeps its own copy of the descriptor
        self._chown(self.log)
        self.process = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, **self._as_server()
        )
        log.close()
        self._watch(self.process.pid)
        self._wait_ready()

    def _watch(self, pid: int) -> None:
        """Tell the watchdog (started on first use) which postmaster to stop if we die."""
        import sys

        if self.watchdog is None or self.watchdog.poll() is not None:
            self.watchdog = subprocess.Popen(  # in our process group, unlike the server
                [sys.executable, "-m", "replaylens.killtest._pgwatch", str(self.root)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=self._watchdog_env(),
            )  # fmt: skip
        assert self.watchdog.stdin is not None
        self.watchdog.stdin.write(f"pid {pid}\n".encode())
        self.watchdog.stdin.flush()

    @staticmethod
    def _watchdog_env() -> dict[str, str]:
        from replaylens.killtest._runner import child_env

        return child_env()

    def crash(self) -> int:
        """SIGKILL this server's postmaster and every backend of it; return the group id.

        Only the process group this object started is signalled, and only while its
        leader is still our unreaped child (so the id cannot have been reused): a server
        the caller did not start is out of reach by construction.
        """
        proc = self.process
        if proc is None or proc.poll() is not None:
            raise PgUnavailable(
                "the PostgreSQL server to crash is not running (it was never started or has exited)."
            )
        group = proc.pid
        if os.getpgid(group) != group:
            raise PgUnavailable(
                f"the PostgreSQL server (pid {group}) is not the leader of its own process group."
            )
        os.killpg(group, signal.SIGKILL)
        proc.wait(timeout=10)
        self.process = None
        self._wait_group_gone(group)
        return group

    @staticmethod
    def _wait_group_gone(group: int, timeout: float = 10.0) -> None:
        """Wait until no backend of the killed group is left (they hold the shared memory)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.killpg(group, 0)
            except ProcessLookupError:
                return
            time.sleep(0.02)

    def restart(self) -> None:
        """Start the server again on the same data folder and port (crash recovery runs)."""
        if self.process is not None and self.process.poll() is None:
            raise PgUnavailable(
                "the PostgreSQL server is still running; crash() or stop() it first."
            )
        self.start()

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise PgUnavailable(f"postgres exited at start: {self.log_tail()}")
            try:
                psycopg.connect(self.dsn(), connect_timeout=2).close()
                return
            except psycopg.OperationalError as exc:
                last = exc
                time.sleep(0.1)
        raise PgUnavailable(
            f"postgres did not accept connections in {START_TIMEOUT:.0f}s ({last})."
        )

    def log_tail(self, chars: int = 800) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else "(no log)"

    def stop(self) -> None:
        """Fast shutdown (SIGINT), then remove the folder; SIGKILL if it hangs."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None
        if self.watchdog is not None:  # its pipe ends: it finds the server gone and leaves
            with contextlib.suppress(OSError):
                self.watchdog.stdin.close()  # type: ignore[union-attr]
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.watchdog.wait(timeout=20)
            self.watchdog = None
        shutil.rmtree(self.root, ignore_errors=True)

    # -- connecting -----------------------------------------------------------------
    def dsn(
        self, dbname: str = "postgres", *, password: str | None = None, port: int | None = None
    ) -> str:
        """A libpq URI over TCP; `password`/`port` override the real ones (for the error tests)."""
        pw = self.password if password is None else password
        return f"postgresql://{SUPERUSER}:{pw}@127.0.0.1:{port or self.port}/{dbname}"

    def dsn_label(self, dbname: str = "postgres") -> str:
        """The DSN without its password, for anything printed or stored."""
        from replaylens import dsn

        return dsn.redact(self.dsn(dbname))

    def create_database(self, name: str) -> str:
        """A fresh, empty database; returns its DSN."""
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)


def start_server(settings: dict[str, str] | None = None) -> PgServer:
    """Start a server in a new temporary folder, or raise PgUnavailable saying why not."""
    bindir = find_bindir()
    if bindir is None:
        raise PgUnavailable(
            "no PostgreSQL server binaries (initdb, postgres) were found in "
            f"${ENV_BINDIR}, {DEBIAN_ROOT}/*/bin, `pg_config --bindir` or PATH; "
            "install Debian's `postgresql` package."
        )
    account = _server_account()
    root = Path(tempfile.mkdtemp(prefix="replaylens-pg-"))
    server = PgServer(
        bindir,
        root,
        _free_port(),
        secrets.token_urlsafe(18),
        account,
        settings=dict(settings or {}),
    )
    try:
        server.init()
        for attempt in range(3):  # another process may take the free port before postgres does
            try:
                server.start()
                return server
            except PgUnavailable:
                if attempt == 2 or "could not bind" not in server.log_tail():
                    raise
                server.port = _free_port()
    except BaseException:
        server.stop()
        raise
    raise AssertionError("unreachable")
