"""The review queue: pending facts from sleep and the model's tools, approved or rejected.

A rejection is remembered by the sleep package (``CandidateStore.reject_in_review``), so
sleep never proposes the same claim again from the same evidence. Approving a proposal
that sleep made to replace an active fact (a conflict) supersedes the old fact.
"""

from __future__ import annotations

from assistant.admin.facts import FactsAdmin
from assistant.admin.models import EvidenceView, ReviewItem
from assistant.admin.provenance import evidence_views
from assistant.errors import StorageError
from assistant.memory.facts import Fact

__all__ = ["ReviewAdmin"]

_QUEUE_LIMIT = 1000


class ReviewAdmin(FactsAdmin):
    """What awaits the user's approval, and the approving and rejecting of it."""

    def review_queue(self, kind: str | None = None) -> list[ReviewItem]:
        """Pending facts, newest first, with evidence and, for a conflict, the fact it replaces.

        Args:
            kind: only items of this proposal kind (``fact``, ``conflict``, ``reflection``),
                source kind (``assistant_inferred``, ``document``, ...) or proposer
                (``sleep``, ``agent``); None for all.
        """
        pending = self._engine.facts.list(
            self._pid, status="pending", order="recent", limit=_QUEUE_LIMIT
        )
        conflicts = self._queries.conflicts(self._pid)
        proposers = self._queries.proposers([f.id for f in pending])
        items = [self._item(fact, conflicts, proposers) for fact in pending]
        return [
            i for i in items if kind is None or kind in (i.proposal, i.source_kind, i.proposed_by)
        ]

    def pending_count(self) -> int:
        """How many facts await review (for the status line)."""
        return self._engine.facts.count(self._pid, status="pending")

    def _item(self, fact: Fact, conflicts: dict[int, int], proposers: dict[int, str]) -> ReviewItem:
        replaces = None
        if fact.id in conflicts:
            try:
                replaces = self.fact(conflicts[fact.id])
            except StorageError:
                replaces = None
        if replaces is not None:
            proposal = "conflict"
        else:
            proposal = "reflection" if fact.source_kind == "reflection" else "fact"
        return ReviewItem(
            fact=fact,
            proposal=proposal,
            proposed_by=proposers.get(fact.id, "system"),
            evidence=self._evidence(fact),
            replaces=replaces,
        )

    def _evidence(self, fact: Fact) -> tuple[EvidenceView, ...]:
        return evidence_views(self._engine, self._pid, fact.evidence)

    def approve(self, fact_id: int, *, statement: str | None = None) -> Fact:
        """Approve a pending fact, after rewording it when ``statement`` is given.

        A conflict proposal, once approved, supersedes the active fact it contradicts.

        Raises:
            MemoryWriteError: the fact is not pending.
            StorageError: there is no such fact in this profile.
        """
        fact = self.fact(fact_id)
        if statement is not None and statement.strip() and statement.strip() != fact.statement:
            self.edit_fact(fact_id, statement=statement)
        self._engine.facts.approve(fact_id, actor="user", profile_id=self._pid)
        old_id = self._queries.conflicts(self._pid).get(fact_id)
        if old_id is not None:
            try:
                old = self.fact(old_id)
            except StorageError:
                old = None
            if old is not None and old.status == "active":
                self._engine.facts.supersede(old_id, fact_id, actor="user", profile_id=self._pid)
        return self.fact(fact_id)

    def reject(self, fact_id: int) -> Fact:
        """Reject a fact (kept, undoable); sleep won't propose it again from its evidence."""
        return self.mark_wrong(fact_id)

    def approve_all(self, kind: str | None = None) -> list[Fact]:
        """Approve every pending item of ``kind`` (see ``review_queue``); return them."""
        return [self.approve(item.id) for item in reversed(self.review_queue(kind))]

    def reject_all(self, kind: str | None = None) -> list[Fact]:
        """Reject every pending item of ``kind`` (see ``review_queue``); return them."""
        return [self.reject(item.id) for item in self.review_queue(kind)]
