"""The inspector's fact table: list, search, drill down, edit, pin, mark wrong or outdated, delete.

Every change goes through `FactStore` with actor ``user``, so it lands in the fact's
history and can be undone; only ``delete_fact`` removes a fact for real.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.admin.fact_queries import FactFilter
from assistant.admin.forget import ForgetAdmin
from assistant.admin.models import FactDetail, ForgetReceipt
from assistant.admin.provenance import evidence_views
from assistant.errors import InvalidInput, NotFound
from assistant.memory.facts import Fact
from assistant.memory.search import fuse_hits

__all__ = ["SEMANTIC_CANDIDATES", "FactsAdmin"]

SEMANTIC_CANDIDATES = 200
# A fact found by meaning alone must be at least this similar to the query to be shown.
MIN_SIMILARITY = 0.25
_USER_CONFIDENCE = 0.9


class FactsAdmin(ForgetAdmin):
    """Listing, searching and correcting the profile's facts."""

    def facts(
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
            found = self._queries.among(where, page)
            return [found[i] for i in page if i in found]
        order = order or ("relevance" if query else "importance")
        return self._queries.listing(where, query, order, limit, offset)

    def count_facts(
        self,
        *,
        status: str | Sequence[str] | None = None,
        scope: str | None = None,
        source_kind: str | None = None,
        query: str | None = None,
        semantic: bool = False,
    ) -> int:
        """How many facts ``facts()`` would page through with these filters."""
        where = FactFilter(self._pid, status, scope, source_kind)
        if semantic and query and query.strip():
            return len(self._semantic(where, query))
        return self._queries.count(where, query)

    def _semantic(self, where: FactFilter, query: str) -> list[int]:
        """Fact ids by fused keyword and vector score, matching ``where``, best first."""
        keyword = self._queries.keyword_ids(where, query, SEMANTIC_CANDIDATES)
        vector, trust = self._engine.nearest("fact", query, SEMANTIC_CANDIDATES)
        fused = [
            fid
            for fid, _, kw, sim in fuse_hits(keyword, vector, trust)
            if kw > 0 or (sim or 0) >= MIN_SIMILARITY
        ]
        allowed = self._queries.among(where, fused)
        return [fid for fid in fused if fid in allowed]

    def fact(self, fact_id: int) -> Fact:
        """One fact of the profile.

        Raises:
            StorageError: there is no such fact in this profile.
        """
        return self._engine.facts.get(fact_id, profile_id=self._pid)

    def fact_detail(self, fact_id: int) -> FactDetail:
        """A fact with its evidence (quoted text, date, session), history and replacements."""
        fact = self.fact(fact_id)
        successor = None
        if fact.superseded_by is not None:
            try:
                successor = self.fact(fact.superseded_by)
            except NotFound:
                successor = None
        return FactDetail(
            fact=fact,
            evidence=evidence_views(self._engine, self._pid, fact.evidence),
            history=tuple(self._engine.facts.history(fact_id)),
            supersedes=tuple(self._queries.superseded_by(fact_id)),
            superseded_by=successor,
            proposed_by=self._queries.proposers([fact_id]).get(fact_id, "system"),
            times_used=self._queries.times_used("fact", fact_id),
        )

    def edit_fact(
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
            StorageError: there is no such fact in this profile.
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
        fact = self.fact(fact_id)
        if statement is not None and statement.strip() != fact.statement:
            changes["source_kind"] = "user_stated"
            changes["confidence"] = max(fact.confidence, _USER_CONFIDENCE)
        return self._engine.facts.update(
            fact_id, actor="user", profile_id=self._pid, action="edit", **changes
        )

    def state_fact(self, text: str, *, scope: str = "", source: str = "") -> Fact:
        """A fact the user states outside the chat (``hippo memory add``), as ``/remember`` does.

        The words are kept as the user's message in a session of their own (which is the
        fact's evidence, with ``source`` saying where they came from, e.g. the command
        line), then the fact, user-stated: active, unless it reads like an instruction,
        which waits for review. Both are stored, or neither.

        Raises:
            HippoError: the text is empty, or ``scope`` is not a scope name.
        """
        from assistant.memory.facts import Evidence
        from assistant.memory.importance import rate_importance
        from assistant.memory.models import scope_name

        text = text.strip()
        if not text:
            raise InvalidInput("Say what to remember: the fact is empty, so nothing was stored.")
        engine = self._engine
        with engine.db.conn:
            session = engine.new_session(scope=scope_name(scope))
            said = engine.messages.add_message(
                session.id,
                "user",
                text,
                importance=rate_importance(text, "user"),
                source_id=source,
            )
            fact = engine.facts.add(
                self._pid,
                text,
                source_kind="user_stated",
                actor="user",
                scope=session.scope,
                evidence=[Evidence("message", said.id)],
            )
            engine.end_session(session.id)
        engine.wake()
        return fact

    def pin(self, fact_id: int, pinned: bool = True) -> Fact:
        """Pin a fact (always in the prompt, listed first) or unpin it."""
        self.fact(fact_id)
        return self._engine.facts.update(
            fact_id,
            actor="user",
            profile_id=self._pid,
            action="pin" if pinned else "unpin",
            pinned=pinned,
        )

    def mark_wrong(self, fact_id: int) -> Fact:
        """The fact is wrong: stop using it (rejected, kept with its history, undoable).

        Sleep will not propose the same claim again from the same evidence.
        """
        fact = self.fact(fact_id)
        self._candidates.reject_in_review(self._pid, fact.statement, fact.evidence)
        return self._engine.facts.reject(fact_id, actor="user", profile_id=self._pid)

    def mark_outdated(self, fact_id: int) -> Fact:
        """The fact was true but is no longer: it expires now (kept for the as-of view)."""
        fact = self.fact(fact_id)
        now = self._engine.clock.now()
        until = fact.valid_to if fact.valid_to is not None and fact.valid_to <= now else now
        if fact.valid_from is not None and fact.valid_from > until:
            until = fact.valid_from
        return self._engine.facts.update(
            fact_id,
            actor="user",
            profile_id=self._pid,
            action="outdated",
            status="expired",
            valid_to=until,
        )

    def delete_fact(self, fact_id: int) -> ForgetReceipt:
        """Delete a fact for real: row, evidence, history, keyword entry, vectors, uses.

        A pending or rejected fact is remembered as rejected, so sleep does not propose it
        again from the same evidence. Facts citing only this one go too. The file is not
        vacuumed here (use ``forget`` to scrub words from the file's bytes).
        """
        fact = self.fact(fact_id)
        if fact.status in ("pending", "rejected"):
            self._candidates.reject_in_review(self._pid, fact.statement, fact.evidence)
        return self._delete_items("fact", [fact_id], f"fact {fact_id}")
