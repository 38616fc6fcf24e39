"""Encryption of the data file at rest: SQLite3 Multiple Ciphers, AEGIS-256.

apsw-sqlite3mc is apsw built with SQLite3 Multiple Ciphers: every page (of the file and
of its WAL) is encrypted and authenticated as SQLite writes it, and decrypted each time
it is read from the OS. Hippo's key is 32 random bytes, passed raw (``x'..'``): a
passphrase would be run through a KDF on every connection (~0.1 s each; Hippo opens one
per thread), a raw key costs nothing. Where keys come from is the caller's business
(`KeySource`).

The cipher is AEGIS-256, an authenticated cipher built on the AES round function: with
the AES instructions every desktop CPU of the last decade has, it decrypts a page about
six times as fast as ChaCha20-Poly1305, which Hippo used before. That is what a large
file's reads cost: a search at a million messages decrypts ~50 MB of vector pages.
Files written with an older cipher (`OLDER_CIPHERS`) still open; `assistant.encryption`
rewrites them with `CIPHER` at the next start.

Copies (``VACUUM INTO``) of an encrypted file are encrypted with the same key; a copy
under another key, or from a plaintext file, names its key in the target's URI.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

import apsw

from assistant.errors import DataKeyError
from data_schema.rows import scalar
from data_schema.sqlite_errors import write_failed

__all__ = [
    "CIPHER",
    "CIPHERS",
    "CIPHER_NAMES",
    "OLDER_CIPHERS",
    "DataKey",
    "EnvironmentKey",
    "FileState",
    "KeySource",
    "NoEncryption",
    "Progress",
    "apply_key",
    "cipher_of",
    "copy_into",
    "file_state",
    "fsync_path",
    "keyed_uri",
    "open_keyed",
    "open_unchanging",
    "opens_with",
    "table_counts",
]

CIPHER = "aegis"
"""What every file Hippo writes is encrypted with (sqlite3mc's name; AEGIS-256 by default)."""
OLDER_CIPHERS = ("chacha20",)
"""What older Hippos wrote with: still read, rewritten with `CIPHER` at the next start."""
CIPHERS = (CIPHER, *OLDER_CIPHERS)
CIPHER_NAMES = {"aegis": "AEGIS-256", "chacha20": "ChaCha20-Poly1305"}
KEY_BYTES = 32
_SQLITE_MAGIC = b"SQLite format 3\x00"

FileState = Literal["new", "plaintext", "encrypted"]
Progress = Callable[[float], None]
"""Told how far a long copy is, from 0.0 to 1.0."""


@dataclass(frozen=True)
class DataKey:
    """A 256-bit key for the data file, and where it came from (for messages, never the key).

    Args:
        secret: the 32 key bytes.
        origin: e.g. "the system keyring" or "HIPPO_DB_KEY".
    """

    secret: bytes = field(repr=False)
    origin: str

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_BYTES:
            raise ValueError(f"a data key has {KEY_BYTES} bytes, not {len(self.secret)}")

    @property
    def hex(self) -> str:
        """The key as 64 hex digits."""
        return self.secret.hex()


class KeySource(Protocol):
    """Where `connect` gets keys: the key for a new file, and those to try on an encrypted one."""

    def for_new_file(self) -> DataKey | None:
        """The key to encrypt a new file with (made and stored if needed); None: plaintext."""
        ...

    def candidates(self) -> Iterable[DataKey]:
        """The keys to try on an encrypted file, the usual one first (may be lazy)."""
        ...

    def opened_with(self, key: DataKey) -> None:
        """``key`` opened the file (a source may promote a key left by an interrupted rekey)."""
        ...

    def missing(self, path: Path) -> str:
        """What to tell the user when no key opens ``path``: where it looked, what to do."""
        ...

    def unreadable(self, path: Path, tried: Sequence[str]) -> str:
        """What to tell the user when the keys from ``tried`` (their origins) don't open
        ``path``: a wrong key, or a file that is no longer a database, and what to do."""
        ...


class NoEncryption:
    """Keys for files kept in plaintext: for benchmarks that compare, and tests of old files."""

    def __init__(self) -> None:
        self.notices: list[str] = []

    def for_new_file(self) -> DataKey | None:
        """No key: a new file stays plaintext."""
        return None

    def candidates(self) -> Sequence[DataKey]:
        """No keys to try."""
        return ()

    def opened_with(self, key: DataKey) -> None:
        """Nothing to remember."""

    def missing(self, path: Path) -> str:
        """Why an encrypted file does not open here."""
        return f"{path} is encrypted, and it was opened without keys."

    def unreadable(self, path: Path, tried: Sequence[str]) -> str:
        """Why an encrypted file does not open here."""
        return self.missing(path)


class EnvironmentKey:
    """The key in ``HIPPO_DB_KEY`` alone: what a bare `connect` or `Database` uses.

    Hippo's fronts pass their own key store (``assistant.datakey.KeyStore``: the keyring,
    the key file, a rekey's leftovers); the store never reaches up for it. Tests and
    benches set the variable, and so can a script.
    """

    VARIABLE = "HIPPO_DB_KEY"

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._env = os.environ if environ is None else environ

    def _key(self) -> DataKey | None:
        text = self._env.get(self.VARIABLE, "").strip()
        if not text:
            return None
        try:
            return DataKey(bytes.fromhex(text), self.VARIABLE)
        except ValueError:
            raise DataKeyError(
                f"{self.VARIABLE} must hold the data file's key as {2 * KEY_BYTES} hex digits."
            ) from None

    def for_new_file(self) -> DataKey | None:
        """The variable's key.

        Raises:
            DataKeyError: the variable is not set (a new file would have no key).
        """
        key = self._key()
        if key is None:
            raise DataKeyError(
                f"No key for a new data file: set {self.VARIABLE}, or open it with `hippo`."
            )
        return key

    def candidates(self) -> Sequence[DataKey]:
        """The variable's key, if set."""
        key = self._key()
        return () if key is None else (key,)

    def opened_with(self, key: DataKey) -> None:
        """Nothing to remember."""

    def missing(self, path: Path) -> str:
        """Why an encrypted file does not open here."""
        return (
            f"{path} is encrypted and {self.VARIABLE} is not set: open it with `hippo`, "
            "which finds its key."
        )

    def unreadable(self, path: Path, tried: Sequence[str]) -> str:
        """Why the variable's key does not open ``path``."""
        return (
            f"{path} is not a readable Hippo database with the key from {self.VARIABLE}: "
            "a wrong key, or a damaged file (`hippo doctor` says which)."
        )


def file_state(path: Path) -> FileState:
    """Whether ``path`` is missing or empty, plain SQLite, or anything else (encrypted)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_SQLITE_MAGIC))
    except FileNotFoundError:
        return "new"
    if not head:
        return "new"
    return "plaintext" if head == _SQLITE_MAGIC else "encrypted"


def apply_key(conn: apsw.Connection, key: DataKey, cipher: str = CIPHER) -> None:
    """Key a freshly opened connection (before its first read) for ``cipher``."""
    conn.execute(f"PRAGMA cipher = '{_known(cipher)}'")
    # The key is hex digits only, so pasting it into the statement is safe.
    conn.execute(f"PRAGMA key = \"x'{key.hex}'\"")


def open_keyed(
    path: Path,
    key: DataKey,
    *,
    cipher: str = CIPHER,
    create: bool = True,
    factory: Callable[..., apsw.Connection] = apsw.Connection,
) -> apsw.Connection:
    """A connection to ``path`` keyed from its first moment (the key rides in the URI).

    Keyed at open, not by a later PRAGMA, so that anything apsw runs on a new connection
    (its ``connection_hooks``) already reads the file.

    ``factory`` makes the connection (``data_schema.connect`` passes its own class).

    Raises:
        apsw.NotADBError: the key (under ``cipher``) does not open the file (now, or at
            the first read).
    """
    flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI
    if create:
        flags |= apsw.SQLITE_OPEN_CREATE
    return factory(keyed_uri(path, key, cipher), flags=flags)


def open_unchanging(
    path: Path,
    key: DataKey | None,
    *,
    cipher: str = CIPHER,
    factory: Callable[..., apsw.Connection] = apsw.Connection,
) -> apsw.Connection:
    """A read-only connection to ``path`` that writes nothing beside it, not even its WAL
    index: for a file in a folder Hippo can't write to, or on a full disk.

    SQLite's ``immutable`` mode reads the file alone, without locks or the ``-shm``
    index a WAL file needs (which can't be made there). Rows still in a ``-wal`` are not
    seen: a file another Hippo writes to is opened the usual way.
    """
    uri = keyed_uri(path, key, cipher)
    uri += ("&" if "?" in uri else "?") + "immutable=1"
    return factory(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)


def opens_with(
    path: Path, key: DataKey | None, cipher: str = CIPHER, *, busy_timeout_ms: int = 5000
) -> bool:
    """Whether ``key`` (None: no key) under ``cipher`` reads the file at ``path``.

    A file Hippo can't write beside (a read-only folder, a full disk: no WAL index can
    be made) is read as it is (`open_unchanging`): that says nothing about the key.

    Raises:
        StorageError: the file stayed locked by another connection for
            ``busy_timeout_ms`` (a busy file says nothing about the key).
    """
    try:
        conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READWRITE)
    except apsw.Error:
        return False
    try:
        conn.setbusytimeout(busy_timeout_ms)
        if key is not None:
            apply_key(conn, key, cipher)
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        return True
    except (apsw.BusyError, apsw.LockedError) as exc:
        raise write_failed(exc, path) from exc
    except apsw.NotADBError:
        return False
    except apsw.Error:
        return _reads_unchanging(path, key, cipher)
    finally:
        conn.close()


def _reads_unchanging(path: Path, key: DataKey | None, cipher: str) -> bool:
    try:
        conn = open_unchanging(path, key, cipher=cipher)
    except apsw.Error:
        return False
    try:
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        return True
    except apsw.Error:
        return False
    finally:
        conn.close()


def cipher_of(path: Path, key: DataKey) -> str | None:
    """Which of `CIPHERS` the file at ``path`` is encrypted with under ``key`` (None: none)."""
    return next((cipher for cipher in CIPHERS if opens_with(path, key, cipher)), None)


def keyed_uri(path: Path, key: DataKey | None, cipher: str = CIPHER) -> str:
    """A URI naming ``path`` and, where given, the key (and cipher) to write it with."""
    uri = "file:" + urllib.parse.quote(str(Path(path).absolute()))
    if key is None:
        return uri
    return f"{uri}?cipher={_known(cipher)}&key=" + urllib.parse.quote(f"x'{key.hex}'")


def _known(cipher: str) -> str:
    """``cipher``, checked to be one Hippo reads (it is pasted into statements and URIs)."""
    if cipher not in CIPHERS:
        raise ValueError(f"unknown cipher {cipher!r}")
    return cipher


def copy_into(
    conn: apsw.Connection,
    target: Path,
    *,
    key: DataKey | None = None,
    cipher: str = CIPHER,
    progress: Progress | None = None,
    expected_bytes: int = 0,
) -> None:
    """Write a consistent, compact copy of ``conn``'s main database to ``target``.

    Args:
        conn: opened with ``SQLITE_OPEN_URI`` when ``key`` is given.
        target: a new or empty file.
        key: encrypt the copy with this key; None copies as the source is (a copy of an
            encrypted file has its key and cipher).
        cipher: the cipher to encrypt the copy with, where ``key`` is given (benchmarks
            compare with the older ones).
        progress: told the share written so far, judged by the target's size against
            ``expected_bytes`` (``VACUUM INTO`` says nothing while it runs).
        expected_bytes: about how large the copy will be (the source's size).
    """
    name = keyed_uri(target, key, cipher) if key is not None else str(target)
    if progress is None or expected_bytes <= 0:
        conn.execute("VACUUM INTO ?", (name,))
        return

    def tick() -> bool:
        try:
            written = os.stat(target).st_size
        except OSError:
            written = 0
        progress(min(written / expected_bytes, 0.99))
        return False  # False: carry on

    conn.set_progress_handler(tick, 4_000)  # ~25 rows copied between looks
    try:
        conn.execute("VACUUM INTO ?", (name,))
    finally:
        conn.set_progress_handler(None)
    progress(1.0)


def table_counts(conn: apsw.Connection) -> dict[str, int]:
    """Rows per ordinary table (shadow tables of FTS5 and vec0 included), by name."""
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
            " ORDER BY name"
        )
    ]
    return {name: scalar(conn, f'SELECT count(*) FROM "{name}"') for name in names}


def fsync_path(path: Path, *, directory: bool = False) -> None:
    """Flush ``path`` (a file, or a folder's entries) to the disk."""
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        if directory:  # Windows can't open folders; its renames are durable enough
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not directory:
            raise
    finally:
        os.close(fd)
