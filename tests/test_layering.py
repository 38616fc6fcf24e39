"""The layering rules, checked on the source's syntax tree (see ARCHITECTURE.md).

The parts: UI (`ui/`), CLI (`assistant/cli*`), Scheduler (`scheduler/`), Engine
(`assistant/`), LLM gateway (`assistant/llm/`), Store (`data_schema/` and the table
stores). Never:

* Engine -> UI and Scheduler -> UI (nor Store -> UI): no `ui`, `textual` or `rich`.
* LLM -> Store: the gateway imports only itself and `assistant.errors`.
* UI -> Store: no `data_schema`, SQLite binding or store class, and no reach into the
  engine's stores (`engine.facts`, `.episodes`, `.messages`, `.events`, `.db`...), nor
  into them through one of its parts (`engine.memory.facts`), nor `engine.memory` at all:
  the UI goes through the engine's facade and its other parts.
* UI -> LLM: no gateway, no `ollama`/`httpx`, no `engine.llm` (nor `engine.host.gateway`);
  only the gateway's typed values (`events`), host addresses (`hosts`) and model names
  (`names`).
* Store -> Engine: `data_schema/` imports only `assistant.errors` (the fronts hand it
  their key store); a migration carries its own copy of whatever engine code it ran
  when it shipped.

Every import counts, at module level or inside a function, and type-only ones too.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# -- reading the tree ---------------------------------------------------------------------


@dataclass(frozen=True)
class Use:
    """Something a source file uses: an imported module (or name), or an engine member."""

    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.what}"


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, path: Path, root: Path) -> str:
    """The module an ``from ... import`` reads, with relative imports resolved."""
    if node.level == 0:
        return node.module or ""
    package = _module_of(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def imports(path: Path, root: Path = ROOT) -> Iterator[Use]:
    """Every module ``path`` imports, and each ``module.name`` it imports from one."""
    rel = str(path.relative_to(root))
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Use(rel, node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, path, root)
            yield Use(rel, node.lineno, module)
            for alias in node.names:
                yield Use(rel, node.lineno, f"{module}.{alias.name}")


# An expression that holds the engine: `engine`, `self.engine`, `self._engine`, `app.opened`.
_ENGINE_NAMES = frozenset({"engine", "_engine", "hippo", "opened"})


def _is_engine(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in _ENGINE_NAMES
    return isinstance(node, ast.Attribute) and node.attr in _ENGINE_NAMES


def engine_members(path: Path, root: Path = ROOT) -> Iterator[Use]:
    """Every ``<engine>.member`` that ``path`` reads."""
    rel = str(path.relative_to(root))
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Attribute) and _is_engine(node.value):
            yield Use(rel, node.lineno, f"engine.{node.attr}")


# The engine's parts whose members are the engine's own, one step down (`engine.memory.facts`
# is `engine.facts`); `engine.admin.facts` is the admin's, not a store.
_PARTS = frozenset({"memory", "host", "background", "conversations", "live_settings"})


def part_members(path: Path, root: Path = ROOT) -> Iterator[Use]:
    """Every ``<engine>.<part>.member`` that ``path`` reads, as ``engine.member``."""
    rel = str(path.relative_to(root))
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            holder = node.value
            if holder.attr in _PARTS and _is_engine(holder.value):
                yield Use(rel, node.lineno, f"engine.{node.attr}")


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _within(module: str, prefixes: frozenset[str] | set[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


# -- the parts ----------------------------------------------------------------------------


def _files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _is_cli(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return rel.startswith("assistant/cli/") or (
        rel.startswith("assistant/cli") and rel.count("/") == 1
    )


UI = _files("ui")
SCHEDULER = _files("scheduler")
LLM = _files("assistant/llm")
DATA_SCHEMA = _files("data_schema")
ENGINE = [p for p in _files("assistant") if not _is_cli(p)]

_UI_PACKAGES = frozenset({"ui", "textual", "rich"})
_SQLITE = frozenset({"data_schema", "apsw", "sqlite_vec"})


@functools.cache
def store_classes() -> frozenset[str]:
    """The classes that own tables: `Store` and its subclasses, and every `*Store`.

    `KeyStore` is not one: it keeps the file's key in the keyring, not rows in a table.
    """
    bases: dict[str, set[str]] = {}
    for path in _files("assistant"):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                names = {b.id for b in node.bases if isinstance(b, ast.Name)}
                bases.setdefault(node.name, set()).update(names)
    found = {name for name in bases if name.endswith("Store") and name != "KeyStore"}
    found.add("Store")
    while grown := {n for n, b in bases.items() if b & found and n not in found}:
        found |= grown
    return frozenset(found)


# The engine's members that are its stores (or the data file under them).
STORE_MEMBERS = frozenset(
    {"db", "facts", "episodes", "messages", "events", "vectors", "usage", "archive", "core",
     "core_proposals", "entities"}
)  # fmt: skip

# -- the rules ----------------------------------------------------------------------------


def _offenders(uses: Iterator[Use], bad: Callable[[str], bool]) -> list[str]:
    return sorted({str(use) for use in uses if bad(use.what)})


@pytest.mark.parametrize(
    ("part", "files"),
    [("engine", ENGINE), ("scheduler", SCHEDULER), ("store", DATA_SCHEMA)],
)
def test_the_engine_scheduler_and_store_never_import_the_ui(part, files):
    offenders = _offenders(
        (use for path in files for use in imports(path)), lambda m: _within(m, _UI_PACKAGES)
    )
    assert offenders == [], f"{part} -> UI"


def test_the_llm_gateway_never_reaches_the_store_or_the_engine():
    allowed = frozenset({"assistant.llm", "assistant.errors"})

    def bad(module: str) -> bool:
        return _within(module, _SQLITE) or (
            _within(module, frozenset({"assistant"})) and not _within(module, allowed)
        )

    assert _offenders((use for path in LLM for use in imports(path)), bad) == []


def _ui_store_uses() -> Iterator[Use]:
    stores = store_classes()
    for path in UI:
        for use in imports(path):
            last = use.what.rsplit(".", 1)[-1]
            if _within(use.what, _SQLITE) or (use.what.startswith("assistant.") and last in stores):
                yield use
        for use in [*engine_members(path), *part_members(path)]:
            if use.what.removeprefix("engine.") in STORE_MEMBERS:
                yield use
        # Nor the memory whole: it is the stores' part (the UI has the others).
        yield from (use for use in engine_members(path) if use.what == "engine.memory")


def test_the_ui_reaches_the_store_only_through_the_engines_facade():
    assert sorted({str(use) for use in _ui_store_uses()}) == []


def test_the_ui_never_talks_to_ollama_itself():
    values = frozenset({"assistant.llm.values", "assistant.llm.hosts", "assistant.llm.names"})

    def bad(module: str) -> bool:
        if _within(module, frozenset({"ollama", "httpx"})):
            return True
        return _within(module, frozenset({"assistant.llm"})) and not _within(module, values)

    offenders = _offenders((use for path in UI for use in imports(path)), bad)
    offenders += _offenders(
        (use for path in UI for use in [*engine_members(path), *part_members(path)]),
        lambda m: m in ("engine.llm", "engine.gateway"),
    )
    assert offenders == []


def test_the_store_never_imports_the_engine():
    # Errors are shared; the key store is handed in by the fronts, never imported.
    allowed = frozenset({"assistant.errors"})

    def bad(module: str) -> bool:
        return _within(module, frozenset({"assistant"})) and not _within(module, allowed)

    assert _offenders((use for path in DATA_SCHEMA for use in imports(path)), bad) == []


# -- the checker itself finds what it must ------------------------------------------------

_BAD_PANE = """
from __future__ import annotations
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from assistant.memory.facts.store import FactStore
def refresh(self):
    from assistant.llm.gateway import OllamaGateway
    from .. import store
    self.engine.facts.count(1)
    self.app.engine.llm.probe()
    self.engine.admin.facts()
    self.app.engine.memory.episodes.add()
    self.engine.host.gateway.chat()
"""


def test_the_checker_sees_type_only_local_and_relative_imports_and_engine_members(tmp_path):
    path = tmp_path / "ui" / "screens" / "pane.py"
    path.parent.mkdir(parents=True)
    path.write_text(_BAD_PANE)
    modules = {use.what for use in imports(path, tmp_path)}
    members = {use.what for use in engine_members(path, tmp_path)}
    assert "assistant.memory.facts.store.FactStore" in modules
    assert "assistant.llm.gateway.OllamaGateway" in modules
    assert "ui.store" in modules  # `from .. import store` in ui/screens/
    assert {"engine.facts", "engine.llm", "engine.admin", "engine.memory"} <= members
    through = {use.what for use in part_members(path, tmp_path)}
    assert through == {"engine.episodes", "engine.gateway"}  # not the admin's `facts`
    assert "FactStore" in store_classes() and "CoreMemory" in store_classes()
    assert "KeyStore" not in store_classes()


# -- what loads when ----------------------------------------------------------------------


def test_importing_the_engine_loads_neither_textual_nor_ollama():
    code = (
        "import sys, assistant.engine, assistant.factory, assistant.cli, data_schema.connect;"
        "print(sorted(m for m in ('textual', 'ollama', 'httpx', 'keyring') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_starting_the_app_loads_neither_the_inspector_nor_the_admin_code():
    code = (
        "import sys, ui.app;"
        "print(sorted(m for m in ('ui.screens.inspector', 'assistant.admin', 'assistant.sleep',"
        " 'ollama', 'apscheduler') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_chat_draws_before_the_engine_the_data_file_or_markdown_load():
    # The app opens the engine in a thread after its first frame, and history comes after.
    later = (
        "assistant.engine", "assistant.factory", "assistant.memory", "assistant.turns",
        "assistant.llm.values", "ui.checks", "data_schema", "apsw", "markdown_it", "rich.markdown",
        "textual.widgets._markdown",
    )  # fmt: skip
    code = f"import sys, assistant.cli, ui.app;print([m for m in {later} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_public_api_names_what_it_exports_and_loads_lazily():
    import assistant

    for name in assistant.__all__:
        assert getattr(assistant, name) is not None, name
    code = "import sys, assistant; print('assistant.engine' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_outside_the_llm_package_only_the_gateway_opener_names_the_ollama_gateway():
    """Every other module talks to a `ChatBackend`: another server is one module in llm/."""
    naming = set()
    for package in ("assistant", "scheduler", "ui"):
        for path in (ROOT / package).rglob("*.py"):
            relative = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            imported = {
                alias.name
                for n in ast.walk(tree)
                if isinstance(n, ast.ImportFrom)
                for alias in n.names
            }
            if "OllamaGateway" in names | imported and not relative.startswith("assistant/llm/"):
                naming.add(relative)
    assert naming == {"assistant/gateways.py"}
