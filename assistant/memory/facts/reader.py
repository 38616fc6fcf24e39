"""Reading facts: by id, by filter, the ones true now (or then), and by keyword."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import to_iso
from assistant.errors import NotFound
from assistant.memory.base import Store
from assistant.memory.facts.evidence import evidence_of
from assistant.memory.facts.fact import Fact
from assistant.memory.facts.rules import choice
from assistant.memory.facts.table import (
    COLUMNS,
    ORDERS,
    SELECT,
    as_tuple,
    fact_from_row,
    in_clause,
    stored_value,
)
from assistant.memory.textindex import fts_query
from data_schema.rows import scalar

__all__ = ["FactReader"]


class FactReader(Store):
    """Reads facts with their evidence for `FactStore`, never handing out a row or cursor.

    Built with ``(conn, clock)``: see `Store`.
    """

    def get(self, fact_id: int, *, profile_id: int | None = None) -> Fact:
        """The fact with this id, with its evidence.

        Raises:
            NotFound: there is no such fact (in ``profile_id``, when given).
        """
        conn = self._conn()
        row = self.row(conn, fact_id)
        if row is None or (profile_id is not None and row["profile_id"] != profile_id):
            raise NotFound(
                f"There is no fact {fact_id} in this profile. List them with `hippo fact list`."
            )
        return fact_from_row(row, evidence_of(conn, [fact_id]).get(fact_id, ()))

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
        choice(order, tuple(ORDERS), "order")
        where, params = self._filters(profile_id, status, scope, source_kind, pinned)
        return self._query(
            f"{SELECT} WHERE {where} ORDER BY {ORDERS[order]} LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )

    def count(self, profile_id: int, status: str | Sequence[str] | None = None) -> int:
        """How many facts the profile has (with ``status``, when given)."""
        where, params = self._filters(profile_id, status, None, None, None)
        return int(scalar(self._conn(), f"SELECT count(*) FROM facts WHERE {where}", params))

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
            where += (
                f" AND (scope = '' OR {in_clause('scope', scopes)})"
                if scopes
                else " AND scope = ''"
            )
            params.extend(scopes)
        return self._query(
            f"{SELECT} WHERE profile_id = ? AND {where} ORDER BY {ORDERS['importance']} LIMIT ?",
            [profile_id, *params, limit],
        )

    def replaced(self, profile_id: int, limit: int = 200) -> builtins.list[Fact]:
        """Superseded facts whose successor is active: what was true before, newest first."""
        return self._query(
            f"{SELECT} WHERE profile_id = ? AND status = 'superseded' AND superseded_by IN"
            " (SELECT id FROM facts WHERE profile_id = ? AND status = 'active')"
            " ORDER BY valid_to DESC, id DESC LIMIT ?",
            [profile_id, profile_id, limit],
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
            f" WHERE facts_fts MATCH ? AND f.profile_id = ? AND {in_clause('f.status', statuses)}"
            " ORDER BY bm25(facts_fts) LIMIT ?",
            (expression, profile_id, *statuses, limit),
        )
        return [(row[0], row[1]) for row in rows]

    def row(self, conn: apsw.Connection, fact_id: int) -> dict[str, Any] | None:
        """The stored row of a fact (column -> value), or None; for the writers."""
        row = conn.execute(f"{SELECT} WHERE id = ?", (fact_id,)).fetchone()
        return dict(zip(COLUMNS, row, strict=True)) if row else None

    def _query(self, sql: str, params: Sequence[Any]) -> builtins.list[Fact]:
        conn = self._conn()
        rows = [dict(zip(COLUMNS, row, strict=True)) for row in conn.execute(sql, params)]
        evidence = evidence_of(conn, [row["id"] for row in rows])
        return [fact_from_row(row, evidence.get(row["id"], ())) for row in rows]

    @staticmethod
    def _filters(
        profile_id: int,
        status: str | Sequence[str] | None,
        scope: str | None,
        source_kind: str | None,
        pinned: bool | None,
    ) -> tuple[str, builtins.list[Any]]:
        where = ["profile_id = ?"]
        params: builtins.list[object] = [profile_id]
        statuses = as_tuple(status)
        if statuses is not None:
            where.append(in_clause("status", statuses) if statuses else "0")
            params.extend(statuses)
        for column, value in (("scope", scope), ("source_kind", source_kind), ("pinned", pinned)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(stored_value(column, value))
        return " AND ".join(where), params
