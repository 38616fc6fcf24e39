"""Text that is not text: bytes that are not UTF-8, smuggled into a Python string.

Python hands over command-line arguments, file names and (in the C locale) stdin with
each byte that is not UTF-8 turned into a lone surrogate (U+DC80-U+DCFF, the
"surrogateescape" handler); a JSON ``"\\ud800"`` escape makes one too. SQLite stores
UTF-8 only, so such a string fails at the first write, often inside a transaction that
held good rows as well. Checking it first gives a clear error and loses nothing.
"""

from __future__ import annotations

import os
import re

__all__ = ["not_utf8", "printable_path"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def not_utf8(text: str) -> str | None:
    """Where ``text`` stops being storable text, in words; None if it is all text.

    Example: ``"byte 0xff at character 4"`` for ``"bad \\udcff"`` (a byte that was not
    UTF-8), ``"a lone surrogate U+D800 at character 1"`` otherwise.
    """
    found = _SURROGATE.search(text)
    if found is None:
        return None
    code = ord(found.group())
    at = found.start() + 1
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape's stand-in for one raw byte
        return f"byte 0x{code - 0xDC00:02x} at character {at}"
    return f"a lone surrogate U+{code:04X} at character {at}"


def printable_path(path: str | os.PathLike[str]) -> str:
    """``path`` as a string any terminal or UTF-8 file can take.

    A name holding bytes that are not UTF-8 shows them as ``\\xff`` escapes, rather than
    failing to print (or to be stored).
    """
    return os.fsencode(path).decode("utf-8", "backslashreplace")
