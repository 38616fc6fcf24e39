"""Sleep agrees with the turn: it neither revives a retired belief nor leaves two contradicting
facts active, whatever the model decides."""

from __future__ import annotations

from tests.assistant.helpers import state_fact
from tests.sleep.helpers import chat, decisions, episode, episodes, fact, facts, sleep


def _sessions(engine):
    pid = engine.memory.profile.id
    return sorted(engine.memory.messages.sessions(pid), key=lambda s: s.id)


def test_sleep_after_a_correction_leaves_one_home_active(engine, fake_ollama, clock):
    for _ in range(5):
        engine.admin.facts.state("I live in Porto")
        clock.advance(hours=1)
    lisbon = engine.admin.facts.state("I moved to Lisbon last month, I live in Lisbon now")
    clock.advance(days=1)
    said = [engine.conversations.history(s.id)[0] for s in _sessions(engine)]
    fake_ollama.script(
        *[episodes(episode(m.id, m.id, f"The user said: {m.content}")) for m in said],
        *[facts(fact("The user lives in Porto", [m.id])) for m in said[:5]],
        facts(fact("The user lives in Lisbon", [said[5].id])),
        # Were the model asked, it would keep Porto beside Lisbon.
        *[decisions((0, "add", 0)) for _ in range(6)],
    )

    report = sleep(engine)

    assert report.status == "done", report.errors
    active = engine.admin.facts.list(status="active")
    assert [f.id for f in active] == [lisbon.id]
    believed = engine.admin.history.believed(None, clock.now())
    assert [f.id for f in believed] == [lisbon.id]


def test_a_candidate_that_may_contradict_an_active_fact_waits_as_a_conflict(
    engine, fake_ollama, clock
):
    old = engine.admin.facts.state("I take lisinopril every morning")
    clock.advance(days=1)
    _, later = chat(engine, clock.now(), "The pharmacy gave me losartan.", "Noted.")
    clock.advance(days=1)
    first = engine.conversations.history(_sessions(engine)[0].id)[0]
    fake_ollama.script(
        # Summaries their messages support (sleep drops an episode they don't).
        episodes(episode(first.id, first.id, "The user takes lisinopril every morning.")),
        episodes(episode(later[0].id, later[1].id, "The pharmacy gave the user losartan.")),
        facts(),
        facts(fact("The user now takes losartan", [later[0].id])),
        decisions((0, "add", 0)),  # the model would keep both
    )

    report = sleep(engine)

    assert report.status == "done", report.errors
    assert [f.id for f in engine.admin.facts.list(status="active")] == [old.id]
    pending = engine.admin.facts.list(status="pending")
    assert [f.statement for f in pending] == ["The user now takes losartan"]
    item = next(i for i in engine.admin.review.queue() if i.id == pending[0].id)
    assert item.proposal == "conflict" and item.replaces.id == old.id


def test_sleep_retires_the_older_of_two_contradicting_facts_a_file_already_holds(engine, clock):
    porto = state_fact(engine, "I live in Porto")  # as a file from before held them
    clock.advance(days=3)
    lisbon = state_fact(engine, "I moved to Lisbon last month, I live in Lisbon now")
    jazz = state_fact(engine, "I like jazz")
    clock.advance(days=1)

    report = sleep(engine)

    assert report.status == "done", report.errors
    active = {f.id for f in engine.admin.facts.list(status="active")}
    assert active == {lisbon.id, jazz.id}
    assert engine.admin.facts.get(porto.id).superseded_by == lisbon.id
    assert report.count("superseded") == 1
