"""The change log across facts and core blocks, and facts as they stood at a past moment."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import from_iso, to_iso

__all__ = ["HistoryQueries"]


def _load(text: str | None) -> dict[str, Any] | None:
    return json.loads(text) if text else None


class HistoryQueries:
    """Reads ``fact_history`` and ``core_block_history`` for one profile.

    Args:
        conn: returns the calling thread's connection.
    """

    def __init__(self, conn: Callable[[], apsw.Connection]) -> None:
        self._conn = conn

    def fact_changes(self, profile_id: int, limit: int) -> list[tuple]:
        """(id, fact_id, actor, action, before, after, at) newest first, ``limit`` at most.

        Walks the history backwards by id (time order), joining each change to its fact,
        so the newest page costs about ``limit`` lookups however long the history is.
        """
        rows = self._conn().execute(
            "SELECT h.id, h.fact_id, h.actor, h.action, h.before, h.after, h.at"
            " FROM fact_history h JOIN facts f ON f.id = h.fact_id"
            " WHERE f.profile_id = ? ORDER BY h.id DESC LIMIT ?",
            (profile_id, limit),
        )
        return [(*row[:4], _load(row[4]), _load(row[5]), from_iso(row[6])) for row in rows]

    def core_changes(self, profile_id: int, limit: int) -> list[tuple]:
        """(id, label, before, after, actor, at) newest first, ``limit`` at most."""
        rows = self._conn().execute(
            "SELECT id, label, before, after, actor, at FROM core_block_history"
            " WHERE profile_id = ? ORDER BY id DESC LIMIT ?",
            (profile_id, limit),
        )
        return [(*row[:5], from_iso(row[5])) for row in rows]

    def fact_of_change(self, profile_id: int, change_id: int) -> int | None:
        """The fact a change belongs to, if it is this profile's."""
        row = (
            self._conn()
            .execute(
                "SELECT h.fact_id FROM fact_history h JOIN facts f ON f.id = h.fact_id"
                " WHERE h.id = ? AND f.profile_id = ?",
                (change_id, profile_id),
            )
            .fetchone()
        )
        return row[0] if row else None

    def states_at(self, profile_id: int, moment: datetime) -> list[dict[str, Any]]:
        """Each fact learned by ``moment`` as its last change before then left it."""
        at = to_iso(moment)
        rows = self._conn().execute(
            "SELECT h.after FROM facts f JOIN fact_history h ON h.id = ("
            " SELECT max(x.id) FROM fact_history x WHERE x.fact_id = f.id AND x.at <= ?)"
            " WHERE f.profile_id = ? AND f.learned_at <= ?",
            (at, profile_id, at),
        )
        return [state for (text,) in rows if (state := _load(text))]
