"""`hippo mcp` as clients launch it: a child process spoken to over stdio, through the
SDK's own ClientSession, beside an engine of the test's on the same data file."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from typing import TextIO

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

pytestmark = [pytest.mark.anyio, pytest.mark.heavy]  # a child process with the engine


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server(*options: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k.startswith(("HIPPO_", "OLLAMA_"))}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "assistant.cli", "mcp", *options],
        env={**env, "PYTHONPATH": os.getcwd()},
    )


@contextlib.asynccontextmanager
async def _session(server: StdioServerParameters, errlog: TextIO) -> AsyncIterator[ClientSession]:
    """A client session, initialised, with ``hippo mcp`` launched as a client launches it."""
    async with (
        stdio_client(server, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def test_a_client_lists_recalls_and_proposes_over_stdio(engine, monkeypatch, config):
    monkeypatch.setenv("OLLAMA_HOST", config.ollama.host)
    engine.admin.facts.state("My sister Anna lives in Porto")
    with open(os.devnull, "w") as quiet:
        async with _session(_server(), quiet) as session:
            names = {t.name for t in (await session.list_tools()).tools}
            recalled = await session.call_tool("recall", {"query": "Where is Anna?"})
            proposed = await session.call_tool(
                "remember", {"statement": "Anna has a cat called Miso"}
            )
    assert {"recall", "remember", "log_event"} <= names
    assert "Porto" in recalled.structured_content["memories"][0]["text"]
    assert proposed.structured_content["status"] == "pending"
    (item,) = engine.admin.review.queue()  # written by the server, read here
    assert item.fact.statement == "Anna has a cat called Miso"
    assert item.proposed_by == "mcp"


async def test_read_only_over_stdio_refuses_a_write(engine, monkeypatch, config):
    monkeypatch.setenv("OLLAMA_HOST", config.ollama.host)
    with open(os.devnull, "w") as quiet:
        async with _session(_server("--read-only"), quiet) as session:
            names = {t.name for t in (await session.list_tools()).tools}
            refused = await session.call_tool("remember", {"statement": "x is y"})
    assert "remember" not in names and refused.is_error
    assert engine.admin.review.queue() == []
