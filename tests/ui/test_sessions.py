"""Sessions: resume the last one, open another from the list, start a new one."""

from __future__ import annotations

from textual.widgets import OptionList

from tests.ui.conftest import make_engine
from tests.ui.helpers import chat_ready, messages_shown, sees, send, wait_until
from ui import HippoApp
from ui.screens import ChatScreen, SessionListScreen
from ui.widgets import Conversation

SIZE = (100, 30)


def _seed(engine, title_words: str, count: int) -> int:
    """A session holding ``count`` alternating messages; returns its id."""
    session = engine.conversations.new_session()
    for index in range(count):
        role = "user" if index % 2 == 0 else "assistant"
        engine.memory.messages.add_message(session.id, role, f"{title_words} {index}")
    return session.id


async def test_restarting_with_resume_shows_the_previous_conversation(config, clock, fake_ollama):
    first = make_engine(config, clock)
    app = HippoApp(first, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "remember the blue door")
        session_id = app.chat.session_id
    first.close()

    second = make_engine(config, clock)
    app = HippoApp(second, config, resume=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(messages_shown(app)) == 2)
        assert app.chat.session_id == session_id
        user, reply = messages_shown(app)
        assert user.content == "remember the blue door"
        assert reply.content == "You said: remember the blue door"
    second.close()


async def test_without_resume_the_chat_starts_empty_and_creates_a_session_on_send(
    engine, config, fake_ollama
):
    _seed(engine, "old talk", 4)
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        assert messages_shown(app) == [] and app.chat.session_id is None
        await send(pilot, "hello")
    assert len(engine.conversations.sessions()) == 2


async def test_resume_shows_only_the_last_hundred_messages(engine, config, fake_ollama):
    session_id = _seed(engine, "note", 150)
    app = HippoApp(engine, config, resume=True)
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.chat.query_one(Conversation)
        # The data file opens after the first frame, then 88 older messages mount in
        # batches: on a busy machine that takes a few seconds.
        await wait_until(
            pilot,
            lambda: messages_shown(app) and not conversation.filling,
            what="the last hundred messages",
        )
        shown = messages_shown(app)
        assert len(shown) == 100
        assert shown[0].content == "note 50" and shown[-1].content == "note 149"
        assert app.chat.session_id == session_id


async def test_the_session_list_opens_a_session_or_starts_a_new_one(engine, config, fake_ollama):
    older = _seed(engine, "about gardening", 2)
    clock_later = engine.clock.advance(hours=1)  # noqa: F841  (the next session is newer)
    _seed(engine, "about cooking", 4)
    app = HippoApp(engine, config, resume=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(messages_shown(app)) == 4)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionListScreen))
        await pilot.press("down", "enter")  # the older session, second in the list
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        await wait_until(pilot, lambda: len(messages_shown(app)) == 2)
        assert app.chat.session_id == older
        assert messages_shown(app)[0].content == "about gardening 0"

        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionListScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        await wait_until(pilot, lambda: not messages_shown(app))
        assert app.chat.session_id is None


async def test_the_session_list_filters_as_you_type_and_says_when_nothing_matches(
    engine, config, fake_ollama
):
    garden = _seed(engine, "about gardening", 2)
    engine.conversations.rename_session(garden, "Garden plans")
    engine.conversations.rename_session(_seed(engine, "about cooking", 2), "Cooking dinner")
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionListScreen))
        sessions = app.screen.query_one("#session-list", OptionList)
        await pilot.press("slash", "g", "a", "r")  # no Enter needed
        await wait_until(pilot, lambda: sessions.option_count == 1 and sessions.highlighted == 0)
        await pilot.press("x")
        await sees(pilot, "No session title holds 'garx'.")
        await pilot.press("backspace")
        await wait_until(pilot, lambda: sessions.option_count == 1)
        await pilot.press("enter")  # the first left
        await wait_until(pilot, lambda: app.chat.session_id == garden)
