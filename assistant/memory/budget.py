"""Token budgets of the prompt's memory sections (``[memory.budget]`` in config.toml).

Defined in ``assistant.settings`` with config.toml's other sections: the app reads the
config before its first frame, and must not load ``assistant.memory`` for it.
"""

from __future__ import annotations

from assistant.settings import ContextBudget

__all__ = ["ContextBudget"]
