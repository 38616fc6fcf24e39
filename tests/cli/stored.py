"""What a data file holds, as sets of row ids per table: to show that nothing was lost."""

from __future__ import annotations

from pathlib import Path

import apsw

__all__ = ["STORED_TABLES", "Keys", "lost", "rows_of", "stored_rows"]

STORED_TABLES = (
    "profiles",
    "sessions",
    "messages",
    "facts",
    "fact_evidence",
    "fact_history",
    "core_blocks",
    "core_block_history",
    "episodes",
    "documents",
    "chunks",
    "events",
    "entities",
)


Keys = dict[str, set[tuple]]


def stored_rows(path: Path) -> Keys:
    """Every row's key in the tables that hold memories, read from the file as it is on disk."""
    from data_schema.connect import connect  # with the file's key (the tests' HIPPO_DB_KEY)

    conn = connect(path, migrate=False)
    try:
        return rows_of(conn)
    finally:
        conn.close()


def rows_of(conn: apsw.Connection) -> Keys:
    """Every row's key in the tables that hold memories, read through ``conn``."""
    return {table: _keys(conn, table) for table in STORED_TABLES}


def _keys(conn: apsw.Connection, table: str) -> set[tuple]:
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    key = [row[1] for row in sorted(info, key=lambda row: row[5]) if row[5]] or ["rowid"]
    return set(conn.execute(f"SELECT {', '.join(key)} FROM {table}"))


def lost(before: Keys, after: Keys) -> Keys:
    """The rows of ``before`` that ``after`` lacks, by table (empty: nothing lost)."""
    return {table: gone for table, ids in before.items() if (gone := ids - after[table])}
