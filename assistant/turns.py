"""Typed events of one chat turn, as the engine yields them to the UI and the CLI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from assistant.errors import HippoError
from assistant.llm.values import TextDelta, ThinkingDelta
from assistant.memory.records import Message

if TYPE_CHECKING:
    from assistant.memory.retrieval import MemoryItem

__all__ = [
    "CONTINUE_MESSAGE",
    "MemoryUsed",
    "MemoryWritten",
    "PromptTooLong",
    "ReplyCancelled",
    "ReplyDone",
    "ReplyFailed",
    "ReplyStarted",
    "TextDelta",
    "ThinkingDelta",
    "TurnEvent",
    "UserSaved",
]

# What the chat's /continue sends after a cut reply: the cut reply is the last turn of
# working memory, so the model sees where it stopped.
CONTINUE_MESSAGE = "Continue exactly where your last reply stopped."


@dataclass(frozen=True, slots=True)
class UserSaved:
    """The user's message is safely in the file (before anything is sent)."""

    message: Message


@dataclass(frozen=True, slots=True)
class ReplyStarted:
    """A reply row exists and text is about to stream into it."""

    message: Message


@dataclass(frozen=True, slots=True)
class ReplyDone:
    """The reply finished and is stored: whole, or cut at the model's length limit."""

    message: Message

    @property
    def cut(self) -> bool:
        """Whether the model stopped at its length limit (the reply may end mid-word)."""
        return self.message.status == "cut"


@dataclass(frozen=True, slots=True)
class ReplyCancelled:
    """The user stopped the reply; what had arrived is stored, marked cancelled."""

    message: Message


@dataclass(frozen=True, slots=True)
class ReplyFailed:
    """The reply failed; what had arrived is stored, marked failed, with the error."""

    message: Message
    error: HippoError


@dataclass(frozen=True, slots=True)
class MemoryUsed:
    """The memories put into the prompt for this reply, by section, with their scores."""

    reply_id: int
    memories: tuple[tuple[str, MemoryItem], ...]


@dataclass(frozen=True, slots=True)
class MemoryWritten:
    """The model changed memory through a tool ("Memory updated: ..."), or proposed a change.

    ``pending``: the change waits for the user's approval in the review queue
    ("Proposed for core memory: ... (F4 → Review to approve)"); nothing of it is used yet.
    """

    notice: str
    tool: str
    pending: bool = False


@dataclass(frozen=True, slots=True)
class PromptTooLong:
    """The prompt exceeds the context window the model is given: it will see only part.

    ``tokens`` is the prompt's estimated size, ``window`` the model's context window.
    """

    tokens: int
    window: int

    @property
    def advice(self) -> str:
        """What happens, and what to do, in words."""
        return (
            f"Your message makes the prompt about {self.tokens:,} tokens, more than the "
            f"{self.window:,} the model is given, so it reads only the start and the end of "
            "your message (Hippo keeps all of it, and later recalls the parts that bear on a "
            "question). For a document, `hippo document add FILE` keeps it "
            "searchable; or raise [models] context_tokens in config.toml, if the model "
            "allows it."
        )


TurnEvent = (
    UserSaved
    | ReplyStarted
    | MemoryUsed
    | TextDelta
    | ThinkingDelta
    | MemoryWritten
    | PromptTooLong
    | ReplyDone
    | ReplyCancelled
    | ReplyFailed
)
