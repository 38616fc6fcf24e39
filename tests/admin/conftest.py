"""Fixtures for the memory admin tests: the engine's admin, with Ollama up."""

from __future__ import annotations

import pytest

from assistant.admin import MemoryAdmin


@pytest.fixture
def admin(engine) -> MemoryAdmin:
    return engine.admin
