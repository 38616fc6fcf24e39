"""A chat turn with a real model: it streams, it is kept, and its tool rounds survive."""

from __future__ import annotations

import pytest

from assistant.llm.values import TextDelta
from assistant.turns import ReplyDone

pytestmark = [pytest.mark.realmodel, pytest.mark.timeout(900)]


def _turn(engine, session, text):
    events = list(engine.send(session.id, text))
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    return events, streamed


def test_a_chat_turn_streams_a_real_reply_and_keeps_it(real_engine):
    session = real_engine.conversations.new_session()

    events, streamed = _turn(real_engine, session, "Hello! My sister Anna is a nurse in Lyon.")

    assert isinstance(events[-1], ReplyDone), events[-1]
    assert sum(isinstance(e, TextDelta) for e in events) > 1 and streamed.strip()
    user, reply = real_engine.conversations.history(session.id)
    assert user.content == "Hello! My sister Anna is a nurse in Lyon."
    assert reply.role == "assistant" and reply.status == "complete"
    assert reply.content == streamed


def test_a_tool_round_survives_whatever_the_model_sends(real_engine, real_ollama):
    session = real_engine.conversations.new_session()
    asks = (
        "Remember this about me: I am allergic to penicillin. Save it with your memory tool.",
        "Search your memory for what I said about penicillin.",
    )
    for text in asks:
        events, _ = _turn(real_engine, session, text)
        assert isinstance(events[-1], ReplyDone), events[-1]

    chats = [r.body for r in real_ollama.requests if r.path == "/api/chat"]
    assert any(body.get("tools") for body in chats)  # the model was offered its tools
    for body in chats:  # every call the model made was answered before the next round
        called = [m for m in body["messages"] if m.get("tool_calls")]
        answered = [m for m in body["messages"] if m.get("role") == "tool"]
        assert len(answered) == sum(len(m["tool_calls"]) for m in called)
    history = real_engine.conversations.history(session.id)
    assert [m.status for m in history] == ["complete"] * 4
    # Whatever the model wrote through its tools waits for review.
    assert all(
        f.status == "pending"
        for f in real_engine.memory.facts.list(real_engine.memory.profile.id, limit=100)
    )
