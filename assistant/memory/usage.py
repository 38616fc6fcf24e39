"""Which memories went into which reply: provenance for the UI, and a guard for sleep.

Sleep's extraction skips what was recalled into a prompt, so a memory is never
re-learned from its own echo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import apsw

from assistant.memory.vectors import TEXT_SOURCES
from data_schema.rows import all_rows, scalar

if TYPE_CHECKING:
    from assistant.memory.retrieval import MemoryItem

__all__ = ["MemoryUse", "UsageStore", "memory_uses"]


@dataclass(frozen=True, slots=True)
class MemoryUse:
    """One memory used for one reply, with the scores it had then."""

    message_id: int
    kind: str
    item_id: int
    section: str
    rank: int
    score: float = 0.0
    relevance: float = 0.0
    recency: float = 0.0
    importance: float = 0.0


class UsageStore:
    """Reads and writes ``reply_memories``."""

    def __init__(self, conn: Callable[[], apsw.Connection]) -> None:
        self._conn = conn

    def record(self, uses: Sequence[MemoryUse]) -> None:
        """Store the memories used for a reply (replacing an earlier record of the same)."""
        conn = self._conn()
        with conn:
            conn.executemany(
                "INSERT OR REPLACE INTO reply_memories(message_id, kind, item_id, section, rank,"
                " score, relevance, recency, importance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        u.message_id,
                        u.kind,
                        u.item_id,
                        u.section,
                        u.rank,
                        u.score,
                        u.relevance,
                        u.recency,
                        u.importance,
                    )
                    for u in uses
                ],
            )

    def for_reply(self, message_id: int) -> list[MemoryUse]:
        """The memories used for a reply, in the order they were given to the model."""
        rows = self._conn().execute(
            "SELECT message_id, kind, item_id, section, rank, score, relevance, recency,"
            " importance FROM reply_memories WHERE message_id = ? ORDER BY rank",
            (message_id,),
        )
        return [MemoryUse(*row) for row in rows]

    def times_used(self, kind: str, item_id: int) -> int:
        """How many replies had this item in their prompt."""
        return int(
            scalar(
                self._conn(),
                "SELECT count(*) FROM reply_memories WHERE kind = ? AND item_id = ?",
                (kind, item_id),
            )
        )

    # -- for sleep's consolidation ------------------------------------------------------

    def recalled_texts(self, reply_ids: Sequence[int]) -> dict[int, list[str]]:
        """For each reply, the texts of the memories that were put into its prompt."""
        if not reply_ids:
            return {}
        uses = all_rows(
            self._conn(),
            "SELECT message_id, kind, item_id FROM reply_memories"
            f" WHERE message_id IN ({','.join('?' * len(reply_ids))})",
            list(reply_ids),
        )
        out: dict[int, list[str]] = {}
        for reply_id, kind, item_id in uses:
            if kind not in TEXT_SOURCES:
                continue
            table, column = TEXT_SOURCES[kind]
            row = (
                self._conn()
                .execute(f"SELECT {column} FROM {table} WHERE id = ?", (item_id,))
                .fetchone()
            )
            if row:
                out.setdefault(reply_id, []).append(row[0])
        return out

    def uses_since(
        self, profile_id: int, after_reply: int
    ) -> tuple[dict[tuple[str, int], int], int]:
        """How often each item went into a prompt after reply ``after_reply``; the last reply."""
        rows = all_rows(
            self._conn(),
            "SELECT r.kind, r.item_id, count(*), max(r.message_id) FROM reply_memories r"
            " JOIN messages m ON m.id = r.message_id"
            " WHERE m.profile_id = ? AND r.message_id > ? GROUP BY r.kind, r.item_id",
            (profile_id, after_reply),
        )
        last = max((row[3] for row in rows), default=after_reply)
        return {(row[0], row[1]): row[2] for row in rows}, last


def memory_uses(reply_id: int, used: Sequence[tuple[str, MemoryItem]]) -> list[MemoryUse]:
    """The rows that record which memories went into a reply, in prompt order."""
    return [
        MemoryUse(
            reply_id,
            m.kind,
            m.item_id,
            section,
            rank,
            m.score,
            m.relevance,
            m.recency,
            m.importance,
        )
        for rank, (section, m) in enumerate(used)
    ]
