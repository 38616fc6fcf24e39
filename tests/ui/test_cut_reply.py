"""A reply cut at the model's length limit: marked in the chat, with /continue offered."""

from __future__ import annotations

from assistant.turns import CONTINUE_MESSAGE
from tests.fake_ollama import Reply
from tests.ui.helpers import (
    chat_ready,
    messages_shown,
    notified,
    sees,
    send,
    send_command,
    wait_until,
)
from ui import HippoApp
from ui.widgets.message import CUT_HINT

SIZE = (120, 40)


async def test_a_cut_reply_says_so_and_continue_asks_the_model_to_go_on(
    engine, config, fake_ollama, tmp_path
):
    fake_ollama.script(
        Reply(content="First, soak the beans. Then", done_reason="length"),
        Reply(content="rinse them and simmer for an hour."),
    )
    target = tmp_path / "beans.md"
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        await send(pilot, "How do I cook beans?")
        await sees(pilot, "Hippo · qwen3:1.7b · cut short", CUT_HINT)
        await send_command(pilot, f"/export {target}")
        await wait_until(pilot, lambda: notified(app, "Saved this chat to"))
        await send_command(pilot, "/continue")
        await wait_until(
            pilot,
            lambda: (
                [v.content for v in messages_shown(app)][2:]
                == [CONTINUE_MESSAGE, "rinse them and simmer for an hour."]
                and not app.chat.streaming
            ),
            what="the continuation",
        )
        assert [v.status for v in messages_shown(app)][1::2] == ["cut", "complete"]
        assert len(app.chat.query(".hint")) == 1  # under the cut reply only
        await send_command(pilot, "/continue")
        await wait_until(pilot, lambda: notified(app, "The last reply was not cut short"))
        assert len(messages_shown(app)) == 4
    assert "## Hippo · " in (text := target.read_text())
    assert text.count(" · cut short at the model's length limit\n") == 1
