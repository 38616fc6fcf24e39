"""Talking to Ollama: the gateway and the typed values it yields.

Cheap to import: the gateway loads the `ollama` client only when it first sends a request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assistant.llm.events import (
    ChatEvent,
    ChatResult,
    Done,
    ModelInfo,
    PullProgress,
    TextDelta,
    ThinkingDelta,
    ToolCall,
)

if TYPE_CHECKING:
    from assistant.llm.gateway import DEFAULT_HOST, OllamaGateway, resolve_host

__all__ = [
    "DEFAULT_HOST",
    "ChatEvent",
    "ChatResult",
    "Done",
    "ModelInfo",
    "OllamaGateway",
    "PullProgress",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "resolve_host",
]


def __getattr__(name: str) -> Any:
    """The gateway module loads on first use (PEP 562): the typed events are enough for most."""
    if name in {"DEFAULT_HOST", "OllamaGateway", "resolve_host"}:
        from assistant.llm import gateway

        return getattr(gateway, name)
    raise AttributeError(f"module 'assistant.llm' has no attribute {name!r}")
