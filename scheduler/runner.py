"""A background scheduler for the open app: sleep nightly, and catch up once on launch.

APScheduler 3's ``BackgroundScheduler`` runs jobs in its own thread pool, so the UI never
waits. The nightly job is coalesced (a laptop that slept through several 03:00s runs it
once) and may start up to ``misfire_grace_s`` late; a job never runs twice at once, and
the consolidation lock keeps it from overlapping a ``hippo sleep`` started elsewhere.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

from assistant.errors import HippoError
from assistant.sleep import Progress, SleepReport, SleepSettings
from scheduler import jobs

if TYPE_CHECKING:
    from apscheduler.schedulers.background import BackgroundScheduler

    from assistant.engine import Hippo

__all__ = ["CATCH_UP_JOB", "NIGHTLY_JOB", "SleepScheduler"]

NIGHTLY_JOB = "sleep-nightly"
CATCH_UP_JOB = "sleep-catch-up"
_log = logging.getLogger(__name__)

Job = Callable[..., SleepReport | None]


class SleepScheduler:
    """Runs the consolidation in the background while the app is open.

    Args:
        engine: the engine (its data file and gateway).
        settings: when and how to consolidate.
        on_report: called with each run's report (e.g. to show "While you were away").
        on_progress: called as a run progresses (e.g. the UI's status area).
        on_error: called with a run's HippoError (e.g. a damaged data file it refused).
        timezone: the time zone of ``settings.at`` (default: this machine's).
        nightly: the nightly job (for tests).
        catch_up: the launch catch-up job (for tests).
    """

    def __init__(
        self,
        engine: Hippo,
        settings: SleepSettings | None = None,
        *,
        on_report: Callable[[SleepReport], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        on_error: Callable[[HippoError], None] | None = None,
        timezone: tzinfo | None = None,
        nightly: Job = jobs.nightly,
        catch_up: Job = jobs.catch_up_on_launch,
    ) -> None:
        self.engine = engine
        self.settings = settings or SleepSettings()
        self._on_report = on_report
        self._on_progress = on_progress
        self._on_error = on_error
        self._timezone = timezone
        self._nightly = nightly
        self._catch_up = catch_up
        self._scheduler: BackgroundScheduler | None = None

    def start(self, *, catch_up: bool = True) -> None:
        """Schedule the nightly job (and a catch-up now, if asked) and start the thread."""
        from apscheduler.schedulers.background import BackgroundScheduler
        from apscheduler.triggers.cron import CronTrigger

        scheduler = BackgroundScheduler(**({"timezone": self._timezone} if self._timezone else {}))
        at = self.settings.at_time
        scheduler.add_job(
            self._run,
            CronTrigger(hour=at.hour, minute=at.minute, timezone=scheduler.timezone),
            args=[self._nightly],
            id=NIGHTLY_JOB,
            name="Nightly memory consolidation",
            coalesce=True,
            misfire_grace_time=self.settings.misfire_grace_s,
            max_instances=1,
            replace_existing=True,
        )
        if catch_up:
            scheduler.add_job(
                self._run,
                args=[self._catch_up],
                id=CATCH_UP_JOB,
                name="Catch up a missed night",
                max_instances=1,
            )
        scheduler.start()
        self._scheduler = scheduler

    def _run(self, job: Job) -> SleepReport | None:
        try:
            report = job(self.engine, self.settings, self._on_progress)
        except HippoError as exc:  # a refusal the user should read (a damaged file, ...)
            if self._on_error is not None:
                self._on_error(exc)
            else:
                _log.warning("Sleep job %s refused: %s", getattr(job, "__name__", job), exc)
            return None
        except Exception:  # a bug must not kill the scheduler thread; it is logged
            _log.exception("Sleep job %s failed", getattr(job, "__name__", job))
            return None
        if report is not None and self._on_report is not None:
            self._on_report(report)
        return report

    @property
    def running(self) -> bool:
        """Whether the scheduler thread runs."""
        return self._scheduler is not None and self._scheduler.running

    def next_run(self) -> datetime | None:
        """When the nightly job runs next."""
        job = self._scheduler.get_job(NIGHTLY_JOB) if self._scheduler else None
        return job.next_run_time if job else None

    def job(self, job_id: str = NIGHTLY_JOB) -> Any:
        """The scheduled APScheduler job (for inspection)."""
        return self._scheduler.get_job(job_id) if self._scheduler else None

    def shutdown(self, *, wait: bool = False) -> None:
        """Stop the scheduler (a running consolidation stops at its next unit if ``wait``)."""
        from apscheduler.jobstores.base import JobLookupError

        if self._scheduler is not None and self._scheduler.running:
            # APScheduler 3 removes a run-once job after starting it; if shutdown has
            # begun by then, the removal raises in its thread (JobLookupError). Removing
            # the catch-up job first waits for that step and leaves it nothing to remove.
            with contextlib.suppress(JobLookupError):
                self._scheduler.remove_job(CATCH_UP_JOB)
            self._scheduler.shutdown(wait=wait)
        self._scheduler = None
