"""`hippo mcp --http`: streamable HTTP on 127.0.0.1, for clients with the bearer token only."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

pytestmark = [pytest.mark.anyio, pytest.mark.heavy]  # a child process with the engine

TOKEN = "test-token-for-hippo-mcp"
SLOW = 120.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _served(config) -> Iterator[str]:
    """``hippo mcp --http`` running, and its URL once it accepts connections."""
    port = _free_port()
    env = {**os.environ, "HIPPO_MCP_TOKEN": TOKEN, "OLLAMA_HOST": config.ollama.host}
    child = subprocess.Popen(
        [sys.executable, "-m", "assistant.cli", "mcp", "--http", "--port", str(port)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        while True:  # until it listens, or it has ended (then say why)
            if child.poll() is not None:
                pytest.fail(child.stderr.read().decode() if child.stderr else "it ended")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        child.terminate()
        child.wait(timeout=60)


async def test_a_client_with_the_token_recalls_over_http_and_one_without_is_refused(engine, config):
    engine.admin.facts.state("My sister Anna lives in Porto")
    with _served(config) as url:
        # Limits for a guard against a hang, not a speed check: a loaded machine is slow.
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        refused = httpx2.post(url, json=ping, timeout=SLOW)
        wrong = httpx2.post(url, headers={"Authorization": "Bearer nope"}, json={}, timeout=SLOW)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=SLOW) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            recalled = await session.call_tool("recall", {"query": "Where is Anna?"})
    assert refused.status_code == 401 and wrong.status_code == 401
    assert "Porto" in recalled.structured_content["memories"][0]["text"]


def test_the_token_is_made_once_and_kept(monkeypatch):
    import keyring
    from keyring.backend import KeyringBackend

    class Memory(KeyringBackend):
        priority = 1

        def __init__(self) -> None:
            super().__init__()
            self.kept: dict[tuple[str, str], str] = {}

        def get_password(self, service, username):
            return self.kept.get((service, username))

        def set_password(self, service, username, password):
            self.kept[(service, username)] = password

        def delete_password(self, service, username):
            self.kept.pop((service, username), None)

    from assistant.secrets import mcp_token

    monkeypatch.delenv("HIPPO_MCP_TOKEN", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(Memory())
    try:
        first = mcp_token()
        assert len(first) >= 40 and mcp_token() == first
        assert mcp_token({"HIPPO_MCP_TOKEN": "from-env"}) == "from-env"
    finally:
        keyring.set_keyring(previous)
