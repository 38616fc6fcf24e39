"""The HTTP side of the fake: a loopback-only threading server and its request handler.

HTTP/1.1 with keep-alive; streams are NDJSON in chunked transfer encoding, as Ollama's Go
server sends them. Handlers notice a client that hangs up while they wait or stream.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fake_ollama.wire import RecordedRequest, Response, error

__all__ = ["Answer", "LoopbackHTTPServer", "Signals"]

_POLL_S = 0.02  # how often a waiting handler looks for stop(), release() or a hang-up

Answer = Callable[[RecordedRequest], Response]


class Signals:
    """What the server and its handlers share: stop, release, and counts tests wait on."""

    def __init__(self, changed: threading.Condition) -> None:
        self.changed = changed  # notified on every change, for FakeOllama.wait_until
        self.stopping = threading.Event()
        self.release_generation = 0
        self.hanging = 0
        self.disconnects = 0
        self.silent = False  # hold every request unanswered (a hung server)

    def add(self, attribute: str, delta: int) -> None:
        with self.changed:
            setattr(self, attribute, getattr(self, attribute) + delta)
            self.changed.notify_all()


class LoopbackHTTPServer(ThreadingHTTPServer):
    """Binds 127.0.0.1 only; keeps its open connections so that stop can close them."""

    daemon_threads = True

    def __init__(
        self,
        port: int,
        *,
        record: Callable[[RecordedRequest], None],
        answer: Answer,
        signals: Signals,
        verbose: bool = False,
    ) -> None:
        self.record = record
        self.answer = answer
        self.signals = signals
        self.verbose = verbose
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind asks for the FQDN, a reverse DNS lookup that can stall.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client gone between two requests is no error (Ollama logs nothing either).

        Printed, its traceback would land in whichever test's captured stderr is current.
        """
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def close_open_connections(self) -> None:
        """Hang up on every client, so that kept-alive connections stop being answered."""
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with contextlib.suppress(OSError):  # already gone
                sock.shutdown(socket.SHUT_RDWR)


class _ClientLeft(Exception):
    """The client hung up before its reply was complete."""


class _Stopping(Exception):
    """The server is stopping while a reply is held back or being written."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY: without it each whole (non-streamed) reply waits ~40 ms for the
    # client's delayed ACK, which Ollama's own Go server never does.
    disable_nagle_algorithm = True
    server: LoopbackHTTPServer
    server_version = "FakeOllama"
    sys_version = ""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_HEAD(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _serve(self) -> None:
        signals = self.server.signals
        try:
            response = self._receive()
            if response.hang or signals.silent:
                self._hold()
            self._send(response)
        except (_ClientLeft, ConnectionError):
            if not signals.stopping.is_set():  # stop() breaking the pipe is no hang-up
                signals.add("disconnects", 1)
            self._hang_up()
        except _Stopping:
            self._hang_up()

    def _receive(self) -> Response:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        path = self.path.split("?", 1)[0]
        request = RecordedRequest(self.command, path, body, headers)
        self.server.record(request)
        if raw and not isinstance(body, dict):
            return error(400, "invalid JSON request body")
        return self.server.answer(request)

    def _hold(self) -> None:
        """Answer nothing until release() or the end of silence (then go on), stop() or the
        client hanging up."""
        signals = self.server.signals
        generation = signals.release_generation
        silenced = signals.silent
        signals.add("hanging", 1)
        try:
            while signals.release_generation == generation and (signals.silent or not silenced):
                self._pause(_POLL_S)
        finally:
            signals.add("hanging", -1)

    def _pause(self, seconds: float) -> None:
        """Wait, noticing a client that hangs up or a server that stops meanwhile."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self.server.signals.stopping.is_set():
                raise _Stopping
            readable, _, _ = select.select([self.connection], [], [], min(left, _POLL_S))
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                raise _ClientLeft

    def _send(self, response: Response) -> None:
        if response.lines is not None:
            self._send_lines(response)
            return
        if response.text is not None:
            payload, kind = response.text.encode(), "text/plain; charset=utf-8"
        else:
            payload, kind = json.dumps(response.body).encode(), "application/json; charset=utf-8"
        self.send_response(response.status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if response.drop:
            self.wfile.write(payload[: len(payload) // 2])
            self._hang_up()
            return
        self.wfile.write(payload)

    def _send_lines(self, response: Response) -> None:
        lines = response.lines or []
        last = len(lines) - 1
        # A drop writes about half the lines, never the final one, and no closing chunk.
        cut = max(min(1, last), last // 2) if response.drop else len(lines)
        self.send_response(response.status)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index, line in enumerate(lines[:cut]):
            if index and response.delay:
                self._pause(response.delay)
            if response.stall and index == response.stall_after:
                self._pause(response.stall)
            data = json.dumps(line).encode() + b"\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        if response.drop:
            self._hang_up()
            return
        self.wfile.write(b"0\r\n\r\n")
        if response.on_complete is not None:
            response.on_complete()

    def _hang_up(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):  # the client already left
            self.connection.shutdown(socket.SHUT_RDWR)
