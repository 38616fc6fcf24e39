"""Reading a file's bytes as text: UTF-8 first, then what older text files were written in.

A note saved years ago on Windows, or by an editor set to Latin-1, is still the user's
text: refusing it loses it. Bytes that are not UTF-8 are read as Windows-1252 as the
web reads it (Latin-1's characters, with curly quotes and the euro sign, and any byte
decodes); the result carries a note saying so, for the user to check. A file with a
UTF-16 byte-order mark is read as UTF-16. What looks like binary data (NUL bytes; or,
for what is not UTF-8, many control characters) is refused.
"""

from __future__ import annotations

import codecs
import unicodedata

__all__ = ["NotText", "decode_text"]

# Share of control characters (other than whitespace) above which bytes are not text.
_MAX_CONTROL = 0.05
_SAMPLE = 8192
_WHITESPACE = frozenset("\t\n\r\f\v")


class NotText(ValueError):
    """The bytes are binary data, not text in any encoding Hippo reads."""


def decode_text(data: bytes) -> tuple[str, str]:
    """``data`` as text, and a note naming the encoding it was read in ("" for UTF-8).

    Raises:
        NotText: ``data`` looks like binary data.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return _checked(data.decode("utf-16")), ""
        except UnicodeDecodeError:
            raise NotText("it starts like UTF-16 text but is not") from None
    if b"\x00" in data:
        raise NotText("it is a binary file")
    try:
        return data.decode("utf-8-sig"), ""  # valid UTF-8 is text, escapes and all
    except UnicodeDecodeError as exc:
        bad = exc.start
    # Windows-1252 as the web reads it: its five unassigned bytes read as in Latin-1,
    # so that any byte sequence decodes (and Latin-1 text reads the same).
    text = _checked(data.decode("cp1252", errors="hippo-latin1"))
    return text, (
        f"it is not UTF-8 (byte 0x{data[bad]:02x} at offset {bad}), so it was read as "
        "Windows-1252 (Latin-1); if its accents look wrong, convert it to UTF-8 and "
        "ingest it again"
    )


def _as_latin1(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    return exc.object[exc.start : exc.end].decode("latin-1"), exc.end


codecs.register_error("hippo-latin1", _as_latin1)


def _checked(text: str) -> str:
    sample = text[:_SAMPLE]
    controls = sum(1 for c in sample if c not in _WHITESPACE and unicodedata.category(c) == "Cc")
    if controls > 2 + _MAX_CONTROL * len(sample):  # a stray one or two is still text
        raise NotText("it looks like binary data (many control characters)")
    return text
