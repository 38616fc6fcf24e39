"""Token budgets of the prompt's memory sections (light: read at start-up)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ContextBudget"]


@dataclass(frozen=True, slots=True)
class ContextBudget:
    """Token budgets per memory section (together the memory part: 2,000 by default)."""

    facts: int = 500
    episodes: int = 300
    upcoming: int = 150
    events: int = 150
    recalled: int = 900

    @property
    def memory(self) -> int:
        """The whole memory part's budget."""
        return self.facts + self.episodes + self.upcoming + self.events + self.recalled
