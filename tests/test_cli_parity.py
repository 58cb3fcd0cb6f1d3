"""The CLI says what the dashboard says: the same log, the same verdict words, the next move.

Databases come from `dashboard_data.demo_folder()` (real graphs under real LangGraph, the
crashes killed with SIGKILL), so the CLI is checked on the files the dashboard shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replaylens.analysis.again import again_rows
from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread, summarize_threads
from replaylens.cli import main
from replaylens.effects.parse import read_effects
from replaylens.sources import open_source


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_replay_reads_the_sibling_log_like_the_dashboard(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = demo / "crashes" / "payment-sync.db"
    code, out, err = run(capsys, "replay", str(db), "--thread", "payment-sync-killed", "--json")
    assert code == 0 and "payment-sync.effects.jsonl" in err
    doc = json.loads(out)
    assert doc["effects"], "the sibling log was not read"
    code, out, _ = run(
        capsys, "replay", str(db), "--thread", "payment-sync-killed", "--json", "--no-effects"
    )
    assert json.loads(out)["effects"] is None


def test_campaign_run_database_reads_its_manifest_log(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = json.loads((demo / "campaign-linear" / "manifest.json").read_text())
    run0 = manifest["runs"][0]
    db = demo / "campaign-linear" / run0["db_at_kill"]
    code, _, err = run(capsys, "replay", str(db), "--thread", run0["thread_id"])
    assert code == 0 and Path(run0["effects"]["at_kill"]).name in err


def test_terminal_verdict_counts_executions_without_backticks(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = demo / "crashes" / "payment-sync.db"
    _, out, _ = run(capsys, "replay", str(db), "--thread", "payment-sync-killed")
    verdict = out.splitlines()[1]
    assert "`" not in out
    # Node first, the effect it performed in brackets, counted in executions, not lines.
    assert "charge again (charge_card once)" in verdict, verdict
    assert "lines)" not in verdict
    assert "what happens again:" in out
    # Verdict rows are printed in the log's line order.
    rows = [
        line.split()[0]
        for line in out.split("line  node")[1].splitlines()[1:]
        if line[:1].isdigit()
    ]
    assert rows == sorted(rows, key=int) and rows


def test_failed_thread_prints_its_exception_and_the_next_call(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(
        capsys, "replay", str(demo / "examples" / "failing.db"), "--thread", "failing-b-raised"
    )
    assert "b failed with: RuntimeError(" in out
    assert "graph.invoke(None, config)" in out


def test_interrupted_thread_prints_the_question_and_command(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(
        capsys,
        "replay",
        str(demo / "examples" / "payment.db"),
        "--thread",
        "payment-waiting-for-approval",
    )
    assert "approve asks: {" in out and '"invoice_id"' in out
    assert "graph.invoke(Command(resume=...), config)" in out


def test_log_without_a_line_for_the_thread_says_so(demo: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    other = demo / "examples" / "linear.effects.jsonl"
    _, out, _ = run(capsys, "replay", str(demo / "crashes" / "payment-sync.db"), "--thread", "payment-sync-killed",
                    "--effects", str(other))  # fmt: skip
    assert "no usable line for this thread" in out
    assert "repeats no recorded side effect" not in out


def test_threads_lists_effects_only_threads_as_needs_restart(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = demo / "crashes" / "linear-exit.db"
    _, out, _ = run(capsys, "threads", str(db), "--json")
    assert [t["status"] for t in json.loads(out)] == ["needs_restart"]
    _, out, _ = run(capsys, "threads", str(db), "--no-effects", "--json")
    assert json.loads(out) == []
    _, out, _ = run(capsys, "threads", str(db))
    assert "needs_restart" in out and "None" not in out
    with pytest.raises(SystemExit):
        main(["threads", "--help"])
    assert "needs_restart" in capsys.readouterr().out


def test_unknown_thread_lists_existing_ids(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", str(demo / "examples" / "linear.db"), "--thread", "nope")
    assert code == 2 and "'linear-done'" in err and "replaylens threads" in err


def test_again_rows_split_lost_steps_from_the_resume_step(demo: Path) -> None:
    """fanout killed in p3 under sync: p3 re-runs in the resume step; a crash leaves no lost step."""
    db = demo / "crashes" / "fanout-sync.db"
    source = open_source(db)
    tid = summarize_threads(source)[0][0].thread_id
    log = read_effects(db.with_name(db.stem + ".effects.jsonl"))
    plan = plan_resume(load_thread(source, tid), log, tid)
    rows = again_rows(plan)
    assert rows, plan.verdict_sentence()
    p3 = [r for r in rows if r.node == "p3"]
    assert p3 and p3[0].times == 1 and p3[0].why == "re-run in the resume step"
    # Every execution the table counts is named in the verdict, with the same count.
    for r in rows:
        assert f"`{r.node}` again" in plan.verdict_sentence()
