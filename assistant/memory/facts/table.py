"""The facts table: its columns, rows turned into `Fact` values and back, and its search index."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import from_iso, to_iso
from assistant.memory.facts.fact import Evidence, Fact
from assistant.memory.textindex import index_text
from assistant.memory.vectors import enqueue

__all__ = [
    "COLUMNS",
    "EDITABLE",
    "ORDERS",
    "SELECT",
    "as_tuple",
    "fact_from_row",
    "in_clause",
    "index_statement",
    "stored_value",
]

COLUMNS = (
    "id, profile_id, statement, subject, predicate, scope, source_kind, confidence, importance,"
    " status, valid_from, valid_to, learned_at, last_accessed_at, access_count, pinned,"
    " superseded_by, depth"
).split(", ")
SELECT = f"SELECT {', '.join(COLUMNS)} FROM facts"
# Columns a change may touch (and an undo may restore); the rest are bookkeeping.
EDITABLE = (
    "statement subject predicate scope source_kind confidence importance status"
    " valid_from valid_to pinned superseded_by depth"
).split()
ORDERS = {
    "importance": "pinned DESC, importance DESC, confidence DESC, id DESC",
    "recent": "learned_at DESC, id DESC",
    "confidence": "confidence DESC, id DESC",
    "accessed": "last_accessed_at DESC NULLS LAST, id DESC",
}


def _when(text: str | None) -> datetime | None:
    return from_iso(text) if text else None


def fact_from_row(row: dict[str, Any], evidence: tuple[Evidence, ...]) -> Fact:
    """A row of the facts table (as a column -> value dict) as a `Fact`."""
    values = dict(row)
    for key in ("valid_from", "valid_to", "last_accessed_at"):
        values[key] = _when(values[key])
    values["learned_at"] = from_iso(values["learned_at"])
    values["pinned"] = bool(values["pinned"])
    return Fact(**values, evidence=evidence)


def stored_value(key: str, value: Any) -> Any:
    """A value as the facts table keeps it (times as UTC ISO text, so text order is time order)."""
    if isinstance(value, datetime):
        return to_iso(value)
    if isinstance(value, str) and value and key in ("valid_from", "valid_to"):
        return to_iso(from_iso(value))
    return int(value) if key == "pinned" else value


def as_tuple(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """One value or several as a tuple; None stays None (no filter)."""
    return (value,) if isinstance(value, str) else (tuple(value) if value is not None else None)


def in_clause(column: str, values: Sequence[Any]) -> str:
    """SQL for `column` being one of `values`, with a placeholder for each."""
    return f"{column} IN ({','.join('?' * len(values))})"


def index_statement(conn: apsw.Connection, fact_id: int, profile_id: int, statement: str) -> None:
    """(Re)index a fact's statement for keyword search and queue it for embedding."""
    conn.execute("DELETE FROM facts_fts WHERE rowid = ?", (fact_id,))
    conn.execute(
        "INSERT INTO facts_fts(rowid, body) VALUES (?, ?)", (fact_id, index_text(statement))
    )
    enqueue(conn, "fact", fact_id, profile_id)
