"""Counts and timestamps for the activity chart and the stats line, per profile."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import apsw

from assistant.clock import from_iso, to_iso

__all__ = ["ActivityQueries"]

# Tables counted by ``counts``: each has a profile_id column.
_COUNTED = (
    "sessions",
    "messages",
    "episodes",
    "facts",
    "documents",
    "chunks",
    "events",
    "entities",
)


class ActivityQueries:
    """Reads for the timeline, the activity chart and ``stats``.

    Args:
        conn: returns the calling thread's connection.
    """

    def __init__(self, conn: Callable[[], apsw.Connection]) -> None:
        self._conn = conn

    def message_times(self, profile_id: int, since: datetime) -> list[tuple[int, datetime]]:
        """(session id, time) of each message since ``since``."""
        rows = self._conn().execute(
            "SELECT session_id, created_at FROM messages WHERE profile_id = ? AND created_at >= ?",
            (profile_id, to_iso(since)),
        )
        return [(sid, from_iso(at)) for sid, at in rows]

    def memory_times(self, profile_id: int, since: datetime) -> list[datetime]:
        """When each fact and episode since ``since`` was learned or written."""
        at = to_iso(since)
        rows = self._conn().execute(
            "SELECT learned_at FROM facts WHERE profile_id = ? AND learned_at >= ?"
            " UNION ALL SELECT created_at FROM episodes WHERE profile_id = ? AND created_at >= ?",
            (profile_id, at, profile_id, at),
        )
        return [from_iso(row[0]) for row in rows]

    def episode_ids_since(self, profile_id: int, since: datetime) -> list[int]:
        """Episodes that ended since ``since``, newest first."""
        rows = self._conn().execute(
            "SELECT id FROM episodes WHERE profile_id = ? AND ended_at >= ?"
            " ORDER BY ended_at DESC, id DESC",
            (profile_id, to_iso(since)),
        )
        return [row[0] for row in rows]

    def event_ids(self, profile_id: int, limit: int) -> list[int]:
        """The latest events (current or expired), newest first."""
        rows = self._conn().execute(
            "SELECT id FROM events WHERE profile_id = ? ORDER BY occurred_at DESC, id DESC LIMIT ?",
            (profile_id, limit),
        )
        return [row[0] for row in rows]

    def counts(self, profile_id: int) -> dict[str, int]:
        """Rows per tier of the profile."""
        conn = self._conn()
        return {
            table: conn.execute(
                f"SELECT count(*) FROM {table} WHERE profile_id = ?", (profile_id,)
            ).fetchone()[0]
            for table in _COUNTED
        }

    def facts_by_status(self, profile_id: int) -> dict[str, int]:
        """How many facts of each status."""
        rows = self._conn().execute(
            "SELECT status, count(*) FROM facts WHERE profile_id = ? GROUP BY status",
            (profile_id,),
        )
        return dict(rows)

    def queued(self, profile_id: int) -> int:
        """The profile's items waiting for a vector."""
        return (
            self._conn()
            .execute("SELECT count(*) FROM embedding_queue WHERE profile_id = ?", (profile_id,))
            .fetchone()[0]
        )

    def last_sleep(self) -> datetime | None:
        """When the last real consolidation finished."""
        row = (
            self._conn()
            .execute(
                "SELECT max(finished_at) FROM sleep_runs WHERE dry_run = 0"
                " AND finished_at IS NOT NULL"
            )
            .fetchone()
        )
        return from_iso(row[0]) if row and row[0] else None
