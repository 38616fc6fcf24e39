"""The scheduler package exists, is importable, and stays headless until its jobs land."""

from __future__ import annotations

import importlib


def test_the_scheduler_package_imports_without_the_ui():
    module = importlib.import_module("scheduler")
    assert module.__doc__ and "APScheduler" in module.__doc__
