"""The engine's model verbs: check a choice, delete a model; the starter's early probe."""

from __future__ import annotations

import pytest

from assistant.errors import NotFound, OllamaUnreachable
from assistant.starting import Starter


def test_delete_model_removes_it_from_ollama_and_from_what_the_engine_knew(engine, fake_ollama):
    assert engine.host.model_capabilities("all-minilm") == frozenset({"embedding"})
    engine.host.delete_model("all-minilm")
    assert "all-minilm:latest" not in fake_ollama.models
    assert engine.host.model_capabilities("all-minilm") == frozenset()  # asked afresh: gone
    assert "all-minilm:latest" not in {info.name for info in engine.host.models()}


def test_deleting_a_model_ollama_lacks_is_not_found_and_says_nothing_was_deleted(engine):
    with pytest.raises(NotFound, match="has no model 'ghost': nothing was deleted"):
        engine.host.delete_model("ghost")


def test_check_models_names_only_the_slots_given(engine, fake_ollama):
    assert engine.host.check_models() == []
    (problem,) = engine.host.check_models(chat="qwen3:1.7b", embedding="ghost")
    assert (problem.slot, problem.kind) == ("embedding", "unknown")


def test_the_starter_probes_without_the_data_file_and_hands_its_gateway_on(config, fake_ollama):
    starter = Starter(config)
    try:
        assert starter.probe() == fake_ollama.version
        assert not config.db_path.exists()  # nothing opened for the probe
        engine = starter.open_engine()
        try:
            assert engine.host.gateway is starter.gateway
            assert starter.probe() == fake_ollama.version  # now through the engine
        finally:
            engine.close()
    finally:
        starter.close()


def test_the_starters_probe_fails_as_the_gateway_does(config, fake_ollama):
    fake_ollama.stop()
    starter = Starter(config)
    try:
        with pytest.raises(OllamaUnreachable):
            starter.probe()
    finally:
        starter.close()
