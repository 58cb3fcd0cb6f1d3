"""Build the older-LangGraph fixtures under tests/compat/<version>/ (`make compat-fixtures`).

For each LangGraph generation a throw-away virtual environment is made under
`.cache/compat/` (never committed), with that release and the checkpoint packages a user of
it had at the time. `scripts/compat_graphs.py` (written against the old APIs, no replaylens
import) runs the example graphs there, SIGKILLs some runs mid-node and records that version's
own `get_state` for every checkpoint into `truth.json`. The small databases and the truth
file are copied to `tests/compat/<version>/`, which `tests/test_compat.py` reads without any
old version installed.

    python scripts/make_compat_fixtures.py [VERSION ...]
    python scripts/make_compat_fixtures.py --history [VERSION ...]
    python scripts/make_compat_fixtures.py --graphs migration,then VERSION ...

`--history` keeps the committed databases and adds that version's `get_state_history`
for every checkpoint to their `truth.json` (fixtures made before it was recorded).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "compat"
TARGET = ROOT / "tests" / "compat"
GRAPH_SCRIPT = ROOT / "scripts" / "compat_graphs.py"

# version -> pip requirements. The checkpoint packages are the ones released alongside,
# so the databases have the schema those users have (no writes.task_path before
# checkpoint-sqlite 3.1); langchain-core is held to the 0.3 line the old releases were built on.
VERSIONS: dict[str, list[str]] = {
    "0.2.28": [
        "langgraph==0.2.28",
        "langgraph-checkpoint==1.0.12",
        "langgraph-checkpoint-sqlite==1.0.4",
        "langchain-core<0.4",
    ],
    "0.2.76": [
        "langgraph==0.2.76",
        "langgraph-checkpoint==2.1.2",
        "langgraph-checkpoint-sqlite==2.0.11",
        "langchain-core<0.4",
    ],
    # 0.3.0 to 0.3.23 still write v2 with the old channel names, 0.3.20 on with xxh3 ids
    "0.3.20": [
        "langgraph==0.3.20",
        "langgraph-checkpoint==2.0.23",
        "langgraph-checkpoint-sqlite==2.0.6",
        "langchain-core<0.4",
        "langgraph-prebuilt<0.2",
        "langgraph-sdk<0.2",
    ],
    # 0.3.22 and 0.3.23 write v2 with today's `branch:to:` channels (the layout of LangGraph's
    # own migration test data, tests/test_checkpoint_migration.py): v alone does not tell it
    "0.3.23": [
        "langgraph==0.3.23",
        "langgraph-checkpoint==2.0.23",
        "langgraph-checkpoint-sqlite==2.0.6",
        "langchain-core<0.4",
        "langgraph-prebuilt<0.2",
        "langgraph-sdk<0.2",
    ],
    "0.3.34": [
        "langgraph==0.3.34",
        "langgraph-checkpoint==2.1.2",
        "langgraph-checkpoint-sqlite==2.0.11",
        "langchain-core<0.4",
        "langgraph-prebuilt<0.2",
    ],
    "0.4.10": [
        "langgraph==0.4.10",
        "langgraph-checkpoint==2.1.2",
        "langgraph-checkpoint-sqlite==2.0.11",
        "langchain-core<0.4",
        "langgraph-prebuilt<0.3",
    ],
    "0.6.11": [
        "langgraph==0.6.11",
        "langgraph-checkpoint==3.0.1",
        "langgraph-checkpoint-sqlite==3.0.3",
        "langgraph-prebuilt<0.7",
    ],
    "1.0.10": [
        "langgraph==1.0.10",
        "langgraph-checkpoint==4.3.2",
        "langgraph-checkpoint-sqlite==3.1.2",
    ],
    "1.2.24": [
        "langgraph==1.2.24",
        "langgraph-checkpoint==4.3.2",
        "langgraph-checkpoint-sqlite==3.1.2",
    ],
}


def ensure_venv(version: str) -> Path:
    """The venv for `version`, made (or remade when its requirements changed) on demand."""
    venv = CACHE / f"venv-{version}"
    python = venv / "bin" / "python"
    stamp = venv / "requirements.json"
    wanted = json.dumps(VERSIONS[version])
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *VERSIONS[version]], check=True)
    stamp.write_text(wanted)
    return python


def build(version: str, graphs: list[str] | None = None) -> None:
    """Every graph (the folder made anew), or only `graphs`, added to the committed folder:
    their databases copied and their truth merged into its truth.json, the rest untouched."""
    python = ensure_venv(version)
    out = CACHE / "out" / version
    shutil.rmtree(out, ignore_errors=True)
    env = dict(
        os.environ, PYTHONWARNINGS="ignore"
    )  # old releases warn about today's langchain-core
    subprocess.run(
        [str(python), str(GRAPH_SCRIPT), "build", str(out), *(graphs or [])],
        check=True,
        timeout=900,
        env=env,
    )
    dest = TARGET / version
    if graphs:
        truth = json.loads((dest / "truth.json").read_text())
        made = json.loads((out / "truth.json").read_text())
        if made["langgraph"] != truth["langgraph"]:
            raise SystemExit(f"{version}: the venv runs LangGraph {made['langgraph']}")
        for name, doc in made["graphs"].items():
            truth["graphs"][name] = doc
            shutil.copy2(out / f"{name}.sqlite", dest / f"{name}.sqlite")
        (dest / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
        print(
            f"{version}: {', '.join(sorted(made['graphs'])) or 'no graph'} added to {dest.relative_to(ROOT)}"
        )
        return
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for f in sorted(out.iterdir()):
        if f.suffix in (".sqlite", ".json"):
            shutil.copy2(f, dest / f.name)
    size = sum(f.stat().st_size for f in dest.iterdir())
    print(
        f"{version}: {len(list(dest.iterdir()))} files, {size // 1024} KiB in {dest.relative_to(ROOT)}"
    )


def add_history(version: str) -> None:
    """That version's get_state_history beside get_state in tests/compat/<version>/truth.json."""
    python = ensure_venv(version)
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    subprocess.run(
        [str(python), str(GRAPH_SCRIPT), "history", str(TARGET / version)],
        check=True,
        timeout=900,
        env=env,
    )
    print(f"{version}: get_state_history recorded in {(TARGET / version).relative_to(ROOT)}")


def main(argv: list[str]) -> None:
    history_only = "--history" in argv
    graphs: list[str] = []
    if "--graphs" in argv:  # --graphs a,b VERSION ...: only these graphs, merged into the folder
        i = argv.index("--graphs")
        graphs = [g for g in argv[i + 1].split(",") if g]
        argv = argv[:i] + argv[i + 2 :]
    argv = [a for a in argv if a != "--history"]
    versions = argv or list(VERSIONS)
    unknown = [v for v in versions if v not in VERSIONS]
    if unknown:
        raise SystemExit(f"unknown version(s) {', '.join(unknown)}; known: {', '.join(VERSIONS)}")
    CACHE.mkdir(parents=True, exist_ok=True)
    for version in versions:
        if history_only:
            add_history(version)
        else:
            build(version, graphs or None)


if __name__ == "__main__":
    main(sys.argv[1:])
