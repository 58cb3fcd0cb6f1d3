"""Which files the dashboard may open: the folders the operator allowed, nothing else.

The dashboard takes file names from URLs (`?db=...`), and a URL can be pasted by anyone
who can reach the port. So a path is accepted only if, after resolving symbolic links,
it lies inside one of the allowed folders; a path with a `..` component is refused
outright (even when it would resolve inside), because the person who wrote it meant to
step out of somewhere. Every refusal is one sentence saying what to do instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from replaylens.errors import ReplaylensError


class PathRefused(ReplaylensError):
    """The path lies outside the folders the operator allowed."""


def _describe(roots: Iterable[Path]) -> str:
    names = [str(r) for r in roots]
    if not names:
        return "no folder"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


@dataclass(frozen=True)
class AllowList:
    """Resolved folders (and single files) the dashboard may read from."""

    roots: tuple[Path, ...]
    base: Path

    @classmethod
    def build(
        cls, folders: Iterable[str | os.PathLike[str]], base: str | os.PathLike[str] | None = None
    ) -> AllowList:
        """Resolve each folder once, relative to `base` (default: the working folder)."""
        base_path = Path(base or os.getcwd()).resolve()
        roots: list[Path] = []
        for folder in folders:
            p = Path(folder)
            resolved = (p if p.is_absolute() else base_path / p).resolve()
            if resolved not in roots:
                roots.append(resolved)
        return cls(tuple(roots), base_path)

    def with_root(self, folder: str | os.PathLike[str]) -> AllowList:
        """A copy that also allows `folder` (the upload folder of the running app)."""
        resolved = Path(folder).resolve()
        if resolved in self.roots:
            return self
        return AllowList((*self.roots, resolved), self.base)

    def contains(self, resolved: Path) -> bool:
        return any(resolved == root or resolved.is_relative_to(root) for root in self.roots)

    def check(self, path: str | os.PathLike[str]) -> Path:
        """The resolved path if it may be read; PathRefused (one sentence) otherwise."""
        raw = os.fspath(path)
        if not raw or "\x00" in raw:
            raise PathRefused(
                "An empty or malformed path was given; pick a database from the list instead."
            )
        given = Path(raw)
        allowed = _describe(self.roots)
        if ".." in given.parts:
            raise PathRefused(
                f"{raw}: refused because it contains '..'; give a path inside {allowed}."
            )
        candidate = given if given.is_absolute() else self.base / given
        resolved = candidate.resolve()
        if self.contains(resolved):
            return resolved
        if self.contains(Path(os.path.abspath(candidate))):
            raise PathRefused(
                f"{raw}: refused because it is a symbolic link to {resolved}, which is outside "
                f"the folders this app may read ({allowed})."
            )
        raise PathRefused(
            f"{raw}: refused because it is outside the folders this app may read ({allowed}); "
            "start it with `replaylens serve --allow FOLDER` to add one."
        )

    def key(self, resolved: Path) -> str:
        """How the path appears in a URL: relative to the working folder when inside it."""
        try:
            return resolved.relative_to(self.base).as_posix()
        except ValueError:
            return resolved.as_posix()


SQLITE_SIDECARS = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database: writing one of them changes the database."""


def refuse_evidence_out(
    out: str | os.PathLike[str], evidence: Iterable[str | os.PathLike[str]]
) -> None:
    """Raise PathRefused (one sentence) when writing `out` would change a piece of evidence:
    the file itself (also through a link or another name of the same inode) or, for a
    database, its `-wal`, `-shm` or `-journal`."""
    target = Path(out)
    real = target.resolve()
    for item in evidence:
        src = Path(item)
        for suffix in ("", *SQLITE_SIDECARS):
            guarded = Path(f"{src}{suffix}")
            same = real == guarded.resolve()
            if not same and target.exists() and guarded.exists():
                try:
                    same = os.path.samefile(target, guarded)
                except OSError:
                    same = False
            if same:
                what = (
                    "the evidence being read" if not suffix else f"the {suffix[1:]} file of {src}"
                )
                raise PathRefused(
                    f"{os.fspath(out)}: refused because it is {what}; writing there would change it. "
                    "Give --out a new file."
                )
