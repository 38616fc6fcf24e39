"""Small modal questions the inspector asks: "are you sure?" and "what should it say?"."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from assistant.terminal import visible
from ui.screens.styles import SCREENS_CSS

if TYPE_CHECKING:
    from textual.app import ComposeResult

__all__ = ["ConfirmDialog", "TextDialog"]


class ConfirmDialog(ModalScreen[bool]):
    """Ask a yes/no question; dismissed with True (y, Enter on Yes) or False (n, Esc).

    Args:
        question: what is about to happen, in plain words (never markup).
        yes: the label of the button that goes ahead.
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, *, yes: str = "Yes") -> None:
        super().__init__(classes="dialog")
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Content(visible(self.question)), classes="dialog-question")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", id="dialog-yes", variant="error")
                yield Button("Cancel (n)", id="dialog-no")

    def on_mount(self) -> None:
        self.query_one("#dialog-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "dialog-yes")

    def action_answer(self, answer: bool) -> None:
        """Close with ``answer``."""
        self.dismiss(answer)


class TextDialog(ModalScreen[str | None]):
    """Ask for one line of text; dismissed with it (Enter) or None (Esc).

    Args:
        title: what the text is for.
        value: the text to start from.
        placeholder: shown while the box is empty.
        allow_empty: whether an empty answer is accepted (e.g. "no scope").
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self, title: str, value: str = "", *, placeholder: str = "", allow_empty: bool = False
    ) -> None:
        super().__init__(classes="dialog")
        self.title_text = title
        self.value = value
        self.placeholder = placeholder
        self.allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Content(visible(self.title_text)), classes="dialog-question")
            # Stored text is edited as it shows: a control character reads as its escape.
            yield Input(visible(self.value), placeholder=self.placeholder, id="dialog-input")
            yield Static(Content("Enter saves · Esc cancels"), classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text == visible(self.value).strip():  # untouched: keep the stored text as it is
            text = self.value.strip()
        if text or self.allow_empty:
            self.dismiss(text)
        else:
            self.notify("Type something, or press Esc to cancel.", markup=False)

    def action_cancel(self) -> None:
        """Close without an answer."""
        self.dismiss(None)
