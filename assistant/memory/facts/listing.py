"""The inspector's reads of facts: filtered, searched and paged in SQL, and counted.

Fast with tens of thousands of facts: every listing is one indexed query with LIMIT/OFFSET
(see migration m004 for the indexes), and a keyword search is an FTS5 MATCH joined to
the facts table with the same filters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import from_iso, to_iso
from assistant.memory.facts.evidence import evidence_of
from assistant.memory.facts.fact import Fact
from assistant.memory.facts.rules import choice
from assistant.memory.facts.table import COLUMNS, ORDERS, as_tuple, fact_from_row, in_clause
from assistant.memory.textindex import fts_query
from data_schema.rows import scalar

__all__ = ["FACT_ORDERS", "FactFilter", "FactListing"]

FACT_ORDERS = (*ORDERS, "relevance")
_SELECT = "SELECT " + ", ".join(f"f.{column}" for column in COLUMNS)
_BM25 = "bm25(facts_fts)"


class FactFilter:
    """The WHERE clause of a fact listing: profile, status(es), scope, source kind."""

    def __init__(
        self,
        profile_id: int,
        status: str | Sequence[str] | None = None,
        scope: str | None = None,
        source_kind: str | None = None,
    ) -> None:
        where = ["f.profile_id = ?"]
        params: list[object] = [profile_id]
        statuses = as_tuple(status)
        if statuses is not None:
            where.append(in_clause("f.status", statuses) if statuses else "0")
            params.extend(statuses)
        for column, value in (("scope", scope), ("source_kind", source_kind)):
            if value is not None:
                where.append(f"f.{column} = ?")
                params.append(value)
        self.sql = " AND ".join(where)
        self.params: list[Any] = params


class FactListing:
    """Reads facts for the inspector: pages, counts and searches under a `FactFilter`.

    Args:
        conn: returns the calling thread's connection.
    """

    def __init__(self, conn: Callable[[], apsw.Connection]) -> None:
        self._conn = conn

    def listing(
        self, where: FactFilter, query: str | None, order: str, limit: int, offset: int
    ) -> list[Fact]:
        """One page of facts matching ``where`` (and the keywords of ``query``), in ``order``."""
        choice(order, FACT_ORDERS, "order")
        source, params = self._source(where, query)
        if source is None:
            return []
        by = _BM25 if order == "relevance" and query else ORDERS.get(order, ORDERS["importance"])
        return self._facts(
            f"{_SELECT} {source} ORDER BY {by} LIMIT ? OFFSET ?", [*params, limit, offset]
        )

    def count(self, where: FactFilter, query: str | None) -> int:
        """How many facts match ``where`` (and the keywords of ``query``)."""
        source, params = self._source(where, query)
        if source is None:
            return 0
        return int(scalar(self._conn(), f"SELECT count(*) {source}", params))

    def keyword_ids(self, where: FactFilter, query: str, limit: int) -> list[tuple[int, float]]:
        """(id, BM25 score) of matching facts, best first."""
        source, params = self._source(where, query)
        if source is None:
            return []
        rows = self._conn().execute(
            f"SELECT f.id, -{_BM25} {source} ORDER BY {_BM25} LIMIT ?", [*params, limit]
        )
        return [(row[0], row[1]) for row in rows]

    def among(self, where: FactFilter, ids: Sequence[int]) -> dict[int, Fact]:
        """Those of ``ids`` that match ``where``, by id."""
        found: dict[int, Fact] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            for fact in self._facts(
                f"{_SELECT} FROM facts f WHERE {where.sql} AND {in_clause('f.id', part)}",
                [*where.params, *part],
            ):
                found[fact.id] = fact
        return found

    def _source(self, where: FactFilter, query: str | None) -> tuple[str | None, list[Any]]:
        if not query or not query.strip():
            return f"FROM facts f WHERE {where.sql}", list(where.params)
        expression = fts_query(query)
        if expression is None:
            return None, []
        return (
            "FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid"
            f" WHERE facts_fts MATCH ? AND {where.sql}",
            [expression, *where.params],
        )

    def _facts(self, sql: str, params: Sequence[Any]) -> list[Fact]:
        conn = self._conn()
        rows = [dict(zip(COLUMNS, row, strict=True)) for row in conn.execute(sql, params)]
        evidence = evidence_of(conn, [row["id"] for row in rows])
        return [fact_from_row(row, evidence.get(row["id"], ())) for row in rows]

    def superseded_by(self, fact_id: int) -> list[Fact]:
        """The facts this one replaced, newest first."""
        return self._facts(
            f"{_SELECT} FROM facts f WHERE f.superseded_by = ? ORDER BY f.id DESC", [fact_id]
        )

    def by_status(self, profile_id: int) -> dict[str, int]:
        """How many facts of each status the profile has."""
        rows = self._conn().execute(
            "SELECT status, count(*) FROM facts WHERE profile_id = ? GROUP BY status",
            (profile_id,),
        )
        return dict(rows)

    def learned_since(self, profile_id: int, since: datetime) -> list[datetime]:
        """When each fact learned since ``since`` was learned."""
        rows = self._conn().execute(
            "SELECT learned_at FROM facts WHERE profile_id = ? AND learned_at >= ?",
            (profile_id, to_iso(since)),
        )
        return [from_iso(row[0]) for row in rows]
