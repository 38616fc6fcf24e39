"""What every tab of the memory inspector shares: the engine, reloading, and safe calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, TextArea

from assistant.errors import HippoError

if TYPE_CHECKING:
    from assistant.admin import MemoryAdmin
    from assistant.engine import Hippo

__all__ = ["TEXT_FIELDS", "InspectorPane", "Place"]

TEXT_FIELDS = (Input, TextArea)
"""Widgets that take typed characters: digits go into them, not to the tab keys."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Place:
    """Where to go in the chat: a session, and the message to show in it (if any)."""

    session_id: int
    message_id: int | None = None


class InspectorPane(Vertical):
    """One tab of the inspector: shows a part of memory and changes it through the engine.

    A pane loads when it is first shown and again after a change elsewhere; the
    queries are small (a page at a time), so they run on the UI thread. Anything that
    may wait on Ollama runs in a thread worker instead.

    Args:
        engine: the engine whose memory is shown.
    """

    class Changed(Message):
        """Memory was changed here: other tabs reload when shown, the chat recounts."""

        def __init__(self, pane: InspectorPane) -> None:
            super().__init__()
            self.pane = pane

    class OpenSession(Message):
        """Show this place (a session, a message in it) read-only; the user may continue it."""

        def __init__(self, place: Place) -> None:
            super().__init__()
            self.place = place

    class ShowFact(Message):
        """Show where this fact came from (its evidence, episodes and sessions)."""

        def __init__(self, fact_id: int) -> None:
            super().__init__()
            self.fact_id = fact_id

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.engine = engine
        self.loaded = False

    @property
    def admin(self) -> MemoryAdmin:
        """The engine's memory admin API (``engine.admin``)."""
        return self.engine.admin

    def on_mount(self) -> None:
        # A tab with no table or list rests on the pane itself (see `home`).
        self.can_focus = self.home is None

    def on_show(self) -> None:
        if not self.loaded:
            self.loaded = True
            self.reload()

    def reload(self) -> None:
        """Read what this pane shows from the engine again."""

    @property
    def home(self) -> Widget | None:
        """Where the keyboard rests in this tab: its table or list, never a text field.

        Number keys switch tabs from here, and Esc comes back here from a field. None when
        the tab has no such widget: the pane itself then takes the keyboard (Tab goes on to
        its fields).
        """
        for widget in self.query(Widget):
            if widget.focusable and not isinstance(widget, TEXT_FIELDS):
                return widget
        return None

    def focus_first(self) -> None:
        """Put the keyboard on the pane's home widget (see `home`), or on the pane."""
        (self.home or self).focus()

    @property
    def resting(self) -> bool:
        """Whether the keyboard is where `focus_first` puts it (so Esc leaves the screen)."""
        focused = self.screen.focused
        return focused is not None and focused in (self.home, self)

    def changed(self, notice: str = "") -> None:
        """Say that memory changed (with a notice, if given) and reload this pane."""
        if notice:
            self.notify(notice, title="Memory", timeout=4, markup=False)
        self.post_message(self.Changed(self))
        self.reload()

    def attempt(self, call: Callable[[], T], done: str = "") -> T | None:
        """Run an engine call; on failure say why (as plain text) and return None.

        Args:
            call: the change or query to make.
            done: when given, the call changed memory: announce it and reload.
        """
        try:
            result = call()
        except HippoError as exc:  # anything else is a bug, and raises
            self.notify(str(exc), title="Not done", severity="error", timeout=8, markup=False)
            return None
        if done:
            self.changed(done)
        return result
