"""The engine is a library: no Textual in assistant/, data_schema/ or scheduler/."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEADLESS = ("assistant", "data_schema", "scheduler")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", HEADLESS)
def test_headless_packages_never_import_textual_or_the_ui(package):
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / package).rglob("*.py")
        if _imports(path) & {"textual", "ui", "rich"}
        and path.parent != ROOT / "assistant" / "cli"  # it opens the UI, lazily, for `hippo chat`
    ]
    assert offenders == []


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
        "assistant.llm.events", "ui.checks", "data_schema", "apsw", "markdown_it", "rich.markdown",
        "textual.widgets._markdown",
    )  # fmt: skip
    code = f"import sys, assistant.cli, ui.app;print([m for m in {later} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
