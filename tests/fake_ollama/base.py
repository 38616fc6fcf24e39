"""What every Ollama-protocol test server shares: lifecycle, recording, auth and failures.

`FakeOllama` (scripted replies) and `tests.real_ollama.RealOllama` (a real small model)
both build on `OllamaServer`; each answers the routes it serves in `_route`:

    class MyServer(OllamaServer):
        def _route(self, method, path, body):
            return Response(body={"version": "0.12.6"})
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Self

from tests.fake_ollama.inprocess import InProcessTransport
from tests.fake_ollama.ports import bind_outside_ephemeral
from tests.fake_ollama.transport import LoopbackHTTPServer, Signals
from tests.fake_ollama.wire import FAILURE_KINDS, RecordedRequest, Response, error

__all__ = ["ANSWERED_AT_ONCE", "OllamaServer"]

ANSWERED_AT_ONCE = ("500", "not_found", "unauthorized")


class OllamaServer:
    """An Ollama-protocol server on 127.0.0.1, started in a daemon thread.

    Args:
        port: The port to bind; 0 picks a free one below the kernel's ephemeral range
            (`tests.fake_ollama.ports`), kept across `stop()` and `start()`.
        verbose: Log each request to stderr.
    """

    def __init__(self, *, port: int = 0, verbose: bool = False) -> None:
        self.host = ""
        self.verbose = verbose
        self._port = port
        self._lock = threading.Condition()  # guards the state below; notified on each change
        self._signals = Signals(self._lock)
        self._failures: dict[str, deque[str]] = {}
        self._requests: list[RecordedRequest] = []
        self._token: str | None = None
        self.refused: list[str] = []  # what the in-process transport could not act out
        self._httpd: LoopbackHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> str:
        """Start serving in a daemon thread.

        Returns:
            The host URL, "http://127.0.0.1:PORT" (also in `host`).
        """
        if self._thread is not None:
            raise RuntimeError(f"{type(self).__name__} is already running")
        self._signals.stopping.clear()

        def serve_on(port: int) -> LoopbackHTTPServer:
            return LoopbackHTTPServer(
                port,
                record=self._record,
                answer=self._answer,
                signals=self._signals,
                verbose=self.verbose,
            )

        # Its own port, first time (see `ports`); the same one again after a stop().
        self._httpd = serve_on(self._port) if self._port else bind_outside_ephemeral(serve_on)
        self._port = self._httpd.server_address[1]
        self.host = f"http://127.0.0.1:{self._port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            # stop() waits for the loop to look: 5 ms (a few µs of CPU each look) instead of
            # 50 ms saves ~50 ms of every test that uses the fake (~20 s a run).
            kwargs={"poll_interval": 0.005},
            name=f"ollama-{self._port}",
            daemon=True,
        )
        self._thread.start()
        return self.host

    def stop(self) -> None:
        """Stop serving: new connections are refused and open ones are closed."""
        if self._httpd is None or self._thread is None:
            return
        self._signals.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        # Kept-alive connections would otherwise go on being answered after stop().
        self._httpd.close_open_connections()
        self._thread.join()
        self._httpd = self._thread = None
        with self._lock:
            self._lock.notify_all()

    def transport(self) -> InProcessTransport:
        """An httpx transport that answers here, in the caller's thread, as the server would.

        For tests whose subject is not the network (see `tests.fake_ollama.inprocess`):
        ``OllamaGateway(server.host, transport=server.transport())``.
        """
        return InProcessTransport(
            self._record,
            self._answer,
            self._signals,
            lambda: self._httpd is not None,
            self.refused,
        )

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- scripting ---------------------------------------------------------------------------

    def fail_next(self, path: str, kind: str, count: int = 1) -> None:
        """Make the next `count` requests to `path` fail.

        Args:
            path: e.g. "/api/chat".
            kind: "500", "drop" (cut the reply mid-way and close the connection), "hang" (no
                answer until `release()` or `stop()`), "junk" (a 200 that is not JSON: a
                proxy's error page, a stream line cut short), "not_found" (404 model not
                found) or "unauthorized" (401).
            count: How many requests in a row.

        Raises:
            ValueError: An unknown `kind`.
        """
        if kind not in FAILURE_KINDS:
            raise ValueError(f"unknown failure kind {kind!r}; use one of {sorted(FAILURE_KINDS)}")
        with self._lock:
            self._failures.setdefault(path, deque()).extend([kind] * count)

    def fall_silent(self) -> None:
        """Hang as a stuck server does: accept every request and answer none of them.

        Requests are held until `answer_again()` (then answered), `stop()` or the client
        hanging up; `hanging` counts them.
        """
        with self._lock:
            self._signals.silent = True
            self._lock.notify_all()

    def answer_again(self) -> None:
        """End `fall_silent`: the held requests and the new ones are answered."""
        with self._lock:
            self._signals.silent = False
            self._lock.notify_all()

    def require_token(self, token: str | None) -> None:
        """Answer 401 to requests without "Authorization: Bearer <token>" (None: no check)."""
        with self._lock:
            self._token = token

    def release(self) -> None:
        """Let the requests hanging now go on, to be answered normally."""
        with self._lock:
            self._signals.release_generation += 1
            self._lock.notify_all()

    # -- observing -------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def hanging(self) -> int:
        """How many requests are being held back now."""
        with self._lock:
            return self._signals.hanging

    @property
    def disconnects(self) -> int:
        """How many times a client hung up before its reply was complete."""
        with self._lock:
            return self._signals.disconnects

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
        """Block until `predicate()` holds, checked on every change: a sleep-free wait.

        The timeout only bounds a failing test, so it is generous for a busy machine.

        Returns:
            Whether it held within `timeout` seconds.
        """
        with self._lock:
            return self._lock.wait_for(predicate, timeout)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self._lock.notify_all()

    # -- answering ---------------------------------------------------------------------------

    def _answer(self, request: RecordedRequest) -> Response:
        body = request.body or {}
        with self._lock:
            token = self._token
            queue = self._failures.get(request.path)
            kind = queue.popleft() if queue else None
        if token is not None and request.headers.get("authorization") != f"Bearer {token}":
            return error(401, "unauthorized")
        if kind in ANSWERED_AT_ONCE:
            return self._failure(kind, body)
        response = self._route(request.method, request.path, body)
        response.hang = response.hang or kind == "hang"
        response.drop = response.drop or kind == "drop"
        response.junk = response.junk or kind == "junk"
        return response

    def _route(self, method: str, path: str, body: dict[str, Any]) -> Response:
        """The answer to one request; each server says what it serves."""
        raise NotImplementedError

    @staticmethod
    def _failure(kind: str, body: Mapping[str, Any]) -> Response:
        if kind == "500":
            return error(500, "an internal error occurred (scripted by the test server)")
        if kind == "unauthorized":
            return error(401, "unauthorized")
        return error(404, f"model '{body.get('model', '')}' not found")
