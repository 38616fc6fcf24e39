"""The injection tests run sleep once per corpus item and channel (hundreds of runs): they
are about what sleep trusts, not its backups, so their engine makes none (tests/sleep
checks the backups); nor are they about the network, so their engine's requests are
answered by the fake in process, not over loopback HTTP (tests/llm checks that path)."""

from __future__ import annotations

import pytest


@pytest.fixture
def sleep_backups() -> bool:
    return False


@pytest.fixture
def ollama_transport(fake_ollama):
    return fake_ollama.transport()
