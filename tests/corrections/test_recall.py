"""Anchoring: repeats count once, and what was corrected is recalled as past, after the present."""

from __future__ import annotations

from tests.assistant.helpers import state_fact
from tests.fake_ollama import Reply


def _porto_five_times_then_lisbon(engine, fake_ollama, clock):
    session = engine.conversations.new_session()
    for _ in range(5):
        engine.admin.facts.state("I live in Porto")
        clock.advance(hours=1)
        fake_ollama.script(Reply(content="Porto is lovely."))
        list(engine.send(session.id, "What do you know about Porto?"))
        clock.advance(hours=1)
    engine.admin.facts.state("I moved to Lisbon last month, I live in Lisbon now")
    engine.background.embed_pending()


def test_recall_puts_the_correction_first_and_the_old_home_after_it_as_past(
    engine, fake_ollama, clock
):
    _porto_five_times_then_lisbon(engine, fake_ollama, clock)

    found = engine.memory.recall("where do I live", limit=10)

    said = [(m.text, m.source) for m in found if "Porto" in m.text or "Lisbon" in m.text]
    assert "Lisbon" in said[0][0] and "past" not in said[0][1]
    porto = [source for text, source in said if text == "I live in Porto"]
    assert len(porto) == 1  # five times said, once recalled
    assert "past: corrected" in porto[0]


def test_a_now_question_ranks_the_newest_statement_first(engine, fake_ollama, clock):
    state_fact(engine, "My pottery class day is Tuesday, every week, the class day")
    clock.advance(days=3)
    state_fact(engine, "My pottery class is on Thursdays")  # no word of change: disputed
    engine.background.embed_pending()

    found = engine.memory.recall("which day is my pottery class these days?", limit=5)

    classes = [m.text for m in found if "pottery" in m.text]
    assert classes[0] == "My pottery class is on Thursdays"


def test_facts_stated_five_times_appear_once_in_the_prompt(engine, fake_ollama):
    for _ in range(5):  # as a file from before repeats were merged holds them
        state_fact(engine, "I live in Porto")
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Porto."))

    list(engine.send(session.id, "Where do I live?"))

    system = [r.body for r in fake_ollama.requests if r.path == "/api/chat"][-1]["messages"][0]
    assert system["content"].count('"I live in Porto"') == 1


def test_a_repeat_dropped_from_recall_leaves_its_place_to_the_next_memory(engine, clock):
    session = engine.conversations.new_session()
    for text in ("I live in Porto", "I still live in Porto, Portugal", "Porto wine", "Porto rain"):
        engine.memory.messages.add_message(session.id, "user", text)
        clock.advance(minutes=1)

    found = engine.memory.recall("live Porto", limit=3)

    assert len(found) == 3
    assert sum("live in Porto" in m.text for m in found) == 1
