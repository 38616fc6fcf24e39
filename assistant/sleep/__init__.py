"""Sleep: the nightly consolidation of conversations into reviewed, evidence-backed memory.

Sleep never sees the engine: it receives `SleepDeps` (the data file, the stores, the
gateway, the clock and the models), and `Sleep` wraps them. Through the engine: run it
with ``engine.consolidate()``; ask ``engine.sleep.due()`` on launch (and
``engine.sleep.catch_up()`` in the background); show ``engine.away_notice().text``
("While you were away: ...") once. ``scheduler/`` calls these; nothing here needs
APScheduler.
"""

from __future__ import annotations

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
