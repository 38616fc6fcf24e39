"""Sleep: the nightly consolidation of conversations into reviewed, evidence-backed memory.

Run it with ``run_sleep(engine)``; ask ``pending_catch_up(engine)`` on launch (and
``catch_up(engine)`` in the background); show ``unseen_report(engine).text`` ("While you
were away: ...") once. ``scheduler/`` calls these; nothing here needs APScheduler.
"""

from __future__ import annotations

from assistant.sleep.away import (
    catch_up,
    dated_items,
    last_report,
    last_slot,
    pending_catch_up,
    unseen_report,
)
from assistant.sleep.backup import backup_database, backups
from assistant.sleep.candidates import DatedItem
from assistant.sleep.dates import resolve_date, resolve_phrase
from assistant.sleep.errors import BudgetExhausted, SleepError, SleepLocked
from assistant.sleep.lock import SleepLock
from assistant.sleep.pipeline import STEPS, run_sleep
from assistant.sleep.report import AwayNotice, Progress, Proposal, SleepReport
from assistant.sleep.settings import SleepSettings

__all__ = [
    "STEPS",
    "AwayNotice",
    "BudgetExhausted",
    "DatedItem",
    "Progress",
    "Proposal",
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
