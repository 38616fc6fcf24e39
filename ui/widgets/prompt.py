"""The message box: a TextArea where Enter sends and shift+enter adds a line.

Up and down walk through what was sent before (this session's and earlier ones', as a
shell does), when the cursor is on the box's first or last line; what was being typed
comes back after the newest.

It remembers whether the message holds pasted text (a bracketed paste of a line break or
more than a few words): pasted text is quoted from elsewhere, not the user's own word,
so what sleep draws from it waits for review.
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import EditResult

from ui.paste import clean_paste

__all__ = ["PromptInput"]

# Many terminals send ctrl+j (a bare line feed) for shift+enter.
_NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})
# How many earlier messages up/down walk through.
HISTORY_SIZE = 500
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
        self.sent: list[str] = []
        """What was sent, oldest first."""
        self._back = 0  # how far up the history the box is (0: the user's own draft)
        self._draft = ""

    def remember(self, text: str) -> None:
        """Add a sent message to the history (not twice in a row); the walk starts over."""
        if text.strip() and (not self.sent or self.sent[-1] != text):
            self.sent.append(text)
            del self.sent[:-HISTORY_SIZE]
        self._back = 0

    def load_history(self, earlier: list[str]) -> None:
        """Put messages of earlier sessions (oldest first) before this session's."""
        kept = [t for t in earlier if t.strip()]
        self.sent = (kept + self.sent)[-HISTORY_SIZE:]

    def _walk(self, step: int) -> bool:
        """Show the message ``step`` further back (1) or forward (-1); False at either end."""
        back = self._back + step
        if back < 0 or back > len(self.sent):
            return False
        if self._back == 0:
            self._draft = self.text
        self._back = back
        self.text = self.sent[-back] if back else self._draft
        self.move_cursor(self.document.end)
        return True

    async def _on_paste(self, event: events.Paste) -> None:
        # Inserted here, not by TextArea's own handler: without the terminal codes it holds.
        event.prevent_default()
        text = clean_paste(event.text)
        if self.read_only or not text:
            return
        if "\n" in text.strip() or len(text) >= _PASTE_CHARS:
            self.pasted = True
        if result := self._replace_via_keyboard(text, *self.selection):
            self.move_cursor(result.end_location)

    def _at_edge(self, key: str) -> bool:
        """Whether the cursor is on the first line (up) or last line (down) of the box."""
        row = self.cursor_location[0]
        return row == 0 if key == "up" else row == self.document.line_count - 1

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
        up_or_down = event.key in ("up", "down") and self._at_edge(event.key)
        if up_or_down and self._walk(1 if event.key == "up" else -1):
            event.stop()
            event.prevent_default()
            return
        if event.key in _NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            if not self.read_only:
                self.replace("\n", *self.selection, maintain_selection_offset=False)
            return
        await super()._on_key(event)
