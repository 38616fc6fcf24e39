"""A backup of the data file before each night, so a whole night can be undone.

``VACUUM INTO`` writes a consistent, compact copy from a read transaction: in WAL mode
the chat keeps writing meanwhile. Copies live in ``backups/`` next to the data file,
readable by their owner only, and the newest ``keep`` are kept.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import apsw

from assistant.errors import StorageError
from data_schema.snapshot import copy_into

__all__ = ["BACKUP_DIR", "backup_database", "backups"]

BACKUP_DIR = "backups"
_PREFIX = "hippo-"


def backups(db_path: Path) -> list[Path]:
    """The data file's backups, oldest first."""
    folder = Path(db_path).parent / BACKUP_DIR
    return sorted(folder.glob(f"{_PREFIX}*.db")) if folder.is_dir() else []


def backup_database(conn: apsw.Connection, db_path: Path, now: datetime, keep: int = 7) -> Path:
    """Copy the data file to ``backups/hippo-<time>.db`` and prune to the newest ``keep``.

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
    for old in backups(db_path)[: -max(keep, 1)]:
        old.unlink(missing_ok=True)
    return target
