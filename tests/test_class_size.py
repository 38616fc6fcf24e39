"""No class grows past 25 public methods: past that, it is several things, to be split."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 25


def test_no_class_has_more_than_25_public_methods():
    big = []
    for package in ("assistant", "data_schema", "scheduler", "ui"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef):
                    continue
                public = [
                    item.name
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and not item.name.startswith("_")
                ]
                if len(public) > LIMIT:
                    big.append(f"{path.relative_to(ROOT)}: {node.name} ({len(public)})")
    assert big == []
