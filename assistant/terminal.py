"""Stored text shown in a terminal is shown, never obeyed.

Memories, messages, titles and model replies may hold bytes a terminal acts on: ESC
sequences (CSI clears the screen, OSC sets the window title or writes the clipboard), BEL,
C1 controls (8-bit CSI), DEL, carriage returns that overwrite a line, and bidi overrides
and isolates that reorder what the reader sees ("Trojan source"). Every printer in the CLI
and every view in the app passes text through :func:`visible`, which writes each such
character as a readable escape (ESC becomes ``\\x1b``, U+202E becomes ``\\u202e``), so the
user sees that it is there and the terminal does nothing with it. Newline and tab stay.

:func:`json_visible` does the same for JSON text with JSON's own escapes, so the output
still parses to exactly the stored value. :func:`safe_streams` puts the escaping between
the CLI and ``sys.stdout``/``sys.stderr`` so no printer can forget it.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["SafeStream", "json_visible", "raw_stream", "safe_streams", "visible"]

# C0 controls but tab and newline, DEL, C1 controls, bidi embeddings/overrides
# (U+202A-U+202E) and isolates (U+2066-U+2069), and lone surrogates (undecodable bytes
# from a command line or a file name, which no terminal encoding can write).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible(text: str) -> str:
    """``text`` with every character a terminal would act on written as an escape.

    Args:
        text: stored or received text, about to be shown.

    Returns:
        The same text where ESC reads ``\\x1b``, BEL ``\\x07``, a C1 control ``\\x9b``, a
        bidi override ``\\u202e``; newline, tab and everything printable are unchanged.
    """
    return _UNSAFE.sub(_escape, text)


def json_visible(json_text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) safe for a terminal.

    The characters :func:`visible` escapes can only sit inside JSON strings (the syntax is
    printable ASCII), so writing them as ``\\uXXXX`` keeps the value exactly.
    """
    return _UNSAFE.sub(_json_escape, json_text)


class SafeStream(io.TextIOBase):
    """A text stream that writes through :func:`visible` to another stream.

    Attributes:
        raw: the stream underneath, for the CLI's own cursor moves (a progress line's
            carriage return), never for stored text.
    """

    def __init__(self, raw: TextIO) -> None:
        super().__init__()
        self.raw = raw

    def write(self, text: str) -> int:
        """Write ``text`` with its unsafe characters escaped; return its length."""
        self.raw.write(visible(text))
        return len(text)

    def flush(self) -> None:
        """Flush the stream underneath."""
        self.raw.flush()

    def fileno(self) -> int:
        """The file descriptor underneath (for redirecting after a broken pipe)."""
        return self.raw.fileno()

    def isatty(self) -> bool:
        """Whether the stream underneath is a terminal."""
        return self.raw.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        """The encoding of the stream underneath."""
        return getattr(self.raw, "encoding", None) or "utf-8"


def raw_stream(out: TextIO) -> TextIO:
    """The stream under a :class:`SafeStream` (or ``out`` itself), for cursor moves."""
    return out.raw if isinstance(out, SafeStream) else out


@contextmanager
def safe_streams() -> Iterator[None]:
    """Escape everything printed to ``sys.stdout`` and ``sys.stderr`` while inside."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(saved[0]), SafeStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
