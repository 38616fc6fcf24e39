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
            assert engine.host.gateway is starter.gateway
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


@pytest.fixture
def chunked_host():
    """An Ollama-like server that answers every request in chunks, even HTTP/1.0 ones
    (a proxy in front of Ollama may): the quick probe's short reader can't follow it."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    body = b'{"version":"0.12.6"}'
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + f"{len(body):x}\r\n".encode()
        + body
        + b"\r\n0\r\n\r\n"
    )

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:  # closed: the test is over
                return
            with conn:
                request = b""
                while b"\r\n\r\n" not in request:
                    part = conn.recv(4096)
                    if not part:
                        break
                    request += part
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


def test_an_answer_the_quick_probe_cannot_read_is_asked_again_through_the_gateway(
    config, chunked_host
):
    starter = Starter(replace(config, ollama=OllamaSettings(host=chunked_host)))
    try:
        assert starter.probe() == "0.12.6"
    finally:
        starter.close()
