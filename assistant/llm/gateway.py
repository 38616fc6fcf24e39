"""The one door to Ollama: probe, models, pull, chat stream, embed.

`OllamaGateway` wraps the official `ollama` client and turns what it returns into the typed
values of `assistant.llm.events`, and every failure on the way into one `OllamaError`
(see `assistant.errors`): no `httpx` or `ollama` exception gets out.

Importing `ollama` costs about a quarter of a second, so this module imports it (and httpx)
only when the first request is made; constructing a gateway does no I/O.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from assistant.errors import (
    ConfigError,
    ModelNotFound,
    OllamaAuthError,
    OllamaError,
    OllamaResponseError,
    OllamaUnreachable,
)
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
    import httpx
    import ollama

__all__ = ["DEFAULT_HOST", "OllamaGateway", "resolve_host"]

DEFAULT_HOST = "http://127.0.0.1:11434"
_DEFAULT_PORT = 11434
_CANCEL_POLL_S = 0.05  # how soon a set cancel event closes the connection
_SHOW_WORKERS = 4
_T = TypeVar("_T")

Messages = Sequence[Mapping[str, Any]]
Tools = Sequence[Mapping[str, Any] | Callable[..., Any]]


def resolve_host(value: str | None = None) -> str:
    """The URL to reach Ollama at, parsed as the `ollama` client parses OLLAMA_HOST.

    `value` (or, when empty, the OLLAMA_HOST environment variable) may be a bare host
    ("example.com"), host and port ("0.0.0.0:11434"), a bare port (":11434" or "11434")
    or a URL; the port defaults to 11434, or 80/443 with an explicit http/https scheme.
    Two deliberate differences from the client: a wildcard address (0.0.0.0, ::), which
    OLLAMA_HOST often holds so that the server listens everywhere, means this machine
    (Ollama's own CLI connects there too), and digits alone are a port, not a host name.

    Raises:
        ConfigError: the value is not an http(s) address.
    """
    raw = (value or os.environ.get("OLLAMA_HOST") or "").strip()
    text = f":{raw}" if raw.isdigit() else raw
    scheme, sep, rest = text.partition("://")
    port = {"http": 80, "https": 443}.get(scheme, _DEFAULT_PORT) if sep else _DEFAULT_PORT
    if not sep:
        scheme, rest = "http", text
    try:
        split = urllib.parse.urlsplit(f"{scheme}://{rest}")
        name, port = split.hostname or "127.0.0.1", split.port or port
    except ValueError as exc:
        raise _bad_host(raw, str(exc)) from None
    if scheme not in ("http", "https"):
        raise _bad_host(raw, f"unsupported scheme {scheme}://")
    host = _connectable(name)
    path = split.path.strip("/")
    return f"{scheme}://{host}:{port}" + (f"/{path}" if path else "")


def _bad_host(raw: str, why: str) -> ConfigError:
    return ConfigError(
        f"The Ollama host {raw!r} is not a valid address ({why}). Set OLLAMA_HOST (or the "
        "host in Hippo's settings) like 127.0.0.1:11434 or https://ollama.example.com."
    )


def _connectable(name: str) -> str:
    """`name` ready for a URL: IPv6 in brackets, wildcard addresses made loopback."""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else "127.0.0.1")
    return f"[{address.compressed}]" if address.version == 6 else address.compressed


def _is_loopback(url: str) -> bool:
    name = urllib.parse.urlsplit(url).hostname or ""
    try:
        return name == "localhost" or ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class OllamaGateway:
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
            "trust_env": not _is_loopback(self.host),
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
            options["event_hooks"] = {"request": [_CancelWatch.attach]}
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
            raise self._status_error(response.status_code, _error_text(response.text))
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

        with self._translated():
            listing = self._client().list()
        entries = [(m.model, int(m.size or 0)) for m in listing.models if m.model]
        if not entries:
            return []
        with ThreadPoolExecutor(min(_SHOW_WORKERS, len(entries)), "ollama-show") as pool:
            shown = list(pool.map(self._show_if_installed, [name for name, _ in entries]))
        return [
            replace(info, size=size)
            for (_, size), info in zip(entries, shown, strict=True)
            if info is not None
        ]

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
        return _model_info(model, shown)

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
        meter = _PullMeter()
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
                yield from _chat_events(part)
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
            tool_calls=tuple(_tool_calls(message)),
            prompt_tokens=response.prompt_eval_count or 0,
            completion_tokens=response.eval_count or 0,
        )

    def embed(self, model: str, texts: Sequence[str], *, batch_size: int = 32) -> list[list[float]]:
        """One vector per text, asked for `batch_size` texts at a time.

        Raises:
            ValueError: `texts` is a single string, or `batch_size` is below 1.
            OllamaError: any failure, e.g. `model` is not an embedding model.
        """
        if isinstance(texts, str):
            raise ValueError("embed() takes a sequence of texts, not one string")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        items = list(texts)
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
        watch = _CancelWatch(cancel)
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

    # -- errors ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _translated(self, model: str = "", *, pulling: bool = False) -> Iterator[None]:
        """Turn any failure of the client or the network into one `OllamaError`."""
        try:
            yield
        except OllamaError:
            raise
        except Exception as exc:
            error = self._domain_error(exc, model, pulling)
            if error is None:
                raise
            raise error from exc

    def _domain_error(self, exc: Exception, model: str, pulling: bool) -> OllamaError | None:
        import httpx
        import pydantic

        ollama = sys.modules.get("ollama")  # raised its errors only if already imported
        if ollama is not None and isinstance(exc, ollama.ResponseError):
            return self._status_error(exc.status_code, exc.error, model, pulling=pulling)
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | ConnectionError):
            return OllamaUnreachable(self.host, self._connect_detail(exc))
        if isinstance(exc, httpx.TimeoutException):
            return OllamaResponseError(
                f"Ollama at {self.host} did not answer within {self.timeout:g} s. A large model "
                "may still be loading: try again, or raise the timeout.",
                host=self.host,
            )
        if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
            return self._mid_way(_first_line(exc), pulling=pulling)
        if isinstance(exc, httpx.HTTPError):
            return OllamaResponseError(
                f"Talking to Ollama at {self.host} failed: {_first_line(exc)}.", host=self.host
            )
        if isinstance(exc, json.JSONDecodeError) or (
            isinstance(exc, pydantic.ValidationError) and exc.title.endswith("Response")
        ):
            return self._unreadable(_first_line(exc))
        return None

    def _status_error(
        self, status: int, text: str, model: str = "", *, pulling: bool = False
    ) -> OllamaError:
        """The error for an answer with an error status (-1: an error line in a stream)."""
        text = (text or "").strip() or "no details"
        lowered = text.lower()
        if status in (401, 403):
            return OllamaAuthError(self.host, status)
        code = status if status > 0 else None
        if pulling and ("does not exist" in lowered or "not found" in lowered):
            return OllamaResponseError(
                f"Ollama at {self.host} could not pull '{model}': {text}. Check the name at "
                "https://ollama.com/search.",
                host=self.host,
                status=code,
            )
        if model and "model" in lowered and "not found" in lowered:
            return ModelNotFound(model, self.host)
        if status == 404:
            return OllamaResponseError(
                f"Ollama at {self.host} does not offer this request (HTTP 404: {text}). Update "
                "Ollama from https://ollama.com/download, or check that OLLAMA_HOST points at it.",
                host=self.host,
                status=404,
            )
        where = f"HTTP {status}" if code else "in the stream"
        return OllamaResponseError(
            f"Ollama at {self.host} answered with an error ({where}): {text}. "
            + _advice(lowered, status),
            host=self.host,
            status=code,
        )

    def _mid_way(self, detail: str, *, pulling: bool = False) -> OllamaResponseError:
        what, then = (
            ("the download", "Pull again to resume it.")
            if pulling
            else ("the reply", "Check its log (the `ollama serve` output) and try again.")
        )
        return OllamaResponseError(
            f"Ollama at {self.host}: {what} stopped mid-way ({detail}). Ollama may have "
            f"crashed or run out of memory. {then}",
            host=self.host,
        )

    def _unreadable(self, detail: str) -> OllamaResponseError:
        return OllamaResponseError(
            f"Ollama at {self.host} sent a reply Hippo cannot read ({detail}). Check that "
            "OLLAMA_HOST points at an Ollama server, and update Ollama if it is old.",
            host=self.host,
        )

    def _connect_detail(self, exc: BaseException) -> str:
        import httpx

        for link in _causes(exc):
            if isinstance(link, ConnectionRefusedError):
                return "connection refused"
            if isinstance(link, socket.gaierror):
                return "host name not found"
            if isinstance(link, TimeoutError | httpx.ConnectTimeout):
                return f"no answer within {self.connect_timeout:g} s"
        return _first_line(exc)


class _CancelWatch:
    """Shuts down the sockets of one streamed call as soon as its cancel event is set.

    Closing a socket does not wake a thread blocked reading it; shutting it down does,
    and tells the server the client left. The sockets are learnt from httpcore's
    "trace" request extension, which `attach` (an httpx request hook) installs for
    requests sent while the watch is bound to the sending thread.
    """

    _bound = threading.local()

    def __init__(self, cancel: threading.Event | None) -> None:
        self._cancel = cancel
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._fired = False
        self._finished = threading.Event()
        if cancel is not None:
            threading.Thread(target=self._watch, name="ollama-cancel", daemon=True).start()

    @property
    def cancelled(self) -> bool:
        return self._cancel is not None and self._cancel.is_set()

    @classmethod
    def attach(cls, request: httpx.Request) -> None:
        watch = getattr(cls._bound, "watch", None)
        if watch is not None:
            request.extensions = {**request.extensions, "trace": watch._trace}

    @contextlib.contextmanager
    def bound(self) -> Iterator[None]:
        """Route requests sent from this thread meanwhile to this watch."""
        if self._cancel is None:
            yield
            return
        previous = getattr(self._bound, "watch", None)
        self._bound.watch = self
        try:
            yield
        finally:
            self._bound.watch = previous

    def finish(self) -> None:
        self._finished.set()

    def _trace(self, event: str, info: Mapping[str, Any]) -> None:
        if event != "connection.connect_tcp.complete":
            return
        sock = info["return_value"].get_extra_info("socket")
        with self._lock:
            self._sockets.append(sock)
            fired = self._fired
        if fired:  # cancelled while connecting
            _shut(sock)

    def _watch(self) -> None:
        assert self._cancel is not None
        while not self._finished.is_set():
            if self._cancel.wait(_CANCEL_POLL_S):
                with self._lock:
                    self._fired = True
                    sockets = list(self._sockets)
                for sock in sockets:
                    _shut(sock)
                return


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


class _PullMeter:
    """Sums pull progress over layers (by digest) and smooths the download speed."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, smoothing: float = 0.3) -> None:
        self._clock = clock
        self._smoothing = smoothing
        self._layers: dict[str, tuple[int, int]] = {}
        self._last: tuple[float, int] | None = None
        self._speed = 0.0

    def update(
        self, status: str | None, digest: str | None, completed: int | None, total: int | None
    ) -> PullProgress:
        if digest:
            seen_completed, seen_total = self._layers.get(digest, (0, 0))
            self._layers[digest] = (completed or seen_completed, total or seen_total)
        done_bytes = sum(c for c, _ in self._layers.values())
        total_bytes = sum(t for _, t in self._layers.values())
        self._measure(done_bytes)
        return PullProgress(
            status=status or "",
            completed=done_bytes,
            total=total_bytes,
            bytes_per_s=self._speed,
            done=status == "success",
        )

    def _measure(self, done_bytes: int) -> None:
        now = self._clock()
        if self._last is not None:
            elapsed, gained = now - self._last[0], done_bytes - self._last[1]
            if elapsed > 0 and gained >= 0:
                rate = gained / elapsed
                self._speed = rate if not self._speed else (
                    self._smoothing * rate + (1 - self._smoothing) * self._speed
                )  # fmt: skip
        self._last = (now, done_bytes)


def _chat_events(part: Any) -> Iterator[ChatEvent]:
    message = part.message
    if message.thinking:
        yield ThinkingDelta(message.thinking)
    if message.content:
        yield TextDelta(message.content)
    yield from _tool_calls(message)
    if part.done:
        yield Done(
            done_reason=part.done_reason or "stop",
            prompt_tokens=part.prompt_eval_count or 0,
            completion_tokens=part.eval_count or 0,
            duration_s=(part.total_duration or 0) / 1e9,
        )


def _tool_calls(message: Any) -> Iterator[ToolCall]:
    for call in message.tool_calls or ():
        yield ToolCall(call.function.name, dict(call.function.arguments or {}))


def _model_info(name: str, shown: Any) -> ModelInfo:
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


def _advice(lowered: str, status: int) -> str:
    if "does not support tools" in lowered:
        return "Choose a model that can use tools (such as qwen3), or turn tools off."
    if "does not support thinking" in lowered:
        return "Turn thinking off for this model."
    if "does not support" in lowered:
        return (
            "Choose a model of the right kind: an embedding model (such as embeddinggemma) "
            "for memory search, a chat model for replies."
        )
    if status >= 500 or status < 0:
        return "Check Ollama's log (the `ollama serve` output) and try again."
    return "Check the model and its settings, or update Ollama."


def _error_text(body: str) -> str:
    """The "error" of an Ollama error body, or the body itself."""
    with contextlib.suppress(ValueError, AttributeError):
        return str(json.loads(body).get("error", body))
    return body


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and everything it was raised from or during."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        link = pending.pop()
        if link is None or id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        pending += [link.__cause__, link.__context__]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
