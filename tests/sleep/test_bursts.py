"""Bursts: expired events make one review item per source and day, and a run proposes at
most ``max_review_items``, saying how many wait."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.sleep.helpers import chat, day, episode, episodes, fact, facts, sleep


def _import(engine, clock, n, *, days=1, source="calendar"):
    """``n`` events at once, every other one important, spread over ``days`` days."""
    lines = [
        json.dumps(
            {
                "text": f"Reminder {k}: call the bank",
                "source": source,
                "occurred_at": (clock.now() - timedelta(days=k // 2 % days, seconds=k)).isoformat(),
                "ttl_hours": 1,
                "importance": 8 if k % 2 else 2,
            }
        )
        for k in range(n)
    ]
    assert engine.intake.log_events_json(lines).added == n


@pytest.mark.heavy  # about a second of CPU: 3,000 events written, then consolidated
def test_three_thousand_expired_events_make_one_review_item(engine, fake_ollama, clock):
    _import(engine, clock, 3000)
    clock.advance(days=2)

    report = sleep(engine)

    (item,) = engine.admin.review.queue()
    assert item.fact.statement.startswith("1,500 events from calendar on 2026-11-23: Reminder")
    assert item.fact.statement.endswith("; and 1,495 more")
    assert len(item.fact.evidence) == 1500
    assert report.counts["events_dropped"] == 1500 and report.count("event") == 1
    assert sleep(engine).count("event") == 0  # consolidated once


def test_a_run_proposes_at_most_fifty_items_and_says_how_many_wait(engine, fake_ollama, clock):
    _import(engine, clock, 120, days=60)  # 60 days with an important event each
    clock.advance(days=2)

    first = sleep(engine)

    assert first.count("event") == 50 and len(engine.admin.review.queue()) == 50
    assert first.counts["review_items_deferred"] == 10
    assert (
        "10 more items for review wait for the next runs "
        "(a run proposes at most 50: [sleep] max_review_items)." in first.summary()
    )
    second = sleep(engine)
    assert second.count("event") == 10 and "wait for the next runs" not in second.summary()


def test_facts_past_the_cap_wait_for_the_next_run(engine, fake_ollama, clock):
    _, said = chat(engine, day("2026-11-23"), "I guess I like jazz and I might like opera.", "Ok.")
    clock.advance(days=1)
    guesses = [
        fact("The user likes jazz", [said[0].id], source="assistant_inferred"),
        fact("The user likes opera", [said[0].id], source="assistant_inferred"),
    ]
    fake_ollama.script(episodes(episode(said[0], said[1])), facts(*guesses))

    first = sleep(engine, settings={"max_review_items": 1})

    assert [p.statement for p in first.to_review] == ["The user likes jazz"]
    assert first.counts["review_items_deferred"] == 1
    second = sleep(engine, settings={"max_review_items": 1})
    assert [p.statement for p in second.to_review] == ["The user likes opera"]
