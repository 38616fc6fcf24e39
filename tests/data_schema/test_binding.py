"""The SQLite binding itself: what Hippo's code relies on from apsw(-sqlite3mc)."""

from __future__ import annotations

import apsw
import pytest

from data_schema.connect import connect


@pytest.mark.xfail(
    apsw.apsw_version() == "3.54.0.0",
    reason="apsw 3.54.0 leaks a cursor abandoned mid-loop (fixed in apsw 3.54.1)",
    strict=True,
)
def test_a_loop_left_early_does_not_keep_its_statement_running(tmp_path):
    # apsw-sqlite3mc 3.54.0.0 (the only 3.54 build: FTS5's scores, which retrieval is
    # tuned on, differ under 3.53) keeps a cursor abandoned mid-iteration alive once
    # another statement has run: its read stays open and DROP TABLE fails ("database
    # table is locked"). Code that leaves a loop early closes its cursor itself (see
    # vector_cells._assign); this says when a fixed build arrives.
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


@pytest.mark.parametrize("cipher", ["aegis"])
def test_the_binding_has_the_cipher_hippo_uses(tmp_path, cipher):
    conn = connect(tmp_path / "hippo.db")
    assert conn.execute("PRAGMA cipher").fetchone()[0] == cipher
