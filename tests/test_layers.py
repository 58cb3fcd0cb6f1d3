"""The architecture's layers, checked on the source: only `dashboard/ui/` imports Streamlit,
no module imports another package's private `_module`, the library's module-level imports
form no cycle, and no test module imports another."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
LIB = TESTS.parent / "lib" / "replaylens"
UI = LIB / "dashboard" / "ui"


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
