"""After the night: whether a run is due (catch-up on launch) and what the user missed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo

from assistant.clock import to_iso
from assistant.errors import NotFound
from assistant.memory.sleep_candidates import DatedItem
from assistant.sleep.deps import SleepDeps
from assistant.sleep.lock import SleepLock
from assistant.sleep.report import AwayNotice, Progress, SleepReport
from assistant.sleep.settings import SleepSettings

__all__ = [
    "catch_up",
    "dated_items",
    "last_report",
    "last_slot",
    "pending_catch_up",
    "unseen_report",
]

_RETRY = ("interrupted", "failed")


def last_slot(now: datetime, settings: SleepSettings, tz: tzinfo | None = None) -> datetime:
    """The latest scheduled nightly time at or before ``now`` (in the user's time zone)."""
    local = now.astimezone(tz)
    slot = local.replace(
        hour=settings.at_time.hour, minute=settings.at_time.minute, second=0, microsecond=0
    )
    return slot if slot <= local else slot - timedelta(days=1)


def pending_catch_up(
    deps: SleepDeps,
    *,
    settings: SleepSettings | None = None,
    now: datetime | None = None,
    tz: tzinfo | None = None,
) -> bool:
    """Whether the last nightly run was missed (or died) and a catch-up run is due now.

    False while another process consolidates; with no run ever, True only when some
    idle conversation waits to be consolidated.
    """
    settings = settings or SleepSettings()
    now = now or deps.clock.now()
    holder = SleepLock(deps.locks, deps.clock, settings.lock_ttl_s).holder()
    if holder is not None and now - holder.heartbeat_at < timedelta(seconds=settings.lock_ttl_s):
        return False
    latest = deps.runs.latest()
    if latest is None:
        idle = now - timedelta(minutes=settings.idle_minutes)
        return deps.marks.has_unconsolidated(idle)
    return latest.status in _RETRY or latest.started_at < last_slot(now, settings, tz)


def catch_up(
    deps: SleepDeps,
    *,
    settings: SleepSettings | None = None,
    progress: Callable[[Progress], None] | None = None,
    tz: tzinfo | None = None,
    backup: bool = True,
) -> SleepReport | None:
    """Run the consolidation if a night was missed; None when nothing was due.

    ``backup``: copy the data file first (see ``run_sleep``).
    """
    from assistant.sleep.options import RunOptions
    from assistant.sleep.pipeline import run_sleep

    if not pending_catch_up(deps, settings=settings, tz=tz):
        return None
    options = RunOptions(
        trigger="catch_up", settings=settings, progress=progress, tz=tz, backup=backup
    )
    return run_sleep(deps, options)


def dated_items(deps: SleepDeps, status: str | None = None) -> list[DatedItem]:
    """The current profile's dated items (``upcoming`` or ``expired``, or all), by date."""
    return deps.candidates.dated_items(deps.profile.id, status)


def last_report(deps: SleepDeps) -> SleepReport | None:
    """The newest real run's report, if any."""
    return deps.runs.latest()


def unseen_report(deps: SleepDeps, *, mark_seen: bool = True) -> AwayNotice | None:
    """What the runs since the user last looked changed in the current profile.

    ``to_review`` counts the facts those runs proposed that are still pending now;
    ``superseded`` the facts they replaced. None when no run is unseen.

    Args:
        deps: the data file's stores and clock.
        mark_seen: record that the user has now been told (shown once).
    """
    runs = deps.runs
    unseen = runs.unseen()
    if not unseen:
        return None
    mine = [p for r in unseen for p in r.proposals if p.profile_id == deps.profile.id]
    pending = {}
    for p in mine:
        try:
            if deps.facts.get(p.fact_id).status == "pending":
                pending[p.fact_id] = p
        except NotFound:
            continue
    superseded = {p.old_fact_id for p in mine if p.kind == "superseded"}
    if mark_seen:
        runs.mark_seen([r.run_id for r in unseen if r.run_id], to_iso(deps.clock.now()))
    return AwayNotice(len(unseen), len(pending), len(superseded), tuple(mine))
