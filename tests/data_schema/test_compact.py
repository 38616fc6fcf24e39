"""Free pages given back: a batch at a time in a new file, by a rewrite in an old one."""

from __future__ import annotations

from pathlib import Path

import apsw

from data_schema.compact import compact
from data_schema.connect import Database


def _fill_and_empty(conn: apsw.Connection, rows: int = 600) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS junk (b BLOB)")
    with conn:
        conn.executemany("INSERT INTO junk VALUES (?)", [(b"x" * 4000,)] * rows)
    conn.execute("DELETE FROM junk")


def _size(conn: apsw.Connection) -> int:
    return conn.execute("PRAGMA page_count").fetchone()[0] * 4096


def test_a_new_data_file_gives_freed_pages_back_in_batches(tmp_path):
    db = Database(tmp_path / "hippo.db")
    conn = db.conn
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
    _fill_and_empty(conn, 3000)  # 12 MB freed: more than one batch
    before = _size(conn)

    done = compact(conn)

    assert done.how == "incremental" and done.after_bytes < before / 4
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    db.close()
    assert (tmp_path / "hippo.db").stat().st_size < before / 4


def _old_file(path: Path) -> apsw.Connection:
    """A file as Hippo made them before incremental mode: no auto-vacuum."""
    conn = apsw.Connection(str(path))
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE keep (x)")
    conn.execute("INSERT INTO keep VALUES ('still here')")
    return conn


def test_an_old_file_mostly_free_is_rewritten_into_incremental_mode(tmp_path):
    conn = _old_file(tmp_path / "old.db")
    _fill_and_empty(conn)
    before = _size(conn)

    done = compact(conn)

    assert done.how == "vacuum" and done.after_bytes < before / 4
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
    assert conn.execute("SELECT x FROM keep").fetchall() == [("still here",)]


def test_an_old_file_with_little_free_is_left_unless_asked(tmp_path):
    conn = _old_file(tmp_path / "old.db")
    _fill_and_empty(conn, 100)  # 400 KB free: not worth rewriting the file for
    before = _size(conn)

    assert compact(conn).how == "" and _size(conn) == before
    assert compact(conn, rewrite=True).how == "vacuum" and _size(conn) < before


def test_a_file_held_by_a_writer_is_left_for_later_and_nothing_is_lost(tmp_path):
    conn = _old_file(tmp_path / "old.db")
    _fill_and_empty(conn)
    conn.setbusytimeout(0)
    other = apsw.Connection(str(tmp_path / "old.db"))
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO keep VALUES ('meanwhile')")

    done = compact(conn, rewrite=True)
    other.execute("COMMIT")

    assert done.how == "busy" and done.freed_bytes == 0
    assert len(conn.execute("SELECT x FROM keep").fetchall()) == 2
