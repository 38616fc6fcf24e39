"""Sleep's progress: the one owner of ``sleep_marks`` and ``sleep_state``.

Each step marks how far it got in each session, so a run stopped anywhere resumes where
it stopped; bookmarks (``sleep_state``) keep per-profile positions (the last reflection,
the last entity link). `SleepMarks.unit` is the transaction a unit of work and its mark
commit in. Candidates, rejections and dated items live in ``sleep_candidates.py``; run
records and the lock in ``sleep_runs.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

import apsw

from assistant.clock import Clock, from_iso, to_iso

__all__ = ["DueSession", "SleepMarks"]


@dataclass(frozen=True, slots=True)
class DueSession:
    """A session with messages a step has not handled yet: those after ``done_upto``."""

    id: int
    profile_id: int
    done_upto: int
    last_id: int
    attempts: int


# A session is over when its app closed (or another was opened) with nothing said since,
# or when it has been idle since the cutoff (the parameter).
_OVER = "(s.ended_at >= s.last_active_at OR s.last_active_at <= ?)"
_GIVEN_UP_FROM = "given_up_from:{step}:{session}"
# A message sleep reads: finished, whole or cut at the model's length limit.
_SAID = "m.status IN ('complete', 'cut')"


class SleepMarks:
    """Reads and writes sleep's marks and bookmarks.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for timestamps written.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._clock = clock

    @contextmanager
    def unit(self) -> Iterator[apsw.Connection]:
        """One unit of work, atomic: its writes and its progress mark commit together.

        ``BEGIN IMMEDIATE`` takes the write lock up front (waiting out the busy timeout):
        a deferred transaction that reads first could not upgrade to a write once the chat
        has written meanwhile, and would fail at once with "database is locked".
        """
        conn = self._conn()
        if conn.in_transaction:
            with conn:
                yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- sessions and marks -------------------------------------------------------------

    def due_sessions(
        self, profile_id: int, step: str, cutoff: datetime, *, closed: bool = True
    ) -> list[DueSession]:
        """Closed, kept sessions with complete messages that ``step`` has not done, oldest first.

        Each step keeps its own marks: a session's facts never wait for its summary, so a
        model that fails to summarise a session still has its facts extracted. With
        ``closed=False``, also the sessions idle since ``cutoff`` that a run closes first.
        """
        ceiling = f"(SELECT max(id) FROM messages m WHERE m.session_id = s.id AND {_SAID})"
        rows = self._conn().execute(
            f"SELECT s.id, s.profile_id, coalesce(k.upto, 0), {ceiling}, coalesce(k.attempts, 0)"
            " FROM sessions s LEFT JOIN sleep_marks k ON k.step = ? AND k.item_id = s.id"
            " WHERE s.profile_id = ? AND s.incognito = 0"
            f" AND (s.ended_at IS NOT NULL OR NOT ?) AND {_OVER} ORDER BY s.last_active_at, s.id",
            (step, profile_id, closed, to_iso(cutoff)),
        )
        return [DueSession(*row) for row in rows if row[3] is not None and row[3] > row[2]]

    def has_unconsolidated(self, cutoff: datetime) -> bool:
        """Whether any profile has an idle, kept session with messages not yet summarised."""
        row = (
            self._conn()
            .execute(
                f"SELECT 1 FROM sessions s WHERE s.incognito = 0 AND {_OVER}"
                " AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id"
                f" AND {_SAID} AND m.id > coalesce((SELECT upto FROM sleep_marks k"
                " WHERE k.step = 'summarise' AND k.item_id = s.id), 0)) LIMIT 1",
                (to_iso(cutoff),),
            )
            .fetchone()
        )
        return row is not None

    def mark(
        self,
        step: str,
        session: DueSession,
        *,
        state: str,
        run_id: int | None,
        upto: int | None = None,
    ) -> None:
        """Record a step's outcome for a session: done/given up (up to ``upto``) or failed."""
        attempts = 0 if state == "done" else session.attempts + 1
        kept = session.done_upto if state == "failed" else (upto or session.last_id)
        if state == "given_up":  # where to start again, should the user ask for a retry
            key = _GIVEN_UP_FROM.format(step=step, session=session.id)
            self.set_state(session.profile_id, key, str(session.done_upto))
        self._conn().execute(
            "INSERT OR REPLACE INTO sleep_marks(step, item_id, profile_id, upto, attempts, state,"
            " run_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                step,
                session.id,
                session.profile_id,
                kept,
                attempts,
                state,
                run_id,
                to_iso(self._clock.now()),
            ),
        )

    def given_up(self, profile_id: int) -> list[tuple[str, int]]:
        """(step, session id) of the work sleep gave up on in a profile."""
        rows = self._conn().execute(
            "SELECT step, item_id FROM sleep_marks WHERE profile_id = ? AND state = 'given_up'"
            " ORDER BY item_id, step",
            (profile_id,),
        )
        return [(row[0], row[1]) for row in rows]

    def retry_given_up(self, profile_id: int) -> int:
        """Put the sessions sleep gave up on back in line, with fresh attempts; say how many.

        Each step starts again where it was when it gave up (a session given up before
        that was recorded starts from its beginning).
        """
        given_up = self.given_up(profile_id)
        with self.unit() as conn:
            for step, session_id in given_up:
                key = _GIVEN_UP_FROM.format(step=step, session=session_id)
                start = int(self.state(profile_id, key, "0") or 0)
                conn.execute(
                    "UPDATE sleep_marks SET state = 'failed', attempts = 0, upto = ?"
                    " WHERE step = ? AND item_id = ?",
                    (start, step, session_id),
                )
                conn.execute(
                    "DELETE FROM sleep_state WHERE profile_id = ? AND key = ?", (profile_id, key)
                )
        return len({session_id for _, session_id in given_up})

    def waiting(self, profile_id: int, cutoff: datetime) -> list[tuple[int, datetime]]:
        """(id, last activity) of kept sessions with unsummarised messages, not over yet."""
        rows = self._conn().execute(
            "SELECT s.id, s.last_active_at FROM sessions s WHERE s.profile_id = ?"
            f" AND s.incognito = 0 AND NOT (s.ended_at IS NOT NULL AND {_OVER})"
            " AND s.last_active_at > ?"
            " AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id"
            f" AND {_SAID} AND m.id > coalesce((SELECT upto FROM sleep_marks k"
            " WHERE k.step = 'summarise' AND k.item_id = s.id), 0)) ORDER BY s.id",
            (profile_id, to_iso(cutoff), to_iso(cutoff)),
        )
        return [(row[0], from_iso(row[1])) for row in rows]

    # -- bookmarks ------------------------------------------------------------------------

    def state(self, profile_id: int, key: str, default: str = "") -> str:
        """A per-profile bookmark."""
        row = (
            self._conn()
            .execute(
                "SELECT value FROM sleep_state WHERE profile_id = ? AND key = ?", (profile_id, key)
            )
            .fetchone()
        )
        return row[0] if row else default

    def set_state(self, profile_id: int, key: str, value: str) -> None:
        """Set a per-profile bookmark."""
        self._conn().execute(
            "INSERT OR REPLACE INTO sleep_state(profile_id, key, value) VALUES (?, ?, ?)",
            (profile_id, key, value),
        )
