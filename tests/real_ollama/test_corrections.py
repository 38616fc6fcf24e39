"""A correction said in chat, with a real small model: superseded by the next sleep at the latest.

Invariants only, never the model's words: after the turn (for a fact Hippo held) or after
the next sleep (for what it learns from the chat), no active fact still says the user
lives in Porto, and no two active facts contradict each other.
"""

from __future__ import annotations

from datetime import UTC

import pytest

from assistant.memory.facts.claims import claims
from assistant.memory.facts.corrections import judge

pytestmark = [pytest.mark.realmodel, pytest.mark.timeout(1800)]


def _says_porto_is_home(statement: str) -> bool:
    return any(c.slot == "home" and "porto" in c.value and not c.ending for c in claims(statement))


def _contradictions(facts) -> list[tuple[str, str]]:
    return [
        (a.statement, b.statement)
        for a in facts
        for b in facts
        if a.id != b.id and judge(a.statement, b.statement) in ("corrects", "disputes")
    ]


def test_a_correction_in_chat_is_superseded_by_the_next_sleep(real_engine, clock):
    pid = real_engine.memory.profile.id
    first = real_engine.conversations.new_session()
    real_engine.admin.facts.remember("I live in Porto", first.id)
    list(real_engine.send(first.id, "I live in Porto, near the river. Any café tips?"))
    real_engine.conversations.end_session(first.id)
    clock.advance(days=30)
    later = real_engine.conversations.new_session()

    list(real_engine.send(later.id, "I moved to Lisbon last month, I live in Lisbon now."))

    active = real_engine.memory.facts.list(pid, status="active", limit=100)
    assert not [f.statement for f in active if _says_porto_is_home(f.statement)]  # in the turn
    real_engine.conversations.end_session(later.id)
    clock.advance(days=1)

    report = real_engine.consolidate(tz=UTC)

    assert report.status in ("done", "partial"), report.errors
    active = real_engine.memory.facts.list(pid, status="active", limit=100)
    assert not [f.statement for f in active if _says_porto_is_home(f.statement)]
    assert _contradictions(active) == []
