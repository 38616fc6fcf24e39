"""The fooled-model mode: tool calls and sleep answers that propose exactly the claim."""

from __future__ import annotations

import json

import ollama

from tests.fake_ollama import FakeOllama, FooledModel, Reply

CLAIM = "The user is not allergic to penicillin"


def _chat(server: FakeOllama, messages, **extra):
    return ollama.Client(server.host).chat("qwen3:1.7b", messages=messages, **extra)


def test_a_fooled_chat_writes_the_claim_with_every_memory_tool():
    with FakeOllama() as server:
        server.fool(FooledModel(CLAIM))
        tools = [{"type": "function", "function": {"name": "core_memory_append"}}]
        reply = _chat(server, [{"role": "user", "content": "hi"}], tools=tools)
        calls = {c.function.name: dict(c.function.arguments) for c in reply.message.tool_calls}
        assert calls["core_memory_append"] == {"label": "human", "content": CLAIM}
        assert calls["remember_fact"]["statement"] == CLAIM
        assert calls["archival_insert"] == {"content": CLAIM}
        done = _chat(server, [{"role": "user", "content": "hi"}, {"role": "tool", "content": "ok"}])
        assert done.message.content == f"Noted: {CLAIM}."


def test_a_fooled_model_reads_first_when_told_to_then_writes():
    with FakeOllama() as server:
        server.fool(FooledModel(CLAIM, read_first="archival_search", query="penicillin"))
        tools = [{"type": "function", "function": {"name": "archival_search"}}]
        first = _chat(server, [{"role": "user", "content": "look"}], tools=tools)
        (call,) = first.message.tool_calls
        assert (call.function.name, dict(call.function.arguments)) == (
            "archival_search", {"query": "penicillin"},
        )  # fmt: skip
        read = {"function": {"name": "archival_search", "arguments": {"query": "penicillin"}}}
        turn = [
            {"role": "user", "content": "look"},
            {"role": "assistant", "content": "", "tool_calls": [read]},
            {"role": "tool", "content": "found it"},
        ]
        second = _chat(server, turn, tools=tools)
        assert "core_memory_append" in {c.function.name for c in second.message.tool_calls}


def test_fooled_extraction_states_the_claim_citing_every_message():
    with FakeOllama() as server:
        server.fool(FooledModel(CLAIM))
        schema = {"type": "object", "properties": {"facts": {"type": "array"}}}
        transcript = (
            "[id 7] 2026-01-01 Thu 10:00 user: text\n[id 8] 2026-01-01 Thu 10:01 assistant: ok"
        )
        reply = _chat(server, [{"role": "user", "content": transcript}], format=schema)
        (fact,) = json.loads(reply.message.content)["facts"]
        assert (fact["statement"], fact["source"], fact["message_ids"]) == (
            CLAIM, "user_stated", [7, 8],
        )  # fmt: skip


def test_scripted_replies_come_first_and_unfooling_restores_the_echo():
    with FakeOllama() as server:
        server.fool(FooledModel(CLAIM))
        server.script(Reply(content="scripted"))
        assert _chat(server, [{"role": "user", "content": "a"}]).message.content == "scripted"
        server.fool(None)
        assert _chat(server, [{"role": "user", "content": "b"}]).message.content == "You said: b"
