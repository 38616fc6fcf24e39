"""Pytest fixtures for the fake Ollama server; tests/conftest.py imports them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_ollama.server import FakeOllama

__all__ = ["fake_ollama"]


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A started fake Ollama with the default models, stopped after the test."""
    with FakeOllama() as server:
        yield server
    # Raised in the engine's thread, a refusal may have been caught there (and logged).
    assert not server.refused, server.refused
