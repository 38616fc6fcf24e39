"""Answer a session's last message again: its old reply goes, a new one streams in its place.

Kept apart from the chat turn itself: a `ChatTurn` that reuses the stored user message
instead of storing it again, so a retried turn never leaves a duplicate question.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from assistant.chat import ChatTurn
from assistant.errors import HippoError
from assistant.memory.incognito import is_incognito_id

if TYPE_CHECKING:
    from assistant.engine import Hippo
    from assistant.memory.models import Message, Session
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
    with engine.llm.stopping_on(cancel):
        yield from _AnswerAgain(engine, session, user, cancel).run()


def _delete_replies(engine: Hippo, ids: list[int]) -> None:
    """Delete replies for good: from memory (incognito), or from the file with their index,
    vectors and whatever was drawn only from them."""
    if not ids:
        return
    if is_incognito_id(ids[0]):
        engine.messages.incognito.delete_messages(ids)
        return
    from assistant.admin.purge_find import PurgeFinder
    from assistant.admin.purge_run import PurgeRunner

    conn = lambda: engine.db.conn  # noqa: E731  (the calling thread's connection)
    plan = PurgeFinder(conn).by_items(engine.profile.id, "message", ids)
    PurgeRunner(conn, engine.clock).run(plan, engine.profile.id)


class _AnswerAgain(ChatTurn):
    """A turn over a user message already stored: only the reply is new."""

    def __init__(
        self, engine: Hippo, session: Session, user: Message, cancel: threading.Event
    ) -> None:
        super().__init__(engine, session, user.content, cancel, pasted=user.origin == "pasted")
        self._user = user

    def _save_message(self) -> tuple[Message, Message]:
        engine = self._engine
        reply = engine.messages.add_message(
            self._session.id, "assistant", "", status="streaming", model=engine.chat_model
        )
        return self._user, reply
