"""The inspector's reads of facts: filtered, searched and paged in SQL, and their provenance.

Fast with tens of thousands of facts: every listing is one indexed query with LIMIT/OFFSET
(see migration m004 for the indexes), and a keyword search is an FTS5 MATCH joined to
the facts table with the same filters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import apsw

from assistant.memory.facts import Fact
from assistant.memory.facts.evidence import evidence_of
from assistant.memory.facts.rules import choice
from assistant.memory.facts.table import COLUMNS, ORDERS, as_tuple, fact_from_row, in_clause
from assistant.memory.textindex import fts_query

__all__ = ["FACT_ORDERS", "FactFilter", "FactQueries"]

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
        where, params = ["f.profile_id = ?"], [profile_id]
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


class FactQueries:
    """Reads facts for the inspector.

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
        return self._conn().execute(f"SELECT count(*) {source}", params).fetchone()[0]

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

    # -- provenance ---------------------------------------------------------------------

    def proposers(self, ids: Sequence[int]) -> dict[int, str]:
        """Who created each of these facts (the actor of its ``create`` change)."""
        out: dict[int, str] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            rows = self._conn().execute(
                "SELECT fact_id, actor FROM fact_history WHERE action = 'create'"
                f" AND {in_clause('fact_id', part)}",
                part,
            )
            out.update(dict(rows))
        return out

    def superseded_by(self, fact_id: int) -> list[Fact]:
        """The facts this one replaced, newest first."""
        return self._facts(
            f"{_SELECT} FROM facts f WHERE f.superseded_by = ? ORDER BY f.id DESC", [fact_id]
        )

    def times_used(self, kind: str, item_id: int) -> int:
        """How many replies had this item in their prompt."""
        return (
            self._conn()
            .execute(
                "SELECT count(*) FROM reply_memories WHERE kind = ? AND item_id = ?",
                (kind, item_id),
            )
            .fetchone()[0]
        )

    def conflicts(self, profile_id: int) -> dict[int, int]:
        """Pending facts sleep proposed as replacing an active one: new id -> old id."""
        rows = self._conn().execute(
            "SELECT r.proposals FROM sleep_runs r WHERE r.proposals LIKE '%\"conflict\"%'"
            " ORDER BY r.id"
        )
        out: dict[int, int] = {}
        for (text,) in rows:
            for item in json.loads(text):
                if (
                    item.get("kind") == "conflict"
                    and item.get("profile_id") == profile_id
                    and item.get("old_fact_id")
                ):
                    out[int(item["fact_id"])] = int(item["old_fact_id"])
        return out
