"""A real LangGraph run traced by every setup at once, in a child process the test may kill.

Run as `python tests/trace_child.py SPEC_JSON`. The graph (`shop`) is modelled on
LangGraph's own tests: a `Send` fan-out as in `test_send_sequences`, a subgraph as in
`test_subgraph_checkpoint_true`, `interrupt()` as in `test_interrupt_subgraph` (here inside a
tool), and a failing node as in `test_checkpoint_errors`. Every side effect is a LangChain
tool that calls `record_effect`, so the same run leaves an effects log and every trace:

- OpenInference on an SDK tracer provider: SimpleSpanProcessor into the Collector's file
  shape (`oi.otlp.jsonl`: hex ids, integer enums) and protobuf's `MessageToJson`
  (`oi.pbjson.jsonl`: base64 ids, enum names), BatchSpanProcessor into `oi-batch.otlp.jsonl`,
  and replaylens.tracing's `StartRecordsProcessor` (`spans.jsonl`);
- OpenLLMetry (Traceloop) on another provider, SimpleSpanProcessor and the real
  `OTLPSpanExporter` (protobuf over HTTP) to the test's recording server, and its own
  `StartRecordsProcessor` (`spans-openllmetry.jsonl`);
- Langfuse's LangChain `CallbackHandler` and LangSmith's client (LANGSMITH_TRACING), both
  sending to the test's recording server, which keeps the request bodies as files;
- replaylens.tracing's `EffectsCallbackHandler` (`callbacks.jsonl`).

`charge` tells the test's server where it is and waits, before or after its `charge_card`
tool: the test kills the process on that request (an event), once the servers have what the
clients sent.
"""

from __future__ import annotations

import base64
import json
import operator
import os
import sys
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

from replaylens import record_effect

SPEC: dict[str, Any] = json.loads(sys.argv[1]) if __name__ == "__main__" else {}
OUT = Path(SPEC.get("out", "."))


def _environment() -> None:
    """The clients' settings, read when they start: before the first traced invoke."""
    if SPEC.get("traced"):
        os.environ.update(
            LANGSMITH_TRACING="true",
            LANGSMITH_ENDPOINT=f"{SPEC['server']}/langsmith",
            LANGSMITH_API_KEY="test-key",
            LANGSMITH_PROJECT="replaylens-traces",
            LANGFUSE_HOST=f"{SPEC['server']}/langfuse",
            LANGFUSE_BASE_URL=f"{SPEC['server']}/langfuse",
            LANGFUSE_PUBLIC_KEY="pk-lf-test",
            LANGFUSE_SECRET_KEY="sk-lf-test",
            LANGFUSE_FLUSH_AT="1",
            LANGFUSE_FLUSH_INTERVAL="0.2",
        )
    os.environ["REPLAYLENS_EFFECTS_LOG"] = str(OUT / SPEC.get("effects", "effects.jsonl"))


@tool
def reserve(item: str) -> str:
    """Reserve stock for one item."""
    with record_effect("reserve", item=item):
        return f"reserved {item}"


@tool
def charge_card(amount: float) -> str:
    """Charge the customer's card."""
    with record_effect("charge_card", amount=amount):
        return "charged"


@tool
def send_receipt(to: str) -> str:
    """Send the receipt."""
    with record_effect("send_receipt", to=to):
        return "sent"


@tool
def ask_human(question: str) -> str:
    """Ask a person to approve."""
    with record_effect("ask_human"):
        return str(interrupt(question))


class Shop(TypedDict, total=False):
    items: list[str]
    ask: bool
    done: Annotated[list[str], operator.add]


class Receipt(TypedDict, total=False):
    done: Annotated[list[str], operator.add]


def plan(state: Shop) -> dict[str, Any]:
    return {}


def fan_out(state: Shop) -> list[Send]:
    return [Send("work", {"item": i}) for i in state.get("items", [])]


def work(state: dict[str, Any]) -> dict[str, Any]:
    reserve.invoke({"item": state["item"]})
    if state["item"] == "bad" and os.environ.get("SHOP_FAIL", "1") == "1":
        raise RuntimeError("no stock for bad")
    return {"done": [state["item"]]}


def approve(state: Shop) -> dict[str, Any]:
    if state.get("ask"):
        ask_human.invoke({"question": "charge?"})
    return {}


def receipt(state: Receipt) -> dict[str, Any]:
    send_receipt.invoke({"to": "customer"})
    return {"done": ["receipt"]}


def _hold(moment: str) -> None:
    """Tell the test's server where the node is and wait for the SIGKILL (the test kills on
    that request: an event, not a time)."""
    if SPEC.get("hold") == moment:
        import urllib.request

        urllib.request.urlopen(urllib.request.Request(f"{SPEC['server']}/hold", moment.encode()))
        threading.Event().wait()


def charge(state: Shop) -> dict[str, Any]:
    _hold("before-charge")  # killed before any traced child ended
    charge_card.invoke({"amount": 42.5})
    _hold("charged")  # killed after the card was charged, the node still running
    return {"done": ["charged"]}


def build(checkpointer: Any) -> Any:
    inner = StateGraph(Receipt)
    inner.add_node("receipt", receipt)
    inner.add_edge(START, "receipt")
    inner.add_edge("receipt", END)
    b = StateGraph(Shop)
    b.add_node("plan", plan)
    b.add_node("work", work)
    b.add_node("approve", approve)
    b.add_node("mail", inner.compile())
    b.add_node("charge", charge)
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", fan_out, ["work"])
    b.add_edge("work", "approve")
    b.add_edge("approve", "mail")
    b.add_edge("mail", "charge")
    b.add_edge("charge", END)
    return b.compile(checkpointer=checkpointer)


class _FileExporter:
    """An SDK span exporter writing OTLP JSON lines as the Collector's file exporter does
    (hex ids, integer enums), or as protobuf's MessageToJson (base64 ids, enum names)."""

    def __init__(self, path: Path, collector: bool) -> None:
        self.path, self.collector = path, collector

    def export(self, spans: Any) -> Any:
        from google.protobuf.json_format import MessageToDict, MessageToJson
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
        from opentelemetry.sdk.trace.export import SpanExportResult

        request = encode_spans(spans)
        if self.collector:
            doc = MessageToDict(request, use_integers_for_enums=True)
            for rs in doc.get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    for span in ss.get("spans", []):
                        for key in ("traceId", "spanId", "parentSpanId"):
                            if key in span:
                                span[key] = base64.b64decode(span[key]).hex()
            line = json.dumps(doc)
        else:
            line = MessageToJson(request, indent=None)
        with open(self.path, "a") as fh:
            fh.write(line + "\n")
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def _trace_setup() -> list[Any]:
    """Instrument LangChain with every tracer; the callback handlers to pass per invoke."""
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    from replaylens.tracing import EffectsCallbackHandler, StartRecordsProcessor

    oi = TracerProvider()
    oi.add_span_processor(SimpleSpanProcessor(_FileExporter(OUT / "oi.otlp.jsonl", True)))
    oi.add_span_processor(SimpleSpanProcessor(_FileExporter(OUT / "oi.pbjson.jsonl", False)))
    oi.add_span_processor(BatchSpanProcessor(_FileExporter(OUT / "oi-batch.otlp.jsonl", True)))
    oi.add_span_processor(StartRecordsProcessor(OUT / "spans.jsonl"))
    LangChainInstrumentor().instrument(tracer_provider=oi)
    ll = TracerProvider()
    ll.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{SPEC['server']}/otlp/v1/traces"))
    )
    ll.add_span_processor(StartRecordsProcessor(OUT / "spans-openllmetry.jsonl"))
    LangchainInstrumentor().instrument(tracer_provider=ll)
    from langfuse.langchain import CallbackHandler

    return [CallbackHandler(), EffectsCallbackHandler(OUT / "callbacks.jsonl")]


def main() -> None:
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    _environment()
    callbacks = _trace_setup() if SPEC.get("traced") else []
    saver = SqliteSaver(sqlite3.connect(SPEC["db"], check_same_thread=False))
    graph = build(saver)
    for run in SPEC["runs"]:
        config: dict[str, Any] = {
            "configurable": {"thread_id": run["thread"]},
            "callbacks": callbacks,
        }
        payload: Any = Command(resume=run["resume"]) if "resume" in run else run.get("input")
        try:
            graph.invoke(payload, config)
        except RuntimeError as exc:
            print(f"failed: {exc}", flush=True)
    if SPEC.get("traced"):
        from langchain_core.tracers.langchain import wait_for_all_tracers
        from langfuse import get_client
        from opentelemetry import trace  # noqa: F401 - the providers flush at exit

        wait_for_all_tracers()
        get_client().flush()


if __name__ == "__main__":
    main()
