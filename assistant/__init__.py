"""Hippo: a local-first personal memory assistant, as a library.

The public API, loaded on first use (PEP 562) so that importing ``assistant`` costs
nothing until a name is used (`hippo log` is called in loops by scripts)::

    from assistant import load_config, open_engine
    engine = open_engine(load_config())
    for event in engine.send(engine.conversations.new_session().id, "My sister Anna is a nurse."):
        ...

``Hippo`` is the engine (``assistant.engine``), ``Config`` and ``load_config`` the
settings (``assistant.config``), ``open_engine`` builds the engine from them
(``assistant.factory``), and ``HippoError`` heads every error Hippo raises on purpose
(``assistant.errors``: ``InvalidInput``, ``NotFound``, ``StorageError``, ``OllamaError``...).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assistant.config import Config, load_config, save_config
    from assistant.engine import Hippo
    from assistant.errors import (
        ConfigError,
        HippoError,
        InvalidInput,
        NotFound,
        OllamaError,
        StorageError,
    )
    from assistant.factory import open_engine
    from assistant.settings import Settings

__all__ = [
    "Config",
    "ConfigError",
    "Hippo",
    "HippoError",
    "InvalidInput",
    "NotFound",
    "OllamaError",
    "Settings",
    "StorageError",
    "load_config",
    "open_engine",
    "save_config",
]

_HOMES = {
    "Config": "assistant.config",
    "load_config": "assistant.config",
    "save_config": "assistant.config",
    "Hippo": "assistant.engine",
    "open_engine": "assistant.factory",
    "Settings": "assistant.settings",
    **dict.fromkeys(
        ("ConfigError", "HippoError", "InvalidInput", "NotFound", "OllamaError", "StorageError"),
        "assistant.errors",
    ),
}


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'assistant' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
