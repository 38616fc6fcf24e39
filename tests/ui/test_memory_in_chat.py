"""The chat shows which memories a reply used, and says when the model wrote memory."""

from __future__ import annotations

from assistant.memory.facts import Evidence
from tests.fake_ollama import Reply
from tests.ui.helpers import chat_ready, messages_shown, notified, send, wait_until
from ui import HippoApp

SIZE = (100, 30)


async def test_a_reply_lists_the_memories_it_used(engine, config, fake_ollama):
    session = engine.conversations.new_session()
    said = engine.memory.messages.add_message(session.id, "user", "I am allergic to [peanuts]")
    engine.memory.facts.add(
        engine.memory.profile.id,
        "I am allergic to [peanuts]",
        source_kind="user_stated",
        actor="user",
        evidence=[Evidence("message", said.id)],
    )
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "Suggest a snack")
        reply = messages_shown(app)[-1]
        box = reply.query_one(".memories")
        assert box.title == "Memories used (1)"
        text = str(reply.query_one(".memories-text").render())
        assert "facts · fact" in text and "[peanuts]" in text


async def test_a_memory_written_by_the_model_is_announced(engine, config, fake_ollama):
    fake_ollama.script(
        Reply(
            tool_calls=[
                {
                    "name": "core_memory_append",
                    "arguments": {"label": "human", "content": "Likes [green] tea"},
                }
            ]
        ),
        Reply(content="Noted."),
    )
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "I like green tea")
        await wait_until(
            pilot,
            lambda: notified(app, "Likes [green] tea"),
            what="the memory notice",
        )
