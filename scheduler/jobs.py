"""The scheduler's jobs: one-line calls into the engine's sleep."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from assistant.sleep import Progress, SleepReport, SleepSettings

if TYPE_CHECKING:
    from assistant.engine import Hippo

__all__ = ["catch_up_on_launch", "nightly"]

ProgressFn = Callable[[Progress], None] | None


def nightly(
    engine: Hippo, settings: SleepSettings | None = None, progress: ProgressFn = None
) -> SleepReport:
    """The nightly consolidation."""
    return engine.consolidate(trigger="scheduled", settings=settings, progress=progress)


def catch_up_on_launch(
    engine: Hippo, settings: SleepSettings | None = None, progress: ProgressFn = None
) -> SleepReport | None:
    """The consolidation a missed night still owes; None when nothing was missed."""
    return engine.sleep.catch_up(settings=settings, progress=progress)
