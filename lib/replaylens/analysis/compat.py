"""Which LangGraph generation wrote a thread, told from its rows alone.

What differs between generations, each read in that release's sources:

| generation | checkpoint `v` | task ids | `Send` packets | edge channels |
|---|---|---|---|---|
| 0.2 to 0.3.18 | 1 (early 0.2), 2 | SHA-1 over the triggers that fired | top-level `pending_sends` | `a`, `start:b`, `branch:a:cond:b` |
| 0.3.19 to 0.3.21 | 2 | xxh3 over all triggers (and `branch:to:<node>`) | `pending_sends` | as 0.2 |
| 0.3.22 to 0.3.23 | 2 | xxh3 over all triggers | `pending_sends` | `branch:to:b` (the layout of LangGraph's own migration test data) |
| 0.3.24 to 0.4.x | 3 | xxh3 over all triggers | `pending_sends` | `branch:to:b` |
| 0.5 on | 4 | xxh3 over all triggers | `__pregel_tasks` channel | `branch:to:b` |

`v` alone does not tell the id hash (0.2.76 writes v2 with SHA-1, 0.3.20 v2 with xxh3), so
the rule is the one that reproduces the ids already in the writes table
(`tasks.choose_id_rule`). Today's LangGraph renames pre-v3 channels when it loads such a
checkpoint (`StateGraph._migrate_checkpoint`) and hashes the renamed triggers, so a resume
with it schedules other task ids than the version that wrote the database: the writes of
tasks that finished before the crash are then not found and those tasks run again.
"""

from __future__ import annotations

from replaylens.analysis.ids import IdRule, is_legacy, legacy_target
from replaylens.channels import LEGACY_START_PREFIX, TASKS
from replaylens.model import Checkpoint, Generation


def _label(versions: tuple[int, ...], rule: IdRule, legacy: bool, evidence: bool) -> str:
    oldest = versions[0] if versions else None
    if oldest is None:
        return "unknown (no readable checkpoint)"
    if oldest == 1:
        return "LangGraph 0.2 (checkpoint v1)"
    if oldest == 2 and not legacy:
        return "LangGraph 0.3.22 to 0.3.23 (checkpoint v2 with branch:to: channels)"
    if oldest == 2:
        if not evidence:
            return "LangGraph 0.2 to 0.3.21 (checkpoint v2; the writes cannot tell which)"
        return (
            "LangGraph 0.2 to 0.3.18 (checkpoint v2)"
            if rule.hash == "sha1"
            else "LangGraph 0.3.19 to 0.3.21 (checkpoint v2)"
        )
    if oldest == 3:
        return "LangGraph 0.3.24 to 0.4 (checkpoint v3)"
    return f"LangGraph 0.5 or later (checkpoint v{oldest})"


def old_channel_layout(cps: list[Checkpoint]) -> bool:
    """Edge channels named after their source node (`a`, `start:b`, `branch:a:cond:b`): a
    format before v3 whose channels include such a name. LangGraph 0.3.22 and 0.3.23 wrote
    v2 with today's `branch:to:` names only (so `v` alone does not tell it; 0.3.19 to 0.3.21
    write `branch:to:` for conditional edges beside the old names)."""
    if not any(is_legacy(cp) for cp in cps):
        return False
    nodes = {n for cp in cps for n in cp.record.versions_seen if not n.startswith("__")}
    channels = {ch for cp in cps for ch in cp.record.channel_versions}
    if not channels - {"__start__"}:
        return True  # nothing but the input yet: the layout cannot be told, assume the old one
    return any(
        ch.startswith(LEGACY_START_PREFIX) or legacy_target(ch) is not None or ch in nodes
        for ch in channels
    )


def describe_generation(
    cps: list[Checkpoint],
    rule: IdRule,
    matched: int,
    written: int,
    hint_threads: int = 0,
    today: int | None = None,
) -> Generation:
    """The `Generation` of a thread whose checkpoints are `cps`, annotated with `rule`."""
    versions = tuple(sorted({cp.record.v for cp in cps if cp.record.v is not None}))
    legacy = old_channel_layout(cps)
    # Where this format keeps Send packets, whether or not the thread sent any.
    if any(cp.record.pending_sends is not None for cp in cps):
        sends = "pending_sends"
    elif any(cp.record.v is not None and cp.record.v >= 4 for cp in cps) or any(
        TASKS in cp.record.channel_versions for cp in cps
    ):
        sends = "__pregel_tasks"
    else:
        sends = "none"
    today_differs = any(t.today_task_id or t.today_id_unknown for cp in cps for t in cp.tasks)
    notes: list[str] = []
    if legacy:
        notes.append(
            "Edge channels are named after their source node (format before v3): a node that never "
            "ran in this thread cannot be foreseen from them."
        )
    if hint_threads:
        notes.append(
            f"Edges this thread never used were learnt from {hint_threads} other thread(s) of this database."
        )
    unknown = sum(1 for cp in cps if cp.next_unknown)
    if unknown:
        notes.append(f"At {unknown} checkpoint(s) the next task cannot be known from the rows.")
    if written and matched < written and legacy:
        notes.append(
            f"The id rule reproduces {matched} of the {written} task ids in the writes table; "
            "the others belong to tasks this thread's checkpoints do not let us foresee."
        )
    if today_differs:
        reused = sum(
            1 for cp in cps for t in cp.tasks if t.today_task_id and t.status == "finished"
        )
        notes.append(
            "A resume with today's LangGraph migrates these checkpoints' channel names and hashes other "
            "task ids than the version that wrote them"
            + (
                f": the writes of {reused} finished task(s) would not be found, so they would run again."
                if reused
                else "."
            )
        )
    return Generation(
        label=_label(versions, rule, legacy, bool(written)),
        checkpoint_versions=versions,
        channel_layout="legacy" if legacy else "branch:to",
        sends=sends,
        id_rule=rule.label,
        ids_reproduced=matched,
        ids_written=written,
        today_ids_differ=today_differs,
        notes=tuple(notes),
        ids_today=matched if today is None else today,
    )
