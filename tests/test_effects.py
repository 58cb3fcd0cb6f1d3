"""The effects log: parsing with line-numbered problems, and a recorder safe under concurrency."""

from __future__ import annotations

import json
import multiprocessing
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replaylens import record_effect
from replaylens.analysis.resume import plan_resume
from replaylens.effects.parse import MAX_LINE_BYTES, parse_record, read_effects


def test_bad_lines_are_reported_by_number_and_good_lines_load(tmp_path: Path) -> None:
    log = tmp_path / "effects.jsonl"
    good = {"thread_id": "t", "node": "a", "phase": "start", "ts": 1.5}
    lines = [
        json.dumps(good),
        "not json at all",
        json.dumps({"thread_id": "t", "node": "a", "phase": "end"}),  # no ts
        json.dumps({**good, "ts": "yesterday"}),
        json.dumps([1, 2]),
        json.dumps({**good, "phase": "charged", "ts": "2026-11-30T10:00:00Z", "custom": {"k": 1}}),
        json.dumps({**good, "step": "three"}),  # wrong optional type: line kept, key ignored
        "",
    ]
    log.write_text("\n".join(lines) + "\n")
    parsed = read_effects(log)
    assert [e.line for e in parsed.lines] == [1, 6, 7]
    assert parsed.bad_lines == 4
    for number in (2, 3, 4, 5, 7):
        assert any(f"line {number}:" in p for p in parsed.problems), number
    assert parsed.lines[1].phase == "charged" and parsed.lines[1].extra == {"custom": {"k": 1}}
    assert parsed.lines[1].ts == datetime(2026, 11, 30, 10, 0, tzinfo=UTC).timestamp()
    assert parsed.lines[2].step is None


def test_an_overlong_line_is_skipped_without_losing_the_next(tmp_path: Path) -> None:
    log = tmp_path / "effects.jsonl"
    with open(log, "w") as fh:
        fh.write(
            '{"thread_id": "t", "node": "'
            + "x" * (MAX_LINE_BYTES + 10)
            + '", "phase": "start", "ts": 1}\n'
        )
        fh.write(json.dumps({"thread_id": "t", "node": "b", "phase": "start", "ts": 2}) + "\n")
    parsed = read_effects(log)
    assert [(e.line, e.node) for e in parsed.lines] == [(2, "b")]
    assert "line 1" in parsed.problems[0] and "longer than" in parsed.problems[0]


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda kids: st.lists(kids) | st.dictionaries(st.text(), kids),
        max_leaves=20,
    )
)
def test_parse_record_never_raises(value: object) -> None:
    line, problems = parse_record(value, 1, "f line 1")
    assert (line is None) == bool(problems) or line is not None


def _write_many(path: str, worker: int, count: int) -> None:
    for i in range(count):
        record_effect("charge", log=path, node=f"w{worker}", seq=i).write("start")


def test_recorder_lines_stay_whole_across_threads_and_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "effects.jsonl")
    threads = [threading.Thread(target=_write_many, args=(path, i, 200)) for i in range(4)]
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_many, args=(path, 10 + i, 200)) for i in range(2)]
    for worker in (*threads, *procs):
        worker.start()
    for worker in (*threads, *procs):
        worker.join(60)
    parsed = read_effects(path)
    assert parsed.problems == []
    assert len(parsed.lines) == 1200
    per_worker = {}
    for line in parsed.lines:
        per_worker[line.node] = per_worker.get(line.node, 0) + 1
    assert per_worker == {f"w{i}": 200 for i in (0, 1, 2, 3, 10, 11)}


def test_idempotency_mistakes_from_the_article_are_named(tmp_path: Path) -> None:
    path = str(tmp_path / "effects.jsonl")
    base = {
        "thread_id": "t",
        "node": "charge",
        "step": 3,
        "task_id": "task-1",
        "effect": "charge_card",
    }
    rows = [
        {**base, "phase": "start", "ts": 1, "pid": 100, "idempotency_key": "uuid-aaa"},
        {
            **base,
            "phase": "start",
            "ts": 5,
            "pid": 200,
            "idempotency_key": "uuid-bbb",
        },  # regenerated
        {
            "thread_id": "t",
            "node": "refund",
            "step": 4,
            "task_id": "task-2",
            "effect": "refund",
            "phase": "start",
            "ts": 6,
            "pid": 200,
            "idempotency_key": "uuid-bbb",
        },  # shared by another operation
    ]
    Path(path).write_text("".join(json.dumps(r) + "\n" for r in rows))
    plan = plan_resume(None, read_effects(path), "t")
    text = " ".join(plan.idempotency_findings)
    assert "2 different idempotency keys" in text and "generated inside the node" in text
    assert "shared by 2 different operations" in text
    assert plan.duplicates and len(plan.duplicates[0]) == 2
    assert {a.pid for a in plan.duplicates[0]} == {100, 200}


def test_recorder_without_a_log_warns_and_never_breaks_the_node(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import pytest

    monkeypatch.delenv("REPLAYLENS_EFFECTS_LOG", raising=False)
    with pytest.warns(RuntimeWarning, match="no log file"):
        with record_effect("charge_card"):
            done = True
    assert done and list(tmp_path.iterdir()) == []


def test_lines_cannot_borrow_text_from_their_neighbours(tmp_path: Path) -> None:
    """Batched parsing must give the same answer as line-by-line parsing on crafted input."""
    good = json.dumps({"thread_id": "t", "node": "a", "phase": "start", "ts": 1})
    log = tmp_path / "effects.jsonl"
    log.write_text(
        "\n".join(
            [
                "1,2",
                "[3",
                "4]",
                '{"thread_id": "t", "node": [',
                '"x"], "phase": "s", "ts": 1}',
                good,
            ]
        )
        + "\n"
    )
    parsed = read_effects(log)
    assert [e.line for e in parsed.lines] == [6]
    assert parsed.bad_lines == 5
    assert all(f"line {n}:" in " ".join(parsed.problems) for n in range(1, 6))


def _effect_row(i: int, **more: object) -> str:
    return json.dumps({"thread_id": "t", "node": f"n{i}", "phase": "start", "ts": i, **more})


def test_block_boundaries_never_change_what_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is read in blocks: wherever a block ends (inside a bad line, a blank one or
    one over the limit), every line keeps its number and its fields."""
    from replaylens.effects import parse

    monkeypatch.setattr(parse, "MAX_LINE_BYTES", 200)
    good = [_effect_row(i, seq=i) for i in range(40)]
    rows = [
        *good[:10],
        "",
        "{broken",
        *good[10:20],
        '{"node": "' + "x" * 300 + '"}',
        *good[20:30],
        "  ",
        *good[30:],
    ]
    log = tmp_path / "effects.jsonl"
    log.write_text("\n".join(rows))  # the last line has no newline
    results = []
    for size in (1, 7, 64, 1000, 1 << 17):
        monkeypatch.setattr(parse, "READ_BYTES", size)
        parsed = read_effects(log)
        results.append(
            ([(e.line, e.node, e.extra) for e in parsed.lines], parsed.problems, parsed.bad_lines)
        )
    lines, problems, bad = results[0]
    numbers = [i for i, row in enumerate(rows, 1) if row.startswith('{"thread_id"')]
    assert [(n, node, extra) for n, node, extra in lines] == [
        (n, f"n{i}", {"seq": i}) for i, n in enumerate(numbers)
    ]
    assert numbers[-1] == 44 and bad == 2
    assert problems == [
        "effects.jsonl line 12: is not valid JSON; skipped.",
        "effects.jsonl line 23: longer than 0 KiB; skipped.",
    ]
    assert all(result == results[0] for result in results[1:])


def test_one_bad_line_in_a_batch_is_named_and_its_neighbours_load(tmp_path: Path) -> None:
    """Lines are decoded and checked a batch at a time; a bad or unusual line sends its
    batch line by line, so it is still named by number and the lines around it still load."""
    rows = [_effect_row(i, z=1, a=2, m=3, b=4) for i in range(300)]
    rows[150] = rows[150][:-1]  # cut short: not JSON
    rows[200] = _effect_row(
        200, z=1, a=2, m=3, b=4, ts="2026-01-01T00:00:00"
    )  # only parse_record reads it
    rows[250] = _effect_row(250, node="")
    log = tmp_path / "effects.jsonl"
    log.write_text("\n".join(rows) + "\n")
    parsed = read_effects(log)
    assert [e.line for e in parsed.lines] == [n for n in range(1, 301) if n not in (151, 251)]
    assert parsed.bad_lines == 2 and len(parsed.problems) == 2
    assert parsed.problems[0] == "effects.jsonl line 151: is not valid JSON; skipped."
    assert parsed.problems[1].startswith(
        "effects.jsonl line 251: 'node' must be a non-empty string"
    )
    assert parsed.lines[199].ts == datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    assert all(list(e.extra) == ["z", "a", "m", "b"] for e in parsed.lines)  # file order


def test_blank_lines_keep_the_numbers_of_the_lines_after_them(tmp_path: Path) -> None:
    log = tmp_path / "effects.jsonl"
    log.write_text(
        "\n".join([_effect_row(1), "", _effect_row(3), _effect_row(4), "", "", _effect_row(7)])
        + "\n"
    )
    parsed = read_effects(log)
    assert [(e.line, e.node) for e in parsed.lines] == [(1, "n1"), (3, "n3"), (4, "n4"), (7, "n7")]
    assert parsed.problems == [] and parsed.bad_lines == 0


def test_times_going_back_are_found_after_a_stretch_in_order(tmp_path: Path) -> None:
    """Only the lines from the first time out of order (or in the future) on are checked
    task by task, but a task's lines before that still count as its earlier lines."""

    def row(task: str, ts: float) -> str:
        return json.dumps(
            {"thread_id": "t", "node": "n", "task_id": task, "phase": "start", "ts": ts}
        )

    future = 4_000_000_000.0
    log = tmp_path / "effects.jsonl"
    log.write_text(
        "\n".join(
            [
                row("a", 10),
                row("b", 20),
                row("c", 30),
                row("a", 15),
                row("b", 18),
                row("a", 12),
                row("c", future),
            ]
        )
        + "\n"
    )
    assert read_effects(log).problems == [
        "effects.jsonl line 5: 'ts' is earlier than line 2 of the same task; kept, ordered by line number.",
        "effects.jsonl line 6: 'ts' is earlier than line 4 of the same task; kept, ordered by line number.",
        "effects.jsonl line 7: 'ts' is in the future (4000000000); kept, ordered by line number.",
    ]
    log.write_text(
        "\n".join([row("a", 1), row("a", 2), row("a", future), row("a", future + 1)]) + "\n"
    )
    assert [p.split(":")[0] for p in read_effects(log).problems] == [
        "effects.jsonl line 3",
        "effects.jsonl line 4",
    ]


def test_a_block_left_by_a_pause_or_a_hand_on_is_no_failure(tmp_path: Path) -> None:
    """`interrupt()` raises GraphInterrupt through the block: the effect paused. A real
    `Command(graph=PARENT)` raised as `ParentCommand` hands control on: the block ended. Any
    other exception failed it, with its text."""
    from langgraph.errors import GraphInterrupt, ParentCommand
    from langgraph.types import Command

    log = tmp_path / "e.jsonl"
    for exc in (GraphInterrupt(()), ParentCommand(Command(graph=Command.PARENT)), KeyError("k")):
        with pytest.raises(type(exc)), record_effect("step", log=log, node="n", thread_id="t"):
            raise exc
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["phase"] for r in lines] == ["start", "interrupted", "start", "end", "start", "error"]
    assert lines[-1]["error"] == "KeyError: 'k'"
