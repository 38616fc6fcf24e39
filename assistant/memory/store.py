"""Profiles, sessions and messages: the recall archive's SQL, and nothing else's."""

from __future__ import annotations

from collections.abc import Callable

import apsw

from assistant.clock import Clock, from_iso, to_iso
from assistant.errors import StorageError
from assistant.memory.models import Message, MessageStatus, Profile, Role, Session
from assistant.memory.textindex import fts_query, index_text
from assistant.tokens import estimate_tokens

__all__ = ["MessageStore"]

_MESSAGE_COLUMNS = (
    "id, session_id, role, content, created_at, status, thinking, error, model, tokens, importance"
)
_TITLE_CHARS = 60
INTERRUPTED = "Hippo closed before this reply finished."


def _message(row: tuple) -> Message:
    return Message(
        id=row[0],
        session_id=row[1],
        role=row[2],
        content=row[3],
        created_at=from_iso(row[4]),
        status=row[5],
        thinking=row[6],
        error=row[7],
        model=row[8],
        tokens=row[9],
        importance=row[10],
    )


def _session(row: tuple) -> Session:
    return Session(
        id=row[0],
        profile_id=row[1],
        title=row[2],
        started_at=from_iso(row[3]),
        last_active_at=from_iso(row[4]),
        incognito=bool(row[5]),
        message_count=row[6],
    )


_SESSION_SELECT = (
    "SELECT s.id, s.profile_id, s.title, s.started_at, s.last_active_at, s.incognito,"
    " (SELECT count(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s"
)


class MessageStore:
    """Reads and writes sessions and messages of one data file.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._clock = clock

    # -- profiles ---------------------------------------------------------------

    def profile(self, name: str) -> Profile:
        """The profile called ``name``, created if it does not exist yet."""
        conn = self._conn()
        with conn:
            conn.execute(
                "INSERT OR IGNORE INTO profiles(name, created_at) VALUES (?, ?)",
                (name, to_iso(self._clock.now())),
            )
            (pid,) = conn.execute("SELECT id FROM profiles WHERE name = ?", (name,)).fetchone()
        return Profile(pid, name)

    def profiles(self) -> list[Profile]:
        """Every profile, by name."""
        rows = self._conn().execute("SELECT id, name FROM profiles ORDER BY name")
        return [Profile(*row) for row in rows]

    # -- sessions ---------------------------------------------------------------

    def create_session(self, profile_id: int, *, incognito: bool = False) -> Session:
        """Start a new, empty session."""
        now = to_iso(self._clock.now())
        conn = self._conn()
        conn.execute(
            "INSERT INTO sessions(profile_id, incognito, started_at, last_active_at)"
            " VALUES (?, ?, ?, ?)",
            (profile_id, int(incognito), now, now),
        )
        return self.session(conn.last_insert_rowid())

    def session(self, session_id: int) -> Session:
        """The session with this id.

        Raises:
            StorageError: there is no such session.
        """
        row = self._conn().execute(f"{_SESSION_SELECT} WHERE s.id = ?", (session_id,)).fetchone()
        if row is None:
            raise StorageError(
                f"There is no session {session_id}. List them with `hippo sessions`."
            )
        return _session(row)

    def sessions(self, profile_id: int, limit: int = 50) -> list[Session]:
        """The profile's most recently active sessions, newest first."""
        rows = self._conn().execute(
            f"{_SESSION_SELECT} WHERE s.profile_id = ? ORDER BY s.last_active_at DESC, s.id DESC"
            " LIMIT ?",
            (profile_id, limit),
        )
        return [_session(row) for row in rows]

    def last_session(self, profile_id: int) -> Session | None:
        """The profile's most recently active session that has messages, if any."""
        row = (
            self._conn()
            .execute(
                f"{_SESSION_SELECT} WHERE s.profile_id = ? AND s.incognito = 0"
                " AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)"
                " ORDER BY s.last_active_at DESC, s.id DESC LIMIT 1",
                (profile_id,),
            )
            .fetchone()
        )
        return _session(row) if row else None

    # -- messages ---------------------------------------------------------------

    def add_message(
        self,
        session_id: int,
        role: Role,
        content: str,
        *,
        status: MessageStatus = "complete",
        model: str = "",
        importance: float = 5.0,
    ) -> Message:
        """Store a message (and index it, once complete) in one transaction."""
        now = to_iso(self._clock.now())
        conn = self._conn()
        with conn:
            conn.execute(
                "INSERT INTO messages(profile_id, session_id, role, content, status, model,"
                " created_at, tokens, importance)"
                " SELECT profile_id, id, ?, ?, ?, ?, ?, ?, ? FROM sessions WHERE id = ?",
                (
                    role,
                    content,
                    status,
                    model,
                    now,
                    estimate_tokens(content),
                    importance,
                    session_id,
                ),
            )
            if conn.changes() == 0:
                raise StorageError(f"There is no session {session_id} to add a message to.")
            message_id = conn.last_insert_rowid()
            conn.execute(
                "UPDATE sessions SET last_active_at = ?,"
                " title = CASE WHEN title = '' AND ? = 'user' THEN ? ELSE title END WHERE id = ?",
                (now, role, _title(content), session_id),
            )
            if status != "streaming":
                self._index(conn, message_id, content)
        return self.message(message_id)

    def update_message(
        self,
        message_id: int,
        *,
        content: str,
        thinking: str = "",
        status: MessageStatus = "complete",
        error: str = "",
    ) -> Message:
        """Rewrite a (streaming) message; index it once it is no longer streaming."""
        conn = self._conn()
        with conn:
            conn.execute(
                "UPDATE messages SET content = ?, thinking = ?, status = ?, error = ?, tokens = ?"
                " WHERE id = ?",
                (content, thinking, status, error, estimate_tokens(content), message_id),
            )
            if status != "streaming":
                self._index(conn, message_id, content)
        return self.message(message_id)

    def _index(self, conn: apsw.Connection, message_id: int, content: str) -> None:
        conn.execute("DELETE FROM messages_fts WHERE rowid = ?", (message_id,))
        conn.execute("DELETE FROM embedding_queue WHERE message_id = ?", (message_id,))
        if content.strip():
            conn.execute(
                "INSERT INTO messages_fts(rowid, body) VALUES (?, ?)",
                (message_id, index_text(content)),
            )
            conn.execute("INSERT INTO embedding_queue(message_id) VALUES (?)", (message_id,))

    def message(self, message_id: int) -> Message:
        """The message with this id."""
        row = (
            self._conn()
            .execute(f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,))
            .fetchone()
        )
        if row is None:
            raise StorageError(f"There is no message {message_id}.")
        return _message(row)

    def messages_by_id(self, ids: list[int]) -> dict[int, Message]:
        """The messages with these ids, keyed by id (missing ids are left out)."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._conn().execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id IN ({marks})", ids
        )
        return {row[0]: _message(row) for row in rows}

    def recent_messages(self, session_id: int, limit: int = 200) -> list[Message]:
        """The session's last ``limit`` messages, oldest first."""
        rows = (
            self._conn()
            .execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session_id = ?"
                " ORDER BY id DESC LIMIT ?",
                (session_id, limit),
            )
            .fetchall()
        )
        return [_message(row) for row in reversed(rows)]

    def mark_interrupted(self) -> int:
        """Close replies left streaming by a process that died; return how many."""
        conn = self._conn()
        rows = conn.execute(
            "SELECT id, content, thinking FROM messages WHERE status = 'streaming'"
        ).fetchall()
        for message_id, content, thinking in rows:
            self.update_message(
                message_id, content=content, thinking=thinking, status="failed", error=INTERRUPTED
            )
        return len(rows)

    def keyword_search(self, profile_id: int, query: str, limit: int) -> list[tuple[int, float]]:
        """Message ids matching ``query`` by BM25, best first, with their (positive) scores."""
        expression = fts_query(query)
        if expression is None:
            return []
        rows = self._conn().execute(
            "SELECT m.id, -bm25(messages_fts) FROM messages_fts JOIN messages m"
            " ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? AND m.profile_id = ?"
            " ORDER BY bm25(messages_fts) LIMIT ?",
            (expression, profile_id, limit),
        )
        return [(row[0], row[1]) for row in rows]


def _title(content: str) -> str:
    line = " ".join(content.split())
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1] + "…"
