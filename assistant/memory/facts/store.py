"""`FactStore`: the one place facts are written (added, changed, approved, superseded, ...)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import Clock, to_iso
from assistant.errors import InvalidInput, MemoryWriteError
from assistant.memory.facts.evidence import check_evidence, insert_evidence
from assistant.memory.facts.fact import (
    ACTORS,
    SOURCE_KINDS,
    Actor,
    Evidence,
    Fact,
    FactChange,
    FactStatus,
    SourceKind,
)
from assistant.memory.facts.history import FactHistory
from assistant.memory.facts.listing import FactListing
from assistant.memory.facts.reader import FactReader
from assistant.memory.facts.rules import admission, check_values, choice, statement_verdict
from assistant.memory.facts.table import EDITABLE, index_statement, stored_value
from data_schema.rows import all_rows

__all__ = ["FactStore"]


class FactStore:
    """Reads and writes facts, their evidence and their history: the one owner of those tables.

    It writes facts itself and holds three readers, each usable alone: ``reader`` (a fact
    by id, by filter, true now, by keyword), ``changes`` (the change log and undo) and
    ``listing`` (the inspector's filtered, searched and counted pages). The common reads
    are offered here too, so callers need not know which one answers.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._clock = clock
        self.reader = FactReader(conn, clock)
        self.changes = FactHistory(conn, clock, self.reader)
        self.listing = FactListing(conn)

    # -- reads (see `FactReader` and `FactHistory`) ---------------------------------------

    def get(self, fact_id: int, *, profile_id: int | None = None) -> Fact:
        """The fact with this id, with its evidence (see `FactReader.get`)."""
        return self.reader.get(fact_id, profile_id=profile_id)

    def list(
        self,
        profile_id: int,
        *,
        status: str | Sequence[str] | None = None,
        scope: str | None = None,
        source_kind: str | None = None,
        pinned: bool | None = None,
        limit: int = 100,
        offset: int = 0,
        order: str = "importance",
    ) -> builtins.list[Fact]:
        """The profile's facts matching every filter given (see `FactReader.list`)."""
        return self.reader.list(
            profile_id,
            status=status,
            scope=scope,
            source_kind=source_kind,
            pinned=pinned,
            limit=limit,
            offset=offset,
            order=order,
        )

    def count(self, profile_id: int, status: str | Sequence[str] | None = None) -> int:
        """How many facts the profile has (with ``status``, when given)."""
        return self.reader.count(profile_id, status)

    def active_facts(
        self,
        profile_id: int,
        *,
        scopes: Sequence[str] | None = None,
        as_of: datetime | None = None,
        limit: int = 50,
    ) -> builtins.list[Fact]:
        """The facts true now or at ``as_of`` (see `FactReader.active_facts`)."""
        return self.reader.active_facts(profile_id, scopes=scopes, as_of=as_of, limit=limit)

    def replaced(self, profile_id: int, limit: int = 200) -> builtins.list[Fact]:
        """Superseded facts whose successor is active (see `FactReader.replaced`)."""
        return self.reader.replaced(profile_id, limit)

    def keyword_search(
        self, profile_id: int, query: str, limit: int, *, statuses: Sequence[str] = ("active",)
    ) -> builtins.list[tuple[int, float]]:
        """Fact ids matching ``query`` by BM25, best first (see `FactReader.keyword_search`)."""
        return self.reader.keyword_search(profile_id, query, limit, statuses=statuses)

    def history(self, fact_id: int) -> builtins.list[FactChange]:
        """Every recorded change of a fact, oldest first."""
        return self.changes.of_fact(fact_id)

    def undo(self, change_id: int, *, actor: Actor = "user", note: str = "") -> Fact:
        """Revert exactly what one change did (see `FactHistory.undo`)."""
        return self.changes.undo(change_id, actor=actor, note=note)

    # -- writes ---------------------------------------------------------------------------

    def add(
        self,
        profile_id: int,
        statement: str,
        *,
        evidence: Sequence[Evidence],
        source_kind: SourceKind,
        actor: Actor,
        scope: str = "",
        confidence: float | None = None,
        importance: float = 5,
        status: FactStatus | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        subject: str = "",
        predicate: str = "",
        depth: int = 0,
        pinned: bool = False,
    ) -> Fact:
        """Store a fact with its evidence, index, embedding job and history, atomically.

        Status and confidence default from ``source_kind`` (user_stated: active, 0.9;
        assistant_inferred: pending, 0.5; document/event: pending, 0.6; reflection:
        pending, 0.5). The assistant (actor ``agent``) only ever creates pending,
        assistant_inferred facts; untrusted sources and instruction-like text stay pending.

        Raises:
            MemoryWriteError: no statement, no evidence, or evidence that does not exist in
                this profile (or a quote that is not in the cited text).
            ValueError: an unknown source kind, actor or status, or a value out of range.
        """
        choice(source_kind, SOURCE_KINDS, "source kind")
        choice(actor, ACTORS, "actor")
        statement = statement.strip()
        if not statement:
            raise MemoryWriteError("A fact needs a statement; nothing was stored.")
        reading = statement_verdict(statement, dated=valid_to is not None or source_kind == "event")
        if not evidence:
            raise MemoryWriteError(
                f"Refusing to store the fact {statement!r} without evidence: cite the message, "
                "episode, chunk, event or fact it comes from, e.g. Evidence('message', 42)."
            )
        # The admitted kind and status may differ from those asked for (see `admission`).
        admitted_kind, admitted_status, confidence = admission(
            actor, source_kind, status, confidence, statement
        )
        if actor != "user":  # a transcript's ids, stamps and labels are never a fact's words
            statement = reading.statement
        values = {
            "profile_id": profile_id,
            "statement": statement,
            "subject": subject,
            "predicate": predicate,
            "scope": scope,
            "source_kind": admitted_kind,
            "confidence": confidence,
            "importance": importance,
            "status": admitted_status,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "learned_at": self._clock.now(),
            "depth": depth,
            "pinned": pinned,
        }
        check_values(values)
        conn = self._conn()
        with conn:
            check_evidence(conn, profile_id, evidence)
            conn.execute(
                f"INSERT INTO facts({', '.join(values)}) VALUES ({','.join('?' * len(values))})",
                [stored_value(key, value) for key, value in values.items()],
            )
            fact_id = conn.last_insert_rowid()
            insert_evidence(conn, fact_id, evidence)
            index_statement(conn, fact_id, profile_id, statement)
            self.changes.record(
                conn, fact_id, actor, "create", None, self.reader.row(conn, fact_id)
            )
        return self.get(fact_id)

    def update(
        self,
        fact_id: int,
        *,
        actor: Actor,
        profile_id: int | None = None,
        action: str = "update",
        **changes: Any,
    ) -> Fact:
        """Change some of a fact's fields (statement, scope, confidence, status, ...).

        A user's edit of the statement makes the fact user_stated; the assistant's edit
        makes it assistant_inferred and pending. ``action`` names the change in the
        history (``update``, or e.g. ``outdated`` for the inspector's "mark outdated").

        Raises:
            ValueError: a field that can't be changed here, or an invalid value.
            MemoryWriteError: the assistant tried to approve or relabel the fact.
            NotFound: there is no such fact (in ``profile_id``, when given).
        """
        unknown = set(changes) - set(EDITABLE) | ({"superseded_by"} & set(changes))
        if unknown:
            raise InvalidInput(
                f"Can't update {', '.join(sorted(unknown))} of a fact; editable fields: "
                f"{', '.join(f for f in EDITABLE if f != 'superseded_by')} (use supersede)."
            )
        if "statement" in changes:
            changes["statement"] = str(changes["statement"]).strip()
            if not changes["statement"]:
                raise MemoryWriteError("A fact's statement can't be empty; use forget instead.")
            was = self.get(fact_id)
            dated = was.valid_to is not None or was.source_kind == "event"
            statement_verdict(changes["statement"], dated=dated)
            if actor == "user":
                changes.setdefault("source_kind", "user_stated")
        return self._change(fact_id, actor, action, changes, profile_id)

    def approve(
        self, fact_id: int, *, actor: Actor = "user", profile_id: int | None = None
    ) -> Fact:
        """Make a pending fact active (the review step; the assistant can't do it).

        Raises:
            MemoryWriteError: the fact is not pending, or the actor is the assistant.
        """
        fact = self.get(fact_id, profile_id=profile_id)
        if fact.status != "pending":
            raise MemoryWriteError(
                f"Fact {fact_id} is {fact.status}, not pending; nothing to approve."
            )
        return self._change(fact_id, actor, "approve", {"status": "active"}, profile_id)

    def reject(self, fact_id: int, *, actor: Actor = "user", profile_id: int | None = None) -> Fact:
        """Mark a fact as wrong (kept, with its history, so it can be undone)."""
        return self._change(fact_id, actor, "reject", {"status": "rejected"}, profile_id)

    def forget(self, fact_id: int, *, actor: Actor, profile_id: int | None = None) -> Fact:
        """Stop using a fact: it becomes rejected, kept with its history for ``undo``."""
        return self._change(fact_id, actor, "forget", {"status": "rejected"}, profile_id)

    def supersede(
        self, old_id: int, new_id: int, *, actor: Actor, profile_id: int | None = None
    ) -> Fact:
        """Replace ``old_id`` by the active fact ``new_id``; the old one is closed, not deleted.

        Its validity ends where the new one's begins (or now), and both histories record it.

        Raises:
            MemoryWriteError: the facts are the same, in different profiles, or the new
                one is not active yet (approve it first).
        """
        old, new = self.get(old_id, profile_id=profile_id), self.get(new_id, profile_id=profile_id)
        if old.id == new.id or old.profile_id != new.profile_id or new.status != "active":
            raise MemoryWriteError(
                f"Fact {new_id} can't supersede fact {old_id}: the new fact must be a different, "
                "active fact of the same profile (approve it first)."
            )
        end = new.valid_from or self._clock.now()
        conn = self._conn()
        with conn:
            changes = {"status": "superseded", "valid_to": end, "superseded_by": new.id}
            self.changes.apply(conn, old.id, actor, "supersede", changes)
            self.changes.apply(conn, new.id, actor, "supersedes", {})
        return self.get(old_id)

    def dispute(
        self, new_id: int, old_id: int, *, actor: Actor, profile_id: int | None = None
    ) -> None:
        """Record that ``new_id`` contradicts ``old_id`` and neither is settled yet.

        Both stay as they are (the new one usually pending): the pair waits in the review
        queue as a conflict, and the prompt marks both disputed (see `disputes`).
        Approving the new one supersedes the old; rejecting either ends the dispute.
        """
        self.get(old_id, profile_id=profile_id)
        self.get(new_id, profile_id=profile_id)
        conn = self._conn()
        with conn:
            self.changes.apply(conn, new_id, actor, "disputes", {}, disputes=old_id)
            self.changes.apply(conn, old_id, actor, "disputed", {}, disputed_by=new_id)

    def disputes(self, profile_id: int) -> builtins.list[tuple[Fact, Fact]]:
        """Open disputes, (new, old): a fact waiting for review against an active one."""
        out = []
        for new_id, old_id in self.changes.disputes(profile_id):
            old = self.get(old_id)
            if old.status == "active":
                out.append((self.get(new_id), old))
        return out

    def reinforce(
        self,
        fact_id: int,
        evidence: Sequence[Evidence],
        *,
        actor: Actor,
        boost: float = 0.1,
        profile_id: int | None = None,
    ) -> Fact:
        """Raise a fact's confidence by ``boost`` (at most 1.0) and add the new evidence."""
        fact = self.get(fact_id, profile_id=profile_id)
        conn = self._conn()
        with conn:
            check_evidence(conn, fact.profile_id, evidence)
            added = insert_evidence(conn, fact_id, evidence)
            changes = {"confidence": min(1.0, fact.confidence + boost)}
            self.changes.apply(conn, fact_id, actor, "reinforce", changes, added_evidence=added)
        return self.get(fact_id)

    def expire_due(self, profile_id: int, now: datetime, *, actor: Actor = "system") -> int:
        """Expire the profile's active facts whose validity ended before ``now``; say how many."""
        conn = self._conn()
        with conn:
            rows = all_rows(
                conn,
                "SELECT id FROM facts WHERE profile_id = ? AND status = 'active'"
                " AND valid_to IS NOT NULL AND valid_to < ?",
                (profile_id, to_iso(now)),
            )
            for (fact_id,) in rows:
                self.changes.apply(conn, fact_id, actor, "expire", {"status": "expired"})
        return len(rows)

    def touch(self, fact_ids: Iterable[int], now: datetime) -> None:
        """Record that these facts went into a prompt (last access time and count)."""
        conn = self._conn()
        with conn:
            conn.executemany(
                "UPDATE facts SET last_accessed_at = ?, access_count = access_count + 1"
                " WHERE id = ?",
                [(to_iso(now), fact_id) for fact_id in fact_ids],
            )

    def _change(
        self, fact_id: int, actor: str, action: str, changes: dict[str, Any], profile_id: int | None
    ) -> Fact:
        """Apply one change to a fact of the profile (checked first), in its own transaction."""
        choice(actor, ACTORS, "actor")
        self.get(fact_id, profile_id=profile_id)
        conn = self._conn()
        with conn:
            self.changes.apply(conn, fact_id, actor, action, changes)
        return self.get(fact_id)
