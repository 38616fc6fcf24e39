"""The review queue: pending facts and core memory edits, approved or rejected by the user.

A rejection is remembered by the sleep package (``CandidateStore.reject_in_review``), so
sleep never proposes the same claim again from the same evidence. Approving a proposal
that sleep made to replace an active fact (a conflict) supersedes the old fact. Each item
says why it waits: an instruction-like text among its evidence, a claim about the assistant
itself (its permissions, other profiles, an earlier agreement), pasted text, its source.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from assistant.admin.provenance import proposer
from assistant.admin.views import CoreReviewItem, EvidenceView, ReviewItem
from assistant.errors import NotFound
from assistant.memory.core import CoreBlock
from assistant.memory.core_proposals import CoreProposal
from assistant.memory.facts import Evidence, Fact
from assistant.memory.injection import INSTRUCTION_REASON, looks_like_instruction
from assistant.memory.records import Profile
from assistant.memory.statements import claim_reason, evidence_claim

if TYPE_CHECKING:
    from assistant.admin.facts import FactsAdmin
    from assistant.admin.provenance import EvidenceReader
    from assistant.memory.core import CoreMemory
    from assistant.memory.core_proposals import CoreProposals
    from assistant.memory.facts import FactStore
    from assistant.memory.sleep_runs import RunStore

__all__ = ["CORE_KIND", "ReviewAdmin", "why_pending"]

_QUEUE_LIMIT = 1000
CORE_KIND = "core"  # the kind that names core memory proposals in approve_all/reject_all
_BY_SOURCE = {
    "assistant_inferred": "inferred by the assistant, not said by you",
    "document": "drawn from a document",
    "event": "drawn from an event",
    "reflection": "Hippo's own conclusion",
    "pasted": "drawn from text you pasted, not your own words",
    "user_stated": "waits for your confirmation",
}


def why_pending(fact: Fact, evidence: tuple[EvidenceView, ...]) -> str:
    """Why a pending fact waits for review, in words."""
    if looks_like_instruction(fact.statement):
        return INSTRUCTION_REASON
    if any(looks_like_instruction(view.text) for view in evidence):
        return f"{INSTRUCTION_REASON} (in its evidence)"
    held = claim_reason(fact.statement)
    if held:
        return held
    for view in evidence:
        if evidence_claim(view.text):
            return f"{evidence_claim(view.text)} (in its evidence)"
    return _BY_SOURCE.get(fact.source_kind, "waits for your confirmation")


class ReviewAdmin:
    """What awaits the user's approval, and the approving and rejecting of it.

    Args:
        facts: the inspector's fact actions (reading, rewording, marking wrong).
        store: the facts store (approve, supersede, the pending list and count).
        core: core memory (an approved edit is applied to its block).
        proposals: the model's core memory edits awaiting review.
        runs: sleep's run reports (which pending facts would replace an active one).
        evidence: reads the text the evidence of a pending item cites.
        profile: returns the profile every call works in.
    """

    def __init__(
        self,
        *,
        facts: FactsAdmin,
        store: FactStore,
        core: CoreMemory,
        proposals: CoreProposals,
        runs: RunStore,
        evidence: EvidenceReader,
        profile: Callable[[], Profile],
    ) -> None:
        self._facts = facts
        self._store = store
        self._core = core
        self._proposals = proposals
        self._runs = runs
        self._evidence = evidence
        self._profile = profile

    @property
    def _pid(self) -> int:
        return self._profile().id

    def queue(self, kind: str | None = None) -> list[ReviewItem]:
        """Pending facts, newest first, with evidence and, for a conflict, the fact it replaces.

        Args:
            kind: only items of this proposal kind (``fact``, ``conflict``, ``reflection``),
                source kind (``assistant_inferred``, ``document``, ...) or proposer
                (``sleep``, ``agent``); None for all.
        """
        if kind == CORE_KIND:
            return []
        pending = self._store.list(self._pid, status="pending", order="recent", limit=_QUEUE_LIMIT)
        conflicts = self._conflicts()
        proposers = self._store.changes.proposers([f.id for f in pending])
        items = [self._item(fact, conflicts, proposers) for fact in pending]
        return [
            i for i in items if kind is None or kind in (i.proposal, i.source_kind, i.proposed_by)
        ]

    def core_queue(self) -> list[CoreReviewItem]:
        """The model's core memory edits awaiting approval, newest first, with their turn."""
        return [
            CoreReviewItem(p, self._turn_evidence(p)) for p in self._proposals.pending(self._pid)
        ]

    def pending_count(self) -> int:
        """How many facts and core memory edits await review (for the status line)."""
        facts = self._store.count(self._pid, status="pending")
        return facts + self._proposals.count_pending(self._pid)

    def _conflicts(self) -> dict[int, int]:
        """Pending facts that would replace an active one: sleep's, and the user's disputes."""
        conflicts = self._runs.conflicts(self._pid)
        for new, old in self._store.disputes(self._pid):
            conflicts.setdefault(new.id, old.id)
        return conflicts

    def _item(self, fact: Fact, conflicts: dict[int, int], proposers: dict[int, str]) -> ReviewItem:
        replaces = None
        if fact.id in conflicts:
            try:
                replaces = self._facts.get(conflicts[fact.id])
            except NotFound:
                replaces = None
        if replaces is not None:
            proposal = "conflict"
        else:
            proposal = "reflection" if fact.source_kind == "reflection" else "fact"
        evidence = self._evidence.views(self._pid, fact.evidence)
        return ReviewItem(
            fact=fact,
            proposal=proposal,
            proposed_by=proposer(proposers.get(fact.id, "system"), evidence),
            evidence=evidence,
            replaces=replaces,
            why=why_pending(fact, evidence),
        )

    def _turn_evidence(self, proposal: CoreProposal) -> tuple[EvidenceView, ...]:
        if proposal.message_id is None:
            return ()
        return self._evidence.views(self._pid, [Evidence("message", proposal.message_id)])

    def approve(self, fact_id: int, *, statement: str | None = None) -> Fact:
        """Approve a pending fact, after rewording it when ``statement`` is given.

        A conflict proposal, once approved, supersedes the active fact it contradicts.

        Raises:
            MemoryWriteError: the fact is not pending.
            NotFound: there is no such fact in this profile.
        """
        fact = self._facts.get(fact_id)
        if statement is not None and statement.strip() and statement.strip() != fact.statement:
            self._facts.edit(fact_id, statement=statement)
        disputed = [old.id for new, old in self._store.disputes(self._pid) if new.id == fact_id]
        self._store.approve(fact_id, actor="user", profile_id=self._pid)
        old_id = self._runs.conflicts(self._pid).get(fact_id)
        for replaced in dict.fromkeys([*disputed, *([old_id] if old_id is not None else [])]):
            try:
                old = self._facts.get(replaced)
            except NotFound:
                old = None
            if old is not None and old.status == "active":
                self._store.supersede(replaced, fact_id, actor="user", profile_id=self._pid)
        return self._facts.get(fact_id)

    def reject(self, fact_id: int) -> Fact:
        """Reject a fact (kept, undoable); sleep won't propose it again from its evidence."""
        return self._facts.mark_wrong(fact_id)

    def approve_core(self, proposal_id: int) -> CoreBlock:
        """Apply a proposed core memory edit to its block; return the block.

        Raises:
            NotFound: there is no such proposal in this profile.
            MemoryWriteError: it was decided before, or it no longer fits or applies.
        """
        return self._proposals.approve(proposal_id, self._core, profile_id=self._pid)

    def reject_core(self, proposal_id: int) -> CoreProposal:
        """Reject a proposed core memory edit; the block stays as it is."""
        return self._proposals.reject(proposal_id, profile_id=self._pid)

    def approve_all(self, kind: str | None = None) -> list[Fact | CoreBlock]:
        """Approve every pending item of ``kind`` (see ``queue``; ``core`` for core
        memory edits; None for all, core edits last, oldest first); return the results."""
        done: list[Fact | CoreBlock] = [
            self.approve(item.id) for item in reversed(self.queue(kind))
        ]
        if kind in (None, CORE_KIND):
            done += [self.approve_core(item.id) for item in reversed(self.core_queue())]
        return done

    def reject_all(self, kind: str | None = None) -> list[Fact | CoreProposal]:
        """Reject every pending item of ``kind`` (see ``approve_all``); return them."""
        done: list[Fact | CoreProposal] = [self.reject(i.id) for i in self.queue(kind)]
        if kind in (None, CORE_KIND):
            done += [self.reject_core(item.id) for item in self.core_queue()]
        return done
