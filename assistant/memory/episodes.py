"""Episodes, the mid-term memory: a summary of a session (or of one topic in it).

The sleep job writes them by summarising sessions; anything else (an import, a
test) may write them directly through ``EpisodeStore.add``, which is the whole
contract: an episode cites only its own profile's messages, and is keyword-indexed
(title, summary, topics) and queued for a vector in the transaction that adds it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import from_iso, to_iso
from assistant.errors import InvalidInput, NotFound
from assistant.memory.base import Store
from assistant.memory.textindex import fts_query, index_text
from assistant.memory.vectors import enqueue
from data_schema.rows import scalar

__all__ = ["Episode", "EpisodeStore"]

_SELECT = (
    "SELECT e.id, e.profile_id, e.session_id, e.title, e.summary, e.topics, e.scope,"
    " e.importance, e.started_at, e.ended_at, e.created_at,"
    " (SELECT group_concat(m.message_id) FROM episode_messages m WHERE m.episode_id = e.id)"
    " FROM episodes e"
)


@dataclass(frozen=True, slots=True)
class Episode:
    """What happened over a span of time, summarised, with the messages it came from."""

    id: int
    profile_id: int
    session_id: int | None
    title: str
    summary: str
    topics: tuple[str, ...]
    scope: str
    importance: float
    started_at: datetime
    ended_at: datetime
    created_at: datetime
    message_ids: tuple[int, ...] = ()


def _episode(row: tuple[Any, ...]) -> Episode:
    ids = tuple(sorted(int(i) for i in row[11].split(","))) if row[11] else ()
    # The leading columns, typed: mypy cannot check a spread of a variable-length row.
    head: tuple[int, int, int | None, str, str] = row[:5]
    return Episode(
        *head,
        tuple(json.loads(row[5])),
        row[6],
        row[7],
        from_iso(row[8]),
        from_iso(row[9]),
        from_iso(row[10]),
        ids,
    )


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


class EpisodeStore(Store):
    """Reads and writes episodes.

    Built with ``(conn, clock)``: see `Store`.
    """

    def add(
        self,
        profile_id: int,
        *,
        summary: str,
        started_at: datetime,
        ended_at: datetime,
        session_id: int | None = None,
        title: str = "",
        topics: Iterable[str] = (),
        importance: float = 5,
        scope: str = "",
        message_ids: Iterable[int] = (),
    ) -> Episode:
        """Store an episode, index it and queue it for a vector, in one transaction.

        Raises:
            HippoError: the summary is empty, the span runs backwards, or the
                importance is outside 1-10.
            NotFound: the session or a message is not the profile's (or does not exist).
        """
        topic_list = (topics,) if isinstance(topics, str) else tuple(topics)
        cited = tuple(dict.fromkeys(message_ids))
        _check(summary, started_at, ended_at, importance)
        conn = self._conn()
        with conn:
            self._check_owner(conn, profile_id, session_id, cited)
            conn.execute(
                "INSERT INTO episodes(profile_id, session_id, title, summary, topics, scope,"
                " importance, started_at, ended_at, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    profile_id,
                    session_id,
                    title.strip(),
                    summary.strip(),
                    json.dumps(list(topic_list), ensure_ascii=False),
                    scope,
                    importance,
                    to_iso(started_at),
                    to_iso(ended_at),
                    to_iso(self._clock.now()),
                ),
            )
            episode_id = conn.last_insert_rowid()
            conn.executemany(
                "INSERT INTO episode_messages(episode_id, message_id) VALUES (?, ?)",
                [(episode_id, mid) for mid in cited],
            )
            body = index_text("\n".join((title, summary, " ".join(topic_list))))
            conn.execute("INSERT INTO episodes_fts(rowid, body) VALUES (?, ?)", (episode_id, body))
            enqueue(conn, "episode", episode_id, profile_id)
        return self.get(episode_id)

    def _check_owner(
        self,
        conn: apsw.Connection,
        profile_id: int,
        session_id: int | None,
        message_ids: Sequence[int],
    ) -> None:
        if session_id is not None:
            row = conn.execute(
                "SELECT 1 FROM sessions WHERE id = ? AND profile_id = ?", (session_id, profile_id)
            ).fetchone()
            if row is None:
                raise NotFound(f"Session {session_id} is not in profile {profile_id}.")
        if not message_ids:
            return
        owned = {
            row[0]
            for row in conn.execute(
                f"SELECT id FROM messages WHERE profile_id = ? AND id IN ({_marks(message_ids)})",
                (profile_id, *message_ids),
            )
        }
        foreign = [mid for mid in message_ids if mid not in owned]
        if foreign:
            raise NotFound(
                f"Messages {', '.join(map(str, foreign))} are not in profile {profile_id}; "
                "an episode can only cite its own profile's messages."
            )

    def get(self, episode_id: int) -> Episode:
        """The episode with this id.

        Raises:
            NotFound: there is no such episode.
        """
        found = self.get_many([episode_id])
        if episode_id not in found:
            raise NotFound(f"There is no episode {episode_id}.")
        return found[episode_id]

    def get_many(self, ids: Sequence[int], profile_id: int | None = None) -> dict[int, Episode]:
        """The episodes with these ids (of one profile, if given), keyed by id."""
        if not ids:
            return {}
        where = f"e.id IN ({_marks(ids)})"
        args = list(ids) if profile_id is None else [*ids, profile_id]
        if profile_id is not None:
            where += " AND e.profile_id = ?"
        return {
            row[0]: _episode(row) for row in self._conn().execute(f"{_SELECT} WHERE {where}", args)
        }

    def recent(
        self, profile_id: int, *, limit: int = 5, scopes: Sequence[str] | None = None
    ) -> list[Episode]:
        """The latest-ending episodes, newest first.

        Args:
            profile_id: whose episodes.
            limit: how many at most.
            scopes: when given, only unscoped episodes and those in these scopes.
        """
        where = "e.profile_id = ?"
        args: list[object] = [profile_id]
        if scopes is not None:
            where += f" AND (e.scope = '' OR e.scope IN ({_marks(scopes)}))"
            args += list(scopes)
        rows = self._conn().execute(
            f"{_SELECT} WHERE {where} ORDER BY e.ended_at DESC, e.id DESC LIMIT ?", [*args, limit]
        )
        return [_episode(row) for row in rows]

    def for_session(self, session_id: int) -> list[Episode]:
        """A session's episodes, in time order."""
        rows = self._conn().execute(
            f"{_SELECT} WHERE e.session_id = ? ORDER BY e.started_at, e.id", (session_id,)
        )
        return [_episode(row) for row in rows]

    def ended_since(self, profile_id: int, since: datetime) -> list[int]:
        """Ids of the episodes that ended since ``since``, newest first."""
        rows = self._conn().execute(
            "SELECT id FROM episodes WHERE profile_id = ? AND ended_at >= ?"
            " ORDER BY ended_at DESC, id DESC",
            (profile_id, to_iso(since)),
        )
        return [row[0] for row in rows]

    def written_since(self, profile_id: int, since: datetime) -> list[datetime]:
        """When each episode written since ``since`` was written."""
        rows = self._conn().execute(
            "SELECT created_at FROM episodes WHERE profile_id = ? AND created_at >= ?",
            (profile_id, to_iso(since)),
        )
        return [from_iso(row[0]) for row in rows]

    def between(self, profile_id: int, start: datetime, end: datetime) -> list[Episode]:
        """Episodes whose span overlaps ``start``..``end``, in time order."""
        rows = self._conn().execute(
            f"{_SELECT} WHERE e.profile_id = ? AND e.started_at <= ? AND e.ended_at >= ?"
            " ORDER BY e.started_at, e.id",
            (profile_id, to_iso(end), to_iso(start)),
        )
        return [_episode(row) for row in rows]

    def keyword_search(self, profile_id: int, query: str, limit: int) -> list[tuple[int, float]]:
        """Episode ids matching ``query`` by BM25, best first, with their (positive) scores."""
        expression = fts_query(query)
        if expression is None:
            return []
        rows = self._conn().execute(
            "SELECT e.id, -bm25(episodes_fts) FROM episodes_fts JOIN episodes e"
            " ON e.id = episodes_fts.rowid WHERE episodes_fts MATCH ? AND e.profile_id = ?"
            " ORDER BY bm25(episodes_fts) LIMIT ?",
            (expression, profile_id, limit),
        )
        return [(row[0], row[1]) for row in rows]

    def remove(self, episode_id: int) -> bool:
        """Delete an episode (its links and index rows go with it); False if already gone."""
        conn = self._conn()
        conn.execute("DELETE FROM episodes WHERE id = ?", (episode_id,))
        return conn.changes() > 0

    # -- for sleep's consolidation ------------------------------------------------------

    def ids_after(self, profile_id: int, after: int) -> list[int]:
        """Ids of the profile's episodes above ``after``, in order (for entity linking)."""
        rows = self._conn().execute(
            "SELECT id FROM episodes WHERE profile_id = ? AND id > ? ORDER BY id",
            (profile_id, after),
        )
        return [row[0] for row in rows]

    def raise_importance(self, episode_id: int, by: float) -> None:
        """Raise an episode's importance by ``by`` (at most 10)."""
        self._conn().execute(
            "UPDATE episodes SET importance = min(10, importance + ?) WHERE id = ?",
            (by, episode_id),
        )

    def importance_since(self, profile_id: int, since: str) -> float:
        """Summed importance of the profile's episodes created after ``since`` (ISO time)."""
        return float(
            scalar(
                self._conn(),
                "SELECT coalesce(sum(importance), 0) FROM episodes WHERE profile_id = ?"
                " AND created_at > ?",
                (profile_id, since),
            )
        )


def _check(summary: str, started_at: datetime, ended_at: datetime, importance: float) -> None:
    if not summary.strip():
        raise InvalidInput("An episode needs a summary; nothing was stored.")
    if ended_at < started_at:
        raise InvalidInput(
            f"An episode can't end ({to_iso(ended_at)}) before it starts ({to_iso(started_at)})."
        )
    if not 1 <= importance <= 10:
        raise InvalidInput(f"An episode's importance must be between 1 and 10, not {importance}.")
