"""Recognising text that tries to instruct the assistant (prompt injection).

Text is read as a model reads it (`normalise`): terminal escapes, zero-width and bidi
characters removed, full-width and look-alike letters folded, spaced and digit-for-letter
spellings read back. Then it is matched against families of instruction patterns, in
English and Chinese (`families`), and searched for text hidden from its reader
(`hidden`). `looks_pasted` recognises a message that quotes an email, a page or a log.

The detector is deliberately broad: a false alarm only sends a fact to the review queue,
a miss lets an injected claim into memory.
"""

from __future__ import annotations

import functools

from assistant.memory.injection.families import FAMILIES, WEAK_COMPANION
from assistant.memory.injection.hidden import hidden_texts
from assistant.memory.injection.normalise import fold, hidden_tag_text, variants
from assistant.memory.injection.pasted import looks_pasted

__all__ = [
    "INSTRUCTION_REASON",
    "fold",
    "instruction_signals",
    "looks_like_instruction",
    "looks_pasted",
]

INSTRUCTION_REASON = "looks like an instruction to the assistant"


# A turn checks the memories quoted into its prompt, and sleep the messages it cites,
# again and again: short texts' answers are kept (each pattern of each family runs on
# each reading of the text). A long one is rarely seen twice.
_KEPT_CHARS = 2_000


def instruction_signals(text: str) -> tuple[str, ...]:
    """The instruction families ``text`` shows (``hidden`` for hidden text), sorted; () if none."""
    if not text:
        return ()
    if len(text) <= _KEPT_CHARS:
        return _kept_signals(text)
    return _signals(text)


@functools.lru_cache(maxsize=1024)
def _kept_signals(text: str) -> tuple[str, ...]:
    return _signals(text)


def _signals(text: str) -> tuple[str, ...]:
    readings = variants(text)
    found = {f.name for f in FAMILIES for r in readings if f.pattern.search(r)}
    if hidden_texts(text) or hidden_texts(fold(text)) or hidden_tag_text(text):
        found.add("hidden")
    weak = {f.name for f in FAMILIES if not f.strong}
    if found <= weak and not any(WEAK_COMPANION.search(r) for r in readings):
        found -= weak
    return tuple(sorted(found))


def looks_like_instruction(text: str) -> bool:
    """Whether ``text`` reads like an instruction to the assistant rather than a fact."""
    return bool(instruction_signals(text))
