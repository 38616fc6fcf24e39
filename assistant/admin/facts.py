"""The inspector's fact table: list, search, drill down, edit, pin, mark wrong or outdated, delete.

Every change goes through `FactStore` with actor ``user``, so it lands in the fact's
history and can be undone; only ``delete`` removes a fact for real.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from assistant.admin.provenance import MCP_SPEAKER, proposer
from assistant.admin.views import FactDetail, ForgetReceipt
from assistant.clock import Clock
from assistant.errors import InvalidInput, NotFound
from assistant.memory.facts import Evidence, Fact
from assistant.memory.facts.listing import FactFilter
from assistant.memory.facts.settle import Settled, settle
from assistant.memory.profile_data.purge_run import KEPT_ACTION
from assistant.memory.records import Message, Profile, Session
from assistant.memory.search import fuse_hits

if TYPE_CHECKING:
    from assistant.admin.forget import ForgetAdmin
    from assistant.admin.provenance import EvidenceReader
    from assistant.memory.core_follow import CoreFollows
    from assistant.memory.facts import FactStore
    from assistant.memory.messages import MessageStore
    from assistant.memory.scoring import RetrievalWeights
    from assistant.memory.script_probe import Reading
    from assistant.memory.sleep_candidates import CandidateStore
    from assistant.memory.usage import UsageStore

__all__ = ["SEMANTIC_CANDIDATES", "FactsAdmin", "Nearest", "Sessions"]

SEMANTIC_CANDIDATES = 200
# A fact found by meaning alone must be at least this similar to the query to be shown.
MIN_SIMILARITY = 0.25
_USER_CONFIDENCE = 0.9

# (kind, query, limit) -> ((id, cosine) best first, trust in the query's script)
Nearest = Callable[[str, str, int], "tuple[list[tuple[int, float]], Reading]"]


class Sessions:
    """Starting and ending sessions in the engine's profile, and waking its embedder.

    Args:
        new: starts a session of the current profile in a scope.
        end: marks a session over.
        wake: tells the background worker new text waits for vectors.
    """

    def __init__(
        self,
        new: Callable[[str], Session],
        end: Callable[[int], None],
        wake: Callable[[], None],
    ) -> None:
        self.new = new
        self.end = end
        self.wake = wake


class FactsAdmin:
    """Listing, searching and correcting the profile's facts.

    Args:
        facts: the facts store (its ``listing`` pages and searches them).
        messages: the messages store (what the user states is kept as their message).
        usage: which replies used which memories.
        candidates: sleep's candidates (a rejection is remembered there).
        evidence: reads the text a fact's evidence cites.
        forget: deletes a fact for real, with what goes with it.
        nearest: the items nearest a query in meaning (keywords alone without Ollama).
        weights: the retrieval weights in use (the configured ones, as recall's).
        sessions: starts and ends the session a stated fact is kept in.
        atomic: a transaction on the calling thread's connection (``with atomic():``).
        profile: returns the profile every call works in.
        clock: the time source.
        follows: keeps core memory in step with a correction (proposes its update).
    """

    def __init__(
        self,
        *,
        facts: FactStore,
        messages: MessageStore,
        usage: UsageStore,
        candidates: CandidateStore,
        evidence: EvidenceReader,
        forget: ForgetAdmin,
        nearest: Nearest,
        weights: Callable[[], RetrievalWeights],
        sessions: Sessions,
        atomic: Callable[[], AbstractContextManager[object]],
        profile: Callable[[], Profile],
        clock: Clock,
        follows: CoreFollows | None = None,
    ) -> None:
        self._facts = facts
        self._follows = follows
        self._listing = facts.listing
        self._messages = messages
        self._usage = usage
        self._candidates = candidates
        self._evidence = evidence
        self._forget = forget
        self._nearest = nearest
        self._weights = weights
        self._sessions = sessions
        self._atomic = atomic
        self._profile = profile
        self._clock = clock

    @property
    def _pid(self) -> int:
        return self._profile().id

    def list(
        self,
        *,
        status: str | Sequence[str] | None = None,
        scope: str | None = None,
        source_kind: str | None = None,
        query: str | None = None,
        semantic: bool = False,
        order: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Fact]:
        """One page of the profile's facts, filtered and searched.

        Args:
            status: one status or several (pending, active, superseded, rejected, expired).
            scope: only this scope ('' for general facts).
            source_kind: only this source (user_stated, assistant_inferred, ...).
            query: keywords (FTS5 BM25); with ``semantic``, also by meaning (vectors).
            semantic: add vector search to ``query`` (keywords alone when Ollama can't embed).
            order: importance (pinned first), recent, confidence, accessed or relevance;
                default relevance with a query, else importance. Semantic results are
                always by relevance.
            limit: page size.
            offset: rows to skip (page * limit).
        """
        where = FactFilter(self._pid, status, scope, source_kind)
        if semantic and query and query.strip():
            ranked = self._semantic(where, query)
            page = ranked[offset : offset + limit]
            found = self._listing.among(where, page)
            return [found[i] for i in page if i in found]
        order = order or ("relevance" if query else "importance")
        return self._listing.listing(where, query, order, limit, offset)

    def count(
        self,
        *,
        status: str | Sequence[str] | None = None,
        scope: str | None = None,
        source_kind: str | None = None,
        query: str | None = None,
        semantic: bool = False,
    ) -> int:
        """How many facts ``list()`` would page through with these filters."""
        where = FactFilter(self._pid, status, scope, source_kind)
        if semantic and query and query.strip():
            return len(self._semantic(where, query))
        return self._listing.count(where, query)

    def _semantic(self, where: FactFilter, query: str) -> builtins.list[int]:
        """Fact ids by fused keyword and vector score, matching ``where``, best first."""
        keyword = self._listing.keyword_ids(where, query, SEMANTIC_CANDIDATES)
        vector, reading = self._nearest("fact", query, SEMANTIC_CANDIDATES)
        weights = self._weights()  # the configured ones, as recall's
        fused = [
            fid
            for fid, _, kw, sim in fuse_hits(keyword, vector, weights, reading.trust, reading.gap)
            if kw > 0 or (sim or 0) >= MIN_SIMILARITY
        ]
        allowed = self._listing.among(where, fused)
        return [fid for fid in fused if fid in allowed]

    def get(self, fact_id: int) -> Fact:
        """One fact of the profile.

        Raises:
            NotFound: there is no such fact in this profile.
        """
        return self._facts.get(fact_id, profile_id=self._pid)

    def detail(self, fact_id: int) -> FactDetail:
        """A fact with its evidence (quoted text, date, session), history and replacements."""
        fact = self.get(fact_id)
        successor = None
        if fact.superseded_by is not None:
            try:
                successor = self.get(fact.superseded_by)
            except NotFound:
                successor = None
        history = tuple(self._facts.history(fact_id))
        kept_at = next((c.at for c in reversed(history) if c.action == KEPT_ACTION), None)
        evidence = self._evidence.views(self._pid, fact.evidence, fact_id=fact.id, kept_at=kept_at)
        actor = self._facts.changes.proposers([fact_id]).get(fact_id, "system")
        return FactDetail(
            fact=fact,
            evidence=evidence,
            history=history,
            supersedes=tuple(self._listing.superseded_by(fact_id)),
            superseded_by=successor,
            proposed_by=proposer(actor, evidence),
            times_used=self._usage.times_used("fact", fact_id),
        )

    def edit(
        self,
        fact_id: int,
        *,
        statement: str | None = None,
        scope: str | None = None,
        importance: float | None = None,
        pinned: bool | None = None,
    ) -> Fact:
        """The user's edit of a fact (recorded, undoable); a new statement makes it user-stated.

        Raises:
            HippoError: nothing to change.
            NotFound: there is no such fact in this profile.
            ValueError: an importance outside 1-10.
        """
        changes: dict[str, object] = {
            key: value
            for key, value in (
                ("statement", statement),
                ("scope", scope),
                ("importance", importance),
                ("pinned", pinned),
            )
            if value is not None
        }
        if not changes:
            raise InvalidInput(f"Nothing to change in fact {fact_id}: give a statement, scope, ...")
        fact = self.get(fact_id)
        if statement is not None and statement.strip() != fact.statement:
            changes["source_kind"] = "user_stated"
            changes["confidence"] = max(fact.confidence, _USER_CONFIDENCE)
        return self._facts.update(
            fact_id, actor="user", profile_id=self._pid, action="edit", **changes
        )

    def state(self, text: str, *, scope: str = "", source: str = "") -> Fact:
        """The fact that holds what the user states (see `stated`)."""
        return self.stated(text, scope=scope, source=source).fact

    def stated(self, text: str, *, scope: str = "", source: str = "") -> Settled:
        """A fact the user states outside the chat (``hippo fact add``), as ``/remember`` does.

        The words are kept as the user's message in a session of their own (which is the
        fact's evidence, with ``source`` saying where they came from, e.g. the command
        line), then the fact, user-stated: active, unless it reads like an instruction,
        which waits for review. Both are stored, or neither. Settled against the active
        facts at once (`settle`): a repeat stores no second fact, a correction supersedes
        what it corrects, and what Hippo can't tell waits for review as a conflict.

        Raises:
            HippoError: the text is empty, or ``scope`` is not a scope name.
        """
        from assistant.memory.importance import rate_importance
        from assistant.memory.records import scope_name

        text = text.strip()
        if not text:
            raise InvalidInput("Say what to remember: the fact is empty, so nothing was stored.")
        with self._atomic():
            session = self._sessions.new(scope_name(scope))
            said = self._messages.add_message(
                session.id,
                "user",
                text,
                importance=rate_importance(text, "user"),
                source_id=source,
            )
            settled = self._add_stated(text, said.id, session.scope)
            self._sessions.end(session.id)
        self._sessions.wake()
        return settled

    def remember(self, text: str, session_id: int, scope: str = "") -> tuple[Message, Fact]:
        """``/remember`` in a chat: ``text`` kept as the user's message in that session, and
        a user-stated fact citing it, in the chat's ``scope``; both are stored, or neither.
        Returns both (the fact says whether it is active or waits for review).

        Raises:
            MemoryWriteError: the text is empty.
            NotFound: there is no such session.
        """
        with self._atomic():  # the message says where it came from, as `state`'s do
            said = self._messages.add_message(session_id, "user", text, source_id="/remember")
            settled = self._add_stated(text, said.id, scope)
        self._sessions.wake()  # embed the new message and fact
        return said, settled.fact

    def propose(self, text: str, *, client: str, why: str = "", scope: str = "") -> Fact:
        """A fact another AI tool proposes (MCP ``remember``): pending, for the user's review.

        The tool's words are kept as a message of its own (role ``tool``, its speaker the
        tool's name, its source ``mcp:NAME``) in a session of their own, and the fact cites
        them. It is the assistant's inference, never the user's statement: pending until
        the user approves it, like the chat model's own proposals. Both are stored, or
        neither.

        Raises:
            HippoError: the text is empty or reads as an instruction (the injection checks
                of every channel), or ``scope`` is not a scope name.
        """
        from assistant.memory.injection import looks_like_instruction
        from assistant.memory.records import scope_name

        text = text.strip()
        if not text:
            raise InvalidInput("Say what to remember: the statement is empty, so nothing was kept.")
        if looks_like_instruction(text):
            raise InvalidInput(
                "That reads as an instruction to an assistant, not a fact about the person: "
                "nothing was kept. Propose one declarative sentence about them."
            )
        said_text = f"{text}\n\nWhy: {why.strip()}" if why.strip() else text
        with self._atomic():
            session = self._sessions.new(scope_name(scope))
            said = self._messages.add_message(
                session.id,
                "tool",
                said_text,
                speaker=f"{client}{MCP_SPEAKER}",
                source_id=f"mcp:{client}",
            )
            fact = self._facts.add(
                self._pid,
                text,
                source_kind="assistant_inferred",
                actor="agent",
                scope=session.scope,
                evidence=[Evidence("message", said.id)],
            )
            self._sessions.end(session.id)
        self._sessions.wake()
        return fact

    def _add_stated(self, text: str, message_id: int, scope: str) -> Settled:
        settled = settle(
            self._facts, self._pid, text, scope=scope, evidence=[Evidence("message", message_id)]
        )
        if self._follows is not None:
            self._follows.corrected(self._pid, settled, message_id)
        return settled

    def disputed_by(self, fact_id: int) -> builtins.list[Fact]:
        """The active facts this pending fact may contradict (its dispute, awaiting review)."""
        return [old for new, old in self._facts.disputes(self._pid) if new.id == fact_id]

    def pin(self, fact_id: int, pinned: bool = True) -> Fact:
        """Pin a fact (always in the prompt, listed first) or unpin it.

        Pinning a pinned fact (or unpinning an unpinned one) changes nothing and logs
        nothing; the fact comes back as it is.
        """
        fact = self.get(fact_id)
        if fact.pinned == pinned:
            return fact
        return self._facts.update(
            fact_id,
            actor="user",
            profile_id=self._pid,
            action="pin" if pinned else "unpin",
            pinned=pinned,
        )

    def mark_wrong(self, fact_id: int) -> Fact:
        """The fact is wrong: stop using it (rejected, kept with its history, undoable).

        Sleep will not propose the same claim again from the same evidence. A fact that
        is already rejected comes back as it is (nothing is logged).
        """
        fact = self.get(fact_id)
        self._candidates.reject_in_review(self._pid, fact.statement, fact.evidence)
        if fact.status == "rejected":
            return fact
        return self._facts.reject(fact_id, actor="user", profile_id=self._pid)

    def mark_outdated(self, fact_id: int) -> Fact:
        """The fact was true but is no longer: it expires now (kept for the as-of view).

        A fact that has already expired comes back as it is (nothing is logged).
        """
        fact = self.get(fact_id)
        if fact.status == "expired":
            return fact
        now = self._clock.now()
        until = fact.valid_to if fact.valid_to is not None and fact.valid_to <= now else now
        if fact.valid_from is not None and fact.valid_from > until:
            until = fact.valid_from
        return self._facts.update(
            fact_id,
            actor="user",
            profile_id=self._pid,
            action="expire",  # the same word as the state it leaves the fact in
            status="expired",
            valid_to=until,
        )

    def delete(self, fact_id: int) -> ForgetReceipt:
        """Delete a fact for real: row, evidence, history, keyword entry, vectors, uses.

        A pending or rejected fact is remembered as rejected, so sleep does not propose it
        again from the same evidence. Facts citing only this one go too. The file is not
        vacuumed here (use ``forget.text`` to scrub words from the file's bytes).
        """
        fact = self.get(fact_id)
        if fact.status in ("pending", "rejected"):
            self._candidates.reject_in_review(self._pid, fact.statement, fact.evidence)
        return self._forget.delete_items("fact", [fact_id], f"fact {fact_id}")
