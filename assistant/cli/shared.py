"""Helpers every CLI noun shares: JSON out, a passphrase in, a time typed by a person.

A leaf: it imports nothing of the CLI, so each noun's module can use it without
importing another noun's.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import TextIO

from assistant.errors import InvalidInput
from assistant.terminal import json_visible

__all__ = ["ask_passphrase", "dump_json", "parse_time"]


def ask_passphrase(prompt: str, *, confirm: bool) -> str:
    """A passphrase typed at the terminal (not echoed), or the first line of piped stdin."""
    import getpass

    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    typed = getpass.getpass(prompt)
    if confirm and getpass.getpass("The same again: ") != typed:
        raise InvalidInput("The two passphrases differ; nothing was written.")
    return typed


def parse_time(value: str) -> datetime:
    """A date or ISO time typed by a person (local time when it has no zone)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(
            f"{value!r} is not a date like 2026-03-01 or 2026-03-01T18:00."
        ) from None
    try:
        return moment.astimezone()
    except (ValueError, OverflowError):  # the years 1 and 9999, shifted by a time zone
        raise InvalidInput(f"{value!r} is too near the ends of the calendar to use.") from None


def dump_json(value: object, out: TextIO) -> None:
    """Write ``value`` as one line of JSON (terminal controls as JSON escapes)."""
    out.write(json_visible(json.dumps(value, ensure_ascii=False, default=str)) + "\n")
