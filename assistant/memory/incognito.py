"""Incognito chats in memory only: their sessions and messages never reach the data file.

An incognito session and its messages live in an in-memory SQLite database of the
process, shaped like the file's own tables (their ``CREATE`` text is copied from the
file, so the columns always match). Nothing of them is written to the file: another
process reading it (``hippo message search`` in another shell) finds nothing, and a crash
leaves nothing behind. Their ids start at `FIRST_ID`, far above any id the file
will reach, so one id says where a session or message lives.

`RoutedMessages` is the engine's message store: it sends each call about an incognito
session or message to the in-memory store, and every other call to the file
(`assistant.memory.incognito_usage` does the same for the memories each reply used).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime

import apsw

from assistant.clock import Clock
from assistant.memory.messages import MessageStore
from assistant.memory.records import Message, MessageStatus, Role, Session

__all__ = ["FIRST_ID", "IncognitoMessages", "RoutedMessages", "is_incognito_id"]

FIRST_ID = 1 << 50
"""Incognito sessions and messages are numbered from here (the file's ids stay far below)."""

_TABLES = ("sessions", "messages", "reply_memories")


def is_incognito_id(item_id: int) -> bool:
    """Whether a session or message id belongs to an incognito chat (held in memory)."""
    return item_id >= FIRST_ID


def _memory_copy(file: apsw.Connection) -> apsw.Connection:
    """An in-memory database with the file's session, message and usage tables (empty)."""
    memory = apsw.Connection(":memory:")
    memory.execute("PRAGMA foreign_keys = OFF")  # profiles stay in the file
    for (sql,) in file.execute(
        f"SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN {_TABLES}"
    ):
        memory.execute(sql)
    memory.execute(
        "INSERT INTO sqlite_sequence(name, seq) VALUES ('sessions', ?), ('messages', ?)",
        (FIRST_ID - 1, FIRST_ID - 1),
    )
    return memory


class IncognitoMessages(MessageStore):
    """Sessions and messages of incognito chats, in memory; never indexed nor embedded.

    Args:
        file: returns the calling thread's connection to the data file (its schema is copied).
        clock: the time source.
    """

    def __init__(self, file: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._file = file
        self._memory: apsw.Connection | None = None
        self._made = threading.Lock()
        super().__init__(self.connection, clock)

    def connection(self) -> apsw.Connection:
        """The in-memory database (made on first use: most runs never open an incognito chat)."""
        # Made on first use: most runs never open an incognito chat.
        with self._made:
            if self._memory is None:
                self._memory = _memory_copy(self._file())
            return self._memory

    def _index(self, conn: apsw.Connection, message_id: int) -> None:
        """Never: an incognito message is not searchable, and no vector is made of it."""

    def drop(self, session_id: int) -> int:
        """Forget an incognito session and its messages; return how many messages went."""
        conn = self.connection()
        with conn:
            conn.execute(
                "DELETE FROM reply_memories WHERE message_id IN"
                " (SELECT id FROM messages WHERE session_id = ?)",
                (session_id,),
            )
            conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
            gone = conn.changes()
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        return gone

    def delete_messages(self, ids: Sequence[int]) -> None:
        """Delete these incognito messages (a reply being answered again)."""
        conn = self.connection()
        marks = ",".join("?" * len(ids))
        with conn:
            conn.execute(f"DELETE FROM reply_memories WHERE message_id IN ({marks})", list(ids))
            conn.execute(f"DELETE FROM messages WHERE id IN ({marks})", list(ids))

    def session_ids(self) -> list[int]:
        """The incognito sessions held now."""
        return [row[0] for row in self.connection().execute("SELECT id FROM sessions")]


class RoutedMessages(MessageStore):
    """The engine's message store: incognito chats in memory, everything else in the file.

    Args:
        conn: returns the calling thread's connection to the data file.
        clock: the time source.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        super().__init__(conn, clock)
        self.incognito = IncognitoMessages(conn, clock)
        self.file = MessageStore(conn, clock)
        """The file's own store, for incognito sessions an older Hippo wrote there."""

    def create_session(
        self,
        profile_id: int,
        *,
        incognito: bool = False,
        scope: str = "",
        started_at: datetime | None = None,
    ) -> Session:
        """Start a session: an incognito one in memory, any other in the file."""
        if incognito:
            return self.incognito.create_session(
                profile_id, incognito=incognito, scope=scope, started_at=started_at
            )
        return super().create_session(
            profile_id, incognito=incognito, scope=scope, started_at=started_at
        )

    def session(self, session_id: int) -> Session:
        """The session with this id, wherever it lives."""
        if is_incognito_id(session_id):
            return self.incognito.session(session_id)
        return super().session(session_id)

    def rename_session(self, session_id: int, title: str) -> Session:
        """Give a session a title, wherever it lives."""
        if is_incognito_id(session_id):
            return self.incognito.rename_session(session_id, title)
        return super().rename_session(session_id, title)

    def end_session(self, session_id: int) -> None:
        """Mark a file session over; an incognito one ends when it is dropped."""
        if not is_incognito_id(session_id):
            super().end_session(session_id)

    def add_message(self, session_id: int, role: Role, content: str, **kwargs: object) -> Message:
        """Store a message in its session's place (see `MessageStore.add_message`)."""
        if is_incognito_id(session_id):
            return self.incognito.add_message(session_id, role, content, **kwargs)  # type: ignore[arg-type]
        return super().add_message(session_id, role, content, **kwargs)  # type: ignore[arg-type]

    def update_message(
        self,
        message_id: int,
        *,
        content: str,
        thinking: str = "",
        status: MessageStatus = "complete",
        error: str = "",
        importance: float | None = None,
    ) -> Message:
        """Rewrite a message where it lives (see `MessageStore.update_message`)."""
        if is_incognito_id(message_id):
            return self.incognito.update_message(
                message_id,
                content=content,
                thinking=thinking,
                status=status,
                error=error,
                importance=importance,
            )
        return super().update_message(
            message_id,
            content=content,
            thinking=thinking,
            status=status,
            error=error,
            importance=importance,
        )

    def message(self, message_id: int) -> Message:
        """The message with this id, wherever it lives."""
        if is_incognito_id(message_id):
            return self.incognito.message(message_id)
        return super().message(message_id)

    def messages_by_id(
        self, ids: Sequence[int], profile_id: int | None = None
    ) -> dict[int, Message]:
        """The messages with these ids, from the file and from memory."""
        found = super().messages_by_id([i for i in ids if not is_incognito_id(i)], profile_id)
        hidden = [i for i in ids if is_incognito_id(i)]
        if hidden:
            found.update(self.incognito.messages_by_id(hidden, profile_id))
        return found

    def recent_messages(
        self, session_id: int, limit: int = 200, *, longest: int | None = None
    ) -> list[Message]:
        """The session's last messages, wherever it lives."""
        if is_incognito_id(session_id):
            return self.incognito.recent_messages(session_id, limit, longest=longest)
        return super().recent_messages(session_id, limit, longest=longest)

    def set_summary(self, session_id: int, summary: str, upto: int) -> None:
        """Store a session's running summary where the session lives."""
        if is_incognito_id(session_id):
            self.incognito.set_summary(session_id, summary, upto)
        else:
            super().set_summary(session_id, summary, upto)

    def summary(self, session_id: int) -> tuple[str, int]:
        """A session's running summary, wherever it lives."""
        if is_incognito_id(session_id):
            return self.incognito.summary(session_id)
        return super().summary(session_id)

    def discard_empty_reply(self, message_id: int) -> bool:
        """Delete an empty failed reply, wherever it lives."""
        if is_incognito_id(message_id):
            return self.incognito.discard_empty_reply(message_id)
        return super().discard_empty_reply(message_id)
