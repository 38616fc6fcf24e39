"""Message vectors: one sqlite-vec table per embedding model, and the queue that fills it."""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import apsw

from assistant.clock import Clock, to_iso

__all__ = ["EmbeddingModel", "PendingText", "VectorStore"]


@dataclass(frozen=True, slots=True)
class EmbeddingModel:
    """An embedding model known to the file, and where its vectors live."""

    id: int
    name: str
    dim: int
    vec_table: str


@dataclass(frozen=True, slots=True)
class PendingText:
    """A message waiting for its vector."""

    message_id: int
    profile_id: int
    text: str
    attempts: int


def _pack(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


class VectorStore:
    """Reads and writes embeddings and the embedding queue.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._clock = clock

    def model(self, name: str) -> EmbeddingModel | None:
        """The stored model called ``name``, if any vector was ever made with it."""
        row = (
            self._conn()
            .execute(
                "SELECT id, name, dim, vec_table FROM embedding_models WHERE name = ?", (name,)
            )
            .fetchone()
        )
        return EmbeddingModel(*row) if row else None

    def ensure_model(self, name: str, dim: int) -> EmbeddingModel:
        """The model's record, with its vector table created on first use."""
        known = self.model(name)
        if known is not None:
            return known
        conn = self._conn()
        with conn:
            conn.execute(
                "INSERT INTO embedding_models(name, dim, vec_table, created_at)"
                " VALUES (?, ?, '', ?)",
                (name, dim, to_iso(self._clock.now())),
            )
            model_id = conn.last_insert_rowid()
            slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:40]
            table = f"vec_messages_{model_id}_{slug}"
            conn.execute(
                f"CREATE VIRTUAL TABLE {table} USING vec0("
                " message_id INTEGER PRIMARY KEY, profile_id INTEGER PARTITION KEY,"
                f" embedding FLOAT[{int(dim)}] distance_metric=cosine)"
            )
            conn.execute(
                "UPDATE embedding_models SET vec_table = ? WHERE id = ?", (table, model_id)
            )
        return EmbeddingModel(model_id, name, dim, table)

    def pending(self, limit: int, now: datetime) -> list[PendingText]:
        """Up to ``limit`` queued messages that may be tried now, newest first."""
        rows = self._conn().execute(
            "SELECT q.message_id, m.profile_id, m.content, q.attempts FROM embedding_queue q"
            " JOIN messages m ON m.id = q.message_id"
            " WHERE q.retry_at IS NULL OR q.retry_at <= ? ORDER BY q.message_id DESC LIMIT ?",
            (to_iso(now), limit),
        )
        return [PendingText(*row) for row in rows]

    def queued(self) -> int:
        """How many messages wait for a vector."""
        return self._conn().execute("SELECT count(*) FROM embedding_queue").fetchone()[0]

    def store(
        self,
        model: EmbeddingModel,
        items: Sequence[PendingText],
        vectors: Sequence[Sequence[float]],
    ) -> None:
        """Write one batch of vectors and take their messages off the queue, atomically."""
        now = to_iso(self._clock.now())
        conn = self._conn()
        with conn:
            for item, vector in zip(items, vectors, strict=True):
                conn.execute(
                    f"DELETE FROM {model.vec_table} WHERE message_id = ?", (item.message_id,)
                )
                conn.execute(
                    f"INSERT INTO {model.vec_table}(message_id, profile_id, embedding)"
                    " VALUES (?, ?, ?)",
                    (item.message_id, item.profile_id, _pack(vector)),
                )
                conn.execute(
                    "INSERT OR REPLACE INTO message_embeddings(message_id, model_id, embedded_at)"
                    " VALUES (?, ?, ?)",
                    (item.message_id, model.id, now),
                )
                conn.execute("DELETE FROM embedding_queue WHERE message_id = ?", (item.message_id,))

    def postpone(self, items: Sequence[PendingText], error: str, retry_at: datetime) -> None:
        """Record a failed attempt; the messages stay queued until ``retry_at``."""
        conn = self._conn()
        with conn:
            conn.executemany(
                "UPDATE embedding_queue SET attempts = attempts + 1, retry_at = ?, last_error = ?"
                " WHERE message_id = ?",
                [(to_iso(retry_at), error, item.message_id) for item in items],
            )

    def requeue_missing(self, model: EmbeddingModel) -> int:
        """Queue every message that has no vector from ``model`` (after a model change)."""
        conn = self._conn()
        with conn:
            conn.execute(
                "INSERT OR IGNORE INTO embedding_queue(message_id)"
                " SELECT m.id FROM messages m WHERE m.status != 'streaming' AND m.content != ''"
                " AND NOT EXISTS (SELECT 1 FROM message_embeddings e"
                "  WHERE e.message_id = m.id AND e.model_id = ?)",
                (model.id,),
            )
            return conn.changes()

    def nearest(
        self, model: EmbeddingModel, profile_id: int, query: Sequence[float], k: int
    ) -> list[tuple[int, float]]:
        """The ``k`` messages closest to ``query``, with cosine similarity, best first."""
        rows = self._conn().execute(
            f"SELECT message_id, distance FROM {model.vec_table}"
            " WHERE embedding MATCH ? AND k = ? AND profile_id = ? ORDER BY distance",
            (_pack(query), k, profile_id),
        )
        return [(row[0], 1.0 - row[1]) for row in rows]
