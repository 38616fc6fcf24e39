"""Where a reply's thread leaves its events for the chat screen, which takes them in batches.

A model streams a token every few milliseconds. Posting each to the UI thread wakes its
event loop and dispatches a message per token, which at 100 tokens a second costs as
much as drawing the reply. The thread instead leaves events here and wakes the screen
only when no take is due already; the screen takes all that has arrived at most
`TAKE_RATE` times a second, about as often as a reply is drawn (taking more often
would show nothing sooner). Only pieces of text wait for a take: any other event (the
reply's end above all) wakes the screen at once.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

__all__ = ["TAKE_RATE", "TurnInbox"]

TAKE_RATE = 15
"""The most times a second the screen takes what the reply's thread left."""

T = TypeVar("T")


class TurnInbox(Generic[T]):
    """Events left by one thread, taken in order, in batches, by another."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[T] = []
        self._called = False

    def put(self, item: T) -> bool:
        """Leave ``item``; return whether the taker must be woken (no take is due yet)."""
        with self._lock:
            self._items.append(item)
            wake = not self._called
            self._called = True
            return wake

    def take(self) -> list[T]:
        """All that was left, oldest first; the next `put` wakes the taker again."""
        with self._lock:
            items, self._items = self._items, []
            self._called = False
            return items
