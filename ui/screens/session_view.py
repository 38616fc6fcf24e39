"""A past session, read-only, over whatever screen opened it (the inspector, a reply's
memories): the chat underneath keeps its session, scope and keyboard until the user
chooses to continue the one shown here."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Header, Static

from assistant.errors import HippoError
from assistant.terminal import visible
from ui.screens.inspector.pane import Place
from ui.screens.styles import SCREENS_CSS
from ui.widgets.footer import Footer
from ui.widgets.message import MessageView

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo
    from assistant.memory.records import Message

__all__ = ["SessionViewScreen"]

# How many of a session's messages are read to find the one shown, and how many are
# shown on each side of it: enough to read it in context, few enough to mount at once.
_READ = 2000
_AROUND = 30


class SessionViewScreen(Screen[Place | None]):
    """One session's messages, read-only, scrolled to one of them (marked).

    Dismissed with None (Esc: back where it was opened from, nothing changed) or with its
    place (the user chose to continue this chat). The messages never take the keyboard:
    no key typed here copies one or opens its memories.

    Args:
        engine: the engine to read from.
        place: the session, and the message to show in it (if any).
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("enter", "continue_chat", "Continue this chat"),
    ]

    def __init__(self, engine: Hippo, place: Place) -> None:
        super().__init__()
        self.engine = engine
        self.place = place

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            Content("Read-only · Enter continues this chat · Esc goes back"),
            id="session-view-note",
        )
        yield VerticalScroll(id="session-view")
        yield Footer()

    async def on_mount(self) -> None:
        scroll = self.query_one("#session-view", VerticalScroll)
        scroll.focus()
        try:
            session = self.engine.conversations.session(self.place.session_id)
            messages = self.engine.conversations.history(session.id, _READ)
        except HippoError as exc:
            await scroll.mount(Static(Content(visible(str(exc)))))
            return
        self.sub_title = f"Session {session.id}: {visible(session.title) or '(untitled)'}"
        views = [_read_only(message) for message in _around(messages, self.place.message_id)]
        await scroll.mount_all(views)
        marked = [view for view in views if view.message_id == self.place.message_id]
        if marked:
            marked[0].add_class("-marked")
            self.call_after_refresh(scroll.scroll_to_widget, marked[0], top=True, animate=False)
        else:
            scroll.scroll_end(animate=False)

    def action_close(self) -> None:
        """Go back; the chat is as it was."""
        self.dismiss(None)

    def action_continue_chat(self) -> None:
        """Leave for the chat, which shows this session to continue it."""
        self.dismiss(self.place)


def _around(messages: list[Message], message_id: int | None) -> list[Message]:
    """The messages on each side of ``message_id`` (the last ones if it is not there)."""
    found = [n for n, message in enumerate(messages) if message.id == message_id]
    if not found:
        return messages[-2 * _AROUND :]
    return messages[max(0, found[0] - _AROUND) : found[0] + _AROUND + 1]


def _read_only(message: Message) -> MessageView:
    view = MessageView.from_message(message)
    view.can_focus = False  # its keys (copy, memories) are the chat's, not this view's
    return view
