"""Sleep's run records and its lock: the one owner of ``sleep_runs`` and ``sleep_lock``.

Run records are started, saved as a run goes and read back by the UI; the lock is one row
per job kind, taken, refreshed and given back by `assistant.sleep.lock.SleepLock`, which
decides when a holder is dead.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import from_iso, to_iso
from assistant.memory.sleep_records import Proposal, SleepReport

__all__ = ["LockHolder", "LockTable", "RunStore"]

_COLUMNS = (
    "id, status, trigger, dry_run, started_at, finished_at, seconds, llm_seconds, llm_calls,"
    " prompt_tokens, completion_tokens, counts, errors, proposals, backup_path"
)


def _report(row: tuple[Any, ...]) -> SleepReport:
    return SleepReport(
        run_id=row[0],
        status=row[1],
        trigger=row[2],
        dry_run=bool(row[3]),
        started_at=from_iso(row[4]),
        finished_at=from_iso(row[5]) if row[5] else None,
        seconds=row[6],
        llm_seconds=row[7],
        llm_calls=row[8],
        prompt_tokens=row[9],
        completion_tokens=row[10],
        counts=Counter(json.loads(row[11])),
        errors=list(json.loads(row[12])),
        proposals=[Proposal(**p) for p in json.loads(row[13])],
        backup_path=row[14],
    )


class RunStore:
    """Reads and writes run records.

    Args:
        conn: returns the calling thread's connection.
    """

    def __init__(self, conn: Callable[[], apsw.Connection]) -> None:
        self._conn = conn

    def start(self, report: SleepReport, owner: str) -> int:
        """Record a run as running; return its id."""
        conn = self._conn()
        conn.execute(
            "INSERT INTO sleep_runs(started_at, status, trigger, dry_run, owner)"
            " VALUES (?, 'running', ?, ?, ?)",
            (to_iso(report.started_at), report.trigger, int(report.dry_run), owner),
        )
        return conn.last_insert_rowid()

    def save(self, report: SleepReport) -> None:
        """Write the report's current figures to its run record."""
        self._conn().execute(
            "UPDATE sleep_runs SET status = ?, finished_at = ?, seconds = ?, llm_seconds = ?,"
            " llm_calls = ?, prompt_tokens = ?, completion_tokens = ?, counts = ?, errors = ?,"
            " proposals = ?, backup_path = ? WHERE id = ?",
            (
                report.status,
                to_iso(report.finished_at) if report.finished_at else None,
                report.seconds,
                report.llm_seconds,
                report.llm_calls,
                report.prompt_tokens,
                report.completion_tokens,
                json.dumps(dict(report.counts)),
                json.dumps(report.errors, ensure_ascii=False),
                json.dumps([p.as_dict() for p in report.proposals], ensure_ascii=False),
                report.backup_path,
                report.run_id,
            ),
        )

    def interrupt_running(self) -> int:
        """Mark runs left 'running' by a process that died as interrupted; say how many."""
        conn = self._conn()
        conn.execute("UPDATE sleep_runs SET status = 'interrupted' WHERE status = 'running'")
        return conn.changes()

    def get(self, run_id: int) -> SleepReport | None:
        """One run record."""
        row = (
            self._conn()
            .execute(f"SELECT {_COLUMNS} FROM sleep_runs WHERE id = ?", (run_id,))
            .fetchone()
        )
        return _report(row) if row else None

    def latest(self, *, real_only: bool = True) -> SleepReport | None:
        """The newest run (not a dry run, unless ``real_only`` is False)."""
        where = "WHERE dry_run = 0" if real_only else ""
        row = (
            self._conn()
            .execute(f"SELECT {_COLUMNS} FROM sleep_runs {where} ORDER BY id DESC LIMIT 1")
            .fetchone()
        )
        return _report(row) if row else None

    def last_finished(self) -> datetime | None:
        """When the last real consolidation finished (None: never)."""
        row = (
            self._conn()
            .execute(
                "SELECT max(finished_at) FROM sleep_runs WHERE dry_run = 0"
                " AND finished_at IS NOT NULL"
            )
            .fetchone()
        )
        return from_iso(row[0]) if row and row[0] else None

    def conflicts(self, profile_id: int) -> dict[int, int]:
        """Pending facts sleep proposed as replacing an active one: new id -> old id."""
        rows = self._conn().execute(
            "SELECT r.proposals FROM sleep_runs r WHERE r.proposals LIKE '%\"conflict\"%'"
            " ORDER BY r.id"
        )
        out: dict[int, int] = {}
        for (text,) in rows:
            for item in json.loads(text):
                if (
                    item.get("kind") == "conflict"
                    and item.get("profile_id") == profile_id
                    and item.get("old_fact_id")
                ):
                    out[int(item["fact_id"])] = int(item["old_fact_id"])
        return out

    def unseen(self) -> list[SleepReport]:
        """Finished real runs the user has not been told about, oldest first."""
        rows = self._conn().execute(
            f"SELECT {_COLUMNS} FROM sleep_runs WHERE dry_run = 0 AND seen_at IS NULL"
            " AND status != 'running' ORDER BY id"
        )
        return [_report(row) for row in rows]

    def mark_seen(self, run_ids: list[int], now_iso: str) -> None:
        """Record that the user has been told about these runs."""
        self._conn().executemany(
            "UPDATE sleep_runs SET seen_at = ? WHERE id = ?", [(now_iso, i) for i in run_ids]
        )


@dataclass(frozen=True, slots=True)
class LockHolder:
    """Who holds the lock, and since when."""

    owner: str
    pid: int
    host: str
    acquired_at: datetime
    heartbeat_at: datetime


class LockTable:
    """Reads and writes ``sleep_lock``; each call is one statement, so racers never both win.

    Args:
        conn: returns the calling thread's connection.
    """

    def __init__(self, conn: Callable[[], apsw.Connection]) -> None:
        self._conn = conn

    def holder(self, name: str) -> LockHolder | None:
        """Who holds the lock ``name`` now, if anyone."""
        row = (
            self._conn()
            .execute(
                "SELECT owner, pid, host, acquired_at, heartbeat_at FROM sleep_lock WHERE name = ?",
                (name,),
            )
            .fetchone()
        )
        return (
            LockHolder(row[0], row[1], row[2], from_iso(row[3]), from_iso(row[4])) if row else None
        )

    def take_free(self, name: str, owner: str, pid: int, host: str, now: datetime) -> bool:
        """Take the lock if nobody holds it; whether it was taken."""
        conn = self._conn()
        at = to_iso(now)
        conn.execute(
            "INSERT OR IGNORE INTO sleep_lock(name, owner, pid, host, acquired_at, heartbeat_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (name, owner, pid, host, at, at),
        )
        return conn.changes() == 1

    def take_over(
        self, name: str, previous: str, owner: str, pid: int, host: str, now: datetime
    ) -> bool:
        """Take the lock from ``previous`` if it still holds it; whether it was taken."""
        conn = self._conn()
        at = to_iso(now)
        conn.execute(
            "UPDATE sleep_lock SET owner = ?, pid = ?, host = ?, acquired_at = ?, heartbeat_at = ?"
            " WHERE name = ? AND owner = ?",
            (owner, pid, host, at, at, name, previous),
        )
        return conn.changes() == 1

    def beat(self, name: str, owner: str, now: datetime) -> bool:
        """Refresh the holder's heartbeat; False if ``owner`` no longer holds the lock."""
        conn = self._conn()
        conn.execute(
            "UPDATE sleep_lock SET heartbeat_at = ? WHERE name = ? AND owner = ?",
            (to_iso(now), name, owner),
        )
        return conn.changes() == 1

    def release(self, name: str, owner: str) -> None:
        """Give the lock back, if ``owner`` holds it."""
        self._conn().execute("DELETE FROM sleep_lock WHERE name = ? AND owner = ?", (name, owner))
