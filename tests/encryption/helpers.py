"""Shared pieces of the encryption tests: an in-memory keyring, and an old plaintext file."""

from __future__ import annotations

from pathlib import Path

import keyring
import keyring.backend
import keyring.errors

from data_schema.cipher import NoEncryption
from data_schema.connect import connect

__all__ = ["SENTENCE", "MemoryKeyring", "plaintext_file"]

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
    from data_schema.cipher import table_counts

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
