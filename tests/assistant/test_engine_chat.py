"""A chat turn: the user's message is kept first, the reply streams in and is kept as it ends."""

from __future__ import annotations

import threading

import pytest

from assistant.errors import MemoryWriteError
from assistant.llm.values import TextDelta, ThinkingDelta
from assistant.turns import (
    CONTINUE_MESSAGE,
    PromptTooLong,
    ReplyCancelled,
    ReplyDone,
    ReplyFailed,
    ReplyStarted,
    UserSaved,
)
from tests.fake_ollama import Reply


def _run(engine, session_id, text, cancel=None):
    return list(engine.send(session_id, text, cancel=cancel))


def test_a_reply_streams_in_pieces_and_is_stored_whole(engine, fake_ollama):
    fake_ollama.script(Reply(content="Lisbon is lovely in May.", chunk_size=3))
    session = engine.conversations.new_session()
    events = _run(engine, session.id, "Where should I travel?")
    assert isinstance(events[0], UserSaved)
    assert isinstance(events[1], ReplyStarted)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3 and "".join(deltas) == "Lisbon is lovely in May."
    done = events[-1]
    assert isinstance(done, ReplyDone)
    assert [(m.role, m.content, m.status) for m in engine.conversations.history(session.id)] == [
        ("user", "Where should I travel?", "complete"),
        ("assistant", "Lisbon is lovely in May.", "complete"),
    ]


def test_a_reply_cut_at_the_models_length_limit_is_stored_as_cut(engine, fake_ollama):
    fake_ollama.script(
        Reply(content="The three reasons are: first, the", done_reason="length"),
        Reply(content="Whole."),
    )
    session = engine.conversations.new_session()
    done = _run(engine, session.id, "Give me three reasons.")[-1]
    assert isinstance(done, ReplyDone) and done.cut and done.message.status == "cut"
    assert done.message.importance is not None  # rated as a finished reply is
    stored = engine.conversations.history(session.id)[-1]
    assert (stored.content, stored.status) == ("The three reasons are: first, the", "cut")
    assert not _run(engine, session.id, CONTINUE_MESSAGE)[-1].cut
    sent = [r.body for r in fake_ollama.requests if r.path == "/api/chat"][-1]["messages"]
    assert {"role": "assistant", "content": "The three reasons are: first, the"} in [
        {"role": m["role"], "content": m["content"]} for m in sent
    ]  # the next turn sees where the cut reply stopped


def test_a_scope_must_be_one_word_and_nothing_is_created_otherwise(engine):
    before = len(engine.conversations.sessions())
    for bad in ("my work", "work;drop", "x" * 33, "-work"):
        with pytest.raises(MemoryWriteError, match="not a scope name"):
            engine.conversations.new_session(scope=bad)
    assert len(engine.conversations.sessions()) == before
    assert engine.conversations.new_session(scope=" Health-2 ").scope == "health-2"
    assert engine.conversations.new_session().scope == ""


def test_the_user_message_is_stored_before_the_model_is_asked(engine, fake_ollama):
    session = engine.conversations.new_session()
    stream = engine.send(session.id, "remember the milk")
    first = next(stream)
    assert isinstance(first, UserSaved)
    assert not [r for r in fake_ollama.requests if r.path == "/api/chat"]
    assert engine.conversations.history(session.id)[0].content == "remember the milk"
    list(stream)


@pytest.fixture
def ollama_transport():
    """Over HTTP: some of these replies stream slowly or drop mid-way, as a socket does."""
    return None


def test_a_message_longer_than_the_context_window_is_answered_with_a_warning(engine, fake_ollama):
    session = engine.conversations.new_session()
    assert not [e for e in engine.send(session.id, "hello") if isinstance(e, PromptTooLong)]
    # ~12,750 tokens: half again the 8,192 the model is given (more only costs time).
    fake_ollama.script(Reply(content="Read it."))  # the fake's echo: 12,000 chunks of 4 chars
    events = list(engine.send(session.id, "a pasted report, " * 3_000))
    (warning,) = [e for e in events if isinstance(e, PromptTooLong)]
    assert warning.window == engine.live_settings.turn.context_tokens < warning.tokens
    assert "hippo document add" in warning.advice and "context_tokens" in warning.advice
    assert isinstance(events[-1], ReplyDone)  # warned, not refused


def test_thinking_arrives_separately_for_models_that_think(engine, fake_ollama):
    fake_ollama.script(Reply(content="42.", thinking="Let me count."))
    session = engine.conversations.new_session()
    events = _run(engine, session.id, "What is six times seven?")
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "Let me count."
    reply = engine.conversations.history(session.id)[-1]
    assert (reply.content, reply.thinking) == ("42.", "Let me count.")


def test_a_cancelled_reply_is_kept_marked_cancelled(engine, fake_ollama):
    fake_ollama.script(Reply(content="word " * 200, chunk_size=5, delay=0.01))
    session = engine.conversations.new_session()
    cancel = threading.Event()
    events = []
    for event in engine.send(session.id, "Tell me a long story", cancel=cancel):
        events.append(event)
        if sum(isinstance(e, TextDelta) for e in events) == 3:
            cancel.set()
    assert isinstance(events[-1], ReplyCancelled)
    reply = engine.conversations.history(session.id)[-1]
    assert reply.status == "cancelled"
    assert reply.content.startswith("word")
    assert len(reply.content) < len("word " * 200)


def test_a_reply_abandoned_by_its_reader_is_kept_as_cancelled(engine, fake_ollama):
    fake_ollama.script(Reply(content="one two three four five six", chunk_size=4))
    session = engine.conversations.new_session()
    stream = engine.send(session.id, "count")
    for event in stream:
        if isinstance(event, TextDelta):
            break
    stream.close()
    assert engine.conversations.history(session.id)[-1].status == "cancelled"


def test_ollama_dropping_mid_reply_keeps_both_messages_and_says_why(engine, fake_ollama):
    fake_ollama.fail_next("/api/chat", "drop")
    session = engine.conversations.new_session()
    events = _run(engine, session.id, "Are you there?")
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    user, reply = engine.conversations.history(session.id)
    assert user.content == "Are you there?"
    assert reply.status == "failed" and reply.error == str(failed.error)


def test_ollama_down_fails_the_reply_but_keeps_the_users_message(engine, fake_ollama):
    fake_ollama.stop()
    session = engine.conversations.new_session()
    events = _run(engine, session.id, "hello?")
    assert isinstance(events[-1], ReplyFailed)
    assert "ollama serve" in str(events[-1].error)
    assert engine.conversations.history(session.id)[0].content == "hello?"


def test_earlier_turns_are_sent_as_context_and_failed_replies_are_not(engine, fake_ollama):
    session = engine.conversations.new_session()
    _run(engine, session.id, "My name is Ada.")
    fake_ollama.fail_next("/api/chat", "500")
    _run(engine, session.id, "What is my name?")
    _run(engine, session.id, "Still there?")
    body = [r for r in fake_ollama.requests if r.path == "/api/chat"][-1].body
    sent = [(m["role"], m["content"]) for m in body["messages"]]
    assert sent[0][0] == "system"
    assert ("user", "My name is Ada.") in sent
    assert sent[-1] == ("user", "Still there?")
    assert not any(role == "assistant" and content == "" for role, content in sent)


def test_the_system_prompt_states_the_current_date(engine, fake_ollama, clock):
    session = engine.conversations.new_session()
    _run(engine, session.id, "What day is it?")
    body = [r for r in fake_ollama.requests if r.path == "/api/chat"][-1].body
    assert clock.now().astimezone().strftime("%Y-%m-%d") in body["messages"][0]["content"]


def test_a_restarted_engine_finds_the_last_session_and_its_history(engine, fake_ollama, config):
    from assistant.factory import open_engine

    session = engine.conversations.new_session()
    _run(engine, session.id, "first")
    engine.close()
    reopened = open_engine(config)
    try:
        last = reopened.conversations.last_session()
        assert last is not None and last.id == session.id
        assert [m.role for m in reopened.conversations.history(last.id)] == ["user", "assistant"]
    finally:
        reopened.close()


def test_the_engine_closes_as_a_with_block_ends(config, clock, blank_data_file):
    from assistant.factory import open_engine

    wal = config.db_path.with_name(config.db_path.name + "-wal")
    with pytest.raises(KeyError), open_engine(config, clock=clock) as engine:
        engine.conversations.new_session()
        assert wal.exists()  # open, with a write in its journal
        raise KeyError("a failure inside the block")
    assert not wal.exists()  # the last connection closed and folded the journal in
