"""The fake answered in process: the same answers and records as over HTTP, or a loud refusal."""

from __future__ import annotations

import json

import pytest

from assistant.errors import OllamaError
from assistant.llm.gateway import OllamaGateway
from assistant.llm.values import TextDelta, ToolCall
from tests.fake_ollama import FakeOllama, Reply

MESSAGES = [{"role": "user", "content": "What is the capital of Portugal?"}]


def _chat(gateway: OllamaGateway) -> list[object]:
    return [e for e in gateway.chat("qwen3:1.7b", MESSAGES) if isinstance(e, TextDelta | ToolCall)]


def test_answers_and_records_are_those_the_http_server_gives(fake_ollama: FakeOllama):
    over_http = OllamaGateway(fake_ollama.host)
    in_process = OllamaGateway(fake_ollama.host, transport=fake_ollama.transport())
    reply = Reply(content="Lisbon.", tool_calls=[{"name": "recall_search", "arguments": {}}])
    fake_ollama.script(reply, reply)  # one for each
    answers = [
        (
            _chat(gateway),
            gateway.embed("embeddinggemma", ["tea", "green tea"]),
            gateway.probe(),
            sorted(m.name for m in gateway.list_models()),
        )
        for gateway in (over_http, in_process)
    ]
    assert answers[0] == answers[1]
    half = len(fake_ollama.requests) // 2
    http, here = fake_ollama.requests[:half], fake_ollama.requests[half:]
    assert _sorted(http) == _sorted(here)  # the models' details are asked in parallel


def _sorted(requests: list) -> list[tuple[str, str, str]]:
    return sorted((r.method, r.path, json.dumps(r.body, sort_keys=True)) for r in requests)


def test_what_needs_a_connection_fails_the_test_loudly(fake_ollama: FakeOllama):
    gateway = OllamaGateway(fake_ollama.host, transport=fake_ollama.transport())
    fake_ollama.fail_next("/api/chat", "drop")
    with pytest.raises(AssertionError, match="can't act out a drop"):
        _chat(gateway)
    fake_ollama.script(Reply(content="slowly", delay=0.01))
    with pytest.raises(AssertionError, match="a delay between lines"):
        _chat(gateway)
    assert len(fake_ollama.refused) == 2  # the fixture fails the test on these too
    fake_ollama.refused.clear()


def test_a_stopped_fake_refuses_as_a_closed_port_does(fake_ollama: FakeOllama):
    gateway = OllamaGateway(fake_ollama.host, transport=fake_ollama.transport())
    fake_ollama.stop()
    with pytest.raises(OllamaError):
        gateway.probe()
