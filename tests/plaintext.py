"""Reading an encrypted data file's pages as plaintext, outside SQLite, for tests.

SQLite3 Multiple Ciphers' ChaCha20-Poly1305 (as in sqleet): each page keeps 32 bytes at
its end, a 16-byte nonce then a 16-byte Poly1305 tag. With counter = the nonce's last
4 bytes (little-endian) XOR the page number, a one-time key is ChaCha20(key, nonce[:12],
counter) over 64 zero bytes; its first half authenticates the page (all but the tag),
its second half decrypts the page from byte 24 on page 1 (where the first 16 bytes are
the salt, the next 8 plaintext) and from byte 0 on the others, with counter + 1.

Decrypting every page here, free ones and old WAL frames included, shows what SQLite
would never return: the leftovers a forget must not leave.
"""

from __future__ import annotations

import struct
from pathlib import Path

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.poly1305 import Poly1305

from tests.conftest import TEST_DB_KEY

__all__ = ["decrypted_pages", "plaintext_bytes"]

_RESERVED = 32
_PAGE1_OFFSET = 24
_WAL_HEADER = 32
_FRAME_HEADER = 24


def _stream(key: bytes, nonce: bytes, counter: int, data: bytes) -> bytes:
    """``data`` XOR ChaCha20 from block ``counter``; the 32-bit counter wraps to 0, as in
    sqleet (cryptography refuses to wrap, so the stream is cut where it does)."""
    room = ((1 << 32) - counter) * 64
    if len(data) > room:
        return _stream(key, nonce, counter, data[:room]) + _stream(key, nonce, 0, data[room:])
    cipher = Cipher(algorithms.ChaCha20(key, struct.pack("<I", counter) + nonce[:12]), mode=None)
    return cipher.encryptor().update(data)


def _page(data: bytes, number: int, key: bytes) -> bytes:
    """One page decrypted, its tag checked (AssertionError if it does not verify)."""
    n = len(data) - _RESERVED
    nonce, tag = data[n : n + 16], data[n + 16 :]
    counter = (struct.unpack("<I", nonce[12:16])[0] ^ number) & 0xFFFFFFFF
    otk = _stream(key, nonce, counter, bytes(64))
    mac = Poly1305(otk[:32])
    mac.update(data[: n + 16])
    mac.verify(tag)
    offset = _PAGE1_OFFSET if number == 1 else 0
    body = _stream(otk[32:], nonce, (counter + 1) & 0xFFFFFFFF, data[offset:n])
    head = b"SQLite format 3\x00" + data[16:24] if number == 1 else b""
    return head + body


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
