"""A backup of the data file before each night, so a whole night can be undone.

``VACUUM INTO`` writes a consistent, compact copy from a read transaction: in WAL mode
the chat keeps writing meanwhile. Copies live in ``backups/`` next to the data file,
readable by their owner only. The newest ``keep`` are kept, as long as together they
take at most `BACKUPS_SHARE` times the newest one (the compacted file): seven full
copies of a 16 MB file took 110 MB. The newest is always kept.

After the night's work, `compact_file` merges the keyword indexes' segments (see
`data_schema.keyword_indexes`) and gives the pages its deletes freed back to the file
system (see `data_schema.compact`).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from assistant.errors import StorageError
from data_schema.compact import compact
from data_schema.keyword_indexes import merge_keyword_indexes
from data_schema.snapshot import copy_into

if TYPE_CHECKING:
    from assistant.sleep.context import SleepContext

__all__ = [
    "BACKUPS_SHARE",
    "BACKUP_DIR",
    "backup_database",
    "backup_files",
    "backups",
    "compact_file",
]

BACKUP_DIR = "backups"
BACKUPS_SHARE = 3
_PREFIX = "hippo-"


def backups(db_path: Path) -> list[Path]:
    """The data file's backups, oldest first."""
    folder = Path(db_path).parent / BACKUP_DIR
    return sorted(folder.glob(f"{_PREFIX}*.db")) if folder.is_dir() else []


def backup_files(db_path: Path) -> list[Path]:
    """Every file in the backups folder, newest first: sleep's backups, ``hippo backup
    create``'s, and the files a restore set aside."""
    folder = Path(db_path).parent / BACKUP_DIR
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def backup_database(conn: apsw.Connection, db_path: Path, now: datetime, keep: int = 7) -> Path:
    """Copy the data file to ``backups/hippo-<time>.db`` and prune the older ones.

    The newest ``keep`` copies are kept while together they take at most
    `BACKUPS_SHARE` times the new one; older ones are deleted (the new one always stays).

    Args:
        conn: a connection to the data file.
        db_path: the data file (the backups go next to it).
        now: the time that names the copy.
        keep: how many backups to keep (at least this one).

    Returns:
        The new backup's path.

    Raises:
        StorageError: the copy could not be written (the data file is untouched).
    """
    folder = Path(db_path).parent / BACKUP_DIR
    target = folder / f"{_PREFIX}{now.strftime('%Y%m%d-%H%M%S-%f')}.db"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        target.unlink(missing_ok=True)
        # VACUUM INTO accepts an existing empty file, so the copy is private from the start.
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600))
        copy_into(conn, target)
    except (OSError, apsw.Error) as exc:
        target.unlink(missing_ok=True)
        raise StorageError(
            f"Could not back up the data file to {target}: {exc}. Free some disk space or fix "
            f"the folder's permissions; nothing was consolidated."
        ) from exc
    older = [p for p in reversed(backups(db_path)) if p != target]
    _prune([target, *older], keep, BACKUPS_SHARE * target.stat().st_size)
    return target


def _prune(copies: list[Path], keep: int, budget: int) -> None:
    """Keep the first ``keep`` of ``copies`` (newest first) that fit ``budget`` bytes
    together, and delete the rest; the first is kept whatever its size."""
    total = 0
    for n, path in enumerate(copies):
        total += path.stat().st_size
        if n and (n >= keep or total > budget):
            for old in copies[n:]:
                old.unlink(missing_ok=True)
            return


def compact_file(ctx: SleepContext) -> None:
    """Merge the keyword indexes, then give back the pages freed (see `compact`).

    The merge first: the segments it replaces are pages to give back. Busy (the chat
    was writing for longer than the busy timeout): the next night goes on. Not counted
    in the run's report: a preview, on a compact copy, would differ.
    """
    conn = ctx.deps.db.conn
    try:
        merge_keyword_indexes(conn)
    except apsw.Error as exc:  # searches stay right, only slower: nothing lost
        ctx.error("compact", f"the keyword indexes could not be merged: {exc}")
    try:
        compact(conn)
    except apsw.Error as exc:  # a full disk, say: the file stays as it was, nothing lost
        ctx.error("compact", f"the file's free space could not be given back: {exc}")
