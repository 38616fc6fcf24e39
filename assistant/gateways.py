"""The Ollama gateway a config asks for: its host, its time limits and its token.

A leaf of the start-up path: `assistant.starting` opens it before the engine exists and
`assistant.factory` hands it to the engine, and neither imports the other for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.llm.hosts import is_loopback
from assistant.secrets import load_token

if TYPE_CHECKING:
    from assistant.config import Config
    from assistant.llm.backend import ChatBackend

__all__ = ["open_gateway"]


def open_gateway(config: Config) -> ChatBackend:
    """The Ollama gateway for ``config``, with a bearer token where one is set."""
    # Imported here: the gateway's httpx client costs ~0.5 s, which the first frame
    # must not wait for (see assistant.starting).
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
