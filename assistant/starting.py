"""Starting Hippo in two steps: Ollama's door from the settings alone, then the engine.

Whether Ollama is up needs no data file: the app asks as soon as its first frame is
drawn, while the engine's modules load and the file opens in another thread, and the
engine then takes the same gateway (one client, one host, one record of whether the
host has gone silent). Only the gateway's own light module loads here: the engine's
are imported by ``Starter.open_engine``, so the probe never waits for them.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from assistant.llm.hosts import is_loopback
from assistant.secrets import load_token

if TYPE_CHECKING:
    from assistant.clock import Clock
    from assistant.config import Config
    from assistant.encryption import StepProgress
    from assistant.engine import Hippo
    from assistant.llm.gateway import OllamaGateway

__all__ = ["Starter", "open_gateway"]


def open_gateway(config: Config) -> OllamaGateway:
    """The Ollama gateway for ``config``, with a bearer token where one is set."""
    from assistant.llm.gateway import OllamaGateway

    ollama = config.ollama
    gateway = OllamaGateway(
        ollama.host,
        connect_timeout=ollama.connect_timeout,
        load_timeout=ollama.load_timeout,
        stall_timeout=ollama.stall_timeout,
    )
    # The keyring is asked only for remote hosts: it can be slow, and local Ollama has no auth.
    token = load_token(gateway.host, use_keyring=not is_loopback(gateway.host))
    return gateway.with_token(token) if token else gateway


class Starter:
    """Opens Ollama's gateway at once and the engine later, over that same gateway.

    Args:
        config: the settings to start with.

    Thread safety: ``probe`` and ``open_engine`` may run in different threads; the
    gateway is made once, under a lock.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._gateway: OllamaGateway | None = None
        self._engine: Hippo | None = None

    @property
    def gateway(self) -> OllamaGateway:
        """The gateway to Ollama, made on first use."""
        with self._lock:
            if self._gateway is None:
                self._gateway = open_gateway(self.config)
            return self._gateway

    def probe(self) -> str:
        """Ollama's version (the cheapest proof that it is up), without the data file.

        Once the engine is open, asked through it: the engine may have been given
        another gateway since (a token typed for the host).

        Raises:
            OllamaError: the host can't be reached or answered badly.
        """
        engine = self._engine
        return engine.probe() if engine is not None else self.gateway.probe()

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
