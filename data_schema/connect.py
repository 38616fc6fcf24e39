"""Open Hippo's one SQLite file: bundled SQLite (apsw), encryption, sqlite-vec, WAL, busy timeout.

The standard library's ``sqlite3`` cannot load extensions on many Pythons (macOS's
among them), so Hippo uses apsw, which ships its own SQLite with FTS5 and loads
extensions from wheels on Linux, macOS and Windows; its apsw-sqlite3mc build also
encrypts every page (see `cipher`). A new file is encrypted with the key its
`KeySource` gives; a plaintext file from an older Hippo opens as it is until
``assistant.encryption`` converts it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import threading
import weakref
from pathlib import Path

import apsw

from assistant.errors import DataKeyError, ExtensionLoadError, StorageError
from data_schema.cipher import (
    CIPHERS,
    DataKey,
    EnvironmentKey,
    KeySource,
    file_state,
    open_keyed,
    open_unchanging,
)
from data_schema.damage import known_damage
from data_schema.read_only import cannot_write, read_only_reason, wal_is_empty
from data_schema.rows import scalar
from data_schema.sqlite_errors import DataConnection, storage_error, write_failed

__all__ = [
    "BUSY_TIMEOUT_MS",
    "Database",
    "connect",
    "default_keys",
    "sqlite_vec_version",
    "storage_error",
    "write_failed",
]

BUSY_TIMEOUT_MS = 5000
_WRITE_FAILURES = (apsw.ReadOnlyError, apsw.IOError, apsw.CantOpenError, apsw.FullError)
# Connections of ended threads kept for the next threads: the app runs each background
# job in a new thread, and opening a connection (key, sqlite-vec, pragmas, pages to
# decrypt again) costs more than most of those jobs.
_IDLE_KEPT = 2
CACHE_KIB = 32 * 1024


def _create_private(path: Path) -> None:
    """Create the data file (and its folder) readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        # SQLite gives the -wal and -shm files the main file's mode, so 0600 here covers all.
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)


@functools.cache
def _sqlite_vec_path() -> str:
    """Where the sqlite-vec extension lies, found without importing its package.

    Importing ``sqlite_vec`` also imports the stdlib sqlite3 and numpy (~0.1 s at start-up);
    the package is only a folder holding the compiled ``vec0`` library.
    """
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise ExtensionLoadError(
            "The sqlite-vec package is not installed, so Hippo can't search by meaning. "
            "Reinstall Hippo (`pip install --force-reinstall hippo-memory`) or run "
            "`pip install sqlite-vec`."
        )
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


def _load_sqlite_vec(conn: apsw.Connection) -> None:
    path = _sqlite_vec_path()
    try:
        conn.enable_load_extension(True)
        conn.load_extension(path)
    except apsw.Error as exc:
        raise ExtensionLoadError(
            f"SQLite could not load the sqlite-vec extension from {path}: {exc}. Reinstall "
            "sqlite-vec for this platform (`pip install --force-reinstall sqlite-vec`); Hippo "
            "needs it for its memory index."
        ) from exc
    finally:
        conn.enable_load_extension(False)


def default_keys() -> KeySource:
    """The key a bare call uses: ``HIPPO_DB_KEY``'s (`EnvironmentKey`). Hippo's fronts
    pass their key store (``assistant.datakey``): the store never imports the engine."""
    return EnvironmentKey()


def _open_with_any_cipher(
    path: Path, key: DataKey, busy_timeout_ms: int, *, unchanging: bool = False
) -> apsw.Connection | None:
    """A connection that reads ``path`` with ``key`` under one of `CIPHERS`; None: none does.

    The current cipher is tried first: a file of an older Hippo costs one more failed
    first read (~0.2 ms) until it is rewritten. The busy timeout is set before that
    first read: it waits for the file's lock like any other (another connection
    recovering the WAL or writing in exclusive mode), where it was refused at once.
    """
    for cipher in CIPHERS:
        try:
            if unchanging:
                conn = open_unchanging(path, key, cipher=cipher, factory=DataConnection)
            else:
                conn = open_keyed(path, key, cipher=cipher, create=False, factory=DataConnection)
        except apsw.NotADBError:
            continue
        conn.setbusytimeout(busy_timeout_ms)
        try:
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        except apsw.NotADBError:
            conn.close()
            continue
        return conn
    return None


def _open_keyed(
    name: str, keys: KeySource | None, busy_timeout_ms: int, *, unchanging: bool = False
) -> apsw.Connection:
    """A connection to ``name``, keyed as its state asks: new, plaintext or encrypted.

    ``unchanging``: read-only, writing nothing beside the file (see `open_unchanging`).
    """
    state = "plaintext" if name == ":memory:" else file_state(Path(name))
    if state == "plaintext":
        if unchanging:
            return open_unchanging(Path(name), None, factory=DataConnection)
        return DataConnection(name)
    keys = keys or default_keys()
    if state == "new":
        key = keys.for_new_file()
        if key is None:
            return DataConnection(name)
        return open_keyed(Path(name), key, factory=DataConnection)
    tried = []
    for key in keys.candidates():
        conn = _open_with_any_cipher(Path(name), key, busy_timeout_ms, unchanging=unchanging)
        if conn is None:
            tried.append(key.origin)
            continue
        keys.opened_with(key)
        return conn
    if not tried:
        raise DataKeyError(keys.missing(Path(name)))
    raise DataKeyError(keys.unreadable(Path(name), list(dict.fromkeys(tried))))


def connect(
    path: Path | str,
    *,
    migrate: bool = True,
    keys: KeySource | None = None,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> apsw.Connection:
    """Open (creating if needed) the data file with Hippo's settings.

    Args:
        path: the SQLite file, or ":memory:".
        migrate: bring the schema up to date before returning.
        keys: where the key comes from (default: keyring, HIPPO_DB_KEY or the key file,
            as `default_keys` finds them).
        busy_timeout_ms: how long a statement waits for another connection's write lock
            before it fails with `apsw.BusyError`.

    Returns:
        An open apsw connection in autocommit mode (use ``with conn:`` for transactions).

    Raises:
        StorageError: the file can't be opened or is not a database.
        DataKeyError: the file is encrypted and no key at hand opens it.
        ExtensionLoadError: sqlite-vec can't be loaded.
        MigrationError: a migration failed (the file is left as it was).
    """
    name = str(path)
    if name != ":memory:":
        try:
            _create_private(Path(name))
        except OSError as exc:
            raise StorageError(
                f"Can't create Hippo's data file at {name}: {exc.strerror}. "
                "Choose another place with --data-dir or HIPPO_DATA_DIR."
            ) from exc
    refusal = None if name == ":memory:" else known_damage(Path(name))
    try:
        try:
            conn = _ready(name, keys, busy_timeout_ms, refusal, migrate=migrate)
        except _WRITE_FAILURES as exc:
            why = read_only_reason(Path(name), exc)
            if why is None or not wal_is_empty(Path(name)):
                raise
            conn = _ready(name, keys, busy_timeout_ms, refusal or why, unchanging=True)
    except (apsw.NotADBError, apsw.CorruptError) as exc:
        raise StorageError(
            f"{name} is not a readable Hippo database ({exc}). Restore a backup: "
            "`hippo doctor` names the newest good one, `hippo backup list` lists them all, "
            "and `hippo backup restore NAME` puts one back (this file is kept aside)."
        ) from exc
    except apsw.CantOpenError as exc:
        raise StorageError(
            f"Can't open Hippo's data file at {name}: {str(exc).rstrip('.')}. Check the "
            "folder's permissions, "
            "or choose another place with --data-dir or HIPPO_DATA_DIR."
        ) from exc
    return conn


def _ready(
    name: str,
    keys: KeySource | None,
    busy_timeout_ms: int,
    refusal: str | None,
    *,
    migrate: bool = False,
    unchanging: bool = False,
) -> apsw.Connection:
    """A connection to ``name`` with Hippo's settings; one that reads only where
    ``refusal`` says why it may not write (or the OS opened the file read-only)."""
    conn = _open_keyed(name, keys, busy_timeout_ms, unchanging=unchanging)
    try:
        if isinstance(conn, DataConnection):
            conn.shown_path = name
        conn.setbusytimeout(busy_timeout_ms)
        _load_sqlite_vec(conn)
        conn.execute("PRAGMA foreign_keys = ON")
        if name != ":memory:" and refusal is None and conn.readonly("main"):
            refusal = cannot_write(Path(name))  # the OS would only let SQLite read it
        if refusal is not None:
            conn.execute("PRAGMA query_only = ON")
            if isinstance(conn, DataConnection):
                conn.refusal = refusal
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # reads at all?
            return conn
        if name != ":memory:":
            # Before anything is written (WAL mode writes the header): a new file can then
            # give its free pages back a batch at a time (see `data_schema.compact`); on
            # an older file this waits for its next VACUUM.
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            # Pages of an encrypted file are decrypted each time they come from the OS:
            # a larger cache keeps the hot ones (sqlite-vec's vector chunks, ~1.5 MB
            # each) decrypted. Allocated as used, so a small file pays nothing.
            conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        if migrate:
            from data_schema.migrations import apply_migrations

            apply_migrations(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def sqlite_vec_version(conn: apsw.Connection) -> str:
    """The loaded sqlite-vec's version, e.g. ``v0.1.9``."""
    return str(scalar(conn, "SELECT vec_version()"))


class Database:
    """One data file, with one connection per thread (SQLite's rule for WAL safety).

    A thread that ends hands its connection to the next new thread (a few are kept), or
    closes it.

    Args:
        path: the SQLite file.
        keys: where its key comes from (see `connect`); asked once, then kept.
        busy_timeout_ms: how long each connection waits for another's write lock (see
            `connect`).
    """

    def __init__(
        self,
        path: Path | str,
        keys: KeySource | None = None,
        *,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        self.path = Path(path)
        self.keys = keys or default_keys()
        self.busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[apsw.Connection] = []
        self._idle: list[apsw.Connection] = []  # of ended threads, for the next ones
        self._migrated = False

    def refuse_writes(self, reason: str) -> None:
        """From now on every connection to the file reads only, and says ``reason`` for a
        write (new ones learn it from the mark `data_schema.damage` keeps)."""
        with self._lock:
            for conn in self._all:
                # One in use in another thread keeps writing until that thread ends.
                with contextlib.suppress(apsw.Error):
                    conn.execute("PRAGMA query_only = ON")
                    if isinstance(conn, DataConnection):
                        conn.refusal = reason

    def write_failed(self, exc: apsw.Error) -> StorageError:
        """What SQLite's error ``exc`` on a write means for this file (see `write_failed`)."""
        return write_failed(exc, self.path)

    def storage_error(self, exc: BaseException) -> StorageError | None:
        """What ``exc`` means for this file if it is SQLite's error, else None."""
        return storage_error(exc, self.path)

    @property
    def conn(self) -> apsw.Connection:
        """This thread's connection: one an ended thread left, or a new one."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            with self._lock:
                if self._idle:
                    conn = self._idle.pop()
                else:
                    conn = connect(
                        self.path,
                        migrate=not self._migrated,
                        keys=self.keys,
                        busy_timeout_ms=self.busy_timeout_ms,
                    )
                    self._migrated = True
                    self._all.append(conn)
            self._local.conn = conn
            # Handed on or closed when its thread ends: the app runs each background job
            # (counting the queues every few seconds, say) in a new thread, and each one's
            # connection, with its file descriptors, stayed open until the engine closed.
            weakref.finalize(threading.current_thread(), self._release, conn)
        return conn

    def _release(self, conn: apsw.Connection) -> None:
        """A thread ended: keep its connection for the next thread, or close it."""
        with self._lock:
            if not any(open_ is conn for open_ in self._all):
                return  # `close` closed it
            # Only one at rest: a cursor abandoned mid-loop would hold a read snapshot,
            # and the next thread would read the file as it was.
            if len(self._idle) < _IDLE_KEPT and conn.txn_state() == apsw.SQLITE_TXN_NONE:
                self._idle.append(conn)
                return
            self._all = [open_ for open_ in self._all if open_ is not conn]
        with contextlib.suppress(apsw.Error):
            conn.close()

    def close(self) -> None:
        """Close every connection this object opened."""
        with self._lock:
            for conn in self._all:
                # One busy in a background thread that did not stop in time is left to
                # that daemon thread (it ends with the process); the journal keeps the file safe.
                with contextlib.suppress(apsw.ThreadingViolationError):
                    conn.close()
            self._all.clear()
            self._idle.clear()
        self._local = threading.local()
