"""Hygiene: expiry, expired events, duplicate facts merged, entities linked, importance refined."""

from __future__ import annotations

from datetime import timedelta

from assistant.memory.facts import Evidence
from assistant.memory.tiers import fact_memory
from tests.sleep.helpers import chat, day, sleep


def _fact(engine, text, message, **extra):
    return engine.memory.facts.add(
        engine.memory.profile.id,
        text,
        evidence=[Evidence("message", message.id)],
        source_kind="user_stated",
        actor="user",
        **extra,
    )


def _said(engine, *turns):
    """Messages in an incognito session (sleep leaves those alone; facts may still cite them)."""
    return chat(engine, day("2026-11-20"), *turns, incognito=True)[1]


def test_a_fact_whose_validity_ended_expires(engine, fake_ollama, clock):
    (msg,) = _said(engine, "I'm in Berlin until Sunday.")
    berlin = _fact(engine, "The user is in Berlin", msg, valid_to=clock.now() + timedelta(days=2))
    sleep(engine)
    assert engine.memory.facts.get(berlin.id).status == "active"
    clock.advance(days=3)
    sleep(engine)
    assert engine.memory.facts.get(berlin.id).status == "expired"


def test_expired_events_are_dropped_unless_important_enough_to_keep_for_review(
    engine, fake_ollama, clock
):
    minor = engine.intake.log_event("Walked 3,000 steps", importance=2, ttl=timedelta(days=1))
    major = engine.intake.log_event("Passed the driving test", importance=8, ttl=timedelta(days=1))
    clock.advance(days=2)

    report = sleep(engine)

    assert engine.memory.events.get_many([minor.id, major.id]).keys() == {major.id}
    (kept,) = engine.memory.facts.list(engine.memory.profile.id)
    assert (kept.statement, kept.source_kind, kept.status) == (
        "Passed the driving test",
        "event",
        "pending",
    )
    assert kept.evidence == (Evidence("event", major.id),)
    assert report.counts["events_dropped"] == 1 and report.count("event") == 1
    assert sleep(engine).count("event") == 0  # consolidated once


def test_duplicate_facts_are_merged_keeping_the_evidence_of_both(engine, fake_ollama, clock):
    first, second = _said(engine, "I love jazz.", "Jazz is my favourite, I love jazz.")
    older = _fact(engine, "The user loves jazz", first)
    clock.advance(hours=1)
    newer = _fact(engine, "The user loves jazz.", second)

    report = sleep(engine)

    kept, closed = engine.memory.facts.get(newer.id), engine.memory.facts.get(older.id)
    assert kept.status == "active"
    assert {e.ref_id for e in kept.evidence} == {first.id, second.id}
    assert closed.status == "superseded" and closed.superseded_by == kept.id
    assert report.counts["facts_merged"] == 1


def test_new_facts_and_episodes_are_linked_to_the_entities_they_name(engine, fake_ollama):
    (msg,) = _said(engine, "Anna leads Project Atlas.")
    atlas = _fact(engine, "The user works with Anna on Project Atlas", msg)
    sleep(engine)
    names = {e.name for e in engine.memory.entities.entities_of("fact", atlas.id)}
    assert {"Anna", "Project Atlas"} <= names


def test_memories_used_often_become_more_important(engine, fake_ollama, clock):
    question, *_ = _said(
        engine, "What's my dog called?", "Rex.", "And again?", "Rex.", "Once more?"
    )
    rex = _fact(engine, "The user's dog is called Rex", question, importance=5)
    replies = _said(engine, "a", "b", "c", "d", "e", "f")[1::2]
    for reply in replies:
        engine.memory.record_use(reply.id, [("facts", fact_memory(rex))])

    report = sleep(engine)

    assert engine.memory.facts.get(rex.id).importance == 6
    assert report.counts["importance_raised"] == 1
    assert sleep(engine).counts["importance_raised"] == 0  # counted once
