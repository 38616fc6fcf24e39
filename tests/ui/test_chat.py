"""Chatting: replies stream in, can be stopped, fail visibly, and are stored."""

from __future__ import annotations

from tests.fake_ollama import Reply
from tests.ui.helpers import (
    chat_ready,
    messages_shown,
    noted,
    notified,
    sees,
    send,
    type_text,
    wait_until,
)
from ui import HippoApp
from ui.widgets import PromptInput

SIZE = (100, 30)


async def test_a_sent_message_streams_the_scripted_reply_and_is_stored(engine, config, fake_ollama):
    fake_ollama.script(Reply(content="Hello **there**, friend.", chunk_size=3))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "hi hippo")
        user, reply = messages_shown(app)
        assert (user.role, user.content) == ("user", "hi hippo")
        assert (reply.status, reply.content) == ("complete", "Hello **there**, friend.")
        await sees(pilot, "Hello there, friend.")
        assert app.chat.query_one(PromptInput).text == ""
    stored = engine.conversations.history(app.chat.session_id)
    assert [(m.role, m.content, m.status) for m in stored] == [
        ("user", "hi hippo", "complete"),
        ("assistant", "Hello **there**, friend.", "complete"),
    ]


async def test_escape_stops_a_slow_reply_which_is_kept_marked_stopped(engine, config, fake_ollama):
    fake_ollama.script(Reply(content="one two three four five six " * 20, delay=0.05, chunk_size=1))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await type_text(pilot, "tell me a long story")
        await pilot.press("enter")
        shown = messages_shown
        await wait_until(pilot, lambda: len(shown(app)) == 2 and shown(app)[1].content)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.chat.streaming, what="the reply to stop")
        reply = messages_shown(app)[1]
        assert reply.status == "cancelled"
        await sees(pilot, "Hippo · qwen3:1.7b · stopped")
    stored = engine.conversations.history(app.chat.session_id)[-1]
    assert stored.status == "cancelled"
    assert stored.content and len(stored.content) < len("one two three four five six " * 20)


async def test_the_input_stays_usable_while_a_reply_streams(engine, config, fake_ollama):
    # Held after a few pieces, the reply is still streaming however slow the machine is.
    fake_ollama.script(Reply(content="slowly " * 40, chunk_size=2, hold_after=3))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await type_text(pilot, "first")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.chat.streaming and len(messages_shown(app)) == 2)
        await wait_until(pilot, lambda: fake_ollama.hanging == 1, what="the reply to be held")
        await pilot.press("o", "k")
        await type_text(pilot, " and more")
        assert app.chat.streaming, "the reply should still be streaming"
        assert app.chat.query_one(PromptInput).text == "ok and more"
        await pilot.press("enter")  # refused while streaming: the text stays
        assert app.chat.query_one(PromptInput).text == "ok and more"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.chat.streaming)


async def test_a_failed_reply_shows_the_error_and_keeps_the_users_message(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        fake_ollama.stop()  # Ollama went away after startup
        await send(pilot, "are you there?")
        user, reply = messages_shown(app)
        assert user.content == "are you there?"
        assert reply.status == "failed"
        assert "Can't reach Ollama" in reply.error
        await sees(pilot, "are you there?", "Can't reach Ollama")
    assert [m.status for m in engine.conversations.history(app.chat.session_id)] == [
        "complete",
        "failed",
    ]


async def test_markup_looking_text_is_shown_literally(engine, config, fake_ollama):
    reply_text = "Use [bold]this[/] and [/] or [red on blue]that[/red on blue] [link=x]y[/link]"
    fake_ollama.script(Reply(content=reply_text, thinking="hmm [/] [bold]", chunk_size=2))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "what does [bold]x[/] or [/] mean?")
        await sees(
            pilot,
            "what does [bold]x[/] or [/] mean?",
            "Use [bold]this[/] and [/] or [red on blue]that[/red on blue] [link=x]y[/link]",
        )
        assert messages_shown(app)[1].thinking == "hmm [/] [bold]"


async def test_enter_sends_while_shift_enter_and_ctrl_j_start_new_lines(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        prompt = app.chat.query_one(PromptInput)
        prompt.focus()
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert prompt.text == "a\nb\nc"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(messages_shown(app)) == 2 and not app.chat.streaming)
        assert messages_shown(app)[0].content == "a\nb\nc"
        assert prompt.text == ""
        await pilot.press("enter")  # an empty box sends nothing
        await pilot.pause()
        assert len(messages_shown(app)) == 2
    assert engine.conversations.history(app.chat.session_id)[0].content == "a\nb\nc"


async def test_thinking_is_shown_collapsed_for_models_that_think(engine, config, fake_ollama):
    fake_ollama.script(Reply(content="Four.", thinking="Two plus two is four."))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "2+2?")
        reply = messages_shown(app)[1]
        assert reply.thinking == "Two plus two is four."
        from textual.widgets import Collapsible

        assert reply.query_one(Collapsible).collapsed
        assert "Two plus two" not in await sees(pilot, "Thinking", "Four.")


async def test_messages_can_be_copied(engine, config, fake_ollama):
    fake_ollama.script(Reply(content="Copy *me*."))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "say something")
        await pilot.press("ctrl+y")
        assert app.clipboard == "Copy *me*."
        messages_shown(app)[0].focus()
        await pilot.press("c")
        assert app.clipboard == "say something"


async def test_typing_on_a_message_reaches_the_box_and_esc_goes_back_to_it(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "say something")
        prompt = app.chat.query_one(PromptInput)
        messages_shown(app)[1].focus()
        await pilot.press("h", "i")  # not a message's key: the words are not lost
        await wait_until(pilot, lambda: prompt.text == "hi" and app.focused is prompt)
        messages_shown(app)[0].focus()
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.focused is prompt)
        assert prompt.text == "hi"


async def test_a_message_a_full_disk_cannot_take_is_given_back_with_advice(
    engine, config, fake_ollama
):
    from tests.disk import disk_full

    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        await send(pilot, "hello")
        await sees(pilot, "You said: hello")
        words = "my whole diary " * 400
        with disk_full(engine):
            await type_text(pilot, words)
            await pilot.press("enter")
            await sees(pilot, "Not sent")
            # The advice is read from the notice, not the screen: it names the data file,
            # whose temporary path (longer under an xdist worker) moves where lines wrap.
            assert notified(app, "is full") and notified(app, "Free some space")
        assert app.chat.query_one(PromptInput).text == words
        assert not app.chat.streaming and len(messages_shown(app)) == 2


async def test_a_message_longer_than_the_model_reads_is_sent_with_a_warning(
    engine, config, fake_ollama
):
    fake_ollama.script(Reply(content="That is a long report."))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        # ~12,750 tokens: half again the 8,192 the model is given (more only costs time).
        app.chat.query_one(PromptInput).text = "a pasted report, " * 3_000
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: notified(app, "`hippo document add FILE` keeps it searchable")
        )
        await wait_until(pilot, lambda: not app.chat.streaming)
        assert len(messages_shown(app)) == 2


async def test_the_chat_says_once_when_the_embedding_model_cannot_read_the_language(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        await send(pilot, "我的护照三月到期")
        # Too long for a toast: a note in the chat, which stays to be read.
        await wait_until(pilot, lambda: notified(app, "a note in the chat"))  # said after it
        assert noted(app, "does not read Chinese")
        assert noted(app, "(bge-m3) can be chosen with F2")  # not the model in use


async def test_a_message_the_engine_refuses_is_given_back_to_the_box(
    engine, config, fake_ollama, clock
):
    from tests.ui.conftest import make_engine

    work = make_engine(config, clock)
    other_profile = work.memory.messages.create_session(work.memory.messages.profile("work").id)
    work.close()
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        app.chat.session_id = other_profile.id  # not this profile's: the engine refuses
        await type_text(pilot, "keep my words")
        await pilot.press("enter")
        await sees(pilot, "Not sent", "belongs to another")
        assert app.chat.query_one(PromptInput).text == "keep my words"
        assert not app.chat.streaming and messages_shown(app) == []


async def test_a_bug_in_a_turn_is_called_a_bug_and_the_words_come_back(
    engine, config, fake_ollama, monkeypatch
):
    def broken(*args: object, **kwargs: object) -> object:
        raise KeyError("turn_state")

    monkeypatch.setattr(engine, "send", broken)
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        await type_text(pilot, "keep my words")
        await pilot.press("enter")
        await wait_until(pilot, lambda: notified(app, "A bug in Hippo stopped this turn"))
        assert notified(app, "KeyError: 'turn_state'")
        assert app.chat.query_one(PromptInput).text == "keep my words"
        assert not app.chat.streaming
