"""One real run of `tests/trace_child.py`, traced by every setup, killed mid-node, resumed.

A recording HTTP server on 127.0.0.1 stands in for LangSmith, Langfuse and an OTLP
collector: it keeps the request bodies the real clients send (LangSmith's `/runs/batch`
JSON, Langfuse's and the OTLP exporter's protobuf), so every trace file is real client
output. The run (module docstring of `trace_child`):

1. a traced child runs `t-ask` (interrupted inside the `ask_human` tool) and `t-fail`
   (`work` fails after its `reserve` tool) to their end;
2. a traced child runs `t-early` and is SIGKILLed as `charge` starts, before any traced
   child span ended, once LangSmith has the task's run; another runs `t-kill` and is
   SIGKILLed in `charge`, after `charge_card`, once the LangSmith and Langfuse clients have
   delivered the tool's run (each kill on the child's request to `/hold`: events, not time);
3. the evidence as it stood at the kill is copied; an untraced child resumes all three
   threads, and its `record_effect` lines are what LangGraph really re-executed.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CHILD = Path(__file__).with_name("trace_child.py")
REPO = Path(__file__).resolve().parents[1]
WAIT = 90.0  # seconds: a bound on waiting for an event, never a synchronisation


@dataclass
class Recorder:
    """What the clients sent, by route, and a condition to wait on."""

    out: Path
    bodies: dict[str, list[bytes]] = field(default_factory=dict)
    cond: threading.Condition = field(default_factory=threading.Condition)

    def add(self, route: str, body: bytes) -> None:
        with self.cond:
            self.bodies.setdefault(route, []).append(body)
            if route == "langsmith":
                with open(self.out / "langsmith.jsonl", "ab") as fh:
                    fh.write(json.dumps(json.loads(body)).encode() + b"\n")
            elif route in ("langfuse", "otlp"):
                name = "langfuse.otlp.pb" if route == "langfuse" else "openllmetry.otlp.pb"
                with open(self.out / name, "ab") as fh:  # protobuf messages concatenate
                    fh.write(body)
            self.cond.notify_all()

    def wait_for(self, predicate: Any, what: str) -> None:
        with self.cond:
            if not self.cond.wait_for(lambda: predicate(self), timeout=WAIT):
                raise AssertionError(f"never happened: {what}")

    # -- what the events are ------------------------------------------------------------
    def held(self, moment: str) -> bool:
        return moment.encode() in self.bodies.get("hold", [])

    def _runs(self) -> list[dict[str, Any]]:
        runs: dict[str, dict[str, Any]] = {}
        for body in self.bodies.get("langsmith", []):
            batch = json.loads(body)
            for run in batch.get("post", []) + batch.get("patch", []):
                runs[run["id"]] = {**runs.get(run["id"], {}), **run}
        return list(runs.values())

    def langsmith_ended(self, name: str) -> bool:
        return any(r.get("name") == name and r.get("end_time") for r in self._runs())

    def langsmith_started(self, name: str, thread: str) -> bool:
        return any(
            r.get("name") == name
            and (r.get("extra") or {}).get("metadata", {}).get("thread_id") == thread
            for r in self._runs()
        )

    def otlp_span(self, route: str, name: str) -> bool:
        from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

        message = TracesData()
        message.ParseFromString(b"".join(self.bodies.get(route, [])))
        return any(
            s.name == name
            for rs in message.resource_spans
            for ss in rs.scope_spans
            for s in ss.spans
        )


def _server(rec: Recorder) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return None

        def _reply(self, doc: Any) -> None:
            out = json.dumps(doc).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def do_GET(self) -> None:
            if self.path.startswith("/langsmith/info"):  # the JSON batch endpoint, not multipart
                self._reply({"version": "0.0", "batch_ingest_config": {
                    "use_multipart_endpoint": False, "scale_up_qsize_trigger": 1000,
                    "scale_up_nthreads_limit": 1, "scale_down_nempty_trigger": 4,
                    "size_limit": 100, "size_limit_bytes": 20_971_520,
                }})  # fmt: skip
            else:
                self._reply({})

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            path = self.path
            self._reply({})
            if path.startswith("/langsmith/runs/batch"):
                rec.add("langsmith", body)
            elif path.startswith("/langfuse/api/public/otel/v1/traces"):
                rec.add("langfuse", body)
            elif path.startswith("/otlp/v1/traces"):
                rec.add("otlp", body)
            elif path.startswith("/hold"):
                rec.add("hold", body)

        do_PATCH = do_POST
        do_PUT = do_POST

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _kill(rec: Recorder, spec: list[str], events: list[tuple[Any, str]]) -> None:
    """Run a traced child and SIGKILL it once every event has happened."""
    child = subprocess.Popen(
        spec, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        for predicate, what in events:
            rec.wait_for(predicate, what)
    except AssertionError as exc:
        child.kill()
        raise AssertionError(f"{exc}: {child.communicate()[1][-3000:]}") from None
    os.kill(child.pid, signal.SIGKILL)
    child.communicate()


def _spec(**kw: Any) -> list[str]:
    return [sys.executable, str(CHILD), json.dumps(kw)]


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LANGSMITH", "LANGCHAIN", "LANGFUSE"))
    }
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "lib"), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


@dataclass
class TracedRun:
    at_kill: Path  # every evidence file as it stood at the kill, and the database
    after: Path  # the record_effect log of the resume: what LangGraph really re-executed
    db: Path


def traced_run(work: Path) -> TracedRun:
    out = work / "live"
    out.mkdir(parents=True)
    db = out / "shop.db"
    rec = Recorder(out)
    server = _server(rec)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        first = _spec(db=str(db), out=str(out), server=url, traced=True, runs=[
            {"thread": "t-ask", "input": {"items": ["a"], "ask": True}},
            {"thread": "t-fail", "input": {"items": ["a", "bad"]}},
        ])  # fmt: skip
        done = subprocess.run(first, env=_env(), capture_output=True, text=True, timeout=WAIT)
        assert done.returncode == 0, done.stderr[-3000:]
        # t-early: killed as `charge` starts, before any traced child ended.
        _kill(rec, _spec(db=str(db), out=str(out), server=url, traced=True, hold="before-charge",
                         runs=[{"thread": "t-early", "input": {"items": ["c"]}}]),
              [(lambda r: r.held("before-charge"), "charge held before charge_card"),
               (lambda r: r.langsmith_started("charge", "t-early"), "LangSmith got the charge run")])  # fmt: skip
        # t-kill: killed in `charge` after `charge_card` ended.
        _kill(rec, _spec(db=str(db), out=str(out), server=url, traced=True, hold="charged",
                         runs=[{"thread": "t-kill", "input": {"items": ["a", "b"]}}]),
              [(lambda r: r.held("charged"), "charge held after charge_card"),
               (lambda r: r.langsmith_ended("charge_card"), "LangSmith got charge_card"),
               (lambda r: r.otlp_span("langfuse", "charge_card"), "Langfuse got charge_card")])  # fmt: skip
        at_kill = work / "at-kill"
        with rec.cond:  # nothing more arrives from a dead process; copy what it left
            shutil.copytree(out, at_kill)
    finally:
        server.shutdown()
        server.server_close()
    resumed = subprocess.run(
        _spec(db=str(db), out=str(out), effects="after.jsonl", runs=[
            {"thread": "t-kill"}, {"thread": "t-ask", "resume": True}, {"thread": "t-fail"},
            {"thread": "t-early"},
        ]),
        env=_env(SHOP_FAIL="0"), capture_output=True, text=True, timeout=WAIT,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    _derived_files(at_kill)
    return TracedRun(at_kill, out / "after.jsonl", at_kill / "shop.db")


def _derived_files(folder: Path) -> None:
    """The same evidence in the other shapes it is found in: compressed, LangSmith's Parquet
    bulk export (its columns, from the runs the client sent) and Langfuse's observation
    export (the SDK's own `ObservationV2` model, from the spans its client sent)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import zstandard

    raw = (folder / "oi.otlp.jsonl").read_bytes()
    (folder / "oi.otlp.jsonl.gz").write_bytes(gzip.compress(raw))
    (folder / "oi.otlp.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(raw))
    (folder / "langfuse.otlp.pb.gz").write_bytes(
        gzip.compress((folder / "langfuse.otlp.pb").read_bytes())
    )

    runs: dict[str, dict[str, Any]] = {}
    for line in (folder / "langsmith.jsonl").read_text().splitlines():
        batch = json.loads(line)
        for run in batch.get("post", []) + batch.get("patch", []):
            runs[run["id"]] = {
                **runs.get(run["id"], {}),
                **{k: v for k, v in run.items() if v is not None},
            }
    import datetime as dt

    def when(text: str | None) -> Any:
        return dt.datetime.fromisoformat(text) if text else None

    rows = [
        {"id": r["id"], "name": r.get("name"), "run_type": r.get("run_type"),
         "start_time": when(r.get("start_time")), "end_time": when(r.get("end_time")),
         "error": r.get("error"), "extra": json.dumps(r.get("extra") or {}),
         "parent_run_id": r.get("parent_run_id"), "trace_id": r.get("trace_id")}
        for r in runs.values()
    ]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows), folder / "langsmith.parquet")
    # The SDK's run dicts as one JSON array (what a script dumping runs writes).
    (folder / "langsmith.runs.json").write_text(json.dumps(list(runs.values()), indent=1))

    from langfuse.api.commons.types.observation_v2 import ObservationV2
    from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

    message = TracesData()
    message.ParseFromString((folder / "langfuse.otlp.pb").read_bytes())
    prefix = "langfuse.observation.metadata."
    observations = []
    for rs in message.resource_spans:
        for ss in rs.scope_spans:
            for s in ss.spans:
                attrs = {a.key: a.value.string_value for a in s.attributes}
                meta = {
                    k[len(prefix) :]: json.loads(v)
                    for k, v in attrs.items()
                    if k.startswith(prefix)
                }
                obs = ObservationV2(
                    id=s.span_id.hex(), trace_id=s.trace_id.hex(),
                    type=attrs.get("langfuse.observation.type", "span").upper(), name=s.name,
                    start_time=dt.datetime.fromtimestamp(s.start_time_unix_nano / 1e9, dt.UTC),
                    end_time=dt.datetime.fromtimestamp(s.end_time_unix_nano / 1e9, dt.UTC),
                    parent_observation_id=s.parent_span_id.hex() or None, metadata=meta,
                    level=attrs.get("langfuse.observation.level") or "DEFAULT",
                    status_message=attrs.get("langfuse.observation.status_message") or None,
                    project_id="replaylens-test",
                )  # fmt: skip
                observations.append(obs.dict(by_alias=True))
    (folder / "langfuse.observations.json").write_text(
        json.dumps({"data": observations}, default=lambda v: v.isoformat())
    )
