"""The one door to Ollama: probe, models, pull, chat stream, embed.

`OllamaGateway` wraps the official `ollama` client and turns what it returns into the typed
values of `assistant.llm.events`, and every failure on the way into one `OllamaError`
(see `assistant.errors`): no `httpx` or `ollama` exception gets out.

Importing `ollama` costs about a quarter of a second, so this module imports it (and httpx)
only when the first request is made; constructing a gateway does no I/O.

The rest of the door is in its own modules: `hosts` (where Ollama runs), `failures` (errors
into `assistant.errors`), `cancel` (stopping a stream), `progress` (pull progress) and
`responses` (the client's answers as typed events).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from assistant.errors import ModelNotFound, OllamaError
from assistant.llm.cancel import CancelWatch
from assistant.llm.events import ChatEvent, ChatResult, ModelInfo, PullProgress
from assistant.llm.failures import FailureTranslation, error_text
from assistant.llm.hosts import DEFAULT_HOST, is_loopback, resolve_host
from assistant.llm.prefixes import Purpose, prefixed
from assistant.llm.progress import PullMeter
from assistant.llm.responses import chat_events, model_info, tool_calls

if TYPE_CHECKING:
    import ollama

__all__ = ["DEFAULT_HOST", "OllamaGateway", "resolve_host"]

_SHOW_WORKERS = 4
_T = TypeVar("_T")

Messages = Sequence[Mapping[str, Any]]
Tools = Sequence[Mapping[str, Any] | Callable[..., Any]]


class OllamaGateway(FailureTranslation):
    """Talks to one Ollama host; safe to share between threads.

    Args:
        host: Where Ollama runs (see `resolve_host`); None reads OLLAMA_HOST, else
            http://127.0.0.1:11434.
        token: Sent as "Authorization: Bearer <token>", for hosts behind an auth proxy.
        timeout: Seconds to wait for each read of an answer; generous, as a large model
            can take minutes to load.
        connect_timeout: Seconds to wait for a connection, short so a dead host fails fast.

    Raises:
        ConfigError: `host` (or OLLAMA_HOST) is not a valid address.
    """

    def __init__(
        self,
        host: str | None = None,
        *,
        token: str | None = None,
        timeout: float = 300.0,
        connect_timeout: float = 5.0,
    ) -> None:
        self.host = resolve_host(host)
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._token = token
        self._lock = threading.Lock()
        self._clients: dict[bool, ollama.Client] = {}

    def __repr__(self) -> str:
        return f"OllamaGateway({self.host!r})"  # never the token

    def __enter__(self) -> OllamaGateway:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close pooled connections; the gateway reopens them if used again."""
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()

    # -- the ollama client -------------------------------------------------------------------

    def _client(self, *, streaming: bool = False) -> ollama.Client:
        with self._lock:
            if streaming not in self._clients:
                self._clients[streaming] = self._new_client(streaming)
            return self._clients[streaming]

    def _http_options(self) -> dict[str, Any]:
        import httpx

        options: dict[str, Any] = {
            "timeout": httpx.Timeout(self.timeout, connect=self.connect_timeout),
            # A proxy never serves a local Ollama (Go's client skips it for loopback too).
            "trust_env": not is_loopback(self.host),
        }
        if self._token:
            options["headers"] = {"Authorization": f"Bearer {self._token}"}
        return options

    def _new_client(self, streaming: bool) -> ollama.Client:
        import httpx
        import ollama

        options = self._http_options()
        if streaming:
            # No keep-alive: each stream gets its own connection, whose socket a cancel
            # can shut down even while a read blocks; a cheap price on localhost.
            options["limits"] = httpx.Limits(max_keepalive_connections=0)
            options["event_hooks"] = {"request": [CancelWatch.attach]}
        return ollama.Client(host=self.host, **options)

    # -- requests --------------------------------------------------------------------------

    def probe(self) -> str:
        """Ask the server for its version: the cheapest proof that it is up.

        Returns:
            The version, e.g. "0.12.6".

        Raises:
            OllamaError: the host is unreachable or did not answer as Ollama does.
        """
        import httpx

        options = self._http_options()
        headers = options.pop("headers", {})
        api_key = os.environ.get("OLLAMA_API_KEY")
        if api_key and not headers:  # as the ollama client does for its own requests
            headers["Authorization"] = f"Bearer {api_key}"
        with self._translated():
            response = httpx.get(f"{self.host}/api/version", headers=headers, **options)
        if response.is_error:
            raise self._status_error(response.status_code, error_text(response.text))
        try:
            version = response.json().get("version")
        except (ValueError, AttributeError):  # not JSON, or not an object
            version = None
        if not isinstance(version, str):
            raise self._unreadable(f"no version in {response.text[:60]!r}")
        return version

    def list_models(self) -> list[ModelInfo]:
        """Installed models, with what each can do (one `show` per model, a few at a time).

        Raises:
            OllamaError: the host can't be asked.
        """
        from concurrent.futures import ThreadPoolExecutor

        listed = self._listing()
        if not listed:
            return []
        with ThreadPoolExecutor(min(_SHOW_WORKERS, len(listed)), "ollama-show") as pool:
            shown = list(pool.map(self._show_if_installed, [m.model for m in listed]))
        return [
            replace(info, size=int(m.size or 0), digest=m.digest or "")
            for m, info in zip(listed, shown, strict=True)
            if info is not None
        ]

    def digests(self) -> dict[str, str]:
        """Each installed model's digest, by full name: one listing, no `show`.

        A digest names a model's weights, so it changes when a pull brings new ones.

        Raises:
            OllamaError: the host can't be asked.
        """
        return {m.model: m.digest for m in self._listing() if m.digest}

    def _listing(self) -> list[Any]:
        """`/api/tags`: the installed models, as the client parses them."""
        with self._translated():
            listing = self._client().list()
        return [m for m in listing.models if m.model]

    def _show_if_installed(self, model: str) -> ModelInfo | None:
        try:
            return self.show(model)
        except ModelNotFound:
            return None  # removed since it was listed

    def show(self, model: str) -> ModelInfo:
        """What `model` is and can do (capabilities, context and embedding sizes).

        Raises:
            ModelNotFound: the host lacks the model.
            OllamaError: any other failure.
        """
        with self._translated(model):
            shown = self._client().show(model)
        return model_info(model, shown)

    def pull(self, model: str, cancel: threading.Event | None = None) -> Iterator[PullProgress]:
        """Download `model`, yielding progress summed over its layers.

        Args:
            model: The name to pull, e.g. "qwen3:1.7b".
            cancel: Set it to stop promptly; the download ends quietly and Ollama keeps the
                finished layers, so a later pull resumes.

        Yields:
            Progress; the last one has `done=True` when the model is installed.

        Raises:
            OllamaError: the host failed, or knows no such model to pull.
        """
        client = self._client(streaming=True)
        meter = PullMeter()
        parts = self._stream(lambda: client.pull(model, stream=True), cancel, model, pulling=True)
        with contextlib.closing(parts):
            for part in parts:
                progress = meter.update(part.status, part.digest, part.completed, part.total)
                yield progress
                if progress.done:
                    return
        if not (cancel and cancel.is_set()):
            raise self._mid_way("the stream ended before its success message", pulling=True)

    def chat(
        self,
        model: str,
        messages: Messages,
        *,
        tools: Tools | None = None,
        think: bool | None = None,
        format: str | Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[ChatEvent]:
        """Stream a reply as `TextDelta`, `ThinkingDelta` and `ToolCall` events, then `Done`.

        Args:
            model: The chat model.
            messages: `{"role": ..., "content": ...}` dicts, oldest first.
            tools: Tool schemas (Ollama/OpenAI function format) or Python functions.
            think: Ask a thinking model to think (True) or not (False); None: its default.
            format: "json", or a JSON schema the reply must match.
            options: Model options such as `temperature` or `num_ctx`.
            cancel: Set it to stop promptly: the stream ends quietly, without `Done`, and
                the connection is closed so Ollama stops generating.

        Raises:
            OllamaError: any failure, including a reply that stops mid-way.
        """
        client = self._client(streaming=True)

        def start() -> Iterator[Any]:
            return client.chat(
                model, messages, tools=tools, stream=True, think=think, format=format,
                options=options,
            )  # fmt: skip

        parts = self._stream(start, cancel, model)
        with contextlib.closing(parts):
            for part in parts:
                yield from chat_events(part)
                if part.done:
                    return
        if not (cancel and cancel.is_set()):
            raise self._mid_way("the stream ended without its final message")

    def chat_once(
        self,
        model: str,
        messages: Messages,
        *,
        tools: Tools | None = None,
        think: bool | None = None,
        format: str | Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ChatResult:
        """The whole reply at once (no streaming), e.g. for structured extraction.

        Arguments are as for `chat`.

        Raises:
            OllamaError: any failure.
        """
        with self._translated(model):
            response = self._client().chat(
                model, messages, tools=tools, stream=False, think=think, format=format,
                options=options,
            )  # fmt: skip
        message = response.message
        return ChatResult(
            content=message.content or "",
            thinking=message.thinking or "",
            tool_calls=tuple(tool_calls(message)),
            prompt_tokens=response.prompt_eval_count or 0,
            completion_tokens=response.eval_count or 0,
        )

    def embed(
        self,
        model: str,
        texts: Sequence[str],
        *,
        purpose: Purpose = "document",
        batch_size: int = 32,
    ) -> list[list[float]]:
        """One vector per text, asked for `batch_size` texts at a time.

        Args:
            model: The embedding model.
            texts: What to embed.
            purpose: "query" for a search's text, "document" for text to be found (and
                for texts compared with each other): each gets the prefix the model was
                trained with for it, if any (see `assistant.llm.prefixes`).
            batch_size: Texts per request.

        Raises:
            ValueError: `texts` is a single string, or `batch_size` is below 1.
            OllamaError: any failure, e.g. `model` is not an embedding model.
        """
        if isinstance(texts, str):
            raise ValueError("embed() takes a sequence of texts, not one string")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        items = prefixed(model, texts, purpose)
        vectors: list[list[float]] = []
        for start in range(0, len(items), batch_size):
            batch = items[start : start + batch_size]
            with self._translated(model):
                response = self._client().embed(model, batch)
            if len(response.embeddings) != len(batch):
                raise self._unreadable(f"{len(response.embeddings)} vectors for {len(batch)} texts")
            vectors.extend([float(x) for x in vector] for vector in response.embeddings)
        return vectors

    # -- streaming and cancelling ----------------------------------------------------------

    def _stream(
        self,
        start: Callable[[], Iterator[_T]],
        cancel: threading.Event | None,
        model: str,
        *,
        pulling: bool = False,
    ) -> Iterator[_T]:
        """The parts of a streamed call; ends quietly once `cancel` is set."""
        if cancel is not None and cancel.is_set():
            return
        watch = CancelWatch(cancel)
        stream: Iterator[_T] | None = None
        try:
            stream = start()
            while True:
                try:
                    with watch.bound(), self._translated(model, pulling=pulling):
                        part = next(stream, None)
                except OllamaError:
                    if watch.cancelled:  # the broken read is the cancel's doing
                        return
                    raise
                if part is None or watch.cancelled:
                    return
                yield part
        finally:
            watch.finish()
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # closes the HTTP response, so Ollama stops generating
