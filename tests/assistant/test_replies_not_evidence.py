"""The assistant's own replies are not evidence about the user (seen with a real small model).

Asked "What do you know about me?", SmolLM2-135M's earlier nonsense replies (one with an
invented URL) were recalled into the prompt ahead of the user's own statements.
"""

from __future__ import annotations

NONSENSE = "I know all about your sister: your sister is at https://sister.example.com, sister!"


def _conversation(engine):
    session = engine.conversations.new_session()
    engine.memory.messages.add_message(
        session.id, "user", "My sister Anna works as a nurse in Berlin."
    )
    engine.memory.messages.add_message(session.id, "assistant", NONSENSE)
    engine.memory.messages.add_message(session.id, "user", "What do you know about my sister?")
    engine.memory.messages.add_message(session.id, "assistant", NONSENSE + " Sister sister.")
    engine.background.embed_pending()
    return session


def test_the_users_words_are_recalled_before_any_reply(engine, fake_ollama):
    _conversation(engine)

    found = engine.memory.recall("What do you know about my sister?", kinds=("message",))

    roles = [m.role for m in found]
    assert "user" in roles and "assistant" in roles
    assert roles == sorted(roles, key=lambda role: role == "assistant")


def test_a_reply_never_takes_the_place_of_a_user_statement(engine, fake_ollama):
    _conversation(engine)

    (only,) = engine.memory.recall("Tell me about my sister Anna", kinds=("message",), limit=1)

    assert only.role == "user" and "Anna" in only.text


def test_the_prompt_quotes_the_users_statement_first(engine, fake_ollama):
    _conversation(engine)
    today = engine.conversations.new_session()
    user = engine.memory.messages.add_message(today.id, "user", "Where does my sister work?")

    context = engine.context_for(today, user)

    recalled = [m for _, m in context.used if m.kind == "message"]
    assert recalled and recalled[0].role == "user" and "Berlin" in recalled[0].text
