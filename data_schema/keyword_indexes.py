"""Keeping the keyword (FTS5) indexes in few segments, so that a search stays cheap.

FTS5 writes the rows of each write transaction, and the tombstones of each delete, as a
new segment of its index; its automatic merging keeps a few segments per level. A
search looks each of its terms up in every segment, so its cost grows with their
number: after a day of chat (144 messages; each message and its neighbour re-indexed in
its own transaction) the messages index had 11 segments, and the day's searches took
about 5 times as long there as on the same index merged into one. `merge_keyword_indexes`
merges every FTS5 table's segments, with a bounded amount of work per table, so that a
sleep run leaves the next day's searches an index of one segment (a large index gets
there over a few runs). Merging changes no search result: BM25 reads the same
documents and statistics whatever the segments.
"""

from __future__ import annotations

import apsw

from data_schema.rows import all_rows

__all__ = ["MERGE_PAGES", "keyword_indexes", "merge_keyword_indexes"]

# Index pages (~4 KB) one table may write per merge: an index of up to ~16 MB is merged
# into one segment at once (tens of ms); a larger one gets there over a few sleep runs.
MERGE_PAGES = 4096


def keyword_indexes(conn: apsw.Connection) -> list[str]:
    """The names of the file's FTS5 tables (from the schema: a new one is never missed)."""
    rows = all_rows(
        conn,
        "SELECT name FROM sqlite_schema WHERE type = 'table'"
        " AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5%' ORDER BY name",
    )
    return [str(name) for (name,) in rows]


def merge_keyword_indexes(conn: apsw.Connection, pages: int = MERGE_PAGES) -> None:
    """Merge each FTS5 table's segments, writing at most about ``pages`` pages per table.

    Each table is merged in its own short write transaction; one that is already a
    single segment costs next to nothing.

    Args:
        conn: a connection to the data file, in no transaction.
        pages: the most index pages one table may write (FTS5's ``merge`` command, given
            negative: it merges segments of every level, not only full levels).

    Raises:
        apsw.Error: SQLite failed (busy past the busy timeout, a full disk); the merge is
            then left where it got to, and nothing is lost.
    """
    for table in keyword_indexes(conn):
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)", (-pages,))
