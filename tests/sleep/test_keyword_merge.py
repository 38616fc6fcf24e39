"""A sleep run leaves the keyword indexes merged: the next day's searches read one segment."""

from __future__ import annotations

from data_schema.keyword_indexes import keyword_indexes
from tests.data_schema.test_keyword_indexes import segments
from tests.sleep.helpers import sleep
from tests.sleep.scenario import small_week


def test_a_sleep_run_leaves_each_keyword_index_in_one_segment(engine, fake_ollama, clock):
    fake_ollama.script(*small_week(engine))  # each message written alone, as a chat does
    clock.advance(days=4)
    conn = engine.memory.db.conn
    pid = engine.memory.profile.id
    before = engine.memory.messages.keyword_search(pid, "python tea dentist", 20)
    assert segments(conn, "messages_fts") > 1

    report = sleep(engine)

    assert report.status == "done", report.errors
    assert {segments(conn, t) for t in keyword_indexes(conn)} <= {0, 1}  # 0: empty
    assert segments(conn, "messages_fts") == segments(conn, "facts_fts") == 1
    assert engine.memory.messages.keyword_search(pid, "python tea dentist", 20) == before
