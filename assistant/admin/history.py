"""History and undo over facts and core blocks, and "what did Hippo believe on date D"."""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, overload

from assistant.admin.views import Change
from assistant.clock import to_iso
from assistant.errors import NotFound
from assistant.memory.core import CoreBlock, CoreChange
from assistant.memory.facts import Fact
from assistant.memory.facts.fact import FactChange
from assistant.memory.facts.listing import FactFilter
from assistant.memory.facts.table import COLUMNS, EDITABLE, fact_from_row
from assistant.memory.facts.undo import changed_fields
from assistant.memory.records import Profile
from assistant.memory.textindex import index_text, query_terms

if TYPE_CHECKING:
    from assistant.memory.core import CoreMemory
    from assistant.memory.facts import FactStore

__all__ = ["HistoryAdmin"]

_WORD = re.compile(r"\w+")


class HistoryAdmin:
    """Every memory change, undo, and the as-of view.

    Args:
        facts: the facts store (its ``changes`` log and its ``listing``).
        core: core memory, with its own change log.
        profile: returns the profile every call works in.
    """

    def __init__(self, facts: FactStore, core: CoreMemory, profile: Callable[[], Profile]) -> None:
        self._facts = facts
        self._core = core
        self._profile = profile

    @property
    def _pid(self) -> int:
        return self._profile().id

    def changes(
        self, *, limit: int = 200, offset: int = 0, kind: str | None = None
    ) -> list[Change]:
        """Changes to facts and core blocks, newest first.

        Args:
            limit: page size.
            offset: changes to skip.
            kind: ``fact`` or ``core`` only; None for both.
        """
        wanted = limit + offset
        facts = (
            []
            if kind == "core"
            else [_fact_change(*row) for row in self._facts.changes.recent(self._pid, wanted)]
        )
        core = (
            []
            if kind == "fact"
            else [_core_change(c) for c in self._core.recent_changes(self._pid, wanted)]
        )
        merged = heapq.merge(
            facts, core, key=lambda c: (c.at, c.kind == "fact", c.id), reverse=True
        )
        return list(merged)[offset : offset + limit]

    @overload
    def undo(self, change_id: int, *, kind: Literal["fact"] = "fact") -> Fact: ...

    @overload
    def undo(self, change_id: int, *, kind: Literal["core"]) -> CoreBlock: ...

    def undo(self, change_id: int, *, kind: Literal["fact", "core"] = "fact") -> Fact | CoreBlock:
        """Put a fact or core block back as it was before a change (recorded as a new change).

        Raises:
            NotFound: there is no such change in this profile.
        """
        if kind == "core":
            return self._core.undo(change_id, actor="user", profile_id=self._pid)
        fact_id = self._facts.changes.fact_of_change(self._pid, change_id)
        if fact_id is None:
            raise NotFound(
                f"There is no fact change {change_id} in this profile; see `hippo history list`."
            )
        approval = _approval_of_edit(self._facts.history(fact_id), change_id)
        if approval is None:
            return self._facts.undo(change_id, actor="user")
        # The user approved the edited text, not the one the edit replaced: undone
        # alone, the edit would make active a text nobody approved. Both go back.
        self._facts.undo(
            approval,
            actor="user",
            note=f"it approved the text fact#{change_id} wrote, which is undone with it",
        )
        return self._facts.undo(
            change_id,
            actor="user",
            note=f"its approval (fact#{approval}) undone with it: the fact waits for review",
        )

    def believed(self, query: str | None, as_of: datetime, *, limit: int = 100) -> list[Fact]:
        """The facts Hippo held true at ``as_of``, as they read then (about ``query``, if given).

        Rebuilt from each fact's history: its state after its last change before ``as_of``,
        active then and valid then. Most relevant first with a query, else most important.
        """
        at = to_iso(as_of)
        held = [
            s
            for s in self._facts.changes.states_at(self._pid, as_of)
            if s.get("status") == "active"
            and (not s.get("valid_from") or s["valid_from"] <= at)
            and (not s.get("valid_to") or s["valid_to"] > at)
        ]
        terms = query_terms(query) if query and query.strip() else []
        scored = [(_relevance(s, terms), s) for s in held]
        if terms:
            scored = [(score, s) for score, s in scored if score > 0]
        scored.sort(key=lambda x: (-x[0], -int(x[1]["pinned"]), -x[1]["importance"], -x[1]["id"]))
        states = [s for _, s in scored[:limit]]
        current = self._facts.listing.among(FactFilter(self._pid), [s["id"] for s in states])
        return [_as_fact(s, current.get(s["id"])) for s in states]


def _approval_of_edit(history: list[FactChange], change_id: int) -> int | None:
    """The approval, still in force, of the text change ``change_id`` wrote (else None).

    That is: ``change_id`` changed the statement of a pending fact, and a later
    approval (not undone since) made the fact active with that text.
    """
    change = next((c for c in history if c.id == change_id), None)
    if change is None or "statement" not in changed_fields(change):
        return None
    if (change.after or {}).get("status") != "pending":
        return None
    undone = {(c.after or {}).get("undone") for c in history if c.action == "undo"}
    approvals = [
        c.id for c in history if c.id > change_id and c.action == "approve" and c.id not in undone
    ]
    return approvals[-1] if approvals else None


def _relevance(state: dict[str, Any], terms: list[str]) -> int:
    text = " ".join(str(state.get(k) or "") for k in ("statement", "subject", "predicate"))
    words = set(_WORD.findall(index_text(text).lower()))
    return sum(any(w == t or (len(t) >= 4 and w.startswith(t[:-1])) for w in words) for t in terms)


def _as_fact(state: dict[str, Any], now: Fact | None) -> Fact:
    row = {key: state.get(key) for key in COLUMNS}
    return fact_from_row(row, now.evidence if now else ())


# Older names of changes, said with the word of the state they leave a fact in.
ACTION_WORDS = {"forget": "reject", "outdated": "expire", "keep": "kept while forgetting"}


def _fact_change(
    cid: int,
    fact_id: int,
    actor: str,
    action: str,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    at: datetime,
) -> Change:
    fields = tuple(k for k in EDITABLE if before and after and before.get(k) != after.get(k))
    if after and after.get("added_evidence"):
        fields += ("evidence",)
    return Change(
        id=cid,
        kind="fact",
        target=str(fact_id),
        actor=actor,
        action=ACTION_WORDS.get(action, action),
        at=at,
        before_text=(before or {}).get("statement", ""),
        after_text=(after or {}).get("statement", ""),
        fields=fields,
        before=before,
        after=after,
    )


def _core_change(change: CoreChange) -> Change:
    return Change(
        change.id,
        "core",
        change.label,
        change.actor,
        "edit",
        change.at,
        change.before,
        change.after,
    )
