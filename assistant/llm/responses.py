"""The `ollama` client's responses turned into the typed values of `assistant.llm.values`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from assistant.llm.values import ChatEvent, Done, ModelInfo, TextDelta, ThinkingDelta, ToolCall

__all__ = ["chat_events", "model_info", "tool_calls"]


def chat_events(part: Any) -> Iterator[ChatEvent]:
    """The events in one streamed chat part: thinking, text, tool calls, then `Done` if last."""
    message = part.message
    if message.thinking:
        yield ThinkingDelta(message.thinking)
    if message.content:
        yield TextDelta(message.content)
    yield from tool_calls(message)
    if part.done:
        yield Done(
            done_reason=part.done_reason or "stop",
            prompt_tokens=part.prompt_eval_count or 0,
            completion_tokens=part.eval_count or 0,
            duration_s=(part.total_duration or 0) / 1e9,
        )


def tool_calls(message: Any) -> Iterator[ToolCall]:
    """The tool calls a chat message asks for."""
    for call in message.tool_calls or ():
        yield ToolCall(call.function.name, dict(call.function.arguments or {}))


def model_info(name: str, shown: Any) -> ModelInfo:
    """What `show` said about the model `name`, as a `ModelInfo` (its size left at 0)."""
    details = shown.details
    info: Mapping[str, Any] = shown.modelinfo or {}
    capabilities = frozenset(shown.capabilities or ())
    architecture = info.get("general.architecture", "")
    return ModelInfo(
        name=name,
        capabilities=capabilities,
        family=(details.family if details else None) or architecture or "",
        parameter_size=(details.parameter_size if details else None) or "",
        context_length=_model_number(info, architecture, "context_length"),
        # Ollama reports every model's hidden size here; only an embedder's is a vector size.
        embedding_length=(
            _model_number(info, architecture, "embedding_length")
            if "embedding" in capabilities
            else None
        ),
    )


def _model_number(info: Mapping[str, Any], architecture: str, key: str) -> int | None:
    value = info.get(f"{architecture}.{key}")
    if value is None:
        value = next((v for k, v in info.items() if k.endswith(f".{key}")), None)
    return int(value) if isinstance(value, int | float) else None
