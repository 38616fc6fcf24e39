"""Starting Hippo in two steps: Ollama's door from the settings alone, then the engine.

Whether Ollama is up needs no data file: the app asks as soon as its first frame is
drawn, while the engine's modules load and the file opens in another thread, and the
engine then takes the same gateway (one client, one host, one record of whether the
host has gone silent). The engine's modules are imported by ``Starter.open_engine``, so
the probe never waits for them.

A local Ollama (plain http on this machine) is asked over the standard library until
the engine is open (`assistant.llm.version`): the gateway's `httpx` client costs about
half a second to import and build on a busy machine, competing with the engine's
imports, and the status line would wait for it. Measured with bench/startup.py.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from assistant.errors import ConfigError, OllamaResponseError, OllamaTimeout
from assistant.gateways import open_gateway
from assistant.llm.hosts import resolve_host
from assistant.llm.version import ask_version, quick_probe_fits
from assistant.secrets import load_token

if TYPE_CHECKING:
    from assistant.clock import Clock
    from assistant.config import Config
    from assistant.encryption import StepProgress
    from assistant.engine import Hippo
    from assistant.llm.backend import ChatBackend

__all__ = ["Starter"]


def _local_host(config: Config) -> str | None:
    """The host to probe over the standard library: a local plain-http one, else None.

    A host that is not a valid address is left to the gateway, which says what is wrong.
    """
    try:
        host = resolve_host(config.ollama.host)
    except ConfigError:
        return None
    return host if quick_probe_fits(host) else None


class Starter:
    """Opens Ollama's gateway at once and the engine later, over that same gateway.

    Args:
        config: the settings to start with.

    Thread safety: ``probe`` and ``open_engine`` may run in different threads; the
    gateway is made once, under a lock.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self._quick_host = _local_host(config)
        self._lock = threading.Lock()
        self._gateway: ChatBackend | None = None
        self._engine: Hippo | None = None

    @property
    def gateway(self) -> ChatBackend:
        """The gateway to Ollama, made on first use."""
        with self._lock:
            if self._gateway is None:
                self._gateway = open_gateway(self.config)
            return self._gateway

    def probe(self) -> str:
        """Ollama's version (the cheapest proof that it is up), without the data file.

        Once the engine is open, asked through it: the engine may have been given
        another gateway since (a token typed for the host). Before, a local host is
        asked over the standard library, which needs nothing loaded or built first.

        Raises:
            OllamaError: the host can't be reached or answered badly.
        """
        if (engine := self._engine) is not None:
            return engine.host.probe()
        if (host := self._quick_host) is not None:
            token = load_token(host, use_keyring=False)
            try:
                return ask_version(host, self.config.ollama.connect_timeout, token)
            except OllamaTimeout:
                raise  # asking again through the gateway would wait as long again
            except OllamaResponseError:
                pass  # an answer this short reader doesn't follow: the gateway's client may
        return self.gateway.probe()

    def open_engine(
        self, *, clock: Clock | None = None, progress: StepProgress | None = None
    ) -> Hippo:
        """Open the data file and the engine over this starter's gateway (see
        ``assistant.factory.open_engine``)."""
        from assistant.factory import open_engine

        self._engine = open_engine(self.config, clock=clock, progress=progress,
                                   gateway=self.gateway)  # fmt: skip
        return self._engine

    def close(self) -> None:
        """Close the gateway if no engine took it (an engine closes its own)."""
        with self._lock:
            gateway, self._gateway = self._gateway, None
        if gateway is not None and self._engine is None:
            gateway.close()
