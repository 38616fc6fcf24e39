"""A full disk, for tests: the data file may grow no further.

SQLite's ``max_page_count`` stops the file growing, as a full disk would: a write that
needs a new page fails with SQLITE_FULL, the error a full disk gives.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import apsw

__all__ = ["cap_file", "disk_full"]


def cap_file(pages: int) -> None:
    """Let no open connection grow the file past ``pages`` pages."""
    for conn in apsw.connections():
        with contextlib.suppress(apsw.Error):  # a closed one
            conn.execute(f"PRAGMA max_page_count = {pages}")


@contextlib.contextmanager
def disk_full(engine: Any) -> Iterator[None]:
    """The data file can grow no more while inside (every connection, new ones too)."""
    pages = engine.memory.db.conn.execute("PRAGMA page_count").fetchone()[0]

    def hook(conn: apsw.Connection) -> None:
        conn.execute(f"PRAGMA max_page_count = {pages}")

    apsw.connection_hooks.append(hook)
    cap_file(pages)
    try:
        yield
    finally:
        apsw.connection_hooks.remove(hook)
        cap_file(1 << 30)
