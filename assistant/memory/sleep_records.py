"""A consolidation's record, as ``sleep_runs`` keeps it: the report and its proposals.

These are the rows of `RunStore` (``sleep_runs.py``); sleep fills them as it runs, the CLI
prints them and the UI shows them on launch.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

__all__ = ["Proposal", "RunStatus", "SleepReport"]

RunStatus = Literal["running", "done", "capped", "failed", "interrupted", "locked", "skipped"]


@dataclass(frozen=True, slots=True)
class Proposal:
    """One change a run made or proposes, for the review queue and the morning notice.

    Attributes:
        kind: ``fact`` (a new fact), ``reinforced``, ``superseded`` (an old fact closed by a
            newer one), ``conflict`` (a newer fact awaiting review that would supersede an
            old one), ``reflection``, ``merged`` (a duplicate folded into another fact),
            ``event`` (an expired event kept as a fact) or ``expired``.
        profile_id: whose memory.
        fact_id: the fact concerned (the new one, for superseded and conflict).
        status: the fact's status when the run wrote it.
        statement: its statement.
        old_fact_id: the fact replaced or contradicted, where there is one.
    """

    kind: str
    profile_id: int
    fact_id: int
    status: str
    statement: str
    old_fact_id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able form."""
        return {
            "kind": self.kind,
            "profile_id": self.profile_id,
            "fact_id": self.fact_id,
            "status": self.status,
            "statement": self.statement,
            "old_fact_id": self.old_fact_id,
        }


# Counters that are problems: (key, singular, plural).
_PROBLEMS = (
    ("malformed_answers", "malformed model answer", "malformed model answers"),
    ("repaired_answers", "answer repaired", "answers repaired"),
    ("dropped_items", "broken item dropped", "broken items dropped"),
    ("summarise_failed", "session not summarised", "sessions not summarised"),
    ("extract_failed", "session without facts extracted", "sessions without facts extracted"),
    ("update_failed", "update batch failed", "update batches failed"),
    ("reflect_failed", "reflection failed", "reflections failed"),
    ("sessions_given_up", "session given up", "sessions given up"),
    (
        "candidates_rejected",
        "candidate rejected by the checks",
        "candidates rejected by the checks",
    ),
    ("dated_items_unresolved", "dated item undated", "dated items undated"),
)


@dataclass
class SleepReport:
    """One consolidation run: counts per step, model use, time, errors and proposals."""

    run_id: int | None
    status: RunStatus
    trigger: str
    dry_run: bool
    started_at: datetime
    finished_at: datetime | None = None
    seconds: float = 0.0
    llm_seconds: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)
    backup_path: str = ""

    @property
    def non_llm_seconds(self) -> float:
        """Time spent outside model calls (the part Hippo itself costs)."""
        return max(self.seconds - self.llm_seconds, 0.0)

    @property
    def to_review(self) -> list[Proposal]:
        """Proposals that wait for the user's review (pending facts)."""
        return [p for p in self.proposals if p.status == "pending"]

    def count(self, kind: str) -> int:
        """How many proposals of ``kind``."""
        return sum(1 for p in self.proposals if p.kind == kind)

    def summary(self) -> str:
        """Two or three lines for a terminal."""
        what = "Would propose" if self.dry_run else "Proposed"
        lines = [
            f"Sleep {self.status}: {self.counts.get('episodes', 0)} episodes from "
            f"{self.counts.get('sessions_summarised', 0)} sessions, "
            f"{self.counts.get('candidates', 0)} candidate facts, "
            f"{self.llm_calls} model calls, {self.seconds:.1f} s.",
            f"{what} {self.count('fact')} new facts ({len(self.to_review)} to review), "
            f"{self.count('superseded')} superseded, {self.count('reflection')} reflections, "
            f"{self.count('merged')} merged.",
        ]
        problems = self.problem_counts()
        if problems:
            lines.append("Problems: " + ", ".join(problems) + ".")
        if self.errors:
            more = len(self.errors) - 3
            lines.append(
                f"{len(self.errors)} problem(s): "
                + "; ".join(self.errors[:3])
                + (f"; and {more} more" if more > 0 else "")
            )
        return "\n".join(lines)

    def problem_counts(self) -> list[str]:
        """Every kind of problem the run counted, in words (``2 summaries failed``)."""
        said = []
        for key, one, many in _PROBLEMS:
            n = self.counts.get(key, 0)
            if n:
                said.append(f"{n} {one if n == 1 else many}")
        return said
