"""Statuses that arrive while the Threads page is already on screen (no Streamlit here).

The page's first screen is the thread list from SQL alone (`thread_index`: ids, counts,
latest step and time). A `StatusJob` then derives the statuses in a background thread,
batch by batch (`derive_statuses`: cached ones at once, changed ones from their latest
checkpoint), and the page polls `progress()` to redraw. The job only reads: the source's
connections are read-only and the status cache lives outside the database.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from replaylens._bulk import collector_paused
from replaylens.analysis.status import ThreadSummary, derive_statuses
from replaylens.cache import StatusCache
from replaylens.errors import ReplaylensError
from replaylens.sources._base import CheckpointSource, ThreadIndexRow


@dataclass(frozen=True)
class Progress:
    """How far a job is, as the page shows it."""

    done: int
    total: int
    finished: bool
    error: str | None

    @property
    def fraction(self) -> float:
        return 1.0 if self.total == 0 else self.done / self.total


class StatusJob:
    """Derives the statuses of one thread list in a daemon thread; read its results any time."""

    def __init__(
        self, source: CheckpointSource, index: list[ThreadIndexRow], cache: StatusCache | None
    ) -> None:
        self.index = index
        self.started = time.perf_counter()
        self.seconds: float | None = None
        self._source = source
        self._cache = cache
        self._lock = threading.Lock()
        self._found: dict[str, ThreadSummary] = {}
        self._problems: list[str] = []
        self._finished = False
        self._error: str | None = None
        self._thread = threading.Thread(target=self._run, name="replaylens-statuses", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with collector_paused():  # see summarize_threads: no cycles, 100,000 records
                self._derive_all()
        except ReplaylensError as exc:
            with self._lock:
                self._error = str(exc)
        finally:
            with self._lock:
                if self._cache is not None:
                    self._problems += self._cache.notes
                self._finished = True
                self.seconds = time.perf_counter() - self.started

    def _derive_all(self) -> None:
        for part in derive_statuses(self._source, self.index, self._cache):
            with self._lock:
                self._found.update((s.thread_id, s) for s in part.summaries)
                self._problems += part.problems

    def progress(self) -> Progress:
        with self._lock:
            return Progress(len(self._found), len(self.index), self._finished, self._error)

    def results(self) -> tuple[dict[str, ThreadSummary], list[str]]:
        """The statuses derived so far (by thread id) and the problems met."""
        with self._lock:
            return dict(self._found), list(self._problems)

    def wait(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()
