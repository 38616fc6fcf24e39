"""The parts of a gateway's watchdog (see `cancel`) that know nothing of calls.

`Alarm` is what the watchdog sleeps on: it is woken only to look sooner than it would
anyway. `start` starts the watchdog and what it runs later, and counts them: `tally`
tells tests (and anyone curious) how many threads and wake-ups the calls cost.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["Alarm", "Tally", "start", "tally"]


class Tally(NamedTuple):
    """What the watchdogs of this process have done so far."""

    threads: int
    """Threads started: watchdogs, and the actions they ran (liveness checks)."""
    rounds: int
    """Times a watchdog woke (notified, or at the end of its nap) to look at its calls."""


class _Counts:
    """The process's `Tally`, counted under a lock of its own (watchdogs run in parallel)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.threads = 0
        self.rounds = 0

    def thread(self) -> None:
        with self._lock:
            self.threads += 1

    def round(self) -> None:
        with self._lock:
            self.rounds += 1


_counts = _Counts()


def tally() -> Tally:
    """What the watchdogs of this process have done so far (for tests and diagnostics)."""
    return Tally(_counts.threads, _counts.rounds)


def start(target: Callable[[], None], name: str) -> None:
    """Run `target` in a new daemon thread named `name`."""
    _counts.thread()
    threading.Thread(target=target, name=name, daemon=True).start()


class Alarm:
    """The lock a gateway's calls change under, and when their watchdog looks at them next."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.look_by: float | None = None
        """When the watchdog wakes at the latest (None: not running, or not yet asleep)."""

    def by(self, when: float) -> None:
        """Have the watchdog look by `when` (a `time.monotonic()`), waking it if it would
        sleep longer. Call with the lock."""
        if self.look_by is None or when < self.look_by:
            self.look_by = when
            self.lock.notify()

    def sleep(self, until: float) -> None:
        """The watchdog's nap, with the lock: till `until` (a `time.monotonic()`), or
        sooner if `by` needs it."""
        self.look_by = until
        self.lock.wait(max(until - time.monotonic(), 0.0))
        _counts.round()
