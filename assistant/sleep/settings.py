"""Sleep's settings: the ``[sleep]`` table of config.toml, with defaults that work.

Defined in ``assistant.settings`` with config.toml's other sections, so that reading
the config at start-up does not load the sleep package.
"""

from __future__ import annotations

from assistant.settings import SleepSettings

__all__ = ["SleepSettings"]
