"""m011: messages get an origin, facts may come from pasted text, core edits can wait."""

from __future__ import annotations

import apsw
import pytest

from data_schema.connect import connect
from data_schema.migrations import MIGRATIONS, applied_migrations


def _file_before_m011(path):
    conn = connect(path, migrate=False)
    applied_migrations(conn)  # creates the record table
    stop = [fn.__name__ for fn in MIGRATIONS].index("m011_injection_defences")
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
        " VALUES (1, 1, 'user', 'I like tea', 'a')"
    )
    conn.execute(
        "INSERT INTO facts(profile_id, statement, source_kind, status, learned_at)"
        " VALUES (1, 'The user likes tea', 'user_stated', 'active', 'a')"
    )
    conn.execute("INSERT INTO fact_evidence(fact_id, kind, ref_id) VALUES (1, 'message', 1)")
    conn.execute(
        "INSERT INTO fact_history(fact_id, actor, action, at) VALUES (1, 'user', 'add', 'a')"
    )
    conn.close()


def test_existing_messages_are_typed_and_facts_keep_their_evidence_and_history(tmp_path):
    _file_before_m011(tmp_path / "hippo.db")
    upgraded = connect(tmp_path / "hippo.db")
    assert upgraded.execute("SELECT origin FROM messages").fetchall() == [("typed",)]
    assert upgraded.execute("SELECT kind, ref_id FROM fact_evidence").fetchall() == [("message", 1)]
    assert upgraded.execute("SELECT count(*) FROM fact_history").fetchone() == (1,)
    assert upgraded.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    upgraded.close()


def test_a_fact_may_come_from_pasted_text_but_not_from_an_unknown_source(tmp_path):
    _file_before_m011(tmp_path / "hippo.db")
    upgraded = connect(tmp_path / "hippo.db")
    insert = (
        "INSERT INTO facts(profile_id, statement, source_kind, learned_at) VALUES (1, 'x', ?, 'a')"
    )
    upgraded.execute(insert, ("pasted",))
    with pytest.raises(apsw.ConstraintError):
        upgraded.execute(insert, ("rumour",))
    with pytest.raises(apsw.ConstraintError):
        upgraded.execute("UPDATE messages SET origin = 'dictated'")
    upgraded.close()
    # Another connection, opened afresh, reads the widened constraint too.
    again = connect(tmp_path / "hippo.db")
    again.execute(insert, ("pasted",))
    assert again.execute("SELECT count(*) FROM facts WHERE source_kind = 'pasted'").fetchone() == (
        2,
    )
    again.close()
