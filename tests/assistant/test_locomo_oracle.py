"""bench/locomo_retrieval.py --oracle-memory: what a prompt reaches through facts and episodes.

A fact reaches the turns it cites, an episode the turns of its session, a message itself:
the tiers count only through what they cite, as sleep's facts must.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

pytest.importorskip("numpy")  # the bench extra

from assistant.memory.retrieval import MemoryItem
from bench.locomo_oracle import reached

_AT = datetime(2023, 5, 8, tzinfo=UTC)


def _item(kind: str, item_id: int, source_id: str = "") -> MemoryItem:
    return MemoryItem(kind, item_id, "text", _AT, kind, source_id=source_id)


def test_a_prompt_reaches_its_messages_and_what_its_facts_and_episodes_cite():
    used = [
        ("recalled", _item("message", 1, "D1:3")),
        ("facts", _item("fact", 7)),
        ("recalled", _item("episode", 2)),
    ]
    facts = {7: {"D4:1", "D4:2"}, 8: {"D9:9"}}
    episodes = {2: {"D2:1", "D2:2"}}
    assert reached(used, facts, episodes) == {"D1:3", "D4:1", "D4:2", "D2:1", "D2:2"}


def test_through_messages_alone_facts_and_episodes_reach_nothing():
    used = [("facts", _item("fact", 7)), ("recalled", _item("message", 1, "D1:3"))]
    assert reached(used, {}, {}) == {"D1:3"}
