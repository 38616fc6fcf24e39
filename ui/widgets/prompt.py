"""The message box: a TextArea where Enter sends and shift+enter adds a line."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

__all__ = ["PromptInput"]

# Many terminals send ctrl+j (a bare line feed) for shift+enter.
_NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})


class PromptInput(TextArea):
    """Multi-line input: Enter sends, shift+enter or ctrl+j inserts a newline."""

    class Submitted(Message):
        """The user pressed Enter on a message worth sending.

        Args:
            prompt: the input that was submitted.
            text: its whole text.
        """

        def __init__(self, prompt: PromptInput, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

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

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            if self.text.strip():
                self.post_message(self.Submitted(self, self.text))
            return
        if event.key in _NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            if not self.read_only:
                self.replace("\n", *self.selection, maintain_selection_offset=False)
            return
        await super()._on_key(event)
