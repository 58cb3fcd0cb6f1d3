"""`make screenshots`: start the app on the sample databases and photograph every page.

    python scripts/screenshots.py [FOLDER] [--out docs/screenshots]

FOLDER defaults to sample_dbs/ when it holds databases, else a demo folder built by
real example graphs (tests/dashboard_data.py) under bench/.cache/. The app is started
with `replaylens serve` on a free port and driven by headless Chromium; each shot is
taken once Streamlit reports that the page has finished running.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(REPO),
    str(REPO / "lib"),
    str(REPO / "tests"),
]  # tests/ helpers import each other by name

from tests.dashboard_data import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    build_demo,
    free_port,
    start_server,
    stop_server,
    wait_idle,
)


def pick_folder(given: str | None) -> tuple[Path, dict[str, str]]:
    """The folder to serve, and the database/thread each page should show."""
    if given:
        return Path(given).resolve(), {}
    sample = REPO / "sample_dbs"
    if any(sample.rglob("*.db")):
        return sample, _sample_choices(sample)
    demo = REPO / "bench" / ".cache" / "demo"
    if not (demo / "campaign-linear" / "manifest.json").exists():
        print(f"building demo databases in {demo} ...", file=sys.stderr)
        build_demo(demo)
    return demo, {
        "crash_db": str(demo / "crashes" / "payment-sync.db"),
        "crash_thread": "payment-sync-killed",
        "fanout_db": str(demo / "crashes" / "fanout-async-slowput.db"),
        "fanout_thread": "fanout-async-slowput-killed",
        "learn_db": str(demo / "examples" / "fanout.db"),
    }


def _sample_choices(sample: Path) -> dict[str, str]:
    """Kill-test runs worth showing: a fan-out killed under async with a slow store, a payment under sync."""
    from replaylens.dashboard.catalog import discover
    from replaylens.paths import AllowList

    cat = discover([sample], AllowList.build([sample], base=REPO))
    runs = {(c.name, r.mode, r.put_latency): r for c in cat.campaigns for r in c.runs}
    chosen: dict[str, str] = {}
    fan = runs.get(("fanout", "async", 0.25)) or runs.get(("fanout", "sync", 0.0))
    pay = runs.get(("payment", "sync", 0.0))
    if fan and fan.db_at_kill:
        chosen.update(fanout_db=str(fan.db_at_kill), fanout_thread=fan.thread_id)
    if pay and pay.db_at_kill:
        chosen.update(crash_db=str(pay.db_at_kill), crash_thread=pay.thread_id)
    sub = runs.get(("subgraph", "sync", 0.0))
    if sub and sub.db_at_kill:  # checkpoint namespaces: killed inside the subgraph
        chosen.update(subgraph_db=str(sub.db_at_kill), subgraph_thread=sub.thread_id)
    fail = runs.get(("failing", "sync", 0.0))
    if fail and fail.db_after_resume:  # an exception: the resume raised again
        chosen.update(failing_db=str(fail.db_after_resume), failing_thread=fail.thread_id)
    learn = next((d for d in cat.databases if d.campaign is None), None)
    if fan and fan.db_after_resume:
        chosen["learn_db"] = str(fan.db_after_resume)
        chosen["learn_thread"] = fan.thread_id
    elif learn:
        chosen["learn_db"] = str(learn.path)
    chosen["threads_db"] = str(learn.path) if learn else ""
    return chosen


def shots(base: str, chosen: dict[str, str]) -> list[tuple[str, str]]:
    from urllib.parse import urlencode

    def q(**kw: str) -> str:
        return "?" + urlencode({k: v for k, v in kw.items() if v}) if any(kw.values()) else ""

    crash = {"db": chosen.get("crash_db", ""), "thread": chosen.get("crash_thread", "")}
    fan = {"db": chosen.get("fanout_db", ""), "thread": chosen.get("fanout_thread", "")}
    return [
        ("threads", f"{base}/threads{q(db=chosen.get('threads_db') or crash['db'])}"),
        ("thread", f"{base}/thread{q(**fan, mode='async')}"),
        # The same kill redrawn under each durability mode (one model, analysis/durability.py).
        *(
            (f"thread-{m}", f"{base}/thread{q(**fan, mode=m, latency='250')}")
            for m in ("sync", "async", "exit")
        ),
        ("thread-graph", f"{base}/thread{q(**fan, view='Graph')}"),
        *(
            (
                f"thread-{kind}",
                f"{base}/thread{q(db=chosen[kind + '_db'], thread=chosen[kind + '_thread'])}",
            )
            for kind in ("subgraph", "failing")
            if chosen.get(f"{kind}_db")
        ),
        ("thread-writes", f"{base}/thread{q(**fan, view='Writes')}"),
        ("thread-state", f"{base}/thread{q(**crash, view='State')}"),
        ("thread-effects", f"{base}/thread{q(**crash, view='Effects')}"),
        ("thread-report", f"{base}/thread{q(**crash, view='Report')}"),
        ("resume", f"{base}/resume{q(**crash, mode='sync')}"),
        ("runs", f"{base}/runs"),
        ("incident", f"{base}/incident{q(db=crash['db'])}"),
        ("storage", f"{base}/storage{q(db=fan['db'])}"),
        ("thread-timetravel", f"{base}/thread{q(**crash, view='Time travel')}"),
        (
            "learn",
            f"{base}/learn{q(db=chosen.get('learn_db', ''), thread=chosen.get('learn_thread', ''), step='2')}",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Photograph every page of the running app.")
    parser.add_argument(
        "folder", nargs="?", help="Folder to serve (default: sample_dbs/ or a demo folder)."
    )
    parser.add_argument(
        "--out", default=str(REPO / "docs" / "screenshots"), help="Where to write the PNGs."
    )
    parser.add_argument(
        "--width",
        type=int,
        default=1440,
        help="Window width in pixels (default 1440, the README's).",
    )
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    folder, chosen = pick_folder(args.folder)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = start_server([folder], port)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            page = browser.new_page(
                viewport={"width": args.width, "height": 1000}, device_scale_factor=1
            )
            for name, url in shots(f"http://127.0.0.1:{port}", chosen):
                page.set_viewport_size({"width": args.width, "height": 1000})
                page.goto(url)
                wait_idle(page)
                if page.locator(".js-plotly-plot").count():
                    page.locator(".js-plotly-plot").first.wait_for(state="visible")
                # Streamlit scrolls inside its main block, so grow the window to the content instead.
                height = page.evaluate(
                    "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"
                )
                page.set_viewport_size(
                    {"width": args.width, "height": max(1000, min(int(height) + 40, 7000))}
                )
                wait_idle(page)
                target = out / f"{name}.png"
                page.screenshot(path=str(target), full_page=False)
                print(target)
            browser.close()
    finally:
        stop_server(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
