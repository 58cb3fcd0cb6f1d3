"""What a LangGraph task id is made of, generation by generation: the hash, the parts it
covers, and the trigger channel names of the formats before v3.

`_algo._xxhash_str` (checkpoint format v2 on) or `_uuid5_str` (SHA-1, v1) over the
checkpoint id, the task namespace, the step, the node and the task path, printed as a
UUID, so the ids derived here equal the ids of a crashed run's writes. It sits below
`tasks` (which derives whole tasks), `runtime` (run-time calls) and `compat` (generations),
so that each of them can import it at the top.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from hashlib import sha1
from typing import Literal

from xxhash import xxh3_128_hexdigest

from replaylens.channels import EDGE_PREFIX, LEGACY_START_PREFIX, routed_to
from replaylens.model import Checkpoint

PUSH = "__pregel_push"
PULL = "__pregel_pull"


def _as_uuid(hexstr: str) -> str:
    return f"{hexstr[:8]}-{hexstr[8:12]}-{hexstr[12:16]}-{hexstr[16:20]}-{hexstr[20:32]}"


HashName = Literal["xxh3", "sha1"]
TriggerRule = Literal["all", "fired"]


@dataclass(frozen=True)
class IdRule:
    """How one LangGraph generation hashed task ids.

    `hash`: xxh3-128 or SHA-1. `triggers`: a PULL task's id covers all the node's trigger
    channels (0.3 on) or only those that fired at that step (0.2's `sorted(chan for chan
    in proc.triggers if updated)`)."""

    hash: HashName
    triggers: TriggerRule

    @property
    def label(self) -> str:
        which = (
            "all of a node's triggers" if self.triggers == "all" else "only the triggers that fired"
        )
        return f"{'xxh3' if self.hash == 'xxh3' else 'SHA-1'} over {which}"


CURRENT_RULE = IdRule("xxh3", "all")
ID_RULES = (CURRENT_RULE, IdRule("sha1", "fired"), IdRule("xxh3", "fired"), IdRule("sha1", "all"))


def default_rule(version: int | None) -> IdRule:
    """The rule when the writes cannot tell: v1 was written by 0.2 only (SHA-1, fired
    triggers); v2 by late 0.2 (the same) or early 0.3 (xxh3), so only writes decide it."""
    if version is not None and version <= 2:
        return IdRule("sha1", "fired")
    return CURRENT_RULE


def hash_id(hash_name: HashName, checkpoint_id: str, *parts: str) -> str:
    """`_xxhash_str` or `_uuid5_str` of LangGraph's `pregel/algo.py`, printed as a UUID."""
    namespace = binascii.unhexlify(checkpoint_id.replace("-", ""))
    payload = b"".join(p.encode() for p in parts)
    if hash_name == "xxh3":
        return _as_uuid(xxh3_128_hexdigest(namespace + payload))
    digest = sha1(namespace, usedforsecurity=False)
    digest.update(payload)
    return _as_uuid(digest.hexdigest())


def task_id(version: int | None, checkpoint_id: str, *parts: str) -> str:
    """Today's LangGraph's task id for one task of the step after `checkpoint_id`
    (`task_id_func = _xxhash_str if checkpoint["v"] > 1 else _uuid5_str`)."""
    return hash_id("xxh3" if version is not None and version > 1 else "sha1", checkpoint_id, *parts)


def legacy_target(channel: str) -> str | None:
    """The node a pre-v3 trigger channel names: `start:b` -> b, `branch:a:cond:b` -> b."""
    if channel.startswith(LEGACY_START_PREFIX):
        return routed_to(channel)
    if (
        channel.startswith("branch:")
        and not channel.startswith(EDGE_PREFIX)
        and channel.count(":") == 3
    ):
        end = channel.rsplit(":", 1)[1]
        return end or None  # `branch:a:cond::then` (a `then` barrier) names no node
    return None


def is_legacy(cp: Checkpoint) -> bool:
    """Checkpoint formats before v3 name edge channels after their source node."""
    return cp.record.v is not None and cp.record.v < 3
