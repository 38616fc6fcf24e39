"""The chat never hangs on Ollama: a silent reply says what it waits for and Esc stops it,
and the status line follows Ollama going down and coming back without a message sent."""

from __future__ import annotations

from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from tests.ui.helpers import chat_ready, messages_shown, sees, send, type_text, wait_until
from ui import HippoApp
from ui.screens import ChatScreen

SIZE = (100, 30)
# Ollama's state changes reach the line within 10 s; the waits below allow for a busy machine.
FOLLOWS_S = 30.0


def _waiting_line(app: HippoApp) -> str:
    line = app.chat.query_one("#waiting")
    return str(line.render()) if line.display else ""


async def _send_and_wait_for_the_hang(pilot, fake_ollama, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")
    await wait_until(pilot, lambda: fake_ollama.hanging >= 1, what="the request to hang")


async def test_escape_stops_a_reply_whose_model_never_answers(engine, config, fake_ollama):
    fake_ollama.fail_next("/api/chat", "hang")
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await _send_and_wait_for_the_hang(pilot, fake_ollama, "hello?")
        await wait_until(
            pilot,
            lambda: _waiting_line(app).startswith("Waiting for qwen3:1.7b to load…"),
            what="the chat to say what it waits for",
        )
        await sees(pilot, "Waiting for qwen3:1.7b to load…", "Esc stops")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.chat.streaming, what="the reply to stop")
        assert messages_shown(app)[1].status == "cancelled"
        assert _waiting_line(app) == ""
        assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)  # it hung up
        await send(pilot, "and now?")  # the chat is usable again
        assert messages_shown(app)[-1].content == "You said: and now?"
    assert engine.conversations.history(app.chat.session_id)[1].status == "cancelled"


async def test_escape_stops_a_reply_waiting_on_the_embedding_of_the_question(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "my bike is a green Brompton")
        await wait_until(
            pilot,
            lambda: (
                engine.memory.vectors.model(engine.memory.embedder.vector_key)
                and not engine.background.pending_embeddings()
            ),
            what="the first messages to be embedded",
        )
        # Two: the question's embedding for recall, and the background one of the message.
        fake_ollama.fail_next("/api/embed", "hang", count=2)
        await _send_and_wait_for_the_hang(pilot, fake_ollama, "what colour is my bike?")
        await sees(pilot, "Waiting for embeddinggemma to recall memories…")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.chat.streaming, what="the reply to stop")
        assert messages_shown(app)[-1].status == "cancelled"
        assert fake_ollama.wait_until(lambda: fake_ollama.disconnects >= 1)  # it hung up


async def test_the_status_line_follows_ollama_going_down_and_coming_back(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        host = fake_ollama.host.removeprefix("http://")
        fake_ollama.stop()
        await wait_until(pilot, lambda: app.chat.status.reachable is False, FOLLOWS_S, "down")
        await sees(pilot, f"○ Ollama {host} down")
        fake_ollama.start()
        await wait_until(pilot, lambda: app.chat.status.reachable is True, FOLLOWS_S, "up")
        await sees(pilot, f"● Ollama {host} up")


async def test_the_status_line_says_down_when_ollama_hangs(config, fake_ollama, clock):
    gateway = OllamaGateway(config.ollama.host, connect_timeout=0.5)
    engine = Hippo(config.db_path, gateway, chat_model=config.models.chat,
                   embedding_model=config.models.embedding, clock=clock)  # fmt: skip
    app = HippoApp(engine, config)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            fake_ollama.fall_silent()
            await wait_until(pilot, lambda: app.chat.status.reachable is False, FOLLOWS_S)
            fake_ollama.answer_again()
            await wait_until(pilot, lambda: app.chat.status.reachable is True, FOLLOWS_S)
            assert isinstance(app.screen, ChatScreen)
    finally:
        engine.close()


async def test_a_reply_that_fails_on_a_hung_ollama_names_it_and_the_line_says_down(
    config, fake_ollama, clock
):
    gateway = OllamaGateway(
        config.ollama.host, connect_timeout=0.5, load_timeout=0.5, stall_timeout=0.5
    )
    engine = Hippo(config.db_path, gateway, chat_model=config.models.chat,
                   embedding_model=config.models.embedding, clock=clock)  # fmt: skip
    app = HippoApp(engine, config)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            fake_ollama.fall_silent()
            await send(pilot, "anyone?")
            reply = messages_shown(app)[1]
            assert reply.status == "failed"
            assert f"Ollama at {fake_ollama.host}" in reply.error
            await wait_until(pilot, lambda: app.chat.status.reachable is False, FOLLOWS_S)
    finally:
        engine.close()


def test_ollama_coming_back_as_the_app_quits_is_not_an_error(engine, config):
    # The status line's check ended after the app's last screen had closed: handling
    # its "up" raised "No screens on stack" as the app quit (seen on a busy machine).
    from ui.widgets import StatusLine

    app = HippoApp(engine, config)
    assert not app.screen_stack  # as after quitting
    app.on_status_line_changed(StatusLine.Changed(up=True))
