"""`Sleep`: the consolidation and what it left, as one object over `SleepDeps`.

The engine builds one per call (``Hippo.sleep``), from its stores and models as they are at
that moment; the CLI, the scheduler and the UI call it through the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, tzinfo

from assistant.memory.sleep_candidates import DatedItem
from assistant.sleep.away import catch_up, dated_items, last_report, pending_catch_up
from assistant.sleep.away import unseen_report as _unseen_report
from assistant.sleep.deps import SleepDeps
from assistant.sleep.options import RunOptions
from assistant.sleep.pipeline import run_sleep
from assistant.sleep.report import AwayNotice, Progress, SleepReport
from assistant.sleep.settings import SleepSettings
from assistant.sleep.waiting import due_sessions, retry_given_up, skipped_notes

__all__ = ["Sleep"]


class Sleep:
    """Consolidate the data file, and tell what the runs did and left.

    Args:
        deps: the data file, stores, gateway, clock and models.
        settings: the user's [sleep] settings, used where a call names none (default:
            ``SleepSettings()``).
        backup: copy the data file to ``backups/`` before each run (the default), so a
            night can be undone; False for a caller whose copies are made elsewhere.
    """

    def __init__(
        self, deps: SleepDeps, settings: SleepSettings | None = None, *, backup: bool = True
    ) -> None:
        self.deps = deps
        self.settings = settings
        self.backup = backup

    def run(self, options: RunOptions | None = None) -> SleepReport:
        """Consolidate now (see `RunOptions`): with this sleep's settings and backup where
        ``options`` names none."""
        options = options or RunOptions()
        settings = options.settings or self.settings
        backup = self.backup if options.backup is None else options.backup
        return run_sleep(self.deps, replace(options, settings=settings, backup=backup))

    def due(
        self,
        *,
        settings: SleepSettings | None = None,
        now: datetime | None = None,
        tz: tzinfo | None = None,
    ) -> bool:
        """Whether the last nightly run was missed (or died) and a catch-up is due now."""
        return pending_catch_up(self.deps, settings=settings or self.settings, now=now, tz=tz)

    def catch_up(
        self,
        *,
        settings: SleepSettings | None = None,
        progress: Callable[[Progress], None] | None = None,
        tz: tzinfo | None = None,
    ) -> SleepReport | None:
        """Run the consolidation if a night was missed; None when nothing was due."""
        return catch_up(
            self.deps,
            settings=settings or self.settings,
            progress=progress,
            tz=tz,
            backup=self.backup,
        )

    def unseen_report(self, *, mark_seen: bool = True) -> AwayNotice | None:
        """What the runs since the user last looked changed in the current profile."""
        return _unseen_report(self.deps, mark_seen=mark_seen)

    def last_report(self) -> SleepReport | None:
        """The newest real run's report, if any."""
        return last_report(self.deps)

    def dated_items(self, status: str | None = None) -> list[DatedItem]:
        """The current profile's dated items (``upcoming``, ``expired``, or all), by date."""
        return dated_items(self.deps, status)

    def skipped_notes(self, settings: SleepSettings) -> list[str]:
        """One line per session sleep did not take, saying why and what to do."""
        return skipped_notes(self.deps, settings)

    def due_sessions(self, settings: SleepSettings) -> int:
        """How many sessions a run would take now, in every profile."""
        return due_sessions(self.deps, settings)

    def retry_given_up(self) -> int:
        """Give every given-up session fresh attempts, in every profile; say how many."""
        return retry_given_up(self.deps)
