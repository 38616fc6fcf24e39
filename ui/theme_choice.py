"""The theme the user chose (ctrl+p, "Change theme"), kept in config.toml's ``[ui]`` table.

The engine has no use for it, so it lives among config.toml's other tables
(`Config.extra`), which `save_config` writes back as they are.
"""

from __future__ import annotations

import dataclasses

from assistant.config import Config

__all__ = ["saved_theme", "with_theme"]


def saved_theme(config: Config) -> str | None:
    """The theme config.toml names (``[ui] theme``), if any."""
    table = config.extra.get("ui")
    theme = table.get("theme") if isinstance(table, dict) else None
    return theme if isinstance(theme, str) else None


def with_theme(config: Config, theme: str) -> Config:
    """``config`` with ``theme`` as the one to start with."""
    table = config.extra.get("ui")
    ui = dict(table) if isinstance(table, dict) else {}
    return dataclasses.replace(config, extra={**config.extra, "ui": {**ui, "theme": theme}})
