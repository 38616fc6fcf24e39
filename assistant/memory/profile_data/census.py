"""Counting what the file and a profile hold, and checking the tiers agree (`hippo doctor`)."""

from __future__ import annotations

import apsw

from data_schema.rows import all_rows, one, scalar

__all__ = [
    "CONSISTENCY",
    "COUNTED",
    "file_counts",
    "given_up",
    "profile_counts",
    "sqlite_version",
    "table_rows",
    "tier_disagreements",
]

# Tables counted per profile (each has a profile_id column), in the order stats show them.
COUNTED = (
    "sessions",
    "messages",
    "episodes",
    "facts",
    "documents",
    "chunks",
    "events",
    "entities",
)

# Cross-tier consistency: each query counts rows that break a rule the tiers promise.
CONSISTENCY = (
    (
        "facts without evidence",
        "SELECT count(*) FROM facts f WHERE NOT EXISTS"
        " (SELECT 1 FROM fact_evidence e WHERE e.fact_id = f.id)",
    ),
    (
        "evidence citing another profile's or a missing message",
        "SELECT count(*) FROM fact_evidence e JOIN facts f ON f.id = e.fact_id"
        " WHERE e.kind = 'message' AND NOT EXISTS (SELECT 1 FROM messages m"
        "  WHERE m.id = e.ref_id AND m.profile_id = f.profile_id)",
    ),
    (
        "messages in a session of another profile",
        "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id"
        " WHERE s.profile_id != m.profile_id",
    ),
)


def profile_counts(conn: apsw.Connection, profile_id: int) -> dict[str, int]:
    """Rows per tier of one profile (see `COUNTED`)."""
    return {
        table: scalar(conn, f"SELECT count(*) FROM {table} WHERE profile_id = ?", (profile_id,))
        for table in COUNTED
    }


def table_rows(conn: apsw.Connection, tables: tuple[str, ...] = COUNTED) -> dict[str, int]:
    """Rows per table across the whole file, every profile (tables are fixed names)."""
    return {t: int(scalar(conn, f"SELECT count(*) FROM {t}")) for t in tables}


def file_counts(conn: apsw.Connection) -> tuple[int, int, int]:
    """(sessions, messages, items waiting for a vector) across the whole file."""
    sessions, messages, waiting = one(
        conn,
        "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages),"
        " (SELECT count(*) FROM embedding_queue)",
    )
    return sessions, messages, waiting


def tier_disagreements(conn: apsw.Connection) -> list[str]:
    """One line per broken cross-tier rule with its count (``3 facts without evidence``)."""
    broken = []
    for label, sql in CONSISTENCY:
        count = scalar(conn, sql)
        if count:
            broken.append(f"{count} {label}")
    return broken


def given_up(conn: apsw.Connection) -> list[tuple[str, int]]:
    """(sleep step, sessions) that sleep gave up on after the model failed run after run."""
    rows = all_rows(
        conn,
        "SELECT step, count(DISTINCT item_id) FROM sleep_marks WHERE state = 'given_up'"
        " GROUP BY step ORDER BY step",
    )
    return [(step, n) for step, n in rows]


def sqlite_version(conn: apsw.Connection) -> str:
    """The SQLite library's version, as the file's connection reports it."""
    return str(scalar(conn, "SELECT sqlite_version()"))
