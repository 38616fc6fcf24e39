"""Sensory memory: short-lived events from ``hippo log`` (text or JSON lines).

An event has a time it happened and a time it stops being current (by default a
week later). Expired events are never returned as current; the sleep job reads
them with ``expired`` to consolidate or drop them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import apsw

from assistant.clock import from_iso, to_iso
from assistant.errors import HippoError, InvalidInput
from assistant.memory.base import Store, ids_clause
from assistant.memory.importance import rate_importance
from assistant.memory.textindex import fts_query, index_text
from assistant.memory.vectors import enqueue
from assistant.textcheck import not_utf8

__all__ = ["DEFAULT_TTL", "JSON_FIELDS", "RECENT_WINDOW", "Event", "EventStore", "LogResult"]

DEFAULT_TTL = timedelta(days=7)
RECENT_WINDOW = timedelta(days=3)
JSON_FIELDS = ("text", "source", "occurred_at", "expires_at", "ttl_hours", "importance")
_BATCH = 500
_COLUMNS = (
    "id, profile_id, text, source, occurred_at, expires_at, importance, consolidated_at, created_at"
)
_CURRENT = "(expires_at IS NULL OR expires_at > ?)"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, logged from outside a conversation."""

    id: int
    profile_id: int
    text: str
    source: str
    occurred_at: datetime
    expires_at: datetime | None
    importance: float
    consolidated_at: datetime | None
    created_at: datetime


@dataclass(slots=True)
class LogResult:
    """What a JSON-lines log did: how many events were added, and each bad line's error."""

    added: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Draft:
    text: str
    source: str
    occurred_at: datetime
    expires_at: datetime
    importance: float


def _event(row: tuple[Any, ...]) -> Event:
    def maybe(value: str | None) -> datetime | None:
        return from_iso(value) if value else None

    # The leading columns, typed: mypy cannot check a spread of a variable-length row.
    head: tuple[int, int, str, str] = row[:4]
    return Event(*head, from_iso(row[4]), maybe(row[5]), row[6], maybe(row[7]), from_iso(row[8]))


def _aware(moment: datetime) -> datetime:
    """A naive time is local time (as a person typing it means it)."""
    return moment.astimezone(UTC)


def _parse_time(value: object, name: str) -> datetime:
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be an ISO 8601 time string, not {value!r}")
    try:
        return _aware(datetime.fromisoformat(value))
    except ValueError:
        raise InvalidInput(
            f"{name} {value!r} is not an ISO 8601 time (e.g. 2026-03-01T09:30 or "
            "2026-03-01T09:30:00+01:00)"
        ) from None


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{name} must be a number, not {value!r}")
    if not math.isfinite(value):  # Python's json reads NaN and Infinity
        raise InvalidInput(f"{name} must be a finite number, not {value!r}")
    return float(value)


def _decoded(line: str | bytes) -> str:
    if isinstance(line, str):
        return line
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"not UTF-8 text (byte 0x{line[exc.start]:02x} at column {exc.start + 1})"
        ) from None


class EventStore(Store):
    """Reads and writes sensory events.

    Built with ``(conn, clock)``: see `Store`.
    """

    # -- writing ----------------------------------------------------------------

    def log(
        self,
        profile_id: int,
        text: str,
        *,
        source: str = "cli",
        occurred_at: datetime | None = None,
        expires_at: datetime | None = None,
        ttl: timedelta | None = None,
        importance: float | None = None,
    ) -> Event:
        """Record an event (naive times are local time).

        Args:
            profile_id: whose event it is.
            text: what happened.
            source: where it came from (``cli``, an app name, ...).
            occurred_at: when it happened; now if not given.
            expires_at: when it stops being current; ``ttl`` after it happened if not given.
            ttl: how long it stays current (``DEFAULT_TTL`` when neither is given).
            importance: 1-10; guessed from the text if not given.

        Raises:
            HippoError: the text is empty, or a time or importance is invalid.
        """
        draft = self._draft(text, source, occurred_at, expires_at, ttl, importance)
        conn = self._conn()
        with conn:
            event_id = self._insert(conn, profile_id, draft)
        return self.get_many([event_id])[event_id]

    def log_json_lines(
        self, profile_id: int, lines: Iterable[str | bytes], *, source: str = "cli"
    ) -> LogResult:
        """Record one event per JSON object line; bad lines are reported and skipped.

        Each line holds ``text`` and optionally ``source``, ``occurred_at``,
        ``expires_at`` (ISO 8601; naive is local time), ``ttl_hours`` and ``importance``.
        Lines given as bytes are decoded as UTF-8 one by one, so a line that is not UTF-8
        is reported by its number and the others are kept. Blank lines are ignored; good
        lines are written in batches of short transactions.
        """
        result = LogResult()
        batch: list[_Draft] = []
        for number, raw in enumerate(lines, start=1):
            try:
                line = _decoded(raw)
                if line.strip():
                    batch.append(self._draft_from_json(line, source))
            except HippoError as exc:
                result.errors.append(f"line {number}: {exc}")
            except (ValueError, OverflowError) as exc:  # e.g. a ttl_hours of 1e300
                result.errors.append(f"line {number}: a value is out of range ({exc})")
            except RecursionError:  # [[[[... nested 100k deep
                result.errors.append(f"line {number}: nested too deeply to read")
            if len(batch) >= _BATCH:
                result.added += self._insert_batch(profile_id, batch)
                batch = []
        result.added += self._insert_batch(profile_id, batch)
        return result

    def _draft_from_json(self, line: str, default_source: str) -> _Draft:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(record, dict):
            raise InvalidInput('expected a JSON object like {"text": "..."}')
        unknown = sorted(set(record) - set(JSON_FIELDS))
        if unknown:
            raise InvalidInput(f"unknown field {unknown[0]!r} (known: {', '.join(JSON_FIELDS)})")
        text = record.get("text")
        if not isinstance(text, str):
            raise InvalidInput("'text' is missing or not a string")
        when = record.get("occurred_at")
        until = record.get("expires_at")
        hours = record.get("ttl_hours")
        rated = record.get("importance")
        return self._draft(
            text,
            record.get("source", default_source),
            None if when is None else _parse_time(when, "occurred_at"),
            None if until is None else _parse_time(until, "expires_at"),
            None if hours is None else timedelta(hours=_number(hours, "ttl_hours")),
            None if rated is None else _number(rated, "importance"),
        )

    def _draft(
        self,
        text: str,
        source: object,
        occurred_at: datetime | None,
        expires_at: datetime | None,
        ttl: timedelta | None,
        importance: float | None,
    ) -> _Draft:
        text = text.strip()
        if not text:
            raise InvalidInput("An event needs some text; nothing was logged.")
        if not isinstance(source, str) or not source.strip():
            raise InvalidInput("'source' must be a non-empty string")
        for name, value in (("text", text), ("source", source)):
            if where := not_utf8(value):  # a "\ud800" escape, say: SQLite can't store it
                raise InvalidInput(f"the {name} is not UTF-8 text ({where})")
        if expires_at is not None and ttl is not None:
            raise InvalidInput("give either an expiry time or a time to live, not both")
        if ttl is not None and ttl <= timedelta(0):
            raise InvalidInput("the time to live must be positive")
        occurred = _aware(occurred_at) if occurred_at else self._clock.now()
        expires = _aware(expires_at) if expires_at else occurred + (ttl or DEFAULT_TTL)
        if expires <= occurred:
            raise InvalidInput("the event would expire before it happened")
        if importance is not None and not 1 <= importance <= 10:
            raise InvalidInput(f"importance must be between 1 and 10, not {importance}")
        rated = rate_importance(text) if importance is None else importance
        return _Draft(text, source.strip(), occurred, expires, rated)

    def _insert(self, conn: apsw.Connection, profile_id: int, draft: _Draft) -> int:
        conn.execute(
            "INSERT INTO events(profile_id, text, source, occurred_at, expires_at, importance,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                profile_id,
                draft.text,
                draft.source,
                to_iso(draft.occurred_at),
                to_iso(draft.expires_at),
                draft.importance,
                to_iso(self._clock.now()),
            ),
        )
        event_id = conn.last_insert_rowid()
        conn.execute(
            "INSERT INTO events_fts(rowid, body) VALUES (?, ?)", (event_id, index_text(draft.text))
        )
        enqueue(conn, "event", event_id, profile_id)
        return event_id

    def _insert_batch(self, profile_id: int, drafts: list[_Draft]) -> int:
        conn = self._conn()
        with conn:
            for draft in drafts:
                self._insert(conn, profile_id, draft)
        return len(drafts)

    def mark_consolidated(self, ids: Sequence[int], now: datetime) -> int:
        """Record that the sleep job has consolidated these events; return how many."""
        if not ids:
            return 0
        conn = self._conn()
        conn.execute(
            f"UPDATE events SET consolidated_at = ? WHERE id IN ({','.join('?' * len(ids))})",
            [to_iso(now), *ids],
        )
        return conn.changes()

    def remove(self, event_id: int) -> bool:
        """Delete an event (and its index rows); False if it was already gone."""
        conn = self._conn()
        conn.execute("DELETE FROM events WHERE id = ?", (event_id,))
        return conn.changes() > 0

    # -- reading ----------------------------------------------------------------

    def recent(
        self, profile_id: int, now: datetime, *, limit: int = 10, within: timedelta = RECENT_WINDOW
    ) -> list[Event]:
        """Current events that happened in the last ``within`` before ``now``, newest first."""
        rows = self._conn().execute(
            f"SELECT {_COLUMNS} FROM events WHERE profile_id = ? AND {_CURRENT}"
            " AND occurred_at >= ? AND occurred_at <= ? ORDER BY occurred_at DESC, id DESC"
            " LIMIT ?",
            (profile_id, to_iso(now), to_iso(now - within), to_iso(now), limit),
        )
        return [_event(row) for row in rows]

    def expired(self, profile_id: int, now: datetime) -> list[Event]:
        """Events no longer current at ``now``, oldest first (for the sleep job)."""
        rows = self._conn().execute(
            f"SELECT {_COLUMNS} FROM events WHERE profile_id = ? AND expires_at <= ?"
            " ORDER BY occurred_at, id",
            (profile_id, to_iso(now)),
        )
        return [_event(row) for row in rows]

    def sources(self, profile_id: int, prefix: str) -> list[tuple[str, int, datetime]]:
        """Each event source that starts with ``prefix``: how many events, the newest."""
        rows = self._conn().execute(
            "SELECT source, count(*), max(occurred_at) FROM events"
            " WHERE profile_id = ? AND substr(source, 1, ?) = ? GROUP BY source",
            (profile_id, len(prefix), prefix),
        )
        return [(source, count, from_iso(last)) for source, count, last in rows]

    def latest(self, profile_id: int, limit: int) -> list[Event]:
        """The latest events, current or expired, newest first."""
        rows = self._conn().execute(
            f"SELECT {_COLUMNS} FROM events WHERE profile_id = ?"
            " ORDER BY occurred_at DESC, id DESC LIMIT ?",
            (profile_id, limit),
        )
        return [_event(row) for row in rows]

    def get_many(self, ids: Sequence[int], profile_id: int | None = None) -> dict[int, Event]:
        """The events with these ids (of one profile, if given), keyed by id."""
        if not ids:
            return {}
        where, args = ids_clause(ids, profile_id)
        rows = self._conn().execute(f"SELECT {_COLUMNS} FROM events WHERE {where}", args)
        return {row[0]: _event(row) for row in rows}

    def keyword_search(
        self, profile_id: int, query: str, limit: int, *, now: datetime
    ) -> list[tuple[int, float]]:
        """Current event ids matching ``query`` by BM25, best first, with positive scores."""
        expression = fts_query(query)
        if expression is None:
            return []
        rows = self._conn().execute(
            "SELECT e.id, -bm25(events_fts) FROM events_fts JOIN events e"
            " ON e.id = events_fts.rowid WHERE events_fts MATCH ? AND e.profile_id = ?"
            " AND (e.expires_at IS NULL OR e.expires_at > ?)"
            " ORDER BY bm25(events_fts) LIMIT ?",
            (expression, profile_id, to_iso(now), limit),
        )
        return [(row[0], row[1]) for row in rows]
