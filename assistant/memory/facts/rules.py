"""The defences at the door of the facts table: who may write what, and with what trust.

A new fact's status and confidence follow from its source (`admission`); the model (actor
``agent``) can never create, approve or relabel a fact as active or user-stated (`guard`);
instruction-like text is held as pending (`looks_like_instruction`, from
`assistant.memory.injection`). A statement must be a declarative sentence about the user
or their world (`statement_verdict`, from `assistant.memory.statements`): a question, a
request or a bare name is refused from every source, and a claim about the assistant
itself (its permissions, other profiles, an earlier agreement) is held as pending.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.errors import InvalidInput, MemoryWriteError
from assistant.memory.facts.fact import SOURCE_KINDS, STATUSES
from assistant.memory.injection import looks_like_instruction
from assistant.memory.statements import Reading, read_statement

__all__ = [
    "admission",
    "check_values",
    "choice",
    "guard",
    "looks_like_instruction",
    "statement_verdict",
]

# (status, confidence) a new fact gets from its source when the caller gives none.
_DEFAULTS: dict[str, tuple[str, float]] = {
    "user_stated": ("active", 0.9),
    "assistant_inferred": ("pending", 0.5),
    "document": ("pending", 0.6),
    "event": ("pending", 0.6),
    "reflection": ("pending", 0.5),
    "pasted": ("pending", 0.6),  # quoted from an email, a page or a log: not the user's word
}
_UNTRUSTED_SOURCES = frozenset({"document", "event", "reflection", "pasted"})


def choice(value: str, allowed: Sequence[str], what: str) -> str:
    """`value`, if it is one of `allowed`; else a ValueError naming `what` and the options."""
    if value not in allowed:
        raise InvalidInput(f"Unknown {what} {value!r}; use one of: {', '.join(allowed)}.")
    return value


def statement_verdict(statement: str, *, dated: bool = False) -> Reading:
    """The reading of a statement about to be stored; raise where it can't be a fact.

    Args:
        statement: the fact's text.
        dated: it is a dated item's or an event's text, where a note to oneself ("Call
            mom on Sunday") or a phrase ("Dentist next Friday") is fine.

    Raises:
        MemoryWriteError: a question, a request to the assistant, or a name alone.
    """
    reading = read_statement(statement, to_do=dated)
    if reading.refused:
        raise MemoryWriteError(
            f"Not stored: {reading.statement!r} {reading.refused}. A fact says something "
            'about you or your world, e.g. "I live in Lisbon" or "My sister Anna is a nurse".'
        )
    return reading


def admission(
    actor: str, source_kind: str, status: str | None, confidence: float | None, statement: str
) -> tuple[str, str, float]:
    """The (source kind, status, confidence) a new fact may have, after the defences."""
    if actor == "agent" and source_kind == "user_stated":
        source_kind = "assistant_inferred"  # the model's word is never the user's word
    default_status, default_confidence = _DEFAULTS[source_kind]
    status = choice(status or default_status, STATUSES, "status")
    untrusted = actor != "user" and source_kind in _UNTRUSTED_SOURCES
    if status == "active" and (actor == "agent" or untrusted or _held(statement)):
        status = "pending"
    confidence = default_confidence if confidence is None else confidence
    return source_kind, status, confidence


def check_values(values: dict[str, Any]) -> None:
    """Raise ValueError naming the field, before SQLite's CHECK would fail obscurely."""
    choice(values["status"], STATUSES, "status")
    choice(values["source_kind"], SOURCE_KINDS, "source kind")
    if not 0 <= values["confidence"] <= 1:
        raise InvalidInput(f"confidence must be between 0 and 1, not {values['confidence']}.")
    if not 1 <= values["importance"] <= 10:
        raise InvalidInput(f"importance must be between 1 and 10, not {values['importance']}.")


def guard(actor: str, before: dict[str, Any], after: dict[str, Any]) -> None:
    """Refuse what the model may not do; hold the model's rewrites for review."""
    if actor == "user":
        return
    if after["statement"] != before["statement"] and _held(after["statement"]):
        after["status"] = "pending" if after["status"] == "active" else after["status"]
    if actor != "agent":
        return
    if after["statement"] != before["statement"]:
        after["source_kind"] = "assistant_inferred"
        after["status"] = "pending" if after["status"] == "active" else after["status"]
    if after["status"] == "active" and before["status"] != "active":
        raise MemoryWriteError(
            f"Fact {before['id']} can't be made active by the assistant: only the user approves "
            "facts. Leave it pending; it is shown in the review queue."
        )
    if after["source_kind"] == "user_stated" and before["source_kind"] != "user_stated":
        raise MemoryWriteError(
            f"Fact {before['id']} can't be marked as stated by the user: the assistant can "
            "only record what it inferred (source assistant_inferred)."
        )


def _held(statement: str) -> bool:
    """Whether a statement must wait for review: it instructs, or claims about the assistant."""
    return looks_like_instruction(statement) or bool(read_statement(statement).held)
