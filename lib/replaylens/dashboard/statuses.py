"""Statuses that arrive while the Threads page is already on screen (no Streamlit here).

The page's first screen is the thread list from SQL alone (`thread_index`: ids, counts,
latest step and time). A `StatusJob` then derives the statuses in a background thread,
batch by batch (`derive_statuses`: cached ones at once, changed ones from their latest
checkpoint), and the page polls `progress()` to redraw. The job only reads: the source's
connections are read-only and the status cache lives outside the database.

Before any check lands, the statuses the cache stored for threads whose latest checkpoint
is unchanged are offered as `provisional()`, with the time the cache was saved: the page
shows them at once marked "as of <time>, re-checking" (never as current), and each is
replaced as soon as its check arrives in `results()`. On Postgres the check for changes
costs one index seek per thread (1.3 s on 100,000 threads); the stored status does not wait.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from replaylens._bulk import collector_paused
from replaylens.analysis.status import ThreadSummary, derive_statuses
from replaylens.cache import CachedStatus, StatusCache
from replaylens.errors import ReplaylensError
from replaylens.sources import CheckpointSource, ThreadIndexRow


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
        self._provisional: dict[str, CachedStatus] = {}
        self._as_of: float | None = None
        self._thread = threading.Thread(target=self._run, name="replaylens-statuses", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with collector_paused():  # see summarize_threads: no cycles, 100,000 records
                if self._cache is not None:
                    provisional, as_of = self._cache.provisional(self.index)
                    with self._lock:
                        self._provisional, self._as_of = provisional, as_of
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

    def provisional(self) -> tuple[dict[str, CachedStatus], float | None]:
        """Stored statuses not checked yet (by thread id; none once the job is finished) and
        when they were stored: to show marked "as of <time>, re-checking", never as current."""
        with self._lock:
            if self._finished:
                return {}, self._as_of
            return {t: c for t, c in self._provisional.items() if t not in self._found}, self._as_of

    def wait(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()
