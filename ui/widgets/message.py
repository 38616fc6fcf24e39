"""One message of the conversation, able to stream a reply into itself.

Markdown (Rich's renderer, Textual's streaming widget, markdown-it under both) loads when
the first message is drawn, not at start-up: the first frame shows no message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message as TextualMessage
from textual.widgets import Static

from assistant.terminal import visible

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.app import ComposeResult
    from textual.widgets import Collapsible
    from textual.widgets.markdown import MarkdownStream

    from assistant.memory.models import Message
    from assistant.memory.retrieval import Memory

__all__ = ["MessageView"]

_WHO = {"user": "You", "assistant": "Hippo", "system": "System", "tool": "Tool"}
_STATUS_NOTE = {
    "streaming": "…",
    "cancelled": "cancelled",
    "failed": "failed",
    "queued": "queued, sent when the data file is open",
}


def _settled_body(role: str, content: str) -> Static:
    """A finished message's text as one cheap widget (history may show 100 of them).

    Replies are Markdown rendered by Rich in a single Static, about ten times cheaper
    to mount than Textual's block-per-widget Markdown; the user's words are shown as
    typed. Neither is ever parsed as markup, and control characters show escaped.
    """
    if role == "assistant":
        from rich.markdown import Markdown as RichMarkdown

        return Static(RichMarkdown(visible(content), code_theme="ansi_dark"), classes="body")
    return Static(Content(visible(content)), classes="body")


class MessageView(Vertical, can_focus=True):
    """A message: who wrote it, its text, the model's thinking, and how it ended.

    A reply streams into Textual's Markdown widget; when it ends it is rendered once,
    whole, like every stored message.

    Args:
        role: ``user``, ``assistant``, ``system`` or ``tool``.
        content: the text so far.
        thinking: the model's thinking so far.
        status: ``complete``, ``streaming``, ``cancelled``, ``failed``, or ``queued``
            (typed before the data file was open, not stored yet).
        error: why the reply failed.
        model: the model that wrote it.
        message_id: the stored message's id (None for one never stored).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy message"),
        Binding("m", "memories", "Memories used"),
    ]

    class ShowMemories(TextualMessage):
        """Show the memories a reply used, with their scores (the app opens the view)."""

        def __init__(self, reply_id: int) -> None:
            super().__init__()
            self.reply_id = reply_id

    def __init__(
        self,
        role: str,
        content: str = "",
        *,
        thinking: str = "",
        status: str = "complete",
        error: str = "",
        model: str = "",
        message_id: int | None = None,
    ) -> None:
        super().__init__(classes=f"message -{role}")
        self.message_id = message_id
        self.role = role
        self.content = content
        self.thinking = thinking
        self.status = status
        self.error = error
        self.model = model
        self._stream: MarkdownStream | None = None
        self.set_class(status != "complete", f"-{status}")

    @classmethod
    def from_message(cls, message: Message) -> MessageView:
        """A view of a stored message."""
        return cls(
            message.role,
            message.content,
            thinking=message.thinking,
            status=message.status,
            error=message.error,
            model=message.model,
            message_id=message.id,
        )

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="header")
        if self.thinking:
            yield self._thinking_box()
        if self.status == "streaming":
            from textual.widgets import Markdown

            yield Markdown(visible(self.content), open_links=False, classes="body")
        else:
            yield _settled_body(self.role, self.content)
        error = Static(Content(visible(self.error)), classes="error")
        error.display = bool(self.error)
        yield error

    def _header(self) -> Content:
        who = _WHO.get(self.role, self.role)
        if self.role == "assistant" and self.model:
            who = f"{who} · {self.model}"
        note = _STATUS_NOTE.get(self.status)
        return Content(visible(f"{who} · {note}" if note else who))

    def _thinking_box(self) -> Collapsible:
        from textual.widgets import Collapsible

        text = Static(Content(visible(self.thinking)), classes="thinking-text")
        return Collapsible(text, title="Thinking", collapsed=True, classes="thinking")

    async def append_text(self, text: str) -> None:
        """Add a piece of the reply to the streaming Markdown body."""
        self.content += text
        if self._stream is None:
            # Started on the first text, not before: stopping a stream whose task never
            # ran raises CancelledError into the caller (a reply that fails at once).
            from textual.widgets import Markdown

            self._stream = Markdown.get_stream(self.query_one(Markdown))
        # Escaped per character, so a sequence split across chunks is caught too.
        await self._stream.write(visible(text))  # yields, so the stream's task is running

    async def append_thinking(self, text: str) -> None:
        """Add a piece of the model's thinking, opening the (collapsed) box if needed."""
        self.thinking += text
        boxes = self.query(".thinking")
        if not boxes:
            await self.mount(self._thinking_box(), after=self.query_one(".header"))
        else:
            self.query_one(".thinking-text", Static).update(Content(visible(self.thinking)))

    async def finish(self, message: Message) -> None:
        """End the stream (or the wait of a queued message) and render it once, as stored.

        Args:
            message: the message as stored (complete, cancelled or failed).
        """
        self.message_id = message.id
        await self._settle(message.content, message.status, message.error)

    async def fail(self, error: str) -> None:
        """End the stream as failed when no stored reply came back (the turn broke off)."""
        await self._settle(self.content, "failed", error)

    async def _settle(self, content: str, status: str, error: str) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self.remove_class(f"-{self.status}")
        self.content, self.status, self.error = content, status, error
        self.set_class(self.status != "complete", f"-{self.status}")
        self.query_one(".header", Static).update(self._header())
        error = self.query_one(".error", Static)
        error.update(Content(visible(self.error)))
        error.display = bool(self.error)
        # Streaming appends can split Markdown structures; one full render fixes them.
        body = self.query_one(".body")
        await self.mount(_settled_body(self.role, self.content), after=body)
        await body.remove()

    async def show_memories(self, memories: Sequence[tuple[str, Memory]]) -> None:
        """List the memories that went into this reply, collapsed, with their scores."""
        if not memories:
            return
        lines = []
        for section, m in memories:
            when = m.at.astimezone().strftime("%Y-%m-%d")
            vector = f"{m.vector:.2f}" if m.vector is not None else "-"
            text = " ".join(m.text.split())
            lines.append(
                f"{section} · {m.kind} {m.item_id} · {m.source}, {when} · relevance "
                f"{m.relevance:.2f} (keyword {m.keyword:.2f}, vector {vector}), recency "
                f"{m.recency:.2f}, importance {m.importance:.0f}\n    {text[:160]}"
            )
        from textual.widgets import Collapsible

        box = Collapsible(
            Static(Content(visible("\n".join(lines))), classes="memories-text"),
            title=f"Memories used ({len(memories)})",
            collapsed=True,
            classes="memories",
        )
        await self.mount(box)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """ "Memories used" is offered on stored replies only."""
        if action == "memories":
            return self.role == "assistant" and self.message_id is not None
        return True

    def action_memories(self) -> None:
        """Open the memories this reply used, with their score breakdown."""
        if self.message_id is not None:
            self.post_message(self.ShowMemories(self.message_id))

    def action_copy(self) -> None:
        """Copy this message's text to the clipboard."""
        self.app.copy_to_clipboard(self.content)
        self.notify("Message copied.", timeout=2)
