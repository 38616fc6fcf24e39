"""Profiles, sessions and messages: the recall archive's SQL, and nothing else's."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import apsw

from assistant.clock import Clock, from_iso, to_iso
from assistant.errors import NotFound
from assistant.memory.base import Store
from assistant.memory.bursts import shape
from assistant.memory.common_terms import COMMON_MIN, COMMON_SHARE, CommonTerms
from assistant.memory.long_text import HEAD_CHARS, LONG_TOKENS
from assistant.memory.profiles import ProfileStore
from assistant.memory.records import Message, MessageStatus, Profile, Role, Session
from assistant.memory.textindex import fts_query, index_text
from assistant.memory.vectors import enqueue
from assistant.tokens import estimate_tokens
from data_schema.rows import all_rows, scalar

__all__ = ["Candidate", "MessageStore", "default_title", "message_index_columns"]

_MESSAGE_COLUMNS = (
    "id, session_id, role, content, created_at, status, thinking, error, model, tokens,"
    " importance, speaker, source_id, origin"
)
# A message's text, or a line in its place where it is over ``?`` tokens and not the
# session's (``?``) newest of the user's (see ``recent_messages``).
_UNSENT = (
    "CASE WHEN tokens > ? AND id < (SELECT max(x.id) FROM messages x"
    " WHERE x.session_id = ? AND x.role = 'user')"
    " THEN '[a long message of ' || tokens || ' tokens, not read here]' ELSE content END"
)
# The same columns with an empty text in the content's place.
_NO_CONTENT = _MESSAGE_COLUMNS.replace("content", "''", 1)
# The same columns of a message aliased ``m``, and how many there are.
_M_COLUMNS = ", ".join(f"m.{c.strip()}" for c in _MESSAGE_COLUMNS.split(","))
_WIDTH = _M_COLUMNS.count(",") + 1
_TITLE_CHARS = 60
INTERRUPTED = "Hippo closed before this reply finished."
# A message's text where it is read as one text: a long one's head (see long_text; its
# whole text is searched through its chunks). ``unread``: what stands for a long one's
# text where even its head would cost too much (reading any of it reads all of it).
_READ = (
    f"CASE WHEN {{t}}.tokens > {LONG_TOKENS} THEN substr({{t}}.content, 1, {HEAD_CHARS})"
    " ELSE {t}.content END"
)
_UNREAD = f"CASE WHEN {{t}}.tokens > {LONG_TOKENS} THEN '' ELSE {{t}}.content END"
# The finished message just before (<, DESC) or after (>, ASC) one, in its session.
_NEIGHBOUR = (
    f"SELECT n.id, {_READ.format(t='n')} FROM messages n JOIN messages m ON m.id = ?"
    " WHERE n.session_id = m.session_id AND n.id {op} m.id AND n.status != 'streaming'"
    " ORDER BY n.id {order} LIMIT 1"
)
# BM25 weights of the index's columns: the message itself, then its neighbours.
_RANK = "bm25(1.0, 0.3)"
# How many hits a keyword search reads at most while skipping other profiles' hits.
_MAX_FETCH = 10_000


class Candidate(NamedTuple):
    """A message as recall considers it: with its session's scope and its neighbours.

    ``neighbours``: (id, content) of the finished messages just before and after it
    in its session.
    """

    message: Message
    scope: str
    neighbours: tuple[tuple[int, str], ...]


# The finished message just before (max, <) or after (min, >) ``m`` in its session.
_ADJACENT = (
    "(SELECT {fn}(x.id) FROM messages x WHERE x.session_id = m.session_id"
    " AND x.id {op} m.id AND x.status != 'streaming')"
)


def message_index_columns(
    content: str, speaker: str, created_at: str, neighbours: Sequence[str]
) -> tuple[str, str]:
    """A message's two keyword-index columns: itself, and the turns around it.

    The body is the text with its speaker and its date ("8 May 2023"), so a question
    that names a month or a year finds what was said then.
    """
    said = from_iso(created_at)
    body = f"{said.day} {said:%B %Y} " + (f"{speaker}: {content}" if speaker else content)
    return index_text(body), index_text("\n".join(neighbours))


def _message(row: tuple[Any, ...]) -> Message:
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
        speaker=row[11],
        source_id=row[12],
        origin=row[13],
    )


def _session(row: tuple[Any, ...]) -> Session:
    return Session(
        id=row[0],
        profile_id=row[1],
        title=row[2],
        started_at=from_iso(row[3]),
        last_active_at=from_iso(row[4]),
        incognito=bool(row[5]),
        message_count=row[6],
        scope=row[7],
    )


_SESSION_SELECT = (
    "SELECT s.id, s.profile_id, s.title, s.started_at, s.last_active_at, s.incognito,"
    " (SELECT count(*) FROM messages m WHERE m.session_id = s.id), s.scope FROM sessions s"
)


class MessageStore(Store):
    """Reads and writes sessions and messages of one data file.

    Built with ``(conn, clock)``: see `Store`. ``common_share`` and ``common_min``: a
    query term in more than this share of messages (and at least ``common_min`` of
    them) is too common to search by, where the query has rarer terms.
    """

    def __init__(
        self,
        conn: Callable[[], apsw.Connection],
        clock: Clock,
        *,
        common_share: float = COMMON_SHARE,
        common_min: int = COMMON_MIN,
    ) -> None:
        super().__init__(conn, clock)
        self._profiles = ProfileStore(conn, clock)
        self._common = CommonTerms("messages_fts", "messages", common_share, common_min)

    # -- profiles ---------------------------------------------------------------

    def sources(self, profile_id: int, prefix: str) -> list[tuple[str, int, datetime]]:
        """Each message source that starts with ``prefix``: how many messages, the newest."""
        rows = self._conn().execute(
            "SELECT source_id, count(*), max(created_at) FROM messages"
            " WHERE profile_id = ? AND substr(source_id, 1, ?) = ? GROUP BY source_id",
            (profile_id, len(prefix), prefix),
        )
        return [(source, count, from_iso(last)) for source, count, last in rows]

    def profile(self, name: str) -> Profile:
        """The profile called ``name``, created if it does not exist yet (by its owner,
        `ProfileStore`: the sessions hang on it)."""
        return self._profiles.ensure(name)

    def profiles(self) -> list[Profile]:
        """Every profile, by name."""
        return sorted(self._profiles.all(), key=lambda profile: profile.name)

    # -- sessions ---------------------------------------------------------------

    def create_session(
        self,
        profile_id: int,
        *,
        incognito: bool = False,
        scope: str = "",
        started_at: datetime | None = None,
    ) -> Session:
        """Start a new, empty session (``started_at`` for imported conversations)."""
        now = to_iso(started_at or self._clock.now())
        conn = self._conn()
        conn.execute(
            "INSERT INTO sessions(profile_id, incognito, scope, started_at, last_active_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (profile_id, int(incognito), scope, now, now),
        )
        return self.session(conn.last_insert_rowid())

    def session(self, session_id: int) -> Session:
        """The session with this id.

        Raises:
            NotFound: there is no such session.
        """
        row = self._conn().execute(f"{_SESSION_SELECT} WHERE s.id = ?", (session_id,)).fetchone()
        if row is None:
            raise NotFound(
                f"There is no session {session_id}. List them with `hippo session list`."
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

    def incognito_sessions(self, profile_id: int) -> list[int]:
        """Ids of the profile's incognito sessions (left behind, unless one is open)."""
        rows = self._conn().execute(
            "SELECT id FROM sessions WHERE profile_id = ? AND incognito = 1", (profile_id,)
        )
        return [row[0] for row in rows]

    def message_times(self, profile_id: int, since: datetime) -> list[tuple[int, datetime]]:
        """(session id, time) of each of the profile's messages since ``since``."""
        rows = self._conn().execute(
            "SELECT session_id, created_at FROM messages WHERE profile_id = ? AND created_at >= ?",
            (profile_id, to_iso(since)),
        )
        return [(sid, from_iso(at)) for sid, at in rows]

    def last_session(self, profile_id: int) -> Session | None:
        """The profile's most recently active chat, if any: a session with a message said in
        it (not one that only keeps words stated from outside, as `hippo fact add` makes)."""
        row = (
            self._conn()
            .execute(
                f"{_SESSION_SELECT} WHERE s.profile_id = ? AND s.incognito = 0"
                " AND EXISTS (SELECT 1 FROM messages m"
                "             WHERE m.session_id = s.id AND m.source_id = '')"
                " ORDER BY s.last_active_at DESC, s.id DESC LIMIT 1",
                (profile_id,),
            )
            .fetchone()
        )
        return _session(row) if row else None

    def end_session(self, session_id: int) -> None:
        """Mark a session over (its app closed, or another was opened): sleep may take it.

        Its end is now, or its last activity if that is later (a clock set back).
        """
        self._conn().execute(
            "UPDATE sessions SET ended_at = max(?, last_active_at) WHERE id = ?",
            (to_iso(self._clock.now()), session_id),
        )

    def rename_session(self, session_id: int, title: str) -> Session:
        """Give a session a title (the user's words; the first message's are the default).

        Raises:
            NotFound: there is no such session.
        """
        self._conn().execute(
            "UPDATE sessions SET title = ? WHERE id = ?", (" ".join(title.split()), session_id)
        )
        return self.session(session_id)

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
        created_at: datetime | None = None,
        speaker: str = "",
        source_id: str = "",
        origin: str = "typed",
    ) -> Message:
        """Store a message (and index it, once complete) in one transaction.

        ``created_at``, ``speaker`` and ``source_id`` serve imported conversations: when
        it was said, by whom, and its id in the source. ``origin`` says whether the user
        typed the message or pasted it (quoted text from elsewhere).
        """
        now = to_iso(created_at or self._clock.now())
        conn = self._conn()
        with conn:
            conn.execute(
                "INSERT INTO messages(profile_id, session_id, role, content, status, model,"
                " created_at, tokens, importance, speaker, source_id, origin)"
                " SELECT profile_id, id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM sessions WHERE id = ?",
                (
                    role,
                    content,
                    status,
                    model,
                    now,
                    estimate_tokens(content),
                    importance,
                    speaker,
                    source_id,
                    origin,
                    session_id,
                ),
            )
            if conn.changes() == 0:
                raise NotFound(f"There is no session {session_id} to add a message to.")
            message_id = conn.last_insert_rowid()
            conn.execute(
                "UPDATE sessions SET last_active_at = max(last_active_at, ?),"
                " title = CASE WHEN title = '' AND ? = 'user' THEN ? ELSE title END WHERE id = ?",
                (now, role, default_title(content), session_id),
            )
            if status != "streaming":
                self._index(conn, message_id)
        return self._written(message_id, content)

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
        """Rewrite a (streaming) message; index it once it is no longer streaming."""
        conn = self._conn()
        with conn:
            conn.execute(
                "UPDATE messages SET content = ?, thinking = ?, status = ?, error = ?, tokens = ?,"
                " importance = coalesce(?, importance) WHERE id = ?",
                (
                    content,
                    thinking,
                    status,
                    error,
                    estimate_tokens(content),
                    importance,
                    message_id,
                ),
            )
            if status != "streaming":
                self._index(conn, message_id)
        return self.message(message_id)

    def _index(self, conn: apsw.Connection, message_id: int) -> None:
        """Index a finished message, and refresh its predecessor's neighbour context."""
        profile_id = scalar(conn, "SELECT profile_id FROM messages WHERE id = ?", (message_id,))
        self._reindex(conn, message_id)
        enqueue(conn, "message", message_id, profile_id)
        previous = conn.execute(_NEIGHBOUR.format(op="<", order="DESC"), (message_id,)).fetchone()
        if previous is not None:
            self._reindex(conn, previous[0])

    def _reindex(self, conn: apsw.Connection, message_id: int) -> None:
        # A reply's content words often sit in the turn before it, so each message is
        # indexed with its neighbours' text in a second, down-weighted column.
        conn.execute("DELETE FROM messages_fts WHERE rowid = ?", (message_id,))
        row = conn.execute(
            f"SELECT {_READ.format(t='m')}, speaker, created_at FROM messages m"
            " WHERE id = ? AND status != 'streaming'",
            (message_id,),
        ).fetchone()
        if row is None or not row[0].strip():
            return
        content, speaker, created_at = row
        neighbours = [
            found[1]
            for op, order in (("<", "DESC"), (">", "ASC"))
            if (
                found := conn.execute(
                    _NEIGHBOUR.format(op=op, order=order), (message_id,)
                ).fetchone()
            )
        ]
        conn.execute(
            "INSERT INTO messages_fts(rowid, body, context) VALUES (?, ?, ?)",
            (message_id, *message_index_columns(content, speaker, created_at, neighbours)),
        )

    def _written(self, message_id: int, content: str) -> Message:
        """The message just written, its text as given: not read back (it may be 50 MB)."""
        conn = self._conn()
        row = conn.execute(f"SELECT {_NO_CONTENT} FROM messages WHERE id = ?", (message_id,))
        found = row.fetchone()
        if found is None:  # deleted since, by another connection
            raise NotFound(f"There is no message {message_id}.")
        return dataclasses.replace(_message(found), content=content)

    def message(self, message_id: int) -> Message:
        """The message with this id."""
        row = (
            self._conn()
            .execute(f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,))
            .fetchone()
        )
        if row is None:
            raise NotFound(f"There is no message {message_id}.")
        return _message(row)

    def messages_by_id(
        self, ids: Sequence[int], profile_id: int | None = None
    ) -> dict[int, Message]:
        """The messages with these ids (of one profile, if given), keyed by id."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        # ``+profile_id``: look the ids up by key, never scan the profile's time index.
        where = f"id IN ({marks})" + (" AND +profile_id = ?" if profile_id is not None else "")
        params = [*ids, profile_id] if profile_id is not None else list(ids)
        rows = self._conn().execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE {where}", params
        )
        return {row[0]: _message(row) for row in rows}

    def recent_messages(
        self, session_id: int, limit: int = 200, *, longest: int | None = None
    ) -> list[Message]:
        """The session's last ``limit`` messages, oldest first.

        ``longest``: a message of more tokens than this, but for the session's newest
        of the user's, comes without its text (a line says what it was): none of it is
        read, as reading any of a 50 MB text reads all of it.
        """
        columns, params = _MESSAGE_COLUMNS, [session_id, limit]
        if longest is not None:
            columns = _MESSAGE_COLUMNS.replace("content", _UNSENT, 1)
            params = [longest, session_id, *params]
        rows = (
            self._conn()
            .execute(
                f"SELECT {columns} FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?",
                params,
            )
            .fetchall()
        )
        return [_message(row) for row in reversed(rows)]

    def set_summary(self, session_id: int, summary: str, upto: int) -> None:
        """Store a session's running summary and the last message id folded into it."""
        self._conn().execute(
            "UPDATE sessions SET summary = ?, summary_upto = ? WHERE id = ?",
            (summary, upto, session_id),
        )

    def summary(self, session_id: int) -> tuple[str, int]:
        """A session's running summary and the last message id folded into it."""
        row = (
            self._conn()
            .execute("SELECT summary, summary_upto FROM sessions WHERE id = ?", (session_id,))
            .fetchone()
        )
        return (row[0], row[1]) if row else ("", 0)

    def discard_empty_reply(self, message_id: int) -> bool:
        """Delete a reply that failed or was cancelled before any text came; say if it was.

        Nothing of it is worth keeping: the user's message stays, and the error was shown.
        """
        conn = self._conn()
        conn.execute(
            "DELETE FROM messages WHERE id = ? AND role = 'assistant' AND content = ''"
            " AND thinking = '' AND status IN ('failed', 'cancelled')",
            (message_id,),
        )
        return conn.changes() > 0

    def mark_interrupted(self) -> int:
        """Close replies left streaming by a process that died; return how many."""
        conn = self._conn()
        rows = all_rows(
            conn, "SELECT id, content, thinking FROM messages WHERE status = 'streaming'"
        )
        for message_id, content, thinking in rows:
            self.update_message(
                message_id, content=content, thinking=thinking, status="failed", error=INTERRUPTED
            )
        return len(rows)

    def recall_candidates(self, ids: Sequence[int], profile_id: int) -> dict[int, Candidate]:
        """The profile's messages among ``ids`` outside incognito sessions, for recall.

        One statement reads each message, its session's scope and its neighbours'
        text (recall reads a hundred candidates a query; a statement each cost more).
        A long message is no candidate, and its text no neighbour's context: none of
        it is read (its chunks are recalled instead, see ``long_text``).
        """
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._conn().execute(
            f"SELECT {_M_COLUMNS}, s.scope, p.id, {_UNREAD.format(t='p')},"
            f" n.id, {_UNREAD.format(t='n')}"
            " FROM messages m JOIN sessions s ON s.id = m.session_id"
            f" LEFT JOIN messages p ON p.id = {_ADJACENT.format(fn='max', op='<')}"
            f" LEFT JOIN messages n ON n.id = {_ADJACENT.format(fn='min', op='>')}"
            f" WHERE m.id IN ({marks}) AND +m.profile_id = ? AND s.incognito = 0"
            " AND m.tokens <= ?",
            [*ids, profile_id, LONG_TOKENS],
        )
        found = {}
        for row in rows:
            pairs = (row[_WIDTH + 1 : _WIDTH + 3], row[_WIDTH + 3 : _WIDTH + 5])
            neighbours = tuple((pair[0], pair[1]) for pair in pairs if pair[0] is not None)
            found[row[0]] = Candidate(_message(row), row[_WIDTH], neighbours)
        return found

    def previous_sessions(self, session_ids: Sequence[int], profile_id: int) -> dict[int, int]:
        """The session each of these follows: the one of the profile's last message before it.

        By the messages' time, not the sessions' ids (an imported session may be older than
        its id); a session with nothing before it is left out.
        """
        if not session_ids:
            return {}
        marks = ",".join("?" * len(session_ids))
        rows = self._conn().execute(
            "SELECT s.id, (SELECT x.session_id FROM messages x WHERE x.profile_id = ?"
            " AND x.created_at < (SELECT f.created_at FROM messages f"
            " WHERE f.session_id = s.id ORDER BY f.id LIMIT 1)"
            " ORDER BY x.created_at DESC LIMIT 1)"
            f" FROM sessions s WHERE s.id IN ({marks}) AND s.profile_id = ?",
            [profile_id, *session_ids, profile_id],
        )
        return {sid: before for sid, before in rows if before is not None}

    def keyword_search(
        self,
        profile_id: int,
        query: str,
        limit: int,
        *,
        own_text: bool = False,
        collapse: bool = False,
    ) -> list[tuple[int, float]]:
        """Message ids matching ``query`` by BM25, best first, with their (positive) scores.

        ``own_text``: only messages whose own words match; by default a match in the
        turns around a message counts too, down-weighted (it helps recall find the reply
        to a question, but a search shows each hit for its own words). ``collapse``:
        the copies of one text in one session (a burst, see `bursts.shape`) count once,
        and the search widens past them, so they can't crowd out the rest.

        FTS5 ranks alone (``ORDER BY rank LIMIT``, its top-n path, no join); the
        profile is filtered after, and the search widens while other profiles' hits
        crowd out this one's.
        """
        conn = self._conn()
        expression = fts_query(query, keep=lambda term: not self._common.common(conn, term))
        if expression is None:
            return []
        if own_text:
            expression = f"body : ({expression})"
        fetch = 2 * limit
        while True:
            hits = all_rows(
                conn,
                "SELECT rowid, -rank FROM messages_fts"
                f" WHERE messages_fts MATCH ? AND rank MATCH '{_RANK}' ORDER BY rank LIMIT ?",
                (expression, fetch),
            )
            marks = ",".join("?" * len(hits))
            mine = {
                row[0]: (row[1], shape(row[2]) if collapse else row[0])
                for row in conn.execute(
                    f"SELECT id, session_id, {'content' if collapse else 'id'} FROM messages"
                    f" WHERE id IN ({marks}) AND +profile_id = ?",
                    [*(h[0] for h in hits), profile_id],
                )
            }
            seen: set[tuple[int, object]] = set()
            found = []
            for rowid, score in hits:
                if rowid in mine and mine[rowid] not in seen:
                    seen.add(mine[rowid])  # a burst's copies in one session count once
                    found.append((rowid, score))
            if len(found) >= limit or len(hits) < fetch or fetch >= _MAX_FETCH:
                return found[:limit]
            fetch *= 4

    # -- for sleep's consolidation ------------------------------------------------------

    def close_idle_sessions(self, profile_id: int, cutoff: datetime) -> int:
        """End the profile's sessions idle since ``cutoff`` (their end is their last activity)."""
        conn = self._conn()
        conn.execute(
            "UPDATE sessions SET ended_at = last_active_at WHERE profile_id = ? AND"
            " last_active_at <= ? AND (ended_at IS NULL OR ended_at < last_active_at)",
            (profile_id, to_iso(cutoff)),
        )
        return conn.changes()

    def said_ids(self, session_id: int, after: int, upto: int) -> list[int]:
        """A session's complete, non-empty messages in (after, upto], in order, leaving out
        those that are injected recall (they repeat memory, they do not add to it)."""
        rows = self._conn().execute(
            "SELECT id FROM messages WHERE session_id = ? AND id > ? AND id <= ?"
            " AND status IN ('complete', 'cut') AND recalled = 0 AND content != '' ORDER BY id",
            (session_id, after, upto),
        )
        return [row[0] for row in rows]


def default_title(content: str) -> str:
    """The title a session takes from its first message of the user's, ``content``."""
    # The start is enough, unless it is mostly blank: splitting a 50 MB paste took seconds.
    line = " ".join(content[: _TITLE_CHARS * 64].split())
    if len(line) <= _TITLE_CHARS and len(content) > _TITLE_CHARS * 64:
        line = " ".join(content.split())
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1] + "…"
