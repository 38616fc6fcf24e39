"""The starter's first probe: a local Ollama is asked before anything slow is loaded or built."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from assistant.config import OllamaSettings
from assistant.errors import ConfigError
from assistant.starting import Starter

# What the first probe must not wait for: the gateway's client (httpx, ollama), the
# engine's modules (another thread imports them meanwhile) and the keyring.
_SLOW = ("httpx", "ollama", "http.client", "assistant.llm.gateway", "assistant.engine", "keyring")

_PROBE_ALONE = f"""
import sys
from pathlib import Path
from assistant.config import Config, OllamaSettings
from assistant.starting import Starter

folder = Path(sys.argv[1])
config = Config(data_dir=folder, config_dir=folder, ollama=OllamaSettings(host=sys.argv[2]))
starter = Starter(config)
print(starter.probe())
print(sorted(name for name in {_SLOW!r} if name in sys.modules))
"""


def test_a_local_ollama_is_probed_without_loading_the_client_or_the_engine(tmp_path, fake_ollama):
    done = subprocess.run(
        [sys.executable, "-c", _PROBE_ALONE, str(tmp_path), fake_ollama.host],
        capture_output=True,
        text=True,
        check=True,
    )
    version, loaded = done.stdout.splitlines()
    assert version == fake_ollama.version
    assert loaded == "[]"
    assert [r.path for r in fake_ollama.requests] == ["/api/version"]


def test_the_first_probe_builds_no_gateway_and_the_engine_still_gets_one(config, fake_ollama):
    starter = Starter(config)
    try:
        starter.probe()
        assert starter._gateway is None  # the status line's answer needed none
        engine = starter.open_engine()
        try:
            assert engine.llm is starter.gateway
        finally:
            engine.close()
    finally:
        starter.close()


def test_a_host_that_is_not_an_address_is_left_to_the_gateway_to_explain(config):
    bad = replace(config, ollama=OllamaSettings(host="ftp://nowhere"))
    starter = Starter(bad)  # no error yet: the app's first frame comes first
    try:
        with pytest.raises(ConfigError, match="not a valid address"):
            starter.probe()
    finally:
        starter.close()
