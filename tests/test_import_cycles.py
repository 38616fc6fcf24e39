"""No import cycles between Hippo's modules; lazy imports only where start-up needs them.

The graph is built from the source with the AST: an edge A → B for each import of B in
A, at its module level or inside a function (a lazy import is a dependency all the same);
imports under ``if TYPE_CHECKING:`` are for the type checker and left out.
``from package import name`` counts as importing ``package.name`` when that is a module,
else ``package``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("assistant", "data_schema", "scheduler")
# Modules whose every import inside a function must say, on its line or the line
# before, why it is not at the top (start-up time: `hippo log`, the first frame).
EXPLAINED = (
    "assistant/engine.py",
    "assistant/wiring.py",
    "assistant/background.py",
    "assistant/conversations.py",
    "assistant/live_settings.py",
    "assistant/ollama_host.py",
    "assistant/sleep_wiring.py",
    "assistant/admin/wiring.py",
    "assistant/chat.py",
    "assistant/turns.py",
    "assistant/turn_settings.py",
    "assistant/llm/shown.py",
    "assistant/memory/recall.py",
    "assistant/memory/embedder.py",
    "assistant/memory/embedding.py",
    "assistant/memory/context.py",
    "assistant/memory/retrieval.py",
    "assistant/memory/working.py",
    "assistant/memory/summary.py",
    "assistant/memory/tools.py",
)


def _modules(packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()
# The cycle check covers the whole tree, the UI included.
ALL_MODULES = _modules((*PACKAGES, "ui"))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The project modules an import statement loads (itself excluded)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if ALL_MODULES[module].name != "__init__.py":
                package.pop()
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        names = [
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in ALL_MODULES else base
            for alias in node.names
        ]
    for name in names:
        while name and name not in ALL_MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            yield name


def _module_level_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run when the module loads: not in functions, not for type checkers."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node):
            yield from _module_level_imports(node.orelse)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for field in ("body", "orelse", "finalbody", "handlers"):
                yield from _module_level_imports(getattr(node, field, []))
        elif isinstance(node, ast.ExceptHandler):
            yield from _module_level_imports(node.body)


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once a run (several tests walk every module)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _every_import(nodes: Iterable[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import in these statements, in functions too; not those for type checkers."""
    for node in nodes:
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from _every_import(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _every_import(ast.iter_child_nodes(node))


def _graph() -> dict[str, set[str]]:
    """Who imports whom when each module loads (lazy imports left out)."""
    graph = {}
    for module, path in MODULES.items():
        tree = _tree(path)
        graph[module] = {
            target for node in _module_level_imports(tree.body) for target in _targets(module, node)
        }
    return graph


def _full_graph() -> dict[str, set[str]]:
    """Who imports whom at all, over the whole tree: lazy imports are dependencies too."""
    return {
        module: {
            target for node in _every_import(_tree(path).body) for target in _targets(module, node)
        }
        for module, path in ALL_MODULES.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_has_no_cycles_counting_lazy_imports():
    assert _cycles(_full_graph()) == []


def test_the_full_graph_counts_an_import_inside_a_function():
    graph = _full_graph()
    assert "assistant.chat" in graph["assistant.engine"]  # imported on the first send
    assert "assistant.factory" in graph["assistant.starting"]  # in Starter.open_engine
    assert "textual.app" not in graph["ui.app"]  # only the project's own modules


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_the_graph_sees_the_engine_import_its_parts():
    graph = _graph()
    assert "assistant.wiring" in graph["assistant.engine"]
    assert "assistant.memory.recall" in graph["assistant.wiring"]
    assert "assistant.chat" not in graph["assistant.engine"]  # a lazy import: first send


def _function_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    yield inner


def _explained(lines: list[str], lineno: int) -> bool:
    """Whether the import on line ``lineno`` (1-based) carries a comment, or follows one
    directly (a comment may head a group of imports)."""
    if "#" in lines[lineno - 1]:
        return True
    above = lineno - 2
    while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
        above -= 1
    return above >= 0 and lines[above].strip().startswith("#")


@pytest.mark.parametrize("relative", EXPLAINED)
def test_each_lazy_import_of_the_engine_says_why(relative):
    lines = (ROOT / relative).read_text(encoding="utf-8").splitlines()
    imports = _function_imports(ast.parse("\n".join(lines)))
    silent = sorted({node.lineno for node in imports if not _explained(lines, node.lineno)})
    assert silent == [], f"{relative}: lazy imports without a reason on lines {silent}"


PARTS = (
    "assistant/wiring.py",
    "assistant/background.py",
    "assistant/conversations.py",
    "assistant/live_settings.py",
    "assistant/ollama_host.py",
    "assistant/sleep_wiring.py",
    "assistant/admin/wiring.py",
    "assistant/chat.py",
    "assistant/regenerate.py",
    "assistant/intake.py",
    "assistant/turns.py",
    "assistant/turn_settings.py",
    "assistant/llm/shown.py",
    "assistant/memory/recall.py",
    "assistant/memory/embedder.py",
    "assistant/memory/embedding.py",
    "assistant/memory/context.py",
    "assistant/memory/summary.py",
    "assistant/memory/tools.py",
)


@pytest.mark.parametrize("relative", PARTS)
def test_the_engines_parts_never_know_the_engine(relative):
    # Not even for a type: a part receives what it uses, so data flows one way.
    imported = {
        target
        for node in ast.walk(_tree(ROOT / relative))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for target in _targets(relative.removesuffix(".py").replace("/", "."), node)
    }
    assert "assistant.engine" not in imported


# The fronts that are handed the engine whole: the public API, the CLI, the MCP server,
# the app's start and the scheduler. Every other module is handed the parts it uses (the
# wiring above builds the admin and sleep from the parts, /retry's `Redo` is read from
# them, and a dry run's copy is made without an engine).
FRONTS = (
    "assistant",
    "assistant.factory",
    "assistant.starting",
    "assistant.mcp_server",
)


def test_only_the_fronts_know_the_engine():
    knowing = set()
    for module, path in MODULES.items():
        for node in ast.walk(_tree(path)):
            is_import = isinstance(node, ast.Import | ast.ImportFrom)
            if is_import and "assistant.engine" in _targets(module, node):
                knowing.add(module)
    fronts = {m for m in knowing if m in FRONTS or m.startswith(("assistant.cli", "scheduler."))}
    assert knowing - fronts == set()
