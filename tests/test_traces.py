"""Traces as effects evidence: every format a team has, from one real killed run.

`trace_runs.traced_run` runs the `shop` graph of `trace_child.py` under OpenInference,
OpenLLMetry, Langfuse, LangSmith and replaylens.tracing at once (the LangSmith and Langfuse
clients send to a recording server on 127.0.0.1: real client output), kills it with
SIGKILL in `charge` after `charge_card`, and resumes it. Each trace must give the verdicts
the `record_effect` log of the same run gives, and those must be what LangGraph really
re-executed on resume. No trace file here is written by hand.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from replaylens.analysis.again import again_rows
from replaylens.analysis.plan import ResumePlan
from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread
from replaylens.cli import main
from replaylens.effects import traces
from replaylens.effects.parse import EffectsLog, read_effects
from replaylens.errors import EffectsLogError
from replaylens.sources import open_source

sys.path.insert(0, str(Path(__file__).parent))
from trace_runs import TracedRun, traced_run  # noqa: E402

THREADS = ("t-kill", "t-ask", "t-fail", "t-early")
TRACES = {
    # file: (the format the note must name, whether the killed task has a start of its own)
    "oi.otlp.jsonl": (
        "OTLP JSON lines with hex ids (the Collector's file exporter) from OpenInference",
        False,
    ),
    "oi.pbjson.jsonl": (
        "OTLP JSON with base64 ids (protobuf's JSON mapping) from OpenInference",
        False,
    ),
    "oi.otlp.jsonl.gz": ("from OpenInference, gzip-compressed", False),
    "oi.otlp.jsonl.zst": ("from OpenInference, zstd-compressed", False),
    "openllmetry.otlp.pb": ("OTLP protobuf from OpenLLMetry (Traceloop)", False),
    "langfuse.otlp.pb.gz": ("OTLP protobuf from Langfuse, gzip-compressed", False),
    "langsmith.jsonl": ("LangSmith runs", True),
    "langsmith.parquet": ("LangSmith runs (Parquet bulk export)", True),
    "langsmith.runs.json": ("LangSmith runs", True),
    "langfuse.observations.json": ("Langfuse observations (export)", False),
    "spans.jsonl": ("start records of replaylens.tracing's span processor", True),
    "spans-openllmetry.jsonl": ("start records of replaylens.tracing's span processor", True),
    "callbacks.jsonl": ("effects log", True),
}
CHARGE = "run `charge` again (`charge_card` once)"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> TracedRun:
    return traced_run(tmp_path_factory.mktemp("traces"))


def plans(run: TracedRun, log: EffectsLog) -> dict[str, ResumePlan]:
    source = open_source(run.db)
    try:
        return {t: plan_resume(load_thread(source, t), log, t) for t in THREADS}
    finally:
        source.close()


def rows(plan: ResumePlan) -> list[tuple[str, str, str, int]]:
    return [(r.why, r.node, r.effect, r.times) for r in again_rows(plan)]


@pytest.fixture(scope="module")
def recorded(run: TracedRun) -> dict[str, ResumePlan]:
    """The verdicts from the `record_effect` log of the same run."""
    return plans(run, read_effects(run.at_kill / "effects.jsonl"))


@pytest.mark.parametrize("name", sorted(TRACES))
def test_each_trace_gives_the_record_effect_verdicts(
    run: TracedRun, recorded: dict[str, ResumePlan], name: str
) -> None:
    log = read_effects(run.at_kill / name)
    fmt, _ = TRACES[name]
    assert fmt in log.source and not log.problems, (log.source, log.problems)
    assert name == "callbacks.jsonl" or any(fmt in n or name in n for n in log.notes), log.notes
    got = plans(run, log)
    for tid in THREADS:
        assert rows(got[tid]) == rows(recorded[tid]), (tid, got[tid].verdict_sentence())
        # No task is an effect of its own name: a task line names no effect.
        assert all(r.effect != r.node for r in again_rows(got[tid]))
    # The killed task is one execution, in flight: its tool's lines are part of it.
    charge = [a for a in got["t-kill"].attempts if a.node == "charge"]
    assert len(charge) == 1 and charge[0].outcome == "in flight", [a.to_json() for a in charge]
    assert not any(p.duplicates for p in got.values())
    # A pause is not a failure: the interrupt inside `ask_human`, the exception in `work`.
    assert [a.outcome for a in got["t-ask"].attempts if a.node == "approve"] == ["interrupted"]
    assert sorted(a.outcome for a in got["t-fail"].attempts if a.node == "work") == [
        "failed",
        "finished",
    ]
    assert CHARGE in got["t-kill"].verdict_sentence()
    assert "`approve` again (`ask_human` once)" in got["t-ask"].verdict_sentence()
    assert "`work` again (`reserve` once)" in got["t-fail"].verdict_sentence()


def test_the_verdicts_are_what_langgraph_re_executed(
    run: TracedRun, recorded: dict[str, ResumePlan]
) -> None:
    """The real resume (a fresh process, no tracing) started again exactly the predicted
    effects: those it started that had already started before the kill."""
    before = {
        (e.thread_id, e.node, e.effect)
        for e in read_effects(run.at_kill / "effects.jsonl").lines
        if e.phase == "start"
    }
    again = Counter(
        key
        for e in read_effects(run.after).lines
        if e.phase == "start" and (key := (e.thread_id, e.node, e.effect)) in before
    )
    predicted = Counter(
        {(t, node, effect): n for t in THREADS for _, node, effect, n in rows(recorded[t])}
    )
    assert again == predicted and again[("t-kill", "charge", "charge_card")] == 1


def test_which_setups_show_the_killed_task(run: TracedRun) -> None:
    """OpenTelemetry never exports the killed `charge` span: its start is inferred from the
    `charge_card` span that ended inside it. LangSmith (posted at start), the span
    processor's start records and the callback handler show the task itself."""
    for name, (_, own_start) in TRACES.items():
        starts = [
            e
            for e in read_effects(run.at_kill / name).for_thread("t-kill")
            if e.node == "charge" and e.phase == "start" and e.describes_task
        ]
        assert len(starts) == 1, (name, starts)
        assert bool(starts[0].extra.get("inferred")) is not own_start, name


@pytest.mark.parametrize("name", sorted(TRACES))
def test_a_task_killed_before_any_traced_child_ended(run: TracedRun, name: str) -> None:
    """`t-early` was killed as `charge` started. OpenTelemetry has no span of it at all: the
    verdict says the trace cannot tell, never that nothing repeats. LangSmith's posted run,
    the span processor's start records and the callback handler show the task itself."""
    shows = TRACES[name][1]
    log = read_effects(run.at_kill / name)
    charge = [e for e in log.for_thread("t-early") if e.node == "charge"]
    sentence = plans(run, log)["t-early"].verdict_sentence()
    assert "repeats no recorded side effect" not in sentence, sentence
    if shows:
        assert [e.phase for e in charge] == ["start"] and not charge[0].extra.get("inferred")
        assert "re-runs `charge`; the " in sentence and "records no side effect of it" in sentence
    else:
        assert charge == [] and traces.OTEL_LIMIT in sentence, sentence


def test_a_batch_processor_trace_says_what_it_cannot_show(run: TracedRun) -> None:
    """BatchSpanProcessor: the killed process's spans were never exported. The verdict must
    say the trace cannot show the killed task, never that nothing repeats."""
    log = read_effects(run.at_kill / "oi-batch.otlp.jsonl")
    assert not log.for_thread("t-kill") and log.for_thread("t-ask")
    sentence = plans(run, log)["t-kill"].verdict_sentence()
    assert traces.OTEL_LIMIT in sentence and "repeats no recorded side effect" not in sentence
    assert "charge_card" not in sentence


def test_bad_lines_are_named_and_the_rest_loads(run: TracedRun, tmp_path: Path) -> None:
    for name in ("oi.otlp.jsonl", "langsmith.jsonl"):
        good = (run.at_kill / name).read_bytes().splitlines(keepends=True)
        broken = tmp_path / name
        broken.write_bytes(
            good[0] + b"{not json\n" + b'{"resourceSpans": 3}\n' + b"".join(good[1:])
        )
        log = read_effects(broken)
        assert [p.split(":")[0] for p in log.problems] == [f"{name} line 2", f"{name} line 3"], (
            log.problems
        )
        assert log.bad_lines == 2
        assert rows(plans(run, log)["t-kill"]) == rows(
            plans(run, read_effects(run.at_kill / name))["t-kill"]
        )


def test_decoding_is_bounded(
    run: TracedRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.otlp.jsonl.gz"
    big.write_bytes(gzip.compress((run.at_kill / "oi.otlp.jsonl").read_bytes() * 4))
    monkeypatch.setattr(
        traces, "MAX_TRACE_BYTES", len((run.at_kill / "oi.otlp.jsonl").read_bytes()) * 2
    )
    with pytest.raises(EffectsLogError, match=r"^big\.otlp\.jsonl\.gz: decompresses to more than"):
        read_effects(big)
    value: dict[str, object] = {"stringValue": "x"}
    for _ in range(200):  # an attribute value nested 200 deep: valid JSON, refused by depth
        value = {"kvlistValue": {"values": [{"key": "k", "value": value}]}}
    span = {
        "name": "x",
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "attributes": [{"key": "metadata", "value": value}],
    }
    deep = tmp_path / "deep.otlp.jsonl"
    good = (run.at_kill / "oi.otlp.jsonl").read_text()
    deep.write_text(
        good + json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n"
    )
    log = read_effects(deep)  # one sentence for the deep line, the rest loads
    assert len(log.problems) == 1 and log.problems[0].startswith(
        f"deep.otlp.jsonl line {good.count(chr(10)) + 1}: "
    )
    assert log.problems[0].endswith("; skipped.") and log.for_thread("t-kill")


def test_parquet_without_pyarrow_is_one_sentence(run: TracedRun) -> None:
    code = (
        "import sys; sys.modules['pyarrow'] = None\n"  # as if the optional package were absent
        "from replaylens.effects.parse import read_effects\n"
        "from replaylens.errors import EffectsLogError\n"
        f"try: read_effects({str(run.at_kill / 'langsmith.parquet')!r})\n"
        "except EffectsLogError as exc: print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "langsmith.parquet: reading LangSmith's Parquet export needs the optional pyarrow "
        "package (pip install 'replaylens[parquet]')."
    ), out.stderr


def test_convert_writes_the_ordinary_log(
    run: TracedRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "effects.jsonl"
    assert (
        main(["effects", "convert", str(run.at_kill / "openllmetry.otlp.pb"), "--out", str(out)])
        == 0
    )
    printed = capsys.readouterr()
    assert "OTLP protobuf from OpenLLMetry" in printed.out and traces.OTEL_LIMIT in printed.out
    converted = read_effects(out)
    assert converted.source == "effects log" and converted.limits[0] == traces.OTEL_LIMIT
    original = plans(run, read_effects(run.at_kill / "openllmetry.otlp.pb"))
    again = plans(run, converted)
    assert {t: rows(p) for t, p in again.items()} == {t: rows(p) for t, p in original.items()}
    assert again["t-kill"].verdict_sentence() == original["t-kill"].verdict_sentence()
    assert main(["effects", "convert", str(run.at_kill / "oi.otlp.jsonl"), "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_cli_replay_takes_a_trace_as_effects(
    run: TracedRun, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "replay",
            str(run.db),
            "--thread",
            "t-kill",
            "--effects",
            str(run.at_kill / "langsmith.jsonl"),
        ]
    )
    printed = capsys.readouterr()
    assert code == 0 and "charge again (charge_card once)" in printed.out, printed.out
    assert "note: langsmith.jsonl is a trace, read as LangSmith runs" in printed.err


def test_killtest_callbacks_lines_name_no_effect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kill test's callbacks source: a task line with `effect=<node>` made the node show
    up as an effect of its own name in "what happens again"; its lines now describe the task."""
    import sqlite3

    import trace_child
    from langgraph.checkpoint.sqlite import SqliteSaver

    from replaylens.killtest.harness import node_start_handler

    monkeypatch.setenv("REPLAYLENS_EFFECTS_LOG", str(tmp_path / "recorded.jsonl"))
    log = tmp_path / "callbacks.jsonl"
    db = tmp_path / "shop.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    graph = trace_child.build(SqliteSaver(conn))
    handler = node_start_handler(callbacks_log=str(log), thread_id="t-ask")
    graph.invoke(
        {"items": ["a"], "ask": True},
        {"configurable": {"thread_id": "t-ask"}, "callbacks": [handler]},
    )
    conn.close()
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines and all("effect" not in x and x["describes"] == "task" for x in lines)
    source = open_source(db)
    try:
        plan = plan_resume(load_thread(source, "t-ask"), read_effects(log), "t-ask")
    finally:
        source.close()
    assert again_rows(plan) == [] and "re-runs `approve`" in plan.verdict_sentence()


def test_a_trace_next_to_the_database_is_paired_with_it(
    run: TracedRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As `<name>.effects.jsonl` is: the CLI and the dashboard pair `<name>.traces.*` too."""
    shutil.copy(run.db, tmp_path / "shop.db")
    shutil.copy(run.at_kill / "oi.otlp.jsonl.zst", tmp_path / "shop.traces.jsonl.zst")
    assert main(["replay", str(tmp_path / "shop.db"), "--thread", "t-kill"]) == 0
    printed = capsys.readouterr()
    assert "next to the database: " in printed.err and "shop.traces.jsonl.zst" in printed.err
    assert "charge again (charge_card once)" in printed.out


def test_a_copy_keeps_the_format(run: TracedRun, tmp_path: Path) -> None:
    """A trace renamed to anything is still sniffed by its content, not its name."""
    copy = tmp_path / "shop.effects.jsonl"
    shutil.copy(run.at_kill / "langfuse.otlp.pb.gz", copy)
    assert "OTLP protobuf from Langfuse" in read_effects(copy).source


def _pregel_and_parent_command() -> tuple[Any, Any]:
    """Two real graphs whose task runs LangChain reports unlike a plain node's: a raw
    `Pregel` node whose function has the node's name (a run for the task and one inside it
    for the function), and a subgraph node returning ``Command(graph=PARENT)``
    (`ParentCommand` raised out of it and out of the task that ran the subgraph)."""
    from langgraph.channels import LastValue
    from langgraph.graph import START, StateGraph
    from langgraph.pregel import NodeBuilder, Pregel
    from langgraph.types import Command
    from typing_extensions import TypedDict

    def one(x: int) -> int:
        return x + 1

    raw = Pregel(
        nodes={"one": NodeBuilder().subscribe_only("input").do(one).write_to("output")},
        channels={"input": LastValue(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )

    class S(TypedDict, total=False):
        trail: str

    def hand_on(state: S) -> Command:
        return Command(graph=Command.PARENT, goto="after", update={"trail": "child"})

    sub = StateGraph(S)
    sub.add_node("hand_on", hand_on)
    sub.add_edge(START, "hand_on")
    parent = StateGraph(S)
    parent.add_node("child", sub.compile(), destinations=("after",))
    parent.add_node("after", lambda s: {"trail": "after"})
    parent.add_edge(START, "child")
    return raw, parent.compile()


def _task_lines(lines: list[dict[str, Any]]) -> Counter[tuple[str, str]]:
    return Counter((r["node"], r["phase"]) for r in lines if r.get("describes") == "task")


def _handler_and_trace(graph: Any, value: Any, log: Path) -> tuple[list[dict], list[dict]]:
    """Run a real graph once with `EffectsCallbackHandler` and a LangChain tracer: the lines
    the handler wrote, and the lines the tracer's runs give as a LangSmith trace."""
    from langchain_core.tracers.base import BaseTracer

    from replaylens.effects import langsmith
    from replaylens.effects.spans import spans_to_records
    from replaylens.tracing import EffectsCallbackHandler

    class Runs(BaseTracer):
        def __init__(self) -> None:
            super().__init__()
            self.runs: list[Any] = []

        def _persist_run(self, run: Any) -> None:
            stack = [run]
            while stack:
                r = stack.pop()
                self.runs.append(r)
                stack.extend(r.child_runs)

    tracer = Runs()
    config = {
        "configurable": {"thread_id": "t"},
        "callbacks": [EffectsCallbackHandler(log), tracer],
    }
    graph.invoke(value, config)
    written = [json.loads(line) for line in log.read_text().splitlines()]
    as_runs = [
        {**r.model_dump(exclude={"child_runs", "inputs", "outputs"}), "id": str(r.id)}
        for r in tracer.runs
    ]
    from_trace = spans_to_records([langsmith.to_span(r, "test") for r in as_runs], "test").records
    return written, from_trace


def test_a_task_span_is_one_task_however_langchain_reports_it(tmp_path: Path) -> None:
    """Each task gives one start and one closing line, from the callbacks handler and from a
    trace's runs alike: a run nested in the task's own (same node, same namespace) is not a
    second task, and a task left by `ParentCommand` ended, it did not fail (read as two
    starts, a raw `Pregel` thread split into twice its invocations; read as failures, the
    tasks a `Command(graph=PARENT)` left were taken for a raise that ended the run)."""
    raw, parent = _pregel_and_parent_command()
    for graph, value, nodes in ((raw, 2, ("one",)), (parent, {}, ("child", "hand_on", "after"))):
        written, from_trace = _handler_and_trace(graph, value, tmp_path / f"{nodes[0]}.jsonl")
        expected = Counter({(n, p): 1 for n in nodes for p in ("start", "end")})
        assert _task_lines(written) == expected, written
        assert _task_lines(from_trace) == expected, from_trace


def _own_thread_graph() -> Any:
    """A real graph whose node ``p`` invokes a child graph on a thread of its own (its node
    ``n`` calls a tool, then its subgraph node ``inner`` runs ``k``), then runs a subgraph
    node ``sub`` (node ``m``), an `@entrypoint` ``main`` with an `@task` call ``t1``, and
    ``call_stable``, which invokes a `checkpointer=True` graph (node ``s``): only the child's
    runs are another thread's."""
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.config import get_config
    from langgraph.func import entrypoint, task
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    class S(TypedDict, total=False):
        trail: str

    @tool
    def lookup(q: str) -> str:
        """Look q up."""
        return q

    def n(state: S) -> S:
        lookup.invoke({"q": "x"})
        return {"trail": "n"}

    saver = InMemorySaver()
    sub = StateGraph(S).add_node("m", lambda s: {"trail": "m"}).add_edge(START, "m").compile()
    inner = StateGraph(S).add_node("k", lambda s: {"trail": "k"}).add_edge(START, "k").compile()
    child = StateGraph(S).add_node("n", n).add_node("inner", inner)
    child = child.add_edge(START, "n").add_edge("n", "inner").compile(checkpointer=saver)

    @task
    def t1(trail: str) -> str:
        return trail + " t1"

    @entrypoint()
    def main(state: dict) -> dict:
        return {"trail": t1(state.get("trail", "")).result()}

    def p(state: S) -> S:
        parent = get_config()["configurable"]["thread_id"]
        child.invoke({}, config={"configurable": {"thread_id": f"{parent}:child"}})
        return {"trail": "p"}

    # a `checkpointer=True` graph a node invokes: its levels keep names, not task ids
    stable = StateGraph(S).add_node("s", lambda s: {"trail": "s"}).add_edge(START, "s")
    stable_graph = stable.compile(checkpointer=True)

    def call_stable(state: S) -> S:
        return stable_graph.invoke(state)

    graph = StateGraph(S)
    graph.add_node("p", p).add_node("sub", sub).add_node("main", main)
    graph.add_node("call_stable", call_stable)
    graph.add_edge(START, "p").add_edge("p", "sub").add_edge("sub", "main")
    graph.add_edge("main", "call_stable")
    return graph.compile(checkpointer=saver)


def test_a_graph_a_task_ran_on_a_thread_of_its_own_is_not_its_threads(tmp_path: Path) -> None:
    """test_child_with_own_thread_id_keeps_namespace: LangChain hands the caller's run metadata
    (its `thread_id`) down to a child graph invoked with a thread of its own, whose namespace
    starts again at the root. Read as the caller's root tasks, the child's node was one more
    task again (child_own_thread at 0.05 s from the trace: 2 tasks and 2 lines again where 1
    and 1 were measured). The handler and a trace's runs both mark its task and tool lines
    with the task that ran it (`own_thread_under`), and the log leaves them out of the thread,
    saying so; a subgraph's task, an `@task` call and a `checkpointer=True` graph's task hang
    below their caller (the last by names, its levels keep no task ids) and stay."""
    from replaylens.effects.durable import OWN_THREAD_UNDER

    log = tmp_path / "t.jsonl"
    written, from_trace = _handler_and_trace(_own_thread_graph(), {}, log)
    for lines in (written, from_trace):
        marked = Counter(r.get("effect") or r["node"] for r in lines if OWN_THREAD_UNDER in r)
        assert marked == Counter({"n": 2, "lookup": 2, "inner": 2, "k": 2}), lines
        p_task = next(r["task_id"] for r in lines if r["node"] == "p")
        assert {r[OWN_THREAD_UNDER] for r in lines if OWN_THREAD_UNDER in r} == {p_task}
        kept = {r["node"] for r in lines if OWN_THREAD_UNDER not in r}
        assert kept == {"p", "sub", "m", "main", "t1", "call_stable", "s"}, lines
    read = read_effects(log)
    assert {e.node for e in read.for_thread("t")} == {
        "p",
        "sub",
        "m",
        "main",
        "t1",
        "call_stable",
        "s",
    }
    assert read.line_counts() == {"t": len(written) - 8}
    assert any(
        "a thread of its own" in note and "(nodes inner, k, n)" in note for note in read.notes
    )
