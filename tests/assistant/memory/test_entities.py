"""Entity links: names found cheaply, linked per profile, siblings found through them."""

from __future__ import annotations

import pytest

from assistant.clock import ManualClock
from assistant.errors import NotFound
from assistant.memory.entities import EntityStore, extract_entities, normalise_name
from assistant.memory.facts import Evidence, FactStore
from assistant.memory.messages import MessageStore
from data_schema.connect import Database


@pytest.fixture
def db(tmp_path):
    db = Database(tmp_path / "hippo.db")
    yield db
    db.close()


@pytest.fixture
def stores(db):
    clock = ManualClock()
    conn = lambda: db.conn  # noqa: E731
    return MessageStore(conn, clock), FactStore(conn, clock), EntityStore(conn, clock)


def remember(stores, profile_id, statement):
    """Store a user-stated fact and link it to the entities it names; return its id."""
    messages, facts, entities = stores
    session = messages.create_session(profile_id)
    message = messages.add_message(session.id, "user", statement)
    fact = facts.add(
        profile_id,
        statement,
        evidence=[Evidence("message", message.id)],
        source_kind="user_stated",
        actor="sleep",
    )
    entities.link(profile_id, "fact", fact.id, extract_entities(statement))
    return fact.id


# -- extraction ----------------------------------------------------------------------


def test_multi_word_names_handles_quotes_and_projects_are_extracted():
    text = 'My sister Anna Berg and @bob_s work on Project Atlas at Bank of America ("Blue Whale").'
    assert extract_entities(text) == [
        "Anna Berg",
        "@bob_s",
        "Project Atlas",
        "Bank of America",
        "Blue Whale",
    ]


def test_capitalised_words_at_a_sentence_start_are_not_names_unless_they_act_like_one():
    assert extract_entities("Remind me tomorrow. Booked flights to Rome.") == ["Rome"]
    assert extract_entities("Sarah works at Google.") == ["Sarah", "Google"]
    assert extract_entities("Yesterday I met Tom on Monday") == ["Tom"]


def test_lowercase_project_names_and_email_addresses():
    assert extract_entities("the project A deadline moved; mail bob@example.com") == ["Project A"]


def test_chinese_organisations_projects_and_titles_are_extracted():
    text = "我在腾讯公司工作，负责凤凰项目和A项目。我和Anna看了《三体》。"
    assert extract_entities(text) == ["腾讯公司", "凤凰项目", "Project A", "Anna", "三体"]


def test_names_match_whatever_their_case_or_punctuation():
    assert normalise_name("Anna's") == normalise_name("ANNA") == "anna"
    assert normalise_name("@Bob_S") == "bob s"


# -- linking -------------------------------------------------------------------------


def test_one_entity_per_normalised_name(stores):
    messages, _, entities = stores
    me = messages.profile("work").id
    first = remember(stores, me, "Anna Berg moved to Porto")
    second = remember(stores, me, "User had lunch with anna berg")
    entities.link(me, "fact", second, ["ANNA BERG"])
    anna = entities.find(me, "anna-berg!")
    assert anna is not None and anna.name == "Anna Berg"
    assert anna in entities.entities_of("fact", first)
    assert entities.entities_of("fact", second) == [anna]


def test_recalling_one_fact_brings_its_siblings(stores):
    messages, _, entities = stores
    me = messages.profile("work").id
    deadline = remember(stores, me, "Project Atlas ships on 3 March")
    owner = remember(stores, me, "Priya Shah leads Project Atlas")
    remember(stores, me, "User prefers tea")
    atlas = [e.id for e in entities.entities_of("fact", deadline)]
    assert entities.linked_items(me, atlas, exclude=("fact", deadline)) == [("fact", owner)]


def test_a_query_that_mentions_an_entity_finds_its_items(stores):
    messages, _, entities = stores
    me = messages.profile("work").id
    owner = remember(stores, me, "Priya Shah leads Project Atlas")
    deadline = remember(stores, me, "Project Atlas ships on 3 March")
    hits = entities.items_for_query(me, "when does project atlas ship?")
    assert sorted(hits) == [("fact", owner), ("fact", deadline)]


def test_a_chinese_query_finds_items_of_the_entity_it_mentions(stores):
    messages, _, entities = stores
    me = messages.profile("work").id
    project = remember(stores, me, "用户负责凤凰项目")
    remember(stores, me, "用户在腾讯公司工作")
    assert entities.items_for_query(me, "凤凰项目进展如何？") == [("fact", project)]


def test_entities_never_cross_profiles(stores):
    messages, _, entities = stores
    work, home = messages.profile("work").id, messages.profile("home").id
    remember(stores, home, "Dr Lee is the family doctor")
    assert entities.find(work, "Dr Lee") is None
    assert entities.items_for_query(work, "what did Dr Lee say") == []
    theirs = remember(stores, home, "Dr Lee moved clinics")
    with pytest.raises(NotFound, match="in this profile"):
        entities.link(work, "fact", theirs, ["Dr Lee"])


def test_links_of_a_deleted_message_are_not_returned(db, stores):
    messages, _, entities = stores
    me = messages.profile("work").id
    session = messages.create_session(me)
    message = messages.add_message(session.id, "user", "Lunch with Priya Shah")
    (priya,) = entities.link(me, "message", message.id, ["Priya Shah"])
    db.conn.execute("DELETE FROM messages WHERE id = ?", (message.id,))
    assert entities.linked_items(me, [priya], kinds=("message",)) == []
