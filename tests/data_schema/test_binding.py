"""The SQLite binding itself: what Hippo's code relies on from apsw(-sqlite3mc)."""

from __future__ import annotations

import pytest

from data_schema.connect import connect


def test_a_loop_left_early_does_not_keep_its_statement_running(tmp_path):
    # apsw-sqlite3mc 3.54.0.0 kept a cursor abandoned mid-iteration alive once another
    # statement had run: its read stayed open and DROP TABLE failed ("database table is
    # locked"), as building vector cells does after a stop. pyproject excludes that build.
    conn = connect(tmp_path / "hippo.db")
    conn.execute("CREATE TABLE t(x)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(100)])
    conn.execute("CREATE TEMP TABLE scratch(x)")

    def take_one() -> None:
        for (x,) in conn.execute("SELECT x FROM t"):
            conn.execute("INSERT INTO scratch VALUES (?)", (x,))
            break

    take_one()
    conn.execute("DROP TABLE temp.scratch")  # raised apsw.LockedError with the leak
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (100,)


@pytest.mark.parametrize("cipher", ["chacha20"])
def test_the_binding_has_the_cipher_hippo_uses(tmp_path, cipher):
    conn = connect(tmp_path / "hippo.db")
    assert conn.execute("PRAGMA cipher").fetchone()[0] == cipher
