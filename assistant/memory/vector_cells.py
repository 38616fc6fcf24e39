"""A coarse partitioned index of a large vector table: k-means cells as vec0 partitions.

Exact KNN in sqlite-vec reads every vector (~500 ms at 1M 384-d rows on two cores),
and a 1-bit prefilter ranked clustered embeddings too poorly (recall@10 0.63). Here a
large table's vectors are grouped into ``CellSizes.cells`` cells around centroids learnt from a
sample of them (spherical k-means, run through sqlite-vec itself: no numpy); a copy of
each vector is stored with its cell as a second vec0 partition key, so a search reads
only the ``CellSizes.nprobe`` cells whose centroids lie nearest the query (an inverted-file
index). Distances within those cells are 16-bit cosines (see below).

Each vector table ``vec_<kind>_m<id>`` may have: ``veccent_<kind>_m<id>`` (centroids),
``vecpart_<kind>_m<id>`` (the cell-partitioned copy) and a row in ``vector_cells``
saying whether every vector has been copied (``complete``). Once the centroids exist,
every vector stored is also copied (its cell is that of its nearest centroid), so a
complete index stays complete. Once it is complete, the vector table itself is dropped
(a vector takes 1.5 KB: kept twice, vectors were two thirds of a large file): the
cells hold every vector, searched near the query or (``scan``) all of them.

The cells hold each vector as 8-bit integers (``quantize``): 384 bytes a 384-d vector
instead of 1,536, a quarter of the pages a search reads (and decrypts). Each vector is
scaled so that its largest component is 127 before rounding; cosine ignores the scale,
so a similarity moves by at most ~0.002 (measured on the scale benchmark: mean 0.0004).
That was enough to swap neighbours whose similarities lie that close (recall@10 0.988
at 100k messages), so the 8-bit scan only picks candidates: each vector is also kept
in 16 bits (``precise``: 772 bytes at 384-d, each component within 1/65534 of the
largest) in a plain table keyed by item id (``precise_table``), and the candidates are
ranked by their 16-bit cosines,
as many as the 8-bit error seen on each search says could belong (``_exact_top``).
"""

from __future__ import annotations

import math
import operator
import random
import struct
from array import array
from collections.abc import Callable, Sequence
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
    "is_complete",
    "is_trained",
    "nearest",
    "partition_table",
    "precise",
    "precise_table",
    "quantize",
    "scan",
    "schema",
    "similarities",
    "write",
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


def precise_table(table: str) -> str:
    """The 16-bit copy of the vectors of ``table`` that candidates are ranked by."""
    return "vec16_" + table.removeprefix("vec_")


def index_tables(table: str) -> tuple[str, str, str]:
    """The tables the cells of ``table`` are kept in: centroids, copy, 16-bit copy."""
    return centroid_table(table), partition_table(table), precise_table(table)


def schema(table: str, dim: int) -> list[str]:
    """CREATE statements of the centroid table, the partitioned copy of ``table`` and
    its 16-bit copy.

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
        f" embedding INT8[{int(dim)}] distance_metric=cosine, chunk_size={_CHUNK_SIZE})",
        f"CREATE INDEX IF NOT EXISTS {part}_cells ON {part}_chunks(partition00, partition01)",
        f"CREATE TABLE IF NOT EXISTS {precise_table(table)}"
        " (item_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)",
    ]


def is_trained(conn: apsw.Connection, table: str) -> bool:
    """Whether ``table`` has cells, so that vectors stored in it are copied into them."""
    row = conn.execute("SELECT 1 FROM vector_cells WHERE vectors = ?", (table,)).fetchone()
    return row is not None


def is_complete(conn: apsw.Connection, table: str) -> bool:
    """Whether every vector of ``table`` is in its cells (so searching them is safe)."""
    row = conn.execute("SELECT complete FROM vector_cells WHERE vectors = ?", (table,)).fetchone()
    return bool(row and row[0])


def quantize(packed: bytes) -> bytes:
    """A float32 vector as the cells keep it: int8, its largest component scaled to 127.

    Pass it to SQL as ``vec_int8(?)``. Cosine ignores a vector's scale, so scaling each
    vector to the whole int8 range keeps its direction as exactly as 8 bits allow.
    """
    vector = array("f", packed)
    largest = max(max(vector, default=0.0), -min(vector, default=0.0)) or 1.0
    scale = 127.0 / largest
    return array("b", [round(x * scale) for x in vector]).tobytes()


def precise(packed: bytes) -> bytes:
    """A float32 vector as the 16-bit copy keeps it: the inverse of its length (float32),
    then its components as int16, scaled so that the largest is 32767.

    16-bit integers, not float16: Python decodes them in one copy (``array("h")``), where
    unpacking 384 float16 took 14 us; and scaled to the largest component they round
    each by at most 1/65534 of it, where float16 rounds by up to 1/2048 of each.
    """
    vector = array("f", packed)
    largest = max(max(vector, default=0.0), -min(vector, default=0.0)) or 1.0
    scale = 32767.0 / largest
    ints = array("h", [round(x * scale) for x in vector])
    norm = math.sqrt(_dot(ints, ints)) or 1.0
    return _INVERSE.pack(1.0 / norm) + ints.tobytes()


_INVERSE = struct.Struct("<f")


# math.sumprod (Python 3.12) is a single C loop; 3.11 sums the products itself.
_dot: Callable[[Sequence[float], Sequence[float]], float] = getattr(
    math, "sumprod", lambda a, b: sum(map(operator.mul, a, b))
)


def write(conn: apsw.Connection, table: str, rows: Sequence[tuple[int, int, bytes]]) -> None:
    """Store (item_id, profile_id, float32 vector) rows in the cells of ``table``.

    In 8 bits in the cell of the nearest centroid (replacing a vector the item had)
    and in 16 bits beside them: both copies are written, and deleted, together.
    """
    part = partition_table(table)
    conn.executemany(f"DELETE FROM {part} WHERE item_id = ?", [(row[0],) for row in rows])
    conn.executemany(
        f"INSERT INTO {part}(item_id, profile_id, cell, embedding)"
        f" VALUES (?1, ?2, (SELECT cell FROM {centroid_table(table)}"
        "  WHERE embedding MATCH ?3 ORDER BY distance LIMIT 1), vec_int8(?4))",
        [(*row, quantize(row[2])) for row in rows],
    )
    _write_precise(conn, table, [(row[0], row[2]) for row in rows])


def _write_precise(conn: apsw.Connection, table: str, rows: Sequence[tuple[int, bytes]]) -> None:
    conn.executemany(
        f"INSERT OR REPLACE INTO {precise_table(table)}(item_id, embedding) VALUES (?, ?)",
        [(item_id, precise(packed)) for item_id, packed in rows],
    )


def similarities(
    conn: apsw.Connection, table: str, packed: bytes, ids: Sequence[int]
) -> dict[int, float]:
    """Cosine similarity of ``packed`` to each of ``ids`` that has a 16-bit copy."""
    distances = _distances(conn, table, _unit(packed), ids)
    return {item_id: 1.0 - distance for item_id, distance in distances.items()}


def _unit(packed: bytes) -> list[float]:
    vector = array("f", packed)
    norm = math.sqrt(_dot(vector, vector)) or 1.0
    return [x / norm for x in vector]  # a list: its floats are made once, not per product


def _distances(
    conn: apsw.Connection, table: str, query: Sequence[float], ids: Sequence[int]
) -> dict[int, float]:
    """Cosine distance of the unit vector ``query`` to each of ``ids`` with a 16-bit copy
    (a 384-d one costs ~13 us, the dot product)."""
    out: dict[int, float] = {}
    for start in range(0, len(ids), 500):  # a plain table: one IN list per 500
        part = ids[start : start + 500]
        for item_id, blob in conn.execute(
            f"SELECT item_id, embedding FROM {precise_table(table)}"
            f" WHERE item_id IN ({','.join('?' * len(part))})",
            list(part),
        ):
            (inverse,) = _INVERSE.unpack_from(blob)
            vector = memoryview(blob)[_INVERSE.size :].cast("h")
            out[item_id] = 1.0 - _dot(query, vector) * inverse
    return out


# Candidates the 8-bit scan returns, per neighbour asked for. A vector's 8-bit cosine
# is off by a rounding error, a sum of ~dim independent terms: near Gaussian, sd
# ~0.0006 for 384-d unit vectors (measured mean error 0.0004, max 0.002). Only
# neighbours within a few sd (~0.003) of the k-th can trade places with it, and the
# k-th to 2k-th nearest of a query span more than that but where hundreds crowd
# together; there the 2k run short and a second scan reads 4 times as many. (A larger
# k costs the scan little, but not nothing: ~15% from 50 to 200 at 100k messages.)
_CANDIDATES_PER_K = 2
# Candidates are ranked by 16 bits in 8-bit order, until the next one lies so far by 8
# bits that not even the largest 8-bit error seen so far, times this, brings it within
# the k-th 16-bit distance. The max of >= 16 near-Gaussian errors is >= ~1.8 sd
# (likely), so twice it is >= ~3.5 sd (exceeded by 1 vector in ~2,000, which must also
# lie in the band at the boundary to matter).
_ERROR_MARGIN = 2.0
# Ranked first beyond the k (the error seen needs a dozen or more), then at a time: each
# costs a 384-term dot product in Python (~15-25 us on 3.11).
_FIRST_RANKED = 16
_MORE_RANKED = 8
# The most neighbours vec0 returns from one KNN (sqlite-vec's limit on k).
_MAX_CANDIDATES = 4096


def _exact_top(
    conn: apsw.Connection,
    table: str,
    packed: bytes,
    k: int,
    candidates: Callable[[int], list[tuple[int, float]]],
) -> list[tuple[int, float]]:
    """The ``k`` nearest of what ``candidates(n)`` (the n best by 8 bits, nearest first)
    can return, in 16-bit order.

    Candidates are ranked by 16 bits in 8-bit order while the next could still belong
    to the top k: every later one lies at least as far by 8 bits, so by 16 bits at
    least that minus the 8-bit error. Where all n could, n grows 4x (a second scan).
    """
    query = _unit(packed)
    n = min(max(k * _CANDIDATES_PER_K, 40), _MAX_CANDIDATES)
    exact: dict[int, float] = {}
    error = 0.0

    def settled(beyond: float) -> bool:
        """Whether nothing at 8-bit distance >= ``beyond`` can be in the top k."""
        if len(exact) < k:
            return False
        kth = sorted(exact.values())[k - 1]
        return kth <= beyond - _ERROR_MARGIN * error

    while True:
        fetched = candidates(n)
        found = [pair for pair in fetched if pair[0] not in exact]
        at = 0
        while at < len(found):
            batch = found[at : at + (_FIRST_RANKED + k if not exact else _MORE_RANKED)]
            at += len(batch)
            distances = _distances(conn, table, query, [item_id for item_id, _ in batch])
            for item_id, d in batch:
                exact[item_id] = distances.get(item_id, d)
                error = max(error, abs(d - exact[item_id]))
            if at < len(found) and settled(found[at][1]):
                break
        if len(fetched) < n or n >= _MAX_CANDIDATES or (fetched and settled(fetched[-1][1])):
            return sorted(exact.items(), key=lambda pair: pair[1])[:k]
        n = min(n * 4, _MAX_CANDIDATES)


def nearest(
    conn: apsw.Connection, table: str, profile_id: int, packed: bytes, k: int, nprobe: int
) -> list[tuple[int, float]]:
    """The ``k`` nearest vectors in the ``nprobe`` cells nearest ``packed``: (id, distance).

    The cells' 8-bit vectors pick candidates, their 16-bit copies order them
    (`_exact_top`). One statement for the cells: SQLite runs the KNN once per cell of
    the ``IN`` list (each cell's ``n`` best), which saved the eight round trips of a
    statement a cell (~8% of the search). vec0 refuses a LIMIT beside ``k``, so the best
    ``n`` of all are picked here.
    """
    query = quantize(packed)

    def candidates(n: int) -> list[tuple[int, float]]:
        found = all_rows(
            conn,
            f"SELECT item_id, distance FROM {partition_table(table)}"
            " WHERE embedding MATCH vec_int8(?1) AND k = ?2 AND profile_id = ?3 AND cell IN"
            f" (SELECT cell FROM {centroid_table(table)} WHERE embedding MATCH ?4 AND k = ?5)",
            (query, n, profile_id, packed, nprobe),
        )
        found.sort(key=lambda pair: pair[1])
        return found[:n]

    return _exact_top(conn, table, packed, k, candidates)


def scan(
    conn: apsw.Connection, table: str, profile_id: int, packed: bytes, k: int
) -> list[tuple[int, float]]:
    """The ``k`` nearest vectors in every cell (exact search): (id, distance)."""
    query = quantize(packed)

    def candidates(n: int) -> list[tuple[int, float]]:
        return all_rows(
            conn,
            f"SELECT item_id, distance FROM {partition_table(table)}"
            " WHERE embedding MATCH vec_int8(?) AND k = ? AND profile_id = ? ORDER BY distance",
            (query, n, profile_id),
        )

    return _exact_top(conn, table, packed, k, candidates)


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
            fresh = [row for row in batch if row[0] not in copied]
            conn.executemany(
                f"INSERT INTO {part}(item_id, profile_id, cell, embedding)"
                " VALUES (?, ?, ?, vec_int8(?))",
                [(*row[:3], quantize(row[3])) for row in fresh],
            )
            _write_precise(conn, table, [(row[0], row[3]) for row in fresh])
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
