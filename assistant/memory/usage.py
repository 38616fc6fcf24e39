"""Which memories went into which reply: provenance for the UI, and a guard for sleep.

Sleep's extraction skips what was recalled into a prompt, so a memory is never
re-learned from its own echo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import apsw

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

    def was_recalled(self, kind: str, item_id: int) -> bool:
        """Whether this item was ever put into a prompt as memory."""
        row = (
            self._conn()
            .execute(
                "SELECT 1 FROM reply_memories WHERE kind = ? AND item_id = ? LIMIT 1",
                (kind, item_id),
            )
            .fetchone()
        )
        return row is not None


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
