"""Shared fixtures: a fake Ollama on 127.0.0.1, a temporary data dir, an engine over both."""

from __future__ import annotations

import pytest

from assistant.clock import ManualClock
from assistant.config import Config
from assistant.engine import Hippo
from assistant.settings import ModelSettings, OllamaSettings
from tests.fake_ollama.fixtures import fake_ollama  # noqa: F401  (a fixture)

# The data file's key in tests: every file a test makes is encrypted with it, and no
# test reaches the real keyring for it (HIPPO_DB_KEY beats the keyring).
TEST_DB_KEY = "5e" * 32
CHAT_MODEL = "qwen3:1.7b"
EMBEDDING_MODEL = "embeddinggemma"


@pytest.fixture(autouse=True, scope="session")
def _test_db_key():
    """Session-wide fixtures (seeded templates) get the test key too, before any test runs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HIPPO_DB_KEY", TEST_DB_KEY)
        yield


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path, monkeypatch):
    """No test reads the real user's folders, settings, token, keys or Ollama."""
    monkeypatch.setenv("HIPPO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HIPPO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens on port 9
    monkeypatch.delenv("HIPPO_OLLAMA_TOKEN", raising=False)
    monkeypatch.setenv("HIPPO_DB_KEY", TEST_DB_KEY)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def config(tmp_path, fake_ollama) -> Config:  # noqa: F811
    return Config(
        data_dir=tmp_path / "data",
        config_dir=tmp_path / "config",
        models=ModelSettings(chat=CHAT_MODEL, embedding=EMBEDDING_MODEL),
        ollama=OllamaSettings(host=fake_ollama.host),
    )


@pytest.fixture
def engine(config, clock):
    from assistant.llm.gateway import OllamaGateway

    hippo = Hippo(
        config.db_path,
        OllamaGateway(config.ollama.host),
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        clock=clock,
    )
    yield hippo
    hippo.close()
