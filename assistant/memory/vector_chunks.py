"""How many vectors a chunk of a sqlite-vec table holds, fitted to the table's size.

vec0 keeps a table's vectors in chunks of ``chunk_size`` vectors, one run of chunks per
partition (each profile has its own), and writes a whole chunk when its first vector
arrives. With vec0's default of 1024, a table holding one 384-d vector took 1.5 MB (a
768-d one 3 MB), and a new user's file held three to five such tables per embedding
model: 3.7 MB after 100 messages with MiniLM, 11.7 MB once a second model was tried.

So a table starts with small chunks (`SMALL`), and the maintenance work rebuilds it with
larger ones (`LARGE`) once it holds `GROW_AT` vectors, when the part-empty last chunk
is a small share of it. Measured at 384-d (search CPU per query, k=50): 1.0 / 0.7 ms at
1k vectors for 32 / 1024-vector chunks, 3.2 / 2.7 ms at 4k, 19.6 / 14.9 ms at 20k, and
256-vector chunks as fast as 1024 at every size. A small table made with large chunks
(before this) is rebuilt with small ones, and the file compacted gives the bytes back.
"""

from __future__ import annotations

import re

import apsw

__all__ = ["GROW_AT", "LARGE", "SMALL", "chunk_size", "create_sql", "fitting", "refit"]

SMALL = 32
LARGE = 256
GROW_AT = 4096
# A grown table shrinks back only well below where it grew, so it never flaps.
_SHRINK_BELOW = GROW_AT // 2
_VEC0_DEFAULT = 1024
_CHUNK = re.compile(r"chunk_size\s*=\s*(\d+)", re.IGNORECASE)
_SCRATCH = "temp.vector_refit"


def create_sql(table: str, dim: int, chunk: int = SMALL) -> str:
    """CREATE of a vector table: an item's vector, partitioned by profile."""
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING vec0("
        " item_id INTEGER PRIMARY KEY, profile_id INTEGER PARTITION KEY,"
        f" embedding FLOAT[{int(dim)}] distance_metric=cosine, chunk_size={int(chunk)})"
    )


def chunk_size(conn: apsw.Connection, table: str) -> int | None:
    """How many vectors a chunk of ``table`` holds (None: no such table)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    if row is None:
        return None
    found = _CHUNK.search(row[0] or "")
    return int(found.group(1)) if found else _VEC0_DEFAULT


def fitting(rows: int, current: int) -> int:
    """The chunk size a table of ``rows`` vectors should have, now that it has ``current``."""
    if rows >= GROW_AT and current < LARGE:
        return LARGE
    if rows < _SHRINK_BELOW and current > SMALL:
        return SMALL
    return current


def refit(conn: apsw.Connection, table: str, dim: int, chunk: int) -> None:
    """Rebuild ``table`` with chunks of ``chunk`` vectors, in one transaction.

    The vectors go through a temporary table (not written to the file); a crash
    leaves the table as it was.
    """
    conn.execute(f"DROP TABLE IF EXISTS {_SCRATCH}")
    try:
        with conn:
            conn.execute(
                f"CREATE TABLE {_SCRATCH} AS SELECT item_id, profile_id, embedding FROM {table}"
            )
            conn.execute(f"DROP TABLE {table}")
            conn.execute(create_sql(table, dim, chunk))
            conn.execute(
                f"INSERT INTO {table}(item_id, profile_id, embedding)"
                f" SELECT item_id, profile_id, embedding FROM {_SCRATCH} ORDER BY item_id"
            )
    finally:
        conn.execute(f"DROP TABLE IF EXISTS {_SCRATCH}")
