"""mypy passes, strict, on the packages pyproject.toml lists (part of the one test command).

Which packages are strict so far is `files` in pyproject.toml; mypy reads it from there,
so this test and a plain `mypy` at the root check the same thing.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _settings() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)["tool"]["mypy"]


def test_mypy_checks_strictly_and_names_what_it_checks():
    settings = _settings()
    assert settings["strict"] is True
    # The whole tree: the engine, the store, the UI and the scheduler. Never fewer.
    assert {"data_schema", "assistant", "scheduler", "ui"} <= set(settings["files"])


@pytest.mark.heavy  # seconds with a warm cache, ~20 s cold
def test_mypy_finds_no_errors_in_the_strict_packages():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1000:]
    assert "Success: no issues found" in result.stdout
