"""Shared pieces of the encryption tests: an in-memory keyring, and an old plaintext file."""

from __future__ import annotations

from pathlib import Path

import keyring
import keyring.backend
import keyring.errors

from assistant.datakey import KeyStore
from data_schema.cipher import NoEncryption, table_counts
from data_schema.connect import connect

__all__ = ["SENTENCE", "MemoryKeyring", "plaintext_file", "row_counts"]

SENTENCE = "The spare key to the blue shed hangs behind the calendar"


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring backend that keeps secrets in a dict."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.secrets.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


def plaintext_file(path: Path, rows: int = 3000) -> dict[str, int]:
    """A data file as an older Hippo left it: plaintext, in WAL mode, with a few MB in it.

    Returns:
        Its rows per table.
    """
    conn = connect(path, keys=NoEncryption())
    conn.execute("INSERT INTO profiles(name, created_at) VALUES ('old', '2024-01-01')")
    conn.execute("CREATE TABLE filler(n INTEGER, note TEXT, pad BLOB)")
    with conn:
        for n in range(rows):
            conn.execute(
                "INSERT INTO filler VALUES (?, ?, randomblob(800))", (n, f"{SENTENCE} #{n}")
            )
    counts = table_counts(conn)
    conn.close()
    return counts


def row_counts(path: Path) -> dict[str, int]:
    """Rows per table of the data file at ``path``, opened with the keys at hand."""
    conn = connect(path, migrate=False, keys=KeyStore.from_environment())
    try:
        return table_counts(conn)
    finally:
        conn.close()
