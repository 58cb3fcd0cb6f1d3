"""Errors a user sees. Each carries one sentence that names the file, row or line at fault."""

from __future__ import annotations


class ReplaylensError(Exception):
    """An error with a message written for the person at the keyboard, not a traceback."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class SourceError(ReplaylensError):
    """The database cannot be opened or is not a LangGraph checkpoint database."""


class ThreadNotFound(ReplaylensError):
    """The thread id names no thread in the database (or effects log)."""


class EffectsLogError(ReplaylensError):
    """The effects log cannot be read at all (missing file, not readable)."""
