"""Resume safety as a test: the pytest plugin, `assert_resume_safe`, the CLI's `--fail-on`
and the verdict per node, on real campaigns (real SIGKILLs, real resumes).

The example payment graph charges a card in `charge`; killed there, a resume charges it
again. With its idempotency key (thread id + invoice id) the repeat dedupes and the check
passes; without a key (`payment_without_key`) it must fail with the table; with a key built
from randomness the node is not deterministic.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from replaylens.cli import main
from replaylens.killtest.manifest import load_manifest
from replaylens.killtest.safety import campaign_repeats, failing, node_verdicts
from replaylens.testing import ResumeSafetyError, assert_resume_safe, graph_path

pytestmark = pytest.mark.slow  # real graphs killed in child processes

PAYMENT = {"invoice_id": "inv-7"}
CHARGE_ONLY: dict[str, Any] = {"kill_at": ["charge"], "resume_value": True}

RANDOM_KEY_GRAPH = """
import time
import uuid

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from replaylens import record_effect


class State(TypedDict, total=False):
    invoice_id: str
    charged: bool


def charge(state):
    # The classic mistake: a fresh key (and a timestamp in the payload) per attempt.
    with record_effect("charge_card", idempotency_key=str(uuid.uuid4()), sent_at=time.time()):
        time.sleep(0.6)
    return {"charged": True}


def build():
    builder = StateGraph(State)
    builder.add_node("charge", charge)
    builder.add_edge(START, "charge")
    builder.add_edge("charge", END)
    return builder
"""


def test_the_fixture_fails_a_charge_without_a_key_with_the_table(resume_safety: Any) -> None:
    with pytest.raises(ResumeSafetyError) as caught:
        resume_safety(
            "replaylens.examples.graphs:payment_without_key", PAYMENT, modes=["sync", "async"],
            **CHARGE_ONLY,
        )  # fmt: skip
    message = str(caught.value)
    table = message.split("\n\n")[1].splitlines()
    assert table[0].split() == ["node", "mode", "kill", "moment", "effect", "times", "idempotency",
                                "key", "deduped"]  # fmt: skip
    rows = [line.split() for line in table[2:]]
    assert {row[1] for row in rows} == {"sync", "async"}
    for row in rows:
        assert row[0] == "charge" and "charge_card" in row and row[-2:] == ["(none)", "no"]
    assert "charge: repeats an effect." in message
    assert f"replaylens serve {caught.value.folder}" in message
    assert {r.effect for r in caught.value.repeats} == {"charge_card"}


def test_the_same_charge_with_its_key_passes_and_returns_the_campaign(resume_safety: Any) -> None:
    manifest = resume_safety(
        "replaylens.examples.graphs:payment", PAYMENT, modes=["sync"], **CHARGE_ONLY
    )
    assert all(r.killed for r in manifest.runs)
    repeats = campaign_repeats(manifest)
    # It did happen twice: the key is what makes it safe, not luck.
    assert [(r.effect, r.times, r.key) for r in repeats] == [("charge_card", 2, "dedupes")]
    (charge,) = [v for v in node_verdicts(manifest, ["charge"]) if v.node == "charge"]
    assert charge.verdict == "safe to repeat"
    assert charge.runs_killed_here == 1


@pytest.mark.resume_safe(
    "replaylens.examples.graphs:payment",
    PAYMENT,
    modes=["sync"],
    kill_at=["charge"],
    resume_value=True,
)
def test_the_marker_runs_the_check_after_the_test_body() -> None:
    """Passes only if the marker's campaign finds nothing unsafe (the keyed payment graph)."""


def test_a_key_built_from_randomness_is_not_deterministic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "random_key_graph.py").write_text(RANDOM_KEY_GRAPH, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the killed child imports the user's module as their shell would
    with pytest.raises(ResumeSafetyError) as caught:
        assert_resume_safe("random_key_graph:build", {}, modes=["sync"], kill_at=["charge"],
                           out=tmp_path / "campaign")  # fmt: skip
    (repeat,) = caught.value.repeats
    assert repeat.key == "changes" and repeat.values_differ == ("sent_at",)
    assert not repeat.deduped
    verdicts = {v.node: v for v in node_verdicts(load_manifest(tmp_path / "campaign"), ["charge"])}
    assert verdicts["charge"].verdict == "not deterministic"
    assert "different idempotency keys" in verdicts["charge"].evidence
    # A key that changes is still a key: the weaker check lets it through.
    assert failing(caught.value.repeats, "repeat-without-key") == []


def test_killtest_fail_on_exits_1_with_the_table_and_writes_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "resume.xml"
    args = ["killtest", "replaylens.examples.graphs:payment_without_key", "--out", str(tmp_path / "c"),
            "--modes", "sync", "--kill-at", "charge", "--kill-delay", "0.1", "--put-latency", "0.25",
            "--input", json.dumps(PAYMENT), "--resume-value", "true"]  # fmt: skip
    assert main([*args, "--fail-on", "repeat", "--junit-xml", str(junit)]) == 1
    out, err = capsys.readouterr()
    assert any(
        line.split()[:4] == ["charge", "repeats", "an", "effect"]
        for line in out.splitlines()
        if line
    )
    assert "charge_card" in out and "exit 1" in err and "replaylens serve" in err
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    (case,) = suite.findall("testcase")
    assert case.get("name") == "charge:1 [sync, 0.25s]"
    failure = case.find("failure")
    assert failure is not None and "charge_card" in (failure.text or "")
    # The same campaign under the weaker check still fails (no key at all) ...
    assert (
        main([*args, "--out", str(tmp_path / "d"), "--fail-on", "repeat-without-key", "--json"])
        == 1
    )
    report = json.loads(capsys.readouterr().out)
    assert [n["verdict"] for n in report["nodes"]] == ["repeats an effect"]
    assert (
        report["failing"][0]["effect"] == "charge_card" and report["failing"][0]["key"] == "missing"
    )
    # ... and an allowed effect does not (the same campaign, as the CLI filters it; the exit
    # code 0 of a passing check is proved from the installed wheel in test_package).
    repeats = campaign_repeats(load_manifest(tmp_path / "d"))
    assert failing(repeats, "repeat") and failing(repeats, "repeat", ["charge_card"]) == []
    assert failing(repeats, "repeat", ["charge"]) == []  # a node's name allows its effects


def test_a_graph_object_without_an_import_path_is_one_sentence() -> None:
    with pytest.raises(Exception, match="importable by the killed child"):
        graph_path(lambda: None)
    assert graph_path("pkg.mod:graph") == "pkg.mod:graph"
