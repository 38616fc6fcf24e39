"""Giving the data file's free pages back to the file system.

Deletes leave pages free inside the file; SQLite reuses them for later writes, but the
file does not shrink by itself. A file made by Hippo from this version on is in
``auto_vacuum = INCREMENTAL`` mode (set in `data_schema.connect` before anything is
written): its free pages are given back a batch at a time, each batch a short write
transaction, so the chat is never held up long. An older file has no such mode: it
is rewritten whole by ``VACUUM`` (which also puts it in incremental mode), but only
when the free pages are worth a rewrite that holds the writer lock for its duration,
or when asked (``hippo db vectors delete``, forget's scrub).
"""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from data_schema.rows import scalar

__all__ = ["Compaction", "compact"]

_INCREMENTAL = 2
# Pages given back per write transaction (8 MB of 4 KB pages: tens of milliseconds).
_BATCH = 2048
# An old file is rewritten only when at least this share of it, and this much, is free.
_REWRITE_SHARE = 0.25
_REWRITE_MIN_BYTES = 1 << 20
# ... and only a file this small unless asked: the rewrite holds the writer lock (a chat
# waits 5 s at most), and a file rewrites at roughly 50-100 MB/s on this machine.
_REWRITE_MAX_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class Compaction:
    """What a compaction did: the file's size before and after, and how."""

    before_bytes: int
    after_bytes: int
    how: str  # "incremental", "vacuum", or "" (nothing worth doing)

    @property
    def freed_bytes(self) -> int:
        """How many bytes the file gave back."""
        return max(self.before_bytes - self.after_bytes, 0)


def _pages(conn: apsw.Connection) -> tuple[int, int, int]:
    """(page size, pages, free pages) of the file behind ``conn``."""
    size = scalar(conn, "PRAGMA page_size")
    pages = scalar(conn, "PRAGMA page_count")
    free = scalar(conn, "PRAGMA freelist_count")
    return int(size), int(pages), int(free)


def compact(conn: apsw.Connection, *, rewrite: bool | None = None) -> Compaction:
    """Give the file's free pages back to the file system.

    Args:
        conn: a connection to the data file, in no transaction.
        rewrite: for a file not in incremental mode, whether to rewrite it whole
            (``VACUUM``): True always, False never, None (the default) when enough of
            it is free (a quarter, and at least 1 MB) and what is left is small enough
            to rewrite in a moment (64 MB).

    Returns:
        The sizes before and after (pages: the write-ahead log aside), and how:
        ``busy`` when another connection held the writer lock past the busy timeout
        (what was given back by then stays given back; nothing is lost).

    Raises:
        apsw.Error: the rewrite failed otherwise (a full disk: the file is as it was).
    """
    page, pages, free = _pages(conn)
    before = page * pages
    if not free:
        return Compaction(before, before, "")
    try:
        how = _give_back(conn, free, pages, page, rewrite)
    except apsw.BusyError:
        how = "busy"
    page, pages, _ = _pages(conn)
    if how not in ("", "busy"):
        # In WAL mode the file shrinks when the log is written back; a reader may put that off.
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    return Compaction(before, page * pages, how)


def _give_back(
    conn: apsw.Connection, free: int, pages: int, page: int, rewrite: bool | None
) -> str:
    if scalar(conn, "PRAGMA auto_vacuum") == _INCREMENTAL:
        while free:
            # Each row the pragma returns is a page given back: step through them all.
            conn.execute(f"PRAGMA incremental_vacuum({min(free, _BATCH)})").fetchall()
            left = _pages(conn)[2]
            if left >= free:  # nothing moved (never expected; never loop forever)
                break
            free = left
        return "incremental"
    worth = (
        free * page >= _REWRITE_MIN_BYTES
        and free >= pages * _REWRITE_SHARE
        and (pages - free) * page <= _REWRITE_MAX_BYTES
    )
    if not (worth if rewrite is None else rewrite):
        return ""
    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # the rewrite takes this mode on
    conn.execute("VACUUM")
    return "vacuum"
