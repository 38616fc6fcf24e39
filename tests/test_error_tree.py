"""The documented tree of Hippo's errors is the real one (issue 11: errors used precisely).

``assistant/errors.py``'s docstring draws every ``HippoError`` subclass under its parent;
other modules that draw a part of it (``assistant/sleep/errors.py``) and ARCHITECTURE.md,
where it draws one, must agree with the classes too.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import apsw
import pytest

import assistant.errors
from assistant.errors import HippoError, NotFound, SQLiteError

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("assistant", "data_schema", "scheduler")
_BRANCH = re.compile(r"^(?P<indent>(?:[│ ]   )*)[├└]── (?P<name>\w+)")


def _drawn(text: str) -> dict[str, str]:
    """Each class drawn in a tree that starts at a ``HippoError`` line -> its parent."""
    parents: dict[str, str] = {}
    lines = text.splitlines()
    for start, line in enumerate(lines):
        if line.strip() != "HippoError":
            continue
        path = ["HippoError"]
        for row in lines[start + 1 :]:
            found = _BRANCH.match(row)
            if found is None:
                break
            depth = len(found["indent"]) // 4 + 1
            path = [*path[:depth], found["name"]]
            parents[found["name"]] = path[depth - 1]
    return parents


def _import_everything() -> None:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            importlib.import_module(name)


def _real() -> dict[str, str]:
    """Every HippoError subclass -> its parent, leaving out SQLiteError's apsw variants."""
    _import_everything()
    parents: dict[str, str] = {}
    todo = [HippoError]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if issubclass(sub, SQLiteError) and issubclass(sub, apsw.Error):
                continue  # made per apsw class at the data boundary (data_schema/sqlite_errors)
            assert sub.__name__ not in parents, f"two errors are called {sub.__name__}"
            parents[sub.__name__] = cls.__name__
            todo.append(sub)
    return parents


def test_the_error_tree_in_errors_py_is_the_real_one():
    assert _drawn(assistant.errors.__doc__ or "") == _real()


def test_every_other_drawing_of_the_tree_agrees_with_the_classes():
    real = _real()
    drawings = [ROOT / "assistant" / "sleep" / "errors.py", ROOT / "ARCHITECTURE.md"]
    for path in drawings:
        drawn = _drawn(path.read_text(encoding="utf-8"))
        wrong = {name: parent for name, parent in drawn.items() if real.get(name) != parent}
        assert not wrong, f"{path.name} draws these under the wrong parent: {wrong}"


def test_sqlite_errors_are_hippos_and_still_apsws_own_kind(tmp_path):
    from data_schema.connect import connect

    conn = connect(tmp_path / "hippo.db", migrate=False)
    try:
        conn.execute("CREATE TABLE t (x UNIQUE)")
        conn.execute("INSERT INTO t VALUES (1)")
        try:
            with conn:
                conn.execute("INSERT INTO t VALUES (1)")
        except SQLiteError as exc:
            assert isinstance(exc, apsw.ConstraintError)
            assert isinstance(exc.__cause__, apsw.ConstraintError)
            assert str(tmp_path / "hippo.db") in str(exc)
        else:
            raise AssertionError("the duplicate was accepted")
    finally:
        conn.close()


def _raises_entries(tree: ast.AST) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, str]]:
    """Each (function, exception, what it says) of every ``Raises:`` section in a module."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc = ast.get_docstring(node) or ""
        _, _, raises = doc.partition("Raises:")
        for entry in re.finditer(r"^\s+(\w+): (.+)$", raises, re.MULTILINE):
            found.append((node, entry[1], entry[2]))
    return found


def _raised_directly(function: ast.AST) -> set[str]:
    return {
        node.exc.func.id
        for node in ast.walk(function)
        if isinstance(node, ast.Raise)
        and isinstance(node.exc, ast.Call)
        and isinstance(node.exc.func, ast.Name)
    }


_MISSING = re.compile(r"there is no such|not in (this|the) profile|none of them is")


def test_docstrings_name_not_found_for_what_is_missing():
    """A missing item raises NotFound, and a ``Raises:`` entry for it says so."""
    wrong = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for function, name, says in _raises_entries(tree):
                direct = _raised_directly(function)
                missing = _MISSING.search(says) is not None
                documents_storage = name == "StorageError" and "StorageError" not in direct
                if (missing and name != "NotFound") or (documents_storage and "NotFound" in direct):
                    wrong.append(f"{path.relative_to(ROOT)}:{function.lineno} {name}: {says}")
    assert wrong == []


def test_a_missing_event_is_not_found(engine):
    with pytest.raises(NotFound):
        engine.admin.browse.event(987_654)
