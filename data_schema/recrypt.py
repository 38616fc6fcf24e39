"""Rewriting a whole SQLite file under another key or cipher; a kill at any point is safe.

The file is copied (``VACUUM INTO``) into ``<name>.recrypting`` beside it under the new
key, flushed to the disk, opened again with that key and checked (every table holds as
many rows as in the original), and only then renamed over the original, which is atomic.
Until the rename the original is untouched; after it, the new file is complete. The
original is first switched out of WAL mode (which folds its WAL in and deletes it, so no
old WAL is left beside the new file) and locked for this connection alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import apsw

from assistant.errors import StorageError
from data_schema.cipher import (
    CIPHER,
    DataKey,
    Progress,
    apply_key,
    copy_into,
    fsync_path,
    table_counts,
)
from data_schema.rows import scalar

__all__ = ["TMP_SUFFIX", "recrypt", "remove_leftover"]

TMP_SUFFIX = ".recrypting"
_BUSY_MS = 2000
# Progress: the copy is most of the work; checking it reads it all again.
_COPY_SHARE = 0.85
_CHECKED_SHARE = 0.95


def _busy(path: Path) -> StorageError:
    return StorageError(
        f"Another Hippo (the app, or `hippo sleep`) has {path} open, so it can't be "
        "re-encrypted now. Close it and try again; the file was not changed."
    )


def _open_exclusive(path: Path, key: DataKey | None, cipher: str) -> apsw.Connection:
    """A connection that alone may read or write ``path`` until it is closed."""
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI)
    try:
        conn.setbusytimeout(_BUSY_MS)
        if key is not None:
            apply_key(conn, key, cipher)
        # Leaving WAL mode needs every other connection gone, and folds the WAL in.
        if scalar(conn, "PRAGMA journal_mode = DELETE") != "delete":
            raise _busy(path)
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("COMMIT")  # the lock stays: exclusive locking mode keeps it until close
    except (apsw.BusyError, apsw.LockedError) as exc:
        conn.close()
        raise _busy(path) from exc
    except apsw.Error as exc:
        conn.close()
        raise StorageError(f"Can't open {path} to re-encrypt it: {exc}.") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _verify(path: Path, key: DataKey | None, expected: dict[str, int]) -> None:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READWRITE)
    try:
        if key is not None:
            apply_key(conn, key)
        found = table_counts(conn)
    except apsw.Error as exc:
        raise StorageError(f"The re-encrypted copy {path} does not open ({exc}).") from exc
    finally:
        conn.close()
    if found != expected:
        names = expected.keys() | found.keys()
        differ = sorted(k for k in names if found.get(k) != expected.get(k))
        raise StorageError(
            f"The re-encrypted copy {path} does not match the original (row counts differ in "
            f"{', '.join(differ)}); the original was kept as it was."
        )


def remove_leftover(path: Path) -> None:
    """Delete the half-written copy an interrupted `recrypt` of ``path`` left, if any."""
    path.with_name(path.name + TMP_SUFFIX).unlink(missing_ok=True)


def recrypt(
    path: Path,
    *,
    old: DataKey | None,
    new: DataKey,
    old_cipher: str = CIPHER,
    progress: Progress | None = None,
    before_swap: Callable[[Path], None] | None = None,
) -> dict[str, int]:
    """Rewrite ``path`` under the key ``new`` (and `CIPHER`), checked, atomically.

    Args:
        path: the SQLite file; nobody else may have it open.
        old: the key it is encrypted with now (None: plaintext).
        old_cipher: the cipher it is encrypted with now (ignored for plaintext).
        new: the key to encrypt it with.
        progress: told how far it is, 0.0 to 1.0: the copy up to 0.85, checked at 0.95,
            swapped in at 1.0.
        before_swap: called with the checked copy just before it replaces the original
            (to keep a backup of it, say).

    Returns:
        The rows per table, as checked in the copy.

    Raises:
        StorageError: another connection has the file open, or the copy failed or did not
            match; the original is unchanged.
    """
    path = Path(path)
    tmp = path.with_name(path.name + TMP_SUFFIX)
    src = _open_exclusive(path, old, old_cipher)
    try:
        remove_leftover(path)  # only now: the copy of a Hippo still at work is its own
        counts = table_counts(src)
        os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        copied = None if progress is None else (lambda share: progress(share * _COPY_SHARE))
        copy_into(src, tmp, key=new, progress=copied, expected_bytes=path.stat().st_size)
        fsync_path(tmp)
        _verify(tmp, new, counts)  # reads every page again: the copy's last stretch
        if progress is not None:
            progress(_CHECKED_SHARE)
        if before_swap is not None:
            before_swap(tmp)
        os.replace(tmp, path)
        fsync_path(path.parent, directory=True)
        if progress is not None:
            progress(1.0)
    except apsw.Error as exc:
        tmp.unlink(missing_ok=True)
        raise StorageError(
            f"Could not re-encrypt {path}: {exc}. The file was not changed; free some disk "
            "space if it is full, and start Hippo again."
        ) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    return counts
