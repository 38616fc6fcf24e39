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
