"""Building a vector table's cells, and learning new ones as the table grows.

A table's first cells (`build`) are learnt by k-means over a sample of it and every
vector is copied into them; then the table is discarded (`vector_discard`, a batch
at a time). As the table grows, its cells
should grow as √N (see `vector_cells`); once they are well short of that
(`CellSizes.outgrown`), `recell` splits each cell into sub-cells learnt from its own
vectors (its share of the new count), copies every vector into a new generation
(each into the nearest sub-cell of its old cell: a search of a dozen centroids, not
thousands) and then discards the old generation. Both are background work: resumable
(stopped between batches by ``stop``, they carry on where they left off), holding
the writer lock one batch at a time; searches use the old cells until the new ones
hold every vector, and every vector stored meanwhile goes to both.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import islice
from threading import Event

import apsw

from assistant.memory import vector_cells as vc
from assistant.memory import vector_kmeans
from assistant.memory.vector_discard import discard
from data_schema.rows import all_rows, scalar

__all__ = ["build", "recell"]

# k-means learns from this many sampled vectors a cell.
_SAMPLE_PER_CELL = 32
# ... and splitting an old cell, from this many a sub-cell: the sample of a re-cell is
# held in memory (16 · √(8·1M) ≈ 45k vectors, 70 MB at 384-d), and the sub-cells of a
# cell only part vectors already close to each other.
_SAMPLE_PER_SUBCELL = 16
# A first build learns this many cells at most: flat k-means costs sample × cells
# comparisons (32·C²), and assigning each vector C more. A table met large for the
# first time gets these, then is split (`recell`) to its size.
_FLAT_MAX = 512
# Vectors waiting to be copied, with their cells. A temporary table: the scan that
# fills it writes nothing to the file, because a scan held open across commits to
# the file would keep its write-ahead log from ever restarting (it grew to 1.7 GB).
_BACKLOG = "temp.cell_backlog"
# A re-cell's centroids partitioned by the cell they were split from, so that each
# vector is assigned by searching its old cell's sub-cells only.
_PARENTS = "temp.cell_parents"


def build(
    conn: apsw.Connection, table: str, dim: int, rows: int, sizes: vc.CellSizes, stop: Event | None
) -> bool:
    """Learn ``table``'s first cells (once), copy every vector into them, then drop ``table``.

    Returns whether the index is complete (False: stopped, to be resumed).
    """
    if not vc.is_trained(conn, table):
        cells = min(sizes.cells_for(rows), max(sizes.cells, _FLAT_MAX))
        drawn = vector_kmeans.sample(conn, table, cells * _SAMPLE_PER_CELL)
        centroids = vector_kmeans.kmeans(drawn, cells, conn, table, dim)
        with conn:
            for statement in vc.schema(table, dim, vc.chunk_for(rows, len(centroids))):
                conn.execute(statement)
            _write_centroids(conn, table, [(None, c) for c in centroids])
            conn.execute("INSERT INTO vector_cells(vectors, complete) VALUES (?, 0)", (table,))
    if not _fill(conn, table, table, stop, sizes.batch, by_parent=False):
        return False
    # From this commit on, searches and writes use the cells alone: the table is left
    # over, and dropped a batch at a time (`discard`).
    conn.execute("UPDATE vector_cells SET complete = 1 WHERE vectors = ?", (table,))
    discard(conn, [table], stop, sizes.batch)
    return True


def recell(
    conn: apsw.Connection, table: str, dim: int, rows: int, sizes: vc.CellSizes, stop: Event | None
) -> bool:
    """Give ``table`` (whose cells are complete) the cells its size asks for.

    Returns whether the new cells replaced the old (False: stopped, to be resumed).
    """
    old = vc.searched(conn, table)
    assert old is not None, "only a table with complete cells is re-celled"
    new = next((key for key, done in vc.generations(conn, table) if not done), None)
    if new is None:
        new = vc.next_key(conn, table)
        cells = sizes.cells_for(rows)
        centroids = _split(conn, old, cells, dim)
        with conn:
            for statement in vc.schema(new, dim, vc.chunk_for(rows, cells), parents=True):
                conn.execute(statement)
            _write_centroids(conn, new, centroids)
            conn.execute("INSERT INTO vector_cells(vectors, complete) VALUES (?, 0)", (new,))
    if not _fill(conn, vc.partition_table(old), new, stop, sizes.batch, by_parent=True):
        return False
    with conn:
        # One transaction: searches move from the old cells to the new, which hold
        # every vector the old ones do (each stored since went to both).
        conn.execute("UPDATE vector_cells SET complete = 1 WHERE vectors = ?", (new,))
        conn.execute("DELETE FROM vector_cells WHERE vectors = ?", (old,))
    discard(conn, [vc.partition_table(old), vc.centroid_table(old)], stop, sizes.batch)
    return True


def _split(
    conn: apsw.Connection, old: str, cells: int, dim: int
) -> list[tuple[int | None, array[float]]]:
    """Sub-cells of each cell of ``old``, ``cells`` in all: (old cell, centroid).

    Each cell gets sub-cells in proportion to its share of a sample (at least one:
    a cell the sample missed keeps its centroid), learnt from its sampled vectors.
    """
    part = vc.partition_table(old)
    ids = [
        row[0]
        for row in conn.execute(
            f"SELECT rowid FROM {part}_rowids ORDER BY random() LIMIT ?",
            (cells * _SAMPLE_PER_SUBCELL,),
        )
    ]
    members: dict[int, list[array[float]]] = {}
    sql = f"SELECT cell, embedding FROM {part} WHERE item_id = ?"
    for item_id in ids:
        for cell, embedding in all_rows(conn, sql, (item_id,)):  # none if deleted since
            members.setdefault(cell, []).append(array("f", embedding))
    olds = all_rows(conn, f"SELECT cell, embedding FROM {vc.centroid_table(old)}")
    shares = _apportion([len(members.get(cell, [])) for cell, _ in olds], cells)
    found: list[tuple[int | None, array[float]]] = []
    for (cell, centroid), share in zip(olds, shares, strict=True):
        if sample := members.get(cell):
            subcells = vector_kmeans.kmeans(sample, share, conn, old, dim)
        else:
            subcells = [array("f", centroid)]
        found.extend((cell, c) for c in subcells)
    return found


def _apportion(sizes: Sequence[int], total: int) -> list[int]:
    """``total`` split in proportion to ``sizes``, each at least 1 (largest remainders)."""
    whole = max(1, sum(sizes))
    exact = [total * size / whole for size in sizes]
    shares = [max(1, int(x)) for x in exact]
    by_remainder = sorted(range(len(sizes)), key=lambda i: exact[i] - int(exact[i]), reverse=True)
    for i in by_remainder[: max(0, total - sum(shares))]:
        shares[i] += 1
    return shares


def _fill(
    conn: apsw.Connection, source: str, key: str, stop: Event | None, size: int, *, by_parent: bool
) -> bool:
    """Copy every vector of ``source`` not yet in ``key``'s cells into them."""
    conn.execute(f"DROP TABLE IF EXISTS {_BACKLOG}")
    conn.execute(f"DROP TABLE IF EXISTS {_PARENTS}")
    try:
        if by_parent:
            _index_parents(conn, key)
        return _assign(conn, source, key, stop, size, by_parent) and _copy(
            conn, source, key, stop, size
        )
    finally:
        conn.execute(f"DROP TABLE IF EXISTS {_BACKLOG}")
        conn.execute(f"DROP TABLE IF EXISTS {_PARENTS}")


def _index_parents(conn: apsw.Connection, key: str) -> None:
    """Put ``key``'s centroids in a temporary table partitioned by their old cell."""
    cent = vc.centroid_table(key)
    dim = int(scalar(conn, f"SELECT vec_length(embedding) FROM {cent} LIMIT 1"))
    conn.execute(
        f"CREATE VIRTUAL TABLE {_PARENTS} USING vec0(cell INTEGER PRIMARY KEY,"
        f" parent INTEGER PARTITION KEY, embedding FLOAT[{dim}] distance_metric=cosine,"
        " chunk_size=8)"
    )
    # vec0 finds a partition's chunks by scanning its chunks table: indexed, each
    # vector's search goes straight to its old cell's few centroids.
    conn.execute(f"CREATE INDEX {_PARENTS}_of ON cell_parents_chunks(partition00)")
    conn.execute(
        f"INSERT INTO {_PARENTS}(cell, parent, embedding) SELECT cell, parent, embedding"
        f" FROM {cent}"
    )


def _assign(
    conn: apsw.Connection, source: str, key: str, stop: Event | None, size: int, by_parent: bool
) -> bool:
    """Put every vector of ``source`` not yet copied in the backlog, with its cell.

    The backlog holds ids, not vectors: written in the scan's order, 1.5 KB rows made
    a re-cell's temporary table ever slower to insert into (5x at 100k rows).
    """
    conn.execute(
        f"CREATE TABLE {_BACKLOG} (item_id INTEGER PRIMARY KEY, profile_id INTEGER, cell INTEGER)"
    )
    if by_parent:  # the nearest of the sub-cells of the vector's old cell
        nearest = f"{_PARENTS} WHERE embedding MATCH ?3 AND parent = ?4"
        columns = "item_id, profile_id, embedding, cell"
    else:
        nearest = f"{vc.centroid_table(key)} WHERE embedding MATCH ?3"
        columns = "item_id, profile_id, embedding"
    sql = (
        f"INSERT INTO {_BACKLOG} VALUES (?1, ?2,"
        f" (SELECT cell FROM {nearest} ORDER BY distance LIMIT 1))"
    )
    part = vc.partition_table(key)
    rows = conn.execute(f"SELECT {columns} FROM {source}")
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


def _copy(conn: apsw.Connection, source: str, key: str, stop: Event | None, size: int) -> bool:
    """Copy the backlog's vectors into the cells, a cell's together (they share pages)."""
    part = vc.partition_table(key)
    conn.execute(f"CREATE INDEX {_BACKLOG}_cells ON cell_backlog(profile_id, cell, item_id)")
    after = (-1, -1, -1)
    while batch := all_rows(
        conn,
        f"SELECT item_id, profile_id, cell FROM {_BACKLOG}"
        " WHERE (profile_id, cell, item_id) > (?, ?, ?) ORDER BY profile_id, cell, item_id"
        " LIMIT ?",
        (*after, size),
    ):
        if stop is not None and stop.is_set():
            return False
        after = (batch[-1][1], batch[-1][2], batch[-1][0])
        with conn:
            # One stored meanwhile was copied by the store (its newest vector); one
            # deleted meanwhile (forgotten) is gone from the source: neither is copied.
            copied = _present(conn, part, [row[0] for row in batch])
            conn.executemany(
                f"INSERT INTO {part}(item_id, profile_id, cell, embedding)"
                f" SELECT ?1, ?2, ?3, embedding FROM {source} WHERE item_id = ?1",
                [row for row in batch if row[0] not in copied],
            )
    return True


def _present(conn: apsw.Connection, table: str, ids: Sequence[int]) -> set[int]:
    marks = ",".join("?" * len(ids))
    # vec0 keeps an integer primary key as the rowid of its rowids shadow table.
    rows = conn.execute(f"SELECT rowid FROM {table}_rowids WHERE rowid IN ({marks})", list(ids))
    return {row[0] for row in rows}


def _write_centroids(
    conn: apsw.Connection, key: str, centroids: list[tuple[int | None, array[float]]]
) -> None:
    """Store ``key``'s centroids, numbered in order, with the old cell each was split from."""
    if centroids and centroids[0][0] is not None:
        conn.executemany(
            f"INSERT INTO {vc.centroid_table(key)}(cell, embedding, parent) VALUES (?, ?, ?)",
            [(cell, v.tobytes(), parent) for cell, (parent, v) in enumerate(centroids)],
        )
        return
    conn.executemany(
        f"INSERT INTO {vc.centroid_table(key)}(cell, embedding) VALUES (?, ?)",
        [(cell, v.tobytes()) for cell, (_, v) in enumerate(centroids)],
    )
