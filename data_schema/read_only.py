"""When the data file can be read but not written, and why: in words for every refused write.

Three causes, each found from what the OS and SQLite say, never guessed:

* the file is known to be damaged (`data_schema.damage`): writes would spread it;
* the disk is full (SQLite's "full", or an I/O error whose OS error is ENOSPC: the WAL
  index of a new connection can't grow), the same message as a write that fails then;
* the file or its folder can't be written (read-only media, or permissions): the OS
  opened the file read-only, or SQLite could not make the WAL index beside it.

Such a file is opened for reading: searching, listing, recall and export work, and each
write is refused with the cause (``DataConnection.refusal``).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import apsw

from data_schema.sqlite_errors import disk_full

__all__ = ["cannot_write", "read_only_reason", "wal_is_empty"]

_DENIED = {errno.EACCES, errno.EPERM, errno.EROFS}
_WRITE_FAILURES = (apsw.ReadOnlyError, apsw.IOError, apsw.CantOpenError, apsw.FullError)


def cannot_write(path: Path) -> str:
    """Why Hippo reads ``path`` but can't write it: read-only media, or permissions."""
    folder = path.parent
    try:
        media = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs on Windows
        media = False
    if media:
        where = f"{path} is on read-only media"
        fix = "copy the folder somewhere writable and point --data-dir (or HIPPO_DATA_DIR) at it"
    else:
        where = f"Hippo may not write {path} or its folder {folder}"
        fix = "make both writable by you (`chmod u+w`), or choose another place with --data-dir"
    return (
        f"{where}, so it is open for reading only: search, lists, recall and export work, "
        f"but nothing can be saved. To save again, {fix}."
    )


def read_only_reason(path: Path, exc: BaseException) -> str | None:
    """Why opening ``path`` to write failed with ``exc``, if reading it may still work.

    Returns:
        The words for every refused write: a full disk, or a file or folder Hippo may
        not write. None: ``exc`` is about something else (raise it).
    """
    if not isinstance(exc, _WRITE_FAILURES):
        return None
    os_errno = getattr(exc, "os_errno", 0)
    if isinstance(exc, apsw.FullError) or os_errno == errno.ENOSPC:
        return disk_full(path)
    if isinstance(exc, apsw.ReadOnlyError) or os_errno in _DENIED or not _writable(path):
        return cannot_write(path)
    return None


def _writable(path: Path) -> bool:
    """Whether the OS lets this process write ``path`` and make files beside it.

    Asked only after SQLite failed to: its own errno can be of its last try (a WAL index
    it could not make read-write, then found absent read-only: ENOENT).
    """
    try:
        if os.statvfs(path.parent).f_flag & os.ST_RDONLY:
            return False
    except (OSError, AttributeError):
        pass
    return os.access(path.parent, os.W_OK) and os.access(path, os.W_OK)


def wal_is_empty(path: Path) -> bool:
    """Whether every saved row is in the file itself (no ``-wal`` holding any)."""
    try:
        return os.path.getsize(f"{path}-wal") == 0
    except OSError:
        return True
