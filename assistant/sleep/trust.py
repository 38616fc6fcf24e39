"""Which proposals may become active at once, and which wait for the user's review.

Only what the user said, backed by strong evidence, may skip the review queue (and only
where the settings allow it). Inferred facts, reflections and anything derived from
documents or events are pending; so is anything that reads like an instruction to the
assistant, or that comes from a message that does (injection, poisoning).
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.memory.facts import looks_like_instruction
from assistant.memory.models import Message
from assistant.sleep.candidates import Candidate
from assistant.sleep.evidence import coverage
from assistant.sleep.settings import SleepSettings

__all__ = ["STRONG_SUPPORT", "admitted_status", "is_strong"]

STRONG_SUPPORT = 0.6  # share of key terms the user's own words must contain


def is_strong(statement: str, source_kind: str, cited: Sequence[Message]) -> bool:
    """Whether the user's own messages back ``statement`` clearly, with no injected text."""
    if source_kind != "user_stated" or looks_like_instruction(statement):
        return False
    if any(looks_like_instruction(m.content) for m in cited):
        return False
    said = [m.content for m in cited if m.role == "user"]
    return bool(said) and coverage(statement, said) >= STRONG_SUPPORT


def admitted_status(candidate: Candidate, settings: SleepSettings) -> str:
    """``active`` for a strong, user-stated, confident candidate where allowed; else ``pending``."""
    if not settings.auto_activate or candidate.source_kind != "user_stated":
        return "pending"
    if not candidate.strong or candidate.confidence < settings.auto_activate_confidence:
        return "pending"
    return "pending" if looks_like_instruction(candidate.statement) else "active"
