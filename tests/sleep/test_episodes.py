"""Step 2: idle sessions become episodes; dated items get absolute dates, then expire."""

from __future__ import annotations

from datetime import UTC, date, datetime

from tests.sleep.helpers import chat, day, episode, episodes, facts, sleep


def _dentist(engine, fake_ollama, *, when="next Friday", model_date=""):
    _, said = chat(engine, day("2026-11-25"), f"Dentist appointment {when}, remember.", "Sure.")
    item = {"text": f"Dentist appointment {when}", "when": when, "message_id": said[0].id}
    if model_date:
        item["date"] = model_date
    fake_ollama.script(
        episodes(episode(said[0].id, said[1].id, "A dentist appointment.", dated=[item])),
        facts(),
    )
    return said


def test_an_idle_session_becomes_an_episode_with_its_messages(engine, fake_ollama, clock):
    session, said = chat(engine, day("2026-11-23"), "I adopted a cat called Miso.", "Congrats!")
    clock.advance(days=1)
    fake_ollama.script(
        episodes(
            episode(
                said[0].id,
                said[1].id,
                "The user adopted Miso.",
                title="Miso",
                topics=["pets"],
                importance=7,
            )
        ),
        facts(),
    )

    report = sleep(engine)

    (ep,) = engine.memory.episodes.for_session(session.id)
    assert (ep.summary, ep.title, ep.topics, ep.importance) == (
        "The user adopted Miso.",
        "Miso",
        ("pets",),
        7,
    )
    assert ep.message_ids == (said[0].id, said[1].id)
    assert (ep.started_at, ep.ended_at) == (said[0].created_at, said[1].created_at)
    assert report.counts["sessions_summarised"] == 1 and report.counts["sessions_closed"] == 1


def test_a_long_session_is_split_where_the_topic_shifts(engine, fake_ollama, clock):
    session, said = chat(
        engine,
        day("2026-11-23"),
        "Plan my trip to Lisbon.",
        "Sure.",
        "Also, my knee hurts.",
        "See a doctor.",
    )
    clock.advance(days=1)
    fake_ollama.script(
        episodes(
            episode(said[0].id, said[1].id, "Trip to Lisbon."),
            episode(said[2].id, said[3].id, "Knee pain."),
        ),
        facts(),
    )
    sleep(engine)
    assert [e.summary for e in engine.memory.episodes.for_session(session.id)] == [
        "Trip to Lisbon.",
        "Knee pain.",
    ]


def test_a_session_still_in_use_is_left_for_the_next_night(engine, fake_ollama, clock):
    chat(engine, clock.now(), "I am still typing about my new job.")
    report = sleep(engine)
    assert report.llm_calls == 0 and engine.memory.episodes.recent(engine.memory.profile.id) == []


def test_incognito_and_small_talk_sessions_cost_no_model_call(engine, fake_ollama, clock):
    chat(engine, day("2026-11-23"), "My secret diagnosis.", "Ok.", incognito=True)
    _, hello = chat(engine, day("2026-11-23", 11), "hi", "Hello!")
    engine.memory.messages.update_message(hello[0].id, content="hi", importance=1.0)
    clock.advance(days=1)
    report = sleep(engine)
    assert report.llm_calls == 0 and report.counts["sessions_trivial"] == 1


def test_next_friday_said_on_wednesday_25_november_is_4_december(engine, fake_ollama, clock):
    _dentist(engine, fake_ollama)
    clock.advance(days=3)

    sleep(engine)

    (item,) = engine.sleep.dated_items()
    assert (item.due_on, item.phrase, item.status) == (date(2026, 12, 4), "next Friday", "upcoming")
    (fact,) = engine.memory.facts.list(engine.memory.profile.id)
    assert fact.statement == "Dentist appointment on Friday 2026-12-04"
    assert fact.status == "active" and fact.valid_to == datetime(2026, 12, 5, tzinfo=UTC)


def test_a_dated_item_expires_once_its_day_has_passed(engine, fake_ollama, clock):
    _dentist(engine, fake_ollama)
    clock.advance(days=3)
    sleep(engine)
    assert engine.memory.facts.active_facts(engine.memory.profile.id)

    clock.advance(days=9)  # Saturday 5 December
    report = sleep(engine)

    assert [i.status for i in engine.sleep.dated_items()] == ["expired"]
    (fact,) = engine.memory.facts.list(engine.memory.profile.id)
    assert (
        fact.status == "expired"
        and engine.memory.facts.active_facts(engine.memory.profile.id) == []
    )
    assert report.counts["facts_expired"] == 1 and report.counts["dated_items_expired"] == 1


def test_the_models_own_date_is_used_only_when_the_phrase_cant_be_read(engine, fake_ollama, clock):
    _dentist(engine, fake_ollama, when="after the holidays", model_date="2027-01-04")
    clock.advance(days=3)
    sleep(engine)
    assert [i.due_on for i in engine.sleep.dated_items()] == [date(2027, 1, 4)]


def test_an_undatable_item_is_not_kept_and_is_recorded(engine, fake_ollama, clock):
    _dentist(engine, fake_ollama, when="some day", model_date="1999-01-01")
    clock.advance(days=3)
    report = sleep(engine)
    assert (
        engine.sleep.dated_items() == []
        and engine.memory.facts.count(engine.memory.profile.id) == 0
    )
    assert "could not date" in report.errors[0]


def test_a_session_too_long_for_one_prompt_is_taken_in_parts(config, fake_ollama, clock):
    from assistant.engine import Hippo
    from assistant.llm.gateway import OllamaGateway

    small = Hippo(
        config.db_path,
        OllamaGateway(fake_ollama.host),
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        clock=clock,
        context_tokens=512,
    )
    try:
        long_turn = "I keep a diary about my garden and its roses. " * 30  # ~350 tokens
        session, said = chat(small, day("2026-11-23"), *[long_turn] * 10)
        clock.advance(days=1)
        fake_ollama.script(episodes(episode(said[0], said[5])), facts())
        first = sleep(small)
        fake_ollama.script(episodes(episode(said[6], said[9])), facts())
        second = sleep(small)
        parts = small.memory.episodes.for_session(session.id)
        assert (
            [e.message_ids for e in parts]
            == [
                tuple(m.id for m in said[:6]),  # six turns fit a 2,048-token transcript
                tuple(m.id for m in said[6:]),
            ]
        )
        assert first.llm_calls == second.llm_calls == 2
    finally:
        small.close()
