"""Answer a session's last message again: its old reply goes, a new one streams in its place.

Kept apart from the chat turn itself: a `Turn` that reuses the stored user message
instead of storing it again, so a retried turn never leaves a duplicate question.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from assistant.chat import Turn
from assistant.errors import HippoError

if TYPE_CHECKING:
    from assistant.engine import Hippo
    from assistant.memory.records import Message
    from assistant.turns import TurnEvent

__all__ = ["last_exchange", "regenerate"]

_LOOK_BACK = 50


def last_exchange(engine: Hippo, session_id: int) -> tuple[Message, list[Message]]:
    """The session's last user message and the replies after it.

    Raises:
        HippoError: the session has no message of the user's yet.
    """
    messages = engine.history(session_id, _LOOK_BACK)
    users = [n for n, message in enumerate(messages) if message.role == "user"]
    if not users:
        raise HippoError("There is no message of yours to answer again: send one first.")
    return messages[users[-1]], messages[users[-1] + 1 :]


def regenerate(
    engine: Hippo, session_id: int, *, cancel: threading.Event | None = None
) -> Iterator[TurnEvent]:
    """Delete the last reply of a session and stream a new answer to the same message.

    Events come as from `Hippo.send`: ``UserSaved`` carries the message already stored
    (the UI shows it once), then the new reply.

    Raises:
        HippoError: nothing to answer again, or the session is not this profile's.
    """
    session = engine.session(session_id)
    user, replies = last_exchange(engine, session_id)
    _delete_replies(engine, [reply.id for reply in replies])
    cancel = cancel or threading.Event()
    turn = _AnswerAgain(
        engine.memory, engine.llm, engine.turn_settings, shown=engine.shown, chores=engine.chores
    )
    turn.user = user
    with engine.llm.stopping_on(cancel):
        yield from turn.run(session, user.content, cancel, pasted=user.origin == "pasted")


def _delete_replies(engine: Hippo, ids: list[int]) -> None:
    """Delete replies for good: from memory (incognito), or from the file with their index,
    vectors and whatever was drawn only from them."""
    if ids:
        engine.admin.forget.delete_replies(ids)


class _AnswerAgain(Turn):
    """A turn over a user message already stored: only the reply is new."""

    user: Message
    """The message answered again (set before `run`)."""

    def _save_message(self) -> tuple[Message, Message]:
        reply = self._memory.messages.add_message(
            self._session.id, "assistant", "", status="streaming", model=self._settings.chat_model
        )
        return self.user, reply
