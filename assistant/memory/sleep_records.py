"""A consolidation's record, as ``sleep_runs`` keeps it: the report and its proposals.

These are the rows of `RunStore` (``sleep_runs.py``); sleep fills them as it runs, the CLI
prints them and the UI shows them on launch.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from assistant.memory.sleep_words import DETAILED_STEPS, activity, detail, review_cap
from assistant.memory.sleep_words import problems as problem_sentences

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
        """A few lines for a terminal: what was done and proposed, then each kind of problem."""
        what = "Would propose" if self.dry_run else "Proposed"
        lines = [
            f"Sleep {self.status}: {self.counts.get('episodes', 0)} episodes from "
            f"{self.counts.get('sessions_summarised', 0)} sessions, "
            f"{self.counts.get('candidates', 0)} candidate facts, "
            f"{self.llm_calls} model calls, {self.seconds:.1f} s.",
            f"{what} {self.count('fact')} new facts ({len(self.to_review)} to review), "
            f"{self.count('event')} kept events, {self.count('superseded')} superseded, "
            f"{self.count('reflection')} reflections, {self.count('merged')} merged.",
        ]
        if capped := review_cap(self.counts):
            lines.append(capped)
        said = self.problems()
        if said:
            lines += ["Problems:", *(f"  - {line}" for line in said)]
        return "\n".join(lines)

    def problems(self) -> list[str]:
        """One sentence per kind of problem, with its count (``2 sessions could not...``).

        Problems of a whole run (Ollama gone, the call cap reached) are said as they are;
        those of single sessions are counted by kind (see `details` for each one).
        """
        said = problem_sentences(self.counts)
        for error in self.errors:
            step, _, text = error.partition(": ")
            if step not in DETAILED_STEPS and text:
                said.append(text[0].upper() + text[1:])
        return list(dict.fromkeys(said))

    @property
    def details(self) -> list[str]:
        """The problems of single sessions and items, one line each, in the order met."""
        return [line for e in self.errors if (line := detail(e)) is not None]

    @property
    def activity(self) -> str:
        """What the steps did, in one line of words."""
        return activity(self.counts)
