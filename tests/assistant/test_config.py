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


def test_defaults_apply_when_nothing_is_set(tmp_path):
    config = load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
    assert (config.chat_model, config.embedding_model) == (
        DEFAULT_CHAT_MODEL,
        DEFAULT_EMBEDDING_MODEL,
    )
    assert config.db_path.name == "hippo.db"
    assert config.ollama_host is None


def test_the_data_dir_flag_beats_the_environment(tmp_path):
    env = {"HIPPO_DATA_DIR": str(tmp_path / "env"), "HIPPO_CONFIG_DIR": str(tmp_path)}
    assert load_config(environ=env).data_dir == tmp_path / "env"
    assert load_config(data_dir=tmp_path / "flag", environ=env).data_dir == tmp_path / "flag"


def test_saved_choices_are_read_back(tmp_path):
    env = {"HIPPO_CONFIG_DIR": str(tmp_path)}
    config = load_config(environ=env).with_changes(chat_model="llama3.2", embedding_model="bge-m3")
    save_config(config)
    again = load_config(environ=env)
    assert (again.chat_model, again.embedding_model) == ("llama3.2", "bge-m3")


def test_ollama_host_from_the_environment_beats_the_file(tmp_path):
    (tmp_path / "config.toml").write_text('[ollama]\nhost = "http://box:11434"\n')
    env = {"HIPPO_CONFIG_DIR": str(tmp_path)}
    assert load_config(environ=env).ollama_host == "http://box:11434"
    env["OLLAMA_HOST"] = "http://other:11434"
    assert load_config(environ=env).ollama_host == "http://other:11434"


def test_a_broken_config_file_names_the_file_and_the_fix(tmp_path):
    (tmp_path / "config.toml").write_text("[models\nchat = ")
    with pytest.raises(ConfigError, match=r"config\.toml") as info:
        load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
    assert "delete it" in str(info.value)


def test_a_bad_value_is_reported_with_its_key(tmp_path):
    (tmp_path / "config.toml").write_text("[models]\nchat = 3\n")
    with pytest.raises(ConfigError, match="'chat'"):
        load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})


def test_memory_strategy_budgets_and_retrieval_weights_are_read_and_checked(tmp_path):
    (tmp_path / "config.toml").write_text(
        '[memory]\nstrategy = "window"\n[memory.budget]\nrecalled = 400\n'
        "[retrieval]\nrecency = 0.1\nmin_relevance = 0.4\n"
    )
    config = load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
    assert config.working_strategy == "window"
    assert config.memory_budget == {"recalled": 400}
    assert config.retrieval == {"recency": 0.1, "min_relevance": 0.4}
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
        assert engine.working_strategy == "buffer"
        assert engine.context_budget.facts == 100
        assert engine.retriever.weights.recency == 0
    finally:
        engine.close()


def test_ollama_waits_are_read_kept_on_save_and_given_to_the_gateway(tmp_path):
    from assistant.factory import open_gateway

    (tmp_path / "config.toml").write_text(
        '[ollama]\nhost = "http://box:11434"\nload_timeout = 300\nstall_timeout = 45.5\n'
    )
    env = {"HIPPO_CONFIG_DIR": str(tmp_path)}
    config = load_config(environ=env)
    assert config.ollama_timeouts == {"load_timeout": 300.0, "stall_timeout": 45.5}
    save_config(config.with_changes(chat_model="llama3.2"))  # a model picked in the app
    again = load_config(environ=env)
    assert (again.ollama_host, again.ollama_timeouts) == (
        "http://box:11434",
        config.ollama_timeouts,
    )
    gateway = open_gateway(again)
    assert (gateway.connect_timeout, gateway.load_timeout, gateway.stall_timeout) == (5, 300, 45.5)


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("load_timeout = 0", "ollama.load_timeout must be a number of seconds above 0"),
        ("stall_timeout = -1", "ollama.stall_timeout must be a number >= 0"),
        ('connect_timeout = "5"', "ollama.connect_timeout must be a number"),
        ("read_timeout = 5", "'read_timeout'; known: connect_timeout, load_timeout"),
    ],
)
def test_a_bad_ollama_wait_is_named_with_what_is_allowed(tmp_path, line, named):
    (tmp_path / "config.toml").write_text(f"[ollama]\n{line}\n")
    with pytest.raises(ConfigError, match=named):
        load_config(environ={"HIPPO_CONFIG_DIR": str(tmp_path)})
