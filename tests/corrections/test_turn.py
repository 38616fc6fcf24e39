"""Drift in the chat itself: a correction said in a turn retires the old fact in that turn.

The prompt then holds the new value as what is true, the old only as past with its
dates, and recall puts what holds now first; five repeats count once.
"""

from __future__ import annotations

from assistant.turns import MemoryWritten
from tests.fake_ollama import Reply


def _system(fake) -> str:
    return [r.body for r in fake.requests if r.path == "/api/chat"][-1]["messages"][0]["content"]


def _facts_section(system: str) -> str:
    start = system.index("### What you know about the user")
    end = system.find("\n### ", start + 1)
    return system[start : end if end > 0 else None]


def test_a_correction_said_in_chat_supersedes_the_fact_before_the_reply(engine, fake_ollama, clock):
    porto = engine.admin.facts.state("I live in Porto")
    clock.advance(days=30)
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Lisbon, lovely!"))

    events = list(engine.send(session.id, "Big news: I moved to Lisbon last month. Any tips?"))

    written = [e for e in events if isinstance(e, MemoryWritten)]
    assert len(written) == 1 and "I moved to Lisbon last month." in written[0].notice
    now = engine.admin.facts.list(status="active")
    assert [f.statement for f in now] == ["Big news: I moved to Lisbon last month."]
    assert engine.admin.facts.get(porto.id).status == "superseded"
    facts = _facts_section(_system(fake_ollama))  # the prompt of this very turn
    assert '"Big news: I moved to Lisbon last month."' in facts
    day = f"{porto.learned_at.astimezone():%Y-%m-%d}"
    today = f"{clock.now().astimezone():%Y-%m-%d}"
    assert f'past: "I live in Porto" from {day} until {today}' in facts
    assert '] "I live in Porto"' not in facts  # never as a current fact


def test_a_message_that_corrects_nothing_stores_no_fact(engine, fake_ollama):
    engine.admin.facts.state("I live in Porto")
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Sure."), Reply(content="Sure."))

    list(engine.send(session.id, "I live in Porto, as you know. Where should I eat?"))
    list(engine.send(session.id, "Where do I live?"))

    assert [f.statement for f in engine.admin.facts.list()] == ["I live in Porto"]


def test_an_incognito_chat_corrects_nothing(engine, fake_ollama):
    engine.admin.facts.state("I live in Porto")
    session = engine.conversations.new_session(incognito=True)
    fake_ollama.script(Reply(content="Ok."))

    list(engine.send(session.id, "I live in Lisbon now"))

    assert [f.statement for f in engine.admin.facts.list(status="active")] == ["I live in Porto"]


def test_a_dispute_is_marked_on_both_sides_in_the_prompt(engine, fake_ollama, clock):
    engine.admin.facts.state("I take lisinopril every morning")
    clock.advance(days=2)
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Noted."))

    list(engine.send(session.id, "I now take losartan."))

    facts = _facts_section(_system(fake_ollama))
    lines = [line for line in facts.splitlines() if "disputed" in line]
    assert len(lines) == 2
    assert "lisinopril" in lines[0] and "losartan" in lines[1]
    assert [f.statement for f in engine.admin.facts.list(status="pending")] == [
        "I now take losartan."
    ]


def test_a_correction_in_a_scoped_chat_replaces_a_general_fact_everywhere(engine, fake_ollama):
    engine.admin.facts.state("I live in Porto")
    work = engine.conversations.new_session(scope="work")
    fake_ollama.script(Reply(content="Noted."))

    list(engine.send(work.id, "I live in Lisbon now."))

    assert [(f.statement, f.scope) for f in engine.admin.facts.list(status="active")] == [
        ("I live in Lisbon now.", "")
    ]
