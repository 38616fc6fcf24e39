"""Talking to Ollama: the gateway and the typed values it yields.

Cheap to import: its names load on first use (PEP 562), so `assistant.llm.hosts` costs
only itself (the chat shows the host before anything else of the engine loads), and the
gateway loads the `ollama` client only when it first sends a request.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assistant.llm.gateway import DEFAULT_HOST, OllamaGateway, resolve_host
    from assistant.llm.values import (
        ChatEvent,
        ChatResult,
        Done,
        ModelInfo,
        PullProgress,
        TextDelta,
        ThinkingDelta,
        ToolCall,
    )

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


_EVENTS = ("ChatEvent", "ChatResult", "Done", "ModelInfo", "PullProgress", "TextDelta",
           "ThinkingDelta", "ToolCall")  # fmt: skip
_GATEWAY = ("DEFAULT_HOST", "OllamaGateway", "resolve_host")


def __getattr__(name: str) -> Any:
    """Load the typed events or the gateway module on first use."""
    if name in _EVENTS or name in _GATEWAY:
        module = "assistant.llm.values" if name in _EVENTS else "assistant.llm.gateway"
        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'assistant.llm' has no attribute {name!r}")
