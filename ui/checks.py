"""Is Ollama there, and does it have our models? Asked off the UI thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.engine import Hippo

__all__ = ["OllamaCheck", "check_ollama"]


@dataclass(frozen=True, slots=True)
class OllamaCheck:
    """What a successful check found.

    Attributes:
        version: the Ollama server's version.
        missing: configured models the host lacks, in the order configured.
    """

    version: str
    missing: tuple[str, ...] = ()


def check_ollama(engine: Hippo) -> OllamaCheck:
    """Probe the engine's Ollama host and list the configured models it lacks.

    Blocks on the network: call it from a thread worker.

    Args:
        engine: the engine whose gateway and models to check.

    Returns:
        The server's version and the missing models.

    Raises:
        OllamaError: the host can't be reached or answered badly.
    """
    version = engine.host.probe()
    return OllamaCheck(version=version, missing=tuple(engine.host.missing_models()))
