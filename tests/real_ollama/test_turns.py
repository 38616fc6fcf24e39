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
    # "cut" where the model reached the server's 256-token cap (done_reason "length").
    assert reply.role == "assistant" and reply.status == ("cut" if events[-1].cut else "complete")
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
    assert [m.status for m in history][::2] == ["complete"] * 2
    assert {m.status for m in history[1::2]} <= {"complete", "cut"}
    # Whatever the model wrote through its tools waits for review.
    assert all(
        f.status == "pending"
        for f in real_engine.memory.facts.list(real_engine.memory.profile.id, limit=100)
    )


def test_a_reply_stopped_at_the_length_limit_is_stored_as_cut(real_ollama, tmp_path, clock):
    from assistant.engine import Hippo
    from assistant.llm.gateway import OllamaGateway
    from tests.real_ollama.models import PATIENT
    from tests.real_ollama.server import CHAT_MODEL, EMBEDDING_MODEL, RealOllama

    with RealOllama(n_ctx=1024, max_tokens=6) as server:  # Ollama's done_reason "length"
        engine = Hippo(
            tmp_path / "cut.db",
            OllamaGateway(server.host, **PATIENT),
            chat_model=CHAT_MODEL,
            embedding_model=EMBEDDING_MODEL,
            clock=clock,
        )
        try:
            session = engine.conversations.new_session()
            events, streamed = _turn(engine, session, "Tell me a long story about a dragon.")
            reply = engine.conversations.history(session.id)[-1]
        finally:
            engine.close()
    assert isinstance(events[-1], ReplyDone) and events[-1].cut
    assert (reply.status, reply.content) == ("cut", streamed)
