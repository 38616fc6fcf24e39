"""What every step of a run shares: its dependencies, settings, stores, model budget and report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
from typing import TYPE_CHECKING

from assistant.memory.facts.sleep_reads import SleepFactReads
from assistant.memory.sleep_candidates import CandidateStore
from assistant.memory.sleep_marks import SleepMarks
from assistant.sleep.deps import SleepDeps
from assistant.sleep.model import Asker
from assistant.sleep.report import Progress, Proposal, SleepReport
from assistant.sleep.settings import SleepSettings

if TYPE_CHECKING:
    from assistant.sleep.lock import SleepLock

__all__ = ["SleepContext"]


@dataclass
class SleepContext:
    """One run's shared state; steps read and count through it.

    Attributes:
        deps: the stores, gateway, clock and models the run uses.
        settings: the run's settings.
        store: sleep's marks and bookmarks (and the unit of work).
        candidates: candidates, rejections and dated items.
        fact_reads: the reads of facts only sleep makes.
        asker: the model, within the run's budget.
        report: the run's report, filled as it goes.
        now: the run's time (every step uses the same "now").
        tz: the user's time zone for dates (None: this machine's).
        lock: the consolidation lock, whose heartbeat each unit refreshes.
        progress: called as units finish (for progress bars).
    """

    deps: SleepDeps
    settings: SleepSettings
    store: SleepMarks
    candidates: CandidateStore
    fact_reads: SleepFactReads
    asker: Asker
    report: SleepReport
    now: datetime
    tz: tzinfo | None = None
    lock: SleepLock | None = None
    progress: Callable[[Progress], None] | None = None
    steps_done: list[str] = field(default_factory=list)

    @property
    def run_id(self) -> int | None:
        """The run record's id."""
        return self.report.run_id

    @property
    def transcript_budget(self) -> int:
        """Tokens a conversation may fill in one prompt (the rest is instructions and reply)."""
        tokens = self.deps.models.context_tokens
        budget = max(tokens - 2048, 2048)
        window = self.deps.models.window(self.asker.model)
        if window < tokens:  # the model reads less than Hippo would fill
            budget = min(budget, max(window - 2048, window // 2))
        return budget

    def tick(self, step: str, done: int, total: int, note: str = "") -> None:
        """A unit finished: refresh the lock's heartbeat and report progress."""
        if self.lock is not None:
            self.lock.beat()
        if self.progress is not None:
            self.progress(Progress(step, done, total, note))

    def count(self, key: str, n: int = 1) -> None:
        """Add to one of the run's counters."""
        if n:
            self.report.counts[key] += n

    def error(self, step: str, text: str) -> None:
        """Record a problem of a step (the run goes on)."""
        self.report.errors.append(f"{step}: {text}"[:600])

    def retry_note(self, *, give_up: bool = False) -> str:
        """What becomes of work the model failed on, in words true for this run.

        A dry run records nothing, so nothing is retried or given up because of it.
        """
        if self.report.dry_run:
            return "a real run would give it up" if give_up else "a real run would retry it"
        return "given up" if give_up else "will retry next run"

    def review_room(self) -> int:
        """How many more items this run may propose for review (``max_review_items``)."""
        proposed = {p.fact_id for p in self.report.proposals if p.status == "pending"}
        return max(self.settings.max_review_items - len(proposed), 0)

    def defer_review(self, n: int = 1) -> None:
        """Count ``n`` items left for a later run because this one proposed its most."""
        self.count("review_items_deferred", n)
        self.report.counts["review_items_cap"] = self.settings.max_review_items

    def propose(self, proposal: Proposal) -> None:
        """Record a change for the review queue and the morning notice."""
        self.report.proposals.append(proposal)

    def local_date(self, moment: datetime) -> date:
        """The user's calendar date at ``moment``."""
        return moment.astimezone(self.tz).date()

    def end_of_day(self, day: date) -> datetime:
        """The first moment after ``day`` in the user's time zone (a dated item's end)."""
        start = datetime.combine(day + timedelta(days=1), time(0, 0))
        return start.replace(tzinfo=self.tz) if self.tz else start.astimezone()
