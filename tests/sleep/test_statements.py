"""Facts that say something: the real model output of a LoCoMo run, replayed.

SmolLM2-135M stored the statement "Nate" (subject "2022-01-23 Sun 14:29 | Joanna") as an
active fact with confidence 0.9; statements opened with transcript time stamps; "Nate's
Story (on Sunday 2022-01-23)" passed on one word of two; facts of confidence 0.0 were
proposed. Each is replayed here.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from assistant.memory.records import Message
from assistant.memory.sleep_candidates import CandidateStore
from assistant.sleep.evidence import supports
from assistant.sleep.extract import vet
from tests.sleep.helpers import chat, day, episode, episodes, fact, facts, sleep

_AT = datetime(2022, 1, 23, 14, 29, tzinfo=UTC)
_NATE = "Thanks, Nate! It's a mix of drama and romance!"


def _said(text: str, role: str = "user") -> dict[int, Message]:
    return {1: Message(1, 1, role, text, _AT)}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "statement", ["Nate", "Anna", "Berlin", "Nate's Story (on Sunday 2022-01-23)"]
)
def test_a_name_or_a_title_alone_is_refused(statement):
    verdict = vet(statement, [1], "user_stated", _said(_NATE + " Anna lives in Berlin."), {})
    assert verdict.reason.startswith("the statement says nothing of anyone")


def test_a_name_alone_does_not_back_what_is_said_of_it():
    # Two key terms, one of them the name found: 0.5, which the old share let through.
    assert not supports("Nate paints", [_NATE])
    assert supports("Nate loves romance", [_NATE])
    assert supports("The user prefers Rust", ["Rust looks fun."])  # only names: backed by them


def test_a_sentence_about_someone_passes():
    said = _said("Caroline went to the LGBTQ support group on 7 May, it was so powerful.")
    verdict = vet("Caroline went to the LGBTQ support group on 7 May", [1], "user_stated", said, {})
    assert verdict.reason == "" and verdict.source_kind == "user_stated"


def _rejections(engine):
    return CandidateStore(lambda: engine.memory.db.conn, engine.clock).rejections(
        engine.memory.profile.id
    )


def test_transcript_scaffolding_never_reaches_a_stored_fact(engine, fake_ollama, clock):
    _, said = chat(
        engine, day("2023-01-29"), "Jon opened his own dance studio today!", "Congratulations!"
    )
    clock.advance(days=1)
    fake_ollama.script(
        episodes(episode(said[0], said[-1])),
        facts(
            fact(
                "2023-01-29 Sun 14:48 user (Gina) says Jon opened his own dance studio",
                [said[0].id],
                subject="2022-01-23 Sun 14:29 | Joanna",
            ),
            fact("[id 1] 2022-01-23 Sun 14:29 | Nate", [said[0].id]),
        ),
    )
    sleep(engine)
    (stored,) = engine.memory.facts.list(engine.memory.profile.id)
    assert stored.statement == "Gina says Jon opened his own dance studio"
    assert stored.subject == "Joanna"
    assert [detail for _, detail in _rejections(engine)] == ["Nate"]


def test_a_candidate_below_the_confidence_floor_is_not_proposed(engine, fake_ollama, clock):
    _, said = chat(engine, day("2026-11-23"), "I drink green tea every morning.", "Lovely.")
    clock.advance(days=1)
    fake_ollama.script(
        episodes(episode(said[0], said[-1])),
        facts(fact("The user drinks green tea every morning", [said[0].id], confidence=0.0)),
    )
    report = sleep(engine)
    assert engine.memory.facts.count(engine.memory.profile.id) == 0
    assert _rejections(engine) == [
        ("its confidence 0 is below the floor 0.3", "The user drinks green tea every morning")
    ]
    assert report.counts["candidates_rejected"] == 1


def test_the_confidence_floor_is_a_setting(engine, fake_ollama, clock):
    _, said = chat(engine, day("2026-11-23"), "I drink green tea every morning.", "Lovely.")
    clock.advance(days=1)
    fake_ollama.script(
        episodes(episode(said[0], said[-1])),
        facts(fact("The user drinks green tea every morning", [said[0].id], confidence=0.0)),
    )
    sleep(engine, settings={"min_confidence": 0.0})
    (stored,) = engine.memory.facts.list(engine.memory.profile.id)
    assert stored.status == "pending"  # proposed, though too unsure to be active at once
