"""One value from a query, typed for callers: apsw types a fetched row as ``Any | None``."""

from __future__ import annotations

from typing import Any

import apsw

__all__ = ["all_rows", "one", "scalar"]


def all_rows(
    conn: apsw.Connection, sql: str, bindings: apsw.Bindings | None = None
) -> list[tuple[Any, ...]]:
    """Every row ``sql`` returns, for callers that know their columns' types.

    Args:
        conn: An open connection.
        sql: The query.
        bindings: Its parameters, if any.
    """
    return conn.execute(sql, bindings).fetchall()


def one(conn: apsw.Connection, sql: str, bindings: apsw.Bindings | None = None) -> tuple[Any, ...]:
    """The first row ``sql`` returns, for unpacking into typed names.

    Args:
        conn: An open connection.
        sql: A query that always returns a row (a PRAGMA, a row known to exist).
        bindings: Its parameters, if any.

    Raises:
        LookupError: It returned no row, which is a bug in the caller's query.
    """
    row: tuple[Any, ...] | None = conn.execute(sql, bindings).fetchone()
    if row is None:
        raise LookupError(f"expected a row from: {sql}")
    return row


def scalar(conn: apsw.Connection, sql: str, bindings: apsw.Bindings | None = None) -> Any:
    """The first column of the first row ``sql`` returns.

    Args:
        conn: An open connection.
        sql: A query that always returns a row (a count, a PRAGMA, a known schema entry).
        bindings: Its parameters, if any.

    Raises:
        LookupError: It returned no row, which is a bug in the caller's query.
    """
    row = conn.execute(sql, bindings).fetchone()
    if row is None:
        raise LookupError(f"expected a row from: {sql}")
    return row[0]
