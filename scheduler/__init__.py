"""Scheduled jobs (APScheduler) that call into the engine: nightly sleep and launch catch-up.

``SleepScheduler`` runs a ``BackgroundScheduler`` while the app is open: the nightly
consolidation at a configured local time (03:00 by default; coalesced, with a misfire
grace) and, on start, a catch-up run in the background if a night was missed. The jobs
in ``jobs.py`` are one-line calls into ``assistant.sleep``, tested without APScheduler.
"""

from __future__ import annotations

from scheduler.jobs import catch_up_on_launch, nightly
from scheduler.runner import SleepScheduler

__all__ = ["SleepScheduler", "catch_up_on_launch", "nightly"]
