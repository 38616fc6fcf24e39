"""Vectors for every kind of memory item: sqlite-vec tables per kind and model, and the queue.

An item (a message, and later episodes, facts, chunks, events) is queued when written
and embedded in batches off the critical path; each embedding model gets its own
vector table per kind, so switching models never mixes dimensions, and new weights
under a model's name drop its vectors for new ones (see `assistant.memory.weights`).
"""

from __future__ import annotations

import threading
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import apsw

from assistant.clock import Clock, to_iso
from assistant.memory import vector_cell_build, vector_cells, vector_chunks, vector_discard
from assistant.memory.base import Store
from assistant.memory.long_text import HEAD_CHARS, LONG_TOKENS
from data_schema.compact import compact
from data_schema.rows import all_rows, scalar

__all__ = [
    "TEXT_SOURCES",
    "EmbeddingModel",
    "PendingText",
    "VectorStore",
    "enqueue",
]

# How long a table's row count is trusted before it is counted again (seconds).
_SIZE_TTL = 60.0

# Where each kind's text lives: table and text column. Kinds are fixed names, never input.
TEXT_SOURCES: dict[str, tuple[str, str]] = {
    "message": ("messages", "content"),
    "episode": ("episodes", "summary"),
    "fact": ("facts", "statement"),
    "chunk": ("chunks", "content"),
    "event": ("events", "text"),
}
# A message is embedded with who said it and the turn it replies to: a reply's meaning
# often lives in the question it answers. The message comes first, so a long previous
# turn can't push it past the model's input limit (MiniLM reads 256 tokens).
# A long message is embedded by its head (its whole text is embedded chunk by chunk, see
# long_text): never as one input of megabytes.
_SAID = (
    f"coalesce(nullif({{t}}.speaker, '') || ': ', '') || CASE WHEN {{t}}.tokens > {LONG_TOKENS}"
    f" THEN substr({{t}}.content, 1, {HEAD_CHARS}) ELSE {{t}}.content END"
)
_EMBED_TEXT = {
    "message": _SAID.format(t="t")
    + " || coalesce(char(10) || '(replying to ' || (SELECT "
    + _SAID.format(t="p")
    + " FROM messages p WHERE p.session_id = t.session_id AND p.id < t.id"
    " AND p.status != 'streaming' ORDER BY p.id DESC LIMIT 1) || ')', '')",
}


@dataclass(frozen=True, slots=True)
class EmbeddingModel:
    """An embedding model known to the file.

    ``digest`` names the weights its vectors were made with (None: not known, a
    record from before digests were kept).
    """

    id: int
    name: str
    dim: int
    digest: str | None = None

    def table(self, kind: str) -> str:
        """The sqlite-vec table holding this model's vectors of ``kind`` items."""
        if kind not in TEXT_SOURCES:
            raise ValueError(f"unknown memory kind {kind!r}")
        return f"vec_{kind}_m{self.id}"


@dataclass(frozen=True, slots=True)
class PendingText:
    """An item waiting for its vector."""

    kind: str
    item_id: int
    profile_id: int
    text: str
    attempts: int


def _pack(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


def enqueue(conn: apsw.Connection, kind: str, item_id: int, profile_id: int) -> None:
    """Queue an item for embedding (inside the caller's transaction)."""
    conn.execute(
        "INSERT OR REPLACE INTO embedding_queue(kind, item_id, profile_id) VALUES (?, ?, ?)",
        (kind, item_id, profile_id),
    )


class VectorStore(Store):
    """Reads and writes embeddings and the embedding queue.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
        cells: how large tables are split into cells and searched: below
            ``cells.min_rows`` vectors a table is searched exactly; from it on, the
            maintenance work gives it cells (see vector_cells), and once every vector
            is in them, nearest() reads only the cells nearest the query.
    """

    def __init__(
        self,
        conn: Callable[[], apsw.Connection],
        clock: Clock,
        cells: vector_cells.CellSizes | None = None,
    ) -> None:
        super().__init__(conn, clock)
        self.cells = cells or vector_cells.CellSizes()
        self._sizes: dict[str, tuple[int, float]] = {}
        # A generation's centroids never change, so its count of cells is kept.
        self._cell_counts: dict[str, int] = {}

    def model(self, name: str) -> EmbeddingModel | None:
        """The stored model called ``name``, if any vector was ever made with it."""
        row = (
            self._conn()
            .execute("SELECT id, name, dim, digest FROM embedding_models WHERE name = ?", (name,))
            .fetchone()
        )
        return EmbeddingModel(*row) if row else None

    def ensure_model(self, name: str, dim: int, digest: str | None = None) -> EmbeddingModel:
        """The model's record, created on first use with the digest of its weights, if known."""
        conn = self._conn()
        conn.execute(
            "INSERT OR IGNORE INTO embedding_models(name, dim, created_at, digest)"
            " VALUES (?, ?, ?, ?)",
            (name, dim, to_iso(self._clock.now()), digest),
        )
        model = self.model(name)
        assert model is not None
        return model

    def adopt_digest(self, model: EmbeddingModel, digest: str) -> None:
        """Take ``digest`` as that of the weights the model's vectors were made with.

        Only for a record whose weights' digest is not known (it may name the document
        prefix alone, see `assistant.memory.weights`): a known one changes by `renew`.
        Nothing changes if the record is no longer what ``model`` says it was.
        """
        self._conn().execute(
            "UPDATE embedding_models SET digest = ? WHERE id = ? AND digest IS ?",
            (digest, model.id, model.digest),
        )

    def renew(self, model: EmbeddingModel) -> int:
        """Drop every vector the model made and queue every item again; return how many.

        For new weights under the model's name: their vectors don't compare with the
        old ones. Its tables and their cells go, and so does its record, which the
        first vector stored makes again with the new weights' size and digest. One
        transaction: a crash leaves the old vectors and digest, to be renewed again.
        """
        # apsw types the `with` exit as able to swallow errors, so the result leaves it.
        with self._conn():
            self.drop(model)
            queued = self.requeue_missing(model.name)
        return queued

    def stored(self) -> list[tuple[EmbeddingModel, int, tuple[str, ...]]]:
        """Each model the file holds vectors of: (model, vectors, the tables holding them).

        The tables are the model's vector tables and the cells of large ones, those that
        exist (for their sizes: see `assistant.memory.profile_data.space`).
        """
        conn = self._conn()
        counts: dict[int, int] = {
            int(model_id): int(n)
            for model_id, n in all_rows(
                conn, "SELECT model_id, count(*) FROM embeddings GROUP BY model_id"
            )
        }
        models = [
            EmbeddingModel(*row)
            for row in conn.execute(
                "SELECT id, name, dim, digest FROM embedding_models ORDER BY id"
            )
        ]
        return [(m, counts.get(m.id, 0), self._tables_of(m)) for m in models]

    def _tables_of(self, model: EmbeddingModel) -> tuple[str, ...]:
        conn = self._conn()
        names = [
            name
            for kind in TEXT_SOURCES
            for key in (model.table(kind), *self._keys(conn, model.table(kind)))
            for name in (key, *vector_cells.index_tables(key))
        ]
        return tuple(dict.fromkeys(name for name in names if self._exists(name)))

    @staticmethod
    def _keys(conn: apsw.Connection, table: str) -> list[str]:
        """The keys of ``table``'s generations of cells (see vector_cells)."""
        return [key for key, _ in vector_cells.generations(conn, table)]

    def drop(self, model: EmbeddingModel) -> int:
        """Delete every vector ``model`` made, its tables and its record; return how many.

        Nothing is queued again (unlike `renew`): for a model no longer used. Were it
        chosen again, its vectors would be made anew. One transaction.
        """
        conn = self._conn()
        # apsw types the `with` exit as able to swallow errors, so the result leaves it.
        with conn:
            count = int(
                scalar(conn, "SELECT count(*) FROM embeddings WHERE model_id = ?", (model.id,))
            )
            for kind in TEXT_SOURCES:
                table = model.table(kind)
                for key in (table, *self._keys(conn, table)):
                    for name in (key, *vector_cells.index_tables(key)):
                        conn.execute(f"DROP TABLE IF EXISTS {name}")
                    conn.execute("DELETE FROM vector_cells WHERE vectors = ?", (key,))
                self._sizes.pop(table, None)
            # Its keys name new cells if the model is used again.
            self._cell_counts.clear()
            conn.execute("DELETE FROM embeddings WHERE model_id = ?", (model.id,))
            conn.execute("DELETE FROM embedding_models WHERE id = ?", (model.id,))
        return int(count)

    def _ensure_table(self, model: EmbeddingModel, kind: str) -> str:
        table = model.table(kind)
        # Small chunks first: a new table's first vector would else take 1.5 MB.
        self._conn().execute(vector_chunks.create_sql(table, model.dim))
        return table

    def pending(self, limit: int, now: datetime) -> list[PendingText]:
        """Up to ``limit`` queued items that may be tried now, newest first."""
        found: list[PendingText] = []
        for kind, (table, column) in TEXT_SOURCES.items():
            text = _EMBED_TEXT.get(kind, f"t.{column}")
            rows = self._conn().execute(
                f"SELECT q.kind, q.item_id, q.profile_id, {text}, q.attempts"
                f" FROM embedding_queue q JOIN {table} t ON t.id = q.item_id"
                " WHERE q.kind = ? AND (q.retry_at IS NULL OR q.retry_at <= ?)"
                " ORDER BY q.item_id DESC LIMIT ?",
                (kind, to_iso(now), limit - len(found)),
            )
            found.extend(PendingText(*row) for row in rows)
            if len(found) >= limit:
                break
        return found

    def queued(self, profile_id: int | None = None) -> int:
        """How many items (of one profile, if given) wait for a vector."""
        if profile_id is None:
            return int(scalar(self._conn(), "SELECT count(*) FROM embedding_queue"))
        return int(
            scalar(
                self._conn(),
                "SELECT count(*) FROM embedding_queue WHERE profile_id = ?",
                (profile_id,),
            )
        )

    def store(
        self,
        model: EmbeddingModel,
        items: Sequence[PendingText],
        vectors: Sequence[Sequence[float]],
    ) -> None:
        """Write one batch of vectors and take their items off the queue, atomically."""
        now = to_iso(self._clock.now())
        conn = self._conn()
        by_kind: dict[str, list[tuple[PendingText, bytes]]] = {}
        for item, vector in zip(items, vectors, strict=True):
            by_kind.setdefault(item.kind, []).append((item, _pack(vector)))
        with conn:
            for kind, rows in by_kind.items():
                table = model.table(kind)
                # A complete index holds the vectors alone (its table is gone); while
                # one is built, or new cells are, vectors go to each.
                generations = vector_cells.generations(conn, table)
                whole = not any(done for _, done in generations)
                tables = [self._ensure_table(model, kind)] if whole else []
                tables += [vector_cells.partition_table(key) for key, _ in generations]
                for name in tables:
                    conn.executemany(
                        f"DELETE FROM {name} WHERE item_id = ?", [(i.item_id,) for i, _ in rows]
                    )
                values = [(i.item_id, i.profile_id, packed) for i, packed in rows]
                if whole:
                    conn.executemany(
                        f"INSERT INTO {table}(item_id, profile_id, embedding) VALUES (?, ?, ?)",
                        values,
                    )
                for key, _ in generations:
                    conn.executemany(vector_cells.insert_sql(key), values)
                self._counted(table, len(rows))
                conn.executemany(
                    "INSERT OR REPLACE INTO embeddings(kind, item_id, model_id, embedded_at)"
                    " VALUES (?, ?, ?, ?)",
                    [(kind, i.item_id, model.id, now) for i, _ in rows],
                )
                conn.executemany(
                    "DELETE FROM embedding_queue WHERE kind = ? AND item_id = ?",
                    [(kind, i.item_id) for i, _ in rows],
                )

    def postpone(self, items: Sequence[PendingText], error: str, retry_at: datetime) -> None:
        """Record a failed attempt; the items stay queued until ``retry_at``."""
        conn = self._conn()
        with conn:
            conn.executemany(
                "UPDATE embedding_queue SET attempts = attempts + 1, retry_at = ?, last_error = ?"
                " WHERE kind = ? AND item_id = ?",
                [(to_iso(retry_at), error, item.kind, item.item_id) for item in items],
            )

    def requeue_missing(self, model_name: str) -> int:
        """Queue every item that has no vector from the model ``model_name`` (after a change)."""
        conn = self._conn()
        added = 0
        with conn:
            for kind, (table, text) in TEXT_SOURCES.items():
                status = " AND t.status != 'streaming'" if kind == "message" else ""
                conn.execute(
                    "INSERT OR IGNORE INTO embedding_queue(kind, item_id, profile_id)"
                    f" SELECT ?, t.id, t.profile_id FROM {table} t WHERE t.{text} != ''{status}"
                    " AND NOT EXISTS (SELECT 1 FROM embeddings e JOIN embedding_models m"
                    "  ON m.id = e.model_id WHERE e.kind = ? AND e.item_id = t.id AND m.name = ?)",
                    (kind, kind, model_name),
                )
                added += conn.changes()
        return added

    def _exists(self, table: str) -> bool:
        row = self._conn().execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,))
        return row.fetchone() is not None

    def _searchable(self, table: str) -> bool:
        """Whether ``table``'s vectors can be searched: in it, or in its complete cells."""
        return self._exists(table) or vector_cells.is_complete(self._conn(), table)

    def size(self, table: str) -> int:
        """About how many vectors ``table`` holds (counted at most once a minute)."""
        now = time.monotonic()
        cached = self._sizes.get(table)
        if cached is not None and now - cached[1] < _SIZE_TTL:
            return cached[0]
        key = vector_cells.searched(self._conn(), table)
        if key is not None:  # the table may be left over, being discarded
            held = vector_cells.partition_table(key)
        elif self._exists(table):
            held = table
        else:
            return 0
        # vec0 keeps one row per vector in its rowids shadow table, a plain b-tree.
        count: int = scalar(self._conn(), f"SELECT count(*) FROM {held}_rowids")
        self._sizes[table] = (count, now)
        return count

    def _counted(self, table: str, stored: int) -> None:
        """Count ``stored`` vectors more in ``table``'s cached size (an item stored again
        counts twice until the next count): a table that grows is seen to grow at once."""
        cached = self._sizes.get(table)
        if cached is not None:
            self._sizes[table] = (cached[0] + stored, cached[1])

    def build_cells(self, model: EmbeddingModel, stop: threading.Event | None = None) -> None:
        """Give each large vector table of ``model`` its cells, or finish copying into them,
        or new cells once it has outgrown its own; give each smaller one chunks that fit
        its size (see `vector_chunks`).

        Slow for a large table (minutes at 1M rows), so it is background work; ``stop``
        is checked between batches, and a stopped build resumes where it left off.
        """
        conn = self._conn()
        for kind in TEXT_SOURCES:
            if stop is not None and stop.is_set():
                return
            table = model.table(kind)
            key = vector_cells.searched(conn, table)
            if key is not None:
                self._grow_cells(model, table, key, stop)
            elif not self._exists(table):
                continue
            elif vector_cells.is_trained(conn, table) or self.size(table) >= self.cells.min_rows:
                done = vector_cell_build.build(
                    conn, table, int(model.dim), self.size(table), self.cells, stop
                )
                if done:
                    # Its table is gone: a third of the file was free (incremental
                    # files only: rewriting an old one would hold up the chat).
                    compact(conn, rewrite=False)
            else:  # cells are not due (and would drop the table): its chunks must fit it
                self._fit_chunks(model, table)

    def _grow_cells(
        self, model: EmbeddingModel, table: str, key: str, stop: threading.Event | None
    ) -> None:
        """New cells for ``table`` if it has outgrown those of ``key`` (or they are begun)."""
        conn = self._conn()
        left = vector_discard.leftovers(conn, table)
        if left and not vector_discard.discard(conn, left, stop, self.cells.batch):
            return
        building = len(vector_cells.generations(conn, table)) > 1
        if not building and not self.cells.outgrown(self._cells_of(key), self.size(table)):
            return
        done = vector_cell_build.recell(
            conn, table, int(model.dim), self.size(table), self.cells, stop
        )
        if done:
            self._cell_counts.pop(key, None)
            compact(conn, rewrite=False)  # the old cells' pages

    def _cells_of(self, key: str) -> int:
        if key not in self._cell_counts:
            self._cell_counts[key] = vector_cells.cell_count(self._conn(), key)
        return self._cell_counts[key]

    def _fit_chunks(self, model: EmbeddingModel, table: str) -> None:
        """Rebuild ``table`` with chunks that fit how many vectors it holds, if they don't."""
        conn = self._conn()
        current = vector_chunks.chunk_size(conn, table)
        if current is None:
            return
        wanted = vector_chunks.fitting(self.size(table), current)
        if wanted != current:
            vector_chunks.refit(conn, table, model.dim, wanted)

    def nearest(
        self,
        model: EmbeddingModel,
        kind: str,
        profile_id: int,
        query: Sequence[float],
        k: int,
        *,
        exact: bool = False,
    ) -> list[tuple[int, float]]:
        """The ``k`` items of ``kind`` closest to ``query``, with cosine similarity, best first.

        A table with complete cells is searched in the cells nearest the query (an
        approximation: what lies in other cells is missed), unless ``exact`` (then in
        every cell); any other table, by scanning every vector.
        """
        table = model.table(kind)
        if len(query) != model.dim or not self._searchable(table):
            return []  # another size can't be compared (the engine renews the vectors)
        conn = self._conn()
        packed = _pack(query)
        key = vector_cells.searched(conn, table)
        if key is not None:
            if exact:
                found = vector_cells.scan(conn, key, profile_id, packed, k)
            else:
                nprobe = self.cells.probes(self._cells_of(key), self.size(table), k)
                found = vector_cells.nearest(conn, key, profile_id, packed, k, nprobe)
        else:
            found = all_rows(
                conn,
                f"SELECT item_id, distance FROM {table}"
                " WHERE embedding MATCH ? AND k = ? AND profile_id = ? ORDER BY distance",
                (packed, k, profile_id),
            )
        return [(item_id, 1.0 - distance) for item_id, distance in found]

    def similarities(
        self, model: EmbeddingModel, kind: str, ids: Sequence[int], query: Sequence[float]
    ) -> dict[int, float]:
        """Cosine similarity of ``query`` to each of these items that has a vector."""
        table = model.table(kind)
        if not ids or len(query) != model.dim or not self._searchable(table):
            return {}
        conn = self._conn()
        packed = _pack(query)
        key = vector_cells.searched(conn, table)
        if key is not None:
            # The copy's small chunks make a point lookup several times cheaper.
            table = vector_cells.partition_table(key)
        # One primary-key lookup per item: vec0 scans the whole table for an IN list.
        sql = f"SELECT vec_distance_cosine(embedding, ?) FROM {table} WHERE item_id = ?"
        found = {}
        for item_id in ids:
            row = conn.execute(sql, (packed, item_id)).fetchone()
            if row is not None:
                found[item_id] = 1.0 - row[0]
        return found
