"""Sleep tests run on a manual clock that starts on Monday 2026-11-23, in UTC."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from assistant.clock import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))


@pytest.fixture
def ollama_transport(fake_ollama):
    """In process: sleep's tests are about what it keeps, not the network (tests/llm is)."""
    return fake_ollama.transport()
