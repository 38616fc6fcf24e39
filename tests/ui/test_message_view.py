"""MessageView on its own: streaming into Markdown, then one whole render at the end."""

from __future__ import annotations

from datetime import UTC, datetime

from textual.app import App, ComposeResult
from textual.widgets import Markdown, Static

from assistant.memory.models import Message
from ui.widgets import MessageView


def _stored(content: str, status: str = "complete", error: str = "") -> Message:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    return Message(1, 1, "assistant", content, moment, status=status, error=error)  # type: ignore[arg-type]


class _OneMessage(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageView("assistant", status="streaming", model="qwen3:1.7b")


async def test_a_reply_that_fails_before_any_text_settles_cleanly():
    app = _OneMessage()
    async with app.run_test() as pilot:
        view = app.query_one(MessageView)
        await view.finish(_stored("", "failed", "Can't reach Ollama"))  # no stream ever started
        await pilot.pause()
        assert view.status == "failed" and view.error == "Can't reach Ollama"
        assert not view.query(Markdown)


async def test_a_streamed_reply_is_rendered_once_whole_when_it_ends():
    app = _OneMessage()
    async with app.run_test() as pilot:
        view = app.query_one(MessageView)
        for piece in ("# Ti", "tle\n\n- one\n", "- two"):
            await view.append_text(piece)
        assert view.query(Markdown), "text streams into Textual's Markdown widget"
        await view.finish(_stored("# Title\n\n- one\n- two"))  # right after the last write
        await pilot.pause()
        assert not view.query(Markdown)
        assert isinstance(view.query_one(".body"), Static)
        assert view.content == "# Title\n\n- one\n- two"
