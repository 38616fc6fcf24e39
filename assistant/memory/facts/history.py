"""Every change of a fact, recorded with its before and after, and undone from the record.

`FactHistory` owns the ``fact_history`` table: the writes of `FactStore` go through
`apply`, which records each one; the inspector reads the log back (newest first, or the
facts as they stood at a past moment).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import Clock, from_iso, to_iso
from assistant.errors import NotFound
from assistant.memory.facts.fact import Actor, Fact, FactChange
from assistant.memory.facts.reader import FactReader
from assistant.memory.facts.rules import check_values, guard
from assistant.memory.facts.table import EDITABLE, index_statement, stored_value
from assistant.memory.facts.undo import revert_fields

__all__ = ["FactHistory", "RawChange"]

# (id, fact_id, actor, action, before, after, at): one change as the change log lists it.
RawChange = tuple[int, int, str, str, dict[str, Any] | None, dict[str, Any] | None, datetime]


class FactHistory:
    """The change log of facts: recording, undoing and reading back every change.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
        reader: reads the facts the changes apply to.
    """

    def __init__(
        self, conn: Callable[[], apsw.Connection], clock: Clock, reader: FactReader
    ) -> None:
        self._conn = conn
        self._clock = clock
        self._reader = reader

    def of_fact(self, fact_id: int) -> list[FactChange]:
        """Every recorded change of a fact, oldest first."""
        rows = self._conn().execute(
            "SELECT id, fact_id, actor, action, before, after, at FROM fact_history"
            " WHERE fact_id = ? ORDER BY id",
            (fact_id,),
        )
        return [_change(row) for row in rows]

    def undo(self, change_id: int, *, actor: Actor = "user", note: str = "") -> Fact:
        """Revert exactly what change ``change_id`` did (undoing a create rejects the fact).

        Only the fields that change set go back; what later changes set stays. Where a
        later change set one of those fields again, nothing is written. ``note``, where
        given, is kept with the undo (the history line says it).

        Raises:
            NotFound: there is no such change.
            UndoConflict: a later change touched the same field; it names that change.
        """
        change = self._change_row(change_id)
        conn = self._conn()
        with conn:
            if change.before is None:
                restore: dict[str, Any] = {"status": "rejected"}
            else:
                current = self._reader.row(conn, change.fact_id)
                assert current is not None  # a change's fact is deleted with its history
                restore = revert_fields(change, current, self.of_fact(change.fact_id))
            for kind, ref_id in (change.after or {}).get("added_evidence", []):
                conn.execute(
                    "DELETE FROM fact_evidence WHERE fact_id = ? AND kind = ? AND ref_id = ?",
                    (change.fact_id, kind, ref_id),
                )
            extra: dict[str, object] = {"note": note} if note else {}
            self.apply(conn, change.fact_id, actor, "undo", restore, undone=change_id, **extra)
        return self._reader.get(change.fact_id)

    def apply(
        self,
        conn: apsw.Connection,
        fact_id: int,
        actor: str,
        action: str,
        changes: dict[str, Any],
        **extra: object,
    ) -> None:
        """Write ``changes`` to one fact and record before/after (inside a transaction)."""
        before = self._reader.row(conn, fact_id)
        assert before is not None  # callers read the fact first
        after = {**before, **{key: stored_value(key, value) for key, value in changes.items()}}
        guard(actor, before, after)
        check_values(after)
        changed = [key for key in EDITABLE if after[key] != before[key]]
        if changed:
            conn.execute(
                f"UPDATE facts SET {', '.join(f'{key} = ?' for key in changed)} WHERE id = ?",
                [*(after[key] for key in changed), fact_id],
            )
        if after["statement"] != before["statement"]:
            index_statement(conn, fact_id, before["profile_id"], after["statement"])
        self.record(conn, fact_id, actor, action, before, {**after, **extra})

    def record(
        self,
        conn: apsw.Connection,
        fact_id: int,
        actor: str,
        action: str,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
    ) -> None:
        """Add one change to the log (inside the caller's transaction)."""
        conn.execute(
            "INSERT INTO fact_history(fact_id, actor, action, before, after, at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (fact_id, actor, action, _json(before), _json(after), to_iso(self._clock.now())),
        )

    # -- the log across a profile, for the inspector ------------------------------------

    def recent(self, profile_id: int, limit: int) -> list[RawChange]:
        """The profile's changes newest first, ``limit`` at most.

        Walks the history backwards by id (time order), joining each change to its fact,
        so the newest page costs about ``limit`` lookups however long the history is.
        """
        rows = self._conn().execute(
            "SELECT h.id, h.fact_id, h.actor, h.action, h.before, h.after, h.at"
            " FROM fact_history h JOIN facts f ON f.id = h.fact_id"
            " WHERE f.profile_id = ? ORDER BY h.id DESC LIMIT ?",
            (profile_id, limit),
        )
        return [(*row[:4], _load(row[4]), _load(row[5]), from_iso(row[6])) for row in rows]

    def fact_of_change(self, profile_id: int, change_id: int) -> int | None:
        """The fact a change belongs to, if it is this profile's."""
        row = (
            self._conn()
            .execute(
                "SELECT h.fact_id FROM fact_history h JOIN facts f ON f.id = h.fact_id"
                " WHERE h.id = ? AND f.profile_id = ?",
                (change_id, profile_id),
            )
            .fetchone()
        )
        return row[0] if row else None

    def states_at(self, profile_id: int, moment: datetime) -> list[dict[str, Any]]:
        """Each fact learned by ``moment`` as its last change before then left it."""
        at = to_iso(moment)
        rows = self._conn().execute(
            "SELECT h.after FROM facts f JOIN fact_history h ON h.id = ("
            " SELECT max(x.id) FROM fact_history x WHERE x.fact_id = f.id AND x.at <= ?)"
            " WHERE f.profile_id = ? AND f.learned_at <= ?",
            (at, profile_id, at),
        )
        return [state for (text,) in rows if (state := _load(text))]

    def disputes(self, profile_id: int) -> list[tuple[int, int]]:
        """The (new, old) pairs recorded as disputed whose new fact still waits for review.

        Read from the pending facts (few, and indexed), not from the whole log.
        """
        rows = self._conn().execute(
            "SELECT h.fact_id, json_extract(h.after, '$.disputes') FROM facts f"
            " JOIN fact_history h ON h.fact_id = f.id"
            " WHERE f.profile_id = ? AND f.status = 'pending' AND h.action = 'disputes'"
            " ORDER BY h.id",
            (profile_id,),
        )
        return [(new, old) for new, old in rows if old is not None]

    def proposers(self, ids: list[int]) -> dict[int, str]:
        """Who created each of these facts (the actor of its ``create`` change)."""
        out: dict[int, str] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows = self._conn().execute(
                "SELECT fact_id, actor FROM fact_history WHERE action = 'create'"
                f" AND fact_id IN ({','.join('?' * len(part))})",
                part,
            )
            out.update(dict(rows))
        return out

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
            raise NotFound(f"There is no fact change {change_id}; see a fact's history first.")
        return _change(row)


def _json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _load(text: str | None) -> dict[str, Any] | None:
    return json.loads(text) if text else None


def _change(row: tuple[Any, ...]) -> FactChange:
    return FactChange(
        row[0], row[1], row[2], row[3], _load(row[4]), _load(row[5]), from_iso(row[6])
    )
