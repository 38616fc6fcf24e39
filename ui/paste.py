"""Pasted text arrives whole, and clean of the terminal codes it may hold.

Text copied from a terminal often holds its colour codes (``ESC [31m``). Textual's input
parser (8.2) reads an ESC inside a bracketed paste as the start of a key: the rest of the
paste arrives as typed keys (ESC as ``^``), and only the text before the first ESC as the
paste, after them, so the words before the first code end up last. `PasteParser` takes
a bracketed paste out whole before that parser sees it; `install` makes the terminal
drivers use it; `clean_paste` removes the codes before the text goes into the box.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

from textual import events
from textual._xterm_parser import XTermParser

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.message import Message

__all__ = ["PasteParser", "clean_paste", "install"]

_START = "\x1b[200~"
_END = "\x1b[201~"

# CSI (colours, cursor moves; 7- and 8-bit), OSC and the other string commands up to
# their terminator, then any other ESC pair; then lone controls but tab and newline,
# and bidi overrides and isolates, which would reorder what the box shows.
_CODES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
    "|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)


def clean_paste(text: str) -> str:
    """``text`` without terminal codes, its line ends as newlines.

    Args:
        text: what the terminal pasted.

    Returns:
        The text a reader saw: colour codes, cursor moves, window titles and other
        controls removed; CR LF and lone CR made newlines; tabs kept.
    """
    return _CODES.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


class PasteParser(XTermParser):
    """Textual's terminal input parser, but a bracketed paste is one `Paste`, whole.

    Everything between the paste's start and end marks (colour codes included) becomes
    the paste's text; what lies outside goes to Textual's parser as before.
    """

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._paste: str | None = None  # the paste so far, while one arrives

    def feed(self, data: str) -> Iterable[Message]:
        """Parse ``data``, the next characters read from the terminal ("" at its end)."""
        if not data:
            yield from super().feed(data)
            return
        while data:
            if self._paste is None:
                start = data.find(_START)
                if start < 0:
                    break
                yield from super().feed(data[:start]) if start else ()
                self._paste, data = "", data[start + len(_START) :]
            else:
                searched = max(0, len(self._paste) - len(_END) + 1)
                self._paste += data
                end = self._paste.find(_END, searched)
                if end < 0:
                    return  # the rest comes with the next read
                pasted, data = self._paste[:end], self._paste[end + len(_END) :]
                self._paste = None
                yield events.Paste(pasted.replace("\x00", ""))
        if data and self._paste is None:
            yield from super().feed(data)


def install() -> None:
    """Make the terminal drivers read input with `PasteParser` (once; harmless again)."""
    if sys.platform == "win32":
        return  # Windows terminals send a paste as keys, without the marks
    from textual.drivers import linux_driver, linux_inline_driver

    for driver in (linux_driver, linux_inline_driver):
        driver.XTermParser = PasteParser  # type: ignore[attr-defined]  # built by this name
