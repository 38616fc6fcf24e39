"""What `hippo` accepts on its command line, checked before anything is opened.

- Numbers: argparse types that refuse what would crash or mislead later (``nan``,
  ``inf``, an id past SQLite's range, ``-n -1``) with the range that is accepted.
- Text: no text argument may hold bytes that are not UTF-8 (see `assistant.textcheck`);
  paths may, as file systems allow them.
- Exit status: a usage error exits 1, like every other refusal. argparse's convention
  is 2, but Hippo's contract is simpler for scripts: 0 done, 1 refused or failed (and
  `hippo sleep`'s 3, "another run holds the lock").
- Output: stdout whose reader leaves (``hippo message search x | head -1``) is silenced, and
  the command finishes its work quietly, as Unix filters do.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import Any, NoReturn, TextIO

from assistant.errors import InvalidInput
from assistant.textcheck import not_utf8

__all__ = [
    "MAX_ID",
    "Parser",
    "QuietPipe",
    "calls",
    "change",
    "check_text",
    "count",
    "days",
    "hours",
    "importance",
    "item_id",
    "megabytes",
    "page",
    "port",
    "proposal",
    "silence",
]

MAX_ID = 2**63 - 1  # SQLite's largest rowid
MAX_TTL_HOURS = 100 * 8766  # a hundred years
# Arguments that name files: bytes that are not UTF-8 are a valid file name there (not
# in --data-dir: SQLite opens its file by a UTF-8 name).
PATH_ARGS = frozenset({"paths", "output", "path", "file"})


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors exiting 1 (see the module docstring)."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and the error, and exit 1."""
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _whole(value: str, what: str, low: int, high: int) -> int:
    text = value.strip()
    if not re.fullmatch(r"[+-]?[0-9]{1,30}", text):
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {value!r}")
    number = int(text)
    if not low <= number <= high:
        raise argparse.ArgumentTypeError(f"{what} must be from {low} to {high}, not {number}")
    return number


def _real(value: str, what: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, not {value!r}") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"{what} must be a finite number, not {value!r}")
    return number


def count(value: str) -> int:
    """How many items to show (-n): 1 to a million."""
    return _whole(value, "the count", 1, 1_000_000)


def page(value: str) -> int:
    """A page number: 1 to a million."""
    return _whole(value, "the page", 1, 1_000_000)


def port(value: str) -> int:
    """A TCP port to listen on: 1024 to 65535 (below needs root)."""
    return _whole(value, "the port", 1024, 65_535)


def days(value: str) -> int:
    """A number of days: 1 to 36,500 (a hundred years)."""
    return _whole(value, "the number of days", 1, 36_500)


def calls(value: str) -> int:
    """A cap on model calls: 1 to a million."""
    return _whole(value, "the number of calls", 1, 1_000_000)


def megabytes(value: str) -> int:
    """A size limit in megabytes: 1 to a million."""
    return _whole(value, "the size in MB", 1, 1_000_000)


def item_id(value: str) -> int:
    """The id of a stored item: 1 to 2**63 - 1, SQLite's range."""
    return _whole(value, "an id", 1, MAX_ID)


def hours(value: str) -> float:
    """A time to live in hours: above 0, at most a hundred years.

    0 is refused rather than read as "the default": an event that expires as it is
    logged would never be seen, and silently keeping it a week is not what was asked.
    """
    number = _real(value, "the time to live")
    if not 0 < number <= MAX_TTL_HOURS:
        raise argparse.ArgumentTypeError(
            f"the time to live must be more than 0 and at most {MAX_TTL_HOURS} hours "
            f"(100 years), not {value!r}; leave it out to keep the event 7 days"
        )
    return number


def importance(value: str) -> float:
    """An importance: 1 to 10."""
    number = _real(value, "the importance")
    if not 1 <= number <= 10:
        raise argparse.ArgumentTypeError(f"the importance must be from 1 to 10, not {value!r}")
    return number


def numbers(value: str) -> list[int]:
    """Line numbers of a preview: ``3``, ``3,5`` or ``2-4`` (ranges and commas mixed)."""
    found: list[int] = []
    for part in value.replace(" ", "").split(","):
        bounds = re.fullmatch(r"([0-9]{1,9})(?:-([0-9]{1,9}))?", part)
        low = int(bounds.group(1)) if bounds else 0
        high = int(bounds.group(2) or low) if bounds else 0
        if not bounds or not 1 <= low <= high or high - low > 1_000_000:
            raise argparse.ArgumentTypeError(
                f"{value!r} is not a list of line numbers: give the numbers the preview "
                "shows, e.g. 3,5 or 2-4"
            )
        found += range(low, high + 1)
    return found


def _tagged_id(value: str, what: str, listing: str) -> tuple[str, int]:
    found = re.fullmatch(r"(?:(fact|core)#)?([0-9]{1,19})", value.strip())
    if found is None or not 1 <= int(found.group(2)) <= MAX_ID:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a {what} id: give a fact's id (12), or core#ID for a core "
            f"memory one, as `hippo {listing}` lists them"
        )
    return found.group(1) or "fact", int(found.group(2))


def change(value: str) -> tuple[str, int]:
    """A change id from `hippo history list`: ``fact#12``, ``core#3`` or ``12`` (a fact's).

    Returns:
        ("fact" or "core", the number).
    """
    return _tagged_id(value, "change", "history list")


def proposal(value: str) -> tuple[str, int]:
    """A proposal id from `hippo review list`: ``12`` (a fact) or ``core#3``.

    Returns:
        ("fact" or "core", the number).
    """
    return _tagged_id(value, "proposal", "review list")


def check_text(args: argparse.Namespace) -> None:
    """Refuse a text argument holding bytes that are not UTF-8, before anything is done.

    Raises:
        HippoError: naming the argument and where its first bad byte is.
    """
    for name, value in vars(args).items():
        if name in PATH_ARGS:
            continue
        for item in value if isinstance(value, list) else [value]:
            where = not_utf8(item) if isinstance(item, str) else None
            if where is not None:
                raise InvalidInput(
                    f"The {name.replace('_', '-')} argument is not UTF-8 text ({where}); nothing "
                    "was done. Hippo keeps text as UTF-8: check your terminal's encoding "
                    "(locale), or convert the text, e.g. with `iconv -f latin1 -t utf-8`."
                )


class QuietPipe:
    """stdout that goes quiet when its reader leaves, instead of raising.

    ``hippo message search x | head -1``: once `head` exits, a write raises BrokenPipeError.
    The command's work (a reply being stored, say) is finished rather than cut short,
    and its output goes to /dev/null from then on; the exit status is the command's.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write, or drop the text once the reader has left."""
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            silence(self._stream)
            return len(text)

    def flush(self) -> None:
        """Flush, or drop what is buffered once the reader has left."""
        try:
            self._stream.flush()
        except BrokenPipeError:
            silence(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def confirmed(question: str, out: TextIO) -> bool:
    """Ask ``question`` (ending "[y/N] ") and whether the answer on stdin was yes."""
    print(question, end="", file=out)
    out.flush()
    return sys.stdin.readline().strip().casefold() in ("y", "yes")


def silence(stream: TextIO) -> None:
    """Point ``stream``'s file descriptor at /dev/null (its reader has left)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
