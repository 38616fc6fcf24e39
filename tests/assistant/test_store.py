"""The recall archive: sessions, messages, keyword search in English and Chinese."""

from __future__ import annotations

import pytest

from assistant.clock import ManualClock
from assistant.errors import NotFound
from assistant.memory.messages import INTERRUPTED, MessageStore
from data_schema.connect import Database


@pytest.fixture
def store(tmp_path):
    db = Database(tmp_path / "hippo.db")
    yield MessageStore(lambda: db.conn, ManualClock())
    db.close()


def test_a_session_takes_its_title_from_the_first_user_message(store):
    profile = store.profile("default")
    session = store.create_session(profile.id)
    store.add_message(session.id, "user", "Plan my trip to Lisbon in May, please")
    store.add_message(session.id, "assistant", "Sure.")
    session = store.session(session.id)
    assert session.title == "Plan my trip to Lisbon in May, please"
    assert session.message_count == 2


def test_chinese_keyword_search_finds_its_message(store):
    profile = store.profile("default")
    session = store.create_session(profile.id)
    store.add_message(session.id, "user", "我下周五要去北京出差，住在朝阳区")
    store.add_message(session.id, "user", "今天天气很好")
    store.add_message(session.id, "user", "I moved to Berlin last year")
    hits = store.keyword_search(profile.id, "北京", 10)
    assert store.message(hits[0][0]).content.startswith("我下周五")
    assert all(store.message(mid).content != "I moved to Berlin last year" for mid, _ in hits)
    question = store.keyword_search(profile.id, "我什么时候去北京出差？", 10)
    assert store.message(question[0][0]).content.startswith("我下周五")


def test_english_keyword_search_matches_word_forms(store):
    profile = store.profile("default")
    session = store.create_session(profile.id)
    store.add_message(session.id, "user", "I have been running every morning")
    store.add_message(session.id, "user", "My sister lives in Oslo")
    hits = store.keyword_search(profile.id, "runs", 10)
    assert store.message(hits[0][0]).content == "I have been running every morning"


def test_search_never_returns_another_profiles_messages(store):
    work, home = store.profile("work"), store.profile("personal")
    store.add_message(store.create_session(work.id).id, "user", "the quarterly budget review")
    store.add_message(store.create_session(home.id).id, "user", "my budget for groceries")
    hits = store.keyword_search(work.id, "budget", 10)
    assert [store.message(mid).content for mid, _ in hits] == ["the quarterly budget review"]


def test_search_with_only_punctuation_finds_nothing_and_does_not_fail(store):
    profile = store.profile("default")
    store.add_message(store.create_session(profile.id).id, "user", "hello")
    assert store.keyword_search(profile.id, '?!" AND OR (', 10) == []


def test_a_streaming_reply_is_indexed_only_when_it_ends(store):
    profile = store.profile("default")
    session = store.create_session(profile.id)
    reply = store.add_message(session.id, "assistant", "", status="streaming")
    store.update_message(reply.id, content="partial answer about tulips", status="streaming")
    assert store.keyword_search(profile.id, "tulips", 10) == []
    store.update_message(reply.id, content="full answer about tulips", status="complete")
    assert [mid for mid, _ in store.keyword_search(profile.id, "tulips", 10)] == [reply.id]


def test_replies_left_streaming_by_a_dead_process_are_kept_as_failed(store):
    profile = store.profile("default")
    session = store.create_session(profile.id)
    reply = store.add_message(session.id, "assistant", "", status="streaming")
    store.update_message(reply.id, content="half a thought", status="streaming")
    assert store.mark_interrupted() == 1
    kept = store.message(reply.id)
    assert (kept.status, kept.content, kept.error) == ("failed", "half a thought", INTERRUPTED)


def test_recent_messages_returns_the_last_ones_in_order(store):
    profile = store.profile("default")
    session = store.create_session(profile.id)
    for i in range(10):
        store.add_message(session.id, "user", f"message {i}")
    assert [m.content for m in store.recent_messages(session.id, 3)] == [
        "message 7",
        "message 8",
        "message 9",
    ]


def test_adding_to_a_missing_session_is_a_clear_error(store):
    with pytest.raises(NotFound, match="no session 42"):
        store.add_message(42, "user", "hi")


def test_last_session_skips_empty_sessions(store):
    profile = store.profile("default")
    first = store.create_session(profile.id)
    store.add_message(first.id, "user", "hello")
    store.create_session(profile.id)
    assert store.last_session(profile.id).id == first.id


def test_a_message_is_also_found_through_its_neighbours_words_ranked_below_direct_hits(store):
    profile = store.profile("default")
    session = store.create_session(profile.id)
    question = store.add_message(session.id, "user", "What did you think of the marathon?")
    answer = store.add_message(session.id, "assistant", "It was exhausting but I finished.")
    store.add_message(store.create_session(profile.id).id, "user", "I finished the report")
    hits = [mid for mid, _ in store.keyword_search(profile.id, "marathon", 10)]
    assert hits == [question.id, answer.id]
