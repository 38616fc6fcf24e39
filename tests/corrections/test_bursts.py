"""Bursts: a flood of new memories leaves the older ones recallable.

200 messages in two minutes that say one thing over and over (a stuck client, a paste
loop), or 3,000 events at once, must not take every place in recall from what the user
said before.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.sleep.helpers import chat


def _older(engine, clock):
    _, said = chat(engine, clock.now(), "I am allergic to penicillin.", "Noted, no penicillin.")
    clock.advance(days=7)
    return said[0]


@pytest.mark.heavy  # ~2.5 s of CPU: 200 messages stored one by one, as a client would
def test_two_hundred_messages_in_two_minutes_leave_the_older_one_recallable(engine, clock):
    older = _older(engine, clock)
    session = engine.memory.messages.create_session(engine.memory.profile.id)
    start = clock.now()
    for n in range(200):  # one every 0.6 s: a paste loop about the same allergy pill
        engine.memory.messages.add_message(
            session.id,
            "user",
            f"Reminder {n}: am I allergic? take the allergy pill, allergic reactions again",
            created_at=start + timedelta(seconds=0.6 * n),
        )
    clock.advance(minutes=2)

    found = engine.memory.recall("what am I allergic to?", limit=10)

    assert ("message", older.id) in {m.key for m in found}
    assert sum(m.session_id == session.id for m in found) <= 2  # the burst counts about once


@pytest.mark.heavy  # ~2 s of CPU: 3,000 events indexed
def test_three_thousand_events_at_once_leave_the_older_message_recallable(engine, clock):
    older = _older(engine, clock)
    lines = [
        json.dumps({"text": f"Door sensor {n % 7}: allergic season pollen alert level {n}"})
        for n in range(3000)
    ]

    result = engine.intake.log_events_json(lines, source="sensors")

    assert result.added == 3000 and not result.errors
    found = engine.memory.recall("what am I allergic to?", limit=10)
    assert ("message", older.id) in {m.key for m in found}
    assert sum(m.kind == "event" for m in found) <= 2
