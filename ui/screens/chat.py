"""The chat screen: the conversation, the message box and the status line.

The screen is drawn before the data file is open: the app opens the engine in a thread
after the first frame and `attach`es it, with the session to resume already read. A
message sent before that waits, shown as queued, and goes as soon as the engine is there.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Header, Static

from assistant.errors import (
    ConfigError,
    HippoError,
    ModelNotFound,
    OllamaError,
    OllamaUnreachable,
)
from assistant.terminal import visible
from ui.screens.chat_commands import ChatCommands, forget_sent, needs_engine
from ui.slash import SlashCommand, parse_slash
from ui.turn_inbox import TAKE_RATE, TurnInbox
from ui.widgets import Conversation, MessageView, PromptInput, StatusLine
from ui.widgets.footer import Footer

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import ComposeResult
    from textual.events import Key
    from textual.timer import Timer

    from assistant.config import Config
    from assistant.engine import Hippo
    from assistant.memory.records import Message as StoredMessage
    from assistant.memory.records import Session
    from assistant.turns import TurnEvent

__all__ = ["HISTORY_LIMIT", "ChatScreen", "SessionShown", "read_last_session", "read_session"]

HISTORY_LIMIT = 100
"""How many messages of a session are shown: never all, a file may hold 100k."""

_log = logging.getLogger(__name__)
_STOP_WAIT_S = 3.0
_HISTORY_SESSIONS = 10  # up/down reach the messages of this many recent sessions
_PLACEHOLDER = "Message Hippo: Enter sends, shift+enter adds a line, /help lists commands"
_REVEAL_TRIES = 40
_REVEAL_WAIT_S = 0.05
_STILL_OPENING = "Hippo is still opening its data file: try again in a moment."
_EDITING = "Editing your last message: Enter replaces it and its reply, Esc keeps it."
# A reply silent this long says what it waits for (a model loading, most often).
_QUIET_S = 1.5
# The keys a message takes when it has the keyboard (see MessageView): others go to the box.
_MESSAGE_KEYS = frozenset({"c", "m"})
_WAIT_TICK_S = 0.5


@dataclass(frozen=True)
class _Crashed:
    """The turn broke off with an exception instead of a final event."""

    text: str
    error: Exception


@dataclass(frozen=True)
class SessionShown:
    """A session with the last messages the chat shows of it.

    Attributes:
        session: the session.
        messages: its last `HISTORY_LIMIT` messages, oldest first.
    """

    session: Session
    messages: list[StoredMessage]


def read_session(engine: Hippo, session_id: int) -> SessionShown:
    """A session and its last messages, as the chat shows them (any thread may ask).

    Raises:
        HippoError: the session is not there, or belongs to another profile.
    """
    return SessionShown(
        engine.conversations.session(session_id),
        engine.conversations.history(session_id, HISTORY_LIMIT),
    )


def read_last_session(engine: Hippo) -> SessionShown | None:
    """The most recent session and its last messages, for ``--continue``; None if none."""
    last = engine.conversations.last_session()
    return read_session(engine, last.id) if last is not None else None


class ChatScreen(ChatCommands):
    """Talk to Hippo in one session; the reply streams while the input stays usable.

    Args:
        config: the settings in use, shown in the status line until the engine is there.
        probe: asks Ollama whether it is up (raises `OllamaError` if not); the status line
            starts asking as the screen mounts, so that the answer comes with the first
            frames (None: the app starts it later).
    """

    # Toasts at the top right, under the header: the newest reply is at the bottom, and
    # a notice must never cover it.
    DEFAULT_CSS = """
    ChatScreen ToastRack {
        dock: top;
        align: right top;
        margin-top: 1;
        margin-bottom: 0;
        max-height: 60%;
    }
    #welcome, #conversation .note {
        height: auto;
        margin: 1 0;
        padding: 0 1;
        border: round $accent 60%;
    }
    #conversation .note {
        border: round $warning 60%;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "show_help", "Help"),
        Binding("ctrl+q", "app.quit", "Quit", priority=True),
        Binding("escape", "cancel_reply", "Stop reply"),
        Binding("ctrl+y", "copy_last_reply", "Copy reply", priority=True),
        # Left out of the footer for room (F1 and /help list it): ctrl+q and F1 matter more.
        Binding("ctrl+n", "new_session", "New session", show=False),
    ]

    class TurnsLeft(Message):
        """The turn's thread left events in the inbox, and no take of them is due yet.

        ``urgent``: take them now, not with the next take (anything but a piece of text:
        the reply's end shows its last words at once).
        """

        def __init__(self, urgent: bool) -> None:
            super().__init__()
            self.urgent = urgent

    class Command(Message):
        """A slash command was typed (``/remember X``); the app carries it out."""

        def __init__(self, command: SlashCommand) -> None:
            super().__init__()
            self.command = command

    class Painted(Message):
        """The chat's first frame is on screen: slow start-up work may begin."""

    def __init__(
        self, config: Config, *, scope: str = "", probe: Callable[[], object] | None = None
    ) -> None:
        super().__init__()
        self._config = config
        self._probe = probe
        self._engine: Hippo | None = None
        self._queued: str | None = None  # sent before the engine was there
        self._queued_pasted = False  # whether that message holds pasted text
        self.session_id: int | None = None
        self.incognito = False  # the shown (or next) session keeps nothing after it ends
        self.scope = scope  # what the shown (or next) session is about ("": general)
        self._cancel: threading.Event | None = None
        self._idle = threading.Event()  # clear while a turn's thread runs
        self._idle.set()
        self._inbox: TurnInbox[TurnEvent | _Crashed] = TurnInbox()
        self._taking = False
        self._last_take = float("-inf")
        self._wait = _Wait()
        self._wait_ticks: Timer | None = None
        self._waiting_said = ""  # what the line under the conversation says now
        self._model_before: str | None = None  # the model /model replaced, for this chat
        self._replacing: int | None = None  # an edited message's turn replaces this one
        self._history_mark: int | None = None  # input history's length when incognito began

    def compose(self) -> ComposeResult:
        yield Header()
        yield Conversation(id="conversation")
        waiting = Static("", id="waiting", markup=False)
        waiting.display = False
        yield waiting
        editing = Static(_EDITING, id="editing", markup=False)
        editing.display = False
        yield editing
        yield PromptInput(id="prompt", placeholder=_PLACEHOLDER)
        yield StatusLine()
        yield Footer()

    def on_mount(self) -> None:
        status = self.status
        status.chat_model = self._config.models.chat
        status.embedding_model = self._config.models.embedding
        status.host = _host_shown(self._config.ollama.host)
        status.profile = self._config.profile
        status.scope = self.scope
        if self._probe is not None:
            # Now, not once painted: the first frame's last widgets (the footer's keys)
            # take ~0.1 s to mount, ~0.6 s on a busy machine, and the question costs the
            # UI thread nothing; only the engine's opening, which is heavy, waits.
            status.start_watching(self._probe)
        self.query_one(PromptInput).focus()
        self.call_after_refresh(self.post_message, self.Painted())

    async def attach(self, engine: Hippo, resumed: SessionShown | None) -> None:
        """Start using the engine: show the resumed session, then send a queued message.

        Args:
            engine: the open engine.
            resumed: the session to show (read in the opening thread), or None.
        """
        self._engine = engine
        status = self.status
        status.chat_model = engine.live_settings.turn.chat_model
        status.embedding_model = engine.live_settings.embedding_model
        status.host = engine.host.ollama_host
        status.profile = engine.conversations.profile.name
        # A lambda: the admin API is built on first use, in the counting thread.
        status.start_counting(
            engine.background.pending_embeddings, lambda: engine.admin.review.pending_count()
        )
        if resumed is not None:
            await self._show(resumed)
        elif self._queued is None:
            await self._greet_once(engine)
        self._load_history()
        if self._queued is not None:
            text, self._queued = self._queued, None
            self._start_turn(text, pasted=self._queued_pasted)

    async def show_notes(self, notes: list[str]) -> None:
        """Show what opening the data file had to say, under the messages."""
        await self.query_one(Conversation).show_notes(notes)

    async def _greet_once(self, engine: Hippo) -> None:
        """Greet a new user (an empty file, never greeted in this config folder)."""
        from ui.screens.welcome import WELCOME, mark_welcomed, welcomed

        folder = self._config.config_dir
        if welcomed(folder):
            return
        try:
            if engine.conversations.last_session() is not None:
                return
        except Exception:  # a damaged file: the app's check says so; no greeting over it
            return
        await self.query_one(Conversation).show_welcome(WELCOME)
        mark_welcomed(folder)

    @work(thread=True, exclusive=True, group="input-history", exit_on_error=False)
    def _load_history(self) -> None:
        """Give up/down in the message box the messages of recent sessions (off the UI thread)."""
        earlier: list[str] = []
        for session in reversed(self.engine.conversations.sessions(limit=_HISTORY_SESSIONS)):
            earlier += [
                m.content
                for m in self.engine.conversations.history(session.id, 100)
                if m.role == "user"
            ]
        self.app.call_from_thread(lambda: self.query_one(PromptInput).load_history(earlier))

    @property
    def engine(self) -> Hippo:
        """The engine, once attached.

        Raises:
            RuntimeError: the data file is not open yet (see `ready`).
        """
        if self._engine is None:
            raise RuntimeError("The chat's engine is not open yet.")
        return self._engine

    @property
    def queued(self) -> str | None:
        """The message sent before the engine was there, until it goes (None: none)."""
        return self._queued

    @property
    def ready(self) -> bool:
        """Whether the engine is attached (the data file opens just after the first frame)."""
        return self._engine is not None

    def require_engine(self) -> bool:
        """Whether the engine is attached; if not, say so (for actions that need it).

        Keys stay in the footer meanwhile: hiding them for that moment would make it flicker.
        """
        if not self.ready:
            self.notify(_STILL_OPENING, markup=False)
        return self.ready

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

    async def open_session(
        self, session_id: int | None, *, incognito: bool = False, scope: str = ""
    ) -> None:
        """Show a session's last messages, or an empty chat for ``None`` (created on send).

        Args:
            session_id: the session to show, or None for a new one.
            incognito: the new session keeps nothing once it ends (with ``None`` only).
            scope: what the new session is about, e.g. work (with ``None`` only).
        """
        self.action_cancel_reply()
        self.end_edit(keep_text=False)  # the message being edited belongs to the chat left
        if session_id != self.session_id:
            if self.session_id is not None and not self.incognito:
                # Left for another: it is over, and sleep may consolidate it now.
                await asyncio.to_thread(self.engine.conversations.end_session, self.session_id)
            await self._end_incognito()
        shown = read_session(self.engine, session_id) if session_id is not None else None
        await self._show(shown, incognito=incognito, scope=scope)

    async def _show(
        self, shown: SessionShown | None, *, incognito: bool = False, scope: str = ""
    ) -> None:
        session = shown.session if shown is not None else None
        if session is None or session.id != self.session_id:
            self._restore_model()  # /model holds for one chat
        self.session_id = session.id if session is not None else None
        self.incognito = session.incognito if session is not None else incognito
        self.scope = session.scope if session is not None else scope
        self.status.incognito = self.incognito
        self.status.scope = self.scope
        self.sub_title = self._title(session)
        await self.query_one(Conversation).show(shown.messages if shown is not None else [])

    def reveal(self, message_id: int, tries: int = _REVEAL_TRIES) -> None:
        """Scroll to a shown message and mark it (older ones mount late).

        The keyboard stays in the message box: what the user types next is a message,
        never a key of the message shown (c copies it, m opens its memories).
        """
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
        for marked in conversation.query(".-marked"):
            marked.remove_class("-marked")
        view.add_class("-marked")
        self.query_one(PromptInput).focus()
        self.call_after_refresh(conversation.scroll_to_widget, view, top=True, animate=False)

    def _title(self, session: Session | None) -> str:
        title = visible(session.title if session else "") or "New session"
        if self.scope:
            title = f"{self.scope} · {title}"
        return f"Incognito · {title}" if self.incognito else title

    async def _end_incognito(self, *, announce: bool = True) -> None:
        """Delete the incognito session being left: it keeps nothing once it ends."""
        if self.incognito and self.session_id is not None:
            # After its reply has stopped (nothing may write to it once deleted), and off
            # the UI thread: deleting scrubs the data file.
            await asyncio.to_thread(self._idle.wait, _STOP_WAIT_S)
            await asyncio.to_thread(self.engine.admin.forget.end_session, self.session_id)
            if announce:
                self.notify("The incognito chat was deleted.", title="Incognito", markup=False)
        prompt = next(iter(self.query(PromptInput)), None)  # gone when the app closes
        if self.incognito and self._history_mark is not None and prompt is not None:
            del prompt.sent[self._history_mark :]  # up/down forget it too
        self._history_mark = None
        self.incognito = False

    def ensure_session(self) -> int:
        """The shown session's id, creating it (incognito if asked) when the chat is new."""
        if self.session_id is None:
            session = self.engine.conversations.new_session(
                incognito=self.incognito, scope=self.scope
            )
            self.session_id, self.sub_title = session.id, self._title(None)
        return self.session_id

    @on(PromptInput.Submitted)
    async def send(self, submitted: PromptInput.Submitted) -> None:
        """Send the typed message (or carry out a slash command), unless a reply streams.

        Before the engine is there, one message is queued (shown, and sent once it is);
        slash commands other than /help wait, their text left in the box.
        """
        if (command := parse_slash(submitted.text)) is not None:
            if needs_engine(command) and not self.require_engine():
                return
            submitted.prompt.remember(submitted.text)
            submitted.prompt.clear()
            if not await self.run_local(command):
                self.post_message(self.Command(command))
            return
        if self.streaming:
            self.notify("A reply is still streaming: press Esc to stop it first.")
            return
        if self._queued is not None:
            self.notify(_STILL_OPENING + " Your first message goes first.", markup=False)
            return
        text = submitted.text.strip()
        text = text[1:] if text.startswith("//") else submitted.text
        pasted = submitted.pasted
        edited = self.end_edit(keep_text=True)  # sent in place of the message being edited
        if edited is not None:
            forget_sent(submitted.prompt, edited.text)  # up/down: the old words went with it
        submitted.prompt.remember(submitted.text)
        submitted.prompt.clear()
        await self.query_one(Conversation).hide_welcome()
        if not self.ready:
            self._queued, self._queued_pasted = text, pasted
            await self.query_one(Conversation).queue(text)
            return
        self._start_turn(text, pasted=pasted, edited=edited.message_id if edited else None)

    def _start_turn(self, text: str, *, pasted: bool = False, edited: int | None = None) -> None:
        session_id = self.ensure_session()
        self._cancel = threading.Event()
        self._idle.clear()
        self._wait = _Wait()
        self._replacing = edited
        if self._wait_ticks is None:
            self._wait_ticks = self.set_interval(_WAIT_TICK_S, self._say_what_it_waits_for)
        self._stream_turn(session_id, text, self._cancel, pasted, edited=edited)

    def start_turn(self, text: str) -> None:
        """Send ``text`` as the user's next message (/continue's words)."""
        self._start_turn(text)

    def start_retry(self) -> None:
        """Answer the last message again; its old reply was taken off the screen."""
        assert self.session_id is not None
        self._cancel = threading.Event()
        self._idle.clear()
        self._wait = _Wait()
        if self._wait_ticks is None:
            self._wait_ticks = self.set_interval(_WAIT_TICK_S, self._say_what_it_waits_for)
        self._stream_turn(self.session_id, "", self._cancel, again=True)

    def use_model(self, name: str) -> None:
        """Answer with ``name`` in this chat; the model in use before comes back with the next."""
        if self._model_before is None:
            self._model_before = self.engine.live_settings.turn.chat_model
        self.engine.live_settings.change(chat_model=name)
        self.status.chat_model = name

    def _restore_model(self) -> None:
        if self._model_before is not None and self._engine is not None:
            self._engine.live_settings.change(chat_model=self._model_before)
            self.status.chat_model = self._model_before
            self._model_before = None

    @work(thread=True, group="reply")
    def _stream_turn(
        self,
        session_id: int,
        text: str,
        cancel: threading.Event,
        pasted: bool = False,
        *,
        again: bool = False,
        edited: int | None = None,
    ) -> None:
        try:
            if again:
                events = self.engine.regenerate(session_id, cancel=cancel)
            elif edited is not None:
                events = self.engine.edit_last(
                    session_id, text, edited=edited, cancel=cancel, pasted=pasted
                )
            else:
                events = self.engine.send(session_id, text, cancel=cancel, pasted=pasted)
            for event in events:
                self._leave(event)
        except Exception as exc:  # whatever broke, the chat stays usable (see _turn_crashed)
            self._leave(_Crashed(text, exc))
        finally:
            self._idle.set()

    def _leave(self, item: TurnEvent | _Crashed) -> None:
        """Leave an event for the screen (from the turn's thread); wake it if no take is due."""
        from assistant.turns import TextDelta, ThinkingDelta

        piece = isinstance(item, TextDelta | ThinkingDelta)
        if self._inbox.put(item) or not piece:
            self.post_message(self.TurnsLeft(urgent=not piece))

    async def on_chat_screen_turns_left(self, message: TurnsLeft) -> None:
        wait = self._last_take + 1 / TAKE_RATE - time.monotonic()
        if wait > 0 and not message.urgent:
            self.set_timer(wait, self._take_turns)  # what arrives meanwhile comes along
        else:
            await self._take_turns()

    async def _take_turns(self) -> None:
        """Apply what the turn's thread left, in order (one take at a time)."""
        if self._taking:
            return  # the take under way takes it too
        self._taking = True
        try:
            while items := self._inbox.take():
                self._last_take = time.monotonic()
                for item in items:
                    if isinstance(item, _Crashed):
                        await self._turn_crashed(item)
                    else:
                        await self._apply_turn(item)
        finally:
            self._taking = False

    async def _apply_turn(self, event: TurnEvent) -> None:
        from assistant.turns import (
            MemoryWritten,
            PromptTooLong,
            ReplyCancelled,
            ReplyDone,
            ReplyFailed,
            UserSaved,
        )

        if isinstance(event, ReplyFailed) and isinstance(event.error, ModelNotFound):
            # The stored error says what to do in the shell; here, the models screen (F2).
            shown = dataclasses.replace(event.message, error=event.error.in_app)
            event = dataclasses.replace(event, message=shown)
        self._wait.saw(event)
        if (waiting := self.query_one("#waiting", Static)).display:
            waiting.display = False  # it came: the ticks show the next wait, if long
            self._waiting_said = ""
        if isinstance(event, UserSaved) and self._replacing is not None:
            # The edited message is stored and the old exchange deleted: off the screen too.
            await self.query_one(Conversation).drop_from(self._replacing)
            self._replacing = None
            if self.session_id is not None:  # a title drawn from the old words changed too
                self.sub_title = self._title(self.engine.conversations.session(self.session_id))
        if isinstance(event, MemoryWritten):
            title = "Proposed for review" if event.pending else "Memory updated"
            self.notify(event.notice, title=title, timeout=8, markup=False)
        elif isinstance(event, PromptTooLong):
            self.notify(
                event.advice, title="Message too long", severity="warning", timeout=15, markup=False
            )
        await self.query_one(Conversation).apply(event)
        if isinstance(event, ReplyDone):
            self.status.reachable = True
        elif isinstance(event, ReplyFailed) and isinstance(event.error, OllamaUnreachable):
            self.status.reachable = False
        elif isinstance(event, ReplyFailed) and isinstance(event.error, OllamaError):
            self.status.check_now()  # hung, or answering badly: the line says which
        if isinstance(event, ReplyDone | ReplyCancelled | ReplyFailed):
            self._end_wait()
            self._cancel = None
            if self.sub_title == self._title(None) and self.session_id is not None:
                self.sub_title = self._title(self.engine.conversations.session(self.session_id))
            self.status.refresh_pending()

    def _say_what_it_waits_for(self) -> None:
        """Show, under the conversation, what a silent reply waits for and for how long."""
        waiting = self.query_one("#waiting", Static)
        text = self._wait.text(
            self.engine.live_settings.turn.chat_model,
            self.engine.live_settings.embedding_model,
            _QUIET_S,
        )
        if text != self._waiting_said:  # an update lays the screen out again: only on change
            self._waiting_said = text
            waiting.update(text)
            waiting.display = bool(text)

    def _end_wait(self) -> None:
        if self._wait_ticks is not None:
            self._wait_ticks.stop()
            self._wait_ticks = None
        self._waiting_said = ""
        self.query_one("#waiting", Static).display = False

    async def _turn_crashed(self, message: _Crashed) -> None:
        self._end_wait()
        self._cancel = None
        self._replacing = None  # an edit that failed replaced nothing
        await self.query_one(Conversation).abandon_reply(str(message.error))
        prompt = self.query_one(PromptInput)
        if not prompt.text:  # give the words back, so nothing typed is lost
            prompt.text = message.text
        error = message.error
        if isinstance(error, HippoError):  # a refusal the engine explains
            self.notify(str(error), title="Not sent", severity="error", timeout=10, markup=False)
            return
        # Anything else is a bug. The chat is not torn down for it (the person's words
        # matter more), but it is called one, with its traceback in the log.
        _log.error("A chat turn failed with a bug", exc_info=error)
        self.notify(
            f"A bug in Hippo stopped this turn ({type(error).__name__}: {error}). Your "
            "message is back in the box; please report the bug.",
            title="Not sent: a bug",
            severity="error",
            timeout=15,
            markup=False,
        )

    def action_cancel_reply(self) -> None:
        """Stop the streaming reply (what arrived is kept, marked stopped); else leave an
        edit of the last message, which stays as it was; from a message, back to the box."""
        if self._cancel is not None:
            self._cancel.set()
        elif isinstance(self.focused, MessageView):
            self.query_one(PromptInput).focus()
        else:
            self.end_edit(keep_text=False)

    def on_key(self, event: Key) -> None:
        """A character typed on a message (but its own keys) goes to the box, not lost."""
        if not (event.is_printable and event.character and isinstance(self.focused, MessageView)):
            return
        if event.key in _MESSAGE_KEYS:
            return  # the message's own key (copy it, its memories)
        event.stop()
        event.prevent_default()
        prompt = self.query_one(PromptInput)
        prompt.focus()
        prompt.insert(event.character)

    def action_copy_last_reply(self) -> None:
        """Copy the newest reply to the clipboard."""
        reply = self.query_one(Conversation).last_reply()
        if reply is None:
            self.notify("There is no reply to copy yet.")
        else:
            reply.action_copy()

    async def action_new_session(self) -> None:
        """Start an empty chat; the session is created when the first message is sent."""
        if self.require_engine():  # else the resumed session would replace it
            await self.open_session(None)
            self.query_one(PromptInput).focus()

    async def new_scoped(self, scope: str) -> None:
        """Start a chat about ``scope`` (e.g. work): it recalls general memories and that scope's.

        Raises:
            MemoryWriteError: ``scope`` is not a scope name.
        """
        from assistant.memory.records import scope_name

        name = scope_name(scope)
        await self.open_session(None, scope=name)
        self.query_one(PromptInput).focus()
        self.notify(
            f"A new chat about {name}: it recalls general memories and {name} ones only, and "
            f"facts learnt in it are kept as {name}."
            if name
            else "A new general chat: it recalls memories of every scope.",
            title="Scope",
            markup=False,
        )

    async def action_new_incognito(self) -> None:
        """Start an incognito chat: nothing of it is kept once you leave it."""
        await self.open_session(None, incognito=True)
        prompt = self.query_one(PromptInput)
        self._history_mark = len(prompt.sent)  # what is typed from here goes with the chat
        prompt.focus()
        self.notify(
            "Incognito: this chat is deleted when you leave it, and sleep never learns from it.",
            title="Incognito",
            markup=False,
        )


class _Wait:
    """What a turn in flight waits for: memories (the query's embedding), the reply's
    first words (the chat model, perhaps loading), or its next words."""

    def __init__(self) -> None:
        self.since = time.monotonic()
        self.stage = "recall"  # then "load", then "stream"

    def saw(self, event: object) -> None:
        """Note an event of the turn: the wait starts again, perhaps for something else."""
        from assistant.turns import MemoryUsed, TextDelta, ThinkingDelta

        self.since = time.monotonic()
        if isinstance(event, MemoryUsed):
            self.stage = "load"
        elif isinstance(event, TextDelta | ThinkingDelta):
            self.stage = "stream"

    def text(self, chat_model: str, embedding_model: str, quiet: float) -> str:
        """The line to show, or "" while the wait is short."""
        waited = time.monotonic() - self.since
        if waited < quiet:
            return ""
        what = {
            "recall": f"Waiting for {embedding_model} to recall memories…",
            "load": f"Waiting for {chat_model} to load…",
            "stream": f"Waiting for {chat_model} to go on…",
        }[self.stage]
        return f"{what} {waited:.0f} s · Esc stops"


def _host_shown(host: str | None) -> str:
    """The Ollama host as the gateway will resolve it, or as written if it is not valid.

    An invalid host fails when the engine opens, with a message that says how to fix it.
    """
    from assistant.llm.hosts import resolve_host

    try:
        return resolve_host(host)
    except ConfigError:
        return host or ""
