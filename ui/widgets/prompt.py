"""The message box: a TextArea where Enter sends and shift+enter adds a line.

It remembers whether the message holds pasted text (a bracketed paste of a line break or
more than a few words): pasted text is quoted from elsewhere, not the user's own word,
so what sleep draws from it waits for review.
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import EditResult

__all__ = ["PromptInput"]

# Many terminals send ctrl+j (a bare line feed) for shift+enter.
_NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})
# A paste this long, or of more than one line, makes the message pasted text; a shorter
# one (a name, a link, a number) leaves it the user's own.
_PASTE_CHARS = 80


class PromptInput(TextArea):
    """Multi-line input: Enter sends, shift+enter or ctrl+j inserts a newline."""

    class Submitted(Message):
        """The user pressed Enter on a message worth sending.

        Args:
            prompt: the input that was submitted.
            text: its whole text.
            pasted: it holds pasted text (see the module docstring).
        """

        def __init__(self, prompt: PromptInput, text: str, pasted: bool = False) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text
            self.pasted = pasted

        @property
        def control(self) -> PromptInput:
            """The input that was submitted."""
            return self.prompt

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(
            id=id,
            placeholder=placeholder,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
        )
        self.pasted = False

    async def _on_paste(self, event: events.Paste) -> None:
        # Textual calls TextArea's own handler after this one: it inserts the text.
        if not self.read_only and ("\n" in event.text.strip() or len(event.text) >= _PASTE_CHARS):
            self.pasted = True

    def clear(self) -> EditResult:
        """Empty the box; the next message starts out typed."""
        self.pasted = False
        return super().clear()

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            if self.text.strip():
                self.post_message(self.Submitted(self, self.text, self.pasted))
            return
        if event.key in _NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            if not self.read_only:
                self.replace("\n", *self.selection, maintain_selection_offset=False)
            return
        await super()._on_key(event)
