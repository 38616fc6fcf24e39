"""Helpers every CLI noun shares: JSON out, a passphrase in, a time typed by a person.

A leaf: it imports nothing of the CLI, so each noun's module can use it without
importing another noun's.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from datetime import datetime
from typing import TextIO

from assistant.errors import InvalidInput
from assistant.terminal import json_visible

__all__ = [
    "add_json_options",
    "ask_passphrase",
    "dump_json",
    "dump_listing",
    "parse_time",
    "wants_json",
]


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
    out.write(_json_text(value) + "\n")


def _json_text(value: object) -> str:
    return json_visible(json.dumps(value, ensure_ascii=False, default=str))


def add_json_options(parser: argparse.ArgumentParser) -> None:
    """``--json`` (one JSON array, as `llm logs --json` prints) and ``--jsonl`` (a line each)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", action="store_true", help="print one JSON array")
    group.add_argument("--jsonl", action="store_true", help="print one JSON object a line")


def wants_json(args: argparse.Namespace) -> bool:
    """Whether the listing was asked for as JSON (``--json`` or ``--jsonl``)."""
    return bool(getattr(args, "json", False) or getattr(args, "jsonl", False))


def dump_listing(values: Iterable[object], args: argparse.Namespace, out: TextIO) -> None:
    """Write a listing's items as ``args`` asks: one JSON array, or one object a line.

    The array is written an item at a time (``[``, the items one a line with commas, ``]``),
    so a long listing is not held twice in memory, and it parses whole (`json.tool`, `jq`).
    """
    if getattr(args, "jsonl", False):
        for value in values:
            dump_json(value, out)
        return
    opened = False
    for value in values:
        out.write(",\n" if opened else "[\n")
        out.write(_json_text(value))
        opened = True
    out.write("\n]\n" if opened else "[]\n")
