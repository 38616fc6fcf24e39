"""Answer a session's last message again, or an edited version of it, in its place.

`regenerate` (/retry): the old reply goes and a new one streams, to the same stored user
message (a retried turn never leaves a duplicate question). `edit_last` (/edit): the
last user message and its replies both go, and the edited text is sent as a new turn.
Either way what goes is deleted for good, the way /retry always has: with its keyword
index and vectors, and whatever memory drew only from it (a fact whose only evidence
was the replaced turn); a fact with other evidence stays, minus this.

Kept apart from the chat turn itself: `Turn` subclasses that change only how the
turn's messages are stored. It receives the parts it uses (`Redo`), never the engine.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from assistant.chat import Chores, Turn
from assistant.errors import HippoError, InvalidInput
from assistant.memory.messages import default_title

if TYPE_CHECKING:
    from assistant.conversations import Conversations
    from assistant.llm.backend import ChatBackend
    from assistant.llm.shown import ShownModels
    from assistant.memory.recall import Memory
    from assistant.memory.records import Message, Session
    from assistant.turn_settings import TurnSettings
    from assistant.turns import TurnEvent
    from assistant.wiring import Parts

__all__ = ["Redo", "edit_last", "regenerate"]

_T = TypeVar("_T", bound=Turn)

# How far back the session's first user message is looked for (as `last_exchange` looks).
_LOOK_BACK = 50


@dataclass(frozen=True)
class Redo:
    """What /retry and /edit use, as it is when the user asks (see `Redo.over`).

    Attributes:
        memory: the memory the new turn reads and writes.
        gateway: the gateway to Ollama.
        settings: the turn settings.
        shown: what Ollama says of each model.
        chores: the background work a turn hands on.
        conversations: the profile's sessions and their messages.
        delete: deletes messages for good, with what was drawn only from them.
    """

    memory: Memory
    gateway: ChatBackend
    settings: TurnSettings
    shown: ShownModels
    chores: Chores
    conversations: Conversations
    delete: Callable[[list[int]], None]

    @classmethod
    def over(cls, parts: Parts, delete: Callable[[list[int]], None]) -> Redo:
        """What the engine's ``parts`` hold now: the settings in use and the current
        embedding worker (both change while the app runs); ``delete`` as above."""
        host, worker = parts.host, parts.background.worker
        settings = parts.live_settings.turn
        return cls(
            parts.memory, host.gateway, settings, host.shown, worker, parts.conversations, delete
        )

    def turn(self, kind: type[_T]) -> _T:
        """A turn of ``kind`` over these parts."""
        return kind(self.memory, self.gateway, self.settings, shown=self.shown, chores=self.chores)


def regenerate(
    redo: Redo, session_id: int, *, cancel: threading.Event | None = None
) -> Iterator[TurnEvent]:
    """Delete the last reply of a session and stream a new answer to the same message.

    Events come as from `Hippo.send`: ``UserSaved`` carries the message already stored
    (the UI shows it once), then the new reply.

    Raises:
        HippoError: nothing to answer again, or the session is not this profile's.
    """
    session = redo.conversations.session(session_id)
    user, replies = redo.conversations.last_exchange(session_id)
    _delete_messages(redo, [reply.id for reply in replies])
    cancel = cancel or threading.Event()
    turn = redo.turn(_AnswerAgain)
    turn.user = user
    with redo.gateway.stopping_on(cancel):
        yield from turn.run(session, user.content, cancel, pasted=user.origin == "pasted")


def edit_last(
    redo: Redo,
    session_id: int,
    text: str,
    *,
    edited: int | None = None,
    cancel: threading.Event | None = None,
    pasted: bool = False,
) -> Iterator[TurnEvent]:
    """Replace a session's last user message (and its replies) with ``text``, and answer it.

    The new message is stored first, then the old exchange is deleted (as /retry deletes
    a reply), so the session is never left empty, and the reply is built from a working
    memory that no longer holds the old words. Events come as from `Hippo.send`.

    Args:
        redo: what the new turn uses.
        session_id: the session.
        text: the edited message.
        edited: the id of the message the user chose to edit; if the session's last user
            message is another one by now, nothing is done.
        cancel: set to stop the reply.
        pasted: the user pasted the text.

    Raises:
        InvalidInput: the text is empty.
        HippoError: nothing to edit, the last message is not the one chosen, or the
            session is not this profile's.
    """
    if not text.strip():
        raise InvalidInput("The message is empty: type something to send.")
    session = redo.conversations.session(session_id)
    user, replies = redo.conversations.last_exchange(session_id)
    if edited is not None and user.id != edited:
        raise HippoError(
            "Your last message changed since you began editing it: nothing was replaced. "
            "Use /edit again."
        )
    cancel = cancel or threading.Event()
    turn = redo.turn(_Edited)
    turn.replaced = [user.id, *(reply.id for reply in replies)]
    turn.delete = lambda ids: _delete_messages(redo, ids)
    turn.retitle = _titled_by(redo.conversations, session, user)
    with redo.gateway.stopping_on(cancel):
        yield from turn.run(session, text, cancel, pasted=pasted)


def _titled_by(conversations: Conversations, session: Session, user: Message) -> bool:
    """Whether the session's title is the one it took from ``user``, its first message."""
    earlier = [m for m in conversations.history(session.id, _LOOK_BACK) if m.role == "user"]
    return earlier == [user] and session.title == default_title(user.content)


def _delete_messages(redo: Redo, ids: list[int]) -> None:
    """Delete messages for good: from memory (incognito), or from the file with their
    index, vectors and whatever was drawn only from them."""
    if ids:  # none: the admin's code need not load
        redo.delete(ids)


class _AnswerAgain(Turn):
    """A turn over a user message already stored: only the reply is new."""

    user: Message
    """The message answered again (set before `run`)."""

    def _save_message(self) -> tuple[Message, Message]:
        reply = self._memory.messages.add_message(
            self._session.id, "assistant", "", status="streaming", model=self._settings.chat_model
        )
        return self.user, reply


class _Edited(Turn):
    """A turn whose new message takes the place of the last exchange."""

    replaced: list[int]
    """The ids of the old user message and its replies (set before `run`)."""
    delete: Callable[[list[int]], None]
    """Deletes messages for good, with what was drawn only from them (set before `run`)."""
    retitle: bool
    """The session's title came from the replaced message: the new one gives it (set before
    `run`)."""

    def _save_message(self) -> tuple[Message, Message]:
        user, reply = super()._save_message()
        try:
            self.delete(self.replaced)
        except BaseException:
            # The old exchange is still there: take the new one back, so that the session
            # is as it was and the words go back to the message box.
            with contextlib.suppress(Exception):
                self.delete([user.id, reply.id])
            raise
        if self.retitle:  # the old words must not stay on as the session's name
            self._memory.messages.rename_session(self._session.id, default_title(self._text))
        return user, reply
