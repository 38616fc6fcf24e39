"""Fixtures: keys from a keyring that lives in memory, or from no keyring at all."""

from __future__ import annotations

import keyring
import pytest
from keyring.backends import fail

from tests.encryption.helpers import MemoryKeyring


@pytest.fixture
def memory_keyring(monkeypatch):
    """The system keyring is one in memory, and HIPPO_DB_KEY is unset: keys go there."""
    monkeypatch.delenv("HIPPO_DB_KEY", raising=False)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring(monkeypatch):
    """No keyring backend and no HIPPO_DB_KEY: the key goes to a file beside the config."""
    monkeypatch.delenv("HIPPO_DB_KEY", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def ollama_up(fake_ollama, monkeypatch):
    """The fake Ollama answers at OLLAMA_HOST, for commands run through `main`."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    return fake_ollama


@pytest.fixture
def ollama_transport(fake_ollama):
    """In process: these tests are about the data file's key, not the network (tests/llm is)."""
    return fake_ollama.transport()
