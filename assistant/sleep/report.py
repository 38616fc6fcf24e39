"""What a consolidation did: the run record the CLI prints and the UI shows on launch.

The record itself (`SleepReport`, `Proposal`) is the row type of the run store, in
``assistant/memory/sleep_records.py``; it is importable from here too.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.memory.sleep_records import Proposal, RunStatus, SleepReport

__all__ = ["AwayNotice", "Progress", "Proposal", "RunStatus", "SleepReport"]


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a run is: ``done`` of ``total`` units of ``step`` (for a progress bar)."""

    step: str
    done: int
    total: int
    note: str = ""


@dataclass(frozen=True, slots=True)
class AwayNotice:
    """What the nightly runs since the user last looked changed, for the launch screen."""

    runs: int
    to_review: int
    superseded: int
    proposals: tuple[Proposal, ...] = ()

    @property
    def text(self) -> str:
        """ "While you were away: N new facts to review, M superseded"."""
        return (
            f"While you were away: {self.to_review} new fact{'s' * (self.to_review != 1)} "
            f"to review, {self.superseded} superseded"
        )
