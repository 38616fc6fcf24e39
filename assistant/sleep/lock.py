"""One consolidation at a time per data file, across processes, and never stuck for good.

The lock is a row in the data file itself (so it follows the file, wherever it lives). Its
holder refreshes a heartbeat as it works; another process takes the lock over when the
heartbeat is older than the time to live, or at once when the holder ran on this machine
and its process is gone. Each step is one statement, so two processes racing for the lock
never both win.
"""

from __future__ import annotations

import os
import socket
import sys
import uuid
from datetime import timedelta
from types import TracebackType

from assistant.clock import Clock, to_iso
from assistant.memory.sleep_runs import LockHolder, LockTable
from assistant.sleep.errors import SleepError, SleepLocked

__all__ = ["LockHolder", "SleepLock", "process_alive"]


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (True where it can't be told)."""
    if sys.platform == "win32":
        return True  # os.kill would terminate it there; the heartbeat covers Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


class SleepLock:
    """The consolidation lock of one data file.

    Args:
        table: the lock's row in the data file.
        clock: the time source for heartbeats.
        ttl_s: a holder silent for this long is presumed dead.
        name: the lock's name (one per job kind).
        pid: this process's id (for tests).
        host: this machine's name (for tests).
    """

    def __init__(
        self,
        table: LockTable,
        clock: Clock,
        ttl_s: float = 900,
        *,
        name: str = "sleep",
        pid: int | None = None,
        host: str | None = None,
    ) -> None:
        self._table = table
        self._clock = clock
        self._ttl = timedelta(seconds=ttl_s)
        self.name = name
        self.pid = os.getpid() if pid is None else pid
        self.host = socket.gethostname() if host is None else host
        self.owner = f"{self.host}:{self.pid}:{uuid.uuid4().hex[:8]}"
        self.held = False

    def holder(self) -> LockHolder | None:
        """Who holds the lock now, if anyone."""
        return self._table.holder(self.name)

    def acquire(self) -> None:
        """Take the lock, or take it over from a dead holder.

        Raises:
            SleepLocked: a live process holds it.
        """
        now = self._clock.now()
        if self._table.take_free(self.name, self.owner, self.pid, self.host, now):
            self.held = True
            return
        current = self.holder()
        if current is None:  # freed between the two statements: try again
            return self.acquire()
        if not self._is_dead(current):
            raise SleepLocked(current.owner, to_iso(current.acquired_at))
        if not self._table.take_over(
            self.name, current.owner, self.owner, self.pid, self.host, now
        ):
            raise SleepLocked("another process", "just now")  # it took the lock over first
        self.held = True

    def _is_dead(self, current: LockHolder) -> bool:
        if self._clock.now() - current.heartbeat_at > self._ttl:
            return True
        same_machine = current.host == self.host and current.pid != self.pid
        return same_machine and not process_alive(current.pid)

    def beat(self) -> None:
        """Refresh the heartbeat.

        Raises:
            SleepError: the lock was taken over (this holder was presumed dead).
        """
        if not self._table.beat(self.name, self.owner, self._clock.now()):
            self.held = False
            raise SleepError(
                "Another process took over the consolidation lock (this run was silent for "
                "too long); stopping here. Raise [sleep] lock_ttl_s if model calls are slow."
            )

    def release(self) -> None:
        """Give the lock back (a no-op if it is not held)."""
        if self.held:
            self._table.release(self.name, self.owner)
            self.held = False

    def __enter__(self) -> SleepLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
