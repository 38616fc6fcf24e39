"""How one sleep run goes: `RunOptions`, every field with the nightly run's default."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.settings import SleepSettings
    from assistant.sleep.report import Progress

__all__ = ["RunOptions"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """The choices of one consolidation run.

    Attributes:
        now: the run's time (default: the clock's).
        dry_run: work on a throwaway copy of the file and report what would be proposed.
        trigger: what started it (manual, scheduled, catch_up), for the record.
        progress: called as units finish (a progress bar).
        max_llm_calls: the cap on model calls for this run (default: the settings').
        settings: sleep settings (default: the user's ``[sleep]``, else ``SleepSettings()``).
        tz: the user's time zone for dates (default: this machine's).
        backup: copy the data file to ``backups/`` first, so the night can be undone (a
            dry run never does: it works on a copy); None: as the `Sleep` was built.
    """

    now: datetime | None = None
    dry_run: bool = False
    trigger: str = "manual"
    progress: Callable[[Progress], None] | None = None
    max_llm_calls: int | None = None
    settings: SleepSettings | None = None
    tz: tzinfo | None = None
    backup: bool | None = None
