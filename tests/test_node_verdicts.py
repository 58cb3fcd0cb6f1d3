"""The verdict per node on the bundled campaigns (real kills recorded in sample_dbs/): what
each example graph's code says it must be. No kill runs here; tests/test_resume_safety.py
kills real graphs, one of them non-deterministic on purpose."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaylens.killtest.manifest import load_manifest
from replaylens.killtest.safety import campaign_repeats, node_verdicts, repeat_rows

SAMPLES = Path(__file__).resolve().parents[1] / "sample_dbs"


def verdicts(name: str) -> dict[str, str]:
    manifest = load_manifest(SAMPLES / name, strict=False)
    return {v.node: v.verdict for v in node_verdicts(manifest, manifest.kill_at or ())}


def test_a_charge_with_a_thread_and_invoice_key_is_safe_to_repeat() -> None:
    manifest = load_manifest(SAMPLES / "payment", strict=False)
    charge = [r for r in campaign_repeats(manifest) if r.effect == "charge_card"]
    assert charge and all(r.times == 2 and r.key == "dedupes" for r in charge)
    assert verdicts("payment")["charge"] == "safe to repeat"


@pytest.mark.parametrize(
    ("campaign", "node"), [("fanout", "p3"), ("linear", "c"), ("send_map_reduce", "reduce")]
)
def test_a_killed_node_whose_effect_has_no_key_repeats_it(campaign: str, node: str) -> None:
    assert verdicts(campaign)[node] == "repeats an effect"


def test_send_workers_of_one_node_are_separate_tasks_not_one_task_sending_other_values() -> None:
    """`work` runs once per `Send` packet, each with its own item: three tasks of one node and
    step, each deterministic. Pairing them by node and step alone read it as one task whose
    attempts sent different items (`not deterministic`)."""
    manifest = load_manifest(SAMPLES / "send_map_reduce", strict=False)
    work = [r for r in campaign_repeats(manifest) if r.node == "work"]
    assert work and not any(r.values_differ for r in work)
    assert verdicts("send_map_reduce")["work"] == "repeats an effect"


def test_an_exit_kill_is_a_restart_whose_keys_are_unproven() -> None:
    manifest = load_manifest(SAMPLES / "linear", strict=False)
    restarts = [r for r in campaign_repeats(manifest) if r.restart]
    assert restarts and {r.mode for r in restarts} == {"exit"}
    assert all(row[4].endswith("(restart)") for row in repeat_rows(restarts))
