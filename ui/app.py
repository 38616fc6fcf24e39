"""Hippo's terminal app: the chat first, then Ollama checks in the background.

Nothing slow happens before the first frame: the Ollama probe and the model check
run in a thread worker once the chat screen is on screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.message import Message

from assistant.config import save_config
from assistant.errors import OllamaError
from ui.checks import OllamaCheck, check_ollama
from ui.screens import (
    ChatScreen,
    ModelChoice,
    ModelPickerScreen,
    OnboardingScreen,
    PullScreen,
    SessionChoice,
    SessionListScreen,
)

if TYPE_CHECKING:
    from textual.screen import Screen

    from assistant.config import Config
    from assistant.engine import Hippo

__all__ = ["HippoApp"]


class HippoApp(App[None]):
    """Chat with Hippo, pick models and sessions, and get Ollama going.

    Args:
        engine: the engine to drive (the caller closes it after the app exits).
        config: the settings in use; model choices are saved from it.
        resume: open the most recent session with its last messages.
    """

    # Absolute, so subclasses defined elsewhere (tests, embedders) still find it.
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "Hippo"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "models", "Models"),
        Binding("f3", "sessions", "Sessions"),
    ]

    class Probed(Message):
        """The startup check of Ollama finished."""

        def __init__(self, check: OllamaCheck | None, error: OllamaError | None = None) -> None:
            super().__init__()
            self.check, self.error = check, error

    def __init__(self, engine: Hippo, config: Config, *, resume: bool = False) -> None:
        super().__init__()
        self.engine = engine
        self.config = config
        self._chat = ChatScreen(engine, resume=resume)

    @property
    def chat(self) -> ChatScreen:
        """The chat screen, which is always at the bottom of the stack."""
        return self._chat

    def get_default_screen(self) -> Screen:
        return self._chat

    def on_mount(self) -> None:
        # After the first frame, so the chat shows before any network wait.
        self.call_after_refresh(self._probe)

    @work(thread=True, exclusive=True, group="probe", exit_on_error=False)
    def _probe(self) -> None:
        try:
            self.post_message(self.Probed(check_ollama(self.engine)))
        except OllamaError as exc:
            self.post_message(self.Probed(None, exc))

    def on_hippo_app_probed(self, message: Probed) -> None:
        if message.check is not None:
            self._ollama_ready(message.check)
            return
        assert message.error is not None
        self.chat.status.reachable = False
        self.push_screen(OnboardingScreen(self.engine, message.error), self._ollama_ready)

    def _ollama_ready(self, check: OllamaCheck | None) -> None:
        """Ollama answered: start embedding, and offer to pull what is missing."""
        self.chat.status.reachable = True
        self.engine.start_background()
        if check is not None and check.missing:
            self.push_screen(PullScreen(self.engine, check.missing), self._pulled)

    def _pulled(self, models: list[str] | None) -> None:
        if models:
            self.engine.wake()  # a new embedding model can drain the queue now

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Models and sessions open from the chat only (hidden elsewhere)."""
        if action in {"models", "sessions"}:
            return self.screen is self.chat
        return True

    def action_models(self) -> None:
        """Open the model picker."""
        if self.screen is self.chat:
            self.push_screen(ModelPickerScreen(self.engine), self._models_chosen)

    def _models_chosen(self, choice: ModelChoice | None) -> None:
        if choice is None:
            return
        self.engine.use_models(chat=choice.chat, embedding=choice.embedding)
        self.config = self.config.with_changes(
            chat_model=choice.chat, embedding_model=choice.embedding
        )
        path = save_config(self.config)
        self.chat.status.chat_model = choice.chat
        self.chat.status.embedding_model = choice.embedding
        self.notify(f"Using {choice.chat} and {choice.embedding} (saved to {path}).", markup=False)

    def action_sessions(self) -> None:
        """Open the session list."""
        if self.screen is self.chat:
            self.push_screen(SessionListScreen(self.engine), self._session_chosen)

    async def _session_chosen(self, choice: SessionChoice | None) -> None:
        if choice is not None:
            await self.chat.open_session(choice.session_id)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Models", "Choose the chat and embedding models", self.action_models)
        yield SystemCommand("Sessions", "Open a past session", self.action_sessions)
        yield SystemCommand("New session", "Start an empty chat", self.chat.action_new_session)
