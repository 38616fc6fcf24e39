"""Fixtures for the engine's parts."""

from __future__ import annotations

import pytest

from assistant.clock import ManualClock
from assistant.llm.gateway import OllamaGateway
from assistant.settings import SleepSettings
from assistant.turn_settings import TurnSettings
from assistant.wiring import build_parts
from data_schema.connect import BUSY_TIMEOUT_MS, Database
from tests.conftest import CHAT_MODEL, EMBEDDING_MODEL


@pytest.fixture
def busy_timeout_ms() -> int:
    """How long `parts`' connections wait for another's write lock (Hippo's own wait)."""
    return BUSY_TIMEOUT_MS


@pytest.fixture
def parts(tmp_path, fake_ollama, busy_timeout_ms, ollama_transport):
    """The parts `Hippo` wires, over a fresh data file and the fake Ollama."""
    built = build_parts(
        Database(tmp_path / "hippo.db", busy_timeout_ms=busy_timeout_ms),
        OllamaGateway(fake_ollama.host, transport=ollama_transport),
        TurnSettings(CHAT_MODEL, context_tokens=4096),
        SleepSettings(),
        embedding_model=EMBEDDING_MODEL,
        profile="default",
        clock=ManualClock(),
    )
    yield built
    built.background.stop()
    built.memory.db.close()
    built.host.gateway.close()


@pytest.fixture
def ollama_transport(fake_ollama):
    """In process: these tests are about the engine's parts, not the network (tests/llm is)."""
    return fake_ollama.transport()
