"""Clocks are passed in, so tests of time-dependent behaviour run in milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

__all__ = ["Clock", "ManualClock", "SystemClock", "from_iso", "to_iso"]


class Clock(Protocol):
    """Anything that can say what time it is (timezone-aware, UTC)."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real time."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to (for tests and benchmarks)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, **kwargs: float) -> datetime:
        """Move forward by ``timedelta(**kwargs)`` and return the new time."""
        self._now += timedelta(**kwargs)
        return self._now


def to_iso(moment: datetime) -> str:
    """The form times are stored in: UTC ISO 8601 with microseconds, so text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def from_iso(text: str) -> datetime:
    """Parse a stored time back into an aware datetime."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
