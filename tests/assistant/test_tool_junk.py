"""A tool round survives whatever a small model sends: unknown tools, wrong arguments, loops."""

from __future__ import annotations

import pytest

from assistant.chat import MAX_TOOL_ROUNDS
from assistant.turns import ReplyDone
from tests.fake_ollama import Reply

JUNK_CALLS = [
    {"name": "D1:1", "arguments": {"fact": "D1:2"}},  # a turn id for a tool name
    {"name": "remember_fact", "arguments": {}},  # the required argument missing
    {"name": "remember_fact", "arguments": {"statement": ["not", "a", "string"]}},
    {"name": "core_memory_replace", "arguments": {"label": "nobody", "old_content": 5}},
]
ODD_BUT_FINE = {"name": "recall_search", "arguments": {"query": "x" * 20_000, "when": "ish"}}


def _chats(fake_ollama):
    return [r.body for r in fake_ollama.requests if r.path == "/api/chat"]


@pytest.mark.parametrize("call", JUNK_CALLS, ids=lambda c: c["name"])
def test_each_broken_call_is_answered_with_an_error_and_the_turn_ends(engine, fake_ollama, call):
    fake_ollama.script(Reply(tool_calls=[call]), Reply(content="Sorry about that."))

    events = list(engine.send(engine.conversations.new_session().id, "Remember that I like tea."))

    assert isinstance(events[-1], ReplyDone) and events[-1].message.content == "Sorry about that."
    tool_turn = _chats(fake_ollama)[-1]["messages"][-1]
    assert tool_turn["role"] == "tool" and tool_turn["content"].startswith("Error")
    assert engine.memory.facts.count(engine.memory.profile.id) == 0


def test_an_odd_but_readable_call_is_answered(engine, fake_ollama):
    fake_ollama.script(Reply(tool_calls=[ODD_BUT_FINE]), Reply(content="Nothing found."))
    events = list(engine.send(engine.conversations.new_session().id, "Search for x."))
    assert isinstance(events[-1], ReplyDone)
    assert _chats(fake_ollama)[-1]["messages"][-1]["role"] == "tool"


def test_a_model_that_calls_tools_forever_is_stopped_after_the_last_round(engine, fake_ollama):
    fake_ollama.script(*[Reply(content="Let me check.", tool_calls=JUNK_CALLS)] * 10)

    events = list(engine.send(engine.conversations.new_session().id, "What do you know about me?"))

    assert isinstance(events[-1], ReplyDone)
    chats = _chats(fake_ollama)
    assert len(chats) == MAX_TOOL_ROUNDS + 1 and not chats[-1].get("tools")
