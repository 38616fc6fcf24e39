"""Sleep's trust checks never read a long message whole (a 50 MB paste cost ~400 s): it is
taken as instruction-like, so what it backs, or what follows it closely, waits for review."""

from __future__ import annotations

from datetime import UTC, datetime

from assistant.memory.long_text import LONG_TOKENS
from assistant.memory.records import Message
from assistant.sleep.trust import is_strong, tainted_messages

AT = datetime(2026, 1, 1, tzinfo=UTC)
REPORT = "The quarterly numbers look fine. " * 3_000  # plain words: nothing instruction-like


def _said(n: int, text: str, tokens: int) -> Message:
    return Message(n, 1, "user", text, AT, tokens=tokens)


def test_a_long_message_taints_itself_and_the_turns_just_after_it():
    talk = [
        _said(1, REPORT, LONG_TOKENS + 1),
        _said(2, "I live in Lisbon.", 5),
        _said(3, "Thanks!", 2),
        _said(4, "It rains.", 3),
        _said(5, "I have a cat called Miso.", 7),
    ]
    assert tainted_messages(talk) == {1, 2, 3, 4}


def test_a_fact_citing_a_long_message_is_never_strong():
    long = _said(1, f"I live in Lisbon. {REPORT}", LONG_TOKENS + 1)
    assert not is_strong("The user lives in Lisbon", "user_stated", [long])
    short = _said(2, "I live in Lisbon.", 5)
    assert is_strong("The user lives in Lisbon", "user_stated", [short])
