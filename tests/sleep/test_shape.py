"""Sleep composes stores and receives what it uses: no SQL in it, and no engine."""

from __future__ import annotations

import ast
from pathlib import Path

SLEEP = Path(__file__).resolve().parents[2] / "assistant" / "sleep"
# The `hippo sleep` command opens an engine the way every command does; its parser and
# printer belong to the CLI, not to the consolidation.
COMMAND_LINE = {"command.py"}


def _calls(tree: ast.AST, names: set[str]) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in names
    ]


def _imported(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _modules() -> list[Path]:
    return sorted(SLEEP.rglob("*.py"))


def test_no_module_of_sleep_runs_sql():
    offenders = {
        path.name: lines
        for path in _modules()
        if (lines := _calls(ast.parse(path.read_text()), {"execute", "executemany"}))
    }
    assert offenders == {}, "SQL belongs in the store that owns the table (assistant/memory/)"


def test_sleep_never_imports_the_engine():
    offenders = {
        path.name: sorted(engine)
        for path in _modules()
        if path.name not in COMMAND_LINE
        and (engine := _imported(ast.parse(path.read_text())) & {"assistant.engine"})
    }
    assert offenders == {}, "sleep receives SleepDeps; the engine builds them"


def test_the_check_finds_sql_where_there_is_some():
    tree = ast.parse("def f(conn):\n    conn.execute('SELECT 1')\n    conn.executemany('x', [])")
    assert _calls(tree, {"execute", "executemany"}) == [2, 3]
