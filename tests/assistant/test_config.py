"""Settings: defaults named once, config.toml, environment and flags in that order."""

from __future__ import annotations

import pytest

from assistant.config import (
    DEFAULT_CHAT_MODEL,
    DEFAULT_EMBEDDING_MODEL,
    load_config,
    save_config,
)
from assistant.errors import ConfigError
from assistant.memory.budget import ContextBudget
from assistant.memory.scoring import RetrievalWeights


def test_defaults_apply_when_nothing_is_set(tmp_path):
    config = load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
    assert (config.models.chat, config.models.embedding) == (
        DEFAULT_CHAT_MODEL,
        DEFAULT_EMBEDDING_MODEL,
    )
    assert config.db_path.name == "hippo.db"
    assert config.ollama.host is None


def test_the_data_dir_flag_beats_the_environment(tmp_path):
    env = {"HIPPO_DATA_DIR": str(tmp_path / "env"), "HIPPO_CONFIG_DIR": str(tmp_path)}
    assert load_config(environ=env).data_dir == tmp_path / "env"
    assert load_config(data_dir=tmp_path / "flag", environ=env).data_dir == tmp_path / "flag"


def test_saved_choices_are_read_back(tmp_path):
    env = {"HIPPO_CONFIG_DIR": str(tmp_path)}
    config = load_config(environ=env).with_models(chat="llama3.2", embedding="bge-m3")
    save_config(config)
    again = load_config(environ=env)
    assert (again.models.chat, again.models.embedding) == ("llama3.2", "bge-m3")


def test_ollama_host_from_the_environment_beats_the_file(tmp_path):
    (tmp_path / "config.toml").write_text('[ollama]\nhost = "http://box:11434"\n')
    env = {"HIPPO_CONFIG_DIR": str(tmp_path)}
    assert load_config(environ=env).ollama.host == "http://box:11434"
    env["OLLAMA_HOST"] = "http://other:11434"
    assert load_config(environ=env).ollama.host == "http://other:11434"


def test_a_broken_config_file_names_the_file_and_the_fix(tmp_path):
    (tmp_path / "config.toml").write_text("[models\nchat = ")
    with pytest.raises(ConfigError, match=r"config\.toml") as info:
        load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
    assert "delete it" in str(info.value)


def test_a_bad_value_is_reported_with_its_key(tmp_path):
    (tmp_path / "config.toml").write_text("[models]\nchat = 3\n")
    with pytest.raises(ConfigError, match=r"models\.chat must be a non-empty string, not 3"):
        load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})


def test_memory_strategy_budgets_and_retrieval_weights_are_read_and_checked(tmp_path):
    (tmp_path / "config.toml").write_text(
        '[memory]\nstrategy = "window"\n[memory.budget]\nrecalled = 400\n'
        "[retrieval]\nrecency = 0.1\nmin_relevance = 0.4\n"
    )
    config = load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
    assert config.memory.strategy == "window"
    assert config.memory.budget == ContextBudget(recalled=400)
    assert (config.retrieval.recency, config.retrieval.min_relevance) == (0.1, 0.4)
    assert config.retrieval.keyword == RetrievalWeights().keyword
    save_config(config)
    assert load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)}) == config


def test_an_unknown_retrieval_setting_is_named(tmp_path):
    (tmp_path / "config.toml").write_text("[retrieval]\nrecncy = 0.1\n")
    with pytest.raises(ConfigError, match="'recncy'"):
        load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})


def test_the_engine_is_built_with_the_configured_memory_settings(tmp_path):
    from assistant.factory import open_engine

    (tmp_path / "config.toml").write_text(
        '[memory]\nstrategy = "buffer"\n[memory.budget]\nfacts = 100\n[retrieval]\nrecency = 0\n'
    )
    config = load_config(data_dir=tmp_path / "d", environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
    engine = open_engine(config)
    try:
        assert engine.live_settings.turn.working_strategy == "buffer"
        assert engine.live_settings.turn.context_budget.facts == 100
        assert engine.memory.retriever.weights.recency == 0
    finally:
        engine.close()


def test_ollama_waits_are_read_kept_on_save_and_given_to_the_gateway(tmp_path):
    from assistant.factory import open_gateway

    (tmp_path / "config.toml").write_text(
        '[ollama]\nhost = "http://box:11434"\nload_timeout = 300\nstall_timeout = 45.5\n'
    )
    env = {"HIPPO_CONFIG_DIR": str(tmp_path)}
    config = load_config(environ=env)
    assert (config.ollama.load_timeout, config.ollama.stall_timeout) == (300.0, 45.5)
    save_config(config.with_models(chat="llama3.2"))  # a model picked in the app
    again = load_config(environ=env)
    assert again.ollama == config.ollama
    assert again.ollama.host == "http://box:11434"
    gateway = open_gateway(again)
    assert (gateway.connect_timeout, gateway.load_timeout, gateway.stall_timeout) == (5, 300, 45.5)


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("load_timeout = 0", "ollama.load_timeout must be a number of seconds above 0"),
        ("stall_timeout = -1", "ollama.stall_timeout must be a number >= 0"),
        ('connect_timeout = "5"', "ollama.connect_timeout must be a number"),
        ("read_timeout = 5", "'read_timeout'; known: host, connect_timeout, load_timeout"),
    ],
)
def test_a_bad_ollama_wait_is_named_with_what_is_allowed(tmp_path, line, named):
    (tmp_path / "config.toml").write_text(f"[ollama]\n{line}\n")
    with pytest.raises(ConfigError, match=named):
        load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})


def test_the_sleep_table_is_read_once_kept_on_save_and_given_to_the_engine(tmp_path):
    from assistant.factory import open_engine

    (tmp_path / "config.toml").write_text(
        '[sleep]\nat = "02:15"\nmax_llm_calls = 40\nmodel = "qwen3:4b"\nauto_activate = false\n'
        '[mine]\nkept = "as it is"\n'
    )
    env = {"HIPPO_CONFIG_DIR": str(tmp_path)}
    config = load_config(data_dir=tmp_path / "d", environ=env)
    assert (config.sleep.at, config.sleep.max_llm_calls, config.sleep.model) == (
        "02:15",
        40,
        "qwen3:4b",
    )
    assert config.sleep.auto_activate is False
    save_config(config.with_models(chat="llama3.2"))
    again = load_config(data_dir=tmp_path / "d", environ=env)
    assert again.sleep == config.sleep
    assert again.extra == {"mine": {"kept": "as it is"}}
    engine = open_engine(again)
    try:
        assert engine.live_settings.sleep == config.sleep
        assert engine.live_settings.current == again.settings
    finally:
        engine.close()


def test_saving_writes_only_what_differs_from_the_defaults(tmp_path):
    import tomllib

    env = {"HIPPO_CONFIG_DIR": str(tmp_path)}
    save_config(load_config(environ=env))
    written = tomllib.loads((tmp_path / "config.toml").read_text())
    assert set(written) == {"models", "profile", "memory"}
    assert written["memory"] == {"strategy": "summary_buffer"}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[sleep]\nmax_llm_calls = -3\n", "sleep.max_llm_calls must be a whole number >= 0"),
        ("[sleep]\nnightly = true\n", r"\[sleep\] has no setting 'nightly'; known: at, "),
        ('[sleep]\nat = "3am"\n', 'sleep.at must be a local time like "03:00"'),
        ("[memory.budget]\nfacts = 10.5\n", "memory.budget.facts must be a whole number"),
        ("[memory]\nstrategi = 1\n", r"\[memory\] has no setting 'strategi'"),
        ('[memory]\nstrategy = "all"\n', "memory.strategy must be one of buffer, window"),
        ("[models]\ncontext_tokens = 100\n", "models.context_tokens must be a whole number >= 512"),
        ("[retrieval]\nrecency = true\n", "retrieval.recency must be a number >= 0"),
        ("sleep = 3\n", r"\[sleep\] must be a table"),
        ("[profile]\nname = 7\n", "profile.name must be a non-empty string"),
    ],
)
def test_a_bad_setting_names_the_file_the_key_and_what_is_allowed(tmp_path, text, named):
    (tmp_path / "config.toml").write_text(text)
    with pytest.raises(ConfigError, match=named) as info:
        load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
    assert str(tmp_path / "config.toml") in str(info.value)


def test_the_ollama_waits_default_to_the_gateways_own():
    import inspect

    from assistant.llm.gateway import OllamaGateway
    from assistant.settings import OllamaSettings

    signature = inspect.signature(OllamaGateway)
    for name in ("connect_timeout", "load_timeout", "stall_timeout"):
        assert getattr(OllamaSettings(), name) == signature.parameters[name].default
