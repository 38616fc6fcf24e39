"""What the engine asks of a model server: the `ChatBackend` protocol.

Everything outside `assistant.llm` names this protocol, never a concrete gateway, so a
second local server (llama.cpp's server, LM Studio) is one module here that meets it, and
a test or a front (the MCP server, sync) can hand the engine any backend in process.
`OllamaGateway` (`assistant.llm.gateway`) is the one in use: `assistant.gateways` opens it
from the settings.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol

from assistant.llm.prefixes import Purpose
from assistant.llm.values import ChatEvent, ChatResult, ModelInfo, PullProgress

__all__ = ["ChatBackend", "Messages", "ReplyFormat", "Tools"]

Messages = Sequence[Mapping[str, Any]]
Tools = Sequence[Mapping[str, Any] | Callable[..., Any]]
# What `format=` takes, as the `ollama` client types it: "json", or a JSON schema.
ReplyFormat = Literal["", "json"] | dict[str, Any]


class ChatBackend(Protocol):
    """A model server the engine chats with and embeds through.

    Every call raises `assistant.errors.OllamaError` (or a subclass) on failure, never
    a transport's own exception, and none waits without limit.
    """

    host: str
    connect_timeout: float
    load_timeout: float
    stall_timeout: float

    def __enter__(self) -> ChatBackend: ...

    def __exit__(self, *exc_info: object) -> None: ...

    def close(self) -> None:
        """Stop the calls in flight and let go of connections."""

    def with_token(self, token: str) -> ChatBackend:
        """The same server and limits, sending ``token`` as a bearer token."""

    def abort(self) -> None:
        """Stop every call in flight now (they fail with `OllamaStopped`)."""

    def stopping_on(self, cancel: threading.Event) -> contextlib.AbstractContextManager[None]:
        """Let ``cancel`` stop every call the current thread makes meanwhile."""

    @property
    def silent(self) -> bool:
        """Whether the server left the latest request unanswered."""

    def probe(self) -> str:
        """The server's version: the cheapest proof that it is up."""

    def list_models(self) -> list[ModelInfo]:
        """The installed models."""

    def digests(self) -> dict[str, str]:
        """Each installed model's weights digest, by name."""

    def show(self, model: str) -> ModelInfo:
        """What the server says of one model (capabilities, window)."""

    def delete(self, model: str) -> None:
        """Delete an installed model."""

    def pull(self, model: str, cancel: threading.Event | None = None) -> Iterator[PullProgress]:
        """Download a model, yielding its progress."""

    def chat(
        self,
        model: str,
        messages: Messages,
        *,
        tools: Tools | None = None,
        think: bool | None = None,
        format: ReplyFormat | None = None,
        options: Mapping[str, Any] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[ChatEvent]:
        """Stream a reply as typed events, ending with `Done` (none when cancelled)."""

    def chat_once(
        self,
        model: str,
        messages: Messages,
        *,
        tools: Tools | None = None,
        think: bool | None = None,
        format: ReplyFormat | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ChatResult:
        """A whole reply at once."""

    def embed(
        self,
        model: str,
        texts: Sequence[str],
        *,
        purpose: Purpose = "document",
        batch_size: int = 32,
    ) -> list[list[float]]:
        """One vector per text, L2-normalised, with the prefix ``purpose`` asks for."""
