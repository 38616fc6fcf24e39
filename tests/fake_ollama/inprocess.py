"""The fake answering in the test's own process: an httpx transport, no socket, no thread.

For tests whose subject is not the network: the injection corpus sends ~6,800 requests a
run, and each one over loopback HTTP (a connection, a server thread, HTTP parsing on both
sides) cost ~2 ms of CPU more than answering it here. Requests are recorded and routed
exactly as the HTTP server does (`OllamaServer._answer`). What needs a connection (a
hang, a drop, a stall, a delay between lines, a held stream, junk, a silent server) stays
the HTTP server's: asked of this transport, it fails the test loudly instead of acting
differently.

    gateway = OllamaGateway(fake.host, transport=fake.transport())
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from tests.fake_ollama.transport import Signals
from tests.fake_ollama.wire import RecordedRequest, Response, error

__all__ = ["InProcessTransport"]


class InProcessTransport(httpx.BaseTransport):
    """Answers each request with the server's own routing, in the calling thread.

    Args:
        record: Keeps a request (the server's list of requests).
        answer: The server's answer to a request.
        signals: The server's shared state (whether it is silent).
        running: Whether the server is started (a stopped one refuses connections).
        refused: Where each refusal is noted too, for the fixture to fail the test on
            even where the engine catches the error (a background thread logs it).
    """

    def __init__(
        self,
        record: Callable[[RecordedRequest], None],
        answer: Callable[[RecordedRequest], Response],
        signals: Signals,
        running: Callable[[], bool],
        refused: list[str],
    ) -> None:
        self._record = record
        self._answer = answer
        self._signals = signals
        self._running = running
        self._refused = refused

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """The server's answer to ``request``, as an HTTP response."""
        if not self._running():
            raise httpx.ConnectError("the fake Ollama is stopped: connection refused")
        raw = request.read()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {key.lower(): value for key, value in request.headers.items()}
        recorded = RecordedRequest(request.method, request.url.path, body, headers)
        self._record(recorded)
        if raw and not isinstance(body, dict):
            response = error(400, "invalid JSON request body")
        else:
            response = self._answer(recorded)
        refusal = _what_needs_a_connection(response, silent=self._signals.silent)
        if refusal:
            self._refused.append(refusal)
            raise AssertionError(refusal)
        return _http_response(response, request)


def _what_needs_a_connection(response: Response, *, silent: bool) -> str:
    """Why the response can't be acted out in process ('' when it can)."""
    needs = {
        "a silent server": silent,
        "a hang": response.hang,
        "a drop": response.drop,
        "junk": response.junk,
        "a delay between lines": response.delay > 0,
        "a stall": response.stall > 0,
        "a held stream": response.hold_after is not None,
    }
    asked = [what for what, wanted in needs.items() if wanted]
    if not asked:
        return ""
    return (
        f"the in-process fake can't act out {', '.join(asked)}: use the fake over HTTP "
        "(an OllamaGateway without transport=) in this test"
    )


def _http_response(response: Response, request: httpx.Request) -> httpx.Response:
    content, kind = _payload(response)
    if response.on_complete is not None:
        response.on_complete()  # as the server does once all of it is written
    if request.method == "HEAD":
        content = b""
    return httpx.Response(
        response.status, headers={"Content-Type": kind}, content=content, request=request
    )


def _payload(response: Response) -> tuple[bytes, str]:
    lines: Any = response.generated if response.generated is not None else response.lines
    if lines is not None:
        data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        return data, "application/x-ndjson"
    if response.text is not None:
        return response.text.encode(), "text/plain; charset=utf-8"
    return json.dumps(response.body).encode(), "application/json; charset=utf-8"
