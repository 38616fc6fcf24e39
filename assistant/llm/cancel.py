"""Cancelling a streamed call: its sockets are shut down as soon as its cancel event is set."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

__all__ = ["CancelWatch"]

_CANCEL_POLL_S = 0.05  # how soon a set cancel event closes the connection


class CancelWatch:
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
