"""Sensory events: logging, expiry, JSON lines, keyword search."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from assistant.clock import ManualClock
from assistant.errors import HippoError
from assistant.memory.messages import MessageStore
from assistant.memory.sensory import DEFAULT_TTL, EventStore
from data_schema.connect import Database


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "hippo.db")
    yield database
    database.close()


@pytest.fixture
def clock():
    return ManualClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))


@pytest.fixture
def events(db, clock):
    return EventStore(lambda: db.conn, clock)


@pytest.fixture
def profile(db, clock):
    return MessageStore(lambda: db.conn, clock).profile("work")


def test_an_event_expires_a_week_after_it_happened_by_default(events, profile, clock):
    event = events.log(profile.id, "Parcel delivered to the neighbour")
    assert event.occurred_at == clock.now()
    assert event.expires_at == clock.now() + DEFAULT_TTL
    assert 1 <= event.importance <= 10


def test_an_expired_event_never_comes_back_from_recent_or_search(events, profile, clock):
    short = events.log(profile.id, "Oven left on at the cabin", ttl=timedelta(hours=2))
    lasting = events.log(profile.id, "Cabin key is under the blue pot")
    now = clock.now()
    assert [e.id for e in events.recent(profile.id, now)] == [lasting.id, short.id]
    later = clock.advance(hours=3)
    assert [e.id for e in events.recent(profile.id, later)] == [lasting.id]
    assert [hit[0] for hit in events.keyword_search(profile.id, "cabin", 10, now=later)] == [
        lasting.id
    ]
    assert [e.id for e in events.expired(profile.id, later)] == [short.id]


def test_recent_only_looks_back_over_its_window(events, profile, clock):
    old = events.log(profile.id, "Ran 5 km", occurred_at=clock.now() - timedelta(days=5))
    new = events.log(profile.id, "Ran 8 km")
    assert [e.id for e in events.recent(profile.id, clock.now())] == [new.id]
    week = events.recent(profile.id, clock.now(), within=timedelta(days=6))
    assert [e.id for e in week] == [new.id, old.id]


def test_an_empty_event_is_refused(events, profile):
    with pytest.raises(HippoError, match="needs some text"):
        events.log(profile.id, "   ")


def test_json_lines_keep_the_good_lines_and_report_the_bad_line_number(events, profile, clock):
    lines = [
        json.dumps({"text": "Heart rate 52 at rest", "source": "watch"}),
        "{not json",
        "",
        json.dumps({"text": "Meeting with Ana moved", "occurred_at": "2026-03-01T08:00:00Z"}),
        json.dumps({"text": "x", "importance": 42}),
        json.dumps({"source": "watch"}),
        json.dumps({"text": "Took vitamins", "ttl_hours": 1, "importance": 2}),
        json.dumps({"text": "Forever", "ttl_hours": 1e300}),
    ]
    result = events.log_json_lines(profile.id, lines)
    assert result.added == 3
    assert [error.split(":")[0] for error in result.errors] == [
        "line 2",
        "line 5",
        "line 6",
        "line 8",
    ]
    assert "not valid JSON" in result.errors[0]
    stored = {e.text: e for e in events.recent(profile.id, clock.now())}
    assert stored["Heart rate 52 at rest"].source == "watch"
    assert stored["Meeting with Ana moved"].occurred_at == datetime(2026, 3, 1, 8, tzinfo=UTC)
    vitamins = stored["Took vitamins"]
    assert (vitamins.importance, vitamins.expires_at) == (2, clock.now() + timedelta(hours=1))


def test_a_naive_json_time_is_local_time(events, profile):
    line = json.dumps({"text": "Woke up", "occurred_at": "2026-03-01T07:30:00"})
    events.log_json_lines(profile.id, [line])
    (event,) = events.get_many([1]).values()
    assert event.occurred_at == datetime(2026, 3, 1, 7, 30).astimezone(UTC)


def test_unknown_json_fields_are_reported_not_dropped(events, profile):
    result = events.log_json_lines(profile.id, [json.dumps({"text": "hi", "tags": ["a"]})])
    assert result.added == 0
    assert "unknown field 'tags'" in result.errors[0]


def test_chinese_keyword_search_finds_its_event(events, profile, clock):
    wanted = events.log(profile.id, "快递已经放在小区门口的快递柜里")
    events.log(profile.id, "今天跑步五公里")
    hits = events.keyword_search(profile.id, "快递柜", 10, now=clock.now())
    assert hits[0][0] == wanted.id and len(hits) == 1


def test_consolidated_and_removed_events(events, profile, clock):
    first = events.log(profile.id, "Bought milk")
    second = events.log(profile.id, "Bought bread")
    assert events.mark_consolidated([first.id, second.id], clock.now()) == 2
    assert events.get_many([first.id])[first.id].consolidated_at == clock.now()
    assert events.remove(first.id) is True
    assert events.keyword_search(profile.id, "milk", 10, now=clock.now()) == []
    assert events.remove(first.id) is False
