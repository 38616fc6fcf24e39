"""Talking to Ollama: the gateway and the typed values it yields.

Cheap to import: the gateway loads the `ollama` client only when it first sends a request.
"""

from __future__ import annotations

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
