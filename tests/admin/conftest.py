"""Fixtures for the memory admin tests: the engine's admin, with Ollama up."""

from __future__ import annotations

import pytest

from assistant.admin import MemoryAdmin


@pytest.fixture
def admin(engine) -> MemoryAdmin:
    return engine.admin


@pytest.fixture
def ollama_transport(fake_ollama):
    """In process: these tests are about managing memory, not the network (tests/llm is)."""
    return fake_ollama.transport()
