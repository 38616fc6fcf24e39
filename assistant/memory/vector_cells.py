"""A coarse partitioned index of a large vector table: k-means cells as vec0 partitions.

Exact KNN in sqlite-vec reads every vector (~500 ms at 1M 384-d rows on two cores),
and a 1-bit prefilter ranked clustered embeddings too poorly (recall@10 0.63). Here a
large table's vectors are grouped into ``CellSizes.cells`` cells around centroids learnt from a
sample of them (spherical k-means, run through sqlite-vec itself: no numpy); a copy of
each vector is stored with its cell as a second vec0 partition key, so a search reads
only the ``CellSizes.nprobe`` cells whose centroids lie nearest the query (an inverted-file
index). Distances within those cells are exact float cosines.

Each vector table ``vec_<kind>_m<id>`` may have: ``veccent_<kind>_m<id>`` (centroids),
``vecpart_<kind>_m<id>`` (the cell-partitioned copy) and a row in ``vector_cells``
saying whether every vector has been copied (``complete``). Once the centroids exist,
every vector stored is also copied (its cell is that of its nearest centroid), so a
complete index stays complete. Once it is complete, the vector table itself is dropped
(a vector takes 1.5 KB: kept twice, vectors were two thirds of a large file): the
cells hold every vector, searched near the query or (``scan``) all of them.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from threading import Event

import apsw

from data_schema.rows import all_rows, scalar

__all__ = [
    "CellSizes",
    "build",
    "centroid_table",
    "index_tables",
    "insert_sql",
    "is_complete",
    "is_trained",
    "nearest",
    "partition_table",
    "scan",
    "schema",
]

# k-means learns from this many sampled vectors a cell, for this many rounds.
_SAMPLE_PER_CELL = 32
_ROUNDS = 6
# Small chunks: a cell holds a few thousand vectors at most, and a point lookup in a
# small chunk costs a fraction of one in vec0's default 1024-vector chunk. Each
# (profile, cell) partition's last chunk is part empty: with 128-vector chunks that
# was a third of the copy's size at 100k messages, with 32 a tenth. The centroids too:
# in vec0's default 1024-vector chunk, 256 of them took 1.5 MB (3 MB at 768-d).
_CHUNK_SIZE = 32


@dataclass(frozen=True, slots=True)
class CellSizes:
    """How large vector tables are split into cells and searched (tests use small ones).

    Attributes:
        cells: how many cells a table's vectors are grouped into. 256: ~4k vectors a
            cell at 1M rows, ~80 at 20k.
        nprobe: how many cells nearest the query a search reads. 8 read ~3% of the
            table (~26 ms CPU at 1M rows, against ~1 s exact); on the scale benchmark's
            clustered vectors even 4 find the exact top 50, so 8 leaves a margin for
            embeddings that cluster less.
        min_rows: below this many vectors a table is searched exactly (under ~10 ms);
            from it on, the maintenance work gives it cells.
        batch: vectors copied per transaction while building (the writer lock is held
            that long).
    """

    cells: int = 256
    nprobe: int = 8
    min_rows: int = 20_000
    batch: int = 2000


def partition_table(table: str) -> str:
    """The cell-partitioned copy of the vector table ``table``."""
    return "vecpart_" + table.removeprefix("vec_")


def centroid_table(table: str) -> str:
    """The centroids of the cells of ``table``."""
    return "veccent_" + table.removeprefix("vec_")


def index_tables(table: str) -> tuple[str, str]:
    """The tables the cells of ``table`` are kept in: its centroids and its copy."""
    return centroid_table(table), partition_table(table)


def schema(table: str, dim: int) -> list[str]:
    """CREATE statements of the centroid table and the partitioned copy of ``table``.

    vec0 finds a partition's chunks by scanning its ``_chunks`` shadow table, which
    with thousands of (profile, cell) partitions costs more than the search itself;
    an index on the partition columns makes each probe and insert a lookup (vec0
    ignores it, and dropping the table drops it).
    """
    part = partition_table(table)
    return [
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {centroid_table(table)} USING vec0("
        f" cell INTEGER PRIMARY KEY, embedding FLOAT[{int(dim)}] distance_metric=cosine,"
        f" chunk_size={_CHUNK_SIZE})",
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {part} USING vec0(item_id INTEGER PRIMARY KEY,"
        " profile_id INTEGER PARTITION KEY, cell INTEGER PARTITION KEY,"
        f" embedding FLOAT[{int(dim)}] distance_metric=cosine, chunk_size={_CHUNK_SIZE})",
        f"CREATE INDEX IF NOT EXISTS {part}_cells ON {part}_chunks(partition00, partition01)",
    ]


def is_trained(conn: apsw.Connection, table: str) -> bool:
    """Whether ``table`` has cells, so that vectors stored in it are copied into them."""
    row = conn.execute("SELECT 1 FROM vector_cells WHERE vectors = ?", (table,)).fetchone()
    return row is not None


def is_complete(conn: apsw.Connection, table: str) -> bool:
    """Whether every vector of ``table`` is in its cells (so searching them is safe)."""
    row = conn.execute("SELECT complete FROM vector_cells WHERE vectors = ?", (table,)).fetchone()
    return bool(row and row[0])


def insert_sql(table: str) -> str:
    """INSERT of (item_id, profile_id, vector) into the copy, in the nearest centroid's cell."""
    return (
        f"INSERT INTO {partition_table(table)}(item_id, profile_id, cell, embedding)"
        f" VALUES (?1, ?2, (SELECT cell FROM {centroid_table(table)}"
        "  WHERE embedding MATCH ?3 ORDER BY distance LIMIT 1), ?3)"
    )


def nearest(
    conn: apsw.Connection, table: str, profile_id: int, packed: bytes, k: int, nprobe: int
) -> list[tuple[int, float]]:
    """The ``k`` nearest vectors in the ``nprobe`` cells nearest ``packed``: (id, distance).

    One statement: SQLite runs the KNN once per cell of the ``IN`` list (each cell's
    ``k`` best), which saved the eight round trips of a statement a cell (~8% of the
    search). vec0 refuses a LIMIT beside ``k``, so the best ``k`` of all are picked here.
    """
    found = all_rows(
        conn,
        f"SELECT item_id, distance FROM {partition_table(table)}"
        " WHERE embedding MATCH ?1 AND k = ?2 AND profile_id = ?3 AND cell IN"
        f" (SELECT cell FROM {centroid_table(table)} WHERE embedding MATCH ?1 AND k = ?4)",
        (packed, k, profile_id, nprobe),
    )
    found.sort(key=lambda pair: pair[1])
    return found[:k]


def scan(
    conn: apsw.Connection, table: str, profile_id: int, packed: bytes, k: int
) -> list[tuple[int, float]]:
    """The ``k`` nearest vectors in every cell (exact search): (id, distance)."""
    return all_rows(
        conn,
        f"SELECT item_id, distance FROM {partition_table(table)}"
        " WHERE embedding MATCH ? AND k = ? AND profile_id = ? ORDER BY distance",
        (packed, k, profile_id),
    )


def build(
    conn: apsw.Connection,
    table: str,
    dim: int,
    stop: Event | None = None,
    sizes: CellSizes = CellSizes(),
) -> bool:
    """Learn ``table``'s cells (once), copy every vector into them, then drop ``table``.

    Resumable: a build stopped between batches (``stop``) carries on where it left
    off next time. Returns whether the index is complete.
    """
    if not is_trained(conn, table):
        sample = _sample(conn, table, sizes.cells * _SAMPLE_PER_CELL)
        centroids = _kmeans(sample, sizes.cells, conn, table, dim)
        with conn:
            for statement in schema(table, dim):
                conn.execute(statement)
            _write_centroids(conn, table, centroids)
            conn.execute("INSERT INTO vector_cells(vectors, complete) VALUES (?, 0)", (table,))
    conn.execute(f"DROP TABLE IF EXISTS {_BACKLOG}")
    try:
        if not _assign(conn, table, stop, sizes.batch) or not _copy(conn, table, stop, sizes.batch):
            return False
    finally:
        conn.execute(f"DROP TABLE IF EXISTS {_BACKLOG}")
    with conn:
        # One transaction: a writer sees either the table and an incomplete index
        # (and writes to both) or only the complete index.
        conn.execute("UPDATE vector_cells SET complete = 1 WHERE vectors = ?", (table,))
        conn.execute(f"DROP TABLE {table}")
    return True


# Vectors waiting to be copied, with their cells. A temporary table: the scan that
# fills it writes nothing to the file, because a scan held open across commits to
# the file would keep its write-ahead log from ever restarting (it grew to 1.7 GB).
_BACKLOG = "temp.cell_backlog"


def _assign(conn: apsw.Connection, table: str, stop: Event | None, size: int) -> bool:
    """Put every vector of ``table`` not yet copied, and its cell, in the backlog."""
    conn.execute(
        f"CREATE TABLE {_BACKLOG} (item_id INTEGER PRIMARY KEY, profile_id INTEGER,"
        " cell INTEGER, embedding BLOB)"
    )
    sql = (
        f"INSERT INTO {_BACKLOG} VALUES (?1, ?2, (SELECT cell FROM {centroid_table(table)}"
        "  WHERE embedding MATCH ?3 ORDER BY distance LIMIT 1), ?3)"
    )
    part = partition_table(table)
    rows = conn.execute(f"SELECT item_id, profile_id, embedding FROM {table}")
    try:
        while batch := list(islice(rows, size)):
            if stop is not None and stop.is_set():
                return False
            copied = _present(conn, part, [row[0] for row in batch])
            conn.executemany(sql, [row for row in batch if row[0] not in copied])
    finally:
        # Closed here, not left to the garbage collector: apsw 3.54.0 leaks a cursor
        # abandoned mid-loop after other statements ran, and its open read then locks
        # the backlog table against the DROP that follows.
        rows.close()
    return True


def _copy(conn: apsw.Connection, table: str, stop: Event | None, size: int) -> bool:
    """Copy the backlog into the cells, a cell's vectors together (they share pages)."""
    part = partition_table(table)
    conn.execute(f"CREATE INDEX {_BACKLOG}_cells ON cell_backlog(profile_id, cell, item_id)")
    after = (-1, -1, -1)
    while batch := all_rows(
        conn,
        f"SELECT item_id, profile_id, cell, embedding FROM {_BACKLOG}"
        " WHERE (profile_id, cell, item_id) > (?, ?, ?) ORDER BY profile_id, cell, item_id"
        " LIMIT ?",
        (*after, size),
    ):
        if stop is not None and stop.is_set():
            return False
        after = (batch[-1][1], batch[-1][2], batch[-1][0])
        with conn:
            # One stored meanwhile was copied by the store, newer than the backlog's.
            copied = _present(conn, part, [row[0] for row in batch])
            conn.executemany(
                f"INSERT INTO {part}(item_id, profile_id, cell, embedding) VALUES (?, ?, ?, ?)",
                [row for row in batch if row[0] not in copied],
            )
    return True


def _present(conn: apsw.Connection, part: str, ids: Sequence[int]) -> set[int]:
    marks = ",".join("?" * len(ids))
    # vec0 keeps an integer primary key as the rowid of its rowids shadow table.
    rows = conn.execute(f"SELECT rowid FROM {part}_rowids WHERE rowid IN ({marks})", list(ids))
    return {row[0] for row in rows}


def _sample(conn: apsw.Connection, table: str, count: int) -> list[array[float]]:
    ids = [
        row[0]
        for row in conn.execute(
            f"SELECT rowid FROM {table}_rowids ORDER BY random() LIMIT ?", (count,)
        )
    ]
    sql = f"SELECT embedding FROM {table} WHERE item_id = ?"
    return [array("f", scalar(conn, sql, (i,))) for i in ids]


def _kmeans(
    sample: list[array[float]], cells: int, conn: apsw.Connection, table: str, dim: int
) -> list[array[float]]:
    """Spherical k-means: each round assigns the sample through a vec0 table of centroids."""
    rng = random.Random(len(sample))
    centroids = [array("f", v) for v in rng.sample(sample, min(cells, len(sample)))]
    scratch = "temp." + centroid_table(table)
    conn.execute(f"DROP TABLE IF EXISTS {scratch}")
    conn.execute(
        f"CREATE VIRTUAL TABLE {scratch} USING vec0("
        f" cell INTEGER PRIMARY KEY, embedding FLOAT[{int(dim)}] distance_metric=cosine)"
    )
    try:
        for _ in range(_ROUNDS):
            conn.execute(f"DELETE FROM {scratch}")
            conn.executemany(
                f"INSERT INTO {scratch}(cell, embedding) VALUES (?, ?)",
                [(c, v.tobytes()) for c, v in enumerate(centroids)],
            )
            members: list[list[array[float]]] = [[] for _ in centroids]
            for v in sample:
                cell = scalar(
                    conn,
                    f"SELECT cell FROM {scratch} WHERE embedding MATCH ? AND k = 1",
                    (v.tobytes(),),
                )
                members[cell].append(v)
            centroids = [_mean(m) if m else rng.choice(sample) for m in members]
    finally:
        conn.execute(f"DROP TABLE IF EXISTS {scratch}")
    return centroids


def _mean(vectors: list[array[float]]) -> array[float]:
    """The unit-length mean direction of ``vectors``."""
    total = [sum(column) for column in zip(*vectors, strict=True)]
    norm = sum(x * x for x in total) ** 0.5 or 1.0
    return array("f", (x / norm for x in total))


def _write_centroids(conn: apsw.Connection, table: str, centroids: list[array[float]]) -> None:
    conn.executemany(
        f"INSERT INTO {centroid_table(table)}(cell, embedding) VALUES (?, ?)",
        [(cell, v.tobytes()) for cell, v in enumerate(centroids)],
    )
