"""Episodes: adding, listing by recency and scope, time spans, search."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from assistant.clock import ManualClock
from assistant.errors import HippoError, NotFound
from assistant.memory.episodes import EpisodeStore
from assistant.memory.messages import MessageStore
from data_schema.connect import Database

T0 = datetime(2026, 2, 1, 10, 0, tzinfo=UTC)


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "hippo.db")
    yield database
    database.close()


@pytest.fixture
def messages(db):
    return MessageStore(lambda: db.conn, ManualClock())


@pytest.fixture
def episodes(db):
    return EpisodeStore(lambda: db.conn, ManualClock())


def _add(episodes, profile_id, day, **fields):
    start = T0 + timedelta(days=day)
    fields.setdefault("summary", f"What happened on day {day}")
    return episodes.add(profile_id, started_at=start, ended_at=start + timedelta(hours=1), **fields)


def test_an_episode_keeps_its_messages_topics_and_is_queued_for_a_vector(episodes, messages, db):
    profile = messages.profile("work")
    session = messages.create_session(profile.id)
    said = [messages.add_message(session.id, "user", t).id for t in ("Budget is 5k", "ok")]
    episode = _add(
        episodes,
        profile.id,
        0,
        session_id=session.id,
        title="Budget",
        topics=("money", "Q2"),
        message_ids=said,
        importance=7,
    )
    assert episode.message_ids == tuple(said)
    assert episode.topics == ("money", "Q2")
    assert (episode.importance, episode.session_id) == (7, session.id)
    assert episodes.for_session(session.id) == [episode]
    queued = db.conn.execute("SELECT item_id FROM embedding_queue WHERE kind = 'episode'")
    assert [row[0] for row in queued] == [episode.id]


def test_recent_episodes_come_newest_first_and_filter_by_scope(episodes, messages):
    profile = messages.profile("work")
    anywhere = _add(episodes, profile.id, 0)
    health = _add(episodes, profile.id, 1, scope="health")
    work = _add(episodes, profile.id, 2, scope="work")
    assert [e.id for e in episodes.recent(profile.id)] == [work.id, health.id, anywhere.id]
    assert [e.id for e in episodes.recent(profile.id, limit=1)] == [work.id]
    scoped = episodes.recent(profile.id, scopes=["health"])
    assert [e.id for e in scoped] == [health.id, anywhere.id]
    assert [e.id for e in episodes.recent(profile.id, scopes=[])] == [anywhere.id]


def test_between_returns_episodes_overlapping_the_span(episodes, messages):
    profile = messages.profile("work")
    days = [_add(episodes, profile.id, day) for day in range(4)]
    found = episodes.between(profile.id, T0 + timedelta(days=1), T0 + timedelta(days=2, minutes=30))
    assert [e.id for e in found] == [days[1].id, days[2].id]


def test_an_episode_cannot_cite_another_profiles_messages(episodes, messages):
    work, home = messages.profile("work"), messages.profile("home")
    theirs = messages.add_message(messages.create_session(home.id).id, "user", "secret").id
    with pytest.raises(NotFound, match=f"Messages {theirs} are not in profile"):
        _add(episodes, work.id, 0, message_ids=[theirs])
    with pytest.raises(NotFound):
        _add(episodes, work.id, 0, message_ids=[9999])
    assert episodes.recent(work.id) == []


def test_an_empty_summary_or_backwards_span_is_refused(episodes, messages):
    profile = messages.profile("work")
    with pytest.raises(HippoError, match="summary"):
        _add(episodes, profile.id, 0, summary=" ")
    with pytest.raises(HippoError, match="before it starts"):
        episodes.add(profile.id, summary="x", started_at=T0, ended_at=T0 - timedelta(hours=1))


def test_keyword_search_finds_episodes_by_title_topic_and_chinese_summary(episodes, messages):
    profile = messages.profile("work")
    trip = _add(episodes, profile.id, 0, title="Lisbon", summary="Planned the spring trip")
    china = _add(episodes, profile.id, 1, summary="讨论了下个月去北京出差的安排", topics=("出差",))
    assert episodes.keyword_search(profile.id, "lisbon", 5)[0][0] == trip.id
    assert episodes.keyword_search(profile.id, "北京出差", 5)[0][0] == china.id


def test_a_removed_episode_is_gone_from_lists_and_search(episodes, messages):
    profile = messages.profile("work")
    episode = _add(episodes, profile.id, 0, summary="Talked about the garden")
    assert episodes.remove(episode.id) is True
    assert episodes.recent(profile.id) == []
    assert episodes.keyword_search(profile.id, "garden", 5) == []
    with pytest.raises(NotFound):
        episodes.get(episode.id)
