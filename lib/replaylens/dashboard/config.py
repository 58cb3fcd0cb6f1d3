"""The dashboard's start-up arguments, shared by `replaylens serve` and `app.py`.

`replaylens serve` passes its arguments through to `streamlit run app.py -- ARGS`; the
app parses them again here, so both ends agree on one grammar. Tests (which cannot set
Streamlit's argv) pass the same arguments as JSON in `REPLAYLENS_SERVE_ARGS`.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from replaylens import settings
from replaylens.paths import AllowList

ENV_ARGS = "REPLAYLENS_SERVE_ARGS"
DEFAULT_ALLOWED = (".", "sample_dbs")
MAX_UPLOAD_MB = 200
"""Upload limit in megabytes (Streamlit's server.maxUploadSize is set to the same)."""


@dataclass(frozen=True)
class ServeConfig:
    """What the operator chose on the command line."""

    paths: tuple[Path, ...] = ()
    effects: Path | None = None
    allow: AllowList = field(default_factory=lambda: AllowList.build(DEFAULT_ALLOWED))
    dsns: tuple[str, ...] = field(default=(), repr=False)  # postgresql://… (passwords inside)
    no_cache: bool = False  # derive every status, never read or write the status cache
    graphs: tuple[
        str, ...
    ] = ()  # `--graph MODULE:ATTR`: graph code the operator allows the app to ask

    @property
    def folders(self) -> tuple[Path, ...]:
        """Where the data picker looks: the given paths, else the default folders."""
        if self.paths:
            return self.paths
        base = self.allow.base
        sample = base / "sample_dbs"
        return (sample,) if sample.is_dir() and any(sample.iterdir()) else (base,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `replaylens serve` that the app itself understands."""
    parser.add_argument(
        "paths", nargs="*", metavar="PATH",
        help="Checkpoint databases (.db, .sqlite), kill-test campaign folders, or folders holding "
        "either. The app lists every database it finds there. Default: sample_dbs/ if it has "
        "files, else the working folder.",
    )  # fmt: skip
    parser.add_argument(
        "--effects", metavar="LOG",
        help="An effects log (JSON Lines written by record_effect) to use for databases that have "
        "no <name>.effects.jsonl next to them.",
    )  # fmt: skip
    parser.add_argument(
        "--dsn-file", metavar="FILE", action="append", default=[],
        help="Read a Postgres connection string from FILE (its first line that is not a # comment), "
        "so that its password is not on the command line (repeatable). A PATH may also be "
        "env:NAME, the name of an environment variable holding the connection string.",
    )  # fmt: skip
    parser.add_argument(
        "--allow", metavar="DIR", action="append", default=[],
        help="Also allow the app to open files inside DIR (repeatable). The working folder and "
        "sample_dbs/ are always allowed, and so is every PATH given; any other path, including "
        "one pasted into a URL, is refused.",
    )  # fmt: skip
    parser.add_argument(
        "--no-cache", action="store_true",
        help="Derive every thread status from the database; never read or write the status cache "
        "($REPLAYLENS_CACHE_DIR, default ~/.cache/replaylens).",
    )  # fmt: skip
    parser.add_argument(
        "--graph", metavar="MODULE:ATTR", action="append", default=[],
        help="Your graph code ('package.module:attribute' or 'file.py:attribute', as in langgraph.json; "
        "repeatable): the sidebar's 'Graph code' field offers it, and the pages then show LangGraph's own "
        "get_state_history beside the rows' answer, asked in a child process through a read-only saver. "
        "The field offers only what is given here: no one reaching the page can name other code.",
    )  # fmt: skip


def parse(argv: Sequence[str], base: str | os.PathLike[str] | None = None) -> ServeConfig:
    """Turn the pass-through arguments into a config (paths resolved, allow-list built)."""
    parser = argparse.ArgumentParser(prog="replaylens serve", add_help=False)
    add_arguments(parser)
    args, _unknown = parser.parse_known_args(list(argv))
    base_path = Path(base or os.getcwd()).resolve()

    def resolve(p: str) -> Path:
        path = Path(p)
        return (path if path.is_absolute() else base_path / path).resolve()

    dsns = tuple(d for d in (_resolved_dsn(p) for p in args.paths if is_dsn(p)) if d)
    paths = tuple(resolve(p) for p in args.paths if not is_dsn(p))
    effects = resolve(args.effects) if args.effects else None
    # Whatever the operator named explicitly is allowed; so are the defaults.
    allowed = [*DEFAULT_ALLOWED, *args.allow, *(str(p) for p in paths)]
    if effects is not None:
        allowed.append(str(effects))
    return ServeConfig(
        paths,
        effects,
        AllowList.build(allowed, base_path),
        dsns,
        no_cache=bool(args.no_cache),
        graphs=tuple(dict.fromkeys(str(g) for g in args.graph)),
    )


ENV_DSNS = "REPLAYLENS_SERVE_DSNS"


def is_dsn(arg: str) -> bool:
    """A Postgres connection string (URI in any letter case, or libpq key=value): replaylens.dsn."""
    from replaylens import dsn

    return dsn.names_postgres(arg)


def _resolved_dsn(spec: str) -> str | None:
    """An `env:NAME` argument's DSN (None if unset); a DSN as given."""
    from replaylens import dsn

    try:
        return dsn.resolve(spec)
    except dsn.DsnError:
        return None


def _env_dsns() -> list[str]:
    """Connection strings reach the app through the environment, never its argv: a password
    on a command line is visible to every user of the machine through `ps`."""
    try:
        value = json.loads(settings.get(ENV_DSNS) or "[]")
    except ValueError:
        return []
    return (
        [str(v) for v in value if isinstance(v, str) and is_dsn(v)]
        if isinstance(value, list)
        else []
    )


def from_environment(argv: Sequence[str], *, under_test: bool) -> ServeConfig:
    """The config of this app process: `REPLAYLENS_SERVE_ARGS` (JSON list) wins over argv;
    `REPLAYLENS_SERVE_DSNS` adds Postgres connection strings."""
    conf = _from_args(argv, under_test=under_test)
    extra = tuple(d for d in _env_dsns() if d not in conf.dsns)
    return replace(conf, dsns=conf.dsns + extra) if extra else conf


def _from_args(argv: Sequence[str], *, under_test: bool) -> ServeConfig:
    raw = settings.get(ENV_ARGS) or None
    if raw:
        try:
            given = json.loads(raw)
        except ValueError:
            given = raw.split()
        return parse([str(a) for a in given] if isinstance(given, list) else [])
    return parse([] if under_test else list(argv))
