"""Fixtures for the UI tests: a fixed time zone, and an app over the fake Ollama."""

from __future__ import annotations

import time

import pytest

from assistant.clock import ManualClock
from assistant.config import DEFAULT_CHAT_MODEL as CHAT_MODEL
from assistant.config import DEFAULT_EMBEDDING_MODEL as EMBEDDING_MODEL
from assistant.config import Config
from assistant.engine import Hippo


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    """Dates on screen don't depend on the machine's time zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def make_engine(config: Config, clock: ManualClock | None = None) -> Hippo:
    """An engine over ``config``'s data file and Ollama host."""
    from assistant.llm.gateway import OllamaGateway

    return Hippo(
        config.db_path,
        OllamaGateway(config.ollama_host),
        chat_model=CHAT_MODEL,
        embedding_model=EMBEDDING_MODEL,
        clock=clock or ManualClock(),
    )
