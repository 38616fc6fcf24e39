"""The dataclasses the rest of Hippo sees: no cursors or rows leave the store."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from assistant.errors import MemoryWriteError

__all__ = [
    "Message",
    "MessageHit",
    "MessageStatus",
    "Profile",
    "Role",
    "Session",
    "scope_name",
]

Role = Literal["user", "assistant", "system", "tool"]
# "cut": the reply ended at the model's length limit (Ollama's done_reason "length"),
# mid-sentence perhaps; otherwise it counts as complete.
MessageStatus = Literal["complete", "cut", "streaming", "cancelled", "failed"]


@dataclass(frozen=True, slots=True)
class Profile:
    """A separate memory space (e.g. work, personal); nothing crosses profiles."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class Session:
    """One conversation."""

    id: int
    profile_id: int
    title: str
    started_at: datetime
    last_active_at: datetime
    message_count: int = 0
    incognito: bool = False
    scope: str = ""


_SCOPE = re.compile(r"[a-z][a-z0-9_-]{0,31}")


def scope_name(text: str) -> str:
    """``text`` as a session or fact scope ("Work" -> "work"; "" means general).

    Raises:
        MemoryWriteError: not one word of letters, digits, '-' or '_' (at most 32).
    """
    name = text.strip().lower()
    if name and _SCOPE.fullmatch(name) is None:
        raise MemoryWriteError(
            f"{text.strip()!r} is not a scope name: use one word of letters, digits, "
            "'-' or '_' (at most 32), e.g. work or health."
        )
    return name


@dataclass(frozen=True, slots=True)
class Message:
    """One stored message of the recall archive."""

    id: int
    session_id: int
    role: Role
    content: str
    created_at: datetime
    status: MessageStatus = "complete"
    thinking: str = ""
    error: str = ""
    model: str = ""
    tokens: int = 0
    importance: float = 5.0
    speaker: str = ""
    source_id: str = ""
    origin: str = "typed"  # or "pasted": quoted from an email, a page or a log


@dataclass(frozen=True, slots=True)
class MessageHit:
    """A message found by search, with how each signal scored it.

    ``keyword`` is the BM25 score scaled to [0, 1] within the result set, ``vector``
    the cosine similarity to the query (None where no vector was compared), and
    ``score`` their weighted fusion, which orders the hits. ``vector_trust`` is how far
    the embedding model reads the query's script, the share of the vector weight used.
    """

    message: Message
    score: float
    keyword: float = 0.0
    vector: float | None = None
    vector_trust: float = 1.0
