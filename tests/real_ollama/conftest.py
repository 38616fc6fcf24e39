"""Fixtures for the real-model tests: one server for the whole run (the models load once)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.real_ollama.models import PATIENT, missing


@pytest.fixture(scope="session")
def real_ollama() -> Iterator[object]:
    """A started `RealOllama`; the test is skipped, saying what to install, without it."""
    lacking = missing()
    if lacking:
        pytest.skip(lacking)
    from tests.real_ollama.check import crash_test
    from tests.real_ollama.server import RealOllama

    problem = crash_test()  # a llama.cpp built for another CPU would kill the whole run
    if problem:
        pytest.fail(problem, pytrace=False)

    # Replies capped at 256 tokens: enough for sleep's JSON, short enough for CI's cores.
    with RealOllama(n_ctx=4096, max_tokens=256) as server:
        yield server


@pytest.fixture
def real_engine(real_ollama, tmp_path, clock):
    """An engine over a fresh data file, chatting with SmolLM2 and embedding with e5."""
    from assistant.engine import Hippo
    from assistant.llm.gateway import OllamaGateway
    from tests.real_ollama.server import CHAT_MODEL, EMBEDDING_MODEL

    engine = Hippo(
        tmp_path / "real.db",
        OllamaGateway(real_ollama.host, **PATIENT),
        chat_model=CHAT_MODEL,
        embedding_model=EMBEDDING_MODEL,
        clock=clock,
    )
    yield engine
    engine.close()
