"""Semantic facts: the long-term profile, each fact backed by evidence, every change undoable.

The defences live here, at the one place facts are written:

* hallucination: a fact cites evidence that exists in its own profile (and a quote must
  occur in the cited text), or it is not stored;
* attribution: the source kind sets the default status and confidence, and the model
  (actor ``agent``) can never create, approve or relabel a fact as active or user-stated;
* injection: instruction-like text is held as pending until a person reviews it;
* temporal incoherence: validity intervals, ``expire_due`` and ``active_facts(as_of=)``;
* scope creep and cross-profile contamination: every list and search takes a profile and
  a scope filter; id-based calls take an optional ``profile_id`` that must own the fact.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import apsw

from assistant.clock import Clock, from_iso, to_iso
from assistant.errors import MemoryWriteError, StorageError
from assistant.memory.textindex import fts_query, index_text
from assistant.memory.vectors import TEXT_SOURCES, enqueue

__all__ = [
    "ACTORS",
    "SOURCE_KINDS",
    "STATUSES",
    "Actor",
    "Evidence",
    "Fact",
    "FactChange",
    "FactStatus",
    "FactStore",
    "MemoryWriteError",
    "SourceKind",
    "looks_like_instruction",
]

SourceKind = Literal["user_stated", "assistant_inferred", "document", "event", "reflection"]
FactStatus = Literal["pending", "active", "superseded", "rejected", "expired"]
Actor = Literal["user", "agent", "sleep", "system"]
EvidenceKind = Literal["message", "episode", "chunk", "event", "fact"]
SOURCE_KINDS = ("user_stated", "assistant_inferred", "document", "event", "reflection")
STATUSES = ("pending", "active", "superseded", "rejected", "expired")
ACTORS = ("user", "agent", "sleep", "system")

# (status, confidence) a new fact gets from its source when the caller gives none.
_DEFAULTS: dict[str, tuple[str, float]] = {
    "user_stated": ("active", 0.9),
    "assistant_inferred": ("pending", 0.5),
    "document": ("pending", 0.6),
    "event": ("pending", 0.6),
    "reflection": ("pending", 0.5),
}
_UNTRUSTED_SOURCES = frozenset({"document", "event", "reflection"})
_COLUMNS = (
    "id, profile_id, statement, subject, predicate, scope, source_kind, confidence, importance,"
    " status, valid_from, valid_to, learned_at, last_accessed_at, access_count, pinned,"
    " superseded_by, depth"
).split(", ")
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM facts"
# Columns a change may touch (and an undo may restore); the rest are bookkeeping.
_EDITABLE = (
    "statement subject predicate scope source_kind confidence importance status"
    " valid_from valid_to pinned superseded_by depth"
).split()
_ORDERS = {
    "importance": "pinned DESC, importance DESC, confidence DESC, id DESC",
    "recent": "learned_at DESC, id DESC",
    "confidence": "confidence DESC, id DESC",
    "accessed": "last_accessed_at DESC NULLS LAST, id DESC",
}
_INSTRUCTION = re.compile(
    "|".join(
        (
            r"\b(ignore|disregard|forget|override)\b.{0,30}\b(instructions?|prompts?|rules"
            r"|guidelines|directions)\b",
            r"\bsystem\s+prompt\b|\bnew\s+instructions?\b|\bfrom\s+now\s+on\b",
            r"\b(always|never)\s+(tell|inform|answer|reply\s+to|respond\s+to)\s+(the\s+)?user\b",
            r"\b(always|never)\s+(recommend|reveal)\b|\bdo\s+not\s+(tell|inform)\s+the\s+user\b",
            r"\byou\s+(must|shall|have\s+to|are\s+required\s+to|are\s+now|will\s+now)\b",
            r"\bpretend\s+(to\s+be|you\s+are)\b",
            r"<\|?(im_start|im_end|system)\|?>|\[/?INST\]|^\s*(system|assistant)\s*:",
            r"(忽略|无视|忘记|忘掉|不要理会)[^。！？]{0,12}(指令|指示|提示|规则|设定)",
            r"系统提示|从现在(开始|起)|假装你是",
            r"你(必须|务必|一定要|只能)",
            r"(总是|始终|永远|一律)[^。！？]{0,6}(告诉用户|回答用户|回复用户|推荐)",
        )
    ),
    re.IGNORECASE | re.MULTILINE,
)


def looks_like_instruction(text: str) -> bool:
    """Whether ``text`` reads like an instruction to the assistant rather than a fact.

    A cheap, deliberately broad detector (English and Chinese): a false alarm only
    sends a fact to the review queue, a miss lets an injected rule into every prompt.
    """
    return _INSTRUCTION.search(text) is not None


@dataclass(frozen=True, slots=True)
class Evidence:
    """What supports a fact: a stored item of the same profile, optionally a quote from it."""

    kind: EvidenceKind
    ref_id: int
    quote: str = ""


@dataclass(frozen=True, slots=True)
class Fact:
    """One statement about the user or their world, with its provenance and validity."""

    id: int
    profile_id: int
    statement: str
    subject: str
    predicate: str
    scope: str
    source_kind: SourceKind
    confidence: float
    importance: float
    status: FactStatus
    valid_from: datetime | None
    valid_to: datetime | None
    learned_at: datetime
    last_accessed_at: datetime | None
    access_count: int
    pinned: bool
    superseded_by: int | None
    depth: int
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True, slots=True)
class FactChange:
    """One recorded change of a fact; ``before``/``after`` are its stored columns."""

    id: int
    fact_id: int
    actor: Actor
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    at: datetime


def _when(text: str | None) -> datetime | None:
    return from_iso(text) if text else None


def _fact(row: dict[str, Any], evidence: tuple[Evidence, ...]) -> Fact:
    values = dict(row)
    for key in ("valid_from", "valid_to", "last_accessed_at"):
        values[key] = _when(values[key])
    values["learned_at"] = from_iso(values["learned_at"])
    values["pinned"] = bool(values["pinned"])
    return Fact(**values, evidence=evidence)


def _stored(key: str, value: Any) -> Any:
    """A value as the facts table keeps it (times as UTC ISO text, so text order is time order)."""
    if isinstance(value, datetime):
        return to_iso(value)
    if isinstance(value, str) and value and key in ("valid_from", "valid_to"):
        return to_iso(from_iso(value))
    return int(value) if key == "pinned" else value


def _choice(value: str, allowed: Sequence[str], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"Unknown {what} {value!r}; use one of: {', '.join(allowed)}.")
    return value


def _squash(text: str) -> str:
    return " ".join(text.casefold().split())


def _many(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    return (value,) if isinstance(value, str) else (tuple(value) if value is not None else None)


def _in(column: str, values: Sequence[Any]) -> str:
    return f"{column} IN ({','.join('?' * len(values))})"


def _admission(
    actor: str, source_kind: str, status: str | None, confidence: float | None, statement: str
) -> tuple[str, str, float]:
    """The (source kind, status, confidence) a new fact may have, after the defences."""
    if actor == "agent" and source_kind == "user_stated":
        source_kind = "assistant_inferred"  # the model's word is never the user's word
    default_status, default_confidence = _DEFAULTS[source_kind]
    status = _choice(status or default_status, STATUSES, "status")
    untrusted = actor != "user" and source_kind in _UNTRUSTED_SOURCES
    if status == "active" and (actor == "agent" or untrusted or looks_like_instruction(statement)):
        status = "pending"
    confidence = default_confidence if confidence is None else confidence
    return source_kind, status, confidence


def _check_values(values: dict[str, Any]) -> None:
    """Raise ValueError naming the field, before SQLite's CHECK would fail obscurely."""
    _choice(values["status"], STATUSES, "status")
    _choice(values["source_kind"], SOURCE_KINDS, "source kind")
    if not 0 <= values["confidence"] <= 1:
        raise ValueError(f"confidence must be between 0 and 1, not {values['confidence']}.")
    if not 1 <= values["importance"] <= 10:
        raise ValueError(f"importance must be between 1 and 10, not {values['importance']}.")


def _guard(actor: str, before: dict[str, Any], after: dict[str, Any]) -> None:
    """Refuse what the model may not do; hold the model's rewrites for review."""
    if actor == "user":
        return
    if after["statement"] != before["statement"] and looks_like_instruction(after["statement"]):
        after["status"] = "pending" if after["status"] == "active" else after["status"]
    if actor != "agent":
        return
    if after["statement"] != before["statement"]:
        after["source_kind"] = "assistant_inferred"
        after["status"] = "pending" if after["status"] == "active" else after["status"]
    if after["status"] == "active" and before["status"] != "active":
        raise MemoryWriteError(
            f"Fact {before['id']} can't be made active by the assistant: only the user approves "
            "facts. Leave it pending; it is shown in the review queue."
        )
    if after["source_kind"] == "user_stated" and before["source_kind"] != "user_stated":
        raise MemoryWriteError(
            f"Fact {before['id']} can't be marked as stated by the user: the assistant can "
            "only record what it inferred (source assistant_inferred)."
        )


class FactStore:
    """Reads and writes facts, their evidence and their history.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._clock = clock

    # -- writing ----------------------------------------------------------------

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
        _choice(source_kind, SOURCE_KINDS, "source kind")
        _choice(actor, ACTORS, "actor")
        statement = statement.strip()
        if not statement:
            raise MemoryWriteError("A fact needs a statement; nothing was stored.")
        if not evidence:
            raise MemoryWriteError(
                f"Refusing to store the fact {statement!r} without evidence: cite the message, "
                "episode, chunk, event or fact it comes from, e.g. Evidence('message', 42)."
            )
        source_kind, status, confidence = _admission(
            actor, source_kind, status, confidence, statement
        )
        values = {
            "profile_id": profile_id,
            "statement": statement,
            "subject": subject,
            "predicate": predicate,
            "scope": scope,
            "source_kind": source_kind,
            "confidence": confidence,
            "importance": importance,
            "status": status,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "learned_at": self._clock.now(),
            "depth": depth,
            "pinned": pinned,
        }
        _check_values(values)
        conn = self._conn()
        with conn:
            self._check_evidence(conn, profile_id, evidence)
            conn.execute(
                f"INSERT INTO facts({', '.join(values)}) VALUES ({','.join('?' * len(values))})",
                [_stored(key, value) for key, value in values.items()],
            )
            fact_id = conn.last_insert_rowid()
            self._insert_evidence(conn, fact_id, evidence)
            self._index(conn, fact_id, profile_id, statement)
            self._record(conn, fact_id, actor, "create", None, self._row(conn, fact_id))
        return self.get(fact_id)

    def update(
        self, fact_id: int, *, actor: Actor, profile_id: int | None = None, **changes: Any
    ) -> Fact:
        """Change some of a fact's fields (statement, scope, confidence, status, ...).

        A user's edit of the statement makes the fact user_stated; the assistant's edit
        makes it assistant_inferred and pending.

        Raises:
            ValueError: a field that can't be changed here, or an invalid value.
            MemoryWriteError: the assistant tried to approve or relabel the fact.
            StorageError: there is no such fact (in ``profile_id``, when given).
        """
        unknown = set(changes) - set(_EDITABLE) | ({"superseded_by"} & set(changes))
        if unknown:
            raise ValueError(
                f"Can't update {', '.join(sorted(unknown))} of a fact; editable fields: "
                f"{', '.join(f for f in _EDITABLE if f != 'superseded_by')} (use supersede)."
            )
        if "statement" in changes:
            changes["statement"] = str(changes["statement"]).strip()
            if not changes["statement"]:
                raise MemoryWriteError("A fact's statement can't be empty; use forget instead.")
            if actor == "user":
                changes.setdefault("source_kind", "user_stated")
        return self._change(fact_id, actor, "update", changes, profile_id)

    def set_status(
        self, fact_id: int, status: FactStatus, *, actor: Actor, profile_id: int | None = None
    ) -> Fact:
        """Move a fact to ``status`` (recorded, undoable)."""
        _choice(status, STATUSES, "status")
        return self._change(fact_id, actor, "status", {"status": status}, profile_id)

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
            self._apply(conn, old.id, actor, "supersede", changes)
            self._apply(conn, new.id, actor, "supersedes", {})
        return self.get(old_id)

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
            self._check_evidence(conn, fact.profile_id, evidence)
            added = self._insert_evidence(conn, fact_id, evidence)
            changes = {"confidence": min(1.0, fact.confidence + boost)}
            self._apply(conn, fact_id, actor, "reinforce", changes, added_evidence=added)
        return self.get(fact_id)

    def expire_due(self, profile_id: int, now: datetime, *, actor: Actor = "system") -> int:
        """Expire the profile's active facts whose validity ended before ``now``; say how many."""
        conn = self._conn()
        with conn:
            rows = conn.execute(
                "SELECT id FROM facts WHERE profile_id = ? AND status = 'active'"
                " AND valid_to IS NOT NULL AND valid_to < ?",
                (profile_id, to_iso(now)),
            ).fetchall()
            for (fact_id,) in rows:
                self._apply(conn, fact_id, actor, "expire", {"status": "expired"})
        return len(rows)

    def undo(self, change_id: int, *, actor: Actor = "user") -> Fact:
        """Restore the state a fact had before change ``change_id`` (a create is rejected).

        Raises:
            StorageError: there is no such change.
        """
        change = self._change_row(change_id)
        if change.before is None:
            restore = {"status": "rejected"}
        else:
            restore = {key: change.before[key] for key in _EDITABLE if key in change.before}
        conn = self._conn()
        with conn:
            for kind, ref_id in (change.after or {}).get("added_evidence", []):
                conn.execute(
                    "DELETE FROM fact_evidence WHERE fact_id = ? AND kind = ? AND ref_id = ?",
                    (change.fact_id, kind, ref_id),
                )
            self._apply(conn, change.fact_id, actor, "undo", restore, undone=change_id)
        return self.get(change.fact_id)

    def touch(self, fact_ids: Iterable[int], now: datetime) -> None:
        """Record that these facts went into a prompt (last access time and count)."""
        conn = self._conn()
        with conn:
            conn.executemany(
                "UPDATE facts SET last_accessed_at = ?, access_count = access_count + 1"
                " WHERE id = ?",
                [(to_iso(now), fact_id) for fact_id in fact_ids],
            )

    # -- reading ----------------------------------------------------------------

    def get(self, fact_id: int, *, profile_id: int | None = None) -> Fact:
        """The fact with this id, with its evidence.

        Raises:
            StorageError: there is no such fact (in ``profile_id``, when given).
        """
        conn = self._conn()
        row = self._row(conn, fact_id)
        if row is None or (profile_id is not None and row["profile_id"] != profile_id):
            raise StorageError(
                f"There is no fact {fact_id} in this profile. List them with `hippo memory facts`."
            )
        return _fact(row, self._evidence(conn, [fact_id]).get(fact_id, ()))

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
        """The profile's facts matching every filter given, in ``order``.

        ``order`` is one of importance (pinned first), recent, confidence, accessed.
        """
        _choice(order, tuple(_ORDERS), "order")
        where, params = self._filters(profile_id, status, scope, source_kind, pinned)
        return self._query(
            f"{_SELECT} WHERE {where} ORDER BY {_ORDERS[order]} LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )

    def count(self, profile_id: int, status: str | Sequence[str] | None = None) -> int:
        """How many facts the profile has (with ``status``, when given)."""
        where, params = self._filters(profile_id, status, None, None, None)
        return (
            self._conn().execute(f"SELECT count(*) FROM facts WHERE {where}", params).fetchone()[0]
        )

    def active_facts(
        self,
        profile_id: int,
        *,
        scopes: Sequence[str] | None = None,
        as_of: datetime | None = None,
        limit: int = 50,
    ) -> builtins.list[Fact]:
        """The facts true now (or at ``as_of``), pinned first, then by importance.

        Now: active facts whose validity has not ended. At ``as_of``: facts learned by then
        whose validity interval contains it, including ones superseded or expired since.
        ``scopes=None`` takes every scope; otherwise general facts (scope '') and those in
        ``scopes`` only, so a health fact stays out of a work session.
        """
        if as_of is None:
            now = to_iso(self._clock.now())
            where = "status = 'active' AND (valid_to IS NULL OR valid_to > ?)"
            params: list[Any] = [now]
        else:
            moment = to_iso(as_of)
            where = (
                "status IN ('active', 'superseded', 'expired') AND learned_at <= ?"
                " AND (valid_from IS NULL OR valid_from <= ?)"
                " AND (valid_to IS NULL OR valid_to > ?)"
            )
            params = [moment, moment, moment]
        if isinstance(scopes, str):
            scopes = [scopes]
        if scopes is not None:
            where += f" AND (scope = '' OR {_in('scope', scopes)})" if scopes else " AND scope = ''"
            params.extend(scopes)
        return self._query(
            f"{_SELECT} WHERE profile_id = ? AND {where} ORDER BY {_ORDERS['importance']} LIMIT ?",
            [profile_id, *params, limit],
        )

    def keyword_search(
        self,
        profile_id: int,
        query: str,
        limit: int,
        *,
        statuses: Sequence[str] = ("active",),
    ) -> builtins.list[tuple[int, float]]:
        """Fact ids matching ``query`` by BM25, best first, with their (positive) scores."""
        expression = fts_query(query)
        if expression is None or not statuses:
            return []
        rows = self._conn().execute(
            "SELECT f.id, -bm25(facts_fts) FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid"
            f" WHERE facts_fts MATCH ? AND f.profile_id = ? AND {_in('f.status', statuses)}"
            " ORDER BY bm25(facts_fts) LIMIT ?",
            (expression, profile_id, *statuses, limit),
        )
        return [(row[0], row[1]) for row in rows]

    def history(self, fact_id: int) -> builtins.list[FactChange]:
        """Every recorded change of a fact, oldest first."""
        rows = self._conn().execute(
            "SELECT id, fact_id, actor, action, before, after, at FROM fact_history"
            " WHERE fact_id = ? ORDER BY id",
            (fact_id,),
        )
        return [_change(row) for row in rows]

    # -- internals --------------------------------------------------------------

    def _change(
        self, fact_id: int, actor: str, action: str, changes: dict, profile_id: int | None
    ) -> Fact:
        _choice(actor, ACTORS, "actor")
        self.get(fact_id, profile_id=profile_id)
        conn = self._conn()
        with conn:
            self._apply(conn, fact_id, actor, action, changes)
        return self.get(fact_id)

    def _apply(
        self, conn: apsw.Connection, fact_id: int, actor: str, action: str, changes: dict, **extra
    ) -> None:
        """Write ``changes`` to one fact and record before/after (inside a transaction)."""
        before = self._row(conn, fact_id)
        after = {**before, **{key: _stored(key, value) for key, value in changes.items()}}
        _guard(actor, before, after)
        _check_values(after)
        changed = [key for key in _EDITABLE if after[key] != before[key]]
        if changed:
            conn.execute(
                f"UPDATE facts SET {', '.join(f'{key} = ?' for key in changed)} WHERE id = ?",
                [*(after[key] for key in changed), fact_id],
            )
        if after["statement"] != before["statement"]:
            self._index(conn, fact_id, before["profile_id"], after["statement"])
        self._record(conn, fact_id, actor, action, before, {**after, **extra})

    def _row(self, conn: apsw.Connection, fact_id: int) -> dict[str, Any] | None:
        row = conn.execute(f"{_SELECT} WHERE id = ?", (fact_id,)).fetchone()
        return dict(zip(_COLUMNS, row, strict=True)) if row else None

    def _query(self, sql: str, params: Sequence[Any]) -> builtins.list[Fact]:
        conn = self._conn()
        rows = [dict(zip(_COLUMNS, row, strict=True)) for row in conn.execute(sql, params)]
        evidence = self._evidence(conn, [row["id"] for row in rows])
        return [_fact(row, evidence.get(row["id"], ())) for row in rows]

    @staticmethod
    def _filters(
        profile_id: int,
        status: str | Sequence[str] | None,
        scope: str | None,
        source_kind: str | None,
        pinned: bool | None,
    ) -> tuple[str, list[Any]]:
        where, params = ["profile_id = ?"], [profile_id]
        statuses = _many(status)
        if statuses is not None:
            where.append(_in("status", statuses) if statuses else "0")
            params.extend(statuses)
        for column, value in (("scope", scope), ("source_kind", source_kind), ("pinned", pinned)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(_stored(column, value))
        return " AND ".join(where), params

    @staticmethod
    def _evidence(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, tuple[Evidence, ...]]:
        found: dict[int, list[Evidence]] = {}
        if ids:
            rows = conn.execute(
                "SELECT fact_id, kind, ref_id, quote FROM fact_evidence"
                f" WHERE {_in('fact_id', ids)}",
                list(ids),
            )
            for fact_id, kind, ref_id, quote in rows:
                found.setdefault(fact_id, []).append(Evidence(kind, ref_id, quote))
        return {fact_id: tuple(items) for fact_id, items in found.items()}

    @staticmethod
    def _check_evidence(
        conn: apsw.Connection, profile_id: int, evidence: Sequence[Evidence]
    ) -> None:
        for item in evidence:
            _choice(item.kind, tuple(TEXT_SOURCES), "evidence kind")
            table, column = TEXT_SOURCES[item.kind]
            extra = ", status" if item.kind == "fact" else ", ''"
            row = conn.execute(
                f"SELECT {column}{extra} FROM {table} WHERE id = ? AND profile_id = ?",
                (item.ref_id, profile_id),
            ).fetchone()
            if row is None or row[1] == "rejected":
                raise MemoryWriteError(
                    f"Evidence {item.kind} {item.ref_id} does not exist in this profile"
                    f"{' (or was rejected)' if row else ''}; a fact may only cite stored memory of "
                    "its own profile. Cite the id of the message, episode, chunk, event or fact."
                )
            quote = item.quote.strip(" \"'“”‘’「」")
            if quote and _squash(quote) not in _squash(row[0]):
                raise MemoryWriteError(
                    f"The quote {item.quote!r} does not occur in {item.kind} {item.ref_id}; "
                    "quote its text exactly, or cite it without a quote."
                )

    @staticmethod
    def _insert_evidence(
        conn: apsw.Connection, fact_id: int, evidence: Sequence[Evidence]
    ) -> builtins.list[tuple[str, int]]:
        added = []
        for item in evidence:
            conn.execute(
                "INSERT OR IGNORE INTO fact_evidence(fact_id, kind, ref_id, quote)"
                " VALUES (?, ?, ?, ?)",
                (fact_id, item.kind, item.ref_id, item.quote),
            )
            if conn.changes():
                added.append((item.kind, item.ref_id))
        return added

    @staticmethod
    def _index(conn: apsw.Connection, fact_id: int, profile_id: int, statement: str) -> None:
        conn.execute("DELETE FROM facts_fts WHERE rowid = ?", (fact_id,))
        conn.execute(
            "INSERT INTO facts_fts(rowid, body) VALUES (?, ?)", (fact_id, index_text(statement))
        )
        enqueue(conn, "fact", fact_id, profile_id)

    def _record(
        self,
        conn: apsw.Connection,
        fact_id: int,
        actor: str,
        action: str,
        before: dict | None,
        after: dict | None,
    ) -> None:
        conn.execute(
            "INSERT INTO fact_history(fact_id, actor, action, before, after, at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (fact_id, actor, action, _json(before), _json(after), to_iso(self._clock.now())),
        )

    def _change_row(self, change_id: int) -> FactChange:
        row = (
            self._conn()
            .execute(
                "SELECT id, fact_id, actor, action, before, after, at FROM fact_history"
                " WHERE id = ?",
                (change_id,),
            )
            .fetchone()
        )
        if row is None:
            raise StorageError(f"There is no fact change {change_id}; see a fact's history first.")
        return _change(row)


def _json(value: dict | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _change(row: tuple) -> FactChange:
    before = json.loads(row[4]) if row[4] else None
    after = json.loads(row[5]) if row[5] else None
    return FactChange(row[0], row[1], row[2], row[3], before, after, from_iso(row[6]))
