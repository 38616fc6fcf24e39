"""The reads of facts that only sleep's consolidation makes.

Kept apart from `FactReader` so that the facts package stays the one owner of the
``facts`` table (sleep holds no SQL) while its reading half stays as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.memory.base import Store
from assistant.memory.facts.fact import Evidence
from data_schema.rows import scalar

__all__ = ["SleepFactReads"]

_CHUNK = 200  # evidence items per query


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


class SleepFactReads(Store):
    """Facts as sleep looks them up: by topic, by rejected evidence, by age and weight.

    Built with ``(conn, clock)``: see `Store`.
    """

    def rejected_citing(self, profile_id: int, evidence: Sequence[Evidence]) -> list[int]:
        """Rejected facts of the profile that cite any of this evidence."""
        found: dict[int, None] = {}
        # In chunks: SQLite refuses an expression 1,000 terms deep (a burst's 1,500 events).
        for start in range(0, len(evidence), _CHUNK):
            chunk = evidence[start : start + _CHUNK]
            pairs = " OR ".join("(e.kind = ? AND e.ref_id = ?)" for _ in chunk)
            rows = self._conn().execute(
                "SELECT DISTINCT f.id FROM fact_evidence e JOIN facts f ON f.id = e.fact_id"
                f" WHERE f.profile_id = ? AND f.status = 'rejected' AND ({pairs})",
                [profile_id, *(v for e in chunk for v in (e.kind, e.ref_id))],
            )
            found.update((row[0], None) for row in rows)
        return list(found)

    def about(
        self, profile_id: int, subject: str, predicate: str, statuses: Sequence[str]
    ) -> list[int]:
        """Up to five facts with this subject and predicate (case aside), newest first."""
        if not predicate.strip():
            return []
        rows = self._conn().execute(
            "SELECT id FROM facts WHERE profile_id = ? AND lower(subject) = lower(?)"
            f" AND lower(predicate) = lower(?) AND status IN ({_marks(statuses)})"
            " ORDER BY id DESC LIMIT 5",
            (profile_id, subject.strip(), predicate.strip(), *statuses),
        )
        return [row[0] for row in rows]

    def ids_after(self, profile_id: int, after: int) -> list[int]:
        """Ids of the profile's facts above ``after``, in order (for entity linking)."""
        rows = self._conn().execute(
            "SELECT id FROM facts WHERE profile_id = ? AND id > ? ORDER BY id",
            (profile_id, after),
        )
        return [row[0] for row in rows]

    def importance_since(self, profile_id: int, since: str) -> float:
        """Summed importance of the facts learned after ``since`` (ISO time), leaving out
        reflections (they must not trigger more reflection) and rejected facts."""
        return float(
            scalar(
                self._conn(),
                "SELECT coalesce(sum(importance), 0) FROM facts WHERE profile_id = ?"
                " AND learned_at > ? AND source_kind != 'reflection' AND status != 'rejected'",
                (profile_id, since),
            )
        )
