"""Shown while Ollama can't be used: where Hippo looked, how to fix it, and Retry."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Header, Input, Static

from assistant.errors import OllamaAuthError, OllamaError, OllamaUnreachable, SecretStoreError
from assistant.terminal import visible
from ui.checks import OllamaCheck, check_ollama
from ui.screens.styles import SCREENS_CSS
from ui.widgets.footer import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo

__all__ = ["OnboardingScreen"]

INSTALL_URL = "https://ollama.com/download"


def _steps() -> Content:
    return Content(
        f"1. Install Ollama from {INSTALL_URL}\n"
        "2. Start it in another terminal:  ollama serve\n"
        "3. Press Retry (r).\n\n"
        "Ollama on another machine? Set OLLAMA_HOST (e.g. http://192.168.1.20:11434) "
        "and restart Hippo."
    )


class OnboardingScreen(Screen[OllamaCheck]):
    """Explains how to get Ollama running; dismissed with the check once it answers.

    Args:
        engine: the engine whose Ollama host to check.
        error: why the last check failed.
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "retry", "Retry")]

    class Checked(Message):
        """A retry found Ollama."""

        def __init__(self, check: OllamaCheck) -> None:
            super().__init__()
            self.check = check

    class Failed(Message):
        """A retry failed again."""

        def __init__(self, error: OllamaError) -> None:
            super().__init__()
            self.error = error

    def __init__(self, engine: Hippo, error: OllamaError) -> None:
        super().__init__()
        self.engine = engine
        self.error = error
        self._checking = False  # a check (Retry, or a typed token) is under way
        # The token box where Ollama asks for one, else Retry. Focused by Textual as the
        # screen shows: a query in on_mount failed when the app quit as it mounted.
        # (Textual reads it from the instance, so one screen class serves both cases.)
        focus = "#token" if isinstance(error, OllamaAuthError) else "#retry"
        self.AUTO_FOCUS = focus  # type: ignore[misc]

    def compose(self) -> ComposeResult:
        host = self.engine.host.ollama_host
        yield Header()
        with VerticalScroll(id="onboarding"):
            yield Static(self._title(), id="onboarding-title")
            yield Static(Content.assemble(("Host tried: ", "bold"), visible(host)), id="host")
            yield Static(Content(visible(str(self.error))), id="problem")
            yield Static(_steps(), id="steps")
            token = Input(placeholder=f"Bearer token for {host}", password=True, id="token")
            token.display = isinstance(self.error, OllamaAuthError)
            yield token
            with Horizontal(classes="buttons"):
                yield Button("Retry", id="retry", variant="primary")
            yield Static(Content(""), id="checking")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Setting up Ollama"

    def _title(self) -> Content:
        if isinstance(self.error, OllamaUnreachable):
            return Content("Hippo can't reach Ollama, the program that runs the models.")
        return Content("Ollama answered, but Hippo can't use it yet.")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "retry":
            self.action_retry()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A token was typed: keep it in the keyring, use it, and check again."""
        token = event.value.strip()
        if not token:
            return
        event.input.clear()
        self._checking = True
        self.query_one("#checking", Static).update(Content("Checking with the token…"))
        self._use_token(token)

    @work(thread=True, exclusive=True, group="probe", exit_on_error=False)
    def _use_token(self, token: str) -> None:
        from assistant.secrets import save_token

        host = self.engine.host.ollama_host
        note = "Token saved in the system keyring."
        try:
            save_token(host, token)
        except SecretStoreError as exc:
            note = f"Using the token for this run only. {exc}"
        self.engine.host.use_token(token)  # closes the old client, forgets what it learnt
        self.app.call_from_thread(self.notify, note, markup=False, timeout=8)
        try:
            self.post_message(self.Checked(check_ollama(self.engine)))
        except OllamaError as exc:
            self.post_message(self.Failed(exc))

    def check_again(self) -> None:
        """Check the host again, unless a check is under way (Ollama came back, say)."""
        if not self._checking:
            self.action_retry()

    def action_retry(self) -> None:
        """Check the host again (in a thread; the screen stays responsive)."""
        self._checking = True
        self.query_one("#retry", Button).disabled = True
        self.query_one("#checking", Static).update(Content("Checking…"))
        self._check()

    @work(thread=True, exclusive=True, group="probe", exit_on_error=False)
    def _check(self) -> None:
        try:
            self.post_message(self.Checked(check_ollama(self.engine)))
        except OllamaError as exc:
            self.post_message(self.Failed(exc))

    def on_onboarding_screen_checked(self, message: Checked) -> None:
        if self.is_current:  # not already dismissed by an earlier check
            self.dismiss(message.check)

    def on_onboarding_screen_failed(self, message: Failed) -> None:
        self._checking = False
        self.error = message.error
        self.query_one("#onboarding-title", Static).update(self._title())
        self.query_one("#problem", Static).update(Content(visible(str(message.error))))
        self.query_one("#checking", Static).update(Content("Still no answer. Try again."))
        self.query_one("#token", Input).display = isinstance(message.error, OllamaAuthError)
        retry = self.query_one("#retry", Button)
        retry.disabled = False
        retry.focus()
