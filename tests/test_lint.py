"""Ruff's lint rules and formatting hold for the whole tree (part of the one test command)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["assistant", "data_schema", "scheduler", "ui", "tests", "bench"]


def _ruff() -> list[str]:
    beside = Path(sys.executable).with_name("ruff")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    return [found]


def test_ruff_finds_nothing_to_fix():
    result = subprocess.run(
        [*_ruff(), "check", *PACKAGES], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:]


def test_ruff_format_leaves_every_file_as_it_is():
    result = subprocess.run(
        [*_ruff(), "format", "--check", *PACKAGES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:]
