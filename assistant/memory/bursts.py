"""Bursts: many copies of one thing in a short time count as one.

A stuck client, a paste loop or a sensor flood writes the same text again and again,
often with a counter or a reading that changes ("Reminder 17: ...", "level 2381").
Ranked one by one, the copies take every place in a candidate list or in recall, and
what the user said before, the memory the question is about, never competes. Two texts
have one *shape* when they are the same words with the numbers left out; of the copies
of one shape from one source (a session, an event source), only the best counts.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["shape"]

_NUMBERS = re.compile(r"\d+(?:[.,:]\d+)*")
_SPACE = re.compile(r"[\W_]+")


@lru_cache(maxsize=16384)
def shape(text: str) -> str:
    """The text's words in lower case, numbers and punctuation left out."""
    return _SPACE.sub(" ", _NUMBERS.sub(" ", text.lower())).strip()
