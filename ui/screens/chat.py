"""The chat screen: the conversation, the message box and the status line."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header

from assistant.errors import OllamaUnreachable
from assistant.turns import MemoryWritten, ReplyCancelled, ReplyDone, ReplyFailed
from ui.slash import SlashCommand, parse_slash
from ui.widgets import Conversation, MessageView, PromptInput, StatusLine

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo
    from assistant.memory.models import Session
    from assistant.turns import TurnEvent

__all__ = ["HISTORY_LIMIT", "ChatScreen"]

HISTORY_LIMIT = 100
"""How many messages of a session are shown: never all, a file may hold 100k."""

_TURN_ENDS = (ReplyDone, ReplyCancelled, ReplyFailed)
_STOP_WAIT_S = 3.0
_PLACEHOLDER = "Message Hippo: Enter sends, shift+enter adds a line, /help lists commands"
_REVEAL_TRIES = 40
_REVEAL_WAIT_S = 0.05


class ChatScreen(Screen[None]):
    """Talk to Hippo in one session; the reply streams while the input stays usable.

    Args:
        engine: the engine to talk to.
        resume: open the most recent session instead of starting a fresh one.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_reply", "Stop reply"),
        Binding("ctrl+y", "copy_last_reply", "Copy reply", priority=True),
        Binding("ctrl+n", "new_session", "New session"),
    ]

    class Turn(Message):
        """An event of the streaming turn, posted from the worker thread."""

        def __init__(self, event: TurnEvent) -> None:
            super().__init__()
            self.event = event

    class Command(Message):
        """A slash command was typed (``/remember X``); the app carries it out."""

        def __init__(self, command: SlashCommand) -> None:
            super().__init__()
            self.command = command

    class TurnCrashed(Message):
        """The turn broke off with an exception instead of a final event."""

        def __init__(self, text: str, error: Exception) -> None:
            super().__init__()
            self.text, self.error = text, error

    def __init__(self, engine: Hippo, *, resume: bool = False) -> None:
        super().__init__()
        self.engine = engine
        self.session_id: int | None = None
        self.incognito = False  # the shown (or next) session keeps nothing after it ends
        self._resume = resume
        self._cancel: threading.Event | None = None
        self._idle = threading.Event()  # clear while a turn's thread runs
        self._idle.set()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Conversation(id="conversation")
        yield PromptInput(id="prompt", placeholder=_PLACEHOLDER)
        yield StatusLine(
            count_pending=self.engine.pending_embeddings,
            # A lambda: the admin API is built on first use, in the counting thread.
            count_review=lambda: self.engine.admin.pending_count(),
        )
        yield Footer()

    async def on_mount(self) -> None:
        status = self.status
        status.chat_model = self.engine.chat_model
        status.embedding_model = self.engine.embedding_model
        status.host = self.engine.llm.host
        status.profile = self.engine.profile.name
        self.query_one(PromptInput).focus()
        if self._resume and (last := self.engine.last_session()) is not None:
            await self.open_session(last.id)

    async def on_unmount(self) -> None:
        # Stop a streaming reply and let its thread finish, so whoever ran the app
        # can close the engine as soon as it returns.
        self.action_cancel_reply()
        await asyncio.to_thread(self._idle.wait, _STOP_WAIT_S)
        await self._end_incognito(announce=False)

    @property
    def status(self) -> StatusLine:
        """The status line, for the app to report on Ollama and models."""
        return self.query_one(StatusLine)

    @property
    def streaming(self) -> bool:
        """Whether a reply is streaming now."""
        return self._cancel is not None

    async def open_session(self, session_id: int | None, *, incognito: bool = False) -> None:
        """Show a session's last messages, or an empty chat for ``None`` (created on send).

        Args:
            session_id: the session to show, or None for a new one.
            incognito: the new session keeps nothing once it ends (with ``None`` only).
        """
        self.action_cancel_reply()
        if session_id != self.session_id:
            await self._end_incognito()
        self.session_id = session_id
        session = self.engine.session(session_id) if session_id is not None else None
        self.incognito = session.incognito if session else incognito
        self.status.incognito = self.incognito
        self.sub_title = self._title(session)
        messages = self.engine.history(session_id, limit=HISTORY_LIMIT) if session_id else []
        await self.query_one(Conversation).show(messages)

    def reveal(self, message_id: int, tries: int = _REVEAL_TRIES) -> None:
        """Scroll to a shown message and put the keyboard on it (older ones mount late)."""
        conversation = self.query_one(Conversation)
        if conversation.filling and tries:  # older messages are still being added above
            self.set_timer(_REVEAL_WAIT_S, lambda: self.reveal(message_id, tries - 1))
            return
        shown = (v for v in conversation.query(MessageView) if v.message_id == message_id)
        view = next(shown, None)
        if view is None:
            self.notify(
                f"That message is older than the last {HISTORY_LIMIT} shown; search for it "
                "in the Archive tab (F4, 7) to read it.",
                markup=False,
            )
            return
        conversation.anchor(False)  # stay here (sending a message follows the newest again)
        view.focus(scroll_visible=False)
        self.call_after_refresh(conversation.scroll_to_widget, view, top=True, animate=False)

    def _title(self, session: Session | None) -> str:
        title = (session.title if session else "") or "New session"
        return f"Incognito · {title}" if self.incognito else title

    async def _end_incognito(self, *, announce: bool = True) -> None:
        """Delete the incognito session being left: it keeps nothing once it ends."""
        if self.incognito and self.session_id is not None:
            # After its reply has stopped (nothing may write to it once deleted), and off
            # the UI thread: deleting scrubs the data file.
            await asyncio.to_thread(self._idle.wait, _STOP_WAIT_S)
            await asyncio.to_thread(self.engine.admin.end_session, self.session_id)
            if announce:
                self.notify("The incognito chat was deleted.", title="Incognito", markup=False)
        self.incognito = False

    def ensure_session(self) -> int:
        """The shown session's id, creating it (incognito if asked) when the chat is new."""
        if self.session_id is None:
            session = self.engine.new_session(incognito=self.incognito)
            self.session_id, self.sub_title = session.id, self._title(None)
        return self.session_id

    @on(PromptInput.Submitted)
    def send(self, submitted: PromptInput.Submitted) -> None:
        """Send the typed message (or carry out a slash command), unless a reply streams."""
        if (command := parse_slash(submitted.text)) is not None:
            submitted.prompt.clear()
            self.post_message(self.Command(command))
            return
        if self.streaming:
            self.notify("A reply is still streaming: press Esc to stop it first.")
            return
        text = submitted.text.strip()
        text = text[1:] if text.startswith("//") else submitted.text
        session_id = self.ensure_session()
        submitted.prompt.clear()
        self._cancel = threading.Event()
        self._idle.clear()
        self._stream_turn(session_id, text, self._cancel)

    @work(thread=True, group="reply")
    def _stream_turn(self, session_id: int, text: str, cancel: threading.Event) -> None:
        try:
            for event in self.engine.send(session_id, text, cancel=cancel):
                self.post_message(self.Turn(event))
        except Exception as exc:  # whatever broke, the chat must stay usable
            self.post_message(self.TurnCrashed(text, exc))
        finally:
            self._idle.set()

    async def on_chat_screen_turn(self, message: Turn) -> None:
        event = message.event
        if isinstance(event, MemoryWritten):
            self.notify(event.notice, title="Memory updated", timeout=6, markup=False)
        await self.query_one(Conversation).apply(event)
        if isinstance(event, ReplyDone):
            self.status.reachable = True
        elif isinstance(event, ReplyFailed) and isinstance(event.error, OllamaUnreachable):
            self.status.reachable = False
        if isinstance(event, _TURN_ENDS):
            self._cancel = None
            if self.sub_title == self._title(None) and self.session_id is not None:
                self.sub_title = self._title(self.engine.session(self.session_id))
            self.status.refresh_pending()

    async def on_chat_screen_turn_crashed(self, message: TurnCrashed) -> None:
        self._cancel = None
        await self.query_one(Conversation).abandon_reply(str(message.error))
        prompt = self.query_one(PromptInput)
        if not prompt.text:  # give the words back, so nothing typed is lost
            prompt.text = message.text
        self.notify(
            str(message.error), title="Not sent", severity="error", timeout=10, markup=False
        )

    def action_cancel_reply(self) -> None:
        """Stop the streaming reply; what arrived is kept, marked cancelled."""
        if self._cancel is not None:
            self._cancel.set()

    def action_copy_last_reply(self) -> None:
        """Copy the newest reply to the clipboard."""
        reply = self.query_one(Conversation).last_reply()
        if reply is None:
            self.notify("There is no reply to copy yet.")
        else:
            reply.action_copy()

    async def action_new_session(self) -> None:
        """Start an empty chat; the session is created when the first message is sent."""
        await self.open_session(None)
        self.query_one(PromptInput).focus()

    async def action_new_incognito(self) -> None:
        """Start an incognito chat: nothing of it is kept once you leave it."""
        await self.open_session(None, incognito=True)
        self.query_one(PromptInput).focus()
        self.notify(
            "Incognito: this chat is deleted when you leave it, and sleep never learns from it.",
            title="Incognito",
            markup=False,
        )
