"""SQLite's errors become Hippo's, once, where they arise: on the data file's connections.

Every connection ``connect`` opens is a ``DataConnection``: an apsw error raised by a
statement, by reading its rows or by a ``with conn:`` commit leaves it as an
``SQLiteError`` whose message says what it means for the data file and what to do
(a full disk, a busy file, a read-only folder) and whose ``__cause__`` is apsw's error.
The raised class derives from both ``SQLiteError`` and apsw's own class
(``SQLiteFullError`` is an ``apsw.FullError``), so code that tells kinds apart keeps
working; nothing above the data layer needs to know apsw to explain a failure.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import apsw

from assistant.errors import SQLiteError, StorageError

__all__ = ["DataConnection", "disk_full", "storage_error", "translated", "write_failed"]

# Not failures: apsw's signal that a cursor has no more rows to give.
_KEPT = (apsw.ExecutionCompleteError,)
_TELLING = (
    apsw.FullError,
    apsw.BusyError,
    apsw.LockedError,
    apsw.ReadOnlyError,
    apsw.IOError,
    apsw.CantOpenError,
)
_VARIANTS: dict[type[apsw.Error], type[SQLiteError]] = {}


def write_failed(
    exc: apsw.Error, path: Path | str, *, refusal: str | None = None, os_errno: int = 0
) -> StorageError:
    """What a failed write to the data file at ``path`` means, and what to do next.

    SQLite rolls the failed statement's transaction back, so what was saved before
    it is intact: each message says so, since a user's first worry is their memories.
    The cause is looked for along the chain: after SQLite's own rollback, the
    enclosing savepoint's fails too ("no transaction is active"), hiding it.

    Args:
        exc: SQLite's error.
        path: the data file, as messages name it.
        refusal: why the connection was opened for reading only (a damaged file, a
            read-only folder, a full disk), said for any write it refuses.
        os_errno: the OS error behind an I/O error (``Connection.system_errno``): a
            full disk often shows as an I/O error (the WAL index can't grow), not
            as SQLite's "full".
    """
    if isinstance(exc, SQLiteError):  # translated already, where it arose
        return exc
    exc = _cause(exc)
    if refusal and isinstance(exc, apsw.ReadOnlyError):
        return StorageError(refusal)
    if isinstance(exc, apsw.FullError) or (
        isinstance(exc, apsw.IOError | apsw.CantOpenError) and os_errno == errno.ENOSPC
    ):
        return StorageError(disk_full(path))
    if isinstance(exc, apsw.BusyError | apsw.LockedError):
        return StorageError(
            f"Hippo's data file ({path}) is busy: another Hippo (`hippo sleep`, say) is "
            "writing to it. Try again in a moment; nothing was lost."
        )
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError):
        return StorageError(
            f"Hippo's data file ({path}) is damaged where this reads ({exc}). `hippo doctor` "
            "checks it and names the backup to restore; what still reads can be exported "
            "with `hippo profile export`."
        )
    if isinstance(exc, apsw.ReadOnlyError | apsw.IOError | apsw.CantOpenError):
        return StorageError(
            f"Hippo could not write its data file ({path}): {exc}. Check the disk and the "
            "file's permissions, then try again; everything saved before is intact."
        )
    return StorageError(f"Hippo's data file ({path}) could not be written: {exc}.")


def disk_full(path: Path | str) -> str:
    """The disk holding ``path`` is full: how much is free, and what to do."""
    try:
        found = os.statvfs(Path(path).parent)
        free = f"{found.f_bavail * found.f_frsize / 1e6:.0f} MB free"
    except (OSError, AttributeError):  # no statvfs on Windows
        free = "no room left"
    return (
        f"The disk holding {path} is full ({free}), so nothing more can be saved. Free "
        "some space and try again; everything saved before is intact, and reading, "
        "searching and exporting still work."
    )


def storage_error(exc: BaseException, path: Path | str) -> StorageError | None:
    """What ``exc`` means for the data file at ``path`` if it is SQLite's error, else None."""
    return write_failed(exc, path) if isinstance(exc, apsw.Error) else None


def _cause(exc: apsw.Error) -> apsw.Error:
    """The first error along ``exc``'s chain that says why a write failed, else ``exc``."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, _TELLING):
            return seen
        seen = seen.__cause__ or seen.__context__
    return exc


def translated(exc: apsw.Error, conn: apsw.Connection) -> SQLiteError:
    """``exc``, raised on ``conn``, as an ``SQLiteError`` that is also an instance of
    ``exc``'s apsw class."""
    kind = type(exc)
    variant = _VARIANTS.get(kind)
    if variant is None:
        made = type(f"SQLite{kind.__name__}", (SQLiteError, kind), {"__module__": __name__})
        variant = _VARIANTS.setdefault(kind, made)
    path = getattr(conn, "shown_path", conn.filename)
    try:
        os_errno = conn.system_errno
    except apsw.Error:  # closed
        os_errno = 0
    said = write_failed(exc, path, refusal=getattr(conn, "refusal", None), os_errno=os_errno)
    error = variant(str(said))
    setattr(error, "os_errno", os_errno)  # noqa: B010  (the OS error, for `read_only`)
    for name in ("result", "extendedresult", "error_offset"):  # what apsw's error carries
        if hasattr(exc, name):
            setattr(error, name, getattr(exc, name))
    return error


def _passes(exc: apsw.Error) -> bool:
    return isinstance(exc, (SQLiteError, *_KEPT))


class DataCursor(apsw.Cursor):
    """A cursor whose SQLite errors arrive as ``SQLiteError`` (see the module)."""

    def _failed(self, exc: apsw.Error) -> SQLiteError:
        return translated(exc, self.connection)

    def execute(self, *args: Any, **kwargs: Any) -> apsw.Cursor:
        try:
            return super().execute(*args, **kwargs)
        except apsw.Error as exc:
            if _passes(exc):
                raise
            raise self._failed(exc) from exc

    def executemany(self, *args: Any, **kwargs: Any) -> apsw.Cursor:
        try:
            return super().executemany(*args, **kwargs)
        except apsw.Error as exc:
            if _passes(exc):
                raise
            raise self._failed(exc) from exc

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except apsw.Error as exc:
            if _passes(exc):
                raise
            raise self._failed(exc) from exc

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except apsw.Error as exc:
            if _passes(exc):
                raise
            raise self._failed(exc) from exc

    @property
    def get(self) -> Any:
        """The rows as apsw's ``Cursor.get`` gives them."""
        try:
            return apsw.Cursor.get.__get__(self)
        except apsw.Error as exc:
            if _passes(exc):
                raise
            raise self._failed(exc) from exc


class DataConnection(apsw.Connection):
    """A connection to the data file whose SQLite errors arrive as ``SQLiteError``.

    ``with conn:`` is a write transaction that takes the write lock first (``BEGIN
    IMMEDIATE``), waiting out the busy timeout while another connection writes. Most
    such blocks read before they write: begun deferred, their read could not become a
    write once another connection (the embedder's thread, `hippo sleep`) had written,
    and SQLite would refuse it at once as busy, without waiting. (apsw's own
    ``transaction_mode`` would do the same, but it waits holding the GIL, so the writer
    it waits for, if in this process, can't finish.) Nested blocks are savepoints.

    Attributes:
        shown_path: the file as messages name it (set by ``connect``).
        refusal: set where the connection reads only (``connect`` says why: a
            damaged file, a read-only folder, a full disk); every write it refuses
            says this.
    """

    shown_path: str
    refusal: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shown_path = self.filename  # never the URI: a keyed one carries the key
        self.cursor_factory = DataCursor
        self._began: list[bool] = []  # per open block: whether it began the transaction

    def __enter__(self) -> DataConnection:
        began = not self.in_transaction
        if began:
            # Waits (GIL released) while the file is busy. A connection that reads only
            # begins deferred: a block that only reads goes through, a write is refused.
            self.execute("BEGIN" if self.refusal else "BEGIN IMMEDIATE")
        try:
            super().__enter__()
        except BaseException:
            if began:
                self.execute("ROLLBACK")
            raise
        self._began.append(began)
        return self

    def __exit__(self, *exc_info: Any) -> Any:
        began = self._began.pop()
        try:
            try:
                result = super().__exit__(*exc_info)
            except apsw.Error as exc:  # the savepoint's release failed
                if _passes(exc):
                    raise
                raise translated(exc, self) from exc
            if began:  # a full disk shows at the commit in WAL mode (translated there)
                self.execute("ROLLBACK" if exc_info[0] is not None else "COMMIT")
        except BaseException:
            if began and self.in_transaction:
                self.execute("ROLLBACK")  # nothing half-written stays
            raise
        return result
