"""Stopping a call to Ollama at once: on cancel, on a missed deadline, or on `abort`.

Every request the gateway sends runs inside a `Call`, bound to the sending thread. The
call learns its sockets from httpcore's "trace" request extension, which `Calls.attach`
(an httpx request hook) installs. One daemon thread per gateway watches the calls in
flight and shuts a call's sockets down as soon as a cancel event of it is set or its
deadline passes; `Calls.abort` does it to every call at once. Closing a socket does not
wake a thread blocked reading it; shutting it down does, and tells the server that the
client left (so Ollama stops generating).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import httpx

__all__ = ["Call", "Calls", "Reason"]

_CANCEL_POLL_S = 0.05  # how soon a set cancel event shuts the call's connection
# The trace events that hand over a connection's stream: plain TCP, then TLS over it.
_CONNECTED = ("connection.connect_tcp.complete", "connection.start_tls.complete")

Reason = Literal["cancelled", "timeout", "aborted"]


class Call:
    """One request (or stream) in flight: its sockets, cancel events and deadline."""

    def __init__(self, cancels: tuple[threading.Event, ...], wake: threading.Condition) -> None:
        self._cancels = cancels
        self._wake = wake
        self._sockets: list[socket.socket] = []
        self.deadline: float | None = None
        self.waited = 0.0  # the seconds of the last `expect`, for messages
        self.midway = False  # an answer has begun: a later silence is a stall
        self.hurried = False  # its first wait was cut short: the host was silent before
        self.unresponsive = False  # stopped as the host did not answer a liveness check
        self.reason: Reason | None = None
        """Why the call was stopped, once it was (None: it was not)."""

    @property
    def cancelled(self) -> bool:
        """Whether one of the call's cancel events is set."""
        return any(event.is_set() for event in self._cancels)

    @property
    def polled(self) -> bool:
        """Whether the watchdog must look at the call often (it has cancel events)."""
        return bool(self._cancels)

    def expect(self, seconds: float | None) -> None:
        """Stop the call unless the next answer comes within `seconds` (None: no limit)."""
        with self._wake:
            self.waited = seconds or 0.0
            self.deadline = None if seconds is None else time.monotonic() + seconds
            self._wake.notify_all()

    def trace(self, event: str, info: Mapping[str, Any]) -> None:
        """httpcore's trace callback: keep each socket the call connects."""
        if event not in _CONNECTED:
            return
        sock = info["return_value"].get_extra_info("socket")
        if sock is None:
            return
        with self._wake:
            self._sockets.append(sock)
            stopped = self.reason is not None
        if stopped:  # stopped while connecting
            _shut(sock)

    def stop(self, reason: Reason) -> None:
        """Shut the call's sockets down; the first reason given is kept. Call with the lock."""
        if self.reason is None:
            self.reason = reason
        for sock in self._sockets:
            _shut(sock)

    def due(self, now: float) -> Reason | None:
        """Why the call must stop now, if it must."""
        if self.cancelled:
            return "cancelled"
        if self.deadline is not None and now >= self.deadline:
            return "timeout"
        return None


class Calls:
    """The calls of one gateway in flight, and the daemon thread that stops them."""

    _bound = threading.local()

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._calls: set[Call] = set()
        self._watching = False

    @classmethod
    def attach(cls, request: httpx.Request) -> None:
        """An httpx request hook: route the request's connections to the thread's call."""
        call = getattr(cls._bound, "call", None)
        if call is not None:
            request.extensions = {**request.extensions, "trace": call.trace}

    @classmethod
    @contextlib.contextmanager
    def stopping_on(cls, cancel: threading.Event) -> Iterator[None]:
        """Let `cancel` stop every call this thread makes meanwhile, as well as its own."""
        previous = getattr(cls._bound, "cancels", ())
        cls._bound.cancels = (*previous, cancel)
        try:
            yield
        finally:
            cls._bound.cancels = previous

    @classmethod
    def cancels(cls, cancel: threading.Event | None = None) -> tuple[threading.Event, ...]:
        """`cancel` and the events this thread's calls stop on (see `stopping_on`)."""
        return (*getattr(cls._bound, "cancels", ()), *((cancel,) if cancel else ()))

    @contextlib.contextmanager
    def call(self, cancel: threading.Event | None = None) -> Iterator[Call]:
        """A call in flight while the block runs; `bound` routes requests to it.

        Args:
            cancel: an event that stops the call once set (the thread's `stopping_on`
                events stop it too).
        """
        cancels = self.cancels(cancel)
        call = Call(cancels, self._wake)
        with self._wake:
            self._calls.add(call)
            if not self._watching:
                self._watching = True
                threading.Thread(target=self._watch, name="ollama-watchdog", daemon=True).start()
            self._wake.notify_all()
        try:
            yield call
        finally:
            with self._wake:
                self._calls.discard(call)
                self._wake.notify_all()

    @contextlib.contextmanager
    def bound(self, call: Call) -> Iterator[None]:
        """Route requests sent from this thread meanwhile to `call`."""
        previous = getattr(self._bound, "call", None)
        self._bound.call = call
        try:
            yield
        finally:
            self._bound.call = previous

    def stop(self, call: Call, reason: Reason) -> None:
        """Stop one call now."""
        with self._wake:
            call.stop(reason)
            self._wake.notify_all()

    def abort(self) -> None:
        """Stop every call in flight now; calls begun later are not affected."""
        with self._wake:
            for call in self._calls:
                call.stop("aborted")
            self._wake.notify_all()

    def _watch(self) -> None:
        """Stop calls that are cancelled or late; ends when no call is left."""
        with self._wake:
            while self._calls:
                now = time.monotonic()
                wait: float | None = None
                for call in self._calls:
                    if call.reason is not None:
                        continue
                    reason = call.due(now)
                    if reason is not None:
                        call.stop(reason)
                        continue
                    if call.polled:
                        wait = _CANCEL_POLL_S if wait is None else min(wait, _CANCEL_POLL_S)
                    if call.deadline is not None:
                        left = call.deadline - now
                        wait = left if wait is None else min(wait, left)
                self._wake.wait(wait)
            self._watching = False


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)
