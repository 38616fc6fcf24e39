"""Thread workers that never hold the app open: each runs in a daemon thread.

Textual runs thread workers (and `asyncio.to_thread`) in the event loop's default
executor. The standard one joins its threads when the loop closes and again when Python
exits, so a worker blocked on the network (a hung Ollama) would keep the process alive
long after ctrl+q cleared the screen. `DaemonThreads` runs each job in a daemon thread
and, on shutdown, waits for them only briefly: the engine has already stopped the calls
they wait on, so they end within moments, and none can hold the exit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["DaemonThreads", "exit_past_stragglers", "use_daemon_threads"]

_T = TypeVar("_T")
_SHUTDOWN_WAIT_S = 1.0
_STRAGGLERS_WAIT_S = 0.5


class DaemonThreads(ThreadPoolExecutor):
    """An executor that runs each job in its own daemon thread; shutdown waits briefly.

    A `ThreadPoolExecutor` subclass only because asyncio's `set_default_executor` requires
    one; none of the pool's machinery is used.

    Args:
        shutdown_wait: The most seconds `shutdown(wait=True)` waits for running jobs.
    """

    def __init__(self, shutdown_wait: float = _SHUTDOWN_WAIT_S) -> None:
        super().__init__(thread_name_prefix="hippo-worker")
        self._shutdown_wait = shutdown_wait
        self._running: set[threading.Thread] = set()
        self._guard = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Run `fn(*args, **kwargs)` in a new daemon thread.

        Raises:
            RuntimeError: the executor was shut down.
        """
        future: Future[_T] = Future()
        with self._guard:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            thread = threading.Thread(
                target=self._run, args=(future, fn, args, kwargs), name="hippo-worker", daemon=True
            )
            self._running.add(thread)
        thread.start()
        return future

    def _run(self, future: Future[Any], fn: Callable[..., Any], args: Any, kwargs: Any) -> None:
        try:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to whoever awaits the future
                future.set_exception(exc)
            else:
                future.set_result(result)
        finally:
            with self._guard:
                self._running.discard(threading.current_thread())

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuse new jobs; with `wait`, give running ones a moment to end, no more."""
        with self._guard:
            self._closed = True
            running = list(self._running)
        if not wait:
            return
        deadline = time.monotonic() + self._shutdown_wait
        for thread in running:
            thread.join(max(0.0, deadline - time.monotonic()))


def use_daemon_threads() -> None:
    """Make the running event loop's default executor a `DaemonThreads`."""
    import asyncio

    asyncio.get_running_loop().set_default_executor(DaemonThreads())


def exit_past_stragglers(status: int, wait: float = _STRAGGLERS_WAIT_S) -> None:
    """End the process now with `status` if a thread would keep it alive after the app.

    Python joins every non-daemon thread at exit, so one still busy after the app and
    the engine were closed (a library's pool thread: the nightly sleep's, say, between
    two steps on a hung Ollama) would keep a quit app running. They get `wait` seconds;
    after that, `os._exit`. That is safe here, and only here: every write Hippo makes is
    a committed transaction and the data file survives a kill at any moment (the crash
    tests kill sleep and chat mid-way), the engine is closed, the terminal restored and
    the output flushed; what is skipped is only the waiting.

    Args:
        status: the exit status to end with.
        wait: the most seconds to let busy threads end by themselves.
    """
    import os
    import sys

    deadline = time.monotonic() + wait
    for thread in _stragglers():
        thread.join(max(0.0, deadline - time.monotonic()))
    if _stragglers():
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(status)


def _stragglers() -> list[threading.Thread]:
    here = threading.current_thread()
    return [t for t in threading.enumerate() if t is not here and not t.daemon and t.is_alive()]
