"""bench/locomo_retrieval.py stores each person's turns as the user's words.

Recall ranks the assistant's replies after every user statement (they are not evidence
about the user). LoCoMo's conversations are between two people, so storing the second
person as the assistant ranked half of the evidence last: Hippo's recall@10 fell from
84 to 45 on locomo-dev, a bench artefact, not a retrieval change.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")  # the bench extra

from bench.locomo_retrieval import role_of


def test_both_people_of_a_locomo_conversation_are_users():
    assert role_of("Caroline") == "user"
    assert role_of("Melanie") == "user"


def test_the_assistant_itself_speaks_as_the_assistant():
    assert role_of("助手") == "assistant"
    assert role_of("Assistant") == "assistant"


def _result(name, overall, **categories):
    rows = {"overall": overall, **categories}
    return {"name": name, "categories": {k: {"recall@10": v} for k, v in rows.items()}}


def test_the_bench_says_which_targets_were_missed():
    from bench.locomo_retrieval import verdicts

    results = [
        _result("hippo", 90.0, temporal=80.0, **{"single-hop": 95.0}),
        _result("plain vector", 86.0, temporal=90.0, **{"single-hop": 85.0}),
        _result("plain BM25", 10.0, temporal=10.0),
    ]
    lead, categories, floor = verdicts("zh-dev", "e5", results)
    assert lead.startswith("MISSED") and "+4.0 over plain vector" in lead
    assert categories.startswith("MISSED") and "temporal 80.0 vs 90.0" in categories
    assert "single-hop" not in categories
    assert floor.startswith("MISSED") and "90.0 (>= 92)" in floor
