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
