"""`one_reading_scope`: what one what-if derives from the thread alone, derived once.

The what-if reads one thread a dozen times (a reading per candidate mode and per ambiguity);
the scope must make the thread's facts computed once there, and never hand out an answer a
caller could change for the next reader."""

from __future__ import annotations

from pathlib import Path

from replaylens.analysis.durability import evidence, one_reading_scope
from replaylens.analysis.durability._memo import per_thread
from replaylens.analysis.status import load_thread
from replaylens.model import Thread
from replaylens.sources import open_source

SUBGRAPH_KILL = (
    Path(__file__).resolve().parents[1] / "sample_dbs/subgraph/runs/async-0s-s21-1/at-kill.db"
)


def _counted() -> tuple[list[object], object]:
    seen: list[object] = []

    @per_thread
    def nodes_of(thread: Thread) -> set[str]:
        seen.append(thread)
        return {"a", "b"}

    return seen, nodes_of


def test_inside_the_scope_each_thread_is_read_once() -> None:
    seen, nodes_of = _counted()
    one, two = Thread("t1", {}), Thread("t2", {})
    with one_reading_scope():
        for _ in range(3):
            nodes_of(one)  # type: ignore[operator]
        nodes_of(two)  # type: ignore[operator]
        with one_reading_scope():  # a scope inside a scope is the same one
            nodes_of(one)  # type: ignore[operator]
    assert seen == [one, two]


def test_outside_the_scope_nothing_is_kept() -> None:
    seen, nodes_of = _counted()
    one = Thread("t1", {})
    with one_reading_scope():
        nodes_of(one)  # type: ignore[operator]
    nodes_of(one)  # type: ignore[operator]
    nodes_of(one)  # type: ignore[operator]
    assert len(seen) == 3


def test_an_answer_changed_by_its_caller_does_not_change_the_next() -> None:
    _seen, nodes_of = _counted()
    one = Thread("t1", {})
    with one_reading_scope():
        first = nodes_of(one)  # type: ignore[operator]
        first |= {"c"}  # gather adds the nodes a stop shows to the paused ones in place
        assert nodes_of(one) == {"a", "b"}  # type: ignore[operator]


def test_the_thread_checkpoints_are_one_tuple_within_a_reading() -> None:
    """The checkpoint-list functions know the thread's checkpoints by identity: gather must
    get the same tuple each time inside one reading, or nothing is shared."""
    source = open_source(SUBGRAPH_KILL)
    try:
        corpus_thread = load_thread(source, "killtest-async-0s-s21-1")
    finally:
        source.close()
    with one_reading_scope():
        first = evidence._db_checkpoints(corpus_thread)
        assert evidence._db_checkpoints(corpus_thread) is first
        assert len(first) == corpus_thread.checkpoint_count
