"""Sleep: the nightly consolidation of conversations into reviewed, evidence-backed memory.

Sleep never sees the engine: it receives `SleepDeps` (the data file, the stores, the
gateway, the clock and the models), and `Sleep` wraps them. Through the engine: run it
with ``engine.consolidate()``; ask ``engine.sleep.due()`` on launch (and
``engine.sleep.catch_up()`` in the background); show ``engine.sleep.unseen_report().text``
("While you were away: ...") once. ``scheduler/`` calls these; nothing here needs
APScheduler.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assistant.memory.sleep_candidates import DatedItem
    from assistant.sleep.away import (
        catch_up,
        dated_items,
        last_report,
        last_slot,
        pending_catch_up,
        unseen_report,
    )
    from assistant.sleep.backup import backup_database, backups
    from assistant.sleep.dates import resolve_date, resolve_phrase
    from assistant.sleep.deps import ModelView, SleepDeps
    from assistant.sleep.errors import BudgetExhausted, SleepError, SleepLocked
    from assistant.sleep.facade import Sleep
    from assistant.sleep.lock import SleepLock
    from assistant.sleep.pipeline import STEPS, run_sleep
    from assistant.sleep.report import AwayNotice, Progress, Proposal, SleepReport
    from assistant.sleep.settings import SleepSettings

# Each name loads its module on first use: importing one small part (the backup folder's
# name, the candidate store) must not load the pipeline and its models.
_HOMES = {
    "AwayNotice": "assistant.sleep.report",
    "BudgetExhausted": "assistant.sleep.errors",
    "DatedItem": "assistant.memory.sleep_candidates",
    "ModelView": "assistant.sleep.deps",
    "Progress": "assistant.sleep.report",
    "Proposal": "assistant.sleep.report",
    "STEPS": "assistant.sleep.pipeline",
    "Sleep": "assistant.sleep.facade",
    "SleepDeps": "assistant.sleep.deps",
    "SleepError": "assistant.sleep.errors",
    "SleepLock": "assistant.sleep.lock",
    "SleepLocked": "assistant.sleep.errors",
    "SleepReport": "assistant.sleep.report",
    "SleepSettings": "assistant.sleep.settings",
    "backup_database": "assistant.sleep.backup",
    "backups": "assistant.sleep.backup",
    "catch_up": "assistant.sleep.away",
    "dated_items": "assistant.sleep.away",
    "last_report": "assistant.sleep.away",
    "last_slot": "assistant.sleep.away",
    "pending_catch_up": "assistant.sleep.away",
    "resolve_date": "assistant.sleep.dates",
    "resolve_phrase": "assistant.sleep.dates",
    "run_sleep": "assistant.sleep.pipeline",
    "unseen_report": "assistant.sleep.away",
}


def __getattr__(name: str) -> Any:
    """Load ``name`` from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)


__all__ = [
    "STEPS",
    "AwayNotice",
    "BudgetExhausted",
    "DatedItem",
    "ModelView",
    "Progress",
    "Proposal",
    "Sleep",
    "SleepDeps",
    "SleepError",
    "SleepLock",
    "SleepLocked",
    "SleepReport",
    "SleepSettings",
    "backup_database",
    "backups",
    "catch_up",
    "dated_items",
    "last_report",
    "last_slot",
    "pending_catch_up",
    "resolve_date",
    "resolve_phrase",
    "run_sleep",
    "unseen_report",
]
