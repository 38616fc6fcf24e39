"""Whether an episode says what its messages say, and which messages no episode covers.

An episode is checked as a fact is: the key terms of its summary, and of its title, must
be in the messages it spans (or be the names of who spoke them). Words that describe the
talk itself ("discussed", "the assistant") say nothing about what was said, so they are
not asked for. Messages no kept episode covers are uncovered stretches, unless they are
small talk (no user message that matters).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assistant.memory.records import Message
from assistant.sleep.evidence import key_terms, supports

__all__ = ["TRIVIAL", "covered_prefix", "is_supported", "uncovered"]

TRIVIAL = 2.0  # a user message rated this low or lower is small talk
# Words a summary uses about the conversation itself, not about what it says.
_ABOUT_TALK = re.compile(
    r"\b(?:assistant|conversation|chat(?:s|ted|ting)?|talk(?:s|ed|ing)?|discuss(?:es|ed|ing)?"
    r"|mention(?:s|ed|ing)?|ask(?:s|ed|ing)?|share(?:s|d)?|sharing|tell(?:s|ing)?|told"
    r"|say(?:s|ing)?|said|explain(?:s|ed|ing)?|speak(?:s|ing)?|spoke|summary|session)\b",
    re.IGNORECASE,
)


def _claims(text: str) -> str:
    return _ABOUT_TALK.sub(" ", text)


def is_supported(part: dict[str, Any], span: Sequence[Message]) -> bool:
    """Whether the messages of ``span`` back the episode's summary and its title.

    A summary with no key terms left says nothing, and is not backed; a title may be
    only a word or two, so only its key terms, if it has any, are asked for.
    """
    said = [m.content for m in span] + sorted({m.speaker for m in span if m.speaker})
    title = _claims(part["title"])
    if not supports(_claims(part["summary"]), said):
        return False
    return not key_terms(title) or supports(title, said)


def _matters(stretch: Sequence[Message]) -> bool:
    return any(m.role == "user" and m.importance > TRIVIAL for m in stretch)


def uncovered(messages: Sequence[Message], spans: Sequence[tuple[int, int]]) -> list[list[Message]]:
    """The stretches of ``messages`` (oldest first) that no span covers and that matter.

    Args:
        messages: the session's messages a step read, oldest first.
        spans: (first id, last id) of each kept episode.
    """
    stretches: list[list[Message]] = []
    current: list[Message] = []
    for message in messages:
        if any(first <= message.id <= last for first, last in spans):
            if current:
                stretches.append(current)
            current = []
        else:
            current.append(message)
    if current:
        stretches.append(current)
    return [s for s in stretches if _matters(s)]


def covered_prefix(messages: Sequence[Message], gaps: Sequence[Sequence[Message]]) -> int:
    """How many of ``messages`` come before the first uncovered stretch (all: none is)."""
    if not gaps:
        return len(messages)
    first = gaps[0][0].id
    return next(n for n, m in enumerate(messages) if m.id == first)
