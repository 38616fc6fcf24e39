"""Choose the chat model and the embedding model from those Ollama has installed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static

from assistant.errors import OllamaError
from assistant.terminal import visible
from ui.screens.styles import SCREENS_CSS
from ui.widgets import ModelList

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo
    from assistant.llm.values import ModelInfo

__all__ = ["ModelChoice", "ModelPickerScreen"]


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The models the user chose."""

    chat: str
    embedding: str


class ModelPickerScreen(Screen[ModelChoice | None]):
    """Lists installed models; dismissed with the choice (Save) or None (Esc).

    Args:
        engine: the engine whose models to list and whose current choice to start from.
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "close", "Back"),
    ]

    class Loaded(Message):
        """The installed models arrived (or could not be listed)."""

        def __init__(self, models: list[ModelInfo], error: str = "") -> None:
            super().__init__()
            self.models, self.error = models, error

    def __init__(self, engine: Hippo) -> None:
        super().__init__()
        self.engine = engine

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="models"):
            yield Static(Content("Chat model (answers you)"), classes="section")
            yield ModelList(self.engine.chat_model, id="chat-models")
            yield Static(Content("Embedding model (remembers by meaning)"), classes="section")
            yield ModelList(self.engine.embedding_model, id="embedding-models")
            yield Static(Content("Listing models…"), id="models-note")
            with Horizontal(classes="buttons"):
                yield Button("Save", id="models-save", variant="primary")
                yield Button("Back", id="models-back")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Models"
        self.query_one("#chat-models", ModelList).focus()
        self._load()

    @work(thread=True, exclusive=True, group="models", exit_on_error=False)
    def _load(self) -> None:
        try:
            self.post_message(self.Loaded(self.engine.models()))
        except OllamaError as exc:
            self.post_message(self.Loaded([], str(exc)))

    def on_model_picker_screen_loaded(self, message: Loaded) -> None:
        embedders = [info for info in message.models if info.is_embedding]
        chatters = [info for info in message.models if not info.is_embedding]
        self.query_one("#chat-models", ModelList).show_models(chatters)
        self.query_one("#embedding-models", ModelList).show_models(embedders)
        note = message.error or (
            "Enter chooses a model; Save applies the choice. A new embedding model "
            "re-embeds every message in the background."
        )
        self.query_one("#models-note", Static).update(Content(visible(note)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "models-save":
            self.action_save()
        else:
            self.action_close()

    def action_save(self) -> None:
        """Apply and keep the chosen models."""
        chat = self.query_one("#chat-models", ModelList).chosen
        embedding = self.query_one("#embedding-models", ModelList).chosen
        self.dismiss(ModelChoice(chat=chat, embedding=embedding))

    def action_close(self) -> None:
        """Leave without changing anything."""
        self.dismiss(None)
