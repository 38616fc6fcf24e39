"""Where the data file's bytes are: each table with its indexes and shadow tables.

SQLite's ``dbstat`` table reports every page of the file and the b-tree it belongs to.
Indexes are counted with their table, and the shadow tables of a virtual table (FTS5's
``messages_fts_data``, sqlite-vec's ``vec_message_m1_vector_chunks00``, ...) with it,
so each entry is a table as the schema names it. Free pages (left by deletes, until
the file is compacted) are counted apart.

Each table is put in one group: ``text`` (what memory holds: messages, episodes,
facts, documents and their chunks, events, core memory), ``keyword`` (the FTS5
indexes), ``vectors`` (sqlite-vec tables), ``cells`` (the cell index of large vector
tables) and ``other`` (history, queues, sleep's records...).
"""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from data_schema.rows import all_rows, scalar

__all__ = ["GROUPS", "FileSpace", "TableSpace", "file_space"]

GROUPS = ("text", "keyword", "vectors", "cells", "other", "free")
_UNLISTED = "(page maps)"
_TEXT = frozenset(
    {"messages", "episodes", "facts", "documents", "chunks", "events", "core_blocks", "sessions"}
)


@dataclass(frozen=True, slots=True)
class TableSpace:
    """One table's share of the file: its pages, with its indexes and shadow tables."""

    name: str
    group: str
    bytes: int


@dataclass(frozen=True, slots=True)
class FileSpace:
    """The file's pages, by table.

    Attributes:
        page_size: bytes a page.
        pages: pages in the file.
        free_pages: pages that hold nothing (reused by later writes, or given back to
            the file system when it is compacted).
        tables: each table's bytes, largest first (empty when SQLite has no dbstat).
    """

    page_size: int
    pages: int
    free_pages: int
    tables: tuple[TableSpace, ...]

    @property
    def total_bytes(self) -> int:
        """The file's size (its pages; the write-ahead log aside)."""
        return self.pages * self.page_size

    @property
    def free_bytes(self) -> int:
        """Bytes in free pages."""
        return self.free_pages * self.page_size

    def by_group(self) -> dict[str, int]:
        """Bytes per group (see `GROUPS`), free pages included."""
        split = dict.fromkeys(GROUPS, 0)
        for table in self.tables:
            split[table.group] += table.bytes
        split["free"] = self.free_bytes
        return split

    def largest(self, count: int) -> list[TableSpace]:
        """The ``count`` largest tables."""
        return list(self.tables[:count])

    def of(self, names: set[str] | frozenset[str]) -> int:
        """Bytes of the tables named ``names`` (absent ones count nothing)."""
        return sum(t.bytes for t in self.tables if t.name in names)


def group_of(table: str) -> str:
    """The group a table's bytes count in (see the module's docstring)."""
    if table in _TEXT:
        return "text"
    if table.endswith("_fts"):
        return "keyword"
    if table.startswith(("vecpart_", "veccent_")) or table == "vector_cells":
        return "cells"
    if table.startswith("vec_"):
        return "vectors"
    return "other"


def _owners(conn: apsw.Connection) -> dict[str, str]:
    """Each b-tree's name -> the table it belongs to (virtual tables own their shadows)."""
    rows = conn.execute("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master")
    entries = [(kind, name, table, sql) for kind, name, table, sql in rows]
    virtual = sorted(
        (name for kind, name, _, sql in entries if sql.upper().startswith("CREATE VIRTUAL")),
        key=len,
        reverse=True,  # the longest name first: vec_x_m1 before a vec_x
    )
    owners = {}
    for kind, name, table, _ in entries:
        owner = table if kind == "index" else name
        owners[name] = next((v for v in virtual if owner.startswith(v + "_")), owner)
    return owners


def file_space(conn: apsw.Connection) -> FileSpace:
    """Where the bytes of the file behind ``conn`` are (reads every page: ~1 s a GB)."""
    page_size = int(scalar(conn, "PRAGMA page_size"))
    pages = int(scalar(conn, "PRAGMA page_count"))
    free = int(scalar(conn, "PRAGMA freelist_count"))
    owners = _owners(conn)
    totals: dict[str, int] = {}
    try:
        rows = all_rows(conn, "SELECT name, sum(pgsize) FROM dbstat GROUP BY name")
    except apsw.SQLError:  # a SQLite built without dbstat: the totals alone
        rows = []
    for row in rows:
        name, size = str(row[0]), row[1]
        owner = owners.get(name, name)
        totals[owner] = totals.get(owner, 0) + int(size)
    if totals:
        # Pages no b-tree owns: auto-vacuum's pointer maps (one per ~800 pages).
        unlisted = pages * page_size - free * page_size - sum(totals.values())
        if unlisted > 0:
            totals[_UNLISTED] = unlisted
    tables = sorted(
        (TableSpace(name, group_of(name), size) for name, size in totals.items()),
        key=lambda t: (-t.bytes, t.name),
    )
    return FileSpace(page_size, pages, free, tuple(tables))
