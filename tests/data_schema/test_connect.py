"""Opening the data file: permissions, pragmas, sqlite-vec, migrations from a blank file."""

from __future__ import annotations

import os
import stat
import threading

import apsw
import pytest

from assistant.errors import MigrationError, StorageError
from data_schema.cipher import DataKey, opens_with
from data_schema.connect import Database, connect, sqlite_vec_version
from data_schema.migrations import MIGRATIONS, applied_migrations, apply_migrations, schema_version
from tests.conftest import TEST_DB_KEY


def test_a_new_file_is_readable_by_its_owner_only(tmp_path):
    path = tmp_path / "deep" / "hippo.db"
    connect(path).close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700


def test_the_file_runs_in_wal_with_foreign_keys_and_a_busy_timeout(tmp_path):
    conn = connect(tmp_path / "hippo.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_a_database_waits_for_the_write_lock_as_long_as_it_was_told(tmp_path):
    db = Database(tmp_path / "hippo.db", busy_timeout_ms=150)
    assert db.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 150
    other = connect(tmp_path / "hippo.db", migrate=False)
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(apsw.BusyError):
        db.conn.execute("CREATE TABLE t (x)")
    other.execute("ROLLBACK")
    other.close()
    db.close()


def test_opening_waits_for_a_locked_file_instead_of_refusing_it(tmp_path):
    path = tmp_path / "hippo.db"
    connect(path).close()
    holder = connect(path, migrate=False)
    # Exclusive locking in WAL mode keeps every other connection from its first read,
    # as a connection recovering the WAL does: the new one's first read must wait.
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE t (x)")
    opened: list[object] = []
    waiter = threading.Thread(target=lambda: opened.append(_open_or_error(path)))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive() or (opened and not isinstance(opened[0], Exception)), opened
    holder.execute("COMMIT")
    holder.execute("PRAGMA locking_mode = NORMAL")
    holder.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # lets the lock go
    waiter.join()
    assert not isinstance(opened[0], Exception), opened[0]
    holder.close()


def test_a_busy_file_is_not_taken_for_one_the_key_does_not_open(tmp_path):
    path = tmp_path / "hippo.db"
    connect(path).close()
    key = DataKey(bytes.fromhex(TEST_DB_KEY), "test")
    assert opens_with(path, key)
    holder = connect(path, migrate=False)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE t (x)")
    with pytest.raises(StorageError, match="is busy"):
        opens_with(path, key, busy_timeout_ms=50)
    holder.close()


def _open_or_error(path) -> object:
    try:
        conn = connect(path, migrate=False, busy_timeout_ms=60_000)
    except Exception as exc:
        return exc
    conn.close()
    return conn


def test_sqlite_vec_is_loaded(tmp_path):
    assert sqlite_vec_version(connect(tmp_path / "hippo.db")).startswith("v0.")


def test_migrations_run_from_a_blank_file_and_are_recorded(tmp_path):
    conn = connect(tmp_path / "hippo.db", migrate=False)
    assert schema_version(conn) == "none"
    applied = apply_migrations(conn)
    assert applied == [fn.__name__ for fn in MIGRATIONS]
    assert applied_migrations(conn) == applied
    assert apply_migrations(conn) == []  # nothing twice
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"profiles", "sessions", "messages", "messages_fts", "embedding_models"} <= tables


def test_a_failed_migration_leaves_the_file_unchanged(tmp_path):
    conn = connect(tmp_path / "hippo.db")

    def m999_broken(db: apsw.Connection) -> None:
        db.execute("CREATE TABLE half_done (x)")
        db.execute("THIS IS NOT SQL")

    MIGRATIONS.append(m999_broken)
    try:
        with pytest.raises(MigrationError, match="m999_broken"):
            apply_migrations(conn)
    finally:
        MIGRATIONS.remove(m999_broken)
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert "half_done" not in names
    assert "m999_broken" not in applied_migrations(conn)


def test_a_file_from_a_newer_hippo_is_refused_with_advice(tmp_path):
    conn = connect(tmp_path / "hippo.db")
    conn.execute("INSERT INTO _migrations VALUES ('m900_future', '2030-01-01')")
    with pytest.raises(MigrationError, match="newer Hippo"):
        apply_migrations(conn)


def test_a_file_that_is_not_a_database_gets_a_clear_error(tmp_path):
    path = tmp_path / "hippo.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError, match="not a readable Hippo database") as refused:
        connect(path)
    assert "hippo memory" not in str(refused.value)


def test_each_thread_gets_its_own_connection(tmp_path):
    import threading

    db = Database(tmp_path / "hippo.db")
    seen = []
    thread = threading.Thread(target=lambda: seen.append(db.conn))
    thread.start()
    thread.join()
    assert seen[0] is not db.conn
    db.close()


def test_a_file_at_every_older_schema_upgrades_and_keeps_its_data(tmp_path):
    for stop in range(1, len(MIGRATIONS)):
        path = tmp_path / f"v{stop}.db"
        conn = connect(path, migrate=False)
        applied_migrations(conn)  # creates the record table
        for fn in MIGRATIONS[:stop]:
            with conn:
                fn(conn)
                conn.execute("INSERT INTO _migrations VALUES (?, 'then')", (fn.__name__,))
        conn.execute("INSERT INTO profiles(name, created_at) VALUES ('old', 'then')")
        conn.execute(
            "INSERT INTO sessions(profile_id, started_at, last_active_at) VALUES (1, 'a', 'a')"
        )
        conn.execute(
            "INSERT INTO messages(profile_id, session_id, role, content, created_at)"
            " VALUES (1, 1, 'user', 'kept across upgrades', 'a')"
        )
        conn.close()
        upgraded = connect(path)
        assert schema_version(upgraded) == MIGRATIONS[-1].__name__
        assert upgraded.execute("SELECT content FROM messages").fetchall() == [
            ("kept across upgrades",)
        ]
        upgraded.close()


def test_a_transaction_takes_the_write_lock_before_its_first_read(tmp_path):
    """A `with conn:` block reads, then writes: it holds the write lock from its start,
    so its write cannot be refused at once because another connection wrote meanwhile."""
    path = tmp_path / "hippo.db"
    conn, other = connect(path), connect(path)
    other.setbusytimeout(0)  # fail at once rather than wait the 5 s out
    with conn:
        conn.execute("SELECT count(*) FROM profiles").fetchall()
        with pytest.raises(apsw.BusyError):
            other.execute("BEGIN IMMEDIATE")
    other.execute("BEGIN IMMEDIATE")  # free again once the block ends
    other.execute("ROLLBACK")
