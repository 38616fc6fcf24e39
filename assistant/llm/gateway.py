"""The one door to Ollama: probe, models, pull, delete, chat stream, embed.

`OllamaGateway` wraps the official `ollama` client and turns what it returns into the typed
values of `assistant.llm.values`, and every failure on the way into one `OllamaError`
(see `assistant.errors`): no `httpx` or `ollama` exception gets out.

Importing `ollama` costs about a quarter of a second, so this module imports it (and httpx)
only when the first request is made; constructing a gateway does no I/O.

The rest of the door is in its own modules: `hosts` (where Ollama runs), `failures` (errors
into `assistant.errors`), `cancel` (stopping a call: cancel, deadline, abort), `progress`
(pull progress) and `responses` (the client's answers as typed events).

No call waits without limit. Each gets `connect_timeout` to connect; then the first byte of
an answer that may need a model loaded (a chat, an embedding) gets `load_timeout`, a quick
answer (the models, a model's details) gets `stall_timeout`, and the version (the cheapest
proof of life) gets `connect_timeout`; once a stream has begun, each next part gets
`stall_timeout`. A host that has just left a request unanswered is "silent": until it
answers again, every first byte gets only `connect_timeout`, so that one hung server costs
one long wait, not one per request.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from assistant.errors import ModelNotFound, OllamaError, OllamaStopped, OllamaTimeout
from assistant.llm import failures
from assistant.llm.backend import Messages, ReplyFormat, Tools
from assistant.llm.cancel import Call, Calls
from assistant.llm.failures import error_text
from assistant.llm.hosts import DEFAULT_HOST, is_loopback, resolve_host
from assistant.llm.liveness import LivenessCheck
from assistant.llm.prefixes import Purpose, prefixed
from assistant.llm.progress import PullMeter
from assistant.llm.responses import chat_events, model_info
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

if TYPE_CHECKING:
    import ssl

    import httpx
    import ollama

__all__ = ["DEFAULT_HOST", "OllamaGateway", "resolve_host"]

_SHOW_WORKERS = 4
_T = TypeVar("_T")
_BACKSTOP_S = 5.0  # httpx's own read timeout comes this long after the watchdog's


class OllamaGateway:
    """Talks to one Ollama host; safe to share between threads.

    Args:
        host: Where Ollama runs (see `resolve_host`); None reads OLLAMA_HOST, else
            http://127.0.0.1:11434.
        token: Sent as "Authorization: Bearer <token>", for hosts behind an auth proxy.
        connect_timeout: Seconds to wait for a connection (and for the version), short so
            a dead host fails fast.
        load_timeout: Seconds to wait for the first byte of a reply or an embedding:
            generous, as Ollama may first have to load the model.
        stall_timeout: Seconds a streamed answer may pause between two parts, and the
            wait for answers that load no model (the list of models, a model's details).
        transport: What carries the requests (httpx's seam, as ``httpx.Client`` takes
            it): a server in the same process, for tests. None: the network. Stopping a
            call then stops waiting on it, but cannot shut a socket down.

    Raises:
        ConfigError: `host` (or OLLAMA_HOST) is not a valid address.
    """

    def __init__(
        self,
        host: str | None = None,
        *,
        token: str | None = None,
        connect_timeout: float = 5.0,
        load_timeout: float = 120.0,
        stall_timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.host = resolve_host(host)
        self._transport = transport
        self.connect_timeout = connect_timeout
        self.load_timeout = load_timeout
        self.stall_timeout = stall_timeout
        self._token = token
        self._lock = threading.Lock()
        self._clients: dict[str, Any] = {}
        self._calls = Calls()
        self._silent = False  # the host left the last request unanswered
        self._lifeless = False  # ...and then its version too: nothing more is sent till it answers
        self._unanswered = 0.0  # how long the first unanswered request waited

    def __repr__(self) -> str:
        return f"OllamaGateway({self.host!r})"  # never the token

    def __enter__(self) -> OllamaGateway:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the calls in flight and close the clients; used again, the gateway reopens."""
        self._calls.close()
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()

    def with_token(self, token: str) -> OllamaGateway:
        """A gateway to the same host, with the same limits, that sends `token`."""
        return OllamaGateway(
            self.host,
            token=token,
            connect_timeout=self.connect_timeout,
            load_timeout=self.load_timeout,
            stall_timeout=self.stall_timeout,
        )

    def abort(self) -> None:
        """Stop every call in flight now (they fail with `OllamaStopped`), e.g. when quitting.

        A thread blocked on the network is freed at once; calls begun later go ahead.
        """
        self._calls.abort()

    @staticmethod
    def stopping_on(cancel: threading.Event) -> contextlib.AbstractContextManager[None]:
        """Let `cancel` stop every call the current thread makes meanwhile.

        A chat turn runs inside it, so that stopping the turn also stops the query's
        embedding and the model check before the reply, not only the reply's stream.
        """
        return Calls.stopping_on(cancel)

    @property
    def silent(self) -> bool:
        """Whether the host left the latest request unanswered (see the module's doc)."""
        return self._silent

    # -- the clients -------------------------------------------------------------------------

    def _client(self) -> ollama.Client:
        with self._lock:
            if "ollama" not in self._clients:
                import ollama

                self._clients["ollama"] = ollama.Client(host=self.host, **self._http_options())
            client: ollama.Client = self._clients["ollama"]
            return client

    def _http(self) -> httpx.Client:
        """A plain client, for the version (the `ollama` client has no call for it)."""
        import httpx

        with self._lock:
            if "http" not in self._clients:
                options = self._http_options()
                headers = options.pop("headers", {})
                api_key = os.environ.get("OLLAMA_API_KEY")
                if api_key and not headers:  # as the ollama client does for its own requests
                    headers["Authorization"] = f"Bearer {api_key}"
                self._clients["http"] = httpx.Client(headers=headers, **options)
            http: httpx.Client = self._clients["http"]
            return http

    def _http_options(self) -> dict[str, Any]:
        import httpx

        backstop = max(self.load_timeout, self.stall_timeout, self.connect_timeout) + _BACKSTOP_S
        # A proxy never serves a local Ollama (Go's client skips it for loopback too).
        trust_env = not is_loopback(self.host)
        options: dict[str, Any] = {
            "timeout": httpx.Timeout(backstop, connect=self.connect_timeout),
            "trust_env": trust_env,
            # No keep-alive: each request gets its own connection, whose socket a cancel, a
            # deadline or an abort can shut down even while a read blocks. A handshake per
            # request is nothing on localhost and little next to a model's answer elsewhere.
            "limits": httpx.Limits(max_keepalive_connections=0),
            "event_hooks": {"request": [Calls.attach]},
            "verify": _tls_context(trust_env),
        }
        if self._transport is not None:
            options["transport"] = self._transport
        if self._token:
            options["headers"] = {"Authorization": f"Bearer {self._token}"}
        return options

    # -- waiting -----------------------------------------------------------------------------

    def _wait_first(self, call: Call, allowed: float) -> LivenessCheck | None:
        """Let the call's first byte take `allowed` seconds; less once the host is silent.

        A long wait gets a liveness check (see `liveness`), which the caller cancels.
        """
        call.hurried = self._silent and allowed > self.connect_timeout
        call.expect(self.connect_timeout if call.hurried else allowed)
        if call.hurried or allowed <= 2 * self.connect_timeout:
            return None
        return LivenessCheck(
            call, self._version, self.connect_timeout, lambda c: self._calls.stop(c, "timeout")
        )

    def _version(self) -> Any:
        """`/api/version`'s raw answer, within the connect timeout."""
        url, client = f"{self.host}/api/version", self._http()  # made before the clock starts
        return self._ask(self.connect_timeout, lambda: client.get(url), proof=True)

    def _heard(self, call: Call, *, proof: bool = False) -> None:
        """Note whether the host answered the call (it is silent if it timed out before)."""
        if call.reason == "timeout" and not call.midway:
            if not self._silent:
                self._unanswered = call.waited
            self._silent = True
            self._lifeless = self._lifeless or proof
        elif call.midway or call.reason is None:
            self._silent = self._lifeless = False

    def _alive_or_fail(self) -> None:
        """Before a request to a silent host: one check that it lives, then none till it does.

        A hung server takes every request and answers none; waiting out each of a command's
        requests in turn would add their timeouts up. So once the host has left a request
        unanswered, the next one is sent only after its version answers (within the connect
        timeout); once that went unanswered too, nothing is sent, and the caller hears so at
        once, until any answer from the host (the app's status line asks every few seconds).

        Raises:
            OllamaTimeout: the host answered neither the last request nor its version.
        """
        if not self._silent:
            return
        if not self._lifeless:
            self._version()  # raises if unanswered; an answer clears the silence
            return
        raise OllamaTimeout(
            f"Ollama at {self.host} took the request but did not answer within "
            f"{self._unanswered:g} s, nor a check that it is alive within "
            f"{self.connect_timeout:g} s, so Hippo sent nothing more. It may be stuck or "
            "overloaded: restart it (`ollama serve`) and try again, or check that OLLAMA_HOST "
            "points at Ollama.",
            host=self.host,
            waited=0.0,
            midway=False,
        )

    def _ask(
        self, allowed: float, send: Callable[[], _T], model: str = "", *, proof: bool = False
    ) -> _T:
        """Send one request and wait for its whole answer, at most `allowed` seconds.

        ``proof``: the request is the version, the proof of life (see `_alive_or_fail`).
        """
        if not proof:
            self._alive_or_fail()
        with self._calls.call() as call, self._calls.bound(call):
            if call.cancelled:
                raise OllamaStopped(
                    f"Hippo stopped its request to Ollama at {self.host}: it was cancelled.",
                    host=self.host,
                )
            check = self._wait_first(call, allowed)
            try:
                with failures.translated(self.host, self.connect_timeout, model, call=call):
                    answer = send()
            except OllamaError:
                self._heard(call, proof=proof)
                raise
            finally:
                if check is not None:
                    check.cancel()
            call.midway = True
            self._heard(call, proof=proof)
            return answer

    # -- requests --------------------------------------------------------------------------

    def probe(self) -> str:
        """Ask the server for its version: the cheapest proof that it is up.

        Returns:
            The version, e.g. "0.12.6".

        Raises:
            OllamaError: the host is unreachable or did not answer as Ollama does.
        """
        response = self._version()
        if response.is_error:
            raise failures.status_error(self.host, response.status_code, error_text(response.text))
        try:
            version = response.json().get("version")
        except (ValueError, AttributeError):  # not JSON, or not an object
            version = None
        if not isinstance(version, str):
            raise failures.unreadable(self.host, f"no version in {response.text[:60]!r}")
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
        listing = self._ask(self.stall_timeout, self._client().list)
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
        client = self._client()  # made before the clock starts
        shown = self._ask(self.stall_timeout, lambda: client.show(model), model)
        return model_info(model, shown)

    def delete(self, model: str) -> None:
        """Remove `model` from the host (`/api/delete`), freeing its disk space.

        Raises:
            ModelNotFound: the host has no such model.
            OllamaError: any other failure.
        """
        client = self._client()  # made before the clock starts
        self._ask(self.stall_timeout, lambda: client.delete(model), model)

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
        client = self._client()
        meter = PullMeter()
        parts = self._stream(lambda: client.pull(model, stream=True), cancel, model, pulling=True)
        with contextlib.closing(parts):
            for part in parts:
                progress = meter.update(part.status, part.digest, part.completed, part.total)
                yield progress
                if progress.done:
                    return
        if not any(event.is_set() for event in Calls.cancels(cancel)):
            raise failures.mid_way(
                self.host, "the stream ended before its success message", pulling=True
            )

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
        client = self._client()

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
        if not any(event.is_set() for event in Calls.cancels(cancel)):
            raise failures.mid_way(self.host, "the stream ended without its final message")

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
        """The whole reply at once (no streaming), e.g. for structured extraction.

        Arguments are as for `chat`.

        Raises:
            OllamaError: any failure.
        """
        # Streamed, so that the first byte and each pause get their own limits: a long
        # answer on a slow machine is not mistaken for a hung server, nor the reverse.
        content: list[str] = []
        thinking: list[str] = []
        calls: list[ToolCall] = []
        done = Done()
        for event in self.chat(
            model, messages, tools=tools, think=think, format=format, options=options
        ):
            if isinstance(event, TextDelta):
                content.append(event.text)
            elif isinstance(event, ThinkingDelta):
                thinking.append(event.text)
            elif isinstance(event, ToolCall):
                calls.append(event)
            else:
                done = event
        return ChatResult(
            content="".join(content),
            thinking="".join(thinking),
            tool_calls=tuple(calls),
            prompt_tokens=done.prompt_tokens,
            completion_tokens=done.completion_tokens,
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
            send = functools.partial(self._client().embed, model, batch)  # client made first
            response = self._ask(self.load_timeout, send, model)
            if len(response.embeddings) != len(batch):
                raise failures.unreadable(
                    self.host, f"{len(response.embeddings)} vectors for {len(batch)} texts"
                )
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
    ) -> Generator[_T, None, None]:
        """The parts of a streamed call; ends quietly once it is cancelled.

        The first part may take `load_timeout` (the model may be loading), each next one
        `stall_timeout` (a download's: `load_timeout`, as verifying a large layer is silent).
        """
        stall = self.load_timeout if pulling else self.stall_timeout
        self._alive_or_fail()
        with self._calls.call(cancel) as call:
            if call.cancelled:
                return
            stream: Iterator[_T] | None = None
            check: LivenessCheck | None = None
            try:
                stream = start()
                check = self._wait_first(call, self.load_timeout)
                while True:
                    try:
                        with (
                            self._calls.bound(call),
                            failures.translated(
                                self.host, self.connect_timeout, model, pulling=pulling, call=call
                            ),
                        ):
                            part = next(stream, None)
                    except OllamaError:
                        self._heard(call)
                        if call.reason == "cancelled":  # the broken read is the cancel's doing
                            return
                        raise
                    if check is not None:  # the first part came
                        check.cancel()
                        check = None
                    if part is None or call.cancelled:
                        return
                    call.midway = True
                    self._heard(call)
                    call.expect(None)  # the reader's own pace is no stall
                    yield part
                    call.expect(stall)
            finally:
                if check is not None:
                    check.cancel()
                close = getattr(stream, "close", None)
                if close is not None:
                    close()  # closes the HTTP response, so Ollama stops generating


def _tls_context(trust_env: bool) -> ssl.SSLContext:
    """The TLS settings for a client: httpx's defaults, made once a process.

    Each httpx client otherwise reads the whole CA bundle again (~20 ms of CPU, twice a
    gateway), even for a local Ollama over plain HTTP. A context may serve many clients
    and threads. With ``trust_env``, SSL_CERT_FILE and SSL_CERT_DIR are read as httpx
    reads them; a change to them gets a context of its own.
    """
    where = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    return _made_tls_context(trust_env, *(where if trust_env else (None, None)))


@functools.cache
def _made_tls_context(trust_env: bool, cafile: str | None, capath: str | None) -> ssl.SSLContext:
    """``cafile`` and ``capath`` key the cache only: httpx reads them from the environment."""
    import httpx

    return httpx.create_ssl_context(trust_env=trust_env)
