"""The dashboard's non-Streamlit core: allow-list, catalogue, tables, report, campaigns, serve."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from replaylens.analysis.resume import plan_resume
from replaylens.analysis.status import load_thread, summarize_threads
from replaylens.dashboard import catalog, config, views
from replaylens.dashboard.campaigns import runs_frame, summary_frame
from replaylens.effects.parse import read_effects
from replaylens.paths import AllowList, PathRefused
from replaylens.report import incident_markdown
from replaylens.sources import open_source
from replaylens.text import md, md_cell, md_ticks, safe_filename, truncate, visible


# -- paths ------------------------------------------------------------------------------
def test_allow_list_accepts_inside_and_refuses_dotdot_outside_and_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "x.db").write_text("x")
    outside = tmp_path / "secret.db"
    outside.write_text("s")
    (root / "link.db").symlink_to(outside)
    allow = AllowList.build([root], base=root)
    assert allow.check("sub/x.db") == (root / "sub" / "x.db").resolve()
    assert allow.check(str(root / "sub" / "x.db")) == (root / "sub" / "x.db").resolve()
    with pytest.raises(PathRefused, match=r"contains '\.\.'"):
        allow.check("sub/../sub/x.db")
    with pytest.raises(PathRefused, match="outside the folders"):
        allow.check(str(outside))
    with pytest.raises(PathRefused, match="symbolic link"):
        allow.check("link.db")
    with pytest.raises(PathRefused, match="empty or malformed"):
        allow.check("a\x00b")
    assert allow.key((root / "sub" / "x.db").resolve()) == "sub/x.db"


def test_serve_config_allows_given_paths_and_defaults(tmp_path: Path) -> None:
    extra = tmp_path / "elsewhere"
    extra.mkdir()
    conf = config.parse([str(extra), "--allow", str(tmp_path / "more"), "--effects", str(extra / "e.jsonl")],
                        base=tmp_path / "work")  # fmt: skip
    assert conf.paths == (extra.resolve(),)
    assert conf.allow.contains(extra.resolve() / "a.db")
    assert conf.allow.contains((tmp_path / "more" / "b.db").resolve())
    assert conf.allow.contains((tmp_path / "work" / "sample_dbs" / "c.db").resolve())
    assert not conf.allow.contains((tmp_path / "other.db").resolve())


def test_serve_builds_the_streamlit_command_with_pass_through_arguments(tmp_path: Path) -> None:
    from replaylens import _serve
    from replaylens.cli import build_parser

    args = build_parser().parse_args(
        ["serve", "a.db", "--effects", "e.jsonl", "--port", "9999", "--allow", "d"]
    )
    assert isinstance(args, argparse.Namespace)
    cmd = _serve.build_command(args)
    assert cmd[1:4] == ["-m", "streamlit", "run"] and cmd[4].endswith("app.py")
    assert cmd[cmd.index("--server.port") + 1] == "9999"
    assert cmd[cmd.index("--server.headless") + 1] == "true"
    assert cmd[cmd.index("--browser.gatherUsageStats") + 1] == "false"
    rest = cmd[cmd.index("--") + 1 :]
    assert rest == [
        os.path.abspath("a.db"),
        "--effects",
        os.path.abspath("e.jsonl"),
        "--allow",
        os.path.abspath("d"),
    ]
    assert config.parse(rest).effects == Path(os.path.abspath("e.jsonl"))


def test_serve_help_is_full_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    from replaylens.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Only files inside the allowed folders can be opened" in out and "--port N" in out


# -- catalogue --------------------------------------------------------------------------
def test_catalog_pairs_effects_logs_and_reads_campaigns(demo: Path) -> None:
    allow = AllowList.build([demo], base=demo)
    cat = catalog.discover([demo], allow)
    by_key = {d.key: d for d in cat.databases}
    assert by_key["examples/fanout.db"].effects == demo / "examples" / "fanout.effects.jsonl"
    assert by_key["bad/other-app.db"].effects is None
    camp = cat.campaign("campaign-linear")
    assert camp is not None and len(camp.runs) == 6 and camp.baseline_effect_lines == 8
    run = camp.runs[0]
    assert run.db_at_kill is not None and run.db_at_kill.name.endswith(".at-kill.db")
    assert by_key[allow.key(run.db_at_kill)].effects == run.effects_at_kill
    assert by_key[allow.key(run.db_at_kill)].campaign == "campaign-linear"


def test_uploads_are_stored_under_their_hash_with_a_safe_name(tmp_path: Path) -> None:
    path = catalog.save_upload("../../evil name.db", b"abc", tmp_path)
    assert path.parent.parent == tmp_path and path.name == "evil_name.db"
    assert catalog.save_upload("other.db", b"abc", tmp_path).parent == path.parent


# -- tables -----------------------------------------------------------------------------
def test_thread_rows_put_attention_first_and_add_effect_only_threads(demo: Path) -> None:
    source = open_source(demo / "examples" / "failing.db")
    summaries, _ = summarize_threads(source)
    rows = views.thread_rows(summaries, read_effects(demo / "examples" / "failing.effects.jsonl"))
    assert [r.status for r in rows] == ["failed", "completed"]
    assert rows[0].effect_lines and rows[0].effect_lines > 0
    source = open_source(demo / "crashes" / "linear-exit.db")
    summaries, _ = summarize_threads(source)
    rows = views.thread_rows(
        summaries, read_effects(demo / "crashes" / "linear-exit.effects.jsonl")
    )
    assert [(r.thread_id, r.status) for r in rows] == [("linear-exit-killed", "needs_restart")]


def test_writes_table_names_special_channels_in_words(demo: Path) -> None:
    thread = load_thread(open_source(demo / "examples" / "failing.db"), "failing-b-raised")
    latest = thread.root.latest if thread.root else None
    assert latest is not None
    frame = views.writes_frame(latest)
    assert "error" in set(frame["channel"]) and "__error__" not in set(frame["channel"])
    thread = load_thread(
        open_source(demo / "examples" / "payment.db"), "payment-waiting-for-approval"
    )
    assert thread.root and thread.root.latest
    assert "interrupt" in set(views.writes_frame(thread.root.latest)["channel"])


def test_state_and_diff_tables(demo: Path) -> None:
    source = open_source(demo / "examples" / "linear.db")
    thread = load_thread(source, "linear-done")
    assert thread.root is not None
    cp = thread.root.checkpoints[-1]
    parent = thread.root.parent(cp)
    assert parent is not None
    values = source.read_channel_values("linear-done", "", cp.checkpoint_id)
    before = source.read_channel_values("linear-done", "", parent.checkpoint_id)
    diff = views.diff_frame(before, values)
    visited = diff[diff["channel"] == "visited"].iloc[0]
    assert visited["change"] == "changed" and '"d"' in visited["after"]
    assert "visited" in set(views.state_frame(values)["channel"])


# -- text and report --------------------------------------------------------------------
def test_database_text_is_made_inert() -> None:
    hostile = "[click](javascript:alert(1)) <b>x</b> :red[y] \x1b[31m"
    escaped = md(hostile)
    assert "](javascript" not in escaped and "<b>" not in escaped and "\x1b" not in escaped
    assert md_ticks("will run `a|b` again") == "will run `a|b` again"
    assert md_cell("a|b") == "`a\\|b`"
    assert visible("\x1b[31m") == "\\x1b[31m"
    text, note = truncate("x" * 25_000)
    assert len(text) == 20_000 and note and "25,000" in note
    assert safe_filename("../a b/<c>", ".md") == "replaylens-a_b_c.md"


def test_incident_report_has_plan_verdicts_windows_and_links(demo: Path) -> None:
    db = demo / "crashes" / "payment-sync.db"
    thread = load_thread(open_source(db), "payment-sync-killed")
    plan = plan_resume(
        thread, read_effects(demo / "crashes" / "payment-sync.effects.jsonl"), "payment-sync-killed"
    )
    plan.thread_id = "t[1](javascript:x)"
    report = incident_markdown(plan, database="crashes/payment-sync.db", effects_log="x.jsonl",
                               links={"Thread view": "http://h/thread?db=a&thread=b"})  # fmt: skip
    assert "`t[1](javascript:x)`" in report  # an inert code span
    assert (
        "charge_card" in report
        and "| sync |" in report
        and "| async |" in report
        and "| exit |" in report
    )
    assert "→" in report and "(http://h/thread?db=a&thread=b)" in report
    # Inside a code span a name is shown as it is, never with Markdown escapes in it.
    assert "`charge_card`" in report and "charge\\_card" not in report


def test_cli_report_is_the_dashboard_report_byte_for_byte(tmp_path: Path) -> None:
    """One report for the CLI and the dashboard: the same plan and labels give the same bytes
    (but for the minute it was generated), and a hostile file name stays text in the links."""
    import re
    import shutil
    import subprocess
    import sys

    from replaylens.dashboard.catalog import DataItem
    from replaylens.dashboard.ui.common import effects_label

    samples = Path(__file__).resolve().parents[1] / "sample_dbs"
    shutil.copy(samples / "payment-approved.db", tmp_path / "payment-approved.db")
    shutil.copy(
        samples / "payment-approved.effects.jsonl", tmp_path / "payment-approved.effects.jsonl"
    )
    thread_id = load_thread_ids(tmp_path / "payment-approved.db")[0]
    cli = subprocess.run([sys.executable, "-m", "replaylens.cli", "report", "payment-approved.db", "--thread", thread_id,
                          "--effects", "payment-approved.effects.jsonl"], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    item = DataItem(
        "payment-approved.db",
        tmp_path / "payment-approved.db",
        tmp_path / "payment-approved.effects.jsonl",
    )
    plan = plan_resume(
        load_thread(open_source(item.path), thread_id), read_effects(item.effects), thread_id
    )
    page = incident_markdown(plan, database=item.key, effects_log=effects_label(item))

    def undated(text: str) -> str:
        return re.sub(r"Generated by replaylens on .*", "", text)

    assert undated(cli) == undated(page)
    hostile = incident_markdown(plan, database="<x><img src=x onerror=alert(1)><x.db>", effects_log=None,
                                links={"<img src=x onerror=alert(1)>": "<x><img src=x onerror=alert(1)><x.db>"})  # fmt: skip
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(hostile)
    assert (
        "<img" not in html and "onerror=alert(1)" in html
    )  # shown as text, escaped, not an element


def load_thread_ids(db: Path) -> list[str]:
    from replaylens.analysis.status import summarize_threads

    return [s.thread_id for s in summarize_threads(open_source(db))[0]]


# -- campaigns --------------------------------------------------------------------------
def test_campaign_runs_are_measured_and_summarised(demo: Path) -> None:
    allow = AllowList.build([demo], base=demo)
    camp = catalog.discover([demo / "campaign-linear"], allow).campaigns[0]
    runs = runs_frame([camp], allow)
    assert len(runs) == 6
    exit_runs = runs[runs["mode"] == "exit"]
    assert (exit_runs["checkpoints kept"] == 0).all() and not exit_runs["resumed"].any()
    # A resume that failed with EmptyInputError needs a restart, which begins every effect at the
    # kill again (never the 0 the failed resume wrote) and re-runs every line of the Thread page.
    starts = [
        sum(
            line.phase == "start"
            for line in read_effects(r.effects_at_kill).for_thread(r.thread_id)
        )
        for r in camp.runs
    ]
    assert (exit_runs["lines repeated"] == [starts[i] for i in exit_runs.index]).all()
    assert (exit_runs["lines repeated"] > 0).all()
    assert (exit_runs["effect lines again"] == exit_runs["effect lines at kill"]).all()
    sync_runs = runs[runs["mode"] == "sync"]
    assert (sync_runs["lines repeated"] >= 1).all()  # c's second start
    summary = summary_frame(runs)
    assert list(summary["mode"]) == ["sync", "async", "exit"]
    assert "EmptyInputError" in summary.set_index("mode").loc["exit", "errors"]


def test_each_session_gets_a_private_upload_folder_removed_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc
    import stat

    monkeypatch.setenv("REPLAYLENS_UPLOAD_DIR", str(tmp_path))
    first, second = catalog.UploadFolder(), catalog.UploadFolder()
    assert first.path != second.path and first.path.parent == tmp_path
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o700
    saved = catalog.save_upload("evidence.db", b"SQLite format 3\x00", first.path)
    assert saved.exists()
    held = first.path
    del first  # the session's state is dropped
    gc.collect()
    assert not held.exists()
    second.cleanup()
    assert not second.path.exists()


# -- the sidebar's words -----------------------------------------------------------------
def test_campaign_runs_are_placed_by_campaign_mode_latency_run_and_moment(demo: Path) -> None:
    found = catalog.discover([demo], AllowList.build([demo]))
    placed = [catalog.place(d, found, [demo.resolve()]) for d in found.databases]
    labels = [p.label for p in sorted(placed, key=lambda p: p.group)]
    camp = [lbl for lbl in labels if lbl.startswith("campaign-linear ›")]
    assert camp, labels
    # Every run shows both moments, at the kill before after the resume, and nothing is a raw path.
    assert any(lbl.endswith("› run 1 › at kill") for lbl in camp)
    first_kill = next(i for i, lbl in enumerate(camp) if lbl.endswith("at kill"))
    assert camp[first_kill + 1].endswith("resumed")
    assert not any("/" in lbl for lbl in camp)
    assert len(set(labels)) == len(labels)  # every database can be told apart


def test_uploads_go_by_their_own_name_and_a_foreign_upload_says_so(tmp_path: Path) -> None:
    box = catalog.UploadFolder()
    try:
        path = catalog.save_upload("payment incident.db", b"x", box.path)
        item = catalog.DataItem(str(path), path, None, None, "uploaded")
        assert catalog.place(item, catalog.Catalog(), []).label == "payment_incident.db (uploaded)"
        assert catalog.looks_uploaded(str(path)) and not catalog.looks_uploaded(
            str(tmp_path / "x.db")
        )
    finally:
        box.cleanup()


def test_what_happens_again_rows_count_executions_and_judge_the_key(demo: Path) -> None:
    from replaylens.analysis.again import again_rows

    db = demo / "crashes" / "payment-sync.db"
    thread = load_thread(open_source(db), "payment-sync-killed")
    plan = plan_resume(
        thread, read_effects(db.with_name("payment-sync.effects.jsonl")), "payment-sync-killed"
    )
    rows = again_rows(plan)
    charge = next(r for r in rows if r.node == "charge")
    assert charge.effect == "charge_card" and charge.times == 1 and len(charge.lines) >= 1
    # The example derives its key from the invoice: one attempt cannot prove it is stable.
    assert charge.keys and charge.dedupe.startswith("cannot tell from one attempt")
    again = plan.again
    assert again.executions == sum(r.times for r in rows) >= 1
    assert (
        again.task_count and again.task_count >= 1
    )  # never 0 beside a verdict that names a repeat
    assert "`charge` again (`charge_card` once)" in plan.verdict_sentence()
