"""What backs an episode: its messages' words and who spoke them, not talk about the talk."""

from __future__ import annotations

from datetime import UTC, datetime

from assistant.memory.records import Message
from assistant.sleep.episode_check import is_supported, uncovered

AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _said(*turns: tuple[str, str], role: str = "user") -> list[Message]:
    return [
        Message(n, 1, role, text, AT, speaker=who)  # type: ignore[arg-type]
        for n, (who, text) in enumerate(turns, start=1)
    ]


LOCOMO = _said(
    ("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "Wow, that's cool! What happened that was so awesome?"),
    ("Caroline", "The transgender stories were so inspiring!"),
)


def _part(summary: str, title: str = "") -> dict:
    return {"summary": summary, "title": title}


def test_a_summary_naming_who_spoke_is_backed_by_their_turns():
    summary = "Caroline told Melanie about the inspiring transgender stories at a support group."
    assert is_supported(_part(summary, "Caroline's support group"), LOCOMO)


def test_a_summary_of_another_conversation_is_not_backed():
    assert not is_supported(_part("How to make a pizza with your friends."), LOCOMO)
    assert not is_supported(_part("See https://example.com/recipes/4421 for details."), LOCOMO)


def test_a_summary_that_only_says_they_talked_is_not_backed():
    assert not is_supported(_part("They talked. The assistant discussed things."), LOCOMO)


def test_a_stretch_of_small_talk_needs_no_episode():
    thanks = [Message(4, 1, "user", "thanks!", AT, importance=1.0)]
    assert uncovered([*LOCOMO, *thanks], [(1, 3)]) == []
    assert [m.id for m in uncovered(LOCOMO, [(1, 1)])[0]] == [2, 3]
