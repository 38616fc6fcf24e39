"""Fixtures for the command-line tests: Ollama up, a seeded data file, what it stores."""

from __future__ import annotations

import pytest

from tests.admin.helpers import seed


@pytest.fixture
def ollama_up(fake_ollama, monkeypatch):
    """The fake Ollama, where `hippo` run in-process (or as a child) finds it."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    return fake_ollama


@pytest.fixture
def seeded(engine, tmp_path, ollama_up):
    """A data file with a little of every kind of memory; the engine stays open beside."""
    return seed(engine, tmp_path)
