"""Resume safety as a test: kill your graph mid-node, resume it, and fail when a side effect
happens twice without a key that dedupes it.

    from replaylens.testing import assert_resume_safe

    def test_charge_is_resume_safe():
        assert_resume_safe("myapp.graphs:payment", {"invoice_id": "inv-1"})

`assert_resume_safe` runs a real kill-test campaign (`replaylens.killtest`): each node is
killed with SIGKILL in a child process under each durability mode, the thread is resumed in
a fresh process, and the effects log the nodes wrote (`replaylens.record_effect`, or the
task starts LangGraph's callbacks report) is compared before the kill and after the resume.
It raises `ResumeSafetyError`, an `AssertionError` whose message is the table a developer
needs, and returns the campaign's manifest (the folder the dashboard's Kill-test runs page
opens) when nothing unsafe happened twice. The pytest plugin (`replaylens.pytest_plugin`,
registered through the `pytest11` entry point) wraps it as a fixture and a marker.
"""

from __future__ import annotations

import inspect
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from replaylens.errors import ReplaylensError
from replaylens.killtest.manifest import Manifest, load_manifest
from replaylens.killtest.safety import (
    TABLE_HEADERS,
    FailOn,
    Repeat,
    campaign_repeats,
    failing,
    node_verdicts,
    repeat_rows,
    text_table,
)

EVERY_NODE = "every node"
PG_EPHEMERAL = "pg-ephemeral"
_NO_RESUME_VALUE = object()


class ResumeSafetyError(AssertionError):
    """A resume performed a side effect again that its idempotency key does not dedupe (or the
    campaign could not show anything: no run was killed)."""

    def __init__(
        self, message: str, *, repeats: Sequence[Repeat] = (), folder: str | None = None
    ) -> None:
        super().__init__(message)
        self.repeats = list(repeats)
        self.folder = folder


def graph_path(graph: str | Callable[..., Any]) -> str:
    """`module:attribute` of the graph, so the killed child can import it again.

    A string is taken as it is; a factory function (or a `StateGraph` builder function)
    is named by its module and name. A compiled graph object carries no import path of its
    own, so it is refused in one sentence."""
    if isinstance(graph, str):
        if ":" not in graph:
            raise ReplaylensError(
                f"{graph!r} is not a graph path: give it as 'package.module:attribute'."
            )
        return graph
    module = getattr(graph, "__module__", None)
    name = getattr(graph, "__qualname__", None)
    if inspect.isfunction(graph) and module and name and "<" not in name and module != "__main__":
        return f"{module}:{name}"
    raise ReplaylensError(
        "The graph must be importable by the killed child process: pass it as "
        "'package.module:attribute' (a compiled graph, a StateGraph or a factory function)."
    )


def _store_options(checkpointer: str | None, out: Path) -> dict[str, Any]:
    if checkpointer is None:
        return {}
    if checkpointer == PG_EPHEMERAL:
        return {"pg_ephemeral": True}
    from replaylens.dsn import is_dsn

    if is_dsn(checkpointer):
        return {"checkpointer": checkpointer}
    # A SQLite path: the campaign keeps one fresh database per run in that file's folder.
    return {}


def _kill_points(graph: str, kill_at: str | Sequence[str]) -> list[str]:
    if isinstance(kill_at, str) and kill_at == EVERY_NODE:
        from replaylens.killtest.campaign import load_graph_nodes

        # LangGraph's own __start__ node runs no code of yours: nothing to kill there.
        return [n for n in load_graph_nodes(graph) if not (n.startswith("__") and n.endswith("__"))]
    return [kill_at] if isinstance(kill_at, str) else list(kill_at)


def _campaign_folder(out: str | Path | None, checkpointer: str | None) -> Path:
    if out is not None:
        return Path(out)
    if checkpointer and checkpointer != PG_EPHEMERAL:
        from replaylens.dsn import is_dsn

        if not is_dsn(checkpointer):
            path = Path(checkpointer)
            return path.parent / f"{path.stem}.resume-safety"
    return Path(tempfile.mkdtemp(prefix="replaylens-resume-safety-"))


def failure_message(
    manifest: Manifest, bad: Sequence[Repeat], folder: Path, nodes: Sequence[str]
) -> str:
    """The message a failing check prints: the table, the verdict per node, the way in."""
    lines = [
        f"{len(bad)} side effect(s) happened again on resume without a key that dedupes them:",
        "",
        text_table(TABLE_HEADERS, repeat_rows(bad)),
        "",
        "Per node:",
    ]
    lines += [f"  {v.node}: {v.verdict}. {v.evidence}" for v in node_verdicts(manifest, nodes)]
    lines += [
        "",
        f"Campaign: {folder}",
        f"Open it:  replaylens serve {folder}",
        "Give each such effect an idempotency key derived from the thread and the business key "
        "(not from time or randomness), or list it in allow_repeat if repeating it is harmless.",
    ]
    return "\n".join(lines)


def assert_resume_safe(
    graph: str | Callable[..., Any],
    input: Any = None,  # noqa: A002 - the name LangGraph's invoke gives it
    *,
    kill_at: str | Sequence[str] = EVERY_NODE,
    modes: Sequence[str] = ("sync", "async"),
    checkpointer: str | None = None,
    latency: float = 0.25,
    runs: int = 1,
    allow_repeat: Iterable[str] = (),
    config: dict[str, Any] | None = None,
    kill_delay: float = 0.1,
    fail_on: FailOn = "repeat",
    resume_value: Any = _NO_RESUME_VALUE,
    out: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    api: Literal["invoke", "ainvoke"] = "invoke",
) -> Manifest:
    """Kill `graph` at each node under each mode, resume it, and raise `ResumeSafetyError` if an
    effect happened again that its idempotency key does not dedupe (`fail_on="repeat"`) or
    that carried no key at all (`fail_on="repeat-without-key"`).

    `kill_at` is `"every node"` or node names; each kill lands `kill_delay` seconds after the
    node starts. `checkpointer` is None (a fresh SQLite file per run), a SQLite path (the
    campaign's files go beside it), a Postgres DSN (a fresh schema per run, dropped at the
    end) or `"pg-ephemeral"` (a throw-away local server). `latency` delays every checkpoint
    write, as a slower store would. `config` adds `configurable` keys to every invocation
    (the thread id is the campaign's own). `resume_value` answers `interrupt()` with
    `Command(resume=…)`. `api="ainvoke"` runs the graph as an async service does
    (``graph.ainvoke`` with LangGraph's async saver), which a graph with ``async def`` nodes
    needs. Effects (or nodes) in `allow_repeat` never fail it. Returns the
    campaign's manifest, whose folder `replaylens serve` opens.
    """
    from replaylens.killtest.campaign import run_campaign

    path = graph_path(graph)
    folder = _campaign_folder(out, checkpointer)
    nodes = _kill_points(path, kill_at)
    options: dict[str, Any] = {}
    if resume_value is not _NO_RESUME_VALUE:
        options.update(resume_value=resume_value, has_resume_value=True)
    run_campaign(
        path,
        folder,
        input_value=input,
        modes=list(modes),
        kill_at=nodes,
        kill_delay=kill_delay,
        runs=runs,
        put_latencies=[latency],
        configurable=dict(config or {}),
        progress=progress,
        api=api,
        **_store_options(checkpointer, folder),
        **options,
    )
    manifest = load_manifest(folder)
    errors = [r for r in manifest.runs if r.run_error]
    if errors:
        raise ResumeSafetyError(
            f"{len(errors)} run(s) of the campaign failed before anything could be judged; "
            f"the first: {errors[0].run_error}\nCampaign: {folder}",
            folder=str(folder),
        )
    if not any(r.killed for r in manifest.runs):
        raise ResumeSafetyError(
            f"No run was killed mid-node (every node finished within {kill_delay:g} s of its "
            f"start), so nothing about resume safety was measured. Lower kill_delay or kill "
            f"at a node that works longer.\nCampaign: {folder}",
            folder=str(folder),
        )
    bad = failing(campaign_repeats(manifest), fail_on, allow_repeat)
    if bad:
        raise ResumeSafetyError(
            failure_message(manifest, bad, folder, nodes), repeats=bad, folder=str(folder)
        )
    return manifest
