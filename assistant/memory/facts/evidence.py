"""A fact's evidence: checked to exist in the fact's own profile, stored, and read back."""

from __future__ import annotations

from collections.abc import Sequence

import apsw

from assistant.errors import MemoryWriteError
from assistant.memory.facts.fact import Evidence
from assistant.memory.facts.rules import choice
from assistant.memory.facts.table import in_clause
from assistant.memory.vectors import TEXT_SOURCES

__all__ = ["check_evidence", "evidence_of", "insert_evidence"]


def evidence_of(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, tuple[Evidence, ...]]:
    """The evidence of each of these facts, by fact id (facts without any are left out)."""
    found: dict[int, list[Evidence]] = {}
    if ids:
        rows = conn.execute(
            "SELECT fact_id, kind, ref_id, quote FROM fact_evidence"
            f" WHERE {in_clause('fact_id', ids)}",
            list(ids),
        )
        for fact_id, kind, ref_id, quote in rows:
            found.setdefault(fact_id, []).append(Evidence(kind, ref_id, quote))
    return {fact_id: tuple(items) for fact_id, items in found.items()}


def check_evidence(conn: apsw.Connection, profile_id: int, evidence: Sequence[Evidence]) -> None:
    """Check that each item cites stored memory of the profile, and that its quote is there.

    Raises:
        MemoryWriteError: an item is missing (or rejected), or its quote is not in its text.
        ValueError: an unknown evidence kind.
    """
    for item in evidence:
        choice(item.kind, tuple(TEXT_SOURCES), "evidence kind")
        table, column = TEXT_SOURCES[item.kind]
        extra = ", status" if item.kind == "fact" else ", ''"
        row = conn.execute(
            f"SELECT {column}{extra} FROM {table} WHERE id = ? AND profile_id = ?",
            (item.ref_id, profile_id),
        ).fetchone()
        if row is None or row[1] == "rejected":
            raise MemoryWriteError(
                f"Evidence {item.kind} {item.ref_id} does not exist in this profile"
                f"{' (or was rejected)' if row else ''}; a fact may only cite stored memory of "
                "its own profile. Cite the id of the message, episode, chunk, event or fact."
            )
        quote = item.quote.strip(" \"'“”‘’「」")
        if quote and _squash(quote) not in _squash(row[0]):
            raise MemoryWriteError(
                f"The quote {item.quote!r} does not occur in {item.kind} {item.ref_id}; "
                "quote its text exactly, or cite it without a quote."
            )


def insert_evidence(
    conn: apsw.Connection, fact_id: int, evidence: Sequence[Evidence]
) -> list[tuple[str, int]]:
    """Store new evidence for a fact; return the (kind, ref_id) pairs not already there."""
    added: list[tuple[str, int]] = []
    for item in evidence:
        conn.execute(
            "INSERT OR IGNORE INTO fact_evidence(fact_id, kind, ref_id, quote) VALUES (?, ?, ?, ?)",
            (fact_id, item.kind, item.ref_id, item.quote),
        )
        if conn.changes():
            added.append((item.kind, item.ref_id))
    return added


def _squash(text: str) -> str:
    return " ".join(text.casefold().split())
