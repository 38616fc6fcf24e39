"""Downloads models with progress per model: those Ollama lacks at start-up, or one named.

Once every model is there the screen goes on by itself (dismissed with them).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Header, Static

from assistant.errors import HippoError
from ui.screens.styles import SCREENS_CSS
from ui.widgets import PullRow
from ui.widgets.footer import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo
    from assistant.llm.values import PullProgress

__all__ = ["PullScreen"]


class PullScreen(Screen[list[str]]):
    """Pull models; dismissed with the models now installed.

    Args:
        engine: the engine that pulls.
        models: the models to offer.
        start: pull at once (the user just asked for these), rather than offer to.
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pull", "Pull"),
        Binding("escape", "cancel", "Cancel pull"),
        Binding("s", "skip", "Skip"),
    ]

    class Progressed(Message):
        """A progress report for one model, from the worker thread."""

        def __init__(self, model: str, progress: PullProgress) -> None:
            super().__init__()
            self.model, self.progress = model, progress

    class Ended(Message):
        """One model's pull ended (done, cancelled or failed)."""

        def __init__(self, model: str, *, cancelled: bool, error: str = "") -> None:
            super().__init__()
            self.model, self.cancelled, self.error = model, cancelled, error

    class AllEnded(Message):
        """The worker has nothing left to pull."""

    def __init__(self, engine: Hippo, models: Sequence[str], *, start: bool = False) -> None:
        super().__init__()
        self.engine = engine
        self.models = list(models)
        self.start = start
        self._cancel: threading.Event | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="pull"):
            yield Static(self._intro(), id="pull-intro")
            for model in self.models:
                yield PullRow(model)
            with Horizontal(classes="buttons"):
                yield Button("Pull", id="pull-start", variant="primary")
                yield Button("Cancel", id="pull-cancel", disabled=True)
                yield Button("Skip", id="pull-skip")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Pulling models" if self.start else "Missing models"
        self.query_one("#pull-start", Button).focus()
        if self.start:
            self.action_pull()

    def _intro(self) -> Content:
        names = ", ".join(self.models)
        host = self.engine.host.ollama_host
        if self.start:
            return Content(
                f"Pulling {names} into Ollama at {host}. Esc cancels "
                "(Ollama keeps what it downloaded, so a later pull resumes)."
            )
        return Content(
            f"Ollama at {host} doesn't have {names} yet. Hippo needs the chat "
            "model to answer and the embedding model to remember by meaning. Pull them now?"
        )

    def _rows(self) -> dict[str, PullRow]:
        return {row.model: row for row in self.query(PullRow)}

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {"pull-start": self.action_pull, "pull-cancel": self.action_cancel}
        actions.get(event.button.id or "", self.action_skip)()

    def action_pull(self) -> None:
        """Pull every model not yet installed, one after another."""
        todo = [row.model for row in self._rows().values() if row.state != "done"]
        if self._cancel is not None or not todo:
            return
        self._cancel = threading.Event()
        self._set_running(True)
        self._pull_all(todo, self._cancel)

    def action_cancel(self) -> None:
        """Stop the pull under way (Ollama keeps what it downloaded)."""
        if self._cancel is not None:
            self._cancel.set()

    def action_skip(self) -> None:
        """Leave without (more) pulling; chat may fail until the models are there."""
        self.action_cancel()
        self.dismiss([row.model for row in self._rows().values() if row.state == "done"])

    @work(thread=True, exclusive=True, group="pull", exit_on_error=False)
    def _pull_all(self, models: list[str], cancel: threading.Event) -> None:
        for model in models:
            if cancel.is_set():
                break
            try:
                for progress in self.engine.host.pull(model, cancel=cancel):
                    self.post_message(self.Progressed(model, progress))
                self.post_message(self.Ended(model, cancelled=cancel.is_set()))
            except HippoError as exc:
                self.post_message(self.Ended(model, cancelled=False, error=str(exc)))
        self.post_message(self.AllEnded())

    def on_pull_screen_progressed(self, message: Progressed) -> None:
        self._rows()[message.model].show(message.progress)

    def on_pull_screen_ended(self, message: Ended) -> None:
        self._rows()[message.model].finish(cancelled=message.cancelled, error=message.error)

    def on_pull_screen_all_ended(self) -> None:
        self._cancel = None
        self._set_running(False)
        if all(row.state == "done" for row in self._rows().values()):
            # Nothing left to do here: go on, and say so where the user goes.
            self.notify(f"Ready: {', '.join(self.models)}.", title="Models", markup=False)
            self.dismiss(self.models)

    def _set_running(self, running: bool) -> None:
        self.query_one("#pull-start", Button).disabled = running
        self.query_one("#pull-cancel", Button).disabled = not running
