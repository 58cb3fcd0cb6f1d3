"""The architecture's layers, checked on the source: only `dashboard/ui/` imports Streamlit,
no module imports another package's private `_module`, the library's module-level imports
form no cycle, and no test module imports another."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
LIB = ROOT / "lib" / "replaylens"
UI = LIB / "dashboard" / "ui"
# The code around the library that imports it: held to the same rule on private modules.
USERS = ("tests", "scripts", "bench", "examples", "pages", "app.py")


def _imported_roots(path: Path) -> set[str]:
    """Top-level module names one file imports, at module level or inside functions."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_streamlit_is_imported_only_inside_dashboard_ui() -> None:
    outside = sorted(
        str(path.relative_to(LIB))
        for path in LIB.rglob("*.py")
        if UI not in path.parents and "streamlit" in _imported_roots(path)
    )
    assert outside == []


def test_the_ui_layer_does_import_streamlit() -> None:
    """The check above reads real imports: the layer that draws must show up in it."""
    assert "streamlit" in _imported_roots(UI / "data.py")


def _module_parts(path: Path) -> tuple[str, ...]:
    """`lib/replaylens/sources/_sqlite.py` -> ("replaylens", "sources", "_sqlite")."""
    parts = path.relative_to(LIB.parent).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_module(parts: tuple[str, ...]) -> bool:
    base = LIB.parent.joinpath(*parts)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imported_modules(source: str, package: tuple[str, ...]) -> set[tuple[str, ...]]:
    """Every replaylens module a file's source imports (at module level or in a function),
    relative imports resolved against `package`, and `from pkg import _mod` counted as the
    module it names."""
    found: set[tuple[str, ...]] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(tuple(alias.name.split(".")) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = base + tuple(node.module.split(".") if node.module else ())
            found.add(module)
            found.update(module + (a.name,) for a in node.names if _is_module(module + (a.name,)))
    return {parts for parts in found if parts[:1] == ("replaylens",)}


def _private_owner(module: tuple[str, ...]) -> tuple[str, ...] | None:
    """The package a private module belongs to (the parts before its first `_name`)."""
    for i, part in enumerate(module):
        if part.startswith("_") and not part.startswith("__"):
            return module[:i]
    return None


def private_imports_from_outside(
    source: str, importer: tuple[str, ...], package: bool
) -> list[str]:
    """The `_private` modules `importer` reaches into although it lives outside their package
    (a package and its subpackages may use their own privates)."""
    home = importer if package else importer[:-1]
    bad = []
    for module in sorted(_imported_modules(source, home)):
        owner = _private_owner(module)
        if owner is not None and importer[: len(owner)] != owner:
            bad.append(".".join(module))
    return bad


def test_no_module_imports_another_packages_private_module() -> None:
    """A `_module` is its package's business: others go through the package's `__init__` or a
    public module, so the internals can change without a search across the tree."""
    offenders = [
        f"{'.'.join(_module_parts(path))} imports {target}"
        for path in sorted(LIB.rglob("*.py"))
        for target in private_imports_from_outside(
            path.read_text(encoding="utf-8"), _module_parts(path), path.name == "__init__.py"
        )
    ]
    assert offenders == []


# Tests of a private module's own internals, which import it: they call what has no public
# face or monkeypatch the module itself (a re-export would not see the patch). Nothing else
# outside the library may import a `_module`; an entry no longer needed fails the test too.
WHITE_BOX = {
    ("tests/test_bundle.py", "replaylens._serve"),  # build_command: the serve argv itself
    ("tests/test_dashboard_core.py", "replaylens._serve"),
    ("tests/test_from_graph.py", "replaylens._serve"),
    ("tests/test_postgres.py", "replaylens._serve"),
    ("tests/test_from_graph.py", "replaylens.analysis._graph_worker"),  # the read-only saver
    ("tests/test_cache.py", "replaylens.sources._sqlite"),  # patches reopen_spec
    ("tests/test_readonly.py", "replaylens.sources._sqlite"),  # patches _choose_uri
    ("tests/test_postgres.py", "replaylens.sources._postgres"),  # patches its page, timeout
    ("tests/test_storage_postgres.py", "replaylens.sources._postgres"),  # its timeout
    ("tests/test_decode.py", "replaylens.sources._skeleton"),  # the msgpack skeleton itself
    ("tests/test_reading_scope.py", "replaylens.analysis.durability._memo"),  # the memo itself
    ("tests/test_skeleton_reuse.py", "replaylens.sources._skeleton"),
    ("tests/test_hardening.py", "replaylens.sources._base"),  # parse_metadata's limits
    ("tests/test_killtest_backends.py", "replaylens.killtest._backend"),  # an older layout
    ("tests/test_killtest.py", "replaylens.killtest._child"),  # how a release takes its mode
}


def _users() -> list[Path]:
    """Every Python file of USERS, none under a hidden folder (caches, virtualenvs)."""
    found: list[Path] = []
    for name in USERS:
        top = ROOT / name
        files = [top] if top.is_file() else sorted(top.rglob("*.py"))
        found += [f for f in files if not any(p.startswith(".") for p in f.relative_to(ROOT).parts)]
    return found


def private_imports_by_users(files: list[Path], root: Path = ROOT) -> set[tuple[str, str]]:
    """(file relative to `root`, private module) for each `_module` of the library a file
    outside it imports, at module level or in a function."""
    return {
        (path.relative_to(root).as_posix(), target)
        for path in files
        for target in private_imports_from_outside(
            path.read_text(encoding="utf-8"), ("outside", *path.with_suffix("").parts), False
        )
    }


def test_tests_scripts_and_benchmarks_import_no_private_module() -> None:
    """The same rule for the code around the library: it goes through public modules (the
    kill-test harness through `replaylens.killtest.harness`), except the white-box tests."""
    found = private_imports_by_users(_users())
    assert sorted(found - WHITE_BOX) == []
    assert sorted(WHITE_BOX - found) == []  # an allowance nothing uses any more


def test_the_users_check_reads_real_files(tmp_path: Path) -> None:
    """The check above must be able to fail: it walks the folders, and it sees a reach into
    the kill-test's private runner in a file outside the library, at top or in a function."""
    assert ROOT / "scripts" / "make_samples.py" in _users()
    assert ROOT / "bench" / "harness.py" in _users()
    reach = tmp_path / "probe.py"
    reach.write_text(
        "from replaylens.killtest import _child\n"
        "def f():\n    from replaylens.killtest._runner import run_child\n"
    )
    assert private_imports_by_users([reach], tmp_path) == {
        ("probe.py", "replaylens.killtest._child"),
        ("probe.py", "replaylens.killtest._runner"),
    }
    public = tmp_path / "public.py"
    public.write_text("from replaylens.killtest.harness import run_child\n")
    assert private_imports_by_users([public], tmp_path) == set()


def test_the_private_import_check_sees_both_forms_and_allows_a_package_its_own() -> None:
    """The check above must be able to fail: a reach into `sources._skeleton` from `analysis`,
    written absolute or relative, is caught; `sources._sqlite` using it is not."""
    reach = "from replaylens.sources._skeleton import channel_sizes\n"
    relative = "from ..sources import _skeleton\n"
    assert private_imports_from_outside(reach, ("replaylens", "analysis", "storage"), False) == [
        "replaylens.sources._skeleton"
    ]
    assert private_imports_from_outside(relative, ("replaylens", "analysis", "storage"), False) == [
        "replaylens.sources._skeleton"
    ]
    assert private_imports_from_outside(reach, ("replaylens", "sources", "_sqlite"), False) == []
    own = "from replaylens.killtest import _child\n"
    assert private_imports_from_outside(own, ("replaylens", "killtest"), True) == []


def imported_test_modules(source: str) -> list[str]:
    """The `test_*` modules a file's source imports (a shared helper belongs in a helper
    module such as tests/corpus.py, so that each test file stands alone)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return sorted(n for n in names if n.split(".")[-1].startswith("test_"))


def test_no_test_module_imports_another() -> None:
    """Importing a test module runs its module-level set-up and ties the two files' fates
    together: a helper two test files share lives in a module that is not a test."""
    offenders = [
        f"{path.name} imports {name}"
        for path in sorted(TESTS.rglob("test_*.py"))
        for name in imported_test_modules(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_test_import_check_sees_both_forms() -> None:
    """The check above must be able to fail: both import forms are seen, helpers are allowed."""
    assert imported_test_modules("from test_reader import private_copy\n") == ["test_reader"]
    assert imported_test_modules("def f():\n    import tests.test_pages\n") == ["tests.test_pages"]
    assert imported_test_modules("from corpus import replay_json\n") == []


def _top_level_imports(path: Path) -> set[tuple[str, ...]]:
    """The replaylens modules a file imports when it is itself imported: its module-level
    statements, without the `if TYPE_CHECKING:` block (a function's import runs later)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    parts = _module_parts(path)
    source = "\n".join(ast.unparse(node) for node in body)
    return _imported_modules(source, parts if path.name == "__init__.py" else parts[:-1])


def import_cycle(graph: dict[tuple[str, ...], set[tuple[str, ...]]]) -> list[str]:
    """One cycle of the import graph as module names (first repeated last), or []."""
    done: set[tuple[str, ...]] = set()

    def visit(node: tuple[str, ...], path: list[tuple[str, ...]]) -> list[str]:
        if node in path:
            return [".".join(m) for m in path[path.index(node) :] + [node]]
        if node in done:
            return []
        for nxt in sorted(graph.get(node, ())):
            if found := visit(nxt, [*path, node]):
                return found
        done.add(node)
        return []

    for start in sorted(graph):
        if found := visit(start, []):
            return found
    return []


def test_module_level_imports_form_no_cycle() -> None:
    """A loop (tasks -> runtime -> tasks) only works while one side hides its import in a
    function; the shared piece belongs in a lower module (`analysis.ids`), imported at the top."""
    graph = {_module_parts(p): _top_level_imports(p) for p in LIB.rglob("*.py")}
    assert import_cycle(graph) == []


def test_the_cycle_check_finds_a_loop() -> None:
    a, b, c = ("a",), ("b",), ("c",)
    assert import_cycle({a: {b}, b: {c}, c: {a}}) == ["a", "b", "c", "a"]
    assert import_cycle({a: {b}, b: {c}, c: set()}) == []
