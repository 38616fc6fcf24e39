"""Stopping a call to Ollama at once: on cancel, on a missed deadline, or on `abort`.

Every request the gateway sends runs inside a `Call`, bound to the sending thread. The
call learns its sockets from httpcore's "trace" request extension, which `Calls.attach`
(an httpx request hook) installs. One daemon thread per gateway, its watchdog, sleeps
until the nearest deadline of the calls in flight (or polls their cancel events), shuts a
call's sockets down as soon as a cancel event of it is set or its deadline passes, and
starts what a call asked to run later (`Call.after`) in a thread of its own when it falls
due; `Calls.abort` stops every call at once. Closing a socket does not wake a thread
blocked reading it; shutting it down does, and tells the server that the client left (so
Ollama stops generating).

Calls come one after another (an embedding, then a chat...), so the watchdog outlives its
last call by `_LINGER_S` before it ends (at once if the gateway closes): a run of calls
shares one thread. A call wakes it only to be looked at sooner than it would look anyway:
a deadline moved later (each part of a stream moves it) is found when it wakes.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from assistant.llm.watchdog import Alarm, start

if TYPE_CHECKING:
    import httpx

__all__ = ["Call", "Calls", "Reason"]

_CANCEL_POLL_S = 0.05  # how soon a set cancel event shuts the call's connection
_LINGER_S = 5.0  # how long an idle watchdog waits for the next call before it ends
# The trace events that hand over a connection's stream: plain TCP, then TLS over it.
_CONNECTED = ("connection.connect_tcp.complete", "connection.start_tls.complete")

Reason = Literal["cancelled", "timeout", "aborted"]


class Call:
    """One request (or stream) in flight: its sockets, cancel events and deadline."""

    def __init__(self, cancels: tuple[threading.Event, ...], alarm: Alarm) -> None:
        self._cancels = cancels
        self._alarm = alarm
        self._sockets: list[socket.socket] = []
        self._later: tuple[float, Callable[[], None], str] | None = None  # see `after`
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
        with self._alarm.lock:
            self.waited = seconds or 0.0
            self.deadline = None if seconds is None else time.monotonic() + seconds
            if self.deadline is not None:
                self._alarm.by(self.deadline)

    def after(self, seconds: float, action: Callable[[], None], name: str) -> None:
        """Run `action` in a thread named `name` in `seconds`, unless the call stops or
        ends first; it replaces the action asked for before, if any."""
        with self._alarm.lock:
            at = time.monotonic() + seconds
            self._later = (at, action, name)
            self._alarm.by(at)

    def forget(self) -> None:
        """Drop the action asked for with `after`, unless it has begun."""
        with self._alarm.lock:
            self._later = None

    def trace(self, event: str, info: Mapping[str, Any]) -> None:
        """httpcore's trace callback: keep each socket the call connects."""
        if event not in _CONNECTED:
            return
        sock = info["return_value"].get_extra_info("socket")
        if sock is None:
            return
        with self._alarm.lock:
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

    def look(self, now: float) -> float | None:
        """The watchdog's round, with the lock: stop the call if it must, start its action
        if due; returns when to look at it again (None: only when woken)."""
        if self.reason is not None:
            return None
        reason = self.due(now)
        if reason is not None:
            self.stop(reason)
            return None
        times = [now + _CANCEL_POLL_S] if self.polled else []
        if self.deadline is not None:
            times.append(self.deadline)
        if self._later is not None:
            at, action, name = self._later
            if now >= at:
                self._later = None
                start(action, name)
            else:
                times.append(at)
        return min(times, default=None)


class Calls:
    """The calls of one gateway in flight, and the daemon thread that stops them.

    Args:
        linger: seconds the watchdog waits for the next call, idle, before it ends.
    """

    _bound = threading.local()

    def __init__(self, linger: float = _LINGER_S) -> None:
        self._alarm = Alarm()
        self._wake = self._alarm.lock
        self._calls: set[Call] = set()
        self._watching = False
        self._closed = False  # the watchdog ends as soon as no call is left
        self._left = 0.0  # when a call last ended
        self._linger = linger

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
        call = Call(self.cancels(cancel), self._alarm)
        with self._wake:
            self._calls.add(call)
            self._closed = False
            if not self._watching:
                self._watching = True
                start(self._watch, "ollama-watchdog")
            elif call.polled:
                self._alarm.by(time.monotonic() + _CANCEL_POLL_S)
        try:
            yield call
        finally:
            with self._wake:
                self._calls.discard(call)
                self._left = time.monotonic()
                if self._closed and not self._calls:
                    self._wake.notify()  # the watchdog may end now

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

    def abort(self) -> None:
        """Stop every call in flight now; calls begun later are not affected."""
        with self._wake:
            for call in self._calls:
                call.stop("aborted")

    def close(self) -> None:
        """`abort`, and let the watchdog end once no call is left; a later call restarts it."""
        with self._wake:  # a reentrant lock: `abort` takes it again
            self.abort()
            self._closed = True
            self._wake.notify()

    def _watch(self) -> None:
        """Stop calls that are cancelled or late; ends once idle for the linger, or closed."""
        with self._wake:
            while True:
                now = time.monotonic()
                if not self._calls and (self._closed or now >= self._left + self._linger):
                    break
                # Never sleep past the linger, so that an idle watchdog ends in time.
                look = (self._left if not self._calls else now) + self._linger
                for call in self._calls:
                    when = call.look(now)
                    look = look if when is None else min(look, when)
                self._alarm.sleep(look)
            self._watching = False
            self._alarm.look_by = None


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)
