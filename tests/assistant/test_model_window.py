"""Hippo asks for no more context than the model has (SmolLM2 reads 4,096 tokens, not 8,192)."""

from __future__ import annotations

import pytest

from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from tests.sleep.helpers import chat, sleep


@pytest.fixture
def small_model_engine(config, fake_ollama, clock):
    fake_ollama.add_model("smollm2:135m", capabilities=("completion",), context_length=4096)
    engine = Hippo(
        config.db_path,
        OllamaGateway(fake_ollama.host),
        chat_model="smollm2:135m",
        embedding_model=config.models.embedding,
        clock=clock,
        context_tokens=8192,
    )
    yield engine
    engine.close()


def _num_ctx(fake_ollama):
    return [r.body["options"]["num_ctx"] for r in fake_ollama.requests if r.path == "/api/chat"]


def test_a_chat_turn_asks_for_the_models_own_context_length(small_model_engine, fake_ollama):
    engine = small_model_engine
    session = engine.conversations.new_session()

    list(engine.send(session.id, "Hello there"))

    assert _num_ctx(fake_ollama) == [4096]
    assert engine.host.context_window("smollm2:135m") == 4096


def test_sleep_asks_for_the_models_own_context_length(small_model_engine, fake_ollama, clock):
    chat(small_model_engine, clock.now(), "I am allergic to penicillin.", "Noted.")
    clock.advance(days=1)

    sleep(small_model_engine)

    assert _num_ctx(fake_ollama) and set(_num_ctx(fake_ollama)) == {4096}


def test_a_model_with_a_longer_context_gets_hippos_window(engine, fake_ollama):
    session = engine.conversations.new_session()
    list(engine.send(session.id, "Hello there"))
    assert _num_ctx(fake_ollama) == [engine.live_settings.turn.context_tokens]  # qwen3 reads 40,960
