"""Postgres connection strings: recognised, labelled and scrubbed without ever showing a password.

One module for every place that meets a DSN (the CLI, `replaylens serve`, the dashboard's
picker, the Postgres source), so that they agree on what a DSN is. It never imports psycopg
and never raises on malformed input: a label is always produced, because the label is what
goes into messages, and a message must not fail (or echo the input) on a bad DSN.

A DSN may be given as

- a libpq URI (`postgresql://` or `postgres://`, any letter case),
- libpq's `key=value` form (`host=db dbname=lg user=reader`),
- `env:NAME`: the DSN is the value of environment variable NAME,
- `--dsn-file FILE` on the command line: the first line of FILE that is not a comment.

A DSN without a password lets libpq find it in `PGPASSFILE` (or `~/.pgpass`), which is
the way to keep it out of every command line and environment.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote, unquote

URI_SCHEMES = ("postgresql://", "postgres://")
ENV_PREFIX = "env:"
_KEYWORDS = (
    "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service", "sslmode",
    "connect_timeout", "options", "application_name", "target_session_attrs", "sslrootcert",
)  # fmt: skip
_KV = re.compile(r"\s*(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S*)")
_KV_START = re.compile(r"^\s*(" + "|".join(_KEYWORDS) + r")\s*=", re.IGNORECASE)
_SECRET_KEYS = frozenset({"password"})
_SHOWN_QUERY_KEYS = frozenset(
    {"sslmode", "target_session_attrs", "options", "application_name", "service"}
)


class DsnError(ValueError):
    """A connection string that cannot be used; the message never holds its password."""


def is_uri(spec: object) -> bool:
    return isinstance(spec, str) and spec[:13].lower().startswith(URI_SCHEMES)


def is_keyvalue(spec: object) -> bool:
    return isinstance(spec, str) and "\n" not in spec and bool(_KV_START.match(spec))


def is_dsn(spec: object) -> bool:
    """A Postgres connection string in either libpq form (a file path is neither)."""
    return is_uri(spec) or is_keyvalue(spec)


def is_env_ref(spec: object) -> bool:
    return isinstance(spec, str) and spec.startswith(ENV_PREFIX) and len(spec) > len(ENV_PREFIX)


def names_postgres(spec: object) -> bool:
    """The one test of "this source is a Postgres database": a DSN in either form, or
    `env:NAME` (an environment variable holding one). Everything else is a file path."""
    return is_dsn(spec) or is_env_ref(spec)


def retype_words(spec: str, *, dsn_file: str | None = None, moved_prefix: str = "") -> str | None:
    """How a reader names this source again in a shell, without its password: a file path or
    `env:NAME` as given, `--dsn-file FILE`, a DSN that holds no secret; None when every way
    to write it would show the password (or name a variable only this process had: a name
    starting with `moved_prefix`)."""
    import shlex

    if dsn_file:
        return f"--dsn-file {shlex.quote(dsn_file)}"
    if is_env_ref(spec):
        return (
            None
            if moved_prefix and spec[len(ENV_PREFIX) :].startswith(moved_prefix)
            else shlex.quote(spec)
        )
    if is_dsn(spec):
        return shlex.quote(spec) if not passwords(spec) and redact(spec) == spec else None
    return shlex.quote(spec)


# -- parsing, never raising ----------------------------------------------------------------
def _unquote_kv(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def keyvalue_pairs(dsn: str) -> list[tuple[str, str]]:
    """`host=a password='x y'` -> [("host", "a"), ("password", "x y")]."""
    return [(m.group(1).lower(), _unquote_kv(m.group(2))) for m in _KV.finditer(dsn)]


def _split_uri(dsn: str) -> tuple[str, str, str, str, str]:
    """(scheme, userinfo, hosts, path, query), by hand: urlsplit raises on an unclosed '['.

    The user information ends at the *last* '@', so that a password with an unencoded
    '?', '/', '#' or '@' in it (which libpq accepts) is never taken for the host or path;
    but where the text before that '@' holds a query's password key, the '@' is that
    password's, and the user information ends where libpq ends it (at the first '@')."""
    scheme, _, rest = dsn.partition("://")
    userinfo, at, after = rest.rpartition("@")
    in_query = at and _holds_password_key(userinfo.partition("?")[2])
    libpq = _LIBPQ_USERINFO.match(rest) if in_query else None
    if libpq is not None:
        userinfo, after = libpq.group(1), rest[libpq.end() :]
    cut = min((i for i in (after.find("/"), after.find("?")) if i >= 0), default=len(after))
    hosts, tail = after[:cut], after[cut:]
    if libpq is not None:  # a raw '@' in the user's own password too: never show its tail
        hosts = hosts.rpartition("@")[2]
    path, _, query = tail.partition("?")
    return scheme.lower(), userinfo if at else "", hosts, path, query


def _holds_password_key(query: str) -> bool:
    return bool(_query_secrets(query))


def _is_secret_key(key: str) -> bool:
    """A query key that names the password, however it is cased or percent-encoded."""
    return _safe_unquote(key).lower() in _SECRET_KEYS


def _query_secrets(query: str) -> list[str]:
    """The values of a URI query's password keys, as written."""
    return [
        value
        for key, eq, value in (part.partition("=") for part in query.split("&"))
        if eq and _is_secret_key(key)
    ]


_LIBPQ_USERINFO = re.compile(r"([^@/]*)@")


def _libpq_userinfo(dsn: str) -> str:
    """The user information as libpq reads it (up to the first '@' or '/'), for scrubbing."""
    match = _LIBPQ_USERINFO.match(dsn.partition("://")[2])
    return match.group(1) if match else ""


def _safe_unquote(text: str) -> str:
    """Percent-decoding that never fails (a malformed escape stays as written)."""
    return unquote(text, errors="replace")


def passwords(dsn: str) -> list[str]:
    """Every form in which the DSN's password could appear in a message: as written,
    percent-decoded, percent-encoded, quoted for key=value; longest first."""
    found: set[str] = set()
    if is_uri(dsn):
        _scheme, userinfo, _hosts, _path, query = _split_uri(dsn)
        for info in (userinfo, _libpq_userinfo(dsn)):
            if ":" in info:
                found.add(info.split(":", 1)[1])
        for reading in (query, dsn.partition("?")[2]):  # both readings of the '@'
            found.update(_query_secrets(reading))
        for greedy in re.finditer(
            r"password=(.*)$", query + "\n" + dsn.partition("?")[2], re.IGNORECASE | re.M
        ):  # a password with an unencoded '&'
            found.add(greedy.group(1))
    else:
        found.update(v for k, v in keyvalue_pairs(dsn) if k in _SECRET_KEYS)
        found.update(
            m.group(1) for m in re.finditer(r"password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", dsn, re.I)
        )
    forms: set[str] = set()
    for raw in found:
        for form in (
            raw,
            _safe_unquote(raw),
            quote(_safe_unquote(raw), safe=""),
            quote(raw, safe=""),
            _unquote_kv(raw),
        ):
            if form:
                forms.add(form)
    return sorted(forms, key=len, reverse=True)


def scrub(text: str, dsn: str | None, *, shortest: int = 1) -> str:
    """`text` with every form of the DSN's password (of at least `shortest` characters)
    replaced by `***`.

    Every occurrence of every form is found first and overlapping ones are hidden as one:
    replacing one form after another would let a longer form that only overlaps the
    password (another reading of an ambiguous DSN) leave the rest of it showing."""
    if not dsn:
        return text
    spans: list[tuple[int, int]] = []
    for secret in passwords(dsn):
        if len(secret) >= shortest:
            start = text.find(secret)
            while start >= 0:
                spans.append((start, start + len(secret)))
                start = text.find(secret, start + 1)
    out, shown_to = [], 0
    for start, end in sorted(spans):
        if start >= shown_to:
            out += [text[shown_to:start], "***"]
        shown_to = max(shown_to, end)
    return "".join(out) + text[shown_to:]


def redact(dsn: str) -> str:
    """The DSN without its password (and without query values that are not plainly harmless).

    `postgresql://u:pw@h:5432/db?sslmode=require&password=x` -> `postgresql://u@h:5432/db?sslmode=require`;
    `host=h user=u password=x dbname=db` -> `host=h user=u dbname=db`. Never raises."""
    if is_uri(dsn):
        scheme, userinfo, hosts, path, query = _split_uri(dsn)
        user = userinfo.split(":", 1)[0]
        shown = [p for p in query.split("&") if p.partition("=")[0].lower() in _SHOWN_QUERY_KEYS]
        hidden = [p for p in query.split("&") if p and p.partition("=")[0].lower() not in _SHOWN_QUERY_KEYS
                  and not _is_secret_key(p.partition("=")[0])]  # fmt: skip
        tail = "?" + "&".join(shown) if shown else ""
        if hidden:  # names too could be fragments of a password with an unencoded '&'
            tail += ("&" if shown else "?") + "…"
        label = f"{scheme}://{user + '@' if user else ''}{hosts}{path}{tail}"
    else:
        pairs = [(k, v) for k, v in keyvalue_pairs(dsn) if k not in _SECRET_KEYS]
        label = " ".join(f"{k}={v}" for k, v in pairs)
    # Built without the password already; the scrub is a second line of defence, which
    # leaves 1-3 character fragments alone (they would blank out the host name).
    return scrub(label, dsn, shortest=4)


def database(dsn: str) -> str:
    """The database name a DSN asks for (for messages)."""
    if is_uri(dsn):
        return _safe_unquote(_split_uri(dsn)[3].lstrip("/")) or "(default)"
    return next((v for k, v in keyvalue_pairs(dsn) if k == "dbname"), "") or "(default)"


def normalize(dsn: str) -> str:
    """The DSN as libpq accepts it: a URI's scheme in lower case (`PostgreSQL://` is refused by libpq)."""
    if is_uri(dsn):
        scheme, sep, rest = dsn.partition("://")
        return scheme.lower() + sep + rest
    return dsn


def check_syntax(dsn: str) -> None:
    """Raise DsnError (one sentence, no password) for what libpq would refuse with an echo."""
    label = redact(dsn)
    if is_uri(dsn):
        _scheme, userinfo, hosts, _path, query = _split_uri(dsn)
        for part in (userinfo, query):
            if re.search(r"%(?![0-9A-Fa-f]{2})", part):
                raise DsnError(f"{label}: the connection string has a malformed percent-encoding "
                               "(a % not followed by two hex digits); encode % as %25.")  # fmt: skip
        if hosts.count("[") != hosts.count("]"):
            raise DsnError(f"{label}: an IPv6 host address opened with '[' is not closed with ']'.")
    elif not keyvalue_pairs(dsn):
        raise DsnError("The connection string has no key=value pairs.")


# -- where a DSN comes from ------------------------------------------------------------------
def from_env(spec: str) -> str:
    """`env:NAME` -> the DSN in environment variable NAME."""
    name = spec[len(ENV_PREFIX) :]
    from replaylens import settings

    value = settings.named(name)
    if not value:
        raise DsnError(f"{spec}: the environment variable {name} is not set or empty.")
    if not is_dsn(value):
        raise DsnError(
            f"{spec}: the environment variable {name} does not hold a Postgres connection string."
        )
    return value


def from_file(path: str | os.PathLike[str]) -> str:
    """The first line of a DSN file that is neither blank nor a `#` comment."""
    p = Path(path)
    try:
        if not p.is_file():
            raise DsnError(f"{p}: no such DSN file.")
        lines = p.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DsnError(f"{p}: the DSN file cannot be read ({type(exc).__name__}).") from None
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            if not is_dsn(line):
                raise DsnError(f"{p}: its first line is not a Postgres connection string.")
            return line
    raise DsnError(f"{p}: the DSN file holds no connection string.")


def resolve(spec: str) -> str:
    """The connection string a command-line spec names (`env:NAME` or the DSN itself)."""
    return from_env(spec) if is_env_ref(spec) else spec


def unique_labels(dsns: list[str]) -> list[str]:
    """One label per DSN, distinct even when two differ only in password or query
    (the second `…/db` becomes `…/db #2`), so one never silently replaces the other."""
    labels: list[str] = []
    for dsn in dsns:
        label, n = redact(dsn), 2
        while label in labels:
            label = f"{redact(dsn)} #{n}"
            n += 1
        labels.append(label)
    return labels
