"""Every change of a fact, recorded with its before and after, and undone from the record."""

from __future__ import annotations

import builtins
import json

import apsw

from assistant.clock import from_iso, to_iso
from assistant.errors import NotFound
from assistant.memory.facts.models import Actor, Fact, FactChange
from assistant.memory.facts.reading import FactReader
from assistant.memory.facts.rules import check_values, guard
from assistant.memory.facts.table import EDITABLE, index_statement, stored_value
from assistant.memory.facts.undo import revert_fields

__all__ = ["FactHistory"]


class FactHistory(FactReader):
    """`FactStore`'s change log: each write goes through `_apply`, which records it.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
    """

    def history(self, fact_id: int) -> builtins.list[FactChange]:
        """Every recorded change of a fact, oldest first."""
        rows = self._conn().execute(
            "SELECT id, fact_id, actor, action, before, after, at FROM fact_history"
            " WHERE fact_id = ? ORDER BY id",
            (fact_id,),
        )
        return [_change(row) for row in rows]

    def undo(self, change_id: int, *, actor: Actor = "user") -> Fact:
        """Revert exactly what change ``change_id`` did (undoing a create rejects the fact).

        Only the fields that change set go back; what later changes set stays. Where a
        later change set one of those fields again, nothing is written.

        Raises:
            StorageError: there is no such change.
            UndoConflict: a later change touched the same field; it names that change.
        """
        change = self._change_row(change_id)
        conn = self._conn()
        with conn:
            if change.before is None:
                restore: dict = {"status": "rejected"}
            else:
                current = self._row(conn, change.fact_id)
                restore = revert_fields(change, current, self.history(change.fact_id))
            for kind, ref_id in (change.after or {}).get("added_evidence", []):
                conn.execute(
                    "DELETE FROM fact_evidence WHERE fact_id = ? AND kind = ? AND ref_id = ?",
                    (change.fact_id, kind, ref_id),
                )
            self._apply(conn, change.fact_id, actor, "undo", restore, undone=change_id)
        return self.get(change.fact_id)

    def _apply(
        self, conn: apsw.Connection, fact_id: int, actor: str, action: str, changes: dict, **extra
    ) -> None:
        """Write ``changes`` to one fact and record before/after (inside a transaction)."""
        before = self._row(conn, fact_id)
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
        self._record(conn, fact_id, actor, action, before, {**after, **extra})

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
            raise NotFound(f"There is no fact change {change_id}; see a fact's history first.")
        return _change(row)


def _json(value: dict | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _change(row: tuple) -> FactChange:
    before = json.loads(row[4]) if row[4] else None
    after = json.loads(row[5]) if row[5] else None
    return FactChange(row[0], row[1], row[2], row[3], before, after, from_iso(row[6]))
