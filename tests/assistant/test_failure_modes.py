"""Each failure mode of DESIGN.md's catalogue, shown absent because of its defence.

Each test below was checked to fail with its defence removed from the code and to pass
with it. Defences that other tests already pin down that way are listed here, with
where they live and the test that fails without them:

- drift: active_facts keeps only active facts; supersede closes the old fact
  (memory/test_facts.py); here: the fact tier and the prompt.
- fragmentation: sleep links entities (sleep/test_hygiene.py); here: the tool links them,
  and a turn's facts section expands along the links of its message and recalled facts.
- retrieval gap: CJK bigrams in every index (memory/test_facts.py, test_engine_recall.py);
  message search fuses keywords and vectors (test_engine_recall.py); here: recall.
- recency bias, spurious activation, overload: the relevance and vector floors
  (test_retrieval.py), the section budgets and working-memory budget
  (test_turn_memory.py); here: ranking, the "now" prior, last use, the tail share,
  the limit and de-duplication.
- temporal incoherence: expiry in active_facts, event search and recent events
  (memory/test_facts.py, tiers/test_events.py); here: the fact and event tiers.
- scope creep: active_facts and recent episodes by scope (memory/test_facts.py,
  tiers/test_episodes.py); here: recall over every tier, and the tool's writes.
- attribution: admission rules (memory/test_facts.py); here: the prompt's source labels.
- cross-profile contamination: the property-based test_profile_isolation.py.
- drift in the turn, conflict, anchoring: a statement settles against the active facts
  at once (tests/corrections/test_stated.py, test_turn.py, test_recall.py; sleep agrees:
  test_sleep_agrees.py).
- burst: copies of one text count once in recall's candidates and results
  (tests/corrections/test_bursts.py).
- cross-tier inconsistency after a correction: core memory's line, the episode, the fact
  (tests/corrections/test_tiers.py).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from assistant.clock import ManualClock
from assistant.memory.budget import ContextBudget
from assistant.memory.entities import extract_entities
from assistant.memory.facts import Evidence
from assistant.memory.retrieval import Query
from data_schema.connect import Database
from tests.assistant.helpers import state_fact
from tests.assistant.test_retrieval import START, Archive
from tests.fake_ollama import Reply


@pytest.fixture
def archive(tmp_path):
    """Messages only, with vectors chosen by the test (see test_retrieval.py)."""
    db = Database(tmp_path / "archive.db")
    yield Archive(db, ManualClock(START + timedelta(days=30)))
    db.close()


def _used(engine, text, session=None):
    """The (section, memory) pairs a chat turn's prompt would carry for ``text``."""
    session = session or engine.conversations.new_session()
    user = engine.memory.messages.add_message(session.id, "user", text)
    return engine.context_for(session, user).used


def _fact_ids(used):
    return {m.item_id for _, m in used if m.kind == "fact"}


# -- drift: a superseded fact is history, never the current truth ---------------------------


def _moved(engine, clock):
    porto = state_fact(engine, "I live in Porto")
    clock.advance(days=30)
    lisbon = state_fact(engine, "I live in Lisbon")
    engine.memory.facts.supersede(porto.id, lisbon.id, actor="user")
    return porto, lisbon


def test_the_fact_tier_neither_offers_nor_loads_a_superseded_fact(engine, clock):
    porto, lisbon = _moved(engine, clock)
    tier = engine.memory.retriever.tiers["fact"]
    now = Query("where do I live, Porto or Lisbon", engine.memory.profile.id, clock.now())
    assert [i for i, _ in tier.keyword(now, 10)] == [lisbon.id]
    assert set(tier.load([porto.id, lisbon.id], now)) == {lisbon.id}
    then = Query(now.text, engine.memory.profile.id, clock.now(), as_of=porto.learned_at)
    assert set(tier.load([porto.id, lisbon.id], then)) == {porto.id}


def test_the_fact_tier_loads_no_forgotten_or_pending_fact(engine, clock):
    cello = state_fact(engine, "I play the cello")
    violin = state_fact(engine, "I play the violin")
    engine.memory.facts.forget(violin.id, actor="user")
    viola = engine.memory.facts.add(
        engine.memory.profile.id,
        "The user plays the viola",
        evidence=[Evidence("message", cello.evidence[0].ref_id)],
        source_kind="assistant_inferred",
        actor="sleep",
    )
    assert viola.status == "pending"
    query = Query("cello violin viola", engine.memory.profile.id, clock.now())
    loaded = engine.memory.retriever.tiers["fact"].load([cello.id, violin.id, viola.id], query)
    assert set(loaded) == {cello.id}


def test_a_superseded_fact_never_reaches_the_prompt_but_its_successor_does(
    engine, fake_ollama, clock
):
    porto, lisbon = _moved(engine, clock)
    engine.background.embed_pending()
    facts = _fact_ids(_used(engine, "Where do I live now, Porto or Lisbon?"))
    assert lisbon.id in facts and porto.id not in facts
    assert ("fact", porto.id) not in {m.key for m in engine.memory.recall("Porto")}


# -- fragmentation: one fact about an entity brings its siblings ------------------------------


def _linked(engine, text, importance):
    fact = state_fact(
        engine,
        text,
        said=f"Please remember for me: {text}, it matters at work",
        importance=importance,
    )
    engine.memory.entities.link(engine.memory.profile.id, "fact", fact.id, extract_entities(text))
    return fact


def test_a_recalled_fact_brings_the_facts_that_share_its_entity(engine, fake_ollama):
    engine.live_settings.change(context_budget=ContextBudget(facts=120))  # room for about six facts
    for i in range(12):
        _linked(engine, f"Important thing number {i} about my family", importance=9)
    launch = _linked(engine, "The Project Atlas launch is on 3 March", importance=2)
    owner = _linked(engine, "Priya Shah leads Project Atlas", importance=1)
    engine.background.embed_pending()
    facts = _fact_ids(_used(engine, "When is the launch?"))
    assert launch.id in facts
    assert owner.id in facts  # shares no word with the message, only the entity


def test_a_message_naming_an_entity_brings_its_facts_when_recall_is_full(engine, fake_ollama):
    engine.live_settings.change(context_budget=ContextBudget(facts=120))
    for i in range(12):
        _linked(engine, f"Important thing number {i} about my family", importance=9)
    owner = _linked(engine, "Priya Shah leads Project Atlas", importance=1)
    session = engine.conversations.new_session()
    for i in range(14):  # closer matches than the fact: they fill recall's twelve places
        text = f"Project Atlas sprint {i} review: status {i}"
        engine.memory.messages.add_message(session.id, "user", text)
    engine.background.embed_pending()
    used = _used(engine, "Project Atlas sprint review status?")
    assert ("fact", owner.id) not in {m.key for section, m in used if section == "recalled"}
    assert owner.id in _fact_ids(used)


def test_a_fact_the_model_remembers_is_linked_to_the_entities_it_names(engine, fake_ollama):
    statement = "The user works with Priya Shah on Project Atlas"
    fake_ollama.script(
        Reply(tool_calls=[{"name": "remember_fact", "arguments": {"statement": statement}}]),
        Reply(content="Noted."),
    )
    list(
        engine.send(engine.conversations.new_session().id, "Priya and I run Project Atlas together")
    )
    (fact,) = engine.memory.facts.list(engine.memory.profile.id)
    names = {e.name for e in engine.memory.entities.entities_of("fact", fact.id)}
    assert names == {"Priya Shah", "Project Atlas"}


# -- retrieval gap: keyword and vector search each find what the other misses ---------------


def test_one_recall_finds_a_memory_by_keyword_alone_and_another_by_meaning_alone(archive):
    worded, meant, other = (
        archive.session([turn], at=START + timedelta(days=i))[0]
        for i, turn in enumerate(
            [
                ("A", "my passport expires in March"),
                ("B", "travel documents need renewing soon"),
                ("C", "the cat sleeps all day"),
            ]
        )
    )
    # The query's vector points at the message that shares none of its words.
    archive.embed({worded: [0, 1, 0, 0], meant: [1, 0, 0, 0], other: [0, 0, 1, 0]})
    found = {m.item_id: m for m in archive.recall("passport", [1, 0, 0, 0])}
    assert set(found) == {worded, meant}
    assert found[worded].keyword > 0 and found[worded].vector == pytest.approx(0.0)
    assert found[meant].keyword == 0 and found[meant].vector == pytest.approx(1.0)


# -- recency bias: new is not better unless it is as relevant, or the question is about now --


def test_an_old_clearly_relevant_memory_outranks_new_loosely_related_ones(archive):
    (old,) = archive.session([("A", "my sister Ines lives in Porto and teaches piano")])
    newer = archive.session(
        [("B", "piano music was playing"), ("C", "a piano shop opened")],
        at=START + timedelta(days=29),
    )
    found = [m.item_id for m in archive.recall("Where does my sister Ines teach piano?")]
    assert found[0] == old and set(found[1:]) == set(newer)


def test_only_a_question_about_the_present_favours_the_newer_of_equal_memories(archive):
    (old,) = archive.session([("Siyuan", "I live in Shenzhen")])
    (new,) = archive.session([("Siyuan", "I live in Hangzhou")], at=START + timedelta(days=20))
    past = {m.item_id: m.score for m in archive.recall("Did Siyuan live in Shenzhen or Hangzhou?")}
    assert past[new] == pytest.approx(past[old])
    now = {
        m.item_id: m.score for m in archive.recall("Does Siyuan live in Shenzhen or Hangzhou now?")
    }
    assert now[new] > now[old]


def test_recency_decays_from_a_facts_last_use_not_from_when_it_was_learned(engine, clock):
    fact = state_fact(engine, "My bike is a blue Brompton")
    clock.advance(days=30)
    (memory,) = engine.memory.recall("Brompton bike", kinds=("fact",))
    assert memory.recency == pytest.approx(0.99 ** (30 * 24))
    engine.memory.facts.touch([fact.id], clock.now())
    clock.advance(hours=2)
    (memory,) = engine.memory.recall("Brompton bike", kinds=("fact",))
    assert memory.recency == pytest.approx(0.99**2)


# -- spurious activation and overload: only the strong, at most the limit, each once --------


def test_weak_matches_below_the_tail_share_of_the_best_are_dropped(archive):
    strong, weak = archive.session(
        [
            ("A", "the dentist appointment is on Friday morning"),
            ("B", "my cousin works as a nurse downtown"),
        ]
    )
    query = "dentist appointment Friday nurse"
    assert [m.item_id for m in archive.recall(query, tail_relevance=0.5)] == [strong]
    assert [m.item_id for m in archive.recall(query, tail_relevance=0.0)] == [strong, weak]


def test_recall_returns_no_more_memories_than_its_limit(engine, fake_ollama):
    session = engine.conversations.new_session()
    crops = "tomatoes beans leeks kale chard onions garlic peas squash radishes".split()
    for crop in crops:  # ten different notes (copies differing in numbers count once)
        engine.memory.messages.add_message(
            session.id, "user", f"garden note: plant the {crop} in the raised bed"
        )
    assert len(engine.memory.recall("garden plant", limit=5)) == 5


def test_near_duplicate_memories_are_recalled_once(engine, fake_ollama):
    session = engine.conversations.new_session()
    for _ in range(3):
        engine.memory.messages.add_message(session.id, "user", "the garden gate code is 4471")
    engine.memory.messages.add_message(session.id, "user", "the garden shed key is under the pot")
    texts = [m.text for m in engine.memory.recall("garden gate code shed", kinds=("message",))]
    assert sorted(texts) == [
        "the garden gate code is 4471",
        "the garden shed key is under the pot",
    ]


# -- temporal incoherence: what has ended is never presented as current ---------------------


def test_a_fact_whose_validity_ended_is_not_recalled_even_before_sleep_expires_it(engine, clock):
    fact = state_fact(
        engine, "My rental car is a red Fiat", valid_to=clock.now() + timedelta(days=2)
    )
    assert [m.item_id for m in engine.memory.recall("rental car Fiat", kinds=("fact",))] == [
        fact.id
    ]
    clock.advance(days=3)
    assert engine.memory.facts.get(fact.id).status == "active"  # sleep has not run yet
    assert engine.memory.recall("rental car Fiat", kinds=("fact",)) == []


def test_the_event_tier_never_loads_an_expired_event(engine, clock):
    event = engine.intake.log_event("the oven is preheating", ttl=timedelta(hours=1))
    tier = engine.memory.retriever.tiers["event"]
    assert set(tier.load([event.id], Query("oven", engine.memory.profile.id, clock.now()))) == {
        event.id
    }
    later = clock.advance(hours=2)
    assert tier.load([event.id], Query("oven", engine.memory.profile.id, later)) == {}


# -- scope creep: a session of one scope never recalls another scope's memories -------------


def test_a_work_session_recalls_no_health_memory_of_any_tier(engine, fake_ollama, clock):
    pid = engine.memory.profile.id
    health_fact = state_fact(engine, "My blood pressure medication is lisinopril", scope="health")
    health = engine.memory.messages.create_session(pid, scope="health")
    said = engine.memory.messages.add_message(
        health.id, "user", "the doctor raised my lisinopril dose"
    )
    episode = engine.memory.episodes.add(
        pid,
        summary="Talked about the new lisinopril dose and side effects",
        started_at=clock.now(),
        ended_at=clock.now(),
        session_id=health.id,
        message_ids=[said.id],
        scope="health",
    )
    general = state_fact(engine, "I take my pills with breakfast, lisinopril included")
    engine.background.embed_pending()
    scoped = {("fact", health_fact.id), ("message", said.id), ("episode", episode.id)}
    work = {m.key for m in engine.memory.recall("lisinopril dose", scopes=("work",))}
    assert ("fact", general.id) in work and not work & scoped
    assert scoped <= {m.key for m in engine.memory.recall("lisinopril dose", scopes=("health",))}


def test_a_fact_the_model_remembers_in_a_scoped_session_keeps_that_scope(engine, fake_ollama):
    statement = "The user's dentist is Dr Lee"
    fake_ollama.script(
        Reply(tool_calls=[{"name": "remember_fact", "arguments": {"statement": statement}}]),
        Reply(content="Noted."),
    )
    health = engine.memory.messages.create_session(engine.memory.profile.id, scope="health")
    list(engine.send(health.id, "My dentist is Dr Lee"))
    (fact,) = engine.memory.facts.list(engine.memory.profile.id)
    assert fact.scope == "health"


# -- attribution: every fact in the prompt says where it came from -----------------------------


def test_the_prompt_says_which_facts_the_user_stated_and_which_hippo_inferred(engine, fake_ollama):
    stated = state_fact(engine, "I am vegetarian")
    guess = engine.memory.facts.add(
        engine.memory.profile.id,
        "The user probably enjoys Italian food",
        evidence=[Evidence("message", stated.evidence[0].ref_id)],
        source_kind="assistant_inferred",
        actor="sleep",
    )
    engine.memory.facts.approve(
        guess.id
    )  # approved, yet still Hippo's inference, not the user's word
    list(engine.send(engine.conversations.new_session().id, "What should I cook tonight?"))
    system = [r.body for r in fake_ollama.requests if r.path == "/api/chat"][-1]["messages"][0]
    assert 'fact you stated] "I am vegetarian"' in system["content"]
    assert 'fact Hippo inferred] "The user probably enjoys Italian food"' in system["content"]


def test_of_a_reply_that_repeats_the_user_the_users_own_words_are_recalled(engine, fake_ollama):
    said = "My sister Anna lives in Berlin and works as a nurse."
    session = engine.conversations.new_session()
    engine.memory.messages.add_message(session.id, "user", said, importance=3)
    # A reply that repeats it, rated higher: it would rank first and hide the user's words.
    engine.memory.messages.add_message(session.id, "assistant", f"Noted: {said}", importance=8)
    for limit in (10, 1):  # at the limit too, the user's words take the reply's place
        (memory,) = engine.memory.recall(
            "Where does my sister live?", kinds=("message",), limit=limit
        )
        assert (memory.text, memory.role, memory.source) == (said, "user", "you said")
