"""A coarse partitioned index of a large vector table: k-means cells as vec0 partitions.

Exact KNN in sqlite-vec reads every vector (~500 ms at 1M 384-d rows on two cores),
and a 1-bit prefilter ranked clustered embeddings too poorly (recall@10 0.63). Here a
large table's vectors are grouped into cells around centroids learnt from a sample of
them (spherical k-means, run through sqlite-vec itself: no numpy); a copy of each
vector is stored with its cell as a second vec0 partition key, so a search reads the
centroids, then only the few cells whose centroids lie nearest the query (an
inverted-file index). Distances within those cells are exact float cosines.

How many cells: a search reads every centroid (C of them) and ``nprobe`` cells of
N/C vectors each, C + nprobe·N/C vectors in all, which is least at C = √(nprobe·N):
both parts then grow as √N, not as N (at 1M rows 256 cells made a search read 31k
vectors; √(8·1M) ≈ 2.8k cells read ~5.7k). So a table's cells are re-learnt as it grows
(see `vector_cell_build`), and ``nprobe`` stays fixed: a cell then holds √(N/nprobe)
vectors, more as the table grows, so the few dozen nearest a query span no more
cells at 1M rows than at 20k.

The cells of table ``vec_<kind>_m<id>`` are a *generation*, named by a key: the table's
own name for the first one, ``vec_<kind>_m<id>_g<n>`` for the ones learnt as it grew.
A key's cells are ``veccent_<key>`` (centroids) and ``vecpart_<key>`` (the copy), and
its row in ``vector_cells`` says whether every vector has been copied (``complete``).
Once a generation's centroids exist, every vector stored is also copied into it (its
cell is that of its nearest centroid), so a complete index stays complete. Searches use
the complete generation; a newer one is filled beside it and replaces it, in one
transaction, once complete. The first complete generation replaces the vector table
itself (a vector takes 1.5 KB: kept twice, vectors were two thirds of a large file).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import apsw

from data_schema.rows import all_rows, scalar

__all__ = [
    "CellSizes",
    "cell_count",
    "centroid_table",
    "generations",
    "index_tables",
    "insert_sql",
    "is_complete",
    "is_trained",
    "nearest",
    "next_key",
    "partition_table",
    "scan",
    "schema",
    "searched",
]

# The centroids' chunks: vec0's default 1024-vector chunk made 256 centroids take
# 1.5 MB (3 MB at 768-d); a chunk of 32 wastes at most 31 slots.
_CENTROID_CHUNK = 32
# A search reads cells holding at least this many vectors per neighbour asked for:
# the k nearest of a query are spread over the cells around it (in many dimensions a
# cell borders many others), not packed in the nearest one, so reading ~k vectors
# would miss many. With the defaults only tables under ~100k rows (cells under ~110
# vectors) read more than ``nprobe`` cells for k=50, where reading more is cheap.
_READ_PER_HIT = 16
# A table is given new cells once the square-root rule asks for this many times the
# cells it has (it has grown ~4-fold): with half the cells it should have, a search
# reads 25% more than the least, and re-learning copies every vector, so doing it at
# each 4-fold growth keeps the copying under 4/3 of the table's final size in all.
GROWTH = 2
_GENERATION = re.compile(r"_g(\d+)$")


@dataclass(frozen=True, slots=True)
class CellSizes:
    """How large vector tables are split into cells and searched (tests use small ones).

    Attributes:
        cells: the fewest cells a table is given: 256, the fixed count before the
            square-root rule, so no table is given fewer than it had. With the
            defaults the rule (`cells_for`) gives more from ``min_rows`` on (400 at 20k).
        nprobe: how many cells nearest the query a search reads at least: the
            query's own cell and the nearest around it, since k-means borders cut
            through dense regions and a query's nearest neighbours often lie just
            across one (in 384 dimensions a cell borders many others). It also sets
            the cell count: with √(nprobe·N) cells, centroids and probed cells are
            read in equal shares.
        min_rows: below this many vectors a table is searched exactly (under ~10 ms);
            from it on, the maintenance work gives it cells.
        batch: vectors copied per transaction while building (the writer lock is held
            that long).
    """

    cells: int = 256
    nprobe: int = 8
    min_rows: int = 20_000
    batch: int = 2000

    def cells_for(self, rows: int) -> int:
        """The cells a table of ``rows`` vectors should have: √(nprobe·rows), at least ``cells``."""
        return max(self.cells, round(math.sqrt(self.nprobe * rows)))

    def outgrown(self, cells: int, rows: int) -> bool:
        """Whether a table of ``rows`` vectors in ``cells`` cells is due new cells."""
        return self.cells_for(rows) >= GROWTH * cells

    def probes(self, cells: int, rows: int, k: int) -> int:
        """How many cells a search for ``k`` neighbours reads, of ``cells`` holding ``rows``.

        ``nprobe``, or more when ``k`` is large beside a cell (`_READ_PER_HIT`).
        """
        held = max(1.0, rows / max(1, cells))
        return min(max(1, cells), max(self.nprobe, math.ceil(_READ_PER_HIT * k / held)))


def partition_table(key: str) -> str:
    """The cell-partitioned copy of the generation ``key`` (a vector table's name at first)."""
    return "vecpart_" + key.removeprefix("vec_")


def centroid_table(key: str) -> str:
    """The centroids of the cells of generation ``key``."""
    return "veccent_" + key.removeprefix("vec_")


def index_tables(key: str) -> tuple[str, str]:
    """The tables the cells of ``key`` are kept in: its centroids and its copy."""
    return centroid_table(key), partition_table(key)


def chunk_for(rows: int, cells: int) -> int:
    """Vectors per chunk of a copy with ``cells`` cells for ``rows`` vectors.

    Each (profile, cell) partition's last chunk is half empty on average, so a chunk
    is at most an eighth of a cell's mean size (a few percent of the copy wasted), a
    power of two from 8 (vec0's least) to 32 (a point lookup in a small chunk costs a
    fraction of one in a large one).
    """
    chunk = 32
    while chunk > 8 and chunk * 8 > rows / max(1, cells):
        chunk //= 2
    return chunk


def schema(key: str, dim: int, chunk: int = 32, *, parents: bool = False) -> list[str]:
    """CREATE statements of the centroid table and the partitioned copy of ``key``.

    vec0 finds a partition's chunks by scanning its ``_chunks`` shadow table, which
    with thousands of (profile, cell) partitions costs more than the search itself;
    an index on the partition columns makes each probe and insert a lookup (vec0
    ignores it, and dropping the table drops it). ``parents``: each centroid also
    records the cell of the older generation it was split from (see
    `vector_cell_build`).
    """
    part = partition_table(key)
    parent = ", +parent INTEGER" if parents else ""
    return [
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {centroid_table(key)} USING vec0("
        f" cell INTEGER PRIMARY KEY, embedding FLOAT[{int(dim)}] distance_metric=cosine{parent},"
        f" chunk_size={_CENTROID_CHUNK})",
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {part} USING vec0(item_id INTEGER PRIMARY KEY,"
        " profile_id INTEGER PARTITION KEY, cell INTEGER PARTITION KEY,"
        f" embedding FLOAT[{int(dim)}] distance_metric=cosine, chunk_size={int(chunk)})",
        f"CREATE INDEX IF NOT EXISTS {part}_cells ON {part}_chunks(partition00, partition01)",
    ]


def generations(conn: apsw.Connection, table: str) -> list[tuple[str, bool]]:
    """The generations of cells ``table`` has, oldest first: (key, complete)."""
    rows = all_rows(
        conn,
        "SELECT vectors, complete FROM vector_cells WHERE vectors = ?1 OR vectors GLOB ?2",
        (table, table + "_g[0-9]*"),
    )
    found = [(str(key), bool(done)) for key, done in rows]
    return sorted(found, key=lambda row: _number(row[0]))


def _number(key: str) -> int:
    found = _GENERATION.search(key)
    return int(found.group(1)) if found else 0


def next_key(conn: apsw.Connection, table: str) -> str:
    """The key of a new generation of ``table``'s cells."""
    known = generations(conn, table)
    return f"{table}_g{max((_number(key) for key, _ in known), default=0) + 1}"


def searched(conn: apsw.Connection, table: str) -> str | None:
    """The generation searches of ``table`` use: its complete one, if any."""
    return next((key for key, done in generations(conn, table) if done), None)


def is_trained(conn: apsw.Connection, table: str) -> bool:
    """Whether ``table`` has cells, so that vectors stored in it are copied into them."""
    return bool(generations(conn, table))


def is_complete(conn: apsw.Connection, table: str) -> bool:
    """Whether every vector of ``table`` is in cells (so searching them is safe)."""
    return searched(conn, table) is not None


def cell_count(conn: apsw.Connection, key: str) -> int:
    """How many cells the generation ``key`` has."""
    # vec0 keeps one row per vector in its rowids shadow table, a plain b-tree.
    return int(scalar(conn, f"SELECT count(*) FROM {centroid_table(key)}_rowids"))


def insert_sql(key: str) -> str:
    """INSERT of (item_id, profile_id, vector) into the copy, in the nearest centroid's cell."""
    return (
        f"INSERT INTO {partition_table(key)}(item_id, profile_id, cell, embedding)"
        f" VALUES (?1, ?2, (SELECT cell FROM {centroid_table(key)}"
        "  WHERE embedding MATCH ?3 ORDER BY distance LIMIT 1), ?3)"
    )


def nearest(
    conn: apsw.Connection, key: str, profile_id: int, packed: bytes, k: int, nprobe: int
) -> list[tuple[int, float]]:
    """The ``k`` nearest vectors in the ``nprobe`` cells nearest ``packed``: (id, distance).

    One statement: SQLite runs the KNN once per cell of the ``IN`` list (each cell's
    ``k`` best), which saved the eight round trips of a statement a cell (~8% of the
    search). vec0 refuses a LIMIT beside ``k``, so the best ``k`` of all are picked here.
    """
    found = all_rows(
        conn,
        f"SELECT item_id, distance FROM {partition_table(key)}"
        " WHERE embedding MATCH ?1 AND k = ?2 AND profile_id = ?3 AND cell IN"
        f" (SELECT cell FROM {centroid_table(key)} WHERE embedding MATCH ?1 AND k = ?4)",
        (packed, k, profile_id, nprobe),
    )
    found.sort(key=lambda pair: pair[1])
    return found[:k]


def scan(
    conn: apsw.Connection, key: str, profile_id: int, packed: bytes, k: int
) -> list[tuple[int, float]]:
    """The ``k`` nearest vectors in every cell (exact search): (id, distance)."""
    return all_rows(
        conn,
        f"SELECT item_id, distance FROM {partition_table(key)}"
        " WHERE embedding MATCH ? AND k = ? AND profile_id = ? ORDER BY distance",
        (packed, k, profile_id),
    )
