"""m014: a reply may be stored as cut at the model's length limit; older rows are kept."""

from __future__ import annotations

import apsw
import pytest

from data_schema.connect import connect
from data_schema.migrations import MIGRATIONS, applied_migrations


def _file_before_m014(path):
    conn = connect(path, migrate=False)
    applied_migrations(conn)  # creates the record table
    stop = [fn.__name__ for fn in MIGRATIONS].index("m014_cut_replies")
    for fn in MIGRATIONS[:stop]:
        with conn:
            fn(conn)
            conn.execute("INSERT INTO _migrations VALUES (?, 'then')", (fn.__name__,))
    conn.execute("INSERT INTO profiles(name, created_at) VALUES ('old', 'then')")
    conn.execute(
        "INSERT INTO sessions(profile_id, started_at, last_active_at) VALUES (1, 'a', 'a')"
    )
    conn.execute(
        "INSERT INTO messages(profile_id, session_id, role, content, created_at, status)"
        " VALUES (1, 1, 'assistant', 'Lisbon is lovely', 'a', 'cancelled')"
    )
    with pytest.raises(apsw.ConstraintError):
        conn.execute("UPDATE messages SET status = 'cut'")
    conn.close()


def test_a_reply_may_be_cut_after_the_migration_and_older_rows_are_kept(tmp_path):
    _file_before_m014(tmp_path / "hippo.db")
    upgraded = connect(tmp_path / "hippo.db")
    assert upgraded.execute("SELECT status FROM messages").fetchall() == [("cancelled",)]
    upgraded.execute("UPDATE messages SET status = 'cut'")
    with pytest.raises(apsw.ConstraintError):
        upgraded.execute("UPDATE messages SET status = 'truncated'")
    assert upgraded.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    upgraded.close()
