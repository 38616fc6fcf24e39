"""Small text helpers the screens share: sizes, speeds, dates, capabilities."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, time, timedelta

from assistant.errors import InvalidInput
from assistant.terminal import visible
from assistant.units import human_size

__all__ = [
    "capability_text",
    "clip",
    "day",
    "human_size",
    "human_speed",
    "parse_day",
    "short_date",
    "stamp",
]

# The order capabilities are listed in, most useful to a chat user first.
_CAPABILITY_ORDER = ("completion", "tools", "thinking", "vision", "embedding", "insert")


def human_speed(bytes_per_s: float) -> str:
    """A transfer speed, e.g. ``"12.3 MB/s"``; empty while unknown."""
    return f"{human_size(bytes_per_s)}/s" if bytes_per_s > 0 else ""


def short_date(moment: datetime, now: datetime | None = None) -> str:
    """A local date and time, with the year only when it isn't the current one.

    Args:
        moment: an aware datetime.
        now: the current time, to decide whether to show the year.

    Returns:
        e.g. ``"Jan 05 14:30"`` or ``"2024-03-01 09:00"``.
    """
    local = moment.astimezone()
    if now is not None and now.astimezone().year != local.year:
        return local.strftime("%Y-%m-%d %H:%M")
    return local.strftime("%b %d %H:%M")


def capability_text(capabilities: Iterable[str]) -> str:
    """Capabilities in a stable, readable order, e.g. ``"tools, thinking"``.

    ``completion`` is left out: every chat model has it.
    """
    present = set(capabilities)
    ordered = [name for name in _CAPABILITY_ORDER if name in present]
    ordered += sorted(present.difference(_CAPABILITY_ORDER))
    return ", ".join(name for name in ordered if name != "completion")


def day(moment: datetime | None) -> str:
    """A local date, e.g. ``"2026-01-05"``; empty for None."""
    return moment.astimezone().strftime("%Y-%m-%d") if moment is not None else ""


def stamp(moment: datetime | None) -> str:
    """A local date and minute, e.g. ``"2026-01-05 14:30"``; empty for None."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment is not None else ""


def clip(text: str, width: int) -> str:
    """Stored text on one line, terminal controls shown escaped, cut to ``width`` with "…"."""
    line = " ".join(visible(text).split())
    return line if len(line) <= width else line[: max(width - 1, 0)] + "…"


def parse_day(text: str, *, end: bool = False) -> datetime | None:
    """A typed date (``2026-01-05``, or a date and time) as an aware local time.

    Args:
        text: what the user typed; empty means no date.
        end: a bare date means the end of that day (for "until" and "as of").

    Returns:
        The moment, or None for empty text.

    Raises:
        InvalidInput: the text is not a date, with an example of one that is.
    """
    text = text.strip()
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(
            f"{text!r} is not a date: type it as 2026-03-01 (or 2026-03-01 09:30)."
        ) from None
    if end and moment.time() == time(0) and len(text) <= 10:
        moment += timedelta(days=1, microseconds=-1)
    return moment if moment.tzinfo else moment.astimezone()
