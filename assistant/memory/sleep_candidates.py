"""Sleep's candidates, rejections and dated items: the one owner of ``sleep_candidates``,
``sleep_rejections`` and ``dated_items``.

Candidates are facts extracted by sleep, waiting for (or past) the update phase. A
rejection is remembered by a fingerprint of "this claim from this evidence"
(`fingerprint`, and `review_prints` for the user's rejections in review), so that a
rejected claim is never proposed again from the same evidence.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import apsw

from assistant.clock import Clock, from_iso, to_iso
from assistant.memory.facts import Evidence

__all__ = [
    "REVIEW_REJECTION",
    "Candidate",
    "CandidateStore",
    "DatedItem",
    "fingerprint",
    "normal_text",
    "review_prints",
]

REVIEW_REJECTION = "rejected in review"


def normal_text(text: str) -> str:
    """A statement as fingerprints compare it: case, spacing and punctuation aside."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def fingerprint(statement: str, evidence: Sequence[Evidence]) -> str:
    """A stable id for "this claim from this evidence" (rejections are remembered by it)."""
    refs = ",".join(sorted(f"{e.kind}:{e.ref_id}" for e in evidence))
    body = f"{normal_text(statement)}|{refs}".encode()
    return hashlib.sha256(body).hexdigest()[:24]


def review_prints(statement: str, evidence: Sequence[Evidence]) -> list[str]:
    """Stable ids for "this claim from this piece of evidence", one per piece.

    A proposal the user rejects in review is remembered by these, so that the same claim
    is never proposed again from any of the same evidence, even after the rejected fact
    itself was deleted. They differ from ``fingerprint`` (the defences' own rejections).
    """
    normal = normal_text(statement)
    return [
        hashlib.sha256(f"review|{normal}|{e.kind}:{e.ref_id}".encode()).hexdigest()[:24]
        for e in dict.fromkeys(Evidence(e.kind, e.ref_id) for e in evidence)
    ]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A fact extracted by sleep, waiting for (or past) the update phase."""

    id: int
    profile_id: int
    session_id: int | None
    statement: str
    subject: str
    predicate: str
    scope: str
    source_kind: str
    confidence: float
    importance: float
    said_at: datetime
    valid_to: datetime | None
    evidence: tuple[Evidence, ...]
    strong: bool
    status: str = "new"
    attempts: int = 0
    fact_id: int | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class DatedItem:
    """A plan or deadline from an episode, at an absolute date."""

    id: int
    profile_id: int
    episode_id: int | None
    message_id: int | None
    text: str
    phrase: str
    due_on: date
    status: str


_CANDIDATE = (
    "id, profile_id, session_id, statement, subject, predicate, scope, source_kind, confidence,"
    " importance, said_at, valid_to, evidence, strong, status, attempts, fact_id, note"
)


def _candidate(row: tuple[Any, ...]) -> Candidate:
    evidence = tuple(Evidence(kind, ref, quote) for kind, ref, quote in json.loads(row[12]))
    # The leading columns, typed: mypy cannot check a spread of a variable-length row.
    head: tuple[int, int, int | None, str, str, str, str, str, float, float] = row[:10]
    return Candidate(
        *head,
        said_at=from_iso(row[10]),
        valid_to=from_iso(row[11]) if row[11] else None,
        evidence=evidence,
        strong=bool(row[13]),
        status=row[14],
        attempts=row[15],
        fact_id=row[16],
        note=row[17],
    )


def _dated_item(row: tuple[Any, ...]) -> DatedItem:
    # The leading columns, typed: mypy cannot check a spread of a variable-length row.
    head: tuple[int, int, int | None, int | None, str, str] = row[:6]
    return DatedItem(*head, date.fromisoformat(row[6]), row[7])


class CandidateStore:
    """Reads and writes candidates, rejection records and dated items.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for timestamps written.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._clock = clock

    # -- candidates -------------------------------------------------------------------------

    def add_candidate(self, draft: Candidate, run_id: int | None) -> int:
        """Store an extracted candidate (status ``new``); return its id."""
        evidence = [[e.kind, e.ref_id, e.quote] for e in draft.evidence]
        conn = self._conn()
        conn.execute(
            "INSERT INTO sleep_candidates(profile_id, session_id, run_id, statement, subject,"
            " predicate, scope, source_kind, confidence, importance, said_at, valid_to, evidence,"
            " strong) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                draft.profile_id,
                draft.session_id,
                run_id,
                draft.statement,
                draft.subject,
                draft.predicate,
                draft.scope,
                draft.source_kind,
                draft.confidence,
                draft.importance,
                to_iso(draft.said_at),
                to_iso(draft.valid_to) if draft.valid_to else None,
                json.dumps(evidence, ensure_ascii=False),
                int(draft.strong),
            ),
        )
        return conn.last_insert_rowid()

    def new_candidates(self, profile_id: int) -> list[Candidate]:
        """Candidates not yet decided, oldest first."""
        rows = self._conn().execute(
            f"SELECT {_CANDIDATE} FROM sleep_candidates WHERE profile_id = ? AND status = 'new'"
            " ORDER BY said_at, id",
            (profile_id,),
        )
        return [_candidate(row) for row in rows]

    def decide(self, candidate_id: int, status: str, fact_id: int | None, note: str = "") -> None:
        """Record the update phase's decision for a candidate."""
        self._conn().execute(
            "UPDATE sleep_candidates SET status = ?, fact_id = ?, note = ? WHERE id = ?",
            (status, fact_id, note[:500], candidate_id),
        )

    def retry_later(self, candidate_ids: Iterable[int]) -> None:
        """Count a failed attempt to decide these candidates."""
        self._conn().executemany(
            "UPDATE sleep_candidates SET attempts = attempts + 1 WHERE id = ?",
            [(i,) for i in candidate_ids],
        )

    # -- rejections -------------------------------------------------------------------------

    def reject(
        self, profile_id: int, fingerprint: str, reason: str, detail: str, run_id: int | None
    ) -> bool:
        """Record a candidate that failed a defence; False if it was recorded before."""
        conn = self._conn()
        conn.execute(
            "INSERT OR IGNORE INTO sleep_rejections(profile_id, fingerprint, reason, detail,"
            " run_id, at) VALUES (?, ?, ?, ?, ?, ?)",
            (profile_id, fingerprint, reason, detail[:500], run_id, to_iso(self._clock.now())),
        )
        return conn.changes() > 0

    def reject_in_review(
        self, profile_id: int, statement: str, evidence: Sequence[Evidence]
    ) -> int:
        """Record that the user rejected this claim from this evidence; say how many new prints.

        Sleep checks ``rejected_in_review`` before proposing, so the claim is not proposed
        again from any of the same evidence (even once the rejected fact is deleted).
        """
        return sum(
            self.reject(profile_id, print_, REVIEW_REJECTION, statement, None)
            for print_ in review_prints(statement, evidence)
        )

    def rejected_in_review(
        self, profile_id: int, statement: str, evidence: Sequence[Evidence]
    ) -> bool:
        """Whether the user rejected this claim from any of this evidence."""
        prints = review_prints(statement, evidence)
        if not prints:
            return False
        row = (
            self._conn()
            .execute(
                "SELECT 1 FROM sleep_rejections WHERE profile_id = ?"
                f" AND fingerprint IN ({','.join('?' * len(prints))}) LIMIT 1",
                (profile_id, *prints),
            )
            .fetchone()
        )
        return row is not None

    def rejections(self, profile_id: int) -> list[tuple[str, str]]:
        """(reason, detail) of every recorded rejection, oldest first."""
        rows = self._conn().execute(
            "SELECT reason, detail FROM sleep_rejections WHERE profile_id = ? ORDER BY at",
            (profile_id,),
        )
        return [(row[0], row[1]) for row in rows]

    # -- dated items --------------------------------------------------------------------------

    def add_dated_item(
        self,
        profile_id: int,
        episode_id: int,
        message_id: int | None,
        text: str,
        phrase: str,
        due_on: date,
    ) -> int:
        """Store a dated item of an episode; return its id."""
        conn = self._conn()
        conn.execute(
            "INSERT INTO dated_items(profile_id, episode_id, message_id, text, phrase, due_on,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                profile_id,
                episode_id,
                message_id,
                text,
                phrase,
                due_on.isoformat(),
                to_iso(self._clock.now()),
            ),
        )
        return conn.last_insert_rowid()

    def dated_items(self, profile_id: int, status: str | None = None) -> list[DatedItem]:
        """The profile's dated items (with ``status``, when given), by date."""
        where = "profile_id = ?" + (" AND status = ?" if status else "")
        args: list[object] = [profile_id] + ([status] if status else [])
        rows = self._conn().execute(
            "SELECT id, profile_id, episode_id, message_id, text, phrase, due_on, status"
            f" FROM dated_items WHERE {where} ORDER BY due_on, id",
            args,
        )
        return [_dated_item(row) for row in rows]

    def expire_dated_items(self, profile_id: int, today: date) -> int:
        """Expire upcoming items dated before ``today``; say how many."""
        conn = self._conn()
        conn.execute(
            "UPDATE dated_items SET status = 'expired' WHERE profile_id = ?"
            " AND status = 'upcoming' AND due_on < ?",
            (profile_id, today.isoformat()),
        )
        return conn.changes()
