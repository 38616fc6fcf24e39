"""Reading an encrypted data file's pages as plaintext, outside SQLite, for tests.

SQLite3 Multiple Ciphers' AEGIS-256 (``src/cipher_aegis.c``): each page keeps 64 bytes at
its end, a 32-byte tag then a 32-byte random nonce. A one-time key and nonce come from
the AEGIS-256 keystream of (file key, page nonce), 64 bytes, whose last 4 are replaced by
the page number (big-endian); they decrypt and authenticate the page from byte 24 on
page 1 (where the first 16 bytes are the salt, the next 8 plaintext) and from byte 0 on
the others. The ``aeg`` package binds libaegis, the implementation sqlite3mc carries.

Decrypting every page here, free ones and old WAL frames included, shows what SQLite
would never return: the leftovers a forget must not leave.
"""

from __future__ import annotations

import struct
from pathlib import Path

from aeg import aegis256

from tests.conftest import TEST_DB_KEY

__all__ = ["decrypted_pages", "plaintext_bytes"]

_TAG = 32
_NONCE = 32
_PAGE1_OFFSET = 24
_WAL_HEADER = 32
_FRAME_HEADER = 24


def _page(data: bytes, number: int, key: bytes) -> bytes:
    """One page decrypted, its tag checked (ValueError if it does not verify)."""
    n = len(data) - _TAG - _NONCE
    tag, nonce = data[n : n + _TAG], data[n + _TAG :]
    otk = aegis256.stream(key, nonce, aegis256.KEYBYTES + aegis256.NONCEBYTES)
    otk[-4:] = struct.pack(">I", number)
    offset = _PAGE1_OFFSET if number == 1 else 0
    body = aegis256.decrypt_detached(
        bytes(otk[: aegis256.KEYBYTES]), bytes(otk[aegis256.KEYBYTES :]), data[offset:n], tag
    )
    head = b"SQLite format 3\x00" + data[16:24] if number == 1 else b""
    return head + bytes(body)


def _page_size(path: Path) -> int:
    raw = path.read_bytes()[16:18]
    size = struct.unpack(">H", raw)[0]
    return 65536 if size == 1 else size


def decrypted_pages(path: Path, key_hex: str = TEST_DB_KEY) -> list[bytes]:
    """Every page of the file and every frame of its WAL, decrypted and authenticated."""
    key = bytes.fromhex(key_hex)
    size = _page_size(path)
    data = path.read_bytes()
    pages = [_page(data[i : i + size], i // size + 1, key) for i in range(0, len(data), size)]
    wal = Path(f"{path}-wal")
    raw = wal.read_bytes() if wal.exists() else b""
    at = _WAL_HEADER
    while at + _FRAME_HEADER + size <= len(raw):
        number = struct.unpack(">I", raw[at : at + 4])[0]
        frame = raw[at + _FRAME_HEADER : at + _FRAME_HEADER + size]
        pages.append(_page(frame, number, key))
        at += _FRAME_HEADER + size
    return pages


def plaintext_bytes(path: Path, key_hex: str = TEST_DB_KEY) -> bytes:
    """The file's and its WAL's pages as plaintext, joined (for `in` checks)."""
    return b"".join(decrypted_pages(Path(path), key_hex))
