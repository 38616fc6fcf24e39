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

from pathlib import Path
from typing import Any

import apsw

from assistant.errors import SQLiteError, StorageError

__all__ = ["DataConnection", "storage_error", "translated", "write_failed"]

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


def write_failed(exc: apsw.Error, path: Path | str) -> StorageError:
    """What a failed write to the data file at ``path`` means, and what to do next.

    SQLite rolls the failed statement's transaction back, so what was saved before
    it is intact: each message says so, since a user's first worry is their memories.
    The cause is looked for along the chain: after SQLite's own rollback, the
    enclosing savepoint's fails too ("no transaction is active"), hiding it.
    """
    if isinstance(exc, SQLiteError):  # translated already, where it arose
        return exc
    exc = _cause(exc)
    if isinstance(exc, apsw.FullError):
        return StorageError(
            f"The disk holding Hippo's data file ({path}) is full, so nothing more can be "
            "saved. Free some space and try again; everything saved before is intact."
        )
    if isinstance(exc, apsw.BusyError | apsw.LockedError):
        return StorageError(
            f"Hippo's data file ({path}) is busy: another Hippo (`hippo sleep`, say) is "
            "writing to it. Try again in a moment; nothing was lost."
        )
    if isinstance(exc, apsw.ReadOnlyError | apsw.IOError | apsw.CantOpenError):
        return StorageError(
            f"Hippo could not write its data file ({path}): {exc}. Check the disk and the "
            "file's permissions, then try again; everything saved before is intact."
        )
    return StorageError(f"Hippo's data file ({path}) could not be written: {exc}.")


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


def translated(exc: apsw.Error, path: Path | str) -> SQLiteError:
    """``exc`` as an ``SQLiteError`` that is also an instance of ``exc``'s apsw class."""
    kind = type(exc)
    variant = _VARIANTS.get(kind)
    if variant is None:
        made = type(f"SQLite{kind.__name__}", (SQLiteError, kind), {"__module__": __name__})
        variant = _VARIANTS.setdefault(kind, made)
    error = variant(str(write_failed(exc, path)))
    for name in ("result", "extendedresult", "error_offset"):  # what apsw's error carries
        if hasattr(exc, name):
            setattr(error, name, getattr(exc, name))
    return error


def _passes(exc: apsw.Error) -> bool:
    return isinstance(exc, (SQLiteError, *_KEPT))


class DataCursor(apsw.Cursor):
    """A cursor whose SQLite errors arrive as ``SQLiteError`` (see the module)."""

    def _failed(self, exc: apsw.Error) -> SQLiteError:
        connection = self.connection
        return translated(exc, getattr(connection, "shown_path", connection.filename))

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
    """

    shown_path: str

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shown_path = self.filename  # never the URI: a keyed one carries the key
        self.cursor_factory = DataCursor
        self._began: list[bool] = []  # per open block: whether it began the transaction

    def __enter__(self) -> DataConnection:
        began = not self.in_transaction
        if began:
            self.execute("BEGIN IMMEDIATE")  # waits (GIL released) while the file is busy
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
                raise translated(exc, self.shown_path) from exc
            if began:  # a full disk shows at the commit in WAL mode (translated there)
                self.execute("ROLLBACK" if exc_info[0] is not None else "COMMIT")
        except BaseException:
            if began and self.in_transaction:
                self.execute("ROLLBACK")  # nothing half-written stays
            raise
        return result
