"""Failures of the `ollama` client or the network, turned into `assistant.errors` errors.

No `httpx` or `ollama` exception leaves the gateway; each becomes one `OllamaError`::

    ollama.ResponseError (error status)      -> OllamaAuthError (401, 403), ModelNotFound,
                                                or OllamaResponseError with advice
    httpx.ConnectError/ConnectTimeout,
    ConnectionError                          -> OllamaUnreachable (refused, no such host, ...)
    other httpx.TimeoutException,
    a call stopped at its deadline           -> OllamaTimeout: no answer (or no more) in time
    a call cancelled or aborted              -> OllamaStopped
    httpx.ReadError/WriteError/
    RemoteProtocolError                      -> OllamaResponseError: stopped mid-way
    other httpx.HTTPError                    -> OllamaResponseError
    bad JSON, a response that fails to parse -> OllamaResponseError: unreadable reply

Anything else (a bug, not a failure of Ollama) propagates unchanged. The gateway wraps
each request in `translated`, naming its host; the other functions build the errors it
raises itself.

Like the gateway, this module imports `httpx` (and `pydantic`) only once a failure happens.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from assistant.errors import (
    ModelNotFound,
    OllamaAuthError,
    OllamaError,
    OllamaResponseError,
    OllamaStopped,
    OllamaTimeout,
    OllamaUnreachable,
)

if TYPE_CHECKING:
    from assistant.llm.cancel import Call

__all__ = [
    "error_text",
    "mid_way",
    "status_error",
    "stopped",
    "timed_out",
    "translated",
    "unreadable",
]


@contextlib.contextmanager
def translated(
    host: str,
    connect_timeout: float,
    model: str = "",
    *,
    pulling: bool = False,
    call: Call | None = None,
) -> Iterator[None]:
    """Turn any failure of the client or the network into one `OllamaError`.

    Args:
        host: the Ollama host asked, to name in messages.
        connect_timeout: the connect limit in use, to name when a connection timed out.
        model: the model asked for, to name in messages.
        pulling: the request is a download.
        call: the call the request runs in: a call stopped by its deadline, a cancel
            or an abort fails as `OllamaTimeout` or `OllamaStopped`, whatever the
            broken read raised.
    """
    try:
        yield
    except OllamaError:
        raise
    except Exception as exc:
        error = stopped(host, call, model, pulling) if call and call.reason else None
        if error is None:
            error = _domain_error(host, connect_timeout, exc, model, pulling, call)
        if error is None:
            raise
        raise error from exc


def stopped(host: str, call: Call, model: str, pulling: bool) -> OllamaError:
    """The error for a call the gateway stopped itself."""
    if call.reason == "timeout":
        return timed_out(
            host, call.waited, model, call.midway, pulling, call.hurried, call.unresponsive
        )
    why = "it was cancelled" if call.reason == "cancelled" else "Hippo is closing"
    return OllamaStopped(f"Hippo stopped its request to Ollama at {host}: {why}.", host=host)


def timed_out(
    host: str,
    waited: float,
    model: str,
    midway: bool,
    pulling: bool = False,
    hurried: bool = False,
    unresponsive: bool = False,
) -> OllamaTimeout:
    """The error for an answer that did not come (or go on) within `waited` seconds.

    `hurried`: the wait was cut short because the host had left a request unanswered;
    `unresponsive`: it was stopped as the host did not answer a liveness check either.
    """
    if unresponsive:
        text = (
            f"Ollama at {host} took the request but sent nothing for {waited:.0f} s, "
            "and did not answer a check of its version either: it seems stuck. Restart "
            "it (`ollama serve`) and try again."
        )
    elif midway:
        what = "the download" if pulling else "the reply"
        text = (
            f"Ollama at {host} stopped sending {what}: nothing came for {waited:g} s. "
            "It may be stuck or out of memory: check its log (the `ollama serve` output) "
            "and try again"
            + (", to resume the download." if pulling else
               ", or raise stall_timeout under [ollama] in config.toml.")
        )  # fmt: skip
    elif model and not pulling and not hurried:
        text = (
            f"Ollama at {host} did not answer within {waited:g} s. It may still be "
            f"loading {model} (a large model can take minutes: raise load_timeout under "
            "[ollama] in config.toml), or it is stuck: restart it (`ollama serve`) and "
            "try again."
        )
    else:
        earlier = " (nor the one before)" if hurried else ""
        text = (
            f"Ollama at {host} took the request but did not answer within {waited:g} "
            f"s{earlier}. It may be stuck or overloaded: restart it (`ollama serve`) and "
            "try again, or check that OLLAMA_HOST points at Ollama."
        )
    return OllamaTimeout(text, host=host, waited=waited, midway=midway)


def _domain_error(
    host: str,
    connect_timeout: float,
    exc: Exception,
    model: str,
    pulling: bool,
    call: Call | None = None,
) -> OllamaError | None:
    import httpx
    import pydantic

    ollama = sys.modules.get("ollama")  # raised its errors only if already imported
    if ollama is not None and isinstance(exc, ollama.ResponseError):
        return status_error(host, exc.status_code, exc.error, model, pulling=pulling)
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | ConnectionError):
        return OllamaUnreachable(host, _connect_detail(exc, connect_timeout))
    if isinstance(exc, httpx.TimeoutException):  # the watchdog is first, as a rule
        waited = call.waited if call is not None else 0.0
        return timed_out(
            host, waited, model, bool(call and call.midway), pulling, bool(call and call.hurried)
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return mid_way(host, _first_line(exc), pulling=pulling)
    if isinstance(exc, httpx.HTTPError):
        return OllamaResponseError(
            f"Talking to Ollama at {host} failed: {_first_line(exc)}.", host=host
        )
    if isinstance(exc, json.JSONDecodeError) or (
        isinstance(exc, pydantic.ValidationError) and exc.title.endswith("Response")
    ):
        return unreadable(host, _first_line(exc))
    return None


def status_error(
    host: str, status: int, text: str, model: str = "", *, pulling: bool = False
) -> OllamaError:
    """The error for an answer with an error status (-1: an error line in a stream)."""
    text = (text or "").strip() or "no details"
    lowered = text.lower()
    if status in (401, 403):
        return OllamaAuthError(host, status)
    code = status if status > 0 else None
    if pulling and ("does not exist" in lowered or "not found" in lowered):
        return OllamaResponseError(
            f"Ollama at {host} could not pull '{model}': {text}. Check the name at "
            "https://ollama.com/search.",
            host=host,
            status=code,
        )
    if model and "model" in lowered and "not found" in lowered:
        return ModelNotFound(model, host)
    if status == 404:
        return OllamaResponseError(
            f"Ollama at {host} does not offer this request (HTTP 404: {text}). Update "
            "Ollama from https://ollama.com/download, or check that OLLAMA_HOST points at it.",
            host=host,
            status=404,
        )
    where = f"HTTP {status}" if code else "in the stream"
    return OllamaResponseError(
        f"Ollama at {host} answered with an error ({where}): {text}. " + _advice(lowered, status),
        host=host,
        status=code,
    )


def mid_way(host: str, detail: str, *, pulling: bool = False) -> OllamaResponseError:
    """The error for a reply or download that stopped before its end."""
    what, then = (
        ("the download", "Pull again to resume it.")
        if pulling
        else ("the reply", "Check its log (the `ollama serve` output) and try again.")
    )
    return OllamaResponseError(
        f"Ollama at {host}: {what} stopped mid-way ({detail}). Ollama may have "
        f"crashed or run out of memory. {then}",
        host=host,
    )


def unreadable(host: str, detail: str) -> OllamaResponseError:
    """The error for an answer that is not what Ollama sends."""
    return OllamaResponseError(
        f"Ollama at {host} sent a reply Hippo cannot read ({detail}). Check that "
        "OLLAMA_HOST points at an Ollama server, and update Ollama if it is old.",
        host=host,
    )


def _connect_detail(exc: BaseException, connect_timeout: float) -> str:
    import httpx

    for link in _causes(exc):
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        if isinstance(link, socket.gaierror):
            return "host name not found"
        if isinstance(link, TimeoutError | httpx.ConnectTimeout):
            return f"no answer within {connect_timeout:g} s"
    return _first_line(exc)


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


def error_text(body: str) -> str:
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
