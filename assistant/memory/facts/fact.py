"""What a fact is: `Fact`, its `Evidence`, a recorded `FactChange`, and the allowed values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

__all__ = [
    "ACTORS",
    "SOURCE_KINDS",
    "STATUSES",
    "Actor",
    "Evidence",
    "EvidenceKind",
    "Fact",
    "FactChange",
    "FactStatus",
    "SourceKind",
]

SourceKind = Literal[
    "user_stated", "assistant_inferred", "document", "event", "reflection", "pasted"
]
FactStatus = Literal["pending", "active", "superseded", "rejected", "expired"]
Actor = Literal["user", "agent", "sleep", "system"]
EvidenceKind = Literal["message", "episode", "chunk", "event", "fact"]
SOURCE_KINDS = ("user_stated", "assistant_inferred", "document", "event", "reflection", "pasted")
STATUSES = ("pending", "active", "superseded", "rejected", "expired")
ACTORS = ("user", "agent", "sleep", "system")


@dataclass(frozen=True, slots=True)
class Evidence:
    """What supports a fact: a stored item of the same profile, optionally a quote from it."""

    kind: EvidenceKind
    ref_id: int
    quote: str = ""


@dataclass(frozen=True, slots=True)
class Fact:
    """One statement about the user or their world, with its provenance and validity."""

    id: int
    profile_id: int
    statement: str
    subject: str
    predicate: str
    scope: str
    source_kind: SourceKind
    confidence: float
    importance: float
    status: FactStatus
    valid_from: datetime | None
    valid_to: datetime | None
    learned_at: datetime
    last_accessed_at: datetime | None
    access_count: int
    pinned: bool
    superseded_by: int | None
    depth: int
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True, slots=True)
class FactChange:
    """One recorded change of a fact; ``before``/``after`` are its stored columns."""

    id: int
    fact_id: int
    actor: Actor
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    at: datetime
