"""Choose the chat model and the embedding model; pull new ones and delete old ones.

Save checks the choice against what Ollama listed (installed, and able to do the slot's
job) and refuses with the reason on screen; p pulls a model by name (the pull screen
goes on by itself when done), d deletes the highlighted one after asking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Header, Static

from assistant.errors import HippoError, OllamaError
from assistant.llm.names import same_model, short_name
from assistant.model_choice import can_take, problems_in
from assistant.terminal import visible
from assistant.units import human_size
from ui.screens.styles import SCREENS_CSS
from ui.widgets import ModelList
from ui.widgets.footer import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo
    from assistant.llm.values import ModelInfo

__all__ = ["ModelChoice", "ModelPickerScreen", "app_pull_hint"]

_HELP = (
    "Enter chooses a model; ctrl+s saves the choice. p pulls a model by name, d deletes the "
    "highlighted one. A new embedding model re-embeds every message in the background."
)


def app_pull_hint(name: str) -> str:
    """How to pull a model, said in the app."""
    return f"Pull it with F2, then p ({name})."


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The models the user chose."""

    chat: str
    embedding: str


class ModelPickerScreen(Screen[ModelChoice | None]):
    """Lists installed models; dismissed with the choice (Save) or None (Esc).

    Args:
        engine: the engine whose models to list, pull and delete, and whose current
            choice to start from.
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("p", "pull", "Pull"),
        Binding("d,delete", "delete", "Delete"),
        Binding("escape", "close", "Back"),
    ]

    class Loaded(Message):
        """The installed models arrived (or could not be listed)."""

        def __init__(self, models: list[ModelInfo], error: str = "") -> None:
            super().__init__()
            self.models, self.error = models, error

    class Deleted(Message):
        """A model was deleted (``error`` empty), or could not be."""

        def __init__(self, model: str, error: str = "") -> None:
            super().__init__()
            self.model, self.error = model, error

    def __init__(self, engine: Hippo) -> None:
        super().__init__()
        self.engine = engine
        self.models: list[ModelInfo] | None = None
        """The installed models as last listed; None until listed (or when Ollama failed)."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="models"):
            yield Static(Content("Chat model (answers you)"), classes="section")
            yield ModelList(self.engine.live_settings.turn.chat_model, id="chat-models")
            yield Static(Content("Embedding model (remembers by meaning)"), classes="section")
            yield ModelList(self.engine.live_settings.embedding_model, id="embedding-models")
            yield Static(Content("Listing models…"), id="models-note")
            yield Static(Content(""), id="models-error", classes="settings-error")
            with Horizontal(classes="buttons"):
                yield Button("Save", id="models-save", variant="primary")
                yield Button("Pull…", id="models-pull")
                yield Button("Delete…", id="models-delete")
                yield Button("Back", id="models-back")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Models"
        self.query_one("#chat-models", ModelList).focus()
        self._load()

    @work(thread=True, exclusive=True, group="models", exit_on_error=False)
    def _load(self) -> None:
        try:
            self.post_message(self.Loaded(self.engine.host.models()))
        except OllamaError as exc:
            self.post_message(self.Loaded([], str(exc)))

    def on_model_picker_screen_loaded(self, message: Loaded) -> None:
        self.models = None if message.error else message.models
        chatters = [i for i in message.models if can_take(i, "chat")]
        embedders = [i for i in message.models if can_take(i, "embedding")]
        self.query_one("#chat-models", ModelList).show_models(chatters)
        self.query_one("#embedding-models", ModelList).show_models(embedders)
        note = f"Can't list models: {message.error}" if message.error else _HELP
        self.query_one("#models-note", Static).update(Content(visible(note)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {
            "models-save": self.action_save,
            "models-pull": self.action_pull,
            "models-delete": self.action_delete,
        }
        actions.get(event.button.id or "", self.action_close)()

    def _say(self, text: str) -> None:
        self.query_one("#models-error", Static).update(Content(visible(text)))

    # -- save --------------------------------------------------------------------------------

    def action_save(self) -> None:
        """Apply and keep the chosen models, if Ollama has them and they can do the job."""
        chat = self.query_one("#chat-models", ModelList).chosen
        embedding = self.query_one("#embedding-models", ModelList).chosen
        if self.models is None:
            self._say(
                "Nothing saved: Ollama could not be asked which models it has, so the choice "
                "can't be checked. Start Ollama and open this screen again."
            )
            return
        problems = problems_in(
            self.models, {"chat": chat, "embedding": embedding}, self.engine.host.ollama_host
        )
        if problems:
            reasons = [p.text(lambda name: "Pull it with p, or choose one in the list (Enter).")
                       for p in problems]  # fmt: skip
            self._say("\n".join([*reasons, "Nothing saved."]))
            return
        self.dismiss(ModelChoice(chat=chat, embedding=embedding))

    def action_close(self) -> None:
        """Leave without changing anything."""
        self.dismiss(None)

    # -- pull ----------------------------------------------------------------------------------

    def action_pull(self) -> None:
        """Ask for a model's name, then pull it (the list shows it when done)."""
        from ui.screens.dialogs import TextDialog

        self.app.push_screen(
            TextDialog(
                "Pull which model? (a name from ollama.com/library)",
                placeholder="e.g. qwen3:1.7b or all-minilm",
            ),
            self._pull_named,
        )

    def _pull_named(self, name: str | None) -> None:
        if not name:
            return
        from ui.screens.pull import PullScreen

        self.app.push_screen(PullScreen(self.engine, [name], start=True), self._pulled)

    def _pulled(self, models: list[str] | None) -> None:
        if models:
            self.notify(f"{', '.join(models)} ready: choose it here with Enter.", markup=False)
        self.query_one("#models-note", Static).update(Content("Listing models…"))
        self._load()

    # -- delete -------------------------------------------------------------------------------

    def _highlighted(self) -> str | None:
        """The model under the cursor of the focused list (else the chat list's)."""
        focused = self.focused if isinstance(self.focused, ModelList) else None
        lists = [focused] if focused else []
        lists += list(self.query(ModelList))
        for models in lists:
            option = models.highlighted_option
            if option is not None and option.id is not None:
                return option.id
        return None

    def action_delete(self) -> None:
        """Delete the highlighted model from Ollama, after asking."""
        model = self._highlighted()
        if model is None:
            self._say("No model to delete: highlight one in a list first.")
            return
        from ui.screens.dialogs import ConfirmDialog

        def chosen(yes: bool | None) -> None:
            if yes:
                self._delete(model)

        self.app.push_screen(ConfirmDialog(self._delete_question(model), yes="Delete"), chosen)

    def _delete_question(self, model: str) -> str:
        info = next((i for i in self.models or [] if i.name == model), None)
        size = f", freeing {human_size(info.size)}" if info and info.size else ""
        question = f"Delete {short_name(model)} from Ollama{size}? Pull it again to get it back."
        for role, name in (("chat", self.engine.live_settings.turn.chat_model),
                           ("embedding", self.engine.live_settings.embedding_model)):  # fmt: skip
            if same_model(model, name):
                question += (
                    f" Hippo uses it as its {role} model: until you choose or pull another, "
                    f"{'replies' if role == 'chat' else 'memories by meaning'} will fail."
                )
        return question

    @work(thread=True, group="models-delete", exit_on_error=False)
    def _delete(self, model: str) -> None:
        try:
            self.engine.host.delete_model(model)
        except HippoError as exc:
            self.post_message(self.Deleted(model, str(exc)))
            return
        self.post_message(self.Deleted(model))

    def on_model_picker_screen_deleted(self, message: Deleted) -> None:
        if message.error:
            self._say(message.error)
            return
        self._say("")
        self.notify(f"Deleted {short_name(message.model)} from Ollama.", markup=False)
        self._load()
