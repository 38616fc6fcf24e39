"""Each admin part works built from the stores it names, with no engine behind it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from assistant.admin import ActivityAdmin, ForgetAdmin, HistoryAdmin
from assistant.clock import ManualClock
from assistant.errors import HippoError
from assistant.memory.core import CoreMemory
from assistant.memory.episodes import EpisodeStore
from assistant.memory.facts import Evidence, FactStore
from assistant.memory.messages import MessageStore
from assistant.memory.profile_data import Purge
from assistant.memory.sleep_runs import RunStore
from assistant.memory.vectors import VectorStore
from data_schema.connect import Database


@pytest.fixture
def w(tmp_path):
    """The stores over a fresh file, and the default profile."""
    db = Database(tmp_path / "hippo.db")
    clock = ManualClock()
    conn = lambda: db.conn  # noqa: E731
    messages = MessageStore(conn, clock)
    profile = messages.profile("default")
    yield SimpleNamespace(
        db=db,
        clock=clock,
        conn=conn,
        messages=messages,
        facts=FactStore(conn, clock),
        profile=lambda: profile,
    )
    db.close()


def _said(messages: MessageStore, profile_id: int, text: str) -> tuple[int, Evidence]:
    session = messages.create_session(profile_id)
    return session.id, Evidence("message", messages.add_message(session.id, "user", text).id)


def test_history_lists_and_undoes_a_change_from_the_facts_and_core_stores(w):
    _, evidence = _said(w.messages, w.profile().id, "I live in Porto")
    fact = w.facts.add(
        w.profile().id,
        "Lives in Porto",
        evidence=[evidence],
        source_kind="user_stated",
        actor="user",
    )
    w.clock.advance(minutes=1)
    w.facts.update(fact.id, actor="user", statement="Lives in Lisbon")
    history = HistoryAdmin(w.facts, CoreMemory(w.conn, w.clock), w.profile)

    latest = history.changes(limit=1)[0]
    assert (latest.before_text, latest.after_text) == ("Lives in Porto", "Lives in Lisbon")
    assert history.undo(latest.id).statement == "Lives in Porto"


def test_forget_deletes_a_session_of_its_profile_only(w):
    session_id, _ = _said(w.messages, w.profile().id, "Zalando order 123")
    other = w.messages.profile("work")
    other_session, _ = _said(w.messages, other.id, "Zalando at work")
    forget = ForgetAdmin(
        Purge(w.conn, w.clock), w.messages, w.profile, w.db.path, w.db.keys, w.clock
    )

    receipt = forget.delete_session(session_id)

    assert receipt.counts["messages"] == 1 and receipt.counts["sessions"] == 1
    with pytest.raises(HippoError, match="belongs to another profile"):
        forget.delete_session(other_session)
    assert w.messages.session(other_session).profile_id == other.id


def test_activity_counts_a_day_from_the_stores(w):
    _said(w.messages, w.profile().id, "Hello")
    activity = ActivityAdmin(
        messages=w.messages,
        facts=w.facts,
        episodes=EpisodeStore(w.conn, w.clock),
        vectors=VectorStore(w.conn, w.clock),
        runs=RunStore(w.conn),
        conn=w.conn,
        data_file=w.db.path,
        profile=w.profile,
        clock=w.clock,
    )

    (today,) = activity.per_day(1)
    stats = activity.stats()

    assert (today.sessions, today.messages) == (1, 1)
    assert stats.counts["messages"] == 1 and stats.last_sleep is None
