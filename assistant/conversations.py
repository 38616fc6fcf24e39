"""`Conversations`: the sessions of the profile the user works in, and their messages.

Every call keeps to the current profile: a session of another profile is ``NotFound``.
"""

from __future__ import annotations

from collections.abc import Callable

from assistant.errors import HippoError, NotFound
from assistant.memory.messages import MessageStore
from assistant.memory.records import Message, Profile, Session, scope_name

__all__ = ["Conversations"]

# How far back /retry and /edit look for the user's last message.
_LOOK_BACK = 50


class Conversations:
    """Start, end, name and read the current profile's conversations.

    Args:
        messages: the message store (incognito sessions stay in memory).
        profile: the profile worked in now (it may change while the engine runs).
    """

    def __init__(self, messages: MessageStore, profile: Callable[[], Profile]) -> None:
        self._messages = messages
        self._profile = profile

    @property
    def profile(self) -> Profile:
        """The profile worked in now; nothing crosses profiles."""
        return self._profile()

    def new_session(self, *, incognito: bool = False, scope: str = "") -> Session:
        """Start a conversation: ``incognito``, nothing of it is kept once it ends;
        ``scope`` (e.g. work), it recalls general memories and those of its scope only,
        and facts learnt in it take the scope (``MemoryWriteError`` if not a scope name)."""
        scope = scope_name(scope)
        return self._messages.create_session(self._profile().id, incognito=incognito, scope=scope)

    def end_session(self, session_id: int) -> None:
        """Mark a conversation over; sleep consolidates it at its next run."""
        self._messages.end_session(session_id)

    def rename_session(self, session_id: int, title: str) -> Session:
        """Give a session of this profile a title (the user's words).

        Raises:
            NotFound: there is no such session in this profile.
        """
        self.session(session_id)
        return self._messages.rename_session(session_id, title)

    def discard_empty_reply(self, reply_id: int) -> bool:
        """Delete a reply that failed before any text came (the user's message stays)."""
        return self._messages.discard_empty_reply(reply_id)

    def last_session(self) -> Session | None:
        """The most recently active chat, if any (never the session of a `hippo fact add`)."""
        return self._messages.last_session(self._profile().id)

    def sessions(self, limit: int = 50) -> list[Session]:
        """Recent conversations, newest first."""
        return self._messages.sessions(self._profile().id, limit)

    def session(self, session_id: int) -> Session:
        """One conversation of the current profile.

        Raises:
            NotFound: there is no such session in this profile.
        """
        session = self._messages.session(session_id)
        if session.profile_id != self._profile().id:
            raise NotFound(f"Session {session_id} belongs to another profile.")
        return session

    def history(self, session_id: int, limit: int = 200) -> list[Message]:
        """The conversation's last ``limit`` messages, oldest first."""
        return self._messages.recent_messages(self.session(session_id).id, limit)

    def last_exchange(self, session_id: int) -> tuple[Message, list[Message]]:
        """The session's last user message and the replies after it (/retry, /edit).

        Raises:
            NotFound: there is no such session in this profile.
            HippoError: the session has no message of the user's yet.
        """
        messages = self.history(session_id, _LOOK_BACK)
        users = [n for n, message in enumerate(messages) if message.role == "user"]
        if not users:
            raise HippoError("There is no message of yours to answer again: send one first.")
        return messages[users[-1]], messages[users[-1] + 1 :]
