"""The one home of time rules (`replaylens.times`): the time inside a LangGraph checkpoint id,
and the way times are written, checked against LangGraph's own `uuid6` and the calendar."""

from __future__ import annotations

import datetime as dt
import random
import time

from langgraph.checkpoint.base.id import uuid6

from replaylens.times import (
    checkpoint_id_epoch,
    checkpoint_id_time,
    iso_to_epoch,
    utc_iso,
    uuid6_prefix_epoch,
)

GREGORIAN = dt.datetime(1582, 10, 15, tzinfo=dt.UTC)


def test_the_time_in_an_id_is_when_langgraph_made_it() -> None:
    rng = random.Random(11)
    for _ in range(200):
        before = time.time()
        cid = str(uuid6(clock_seq=rng.randrange(16384)))
        after = time.time()
        epoch = checkpoint_id_epoch(cid)
        assert epoch is not None and before - 1e-6 <= epoch <= after + 1e-6, cid
        # the ISO text (to the microsecond) and the epoch (a float) are the same instant
        assert abs(iso_to_epoch(checkpoint_id_time(cid)) - epoch) < 2e-6  # type: ignore[operator]
        start = uuid6_prefix_epoch(cid[:8])
        assert start is not None and start <= epoch < start + (1 << 28) / 1e7


def test_the_rule_on_hand_made_ids_and_non_ids() -> None:
    whole = dt.datetime(2026, 12, 1, 12, 0, 0, tzinfo=dt.UTC) - GREGORIAN
    stamp = f"{int(whole.total_seconds()) * 10_000_000:015x}"
    cid = f"{stamp[:8]}-{stamp[8:12]}-6{stamp[12:15]}-8000-000000000000"
    assert checkpoint_id_epoch(cid) == dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC).timestamp()
    for bad in (
        None,
        "",
        "not-an-id",
        "1f000000-0000-4000-8000-000000000000",
        "zzzzzzzz-0000-6000-8000-000000000000",
    ):
        assert checkpoint_id_epoch(bad) is None and checkpoint_id_time(bad) is None
    assert uuid6_prefix_epoch("zzzzzzzz") is None


def test_utc_iso_is_the_one_written_form() -> None:
    assert utc_iso(0) == "1970-01-01T00:00:00Z"
    assert utc_iso(1_796_083_200.7) == "2026-12-01T00:00:00Z"
    assert utc_iso(1e20) == "1e+20 (epoch seconds)"
    now = iso_to_epoch(utc_iso())
    assert now is not None and abs(now - time.time()) < 2
