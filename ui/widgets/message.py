"""One message of the conversation, able to stream a reply into itself.

Markdown (Rich's renderer, markdown-it under it) loads when the first message is drawn,
not at start-up: the first frame shows no message.
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

    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from rich.segment import Segment
    from textual.app import ComposeResult
    from textual.widgets import Collapsible

    from assistant.memory.records import Message
    from assistant.memory.retrieval import MemoryItem
    from ui.widgets.live_reply import LiveReply

__all__ = ["CUT_HINT", "MessageView", "RenderedOnce"]

_WHO = {"user": "You", "assistant": "Hippo", "system": "System", "tool": "Tool"}
_STATUS_NOTE = {
    "streaming": "…",
    "cancelled": "stopped",
    "cut": "cut short",
    "failed": "failed",
    "queued": "queued, sent when the data file is open",
}
CUT_HINT = "The model stopped at its length limit. /continue asks it to go on."


class RenderedOnce:
    """A Rich renderable whose render is kept for the width it was rendered at.

    Textual renders a Static's content twice per change: once to measure its height for
    the layout, again to paint it. Rendering Markdown is the costly part of both, and
    while a reply streams, its finished blocks change every few frames.

    Args:
        renderable: what to render.
    """

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._key: tuple[object, ...] | None = None
        self._segments: list[Segment] = []

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # What a render depends on, except height: Markdown and code blocks ignore it.
        key = (
            console.color_system,
            options.max_width,
            options.min_width,
            options.justify,
            options.overflow,
            options.no_wrap,
            options.highlight,
            options.markup,
            options.ascii_only,
            options.legacy_windows,
            options.is_terminal,
        )
        if key != self._key:
            self._segments = list(console.render(self.renderable, options))
            self._key = key
        return self._segments


def _markdown(content: str) -> RenderableType:
    """A reply's Markdown as Rich renders it (never parsed as Textual markup)."""
    from rich.markdown import Markdown as RichMarkdown

    return RenderedOnce(RichMarkdown(content, code_theme="ansi_dark"))


def _settled_body(role: str, content: str) -> Static:
    """A finished message's text as one cheap widget (history may show 100 of them).

    Replies are Markdown rendered by Rich in a single Static, about ten times cheaper
    to mount than Textual's block-per-widget Markdown; the user's words are shown as
    typed. Neither is ever parsed as markup, and control characters show escaped.
    """
    if role == "assistant":
        return Static(_markdown(visible(content)), classes="body")
    return Static(Content(visible(content)), classes="body")


class MessageView(Vertical, can_focus=True):
    """A message: who wrote it, its text, the model's thinking, and how it ended.

    A reply streams into a `LiveReply` (finished blocks as Markdown, the open one as
    plain text, a bounded number of frames a second); when it ends, its open block is
    rendered as Markdown too, so it looks as a stored message does. A stored message
    (and a reply whose stored text is not what streamed) is rendered whole, once.

    Args:
        role: ``user``, ``assistant``, ``system`` or ``tool``.
        content: the text so far.
        thinking: the model's thinking so far.
        status: ``complete``, ``cut`` (at the model's length limit: a hint under it
            offers /continue), ``streaming``, ``cancelled``, ``failed``, or ``queued``
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
        self._content = content
        # Pieces not yet added to _content: adding each to a long str would copy it each time.
        self._arrived: list[str] = []
        self.thinking = thinking
        self.status = status
        self.error = error
        self.model = model
        self._live: LiveReply | None = None  # the body while the reply streams
        self.via = ""  # where a user's message came from, if not typed here (/remember)
        self.set_class(status != "complete", f"-{status}")

    @property
    def content(self) -> str:
        """The text so far."""
        if self._arrived:
            self._content += "".join(self._arrived)
            self._arrived.clear()
        return self._content

    @content.setter
    def content(self, text: str) -> None:
        self._content, self._arrived = text, []

    @classmethod
    def from_message(cls, message: Message) -> MessageView:
        """A view of a stored message (its header says where a user's came from, if not
        typed in the chat: ``/remember``, ``hippo fact add``)."""
        view = cls(
            message.role,
            message.content,
            thinking=message.thinking,
            status=message.status,
            error=message.error,
            model=message.model,
            message_id=message.id,
        )
        view.via = message.source_id if message.role == "user" else ""
        return view

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="header")
        if self.thinking:
            yield self._thinking_box()
        if self.status == "streaming":
            from ui.widgets.live_reply import LiveReply

            # Escaped as it arrives, character by character, so a control sequence split
            # across chunks is caught too; the stored reply is compared escaped alike.
            self._live = LiveReply(visible(self.content), _markdown, classes="body")
            yield self._live
        else:
            yield _settled_body(self.role, self.content)
        error = Static(Content(visible(self.error)), classes="error")
        error.display = bool(self.error)
        yield error
        if self.status == "cut":  # mounted only where needed: history may hold 100 views
            yield Static(Content(CUT_HINT), classes="hint")

    def _header(self) -> Content:
        who = _WHO.get(self.role, self.role)
        if self.role == "assistant" and self.model:
            who = f"{who} · {self.model}"
        elif self.via:
            who = f"{who} · {self.via}"
        note = _STATUS_NOTE.get(self.status)
        return Content(visible(f"{who} · {note}" if note else who))

    def _thinking_box(self) -> Collapsible:
        from textual.widgets import Collapsible

        text = Static(Content(visible(self.thinking)), classes="thinking-text")
        return Collapsible(text, title="Thinking", collapsed=True, classes="thinking")

    async def append_text(self, text: str) -> None:
        """Add a piece of the reply; it is drawn with the streaming body's next frame."""
        self._arrived.append(text)
        if self._live is not None:
            self._live.append(visible(text))

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
            message: the message as stored (complete, cut, cancelled or failed).
        """
        self.message_id = message.id
        await self._settle(message.content, message.status, message.error)

    async def fail(self, error: str) -> None:
        """End the stream as failed when no stored reply came back (the turn broke off)."""
        await self._settle(self.content, "failed", error)

    async def _settle(self, content: str, status: str, error: str) -> None:
        self.remove_class(f"-{self.status}")
        self.content, self.status, self.error = content, status, error
        self.set_class(self.status != "complete", f"-{self.status}")
        self.query_one(".header", Static).update(self._header())
        error_line = self.query_one(".error", Static)
        error_line.update(Content(visible(self.error)))
        error_line.display = bool(self.error)
        if self.status == "cut" and not self.query(".hint"):
            await self.mount(Static(Content(CUT_HINT), classes="hint"), after=error_line)
        live, self._live = self._live, None
        if live is not None and self.content and live.renders_whole(visible(self.content)):
            await live.finish()  # its finished blocks are drawn already: not again
            return
        body = self.query_one(".body")
        await self.mount(_settled_body(self.role, self.content), after=body)
        await body.remove()

    async def show_memories(self, memories: Sequence[tuple[str, MemoryItem]]) -> None:
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
