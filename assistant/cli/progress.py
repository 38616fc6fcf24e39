"""Progress of a long step on the terminal: one line, rewritten as it grows."""

from __future__ import annotations

from typing import TextIO

from assistant.terminal import raw_stream

__all__ = ["LineProgress"]


class LineProgress:
    """Prints "STEP: NN%" on one line, rewritten as the share grows; a new line when done.

    Args:
        out: where to print (stderr, so that stdout stays the command's output). The
            carriage return that rewrites the line goes to the stream under the CLI's
            escaping one (`assistant.terminal.SafeStream`), which would print it as
            ``\\x0d``; the text goes through it.
    """

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._shown: tuple[str, int] | None = None

    def __call__(self, what: str, share: float) -> None:
        shown = (what, int(share * 100))
        if shown == self._shown:
            return
        self._shown = shown
        end = "\n" if share >= 1.0 else ""
        raw_stream(self._out).write("\r")
        self._out.write(f"{what}: {shown[1]:3d}%{end}")
        self._out.flush()
