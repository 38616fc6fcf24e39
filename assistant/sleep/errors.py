"""Sleep's exceptions, under Hippo's one base.

HippoError
└── SleepError              the consolidation could not run or had to stop
    ├── SleepLocked         another process consolidates this data file right now
    └── BudgetExhausted     the night's cap on model calls is reached (stops cleanly)
"""

from __future__ import annotations

from assistant.errors import HippoError

__all__ = ["BudgetExhausted", "SleepError", "SleepLocked"]


class SleepError(HippoError):
    """The nightly consolidation could not run, or stopped."""


class SleepLocked(SleepError):
    """Another process holds the consolidation lock of this data file."""

    def __init__(self, owner: str, since: str) -> None:
        super().__init__(
            f"Another consolidation ({owner}, since {since}) is running on this data file. "
            "Wait for it to finish; a lock whose process died is taken over automatically."
        )
        self.owner = owner


class BudgetExhausted(SleepError):
    """The night's cap on model calls is reached; the rest waits for the next run."""

    def __init__(self, cap: int) -> None:
        super().__init__(
            f"Stopped at the cap of {cap} model calls for this run; the rest is consolidated "
            "next time (raise it with [sleep] max_llm_calls in config.toml)."
        )
        self.cap = cap
