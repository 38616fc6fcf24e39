"""Dropping vector tables no search or write uses any more, a batch at a time.

A table whose cells are complete, and the cells a newer generation replaced (see
`vector_cell_build`), are left over. The file deletes securely (each freed page is
zeroed and written), so dropping a 1.5 GB copy at once held the writer lock for its
length and its pages in memory (1.7 GB); here it is emptied a batch per transaction
first, stoppable, and what a stop leaves is found again (`leftovers`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from threading import Event

import apsw

from assistant.memory import vector_cells as vc
from data_schema.rows import all_rows

__all__ = ["discard", "leftovers"]

# The most vectors a chunk of a table being discarded may hold (see vc.chunk_for).
_MOST_PER_CHUNK = 32


def leftovers(conn: apsw.Connection, table: str) -> list[str]:
    """Tables of ``table``'s vectors that no search or write uses any more, to discard.

    The table itself once its cells are complete, and the cells of generations that
    newer ones replaced (a `discard` stopped before it finished leaves them).
    """
    if not vc.is_complete(conn, table):
        return []
    used = {name for key, _ in vc.generations(conn, table) for name in vc.index_tables(key)}
    tail = table.removeprefix("vec_")
    ours = re.compile(rf"^(?:vec_{tail}|vec(?:part|cent)_{tail}(?:_g\d+)?)$")
    names = all_rows(
        conn,
        "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%' AND name GLOB ?",
        (f"vec*_{tail}*",),
    )
    return [str(name) for (name,) in names if ours.match(name) and name not in used]


def discard(conn: apsw.Connection, tables: Sequence[str], stop: Event | None, batch: int) -> bool:
    """Drop these vec0 tables, emptying their largest shadow tables a batch at a time.

    The file deletes securely (each freed page is zeroed and written): dropping a
    1.5 GB copy at once held the writer lock for its length, and its pages in memory
    (1.7 GB). A transaction deletes the chunks of about ``batch`` vectors, or ten
    times as many rows of the id map (~40 bytes each, not 1.5 KB). Returns whether all
    are gone (False: stopped; `leftovers` finds the rest).
    """
    for table in tables:
        for shadow, rows in (
            (f"{table}_vector_chunks00", max(1, batch // _MOST_PER_CHUNK)),
            (f"{table}_rowids", 10 * batch),
        ):
            while _exists(conn, shadow):
                if stop is not None and stop.is_set():
                    return False
                with conn:
                    conn.execute(
                        f"DELETE FROM {shadow} WHERE rowid IN (SELECT rowid FROM {shadow} LIMIT ?)",
                        (rows,),
                    )
                    if not conn.changes():
                        break
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    return True


def _exists(conn: apsw.Connection, table: str) -> bool:
    return bool(all_rows(conn, "SELECT 1 FROM sqlite_master WHERE name = ?", (table,)))
