"""The admin package composes stores and holds no SQL: each table has one owner."""

from __future__ import annotations

import ast
from pathlib import Path

import assistant.admin

ADMIN = Path(assistant.admin.__file__).parent
# Calls that run SQL on a connection or cursor.
_RUNS_SQL = {"execute", "executemany", "cursor", "create_scalar_function"}


def _sql_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        f"{path.name}:{node.lineno} .{node.func.attr}(...)"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _RUNS_SQL
    ]


def test_no_admin_module_runs_sql():
    found = [call for path in sorted(ADMIN.rglob("*.py")) for call in _sql_calls(path)]
    assert found == []


def test_the_check_finds_sql_where_there_is_some(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f(conn):\n    return conn().execute('SELECT 1').fetchone()\n")
    assert _sql_calls(sample) == ["sample.py:2 .execute(...)"]
