"""/edit rewinds the chat: the last message and its reply are replaced, never left above."""

from __future__ import annotations

from tests.fake_ollama import Reply
from tests.ui.helpers import (
    chat_ready,
    messages_shown,
    notified,
    screen_text,
    sees,
    send,
    send_command,
    type_text,
    wait_until,
)
from ui import HippoApp
from ui.widgets import PromptInput

SIZE = (120, 40)


def _shown(app: HippoApp) -> list[tuple[str, str]]:
    return [(view.role, view.content) for view in messages_shown(app)]


async def _edit_to(pilot, text: str) -> None:
    """/edit, then put ``text`` in the box in place of the old words."""
    app = pilot.app
    await send_command(pilot, "/edit")
    await wait_until(pilot, lambda: app.chat.editing is not None, what="the edit to begin")
    prompt = app.chat.query_one(PromptInput)
    prompt.clear()
    await type_text(pilot, text)


async def test_edit_replaces_the_last_message_and_its_reply(engine, config, fake_ollama):
    fake_ollama.script(
        Reply(content="Hi!"), Reply(content="Lisbon, surely."), Reply(content="Lisbon.")
    )
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "Hello")
        await send(pilot, "What is the capital of Portugl?")
        await send_command(pilot, "/edit")
        prompt = app.chat.query_one(PromptInput)
        await wait_until(pilot, lambda: prompt.text == "What is the capital of Portugl?")
        assert app.chat.query_one("#editing").display
        old_user = messages_shown(app)[-2]
        assert old_user.has_class("-editing")
        prompt.clear()
        await type_text(pilot, "What is the capital of Portugal?")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: (
                _shown(app)
                == [
                    ("user", "Hello"),
                    ("assistant", "Hi!"),
                    ("user", "What is the capital of Portugal?"),
                    ("assistant", "Lisbon."),
                ]
                and not app.chat.streaming
            ),
            what="the edited exchange in place of the old one",
        )
        assert app.chat.editing is None and not app.chat.query_one("#editing").display
        # Up/down hold the edited words, not both versions.
        assert "What is the capital of Portugl?" not in prompt.sent
        assert prompt.sent[-1] == "What is the capital of Portugal?"
        session_id = app.chat.session_id
    assert [(m.role, m.content) for m in engine.conversations.history(session_id)] == [
        ("user", "Hello"),
        ("assistant", "Hi!"),
        ("user", "What is the capital of Portugal?"),
        ("assistant", "Lisbon."),
    ]
    assert (
        engine.memory.search_messages("Portugl") == []
        and engine.memory.search_messages("surely") == []
    )


async def test_a_title_drawn_from_the_old_words_follows_the_edit(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "my pasword is hunter2")
        await wait_until(pilot, lambda: app.chat.sub_title == "my pasword is hunter2")
        await _edit_to(pilot, "how do I choose a password?")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: app.chat.sub_title == "how do I choose a password?",
            what="the new title",
        )
        await sees(pilot, "how do I choose a password?")
        assert "hunter2" not in screen_text(app)


async def test_a_fact_the_model_drew_from_the_replaced_message_goes_with_it(
    engine, config, fake_ollama
):
    call = {"name": "remember_fact", "arguments": {"statement": "The user lives in Lisbn"}}
    fake_ollama.script(Reply(tool_calls=[call]), Reply(content="Noted."))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "I live in Lisbn")
        await wait_until(
            pilot, lambda: len(engine.memory.facts.list(engine.memory.profile.id)) == 1
        )
        await _edit_to(pilot, "I live in Lisbon")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: _shown(app)[0] == ("user", "I live in Lisbon") and not app.chat.streaming,
            what="the edited message",
        )
    assert [f.statement for f in engine.memory.facts.list(engine.memory.profile.id)] == []


async def test_esc_leaves_the_edit_and_the_old_message_stays(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "Keep me as I am")
        await _edit_to(pilot, "a change I drop")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.chat.editing is None, what="the edit to end")
        prompt = app.chat.query_one(PromptInput)
        assert prompt.text == "" and not app.chat.query_one("#editing").display
        assert not any(view.has_class("-editing") for view in messages_shown(app))
        await send(pilot, "A new message")  # sent after, not in place of, the old one
        assert [content for _, content in _shown(app)] == [
            "Keep me as I am",
            "You said: Keep me as I am",
            "A new message",
            "You said: A new message",
        ]


async def test_edit_is_refused_while_a_reply_streams_and_in_an_empty_chat(
    engine, config, fake_ollama
):
    fake_ollama.script(Reply(content="a long answer " * 20, hold_after=2))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        await send_command(pilot, "/edit")
        await wait_until(pilot, lambda: notified(app, "no message of yours in this chat"))
        await type_text(pilot, "Tell me everything")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.chat.streaming, what="the reply to stream")
        await send_command(pilot, "/edit")
        await wait_until(pilot, lambda: notified(app, "press Esc to stop it first"))
        assert app.chat.editing is None
        fake_ollama.release()
        await wait_until(pilot, lambda: not app.chat.streaming, what="the reply to end")


async def test_leaving_the_chat_leaves_the_edit(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "Old chat")
        session_id = app.chat.session_id
        await _edit_to(pilot, "meant for the old chat")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.chat.session_id is None, what="a new chat")
        assert app.chat.editing is None and app.chat.query_one(PromptInput).text == ""
        await send(pilot, "New chat")
        assert app.chat.session_id != session_id
    assert [m.content for m in engine.conversations.history(session_id)] == [
        "Old chat",
        "You said: Old chat",
    ]
