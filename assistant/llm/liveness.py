"""Telling a model that loads slowly from a host that is stuck, while a call waits.

Ollama answers its version at once even while it loads a model, so a host that can't
answer it either is stuck: waiting out the whole load timeout would only delay the news.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from assistant.errors import OllamaError, OllamaTimeout
from assistant.llm.cancel import Call

__all__ = ["LivenessCheck"]

_THREAD = "ollama-liveness"  # the name of the thread that runs a check


class LivenessCheck:
    """While `call` waits for its first byte, asks the host for its version every `every`
    seconds; if the host can't answer, the call is stopped at once.

    The call's watchdog starts a thread for the (blocking) check only when one falls due
    (`Call.after`): most calls have their first byte long before.

    Args:
        call: the waiting call.
        probe: asks for the version within the connect timeout; raises `OllamaError`.
        every: seconds between checks (the connect timeout).
        stop: stops the call (as a missed deadline).
    """

    def __init__(
        self,
        call: Call,
        probe: Callable[[], object],
        every: float,
        stop: Callable[[Call], None],
    ) -> None:
        self._call, self._probe, self._every, self._stop = call, probe, every, stop
        self._started = time.monotonic()
        self._over = False
        call.after(every, self._check, _THREAD)

    def cancel(self) -> None:
        """The first byte came, or the call ended: no more checks."""
        self._over = True
        self._call.forget()

    def _check(self) -> None:
        call = self._call
        if self._over or call.midway or call.reason is not None:
            return
        try:
            self._probe()
        except OllamaTimeout:
            if not (self._over or call.midway):
                call.unresponsive = True
                call.waited = time.monotonic() - self._started
                self._stop(call)
            return
        except OllamaError:
            pass  # it answered, if badly: the call's own wait decides
        except RuntimeError:  # httpx: the gateway was closed meanwhile, so is the call
            return
        if not self._over:
            call.after(self._every, self._check, _THREAD)
