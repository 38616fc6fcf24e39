"""The typed row helpers: one value, one row, every row; a missing row is a clear error."""

from __future__ import annotations

import apsw
import pytest

from data_schema.rows import all_rows, one, scalar


@pytest.fixture
def conn() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
    conn.executemany("INSERT INTO t(id, name) VALUES (?, ?)", [(1, "a"), (2, "b")])
    return conn


def test_scalar_one_and_all_rows_read_what_the_query_returns(conn):
    assert scalar(conn, "SELECT count(*) FROM t") == 2
    assert one(conn, "SELECT id, name FROM t WHERE id = ?", (2,)) == (2, "b")
    assert all_rows(conn, "SELECT id, name FROM t ORDER BY id") == [(1, "a"), (2, "b")]
    assert all_rows(conn, "SELECT id FROM t WHERE id > ?", (5,)) == []


def test_a_missing_row_names_the_query(conn):
    with pytest.raises(LookupError, match="expected a row from: SELECT name FROM t WHERE id"):
        one(conn, "SELECT name FROM t WHERE id = ?", (9,))
    with pytest.raises(LookupError, match="expected a row"):
        scalar(conn, "SELECT name FROM t WHERE id = ?", (9,))
