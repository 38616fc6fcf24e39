"""Typed values the Ollama gateway yields and returns.

The UI and the engine match on these types, never on tuples or raw dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ChatEvent",
    "ChatResult",
    "Done",
    "ModelInfo",
    "PullProgress",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the reply's visible text."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A piece of the model's thinking (models that think only)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asks to call a tool."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Done:
    """The stream ended normally."""

    done_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_s: float = 0.0


ChatEvent = TextDelta | ThinkingDelta | ToolCall | Done


@dataclass(frozen=True, slots=True)
class ChatResult:
    """A whole (non-streamed) reply."""

    content: str
    thinking: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """An installed model and what it can do (from /api/tags and /api/show).

    ``digest`` names the model's weights: it changes when a pull brings new ones.
    """

    name: str
    size: int = 0
    capabilities: frozenset[str] = frozenset()
    family: str = ""
    parameter_size: str = ""
    context_length: int | None = None
    embedding_length: int | None = None
    digest: str = ""

    @property
    def can_use_tools(self) -> bool:
        return "tools" in self.capabilities

    @property
    def can_think(self) -> bool:
        return "thinking" in self.capabilities

    @property
    def is_embedding(self) -> bool:
        return "embedding" in self.capabilities


@dataclass(frozen=True, slots=True)
class PullProgress:
    """Progress of a pull, summed over all layers seen so far."""

    status: str
    completed: int = 0
    total: int = 0
    bytes_per_s: float = 0.0
    done: bool = False

    @property
    def fraction(self) -> float | None:
        """Share done in [0, 1], or None while the size is unknown."""
        return self.completed / self.total if self.total else None
