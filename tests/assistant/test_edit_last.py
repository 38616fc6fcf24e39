"""Editing the last message rewinds the chat: the old message and its reply are replaced."""

from __future__ import annotations

import pytest

from assistant.errors import HippoError, InvalidInput
from assistant.memory.facts import Evidence
from assistant.turns import ReplyDone, UserSaved
from tests.fake_ollama import Reply


def _said(engine, session_id):
    return [(m.role, m.content) for m in engine.conversations.history(session_id)]


def _proposing(statement: str) -> Reply:
    """A reply that first has the model propose a fact drawn from the user's message."""
    call = {"name": "remember_fact", "arguments": {"statement": statement}}
    return Reply(tool_calls=[call])


def test_the_edited_message_and_its_reply_replace_the_last_exchange(engine, fake_ollama):
    session = engine.conversations.new_session()
    list(engine.send(session.id, "Hello there"))
    fake_ollama.script(Reply(content="Lisbon, surely."), Reply(content="Lisbon."))
    list(engine.send(session.id, "What is the capital of Portugl?"))
    (old_user, old_reply) = engine.conversations.history(session.id)[-2:]
    events = list(engine.edit_last(session.id, "What is the capital of Portugal?"))
    assert isinstance(events[0], UserSaved) and isinstance(events[-1], ReplyDone)
    assert _said(engine, session.id) == [
        ("user", "Hello there"),
        ("assistant", "You said: Hello there"),
        ("user", "What is the capital of Portugal?"),
        ("assistant", "Lisbon."),
    ]
    assert engine.memory.search_messages("Portugl") == []  # not left in recall
    assert engine.memory.search_messages("surely") == []
    # The model was asked without the old words: the working memory had lost them.
    prompt = fake_ollama.requests[-1].body["messages"]
    assert not any("Portugl" in m["content"] or "surely" in m["content"] for m in prompt)
    assert {old_user.id, old_reply.id}.isdisjoint(
        m.id for m in engine.conversations.history(session.id)
    )


def test_a_session_of_one_exchange_is_kept_when_its_message_is_edited(engine, fake_ollama):
    session = engine.conversations.new_session(scope="work")
    list(engine.send(session.id, "Helo"))
    list(engine.edit_last(session.id, "Hello"))
    assert engine.conversations.session(session.id).scope == "work"
    assert _said(engine, session.id) == [("user", "Hello"), ("assistant", "You said: Hello")]


def test_a_fact_drawn_only_from_the_replaced_turn_goes_as_retry_would_drop_it(engine, fake_ollama):
    session = engine.conversations.new_session()
    fake_ollama.script(_proposing("The user lives in Lisbn"), Reply(content="Noted."))
    list(engine.send(session.id, "I live in Lisbn"))
    (proposed,) = engine.memory.facts.list(engine.memory.profile.id)
    old_user = engine.conversations.history(session.id)[0]
    # A fact that the replaced message only shares with another message stays, minus it.
    elsewhere = engine.memory.messages.add_message(
        engine.conversations.new_session().id, "user", "I like tea"
    )
    shared = engine.memory.facts.add(
        engine.memory.profile.id,
        "The user likes tea",
        source_kind="user_stated",
        actor="user",
        evidence=[Evidence("message", old_user.id), Evidence("message", elsewhere.id)],
    )
    list(engine.edit_last(session.id, "I live in Lisbon"))
    remaining = {fact.id: fact for fact in engine.memory.facts.list(engine.memory.profile.id)}
    assert proposed.id not in remaining
    assert [e.ref_id for e in remaining[shared.id].evidence] == [elsewhere.id]


def test_retry_then_edit_replaces_the_retried_reply_too(engine, fake_ollama):
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="first"), Reply(content="second"), Reply(content="third"))
    list(engine.send(session.id, "Tell me a colour"))
    list(engine.regenerate(session.id))
    list(engine.edit_last(session.id, "Tell me a number"))
    assert _said(engine, session.id) == [("user", "Tell me a number"), ("assistant", "third")]


def test_an_edit_of_a_message_that_is_no_longer_the_last_changes_nothing(engine, fake_ollama):
    session = engine.conversations.new_session()
    list(engine.send(session.id, "first"))
    chosen = engine.conversations.history(session.id)[0].id
    list(engine.send(session.id, "second"))  # sent meanwhile (another window, say)
    before = _said(engine, session.id)
    with pytest.raises(HippoError, match="changed since you began editing"):
        list(engine.edit_last(session.id, "first, edited", edited=chosen))
    assert _said(engine, session.id) == before


def test_an_empty_edit_is_refused_and_nothing_is_replaced(engine, fake_ollama):
    session = engine.conversations.new_session()
    list(engine.send(session.id, "keep me"))
    with pytest.raises(InvalidInput, match="empty"):
        list(engine.edit_last(session.id, "  "))
    assert _said(engine, session.id)[0] == ("user", "keep me")


def test_nothing_to_edit_in_a_session_without_a_message_of_the_users(engine):
    session = engine.conversations.new_session()
    with pytest.raises(HippoError, match="no message of yours"):
        list(engine.edit_last(session.id, "hello"))


def test_an_incognito_chat_is_rewound_in_memory(engine, fake_ollama):
    session = engine.conversations.new_session(incognito=True)
    list(engine.send(session.id, "secret typo"))
    list(engine.edit_last(session.id, "secret, fixed"))
    assert _said(engine, session.id) == [
        ("user", "secret, fixed"),
        ("assistant", "You said: secret, fixed"),
    ]


def test_a_title_taken_from_the_replaced_message_follows_the_edit(engine, fake_ollama):
    session = engine.conversations.new_session()
    list(engine.send(session.id, "my pasword is hunter2"))
    list(engine.edit_last(session.id, "how do I pick a password?"))
    assert engine.conversations.session(session.id).title == "how do I pick a password?"


def test_a_title_of_the_users_or_of_an_earlier_message_stays(engine, fake_ollama):
    renamed, longer = engine.conversations.new_session(), engine.conversations.new_session()
    list(engine.send(renamed.id, "first words"))
    engine.conversations.rename_session(renamed.id, "Trip plans")
    list(engine.send(longer.id, "same words"))
    list(engine.send(longer.id, "same words"))
    list(engine.edit_last(renamed.id, "changed"))
    list(engine.edit_last(longer.id, "other words"))
    assert engine.conversations.session(renamed.id).title == "Trip plans"
    assert (
        engine.conversations.session(longer.id).title == "same words"
    )  # the first message's, still there
